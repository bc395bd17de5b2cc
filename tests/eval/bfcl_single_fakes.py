"""FAKES for BFCL single-turn tests: replies written from an entry's possible answer, in both formats,
and policies that give them.

The oracle's call takes, for every parameter, the first allowed value of the possible answer other
than ``""`` (which marks an optional parameter; one with no other value is left out); nested
dictionaries are chosen the same way. Java and JavaScript values are written as the source text
the leaderboard's type converters read back (``new ArrayList<>(Arrays.asList(...))``,
``{key: value}``, ``10L``...).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from spadework.eval.bfcl_single import SingleEntry, language_of
from spadework.eval.bfcl_single_play import single_prompt
from spadework.policy.base import Completion, Conversation, Sampling
from spadework.policy.toolcalls import CallFormat, tool_call_text

UNSET = object()
"""A parameter the oracle leaves out."""


def chosen(options: Sequence[Any]) -> Any:
    """The first allowed value other than ``""`` (``UNSET``: none), nested dictionaries chosen too."""
    given = [option for option in options if option != ""]
    return _pick(given[0]) if given else UNSET


def _pick(value: Any) -> Any:
    if isinstance(value, dict):  # a nested dictionary: each key's allowed values
        picked = {key: chosen(allowed) if isinstance(allowed, list) else allowed
                  for key, allowed in value.items()}
        return {key: item for key, item in picked.items() if item is not UNSET}
    if isinstance(value, list):
        return [_pick(item) for item in value]
    return value


def answer_calls(entry: SingleEntry) -> list[tuple[str, dict[str, Any]]]:
    """The oracle's calls: (function name, arguments), one per call of the possible answer."""
    calls = []
    for call in entry.answer:
        [(name, parameters)] = call.items()
        arguments = {key: chosen(allowed) for key, allowed in parameters.items()}
        calls.append((name, {key: value for key, value in arguments.items() if value is not UNSET}))
    return calls


def _types(entry: SingleEntry, name: str) -> Mapping[str, Any]:
    doc = next(doc for doc in entry.checked if doc["name"] == name)
    return doc["parameters"]["properties"]


def _java(value: Any, kind: str, nested: str | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "long":
        return f"{value}L"
    if kind == "float":
        return f"{value}f"
    if kind == "ArrayList" and isinstance(value, list):
        parts = ", ".join(json.dumps(v) if isinstance(v, str) else _java(v, nested or "", None)
                          for v in value)
        return f"new ArrayList<>(Arrays.asList({parts}))" if value else "new ArrayList<>()"
    if kind == "Array" and isinstance(value, list):
        parts = ", ".join(_java(v, nested or "", None) for v in value)
        return f"new {nested}[]{{{parts}}}"
    if kind == "HashMap" and isinstance(value, dict):
        puts = " ".join(f'put("{k}", {json.dumps(v) if isinstance(v, str) else _java(v, "", None)});'
                        for k, v in value.items())
        return f"new HashMap<String, Object>() {{{{ {puts} }}}}"
    return str(value)


def _js(value: Any, kind: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind == "Bigint":
        return f"{value}n"
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(v) if isinstance(v, str) else _js(v, "") for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {json.dumps(v) if isinstance(v, str) else _js(v, '')}"
                               for k, v in value.items()) + "}"
    return str(value)


def source_arguments(entry: SingleEntry, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arguments as the model writes them: Java and JavaScript values as source text."""
    language = language_of(entry.category)
    if language == "python":
        return arguments
    types = _types(entry, name)
    if language == "java":
        return {k: _java(v, types[k]["type"], types[k].get("items", {}).get("type"))
                for k, v in arguments.items()}
    return {k: _js(v, types[k]["type"]) for k, v in arguments.items()}


def prompting_reply(entry: SingleEntry) -> str:
    """The possible answer as the leaderboard's prompting format: ``[f(a=1), g(b='x')]``."""
    calls = []
    for name, arguments in answer_calls(entry):
        written = source_arguments(entry, name, arguments)
        if language_of(entry.category) == "python":
            parts = [f"{key}={value!r}" for key, value in written.items()]
        else:  # Java or JavaScript source: strings as double-quoted literals, unless they are code
            parts = [f"{key}={json.dumps(value) if _plain(arguments[key]) else value}"
                     for key, value in written.items()]
        calls.append(f"{name}({', '.join(parts)})")
    return f"[{', '.join(calls)}]"


def _plain(value: Any) -> bool:
    """A string value that is text, not source (``new InetSocketAddress("h", 80)`` is written as is)."""
    return isinstance(value, str) and '"' not in value


def native_reply(entry: SingleEntry) -> str:
    """The possible answer as ``<tool_call>`` JSON, names as the tools show them (dots as underscores)."""
    return "\n".join(tool_call_text(name.replace(".", "_"), source_arguments(entry, name, arguments))
                     for name, arguments in answer_calls(entry))


def prompt_key(conversation: Conversation, tools: Any = None) -> tuple[str, str]:
    """What tells entries apart in a prompt: the question, and the functions shown (a few questions
    are asked of several entries)."""
    return conversation[-1].content, json.dumps(tools) if tools else conversation[0].content


def replies_to(entries: Sequence[SingleEntry], call_format: CallFormat,
               reply: Any) -> dict[tuple[str, str], str]:
    """``reply(entry)`` (or the text ``reply``) for each entry, under its prompt's key."""
    return {prompt_key(*single_prompt(entry, call_format)): reply(entry) if callable(reply) else reply
            for entry in entries}


class Replier:
    """FAKE policy: answers each conversation with the reply under its prompt's key (``replies_to``)."""

    def __init__(self, replies: Mapping[tuple[str, str], str]):
        self.replies = dict(replies)
        self.batches: list[int] = []

    def generate(self, conversations: Sequence[Conversation], sampling: Sampling,
                 tools=None) -> list[Completion]:
        self.batches.append(len(conversations))
        shown = tools or [None] * len(conversations)
        return [Completion(self.replies[prompt_key(c, t)], prompt_tokens=40, completion_tokens=8)
                for c, t in zip(conversations, shown, strict=True)]

    def close(self) -> None:
        pass
