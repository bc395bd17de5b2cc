"""Writing TOML: a nested mapping of scalars as tables, every text escaped as TOML requires.

Pure; reading is the standard library's ``tomllib``. Hand-written because it is this small and
escapes more than a writer must (C1 controls and the line separators, so no tool that splits
lines can break a value).
"""

from __future__ import annotations

import re
from typing import Any

from spadework.errors import ConfigError

SURROGATE = re.compile("[\ud800-\udfff]")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")

_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def toml_string(value: str) -> str:
    r"""``value`` as a TOML basic string: quote, backslash and the short escapes, every other
    control character (C0, DEL, C1) and the line and paragraph separators as ``\uXXXX``; other
    text, outside the BMP included, as it is (the file is UTF-8).

    >>> print(toml_string('a\nb\t"c"\\\x01\x7f é 😀'))
    "a\nb\t\"c\"\\\u0001\u007F é 😀"

    Raises:
        ValueError: ``value`` holds a lone surrogate, which TOML (and UTF-8) cannot hold.
    """
    if SURROGATE.search(value):
        raise ValueError(f"{value!r} holds bytes that are not UTF-8 text")
    out = []
    for char in value:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029):
            out.append(f"\\u{code:04X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _toml_key(key: str) -> str:
    """A bare key when it can be one, else a quoted one."""
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def dump_toml(data: dict[str, Any], prefix: str = "") -> str:
    r"""A nested mapping of scalars as TOML tables (None: the key is left out, i.e. unset).

    >>> print(dump_toml({"run": {"seed": 1, "name": "a\tb\n"}, "x": {"y": {"z": True}}}), end="")
    [run]
    seed = 1
    name = "a\tb\n"
    <BLANKLINE>
    [x.y]
    z = true
    <BLANKLINE>

    Raises:
        ConfigError: a text value that cannot be written (not UTF-8), naming its field.
    """
    scalars = {k: v for k, v in data.items() if not isinstance(v, dict) and v is not None}
    lines = [f"[{prefix}]"] if prefix and scalars else []
    for key, value in scalars.items():
        try:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
        except ValueError as exc:
            raise ConfigError(f"config field '{prefix + '.' if prefix else ''}{key}': {exc}") from None
    text = "\n".join(lines) + ("\n\n" if lines else "")
    for key, value in data.items():
        if isinstance(value, dict):
            text += dump_toml(value, f"{prefix}.{_toml_key(key)}" if prefix else _toml_key(key))
    return text
