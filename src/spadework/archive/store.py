"""The archive: every validated environment of a run, in ``RUN_DIR/archive.sqlite``.

One SQLite file in write-ahead-log mode with ``synchronous=FULL``. Every write is one
transaction, so a record is on disk once ``add`` returns, even if the process is killed
right after. One ``Archive`` may be shared by the threads of a process.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Self

from spadework.archive.records import EnvRecord, utc_now
from spadework.errors import ArchiveError
from spadework.validate.verdict import Verdict

ARCHIVE_FILE = "archive.sqlite"
SCHEMA_VERSION = 3
_PAGE_ROWS = 500

_SCHEMA = (
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
)

_COLUMNS = "id, created_at, origin, content_hash, source, verdict_json, metrics_json"


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise ArchiveError(
            f"{what} is not JSON-serialisable ({exc}); "
            "store only numbers, strings, booleans, None, lists and dicts"
        ) from exc


def _row_to_record(row: tuple[Any, ...]) -> EnvRecord:
    rid, created_at, origin, chash, source, verdict_json, metrics_json = row
    return EnvRecord(
        id=rid,
        source=source,
        verdict=Verdict.from_json(json.loads(verdict_json)),
        origin=origin,
        created_at=created_at,
        content_hash=chash,
        metrics=json.loads(metrics_json),
    )


def _check_run_dir(run_dir: Path, create: bool) -> Path:
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


class Archive:
    """Validated environments of one run, stored in ``RUN_DIR/archive.sqlite``.

    Open with ``Archive.open(run_dir)``; use as a context manager or call ``close()``.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = conn
        self._lock = threading.RLock()

    @classmethod
    def open(cls, run_dir: Path, *, create: bool = True) -> Archive:
        """Open the archive of ``run_dir``, creating it (and the directory) when asked.

        Args:
            run_dir: the run directory holding ``archive.sqlite``.
            create: create the archive if there is none; otherwise raise.

        Raises:
            ArchiveError: no archive and ``create`` is false; ``run_dir`` is a file; the archive
                is unreadable, not an SQLite database, or from a newer spadework.
        """
        run_dir = Path(run_dir)
        path = _check_run_dir(run_dir, create)
        try:
            conn = sqlite3.connect(path, timeout=30.0, check_same_thread=False)
        except sqlite3.Error as exc:
            raise ArchiveError(f"cannot open {path}: {exc}") from exc
        try:
            _prepare(conn, path)
        except BaseException:
            conn.close()
            raise
        return cls(path, conn)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "open"
        return f"Archive({str(self.path)!r}, {state})"

    def close(self) -> None:
        """Close the connection; closing twice is harmless."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                raise ArchiveError(
                    f"archive {self.path} is closed; open it again with Archive.open"
                )
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise ArchiveError(f"cannot read {self.path}: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._conn is None:
                raise ArchiveError(
                    f"archive {self.path} is closed; open it again with Archive.open"
                )
            try:
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    yield self._conn
            except sqlite3.Error as exc:
                raise ArchiveError(f"cannot write {self.path}: {exc}") from exc

    def add(self, record: EnvRecord) -> EnvRecord:
        """Store ``record`` in one committed transaction.

        Args:
            record: a record, usually from ``EnvRecord.new``; its ``id`` is ignored.

        Returns:
            The same record with the ``id`` the archive assigned.
        """
        with self._write() as conn:
            return _insert(conn, record)

    def commit_iteration(
        self, iteration: int, records: list[EnvRecord], metrics: dict[str, Any], state: dict[str, Any],
        updates: dict[int, dict[str, Any]] | None = None,
    ) -> list[EnvRecord]:
        """Store one self-play iteration whole: its environments, metrics and loop state, and the
        metrics it changed of environments already stored (``updates``: record id → keys merged
        as ``update_metrics`` does; replayed environments).

        One transaction: after a crash either all of it is there or none of it.
        """
        with self._write() as conn:
            for id, changed in (updates or {}).items():
                _merge_metrics(conn, id, changed, self.path)
            stored = [_insert(conn, record) for record in records]
            conn.execute(
                "INSERT INTO iterations (iteration, finished_at, metrics_json, state_json)"
                " VALUES (?, ?, ?, ?)",
                (iteration, utc_now(), _dumps(metrics, "the metrics"), _dumps(state, "the state")),
            )
        return stored

    def iterations(self) -> list[tuple[int, dict[str, Any]]]:
        """Every committed iteration with its metrics, in order."""
        with self._read() as conn:
            rows = conn.execute("SELECT iteration, metrics_json FROM iterations ORDER BY iteration")
            return [(row[0], json.loads(row[1])) for row in rows.fetchall()]

    def last_iteration(self) -> tuple[int, dict[str, Any]] | None:
        """The last committed iteration and the loop state saved with it, or None."""
        with self._read() as conn:
            row = conn.execute(
                "SELECT iteration, state_json FROM iterations ORDER BY iteration DESC LIMIT 1"
            ).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def get(self, id: int) -> EnvRecord:
        """Return the record with ``id``.

        Raises:
            ArchiveError: there is no such record.
        """
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM environments WHERE id = ?", (id,)
            ).fetchone()
        if row is None:
            raise ArchiveError(f"no environment with id {id} in {self.path}")
        return _row_to_record(row)

    def records(
        self, *, valid: bool | None = None, limit: int | None = None
    ) -> Iterator[EnvRecord]:
        """Yield records in id order, a page at a time, never the whole archive at once.

        Pages are read by id (``id > last``), so other threads may use the archive between
        pages; records added meanwhile with a larger id are yielded too.

        Args:
            valid: only valid (True) or only invalid (False) records; ``None`` for all.
            limit: stop after this many records; ``None`` for no limit.
        """
        if limit is not None and limit < 0:
            raise ArchiveError(f"limit must be a non-negative number or None, got {limit}")
        where = "id > ?" if valid is None else "id > ? AND valid = ?"
        last, left = 0, limit
        while left is None or left > 0:
            size = _PAGE_ROWS if left is None else min(_PAGE_ROWS, left)
            params: tuple[Any, ...] = (last,) if valid is None else (last, int(valid))
            with self._read() as conn:
                cursor = conn.execute(
                    f"SELECT {_COLUMNS} FROM environments WHERE {where} ORDER BY id LIMIT ?",
                    (*params, size),
                )
                page = [_row_to_record(row) for row in cursor]
            yield from page
            if len(page) < size:
                return
            last = page[-1].id or last
            if left is not None:
                left -= len(page)

    def by_hash(self, content_hash: str) -> list[EnvRecord]:
        """Return every record whose source has ``content_hash``, in id order."""
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM environments WHERE content_hash = ? ORDER BY id",
                (content_hash,),
            ).fetchall()
        return [_row_to_record(row) for row in rows]

    def count(self, valid: bool | None = None) -> int:
        """Return how many records there are, or how many valid (True) / invalid (False) ones."""
        with self._read() as conn:
            if valid is None:
                row = conn.execute("SELECT COUNT(*) FROM environments").fetchone()
            else:
                row = conn.execute(
                    "SELECT COUNT(*) FROM environments WHERE valid = ?", (int(valid),)
                ).fetchone()
        return int(row[0])

    def __len__(self) -> int:
        return self.count()

    def cached_vectors(self, embedder: str, digests: list[str]) -> dict[str, bytes]:
        """The cached embeddings among ``digests`` (SHA-256 of the embedded texts)."""
        found: dict[str, bytes] = {}
        with self._read() as conn:
            for start in range(0, len(digests), _PAGE_ROWS):
                page = digests[start:start + _PAGE_ROWS]
                rows = conn.execute(
                    "SELECT text_sha256, vector FROM embeddings WHERE embedder = ? AND text_sha256 IN "
                    f"({', '.join('?' * len(page))})", [embedder, *page]).fetchall()
                found.update({digest: bytes(vector) for digest, vector in rows})
        return found

    def cache_vectors(self, embedder: str, vectors: dict[str, bytes]) -> None:
        """Store embeddings by text digest in one transaction (a cache: replacing is harmless)."""
        with self._write() as conn:
            conn.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?)",
                             [(embedder, digest, vector) for digest, vector in vectors.items()])

    def update_metrics(self, id: int, metrics: dict[str, Any]) -> EnvRecord:
        """Merge ``metrics`` into the stored metrics of record ``id`` in one transaction.

        Keys in ``metrics`` replace keys already stored; other stored keys stay.

        Returns:
            The record as stored after the update.

        Raises:
            ArchiveError: there is no such record, or ``metrics`` is not JSON-serialisable.
        """
        _dumps(metrics, "the metrics")
        with self._write() as conn:
            _merge_metrics(conn, id, metrics, self.path)
        return self.get(id)


def _merge_metrics(conn: sqlite3.Connection, id: int, metrics: dict[str, Any], path: Path) -> None:
    """Merge ``metrics`` into record ``id``'s stored metrics (its keys win) within a transaction."""
    row = conn.execute("SELECT metrics_json FROM environments WHERE id = ?", (id,)).fetchone()
    if row is None:
        raise ArchiveError(f"no environment with id {id} in {path}")
    merged = {**json.loads(row[0]), **metrics}
    conn.execute("UPDATE environments SET metrics_json = ? WHERE id = ?", (_dumps(merged, "the metrics"), id))


def _insert(conn: sqlite3.Connection, record: EnvRecord) -> EnvRecord:
    values = (
        record.created_at,
        record.origin,
        record.content_hash,
        int(record.valid),
        record.class_name,
        record.hint,
        record.reason,
        record.source,
        _dumps(record.verdict.to_json(), "the verdict"),
        _dumps(list(record.tolerances), "the tolerances"),
        _dumps(record.metrics, "the metrics"),
    )
    cursor = conn.execute(
        "INSERT INTO environments (created_at, origin, content_hash, valid, class_name,"
        " hint, reason, source, verdict_json, tolerances_json, metrics_json)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        values,
    )
    return replace(record, id=cursor.lastrowid)


def _not_a_database(exc: sqlite3.Error) -> bool:
    name = getattr(exc, "sqlite_errorname", "")
    return name == "SQLITE_NOTADB" or "not a database" in str(exc)


def _prepare(conn: sqlite3.Connection, path: Path) -> None:
    """Set the pragmas, check the schema version and create the schema if it is new."""
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
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except sqlite3.Error as exc:
        raise ArchiveError(f"cannot create the archive schema in {path}: {exc}") from exc
