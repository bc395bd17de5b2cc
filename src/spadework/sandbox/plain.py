"""Plain data as text: the only thing that crosses from a model's code to the process that judges it.

Standard library only (it runs inside the sandbox). ``encode`` writes a value built of None,
bools, ints, floats, complex numbers, strings, bytes and lists, tuples, dicts, sets and frozensets
of them as a Python literal; anything else (a function, an object that claims to equal
everything, a generator) is refused. ``decode`` reads such a literal back without running any
code: it walks the parsed tree and accepts only those node shapes, within a size and depth limit.

The two sides do not trust each other the same way. ``encode`` runs where the model's code runs
and is only a convenience there (that code may replace it); ``decode`` runs where the verdict is
made and is the guard: whatever text arrives, the result is plain data or ``NotPlain``.
"""

from __future__ import annotations

import ast
import math
import warnings

MAX_CHARS = 1 << 20
"""Longest literal ``decode`` reads (characters)."""
MAX_DEPTH = 64
"""Deepest nesting of containers either side accepts."""
NAMED = {"float": float, "complex": complex, "set": set, "frozenset": frozenset}
"""The calls a literal may hold: non-finite floats, complex numbers, empty and frozen sets."""


class NotPlain(ValueError):
    """A value, or a text, that is not plain data."""


def encode(value: object, depth: int = 0) -> str:
    """``value`` as a Python literal that ``decode`` reads back.

    Subclasses of the plain types are written as their plain value (a named tuple as a tuple),
    so no method of the value's own class survives the crossing.

    >>> encode([1, -0.0, float("nan"), "a", b"b", (None, True), {1: {2}}, set(), 1j])
    "[1, -0.0, float('nan'), 'a', b'b', (None, True), {1: {2}}, set(), complex(0.0, 1.0)]"
    >>> encode(lambda: 0)
    Traceback (most recent call last):
    spadework.sandbox.plain.NotPlain: a function is not plain data (numbers, str, bytes, None, containers)
    """
    if depth > MAX_DEPTH:
        raise NotPlain(f"nested deeper than {MAX_DEPTH} levels")
    if value is None or value is True or value is False:
        return repr(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value) if math.isfinite(value) else f"float('{float.__repr__(value)}')"
    if isinstance(value, complex):
        return f"complex({encode(value.real)}, {encode(value.imag)})"
    if isinstance(value, str):
        return str.__repr__(value)
    if isinstance(value, bytes):
        return bytes.__repr__(value)
    inner = depth + 1
    if isinstance(value, tuple):
        items = [encode(item, inner) for item in tuple.__iter__(value)]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if isinstance(value, list):
        return f"[{', '.join(encode(item, inner) for item in list.__iter__(value))}]"
    if isinstance(value, dict):
        pairs = (f"{encode(k, inner)}: {encode(v, inner)}" for k, v in dict.items(value))
        return f"{{{', '.join(pairs)}}}"
    if isinstance(value, (set, frozenset)):
        if isinstance(value, frozenset):
            members = sorted(encode(item, inner) for item in frozenset.__iter__(value))
            return f"frozenset([{', '.join(members)}])"
        members = sorted(encode(item, inner) for item in set.__iter__(value))
        return f"{{{', '.join(members)}}}" if members else "set()"
    raise NotPlain(f"a {type(value).__name__} is not plain data (numbers, str, bytes, None, containers)")


def decode(text: object, max_chars: int = MAX_CHARS) -> object:
    """The plain value the literal ``text`` spells, running no code.

    >>> decode("[1, -0.0, float('nan'), (None, True), {1: {2}}, set(), frozenset([3])]")
    [1, -0.0, nan, (None, True), {1: {2}}, set(), frozenset({3})]
    >>> decode("__import__('os')")
    Traceback (most recent call last):
    spadework.sandbox.plain.NotPlain: not plain data: a Call of __import__
    """
    if not isinstance(text, str):
        raise NotPlain(f"expected a literal's text, got a {type(text).__name__}")
    if len(text) > max_chars:
        raise NotPlain(f"a literal of {len(text)} characters is over the {max_chars}-character limit")
    try:
        with warnings.catch_warnings():  # "invalid decimal literal" and the like: it fails or it reads
            warnings.simplefilter("ignore")
            tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise NotPlain(f"not a literal: {type(exc).__name__}") from None
    try:
        return _value(tree.body, 0)
    except NotPlain:
        raise
    except (TypeError, ValueError, OverflowError, RecursionError) as exc:  # e.g. an unhashable key
        raise NotPlain(f"not plain data: {exc}") from None


def _value(node: ast.expr, depth: int) -> object:
    if depth > MAX_DEPTH:
        raise NotPlain(f"nested deeper than {MAX_DEPTH} levels")
    inner = depth + 1
    if isinstance(node, ast.Constant) and not isinstance(node.value, type(...)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
            and isinstance(node.operand, ast.Constant):
        number = node.operand.value
        if isinstance(number, (int, float, complex)) and not isinstance(number, bool):
            return -number if isinstance(node.op, ast.USub) else number
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_value(item, inner) for item in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        keys = [k for k in node.keys if k is not None]  # None: a ``**mapping``, refused below
        if len(keys) == len(node.keys):
            return {_value(k, inner): _value(v, inner) for k, v in zip(keys, node.values, strict=True)}
    name = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else ""
    if isinstance(node, ast.Call) and name in NAMED and not node.keywords:
        args = [_value(arg, inner) for arg in node.args]
        if _call_fits(name, args):
            return NAMED[name](*args)
    raise NotPlain(f"not plain data: a {type(node).__name__}{' of ' + name if name else ''}")


def _call_fits(name: str, args: list[object]) -> bool:
    """Whether ``name(*args)`` is one of the forms ``encode`` writes."""
    if name == "float":
        return len(args) == 1 and args[0] in ("nan", "inf", "-inf")
    if name == "complex":
        return len(args) == 2 and all(type(a) in (int, float) for a in args)
    if name == "set":
        return not args
    return len(args) == 1 and type(args[0]) is list  # frozenset([...])
