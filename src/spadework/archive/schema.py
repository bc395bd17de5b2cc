"""The archive's tables, opening checks and upgrades of archives written by older versions.

Version 4 added what keeps the loop's per-iteration bookkeeping independent of the archive's
size: one summary row per record (``summaries``), the near-duplicate sketches of sources
(``sketches``, by content hash) and the diversity vectors of environments (``vectors``). An older
archive gets them on first open: the summaries are written once for every stored record (with a
note); sketches and vectors are filled by the loop the first time it needs them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path

from spadework.archive import summary
from spadework.archive.records import EnvRecord
from spadework.errors import ArchiveError
from spadework.validate.verdict import Verdict

ARCHIVE_FILE = "archive.sqlite"
SCHEMA_VERSION = 5  # 5: a verdict's check may be "off" (does not apply), which version 4 cannot read

TABLES = (
    """
    CREATE TABLE IF NOT EXISTS environments (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        origin TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        valid INTEGER NOT NULL,
        class_name TEXT,
        hint TEXT,
        reason TEXT NOT NULL,
        source TEXT NOT NULL,
        verdict_json TEXT NOT NULL,
        tolerances_json TEXT NOT NULL,
        metrics_json TEXT NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS environments_content_hash ON environments (content_hash)",
    "CREATE INDEX IF NOT EXISTS environments_valid ON environments (valid)",
    # version 2: one row per committed self-play iteration, written with its environments
    """
    CREATE TABLE IF NOT EXISTS iterations (
        iteration INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL,
        metrics_json TEXT NOT NULL,
        state_json TEXT NOT NULL
    )
    """,
    # version 3: a cache of text embeddings (diversity), keyed by embedder and text digest
    """
    CREATE TABLE IF NOT EXISTS embeddings (
        embedder TEXT NOT NULL,
        text_sha256 TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (embedder, text_sha256)
    )
    """,
    # version 4: summaries, near-duplicate sketches, diversity vectors
    *summary.SCHEMA,
    """
    CREATE TABLE IF NOT EXISTS sketches (
        scheme TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        signature BLOB NOT NULL,
        size INTEGER NOT NULL,
        PRIMARY KEY (scheme, content_hash)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS vectors (
        embedder TEXT NOT NULL,
        id INTEGER NOT NULL,
        vector BLOB NOT NULL,
        near INTEGER NOT NULL,
        PRIMARY KEY (embedder, id)
    )
    """,
)

COLUMNS = "id, created_at, origin, content_hash, source, verdict_json, metrics_json"
"""What ``row_to_record`` reads, in order."""


def row_to_record(row: tuple) -> EnvRecord:
    """The record stored in one ``envs`` row."""
    rid, created_at, origin, chash, source, verdict_json, metrics_json = row
    return EnvRecord(id=rid, source=source, verdict=Verdict.from_json(json.loads(verdict_json)),
                     origin=origin, created_at=created_at, content_hash=chash,
                     metrics=json.loads(metrics_json))


def check_run_dir(run_dir: Path, create: bool) -> Path:
    """Return the archive path in ``run_dir`` after checking that it can be opened."""
    path = run_dir / ARCHIVE_FILE
    if run_dir.exists() and not run_dir.is_dir():
        raise ArchiveError(f"{run_dir} is a file, not a run directory; pass a directory")
    if not path.exists():
        if not create:
            raise ArchiveError(f"no {ARCHIVE_FILE} in {run_dir}; is this a run directory?")
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ArchiveError(f"cannot create run directory {run_dir}: {exc}") from exc
        if not os.access(run_dir, os.R_OK | os.W_OK | os.X_OK):
            raise ArchiveError(f"run directory {run_dir} is not writable; fix its permissions")
        return path
    if not path.is_file():
        raise ArchiveError(
            f"{path} is not a regular file; move it away or pass another run directory"
        )
    if not os.access(path, os.R_OK | os.W_OK):
        raise ArchiveError(f"{path} is not readable and writable; fix its permissions")
    return path


def _not_a_database(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "")
    return name == "SQLITE_NOTADB" or "not a database" in str(exc)


def prepare(conn: sqlite3.Connection, path: Path) -> None:
    """Set the pragmas, check the schema version and create (or upgrade) the schema."""
    try:
        conn.execute("PRAGMA synchronous=FULL")
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as exc:
        if _not_a_database(exc):
            raise ArchiveError(
                f"{path} is not an SQLite database ({exc}); "
                "move it away or pass another run directory"
            ) from exc
        raise ArchiveError(f"cannot open {path}: {exc}") from exc
    if str(mode).lower() != "wal":
        raise ArchiveError(
            f"{path} could not be switched to write-ahead logging (got {mode!r}); "
            "put the run directory on a local file system"
        )
    if version > SCHEMA_VERSION:
        raise ArchiveError(
            f"{path} has archive schema version {version}, newer than this spadework reads "
            f"({SCHEMA_VERSION}); upgrade spadework"
        )
    if version == SCHEMA_VERSION:
        return
    try:
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            for statement in TABLES:
                conn.execute(statement)
            backfill_summaries(conn, path)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except sqlite3.Error as exc:
        raise ArchiveError(f"cannot create the archive schema in {path}: {exc}") from exc


def backfill_summaries(conn: sqlite3.Connection, path: Path, page: int = 500) -> int:
    """Write the summary of every record that has none (an archive from before version 4), page by
    page, inside the caller's transaction; says so once on standard error when there are any."""
    missing = conn.execute("SELECT COUNT(*) FROM environments WHERE id NOT IN (SELECT id FROM summaries)"
                           ).fetchone()[0]
    if missing:
        print(f"note: {path}: summarising {missing} archived environments once (for the memory digest, "
              "replay and the report)", file=sys.stderr)
    last = 0
    while missing:
        rows = conn.execute(f"SELECT {COLUMNS} FROM environments WHERE id > ? AND id NOT IN "
                            "(SELECT id FROM summaries) ORDER BY id LIMIT ?", (last, page)).fetchall()
        if not rows:
            break
        summary.write_summaries(conn, [row_to_record(row) for row in rows])
        last = rows[-1][0]
    return missing
