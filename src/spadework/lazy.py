"""Lazy re-exports: a package's names are loaded from their modules on first use, so importing
one light module of the package (its settings) does not run the rest of it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, re-exporting ``exports`` (module ->
    the names it gives) on first use; each name is then kept in the package.

    Use in a package's ``__init__``: ``__getattr__, __dir__ = lazy_exports(__name__, {...})``,
    with the same names imported under ``TYPE_CHECKING`` for the type checker.
    """
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
