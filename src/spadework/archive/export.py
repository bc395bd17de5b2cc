"""Export the archive to JSON Lines or Parquet, streaming and atomically.

Both exporters read the archive page by page and write to a temporary file next to the
target, which replaces the target only once complete: a reader never sees half an export.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from spadework.archive.records import EnvRecord
from spadework.archive.store import Archive
from spadework.errors import ArchiveError
from spadework.rundir import atomic_path

PARQUET_BATCH_ROWS = 1000

PARQUET_COLUMNS = (
    "id",
    "created_at",
    "origin",
    "content_hash",
    "valid",
    "class_name",
    "hint",
    "reason",
    "tolerances",
    "source",
    "verdict_json",
    "metrics_json",
)


@contextmanager
def _atomic_target(path: Path) -> Iterator[Path]:
    """``atomic_path``, with a failed write said as an ``ArchiveError`` that names the export."""
    path = Path(path)
    try:
        with atomic_path(path) as temporary:
            yield temporary
    except OSError as exc:
        raise ArchiveError(f"cannot write an export to {path}: {exc}; check that {path.parent} exists "
                           "and is writable") from exc


def export_jsonl(archive: Archive, path: Path) -> int:
    """Write every record of ``archive`` to ``path``, one ``EnvRecord.to_json()`` a line.

    Args:
        archive: an open archive.
        path: the file to write; replaced atomically if it exists.

    Returns:
        How many records were written.
    """
    count = 0
    with _atomic_target(path) as tmp, tmp.open("w", encoding="utf-8") as out:
        for record in archive.records():
            out.write(json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False))
            out.write("\n")
            count += 1
        out.flush()
        os.fsync(out.fileno())
    return count


def _parquet_row(record: EnvRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "created_at": record.created_at,
        "origin": record.origin,
        "content_hash": record.content_hash,
        "valid": record.valid,
        "class_name": record.class_name,
        "hint": record.hint,
        "reason": record.reason,
        "tolerances": list(record.tolerances),
        "source": record.source,
        "verdict_json": json.dumps(record.verdict.to_json(), sort_keys=True),
        "metrics_json": json.dumps(record.metrics, sort_keys=True),
    }


def _parquet_schema(pa: Any) -> Any:
    string = pa.string()
    return pa.schema(
        [
            ("id", pa.int64()),
            ("created_at", string),
            ("origin", string),
            ("content_hash", string),
            ("valid", pa.bool_()),
            ("class_name", string),
            ("hint", string),
            ("reason", string),
            ("tolerances", pa.list_(string)),
            ("source", string),
            ("verdict_json", string),
            ("metrics_json", string),
        ]
    )


def export_parquet(archive: Archive, path: Path, *, batch_rows: int = PARQUET_BATCH_ROWS) -> int:
    """Write every record of ``archive`` to a Parquet file at ``path``, in batches.

    Columns: id, created_at, origin, content_hash, valid, class_name, hint, reason,
    tolerances (list of strings), source, verdict_json and metrics_json (JSON strings).
    At most ``batch_rows`` records are held in memory at once.

    Args:
        archive: an open archive.
        path: the file to write; replaced atomically if it exists.
        batch_rows: records per written batch.

    Returns:
        How many records were written.

    Raises:
        ArchiveError: pyarrow is not installed, or the file cannot be written.
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ArchiveError(
            "Parquet export needs pyarrow; install it or use export_jsonl instead"
        ) from exc
    if batch_rows < 1:
        raise ArchiveError(f"batch_rows must be at least 1, got {batch_rows}")
    schema = _parquet_schema(pa)
    count = 0
    with _atomic_target(path) as tmp, pq.ParquetWriter(str(tmp), schema) as writer:
        batch: list[dict[str, Any]] = []
        for record in archive.records():
            batch.append(_parquet_row(record))
            if len(batch) >= batch_rows:
                writer.write_batch(pa.RecordBatch.from_pylist(batch, schema=schema))
                count += len(batch)
                batch = []
        if batch:
            writer.write_batch(pa.RecordBatch.from_pylist(batch, schema=schema))
            count += len(batch)
    return count
