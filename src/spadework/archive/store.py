"""The archive: every validated environment of a run, in ``RUN_DIR/archive.sqlite``.

One SQLite file in write-ahead-log mode with ``synchronous=FULL``. Every write is one
transaction, so a record is on disk once ``add`` returns, even if the process is killed
right after. One ``Archive`` may be shared by the threads of a process.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Self

from spadework.archive import side, summary
from spadework.archive.records import EnvRecord, utc_now
from spadework.archive.results import RecordUpdate
from spadework.archive.schema import (
    ARCHIVE_FILE,
    COLUMNS,
    SCHEMA_VERSION,
    check_run_dir,
    prepare,
    row_to_record,
)
from spadework.archive.side import SketchRow, StoredSketch, StoredVectors, VectorUpdate
from spadework.archive.summary import EnvSummary, ReplayRow
from spadework.errors import ArchiveError

__all__ = ["ARCHIVE_FILE", "SCHEMA_VERSION", "Archive"]

_PAGE_ROWS = 500


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError) as exc:
        raise ArchiveError(
            f"{what} is not JSON-serialisable ({exc}); "
            "store only numbers, strings, booleans, None, lists and dicts"
        ) from exc


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
        path = check_run_dir(run_dir, create)
        try:
            conn = sqlite3.connect(path, timeout=30.0, check_same_thread=False)
        except sqlite3.Error as exc:
            raise ArchiveError(f"cannot open {path}: {exc}") from exc
        try:
            prepare(conn, path)
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
        updates: Mapping[int, RecordUpdate] | None = None, *,
        sketches: tuple[str, Sequence[StoredSketch]] = ("", ()),
        vectors: VectorUpdate | None = None,
    ) -> list[EnvRecord]:
        """Store one self-play iteration whole: its environments, metrics and loop state, and the
        metrics it changed of environments already stored (``updates``: record id → what changes,
        its ``to_metrics`` merged as ``update_metrics`` does: a replay's plays, a closing window's pay).

        The loop's side rows go in with them: ``sketches`` (a scheme and the near-duplicate
        sketches of the new valid sources) and ``vectors`` (the diversity batch; its positions
        index ``records``).

        One transaction: after a crash either all of it is there or none of it.
        """
        with self._write() as conn:
            for id, update in (updates or {}).items():
                _merge_metrics(conn, id, update.to_metrics(), self.path)
            stored = [_insert(conn, record) for record in records]
            side.put_sketches(conn, sketches[0], sketches[1])
            if vectors is not None:
                side.put_vectors(conn, vectors, [r.id or 0 for r in stored])
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

    def final_ids(self, origin_prefix: str) -> dict[str, int]:
        """The id of the newest record under each origin that starts with ``origin_prefix``, by the
        origin's middle part: for the loop's origins ``run:i<iteration>:<design id>:a<attempt>`` and
        the prefix ``run:i<iteration>:``, each design's final attempt by design id."""
        with self._read() as conn:
            rows = conn.execute("SELECT id, origin FROM environments WHERE substr(origin, 1, ?) = ?"
                                " ORDER BY id", (len(origin_prefix), origin_prefix)).fetchall()
        return {origin[len(origin_prefix):].rpartition(":")[0]: id for id, origin in rows}

    def get(self, id: int) -> EnvRecord:
        """Return the record with ``id``.

        Raises:
            ArchiveError: there is no such record.
        """
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {COLUMNS} FROM environments WHERE id = ?", (id,)
            ).fetchone()
        if row is None:
            raise ArchiveError(f"no environment with id {id} in {self.path}")
        return row_to_record(row)

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
                    f"SELECT {COLUMNS} FROM environments WHERE {where} ORDER BY id LIMIT ?",
                    (*params, size),
                )
                page = [row_to_record(row) for row in cursor]
            yield from page
            if len(page) < size:
                return
            last = page[-1].id or last
            if left is not None:
                left -= len(page)

    def listing(self, *, valid: bool | None = None, limit: int | None = None,
                offset: int = 0) -> list[tuple[int, str, str | None, bool, str, str]]:
        """``(id, created_at, class_name, valid, reason, origin)`` of a page of records in id order
        (no source, verdict or metrics read): ``limit`` records after the first ``offset``."""
        where, params = ("", ()) if valid is None else ("WHERE valid = ?", (int(valid),))
        with self._read() as conn:
            rows = conn.execute(f"SELECT id, created_at, class_name, valid, reason, origin FROM environments "
                                f"{where} ORDER BY id LIMIT ? OFFSET ?",
                                (*params, -1 if limit is None else limit, offset)).fetchall()
        return [(r[0], r[1], r[2], bool(r[3]), r[4], r[5]) for r in rows]

    def by_hash(self, content_hash: str) -> list[EnvRecord]:
        """Return every record whose source has ``content_hash``, in id order."""
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM environments WHERE content_hash = ? ORDER BY id",
                (content_hash,),
            ).fetchall()
        return [row_to_record(row) for row in rows]

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

    def summaries(self, where: str = "", params: tuple[Any, ...] = (), *, newest: int | None = None,
                  ids: Sequence[int] | None = None) -> list[EnvSummary]:
        """Summaries (``EnvSummary``) in id order: all, those matching an SQL condition over the
        summary columns, the ``newest`` few, or those of ``ids``."""
        if ids is not None:
            pages = [tuple(ids[k:k + _PAGE_ROWS]) for k in range(0, len(ids), _PAGE_ROWS)]
            return [row for page in pages
                    for row in self.summaries(f"id IN ({', '.join('?' * len(page))})", page)]
        with self._read() as conn:
            if newest is not None:
                return list(summary.select(conn, where, params, "id DESC", newest))[::-1]
            return list(summary.select(conn, where, params))

    def summary_counts(self) -> dict[str, Any]:
        """``environments``, ``valid``, ``designs`` (final attempts), ``valid_designs`` and
        ``regret_mean`` (of the valid designs' regrets, None when there is none)."""
        with self._read() as conn:
            row = conn.execute("SELECT COUNT(*), COALESCE(SUM(valid), 0), COALESCE(SUM(final), 0), "
                               "COALESCE(SUM(valid * final), 0), AVG(CASE WHEN valid = 1 AND final = 1 "
                               "THEN regret END) FROM summaries").fetchone()
        names = ("environments", "valid", "designs", "valid_designs", "regret_mean")
        return dict(zip(names, row, strict=True))

    def digest_rows(self, references: int, recent: int, band: tuple[float, float]) -> list[EnvSummary]:
        """The few valid summaries a memory digest names (``summary.digest_rows``), in id order."""
        with self._read() as conn:
            return summary.digest_rows(conn, references, recent, band)

    def replay_rows(self, before: int, scores: bool = False) -> list[ReplayRow]:
        """What replay ranks of each candidate (played final valid designs of earlier iterations);
        their no-hint scores only when ``scores``."""
        with self._read() as conn:
            return summary.replay_rows(conn, before, scores)

    def sketch_rows(self, scheme: str, after: int = 0, limit: int | None = None) -> list[SketchRow]:
        """The valid records (ids above ``after``; the first ``limit``) whose source has a sketch of
        ``scheme``, in id order."""
        with self._read() as conn:
            return list(side.sketch_rows(conn, scheme, after, -1 if limit is None else limit))

    def unsketched(self, scheme: str, after: int = 0) -> list[tuple[int, str, str]]:
        """``(id, content_hash, source)`` of the valid records (ids above ``after``) without a sketch."""
        with self._read() as conn:
            return side.unsketched(conn, scheme, after)

    def last_id(self) -> int:
        """The largest record id (0 when empty): records with larger ids were added since."""
        with self._read() as conn:
            return side.last_id(conn)

    def put_sketches(self, scheme: str, sketches: Sequence[StoredSketch]) -> None:
        """Store sketches in one transaction (content-addressed: replacing one is harmless)."""
        with self._write() as conn:
            side.put_sketches(conn, scheme, sketches)

    def stored_vectors(self, embedder: str, newest: int | None = None) -> StoredVectors:
        """The diversity vectors of ``embedder`` (all, or the ``newest`` few), in id order."""
        with self._read() as conn:
            return side.stored_vectors(conn, embedder, newest)

    def unvectored(self, embedder: str, after: int = 0) -> list[int]:
        """Ids (above ``after``) of the run's environments without a vector of ``embedder``."""
        with self._read() as conn:
            return side.unvectored(conn, embedder, after)

    def vector_counts(self, embedder: str) -> tuple[int, int, int]:
        """Measured environments, stored vectors and near-duplicates among them."""
        with self._read() as conn:
            return side.vector_counts(conn, embedder)

    def put_vectors(self, update: VectorUpdate) -> None:
        """Store a batch of vectors keyed by record id, in one transaction."""
        with self._write() as conn:
            side.put_vectors(conn, update)

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
    summary.write_summaries(conn, [row_to_record(conn.execute(
        f"SELECT {COLUMNS} FROM environments WHERE id = ?", (id,)).fetchone())])


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
    stored = replace(record, id=cursor.lastrowid)
    summary.write_summaries(conn, [stored])
    return stored
