r"""Tool calls as text: the schemas shown to a model that has no tool support of its own, and a
server's native ``tool_calls`` written back as the ``<tool_call>`` text a tool world parses.

The text follows Qwen2.5's chat template, which renders tools into the system message and
has the model write each call as ``<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>``;
a conversation rendered here reads as it would through that template.

For an OpenAI-compatible server, a reply's native calls are sent back as they came, with the
tool results as ``tool`` messages answering their ids (``chat_messages``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from spadework.kinds import CallFormat as CallFormat
from spadework.policy.base import Conversation, Message, Role, Tools

TOOLS_OPENING = ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
                 "You are provided with function signatures within <tools></tools> XML tags:\n<tools>")
TOOLS_CLOSING = ("\n</tools>\n\nFor each function call, return a json object with function name and "
                 "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
                 '{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')
PROBE_TOOL = {"type": "function", "function": {"name": "probe_tool_name", "description": "A probe.",
                                               "parameters": {"type": "object", "properties": {}}}}
"""A tool rendered once to learn whether a chat template shows the tools it is given."""


def tools_text(tools: Tools) -> str:
    """The tool schemas as a system message section (Qwen2.5's wording), one JSON schema a line.

    >>> print(tools_text([{"type": "function", "function": {"name": "look"}}]))  # doctest: +ELLIPSIS
    # Tools
    <BLANKLINE>
    You may call one or more functions to assist with the user query.
    <BLANKLINE>
    You are provided with function signatures within <tools></tools> XML tags:
    <tools>
    {"type": "function", "function": {"name": "look"}}
    </tools>
    <BLANKLINE>
    For each function call, return a json object with function name and arguments within <tool_call>...
    <tool_call>
    {"name": <function-name>, "arguments": <args-json-object>}
    </tool_call>
    """
    schemas = "".join("\n" + json.dumps(tool, ensure_ascii=False) for tool in tools)
    return TOOLS_OPENING + schemas + TOOLS_CLOSING


def with_tools_in_system(messages: Sequence[Message], tools: Tools | None) -> list[Message]:
    """``messages`` with the tools' section closing the system message (one is added first when
    there is none); the messages unchanged when there are no tools.

    >>> [m.content[:14] for m in with_tools_in_system([Message(Role.SYSTEM, "Be brief.")], [{}])]
    ['Be brief.\\n\\n# T']
    >>> [m.role.value for m in with_tools_in_system([Message(Role.USER, "hi")], [{}])]
    ['system', 'user']
    """
    if not tools:
        return list(messages)
    section = tools_text(tools)
    if messages and messages[0].role is Role.SYSTEM:
        return [Message(Role.SYSTEM, f"{messages[0].content}\n\n{section}"), *messages[1:]]
    return [Message(Role.SYSTEM, section), *messages]


def tool_call_text(name: str, arguments: Any) -> str:
    r"""One call as the ``<tool_call>`` text a model writes (and a tool world parses).

    >>> tool_call_text("lend", {"book_id": 1})
    '<tool_call>\n{"name": "lend", "arguments": {"book_id": 1}}\n</tool_call>'
    """
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + \
        "\n</tool_call>"


def native_calls(tool_calls: Any) -> list[dict[str, Any]]:
    """A reply's native ``tool_calls`` in the form a request sends them back: an id for each,
    the arguments as a JSON string; calls without a name are left out.

    >>> native_calls([{"function": {"name": "get", "arguments": {"id": 2}}}, {"id": "x"}])
    [{'id': 'call_0', 'type': 'function', 'function': {'name': 'get', 'arguments': '{"id": 2}'}}]
    """
    calls = []
    for k, call in enumerate(tool_calls if isinstance(tool_calls, list) else []):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps({} if arguments is None else arguments)
        calls.append({"id": str(call.get("id") or f"call_{k}"), "type": "function",
                      "function": {"name": function["name"], "arguments": arguments}})
    return calls


def native_call_texts(tool_calls: Any) -> list[str]:
    r"""A server's native ``tool_calls`` (``[{"function": {"name", "arguments"}}, ...]``, the arguments
    a JSON string) as ``<tool_call>`` texts; entries without a name are left out, and arguments
    that are not JSON are kept as the string they are.

    >>> native_call_texts([{"id": "c1", "type": "function",
    ...                     "function": {"name": "get", "arguments": '{"id": 2}'}}, {"oops": 1}])
    ['<tool_call>\n{"name": "get", "arguments": {"id": 2}}\n</tool_call>']
    """
    texts = []
    for call in native_calls(tool_calls):
        arguments = call["function"]["arguments"]
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            pass
        texts.append(tool_call_text(call["function"]["name"], arguments))
    return texts


def with_native_calls(content: str, tool_calls: Any) -> str:
    r"""A reply's text with its native tool calls appended as ``<tool_call>`` lines.

    >>> with_native_calls("Looking it up.", [{"function": {"name": "find", "arguments": "{}"}}])
    'Looking it up.\n<tool_call>\n{"name": "find", "arguments": {}}\n</tool_call>'
    >>> with_native_calls("no calls", None)
    'no calls'
    """
    return "\n".join(part for part in (content, *native_call_texts(tool_calls)) if part)


SEE_FIRST_RESULT = "(all results are in the answer to the first call)"
"""The answer to every call but the first when the results cannot be told apart line by line."""

NativeCalls = Mapping[str, tuple[str, list[dict[str, Any]]]]
"""Replies with native tool calls: completion text -> (the reply's own content, its tool calls)."""


def split_results(text: str, count: int) -> list[str]:
    r"""A tool message's text as the answers to ``count`` calls: one line each when it has that many
    lines (a tool world writes one line a call), else the whole text to the first.

    >>> split_results("a -> 1\nb -> 2", 2), split_results("oops", 2)
    (['a -> 1', 'b -> 2'], ['oops', '(all results are in the answer to the first call)'])
    """
    lines = text.split("\n")
    if len(lines) == count:
        return lines
    return [text] + [SEE_FIRST_RESULT] * (count - 1)


def chat_messages(conversation: Conversation, native: NativeCalls | None = None) -> list[dict[str, Any]]:
    """The request's messages. A reply found in ``native`` and followed by tool results is sent with
    its tool calls (and its own content, "" when it had none: llama.cpp's server refuses null),
    and the results as ``tool`` messages answering them; other tool results are sent as user
    messages (a ``tool`` message must answer a call's id).

    >>> from spadework.policy.base import Message, Role
    >>> calls = [{"id": "c1", "type": "function", "function": {"name": "get", "arguments": "{}"}}]
    >>> chat = [Message(Role.ASSISTANT, "t"), Message(Role.TOOL, "get() -> 1"),
    ...         Message(Role.ASSISTANT, "u"), Message(Role.TOOL, "no call")]
    >>> for message in chat_messages(chat, {"t": ("", calls)}):
    ...     print(message)
    {'role': 'assistant', 'content': '', 'tool_calls': [{'id': 'c1', 'type': 'function', \
'function': {'name': 'get', 'arguments': '{}'}}]}
    {'role': 'tool', 'tool_call_id': 'c1', 'content': 'get() -> 1'}
    {'role': 'assistant', 'content': 'u'}
    {'role': 'user', 'content': 'no call'}
    """
    messages: list[dict[str, Any]] = []
    pending: list[str] = []
    for k, message in enumerate(conversation):
        following = conversation[k + 1].role if k + 1 < len(conversation) else None
        if message.role is Role.ASSISTANT and native and message.content in native and following is Role.TOOL:
            content, calls = native[message.content]
            messages.append({"role": "assistant", "content": content, "tool_calls": calls})
            pending = [call["id"] for call in calls]
        elif message.role is Role.TOOL and pending:
            messages += [{"role": "tool", "tool_call_id": call_id, "content": result}
                         for call_id, result in zip(pending, split_results(message.content, len(pending)),
                                                    strict=True)]
            pending = []
        elif message.role is Role.TOOL:
            messages.append({"role": "user", "content": message.content})
        else:
            messages.append(message.to_json())
            pending = []
    return messages
