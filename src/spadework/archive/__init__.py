"""The archive of validated environments: records, SQLite store and exports."""

from spadework.archive.export import export_jsonl, export_parquet
from spadework.archive.records import EnvRecord, content_hash, normalise_source
from spadework.archive.results import DesignResult, PlayResult, RecordUpdate
from spadework.archive.side import SketchRow, StoredSketch, StoredVectors, VectorUpdate
from spadework.archive.store import ARCHIVE_FILE, Archive
from spadework.archive.summary import EnvSummary, ReplayRow

__all__ = [
    "ARCHIVE_FILE",
    "Archive",
    "DesignResult",
    "EnvRecord",
    "EnvSummary",
    "PlayResult",
    "RecordUpdate",
    "ReplayRow",
    "SketchRow",
    "StoredSketch",
    "StoredVectors",
    "VectorUpdate",
    "content_hash",
    "export_jsonl",
    "export_parquet",
    "normalise_source",
]
