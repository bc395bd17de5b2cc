"""The archive of validated environments: records, SQLite store and exports."""

from spadework.archive.export import export_jsonl, export_parquet
from spadework.archive.records import EnvRecord, content_hash, normalise_source
from spadework.archive.results import DesignResult, PlayResult
from spadework.archive.store import ARCHIVE_FILE, Archive

__all__ = [
    "ARCHIVE_FILE",
    "Archive",
    "DesignResult",
    "EnvRecord",
    "PlayResult",
    "content_hash",
    "export_jsonl",
    "export_parquet",
    "normalise_source",
]
