"""JSON Lines corpora: one JSON object a line, read as a stream and indexed by byte offset.

Each line is an object with a non-empty string ``text`` (or ``orig_doc``) and optionally
``id``, ``domain`` and ``source``. Lines that are not (invalid JSON, not UTF-8, not an
object, no text, longer than ``MAX_LINE_BYTES``) are counted and skipped. Blank lines are
skipped without being counted.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from spadework.corpus.records import BadInput, Document, Tally, document_from_record
from spadework.errors import CorpusError

MAX_LINE_BYTES = 32 << 20
"""Longest line read as a document; longer lines are skipped as ``too_long``."""

_CHUNK = 1 << 20


def _read_line(handle: BinaryIO) -> tuple[bytes, bool]:
    """Read one line of at most ``MAX_LINE_BYTES``; a longer one is consumed and flagged."""
    line = handle.readline(MAX_LINE_BYTES + 1)
    if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
        return line, False
    rest = line
    while rest and not rest.endswith(b"\n"):
        rest = handle.readline(_CHUNK)
    return b"", True


def parse_line(line: bytes, default_id: str, default_source: str) -> Document | BadInput:
    """Parse one JSONL line into a document, or say why it is not one.

    Examples:
        >>> parse_line(b'{"text": "Tides follow the Moon.", "id": 7}', "c:1", "c.jsonl")
        Document(id='7', text='Tides follow the Moon.', domain=None, source='c.jsonl')
        >>> parse_line(b'{"text": ', "c:2", "c.jsonl")
        <BadInput.INVALID_JSON: 'invalid_json'>
        >>> parse_line(b'"just a string"', "c:3", "c.jsonl")
        <BadInput.NOT_OBJECT: 'not_object'>
    """
    try:
        decoded = line.decode("utf-8")
    except UnicodeDecodeError:
        return BadInput.NOT_UTF8
    try:
        record = json.loads(decoded)
    except (ValueError, RecursionError):
        return BadInput.INVALID_JSON
    return document_from_record(record, default_id, default_source)


def scan_jsonl(path: Path, tally: Tally) -> Iterator[tuple[int, int, Document]]:
    """Stream the documents of a JSONL file with where they start.

    Args:
        path: the file.
        tally: counts documents and skipped lines.

    Yields:
        ``(byte offset, 1-based line number, document)`` for each valid line.

    Raises:
        CorpusError: the file cannot be opened.
    """
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise CorpusError(
            f"cannot open the corpus file {str(path)!r}: {exc.strerror}; check the path"
        ) from exc
    stem, name = path.stem, str(path)
    with handle:
        offset, lineno = 0, 0
        while True:
            line, too_long = _read_line(handle)
            if not line and not too_long:
                return
            lineno += 1
            start, offset = offset, handle.tell()
            if too_long:
                tally.bad(BadInput.TOO_LONG)
                continue
            if not line.strip():
                continue
            result = parse_line(line, f"{stem}:{lineno}", f"{name}:{lineno}")
            if isinstance(result, BadInput):
                tally.bad(result)
                continue
            tally.good(result)
            yield start, lineno, result


def read_jsonl(path: Path, tally: Tally | None = None) -> Iterator[Document]:
    """Stream the valid documents of a JSONL file, counting bad lines in ``tally`` if given."""
    for _, _, doc in scan_jsonl(Path(path), tally or Tally()):
        yield doc


class JsonlIndex:
    """Byte offsets and line numbers of the valid lines of one JSONL file (12 bytes a document)."""

    def __init__(self, path: Path, offsets: array, lines: array) -> None:
        self.path = path
        self._offsets = offsets
        self._lines = lines

    @classmethod
    def build(cls, path: Path, tally: Tally) -> JsonlIndex:
        """Index ``path`` in one streaming pass, counting into ``tally``."""
        offsets, lines = array("Q"), array("I")
        for offset, lineno, _ in scan_jsonl(path, tally):
            offsets.append(offset)
            lines.append(lineno)
        return cls(path, offsets, lines)

    def __len__(self) -> int:
        return len(self._offsets)

    def nbytes(self) -> int:
        """Bytes held by the index arrays."""
        return self._offsets.itemsize * len(self._offsets) + self._lines.itemsize * len(self._lines)

    def read(self, i: int) -> Document:
        """Read document ``i`` from disk.

        Raises:
            CorpusError: the file changed since it was indexed.
        """
        lineno = self._lines[i]
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._offsets[i])
                line, _ = _read_line(handle)
        except OSError as exc:
            raise CorpusError(f"cannot read {str(self.path)!r}: {exc.strerror}; was it moved?") from exc
        result = parse_line(line, f"{self.path.stem}:{lineno}", f"{self.path}:{lineno}")
        if isinstance(result, BadInput):
            raise CorpusError(
                f"line {lineno} of {str(self.path)!r} is no longer a document ({result}); "
                "the file changed after it was indexed: open the corpus again"
            )
        return result
