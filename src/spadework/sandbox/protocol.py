"""The wire format between the caller and a sandbox worker.

Standard library only (it runs inside the sandbox too). A message is a 4-byte
big-endian length followed by that many bytes of UTF-8 JSON. The protocol runs on
the worker's stdin and stdout pipes; the worker moves them to private descriptors
and points fds 0-2 at /dev/null before any environment code runs, so whatever the
environment prints never reaches the caller.
"""

from __future__ import annotations

import json
import struct
from enum import StrEnum
from typing import Any

HEADER = struct.Struct(">I")


class Op(StrEnum):
    """What a request asks of a worker (its ``"op"``): an environment's calls, or one side of a
    code verdict (``sandbox.program``)."""

    LOAD = "load"
    RESET = "reset"
    STEP = "step"
    SOLUTION = "solution"
    HINT = "hint"
    MAX_TURNS = "max_turns"
    REDRAW = "redraw"
    DEFINE = "define"
    CALL = "call"
    TEST = "test"


def describe(value: Any) -> dict[str, str]:
    """Stand-in for a value JSON cannot carry, so the caller can say what it was.

    >>> describe({1, 2})["$unserializable"]
    'set'
    """
    try:
        text = repr(value)[:200]
    except Exception:  # noqa: BLE001 - a hostile __repr__ must not break the reply
        text = "<unprintable>"
    return {"$unserializable": type(value).__name__, "repr": text}


ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=True, default=describe)


def frame(message: Any, encode=ENCODER.encode) -> bytes:
    """One message as bytes on the wire.

    >>> frame({"op": "ping"})
    b'\\x00\\x00\\x00\\x0e{"op": "ping"}'
    """
    payload = encode(message).encode("utf-8", "surrogatepass")
    return HEADER.pack(len(payload)) + payload


def unframe(payload: bytes) -> Any:
    """The message in a payload (the bytes after the header).

    Raises:
        ValueError: the payload is not JSON, or nests too deeply to read.

    >>> unframe(b"[" * 100_000)
    Traceback (most recent call last):
    ValueError: a message nested too deeply to read
    """
    try:
        return json.loads(payload.decode("utf-8", "replace"))
    except RecursionError:
        raise ValueError("a message nested too deeply to read") from None
