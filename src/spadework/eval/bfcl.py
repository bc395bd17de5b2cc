"""BFCL v4 multi-turn, offline: decode a reply, execute its calls, score an entry.

How the leaderboard plays an entry in prompting mode, and what each part here does in it:

1. The system prompt (``system_prompt(entry.functions)``) goes before the first turn's messages.
2. Turns come in order; each opens with ``entry.messages(turn)`` (at a miss_func turn, a
   message listing the functions added then; the system prompt is not rebuilt).
3. Within a turn, each step is one model reply: ``decode_calls`` turns it into call strings;
   a reply without calls, or one that cannot be decoded, ends the turn. Otherwise
   ``EntryWorld.execute`` runs the calls and the results go back to the model
   (``results_message``), and the next step follows. After more than ``step_limit()`` steps
   with calls the entry ends there.
4. ``score_entry`` checks the decoded calls of every step of every turn with the
   leaderboard's checker, which replays them on fresh backends beside the possible answer
   and compares the backends' state and the results after each turn.

The leaderboard's executor ``eval``s call strings in this process and keeps each backend
instance in a module global named after the model and the entry. Two guards keep that
safe and independent here: every ``EntryWorld`` and every ``score_entry`` uses a fresh
name (a uuid) and removes its instances when done; and a call runs only when it is a plain
call of one of the entry's functions with literal arguments (anything else, e.g. ``help()``
or ``open(...)``, is answered with the error text the executor gives an unknown name, and is
left out when scoring). Replies whose arithmetic the leaderboard's decoder would ``eval`` are
decoded only when it is arithmetic on number literals.
"""

from __future__ import annotations

import ast
import functools
import inspect
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from types import TracebackType

from spadework import pysyntax
from spadework.errors import EnvCrashed
from spadework.eval.bfcl_data import (
    CATEGORIES,
    INSTALL_HINT,
    BfclEntry,
    FunctionDoc,
    bfcl_module,
    load_entries,
    results_message,
    step_limit,
    system_prompt,
)

__all__ = ["CATEGORIES", "INSTALL_HINT", "BfclEntry", "DecodedCalls", "EntryScore", "EntryWorld",
           "FunctionDoc", "ReplyKind", "count_positional", "decode_calls", "decode_refusal", "load_entries",
           "results_message", "score_entry", "session_instances", "step_limit", "system_prompt"]

SESSION_PREFIX = "spadework_"
"""Start of the model name that ``EntryWorld`` and ``score_entry`` give the executor."""
ERROR_PREFIX = "Error during execution: "
"""How the leaderboard's executor starts the result of a call that failed."""
FORCE_TERMINATED = "multi_turn:force_terminated"
"""The leaderboard's error type for an entry with fewer turns played than it has."""

_EXECUTOR = "eval_checker.multi_turn_eval.multi_turn_utils"
_CHECKER = "eval_checker.multi_turn_eval.multi_turn_checker"
_ARITHMETIC_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_MAX_EXPONENT = 64
_CALL_NODES = (ast.Call, ast.keyword, ast.Name, ast.Attribute, ast.Load, ast.Constant, ast.List, ast.Tuple,
               ast.Set, ast.Dict, ast.UnaryOp, ast.USub, ast.UAdd)
"""What a call string may be made of to run: calls, names, literals and signed numbers."""


class ReplyKind(Enum):
    """What a model reply holds, as the leaderboard's decoder sees it."""

    CALLS = "calls"
    EMPTY = "empty"
    """Decoded to no call (an empty reply, ``[]``): the turn ends."""
    UNDECODABLE = "undecodable"
    """Not a list of calls (prose, a syntax error): the turn ends."""


@dataclass(frozen=True)
class DecodedCalls:
    """One model reply, decoded.

    Attributes:
        kind: whether it holds calls; only ``CALLS`` continues the turn.
        calls: the call strings to execute, as the leaderboard's decoder writes them (keyword
            arguments only: positional arguments are dropped without a word).
        positional: calls in the reply, nested ones included, written with positional arguments.
        error: why an ``UNDECODABLE`` reply was not decoded; empty otherwise.
    """

    kind: ReplyKind
    calls: tuple[str, ...] = ()
    positional: int = 0
    error: str = ""

    @property
    def ends_turn(self) -> bool:
        """Whether the leaderboard ends the turn at this reply."""
        return self.kind is not ReplyKind.CALLS


@dataclass(frozen=True)
class EntryScore:
    """The checker's verdict on one entry.

    Attributes:
        valid: the entry is solved.
        error_type: the checker's error type when not, e.g. ``multi_turn:instance_state_mismatch``.
        error_message: the checker's message when not.
    """

    valid: bool
    error_type: str = ""
    error_message: str = ""


def _reply_tree(text: str) -> ast.expr | None:
    """The reply as the decoder parses it (one bracketed list of calls), or None."""
    body = text.strip("`\n ")
    body = body if body.startswith("[") else "[" + body
    body = body if body.endswith("]") else body + "]"
    try:
        return pysyntax.parse(body.strip().strip("'"), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def count_positional(text: str) -> int:
    """Calls in a reply, nested ones included, that pass positional arguments (0 if unparsable).

    >>> count_positional('[cd("Alex"), ls(a=True), mv(source="a", destination=basename("b"))]')
    2
    >>> count_positional("I would call cd."), count_positional("")
    (0, 0)
    """
    return _positional(_reply_tree(text))


def _positional(tree: ast.expr | None) -> int:
    if tree is None:
        return 0
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args)


def _number(node: ast.expr) -> float | int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):  # a number, not True or False
        return node.value
    return None


def _arithmetic_refusal(tree: ast.expr) -> str:
    """Why the decoder must not ``eval`` the reply's arithmetic ("" when it is all on number
    literals, with ``+ - * / // % **``, powers of two literals and exponents up to 64).

    >>> _arithmetic_refusal(ast.parse("[f(x=2*3+1, y=-2**8)]", mode="eval").body)
    ''
    >>> _arithmetic_refusal(ast.parse("[f(x=help()+1)]", mode="eval").body)
    'arithmetic on Call is not decoded; write the value itself'
    >>> _arithmetic_refusal(ast.parse("[f(x=9**9**9)]", mode="eval").body)
    'a power of more than two number literals, or above 64, is not decoded; write the value itself'
    """
    for node in ast.walk(tree):
        if not isinstance(node, ast.BinOp):
            continue
        for part in ast.walk(node):
            if isinstance(part, ast.BinOp) and not isinstance(part.op, _ARITHMETIC_OPS):
                return f"the operator {type(part.op).__name__} is not decoded; write the value itself"
            if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Pow):
                base, exponent = _number(part.left), _number(part.right)
                if base is None or exponent is None or abs(exponent) > _MAX_EXPONENT:
                    return ("a power of more than two number literals, or above 64, is not decoded; "
                            "write the value itself")
            elif isinstance(part, ast.Constant) and _number(part) is None:
                return f"arithmetic on {type(part.value).__name__} is not decoded; write the value itself"
            elif not isinstance(part, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop)):
                return f"arithmetic on {type(part).__name__} is not decoded; write the value itself"
    return ""


def _call_tree(call: str) -> ast.Call | None:
    """``call`` parsed, when it is one call made of names, literals and calls; else None."""
    try:
        tree = pysyntax.parse(call, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(tree, ast.Call):
        return None
    callees = {id(part) for node in ast.walk(tree) if isinstance(node, ast.Call)
               for part in ast.walk(node.func)}
    for node in ast.walk(tree):
        if not isinstance(node, _CALL_NODES) or (isinstance(node, ast.keyword) and node.arg is None):
            return None
        if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in callees:
            return None  # a name read as a value (os.environ, a global): not a literal
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        if name.startswith("__"):
            return None
    return tree


def _unknown_function(tree: ast.Call, methods: frozenset[str]) -> str:
    """The first function called in ``tree`` that is not one of ``methods`` ("" if none)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in methods):
            root = node.func
            while isinstance(root, ast.Attribute):
                root = root.value
            return root.id if isinstance(root, ast.Name) else ast.unparse(node.func)
    return ""


def _refusal(call: str, methods: frozenset[str]) -> str:
    """Why ``call`` is not run ("" when it is a plain call of ``methods`` with literal arguments)."""
    tree = _call_tree(call)
    if tree is None:
        return "only calls of the listed functions with literal arguments are run"
    unknown = _unknown_function(tree, methods)
    return f"name '{unknown}' is not defined" if unknown else ""


def decode_refusal(text: str) -> str:
    """Why a reply must not reach the leaderboard's prompting decoder, which ``eval``s arithmetic in
    arguments ("" when it may: no arithmetic, or only on number literals).

    >>> decode_refusal("[add(a=2*3)]"), decode_refusal("I cannot.")
    ('', '')
    >>> decode_refusal("[f(x=open('a').name + 'b')]")
    'arithmetic on Attribute is not decoded; write the value itself'
    """
    tree = _reply_tree(text)
    return _arithmetic_refusal(tree) if tree is not None else ""


def decode_calls(text: str) -> DecodedCalls:
    """A model reply decoded by the leaderboard's prompting-format decoder.

    The reply should be one Python list of calls with keyword arguments, optionally fenced in
    backticks. Reasoning text must be removed first: the decoder takes the whole reply.
    """
    tree = _reply_tree(text)
    positional = _positional(tree)
    refusal = _arithmetic_refusal(tree) if tree is not None else ""
    if refusal:
        return DecodedCalls(ReplyKind.UNDECODABLE, positional=positional, error=refusal)
    handler_utils = bfcl_module("model_handler.utils")
    executor = bfcl_module(_EXECUTOR)
    try:
        calls = handler_utils.default_decode_execute_prompting(text, has_tool_call_tag=False)
    except Exception as exc:  # the leaderboard ends the turn on any decoding error
        return DecodedCalls(ReplyKind.UNDECODABLE, positional=positional,
                            error=f"{type(exc).__name__}: {exc}")
    if executor.is_empty_execute_response(calls):
        return DecodedCalls(ReplyKind.EMPTY, positional=positional)
    odd = next((call for call in calls if _call_tree(call) is None), None)
    if odd is not None:
        return DecodedCalls(ReplyKind.UNDECODABLE, positional=positional,
                            error=f"decoded to {odd!r}, which is not a call with literal arguments")
    return DecodedCalls(ReplyKind.CALLS, tuple(calls), positional)


@functools.lru_cache(maxsize=64)
def _methods(classes: tuple[str, ...]) -> frozenset[str]:
    """The functions the executor can call for ``classes``: their public methods."""
    mapping = bfcl_module("constants.executable_backend_config").CLASS_FILE_PATH_MAPPING
    names: set[str] = set()
    for class_name in classes:
        cls = getattr(bfcl_module(mapping[class_name].removeprefix("bfcl_eval.")), class_name)
        members = inspect.getmembers(cls, inspect.isroutine)
        names.update(name for name, _ in members if not name.startswith("_"))
    return frozenset(names)


def _session_name() -> str:
    return f"{SESSION_PREFIX}{uuid.uuid4().hex}"


def session_instances(name: str) -> list[str]:
    """The backend instances the leaderboard's executor holds for the model name ``name``
    (an ``EntryWorld.name``), including those its checker made."""
    return [key for key in vars(bfcl_module(_EXECUTOR)) if key.startswith(f"{name}_")]


def _forget(name: str) -> None:
    executor_globals = vars(bfcl_module(_EXECUTOR))
    for key in session_instances(name):
        executor_globals.pop(key, None)


class EntryWorld:
    """One entry's backends for one play: executes the model's calls, keeps their state.

    Each world has its own model name (``name``, with a uuid), so worlds of the same entry
    never share instances; ``close`` (or leaving the ``with`` block) removes them.
    """

    def __init__(self, entry: BfclEntry) -> None:
        self.entry = entry
        self.name = _session_name()
        self._methods = _methods(entry.involved_classes)
        self._closed = False
        self._run([])  # as the leaderboard does: the instances exist from the start

    def _run(self, calls: list[str]) -> list[str]:
        executor = bfcl_module(_EXECUTOR)
        results, _ = executor.execute_multi_turn_func_call(
            calls, dict(self.entry.initial_config), list(self.entry.involved_classes), self.name,
            self.entry.id, long_context=self.entry.long_context, is_evaL_run=False)
        return [str(result) for result in results]

    def execute(self, calls: Sequence[str]) -> list[str]:
        """Run one step's calls in order; one result text per call.

        A call that fails, or that is not run (see the module's docstring), gets a text that
        starts with ``ERROR_PREFIX``.

        Raises:
            EnvCrashed: the world is closed.
        """
        if self._closed:
            raise EnvCrashed(f"the BFCL world of {self.entry.id} is closed; open a new EntryWorld to "
                             "play again")
        refusals = [_refusal(call, self._methods) for call in calls]
        runnable = [call for call, refusal in zip(calls, refusals, strict=True) if not refusal]
        results = iter(self._run(runnable))
        return [ERROR_PREFIX + refusal if refusal else next(results) for refusal in refusals]

    def close(self) -> None:
        """Remove this world's instances from the executor. Closing twice is harmless."""
        self._closed = True
        _forget(self.name)

    def __enter__(self) -> EntryWorld:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def score_entry(entry: BfclEntry, calls_per_turn: Sequence[Sequence[Sequence[str]]]) -> EntryScore:
    """The leaderboard's multi-turn verdict on one played entry.

    Args:
        entry: the entry played.
        calls_per_turn: per turn, per step, the decoded calls (``DecodedCalls.calls``). Steps
            without calls are left out, as the leaderboard's evaluation does. Fewer turns than
            the entry has means the model was forced to quit: invalid, ``FORCE_TERMINATED``.
    """
    if len(calls_per_turn) != len(entry.answers):
        return EntryScore(False, FORCE_TERMINATED, f"{len(calls_per_turn)} turns were played of the "
                          f"entry's {len(entry.answers)}; the model was forced to quit")
    methods = _methods(entry.involved_classes)
    decoded = [[kept for step in turn if (kept := [call for call in step if not _refusal(call, methods)])]
               for turn in calls_per_turn]
    checker = bfcl_module(_CHECKER)
    name = _session_name()
    try:
        verdict = checker.multi_turn_checker(decoded, [list(turn) for turn in entry.answers],
                                             entry.checker_entry(), entry.category, name)
    finally:
        _forget(name)
    return EntryScore(bool(verdict["valid"]), str(verdict.get("error_type", "")),
                      str(verdict.get("error_message", "")))
