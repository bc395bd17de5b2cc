"""Rows the loop keeps beside the records so that it never re-reads the archive: the
near-duplicate sketches of valid sources and the diversity vectors of environments.

Both are written in the transaction that commits their records, so after a crash they are
exactly as complete as the archive. Sketches are keyed by content hash (a pure function of the
normalised source) under a scheme name; vectors by record id under the embedder's name, with
whether the environment has a near-duplicate.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

_PAGE = 5000


@dataclass(frozen=True)
class StoredSketch:
    """A source's near-duplicate sketch: its MinHash signature (bytes) and shingle count."""

    content_hash: str
    signature: bytes
    size: int


@dataclass(frozen=True)
class SketchRow:
    """A valid record with its stored sketch."""

    id: int
    class_name: str | None
    content_hash: str
    signature: bytes
    size: int


@dataclass(frozen=True)
class VectorUpdate:
    """One batch of diversity vectors, committed with the iteration that measured it.

    Attributes:
        embedder: the embedder's name.
        new: ``(position, vector, near)`` of each newly measured record: its place in the list of
            records committed with it (or, standalone, its record id), its float32 vector as bytes,
            and whether it has a near-duplicate.
        near: ids of records stored earlier that now have a near-duplicate.
    """

    embedder: str
    new: tuple[tuple[int, bytes, bool], ...] = ()
    near: tuple[int, ...] = ()


@dataclass(frozen=True)
class StoredVectors:
    """The stored vectors of one embedder, in id order."""

    ids: np.ndarray
    vectors: np.ndarray
    near: np.ndarray


def put_sketches(conn: sqlite3.Connection, scheme: str, sketches: Sequence[StoredSketch]) -> None:
    """Store near-duplicate sketches of one scheme (replacing any kept for the same ids)."""
    conn.executemany("INSERT OR REPLACE INTO sketches VALUES (?, ?, ?, ?)",
                     [(scheme, s.content_hash, s.signature, s.size) for s in sketches])


def sketch_rows(conn: sqlite3.Connection, scheme: str, after: int = 0,
                limit: int = -1) -> Iterator[SketchRow]:
    """Stored sketches of one scheme, in id order, after id ``after``."""
    rows = conn.execute("SELECT e.id, e.class_name, e.content_hash, s.signature, s.size FROM environments e "
                        "JOIN sketches s ON s.scheme = ? AND s.content_hash = e.content_hash "
                        "WHERE e.id > ? AND e.valid = 1 ORDER BY e.id LIMIT ?", (scheme, after, limit))
    for row in rows:
        yield SketchRow(*row)


def unsketched(conn: sqlite3.Connection, scheme: str, after: int = 0) -> list[tuple[int, str, str]]:
    """``(id, content_hash, source)`` of the valid records (with ids above ``after``) whose source
    has no sketch yet."""
    return conn.execute("SELECT e.id, e.content_hash, e.source FROM environments e WHERE e.id > ? AND "
                        "e.valid = 1 AND NOT EXISTS (SELECT 1 FROM sketches s WHERE s.scheme = ? AND "
                        "s.content_hash = e.content_hash) ORDER BY e.id", (after, scheme)).fetchall()


def put_vectors(conn: sqlite3.Connection, update: VectorUpdate, ids: Sequence[int] | None = None) -> None:
    """Store a batch; ``ids`` maps the positions of ``update.new`` to record ids (None: they are ids)."""
    conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
                     [(update.embedder, position if ids is None else ids[position], vector, int(near))
                      for position, vector, near in update.new])
    conn.executemany("UPDATE vectors SET near = 1 WHERE embedder = ? AND id = ?",
                     [(update.embedder, id) for id in update.near])


def stored_vectors(conn: sqlite3.Connection, embedder: str, newest: int | None = None) -> StoredVectors:
    """Every stored vector of ``embedder`` (or the ``newest`` few), in id order, read page by page
    into one preallocated array."""
    total = conn.execute("SELECT COUNT(*) FROM vectors WHERE embedder = ?", (embedder,)).fetchone()[0]
    count = total if newest is None else min(total, newest)
    width = conn.execute("SELECT LENGTH(vector) FROM vectors WHERE embedder = ? LIMIT 1",
                         (embedder,)).fetchone()
    ids, near = np.zeros(count, np.int64), np.zeros(count, bool)
    vectors = np.zeros((count, width[0] // 4 if width else 0), np.float32)
    last = -1 if count == total else conn.execute(
        "SELECT id FROM vectors WHERE embedder = ? ORDER BY id LIMIT 1 OFFSET ?",
        (embedder, total - count - 1)).fetchone()[0]
    filled = 0
    while filled < count:
        page = conn.execute("SELECT id, vector, near FROM vectors WHERE embedder = ? AND id > ? ORDER BY id "
                            "LIMIT ?", (embedder, last, min(_PAGE, count - filled))).fetchall()
        if not page:
            break
        for k, (id, vector, flag) in enumerate(page, start=filled):
            ids[k], near[k], vectors[k] = id, bool(flag), np.frombuffer(vector, np.float32)
        filled, last = filled + len(page), page[-1][0]
    return StoredVectors(ids[:filled], vectors[:filled], near[:filled])


MEASURED = "valid = 1 AND (iteration < 0 OR final = 1)"
"""The summaries of the run's environments: valid final designs and valid records not designed."""


def unvectored(conn: sqlite3.Connection, embedder: str, after: int = 0) -> list[int]:
    """Ids (above ``after``) of the measured records without a vector of ``embedder``, in id order."""
    return [row[0] for row in conn.execute(
        f"SELECT id FROM summaries WHERE id > ? AND {MEASURED} AND NOT EXISTS (SELECT 1 FROM vectors v "
        "WHERE v.embedder = ? AND v.id = summaries.id) ORDER BY id", (after, embedder))]


def last_id(conn: sqlite3.Connection) -> int:
    """The largest record id (0 for an empty archive)."""
    return conn.execute("SELECT COALESCE(MAX(id), 0) FROM environments").fetchone()[0]


def vector_counts(conn: sqlite3.Connection, embedder: str) -> tuple[int, int, int]:
    """Measured records, stored vectors and near-duplicates among them."""
    measured = conn.execute(f"SELECT COUNT(*) FROM summaries WHERE {MEASURED}").fetchone()[0]
    count, near = conn.execute("SELECT COUNT(*), COALESCE(SUM(near), 0) FROM vectors WHERE embedder = ?",
                               (embedder,)).fetchone()
    return measured, count, near


class Rows:
    """A growing 2-D array (amortised appends: its capacity grows by a quarter at a time)."""

    def __init__(self, width: int, dtype):
        self._data = np.zeros((16, width), dtype=dtype)
        self._count = 0

    def __len__(self) -> int:
        return self._count

    @property
    def view(self) -> np.ndarray:
        """The rows appended so far (a view, not a copy)."""
        return self._data[:self._count]

    def append(self, rows: np.ndarray) -> None:
        """Append ``rows`` (reshaped to this width), growing the capacity when full."""
        rows = np.asarray(rows, dtype=self._data.dtype).reshape(-1, self._data.shape[1])
        need = self._count + len(rows)
        if need > len(self._data):
            size = max(need, len(self._data) * 5 // 4)
            grown = np.zeros((size, self._data.shape[1]), dtype=self._data.dtype)
            grown[:self._count] = self._data[:self._count]
            self._data = grown
        self._data[self._count:need] = rows
        self._count = need
