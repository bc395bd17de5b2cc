"""Parsing Python source into a tree, safe from several threads at once.

CPython 3.11 keeps the depth counter of its tree builder in state shared by all threads: two
threads parsing at once (the rollout plays environments on a thread pool, and each play reads its
environment's source) can interleave inside the builder when a garbage collection runs Python
code, and one of them fails with ``SystemError: AST constructor recursion depth mismatch``. Every
parse in the package goes through :func:`parse`, which holds one lock while it builds the tree.
"""

from __future__ import annotations

import ast
import threading
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
