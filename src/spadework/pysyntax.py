"""Parsing Python source into a tree, safe from several threads at once.

CPython 3.11 keeps the depth counter of its tree builder in state shared by all threads: two
threads parsing at once (the rollout plays environments on a thread pool, and each play reads its
environment's source) can interleave inside the builder when a garbage collection runs Python
code, and one of them fails with ``SystemError: AST constructor recursion depth mismatch``. Every
parse in the package goes through :func:`parse`, which holds one lock while it builds the tree.
"""

from __future__ import annotations

import ast
import io
import re
import threading
import tokenize
from typing import Literal, overload

_LOCK = threading.Lock()


@overload
def parse(source: str, filename: str = ..., mode: Literal["exec"] = ...) -> ast.Module: ...
@overload
def parse(source: str, filename: str = ..., mode: Literal["eval"] = ...) -> ast.Expression: ...
def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """``ast.parse(source, filename, mode)``, one thread at a time.

    >>> type(parse("x = 1")).__name__, type(parse("1 + 2", mode="eval").body).__name__
    ('Module', 'BinOp')

    Raises:
        SyntaxError: as ``ast.parse`` does.
    """
    with _LOCK:
        return ast.parse(source, filename, mode)


_STRING_START = re.compile(r"""^[ \t]*(?:[rRbBuUfF]{1,2})?["']""")
_QUOTE_END = re.compile(r"""["'][ \t]*$""")
MAX_JOINS = 20


def _string_column(line: str) -> int | None:
    """Where the first string literal of a line starts, or None (no string, or the line does not
    tokenize alone)."""
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_START", tokenize.STRING)}
    try:
        for token in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline):
            if token.type in kinds:
                return len(line) - len(line.lstrip()) + token.start[1]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return None


def join_continued_strings(source: str) -> tuple[str, int]:
    """``source`` with each string continued on the next lines without parentheses (a line that
    ends in a string, then indented lines that are only strings: an "unexpected indent") put in
    parentheses, so the strings join as Python joins adjacent literals; lines keep their numbers.
    Returns the source and how many such runs were mended (0: the source as it was).

    >>> text = 'def f(a):\\n    return f"A {a}. "\\n           "B."\\n'
    >>> mended, count = join_continued_strings(text)
    >>> count, mended.splitlines()[1:], parse(mended) is not None
    (1, ['    return (f"A {a}. "', '           "B.")'], True)
    >>> join_continued_strings("x = 1\\n")
    ('x = 1\\n', 0)
    """
    lines, count = source.split("\n"), 0
    for _ in range(MAX_JOINS):
        try:
            parse(source)
            break
        except SyntaxError as exc:
            if exc.msg != "unexpected indent" or not exc.lineno or exc.lineno < 2:
                break
            at = exc.lineno - 1
        before = next((i for i in range(at - 1, -1, -1) if lines[i].strip()), None)
        if before is None or not _QUOTE_END.search(lines[before]) or not _STRING_START.match(lines[at]):
            break
        column = _string_column(lines[before])
        last = at
        while last + 1 < len(lines) and _STRING_START.match(lines[last + 1]) and \
                _QUOTE_END.search(lines[last + 1]):
            last += 1
        if column is None or not _QUOTE_END.search(lines[last]):
            break
        lines[before] = lines[before][:column] + "(" + lines[before][column:]
        lines[last] = lines[last].rstrip() + ")"
        source, count = "\n".join(lines), count + 1
    return source, count
