"""BFCL v4 single-turn, offline: the entries, a reply decoded into calls, the leaderboard's AST checker.

A single-turn entry is one user question (live entries may open with a system message) and the
functions the model may call. The model replies once; the reply is decoded into calls and the
category decides what passes:

- ``simple_*``, ``multiple``, ``parallel``, ``parallel_multiple`` and their ``live_`` versions:
  the leaderboard's AST checker compares the calls with the possible answer (function names,
  required and optional parameters, types and values; ``parallel`` in any order).
- ``irrelevance`` and ``live_irrelevance``: none of the functions fits the question; the entry
  passes when the reply holds no call.
- ``live_relevance``: some function fits; the entry passes when the reply holds a call.

Two formats (``CallFormat``). ``prompting``: the leaderboard's prompting decoder (a Python list of
calls, ``[f(a=1), g(b='x')]``; Java and JavaScript entries' argument values are read as Java and
JavaScript source). ``native``: the model's own tool calls (``<tool_call>`` JSON, or native calls
a server returned), read with the tool-world parser; the tools were shown with dots in names
replaced by underscores (the leaderboard's conversion), and the checker is told so.

The checker module imports the leaderboard's model table, which imports every vendor SDK; the
package is installed without them, so the table is replaced, while the checker is imported, by
a stand-in holding the two models whose settings the checker reads (``CHECKER_MODELS``).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import ModuleType, SimpleNamespace
from typing import Any

from spadework.envs.tool_calls import ToolCallError, parse_calls
from spadework.errors import UsageError
from spadework.eval.bfcl import EntryScore, ReplyKind, count_positional, decode_refusal
from spadework.eval.bfcl_data import CATEGORIES as MULTI_TURN_CATEGORIES
from spadework.eval.bfcl_data import FunctionDoc, bfcl_module
from spadework.policy.base import Message, Role
from spadework.policy.toolcalls import CallFormat

NON_LIVE_CATEGORIES: tuple[str, ...] = (
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
    "irrelevance")
"""BFCL v4's non-live single-turn categories (400, 100, 50, 200, 200, 200 and 240 entries)."""
LIVE_CATEGORIES: tuple[str, ...] = (
    "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple", "live_irrelevance",
    "live_relevance")
"""BFCL v4's live single-turn categories (258, 1053, 16, 24, 884 and 16 entries)."""
SINGLE_TURN_CATEGORIES: tuple[str, ...] = NON_LIVE_CATEGORIES + LIVE_CATEGORIES
"""The single-turn categories of BFCL v4, all of which the package carries, in its order."""
CATEGORY_GROUPS: Mapping[str, tuple[str, ...]] = {
    "single_turn": SINGLE_TURN_CATEGORIES, "non_live": NON_LIVE_CATEGORIES, "live": LIVE_CATEGORIES,
    "multi_turn": MULTI_TURN_CATEGORIES}
"""Names for sets of categories, as the leaderboard's test collections call them (``--task live``)."""

CHECKER_MODELS: Mapping[CallFormat, str] = {CallFormat.PROMPTING: "qwen3-0.6b",
                                            CallFormat.NATIVE: "qwen3-0.6b-FC"}
"""The leaderboard model the checker is told of, per format: one whose function names keep their
dots (prompting), one whose tools had dots replaced by underscores (native, as shown here)."""

_UNDERSCORE_TO_DOT = {CallFormat.PROMPTING: False, CallFormat.NATIVE: True}
_CHECKER = "eval_checker.ast_eval.ast_checker"
_MODEL_TABLE = "bfcl_eval.constants.model_config"

Call = dict[str, dict[str, Any]]
"""One decoded call as the checker reads it: ``{function name: {parameter: value}}``."""


class Check(StrEnum):
    """What makes a reply pass, by category."""

    AST = "ast"
    """The calls match the possible answer (the AST checker)."""
    NO_CALL = "no_call"
    """The reply holds no call (irrelevance)."""
    CALL = "call"
    """The reply holds a call (relevance)."""


def check_of(category: str) -> Check:
    """What a reply to an entry of ``category`` must do to pass.

    >>> check_of("live_irrelevance"), check_of("live_relevance"), check_of("parallel")
    (<Check.NO_CALL: 'no_call'>, <Check.CALL: 'call'>, <Check.AST: 'ast'>)
    """
    if "irrelevance" in category:
        return Check.NO_CALL
    return Check.CALL if "relevance" in category else Check.AST


def language_of(category: str) -> str:
    """The language of a category's functions and argument values: ``python``, ``java`` or ``javascript``.

    >>> language_of("simple_java"), language_of("simple_javascript"), language_of("live_simple")
    ('java', 'javascript', 'python')
    """
    if category.endswith("javascript"):
        return "javascript"
    return "java" if category.endswith("java") else "python"


@dataclass(frozen=True)
class SingleEntry:
    """One single-turn entry.

    Attributes:
        id: the entry's id, e.g. ``simple_python_0`` or ``live_multiple_3-1-0``.
        category: one of ``SINGLE_TURN_CATEGORIES``.
        messages: the question: a user message, in live entries sometimes after a system message
            (and, in a few live_irrelevance entries, earlier user and assistant messages).
        functions: the function docs shown to the model, with the leaderboard's language note
            (Java and JavaScript parameters become strings of source, as it shows them).
        checked: the function docs the checker reads (the data's own, without the note).
        answer: the possible answer: per call, ``{name: {parameter: [allowed values]}}`` (an
            allowed ``""`` marks an optional parameter); empty for the (ir)relevance categories.
    """

    id: str
    category: str
    messages: tuple[Message, ...]
    functions: tuple[FunctionDoc, ...]
    checked: tuple[FunctionDoc, ...]
    answer: tuple[dict[str, Any], ...]

    @property
    def check(self) -> Check:
        """What the reply must do to pass."""
        return check_of(self.category)

    def names(self, call_format: CallFormat) -> frozenset[str]:
        """The function names the model is shown (native: dots replaced by underscores)."""
        names = (doc["name"] for doc in self.functions)
        if call_format is CallFormat.NATIVE:
            return frozenset(name.replace(".", "_") for name in names)
        return frozenset(names)


def load_single_entries(category: str) -> tuple[SingleEntry, ...]:
    """Every entry of a single-turn ``category`` with its possible answer, in the data's order.

    Raises:
        UsageError: ``category`` is not a single-turn category, or the package is missing.
    """
    if category not in SINGLE_TURN_CATEGORIES:
        raise UsageError(f"unknown BFCL single-turn category {category!r}; choose from "
                         f"{', '.join(SINGLE_TURN_CATEGORIES)}")
    return _load(category)


@functools.lru_cache(maxsize=len(SINGLE_TURN_CATEGORIES))
def _load(category: str) -> tuple[SingleEntry, ...]:
    utils = bfcl_module("utils")
    shown = utils.load_dataset_entry(category, include_prereq=False, include_language_specific_hint=True)
    raw = utils.load_dataset_entry(category, include_prereq=False, include_language_specific_hint=False)
    answers: dict[str, list] = {}
    if check_of(category) is Check.AST:
        answers = {row["id"]: row["ground_truth"] for row in utils.load_ground_truth_entry(category)}
    return tuple(
        SingleEntry(id=entry["id"], category=category,
                    messages=tuple(Message(Role(m["role"]), m["content"]) for m in entry["question"][0]),
                    functions=tuple(entry["function"]), checked=tuple(plain["function"]),
                    answer=tuple(answers.get(entry["id"], ())))
        for entry, plain in zip(shown, raw, strict=True))


@dataclass(frozen=True)
class SingleReply:
    """One reply, decoded.

    Attributes:
        kind: ``CALLS`` when it holds at least one call; ``EMPTY`` (no call: an empty reply,
            ``[]``, prose in the native format) or ``UNDECODABLE`` (prompting: not a list of
            calls; native: something written as a call that cannot be one).
        calls: the decoded calls as the checker reads them.
        positional: calls written with positional arguments (the decoders drop those arguments).
        error: why an ``UNDECODABLE`` reply was not decoded.
    """

    kind: ReplyKind
    calls: tuple[Call, ...] = ()
    positional: int = 0
    error: str = ""

    @property
    def called(self) -> bool:
        """Whether the reply holds a parseable call."""
        return self.kind is ReplyKind.CALLS

    def known(self, names: frozenset[str]) -> bool:
        """Whether it holds calls and every one names one of ``names`` (the functions shown)."""
        return self.called and all(next(iter(call)) in names for call in self.calls)


def decode_reply(text: str, entry: SingleEntry, call_format: CallFormat) -> SingleReply:
    """A reply to ``entry`` decoded in ``call_format`` (see the module)."""
    if call_format is CallFormat.NATIVE:
        return _native(text)
    language = language_of(entry.category)
    if language == "python" and (refusal := decode_refusal(text)):
        return SingleReply(ReplyKind.UNDECODABLE, error=refusal)
    formats = bfcl_module("constants.enums").ReturnFormat
    try:
        calls = bfcl_module("model_handler.utils").default_decode_ast_prompting(text, formats(language))
    except Exception as exc:  # the leaderboard counts any decoding error as a reply without calls
        return SingleReply(ReplyKind.UNDECODABLE, error=f"{type(exc).__name__}: {exc}"[:300])
    if bfcl_module("utils").is_empty_output(calls):
        return SingleReply(ReplyKind.EMPTY)
    return SingleReply(ReplyKind.CALLS, tuple(calls), count_positional(text) if language == "python" else 0)


def _native(text: str) -> SingleReply:
    try:
        calls = parse_calls(text)
    except ToolCallError as exc:
        return SingleReply(ReplyKind.UNDECODABLE, error=str(exc)[:300])
    if not calls:
        return SingleReply(ReplyKind.EMPTY)
    positional = sum(1 for call in calls if call.positional)
    decoded = tuple({call.name: dict(call.arguments)} for call in calls)  # positional arguments dropped
    return SingleReply(ReplyKind.CALLS, decoded, positional)


def score_reply(entry: SingleEntry, reply: SingleReply, call_format: CallFormat) -> EntryScore:
    """The leaderboard's verdict on one decoded reply to ``entry``.

    (Ir)relevance entries pass on whether the reply holds a call, with the leaderboard's error
    types when not; the others go to its AST checker. A checker that fails on a strange reply
    scores it invalid (``ast_checker:error``) and never stops the evaluation.
    """
    if entry.check is Check.NO_CALL:
        return EntryScore(True) if not reply.called else EntryScore(
            False, "irrelevance_error:decoder_success", "the reply holds a call where no function fits")
    if entry.check is Check.CALL:
        return EntryScore(True) if reply.called else EntryScore(
            False, "relevance_error:decoder_failed", reply.error or "the reply holds no call")
    if not reply.called:
        kind = "ast_decoder:decoder_failed" if reply.kind is ReplyKind.UNDECODABLE else "ast_decoder:empty"
        return EntryScore(False, kind, reply.error or "the reply holds no call")
    checker = ast_checker()
    language = bfcl_module("constants.enums").Language(language_of(entry.category))
    model = CHECKER_MODELS[call_format].replace("/", "_")
    try:
        verdict = checker.ast_checker(list(entry.checked), list(reply.calls), list(entry.answer), language,
                                      entry.category, model)
    except Exception as exc:
        return EntryScore(False, "ast_checker:error", f"{type(exc).__name__}: {exc}"[:300])
    return EntryScore(bool(verdict["valid"]), str(verdict.get("error_type", "")),
                      "; ".join(map(str, verdict.get("error", ())))[:300])


@functools.cache
def ast_checker() -> ModuleType:
    """The leaderboard's AST checker module, imported with the stand-in model table (see the module).

    Raises:
        UsageError: the package, or a module it needs, is not installed.
    """
    stand_in = ModuleType(_MODEL_TABLE)
    stand_in.MODEL_CONFIG_MAPPING = {  # type: ignore[attr-defined]
        name: SimpleNamespace(underscore_to_dot=_UNDERSCORE_TO_DOT[call_format])
        for call_format, name in CHECKER_MODELS.items()}
    placed = _MODEL_TABLE not in sys.modules
    if placed:
        sys.modules[_MODEL_TABLE] = stand_in
    try:
        return bfcl_module(_CHECKER)
    finally:
        if placed and sys.modules.get(_MODEL_TABLE) is stand_in:
            del sys.modules[_MODEL_TABLE]
