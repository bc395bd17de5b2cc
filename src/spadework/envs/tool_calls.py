r"""Reading tool calls out of an agent's text, without ever evaluating it.

Standard library only: this module is copied into the sandbox. ``parse_calls`` accepts the
forms models write: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks, a
Python-style call or list of calls (``[find(collection='books'), lend(book_id=1)]``), and a
JSON call object or a JSON list of them; any of these may sit in a code fence or
``\boxed{...}``. Argument values are literals only (``ast.literal_eval`` of each argument, a
bare name read as its text); anything else is refused with a message that says how to write the
call.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from spadework import pysyntax

TOOL_CALL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
FENCE = re.compile(r"```[\w+-]*[ \t]*\n?(.*?)```", re.DOTALL)
BOXED = "\\boxed{"
JSON_WORDS = {"true": True, "false": False, "null": None, "none": None}
"""Bare names a Python-style call may use as values (JSON's spelling, and a lowercase None)."""
LINE_ENDS = " \t`;,."
HOW_TO_CALL = "call a tool by its own name, as tool_name(arg=value)"
ONE_BY_ONE = "write each argument as name=value"


class ToolCallError(ValueError):
    """Text that looks like a tool call cannot be read as one; the message says why."""


@dataclass(frozen=True)
class ToolCall:
    """One call of a tool, as the agent wrote it (values not yet checked against the tool).

    Attributes:
        name: the tool's name.
        arguments: the arguments given by name.
        positional: the arguments given by position, in order.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    positional: tuple[Any, ...] = ()

    def __str__(self) -> str:
        """The call written as Python: ``lend(book_id=1, member_id=7)``.

        >>> str(ToolCall("find", {"collection": "books", "value": "Dune"}))
        "find(collection='books', value='Dune')"
        """
        parts = [repr(value) for value in self.positional]
        parts += [f"{name}={value!r}" for name, value in self.arguments.items()]
        return f"{self.name}({', '.join(parts)})"


def call(name: str, **arguments: Any) -> str:
    """One tool call written as Python, for a tool world's ``solution()``: no quoting by hand.

    >>> call("update", collection="books", id=4, field="title", value="Dune")
    "update(collection='books', id=4, field='title', value='Dune')"
    """
    return str(ToolCall(name, arguments))


def parse_calls(text: str) -> list[ToolCall]:
    r"""The tool calls in an agent's text, in order; ``[]`` when it holds none.

    Where to look, first match wins: every ``<tool_call>`` block; else the last ``\boxed{...}``;
    else the code fences; else the whole text; within a box, the fences or the text, the whole of
    it as one call or list of calls, else each line that is a call. ``<think>`` sections are
    skipped.

    Raises:
        ToolCallError: something is written as a call but cannot be one: a call of an attribute
            or of a call result (``os.system(...)``), an argument that is not a literal value,
            ``*args``, or a ``<tool_call>`` block that is not a call.

    >>> for call in parse_calls("[find(collection='books', value='Dune'), lend(book_id=1, member_id=7)]"):
    ...     print(call.name, call.arguments)
    find {'collection': 'books', 'value': 'Dune'}
    lend {'book_id': 1, 'member_id': 7}
    >>> parse_calls('<tool_call>{"name": "get", "arguments": "{\\"id\\": 3}"}</tool_call>')
    [ToolCall(name='get', arguments={'id': 3}, positional=())]
    >>> parse_calls('Looking it up.\n```\n{"name": "get", "arguments": {"id": 3}}\n```')
    [ToolCall(name='get', arguments={'id': 3}, positional=())]
    >>> parse_calls('{"name": "get", "arguments": {"id": 3}}}')  # a closing brace too many
    [ToolCall(name='get', arguments={'id': 3}, positional=())]
    >>> parse_calls('{{"name": "get", "arguments": {"id": 3}}}\nDone? \\boxed{}')
    [ToolCall(name='get', arguments={'id': 3}, positional=())]
    >>> parse_calls("find(collection: 'books', value: 'Dune')")  # a tool list's colons
    [ToolCall(name='find', arguments={'collection': 'books', 'value': 'Dune'}, positional=())]
    >>> parse_calls("\\boxed{get('books', 2)}"), parse_calls("The answer is 42."), parse_calls("done")
    ([ToolCall(name='get', arguments={}, positional=('books', 2))], [], [])
    >>> parse_calls("__import__('os').system('ls')")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    spadework.envs.tool_calls.ToolCallError: __import__('os').system(...) is not a tool call; ...
    """
    text = _without_thinking(str(text))
    blocks = TOOL_CALL_BLOCK.findall(text)
    if blocks:
        return [call for block in blocks for call in _block_calls(block)]
    boxed = [content for content in _boxed_contents(text) if content.strip()]
    if boxed:  # an empty box (an instruction echoed) says nothing: the calls are elsewhere
        text = boxed[-1]
    fenced = FENCE.findall(text)
    if fenced:
        text = "\n".join(fenced)
    whole = _calls_in(text)
    if whole is not None:
        return whole
    return [call for line in text.splitlines() for call in (_calls_in(line.strip(LINE_ENDS)) or [])]


def _without_thinking(text: str) -> str:
    """The text outside ``<think>`` sections (and after a lone ``</think>``)."""
    text = THINKING.sub("", text)
    return text.rpartition("</think>")[2]


def _block_calls(block: str) -> list[ToolCall]:
    calls = _calls_in(block)
    if not calls:
        shown = " ".join(block.split())[:80]
        raise ToolCallError(f"the <tool_call> block {shown!r} is not a call; write "
                            '<tool_call>{"name": "tool_name", "arguments": {"arg": value}}</tool_call>')
    return calls


def _boxed_contents(text: str) -> list[str]:
    r"""What each ``\boxed{...}`` holds (braces balanced).

    >>> _boxed_contents("a \\boxed{f(x={'a': 1})} b \\boxed{2")
    ["f(x={'a': 1})"]
    """
    found, start = [], text.find(BOXED)
    while start != -1:
        depth, at = 1, start + len(BOXED)
        for at in range(start + len(BOXED), len(text)):
            depth += {"{": 1, "}": -1}.get(text[at], 0)
            if depth == 0:
                found.append(text[start + len(BOXED):at])
                break
        start = text.find(BOXED, at)
    return found


def _calls_in(text: str) -> list[ToolCall] | None:
    """The text as one call or a list of calls (JSON or Python); None when it is not written as
    calls (prose, a number, a plain list).

    Raises:
        ToolCallError: it is written as calls that cannot be read.
    """
    text = text.strip()
    if not text:
        return None
    for candidate in _json_readings(text):
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, (dict, list)):
            return _json_calls(value)
    for candidate in dict.fromkeys((text, _colons_as_equals(text))):
        try:
            tree = pysyntax.parse(candidate, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        return _python_calls(tree)
    return None


COLON_ARGUMENT = re.compile(r"(?<=[(,])(\s*[A-Za-z_]\w*)\s*:(?!=)")
"""An argument written ``name: value``, as a tool listed ``name(arg: type)`` reads."""


def _colons_as_equals(text: str) -> str:
    """A call whose arguments are written ``name: value`` (copied from a tool list's ``name: type``)
    with them written ``name=value``; tried only when the text does not read as it is.

    >>> _colons_as_equals("find(collection: 'books', value: 'Dune')")
    "find(collection= 'books', value= 'Dune')"
    """
    return COLON_ARGUMENT.sub(lambda m: f"{m.group(1)}=", text)


def _json_readings(text: str) -> Iterator[str]:
    """The text as it is, then (only if that did not read) its readings with doubled or surplus braces."""
    yield text
    yield from _undoubled(text)
    yield from _closed_early(text)


def _undoubled(text: str) -> tuple[str, ...]:
    """Readings of JSON written with doubled braces: the outer pair single (the call's own braces
    doubled), and every pair single (a format string's template); none for other text.

    >>> _undoubled('{{"name": "get", "arguments": {"id": 3}}}')
    ('{"name": "get", "arguments": {"id": 3}}', '{"name": "get", "arguments": {"id": 3}}')
    >>> _undoubled('{{"name": "get", "arguments": {"f": {"id": 3}}}}')[0]
    '{"name": "get", "arguments": {"f": {"id": 3}}}'
    >>> _undoubled('{{"name": "get", "arguments": {{"id": 3}}}}')[1]
    '{"name": "get", "arguments": {"id": 3}}'
    >>> _undoubled('{"id": 3}')
    ()
    """
    if not (text.startswith("{{") and text.endswith("}}")):
        return ()
    return text[1:-1], text.replace("{{", "{").replace("}}", "}")


def _closed_early(text: str) -> tuple[str, ...]:
    """The JSON object a text opens with when nothing but surplus closing braces follows it (the
    1.5B after its warm start wrote ``{"name": ..., "arguments": {...}}}``); none for other text.

    >>> _closed_early('{"name": "get", "arguments": {"id": 3}}}')
    ('{"name": "get", "arguments": {"id": 3}}',)
    >>> _closed_early('{"name": "get", "arguments": {"id": 3}} and then'), _closed_early('{"id": 3')
    ((), ())
    """
    if not text.startswith("{"):
        return ()
    try:
        _, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return ()
    rest = text[end:].strip()
    return (text[:end],) if rest and set(rest) == {"}"} else ()


def _json_calls(value: dict | list) -> list[ToolCall] | None:
    items = value if isinstance(value, list) else [value]
    calls = [_json_call(item) for item in items]
    if not any(calls):
        return None
    if not all(calls):
        position = next(i for i, call in enumerate(calls, start=1) if call is None)
        raise ToolCallError(f"item {position} of the list is not a call; write each call as "
                            '{"name": "tool_name", "arguments": {...}}')
    return [call for call in calls if call is not None]


def _json_call(item: Any) -> ToolCall | None:
    """A JSON call object (``{"name", "arguments"}``, also ``parameters`` or OpenAI's
    ``{"function": {...}}``), or None when ``item`` is no call object."""
    if isinstance(item, dict) and isinstance(item.get("function"), dict):
        item = item["function"]
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None
    arguments = item.get("arguments", item.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            raise ToolCallError(f"the arguments of {item['name']} are not JSON: {arguments[:80]!r}") from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolCallError(f"the arguments of {item['name']} must be a JSON object of name: value, "
                            f"not {json.dumps(arguments)[:80]}")
    return ToolCall(item["name"], dict(arguments))


def _python_calls(node: ast.expr) -> list[ToolCall] | None:
    if isinstance(node, ast.Call):
        return [_python_call(node)]
    if not isinstance(node, (ast.List, ast.Tuple)) or not any(isinstance(e, ast.Call) for e in node.elts):
        return None
    for position, element in enumerate(node.elts, start=1):
        if not isinstance(element, ast.Call):
            raise ToolCallError(f"item {position} of the list ({_short(element)}) is not a call; "
                                "list only tool calls, as [tool_name(arg=value), ...]")
    return [_python_call(element) for element in node.elts if isinstance(element, ast.Call)]


def _python_call(node: ast.Call) -> ToolCall:
    if not isinstance(node.func, ast.Name):
        raise ToolCallError(f"{_short(node.func)}(...) is not a tool call; {HOW_TO_CALL}")
    name = node.func.id
    positional: list[Any] = []
    for argument in node.args:
        if isinstance(argument, ast.Starred):
            raise ToolCallError(f"{name}() is given *{_short(argument.value)}; {ONE_BY_ONE}")
        positional.append(_literal(name, f"argument {len(positional) + 1}", argument))
    arguments = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ToolCallError(f"{name}() is given **{_short(keyword.value)}; {ONE_BY_ONE}")
        if keyword.arg in arguments:
            raise ToolCallError(f"{name}() is given the argument '{keyword.arg}' twice")
        arguments[keyword.arg] = _literal(name, f"argument '{keyword.arg}'", keyword.value, keyword.arg)
    return ToolCall(name, arguments, tuple(positional))


class _JsonNames(ast.NodeTransformer):
    """``true``, ``false``, ``null`` (and ``none``) written as names become their constants."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id.lower() in JSON_WORDS:
            return ast.copy_location(ast.Constant(JSON_WORDS[node.id.lower()]), node)
        return node


def _literal(tool: str, which: str, node: ast.expr, keyword: str | None = None) -> Any:
    """The literal value an argument node writes; tuples and sets become lists. A bare name as
    the whole value is read as its text (``collection=boxes`` as ``'boxes'``), as small models write
    a collection's name, and the tool checks it like any other value; the argument's own name
    (``id=id``) is a placeholder, not a value.

    >>> boxes = ast.parse("boxes", mode="eval").body
    >>> _literal("list_records", "argument 'collection'", boxes, "collection")
    'boxes'
    >>> _literal("list_records", "argument 'boxes'", boxes, "boxes")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    spadework.envs.tool_calls.ToolCallError: list_records() argument 'boxes' is not a plain value (boxes)...
    """
    if isinstance(node, ast.Name) and node.id.lower() not in JSON_WORDS and node.id != keyword:
        return node.id
    try:
        value = ast.literal_eval(_JsonNames().visit(node))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise ToolCallError(f"{tool}() {which} is not a plain value ({_short(node)}); write numbers, "
                            "strings, lists or dicts, and call one tool at a time") from None
    return _as_json_like(value)


def _as_json_like(value: Any) -> Any:
    """A literal with tuples and sets as lists (as JSON would carry them).

    >>> _as_json_like({"a": (1, {2})})
    {'a': [1, [2]]}
    """
    if isinstance(value, (tuple, list)):
        return [_as_json_like(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return [_as_json_like(item) for item in sorted(value, key=repr)]
    if isinstance(value, dict):
        return {key: _as_json_like(item) for key, item in value.items()}
    return value


def _short(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."
