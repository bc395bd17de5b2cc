"""Parquet corpora: a ``text`` (or ``orig_doc``) column, read in batches and indexed by row.

Optional ``id``, ``domain`` and ``source`` columns are used when present; other columns are
never read. Rows whose text is null, empty or not a string are counted and skipped; a row
group that cannot be decoded counts its remaining rows as ``unreadable``.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from spadework.corpus.records import TEXT_KEYS, BadInput, Document, Tally, document_from_record
from spadework.errors import CorpusError

BATCH_ROWS = 1024
"""Rows decoded at a time, when scanning and when reading one document back."""

_OPTIONAL = ("id", "domain", "source")


def open_parquet(path: Path) -> tuple[pq.ParquetFile, list[str]]:
    """Open a Parquet file and choose the columns to read.

    Returns:
        The open file and the column names to read (text columns first).

    Raises:
        CorpusError: the file is missing or not Parquet, or has no text column.
    """
    try:
        handle = pq.ParquetFile(path)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise CorpusError(f"cannot read {str(path)!r} as Parquet: {exc}; check the path and format") from exc
    names = handle.schema_arrow.names
    text_columns = [key for key in TEXT_KEYS if key in names]
    if not text_columns:
        handle.close()
        raise CorpusError(
            f"{str(path)!r} has no 'text' or 'orig_doc' column (its columns: {', '.join(names)}); "
            "rename the column that holds the documents to 'text'"
        )
    return handle, text_columns + [key for key in _OPTIONAL if key in names]


def _row_document(record: dict[str, Any], path: Path, row: int) -> Document | BadInput:
    return document_from_record(record, f"{path.stem}:{row}", f"{path}#row={row}")


def _group_batches(handle: pq.ParquetFile, group: int, columns: list[str]) -> Iterator[list[dict]]:
    for batch in handle.iter_batches(batch_size=BATCH_ROWS, row_groups=[group], columns=columns):
        yield batch.to_pylist()


def scan_parquet(
    handle: pq.ParquetFile, path: Path, columns: list[str], tally: Tally
) -> Iterator[tuple[int, Document]]:
    """Stream ``(global row number, document)`` for each valid row, counting bad rows."""
    start = 0
    for group in range(handle.num_row_groups):
        group_rows = handle.metadata.row_group(group).num_rows
        seen = 0
        try:
            for records in _group_batches(handle, group, columns):
                for record in records:
                    result = _row_document(record, path, start + seen)
                    seen += 1
                    if isinstance(result, BadInput):
                        tally.bad(result)
                    else:
                        tally.good(result)
                        yield start + seen - 1, result
        except (OSError, ValueError, pa.ArrowException):
            for _ in range(group_rows - seen):
                tally.bad(BadInput.UNREADABLE)
        start += group_rows


def read_parquet(path: Path, tally: Tally | None = None) -> Iterator[Document]:
    """Stream the valid documents of a Parquet file, counting bad rows in ``tally`` if given."""
    path = Path(path)
    handle, columns = open_parquet(path)
    with handle:
        for _, doc in scan_parquet(handle, path, columns, tally or Tally()):
            yield doc


class ParquetIndex:
    """Row numbers of the valid rows of one Parquet file (8 bytes a document).

    Reading a document decodes batches of its row group up to the one holding it; the last
    decoded batch is kept, so neighbouring reads are cheap.
    """

    def __init__(self, path: Path, handle: pq.ParquetFile, columns: list[str], rows: array) -> None:
        self.path = path
        self._handle = handle
        self._columns = columns
        self._rows = rows
        counts = [handle.metadata.row_group(g).num_rows for g in range(handle.num_row_groups)]
        self._group_starts = [0, *accumulate(counts)][:-1]
        self._cached: tuple[int, int, list[dict]] | None = None
        self._lock = threading.Lock()

    @classmethod
    def build(cls, path: Path, tally: Tally) -> ParquetIndex:
        """Index ``path`` in one streaming pass, counting into ``tally``."""
        handle, columns = open_parquet(path)
        rows = array("Q", (row for row, _ in scan_parquet(handle, path, columns, tally)))
        return cls(path, handle, columns, rows)

    def __len__(self) -> int:
        return len(self._rows)

    def nbytes(self) -> int:
        """Bytes held by the index array."""
        return self._rows.itemsize * len(self._rows)

    def _record(self, group: int, offset: int) -> dict:
        """Return row ``offset`` of row group ``group``, decoding batches up to it."""
        if self._cached is not None:
            cached_group, first, records = self._cached
            if cached_group == group and first <= offset < first + len(records):
                return records[offset - first]
        first = 0
        for records in _group_batches(self._handle, group, self._columns):
            if offset < first + len(records):
                self._cached = (group, first, records)
                return records[offset - first]
            first += len(records)
        raise CorpusError(f"{str(self.path)!r} changed after it was indexed; open the corpus again")

    def read(self, i: int) -> Document:
        """Read document ``i`` from disk.

        Raises:
            CorpusError: the file changed since it was indexed.
        """
        row = self._rows[i]
        group = bisect_right(self._group_starts, row) - 1
        offset = row - self._group_starts[group]
        try:
            with self._lock:
                record = self._record(group, offset)
        except (OSError, ValueError, pa.ArrowException) as exc:
            raise CorpusError(
                f"cannot read row {row} of {str(self.path)!r}: {exc}; open the corpus again"
            ) from exc
        result = _row_document(record, self.path, row)
        if isinstance(result, BadInput):
            raise CorpusError(f"row {row} of {str(self.path)!r} changed after it was indexed; open it again")
        return result

    def close(self) -> None:
        """Close the Parquet file."""
        self._handle.close()
