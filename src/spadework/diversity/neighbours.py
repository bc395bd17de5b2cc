"""Which environments lie within a cosine distance of a new one: exactly while the run is small,
through an approximate nearest-neighbour index (usearch's HNSW) once it is large.

Up to ``EXACT_BELOW`` environments a query compares the new vector with every stored one (one
matrix product, a few milliseconds at most); beyond, it asks usearch for the nearest neighbours,
widening the search while all of them lie within the distance. The usearch index is built when
first needed (or restored from the file the loop saves in ``RUN_DIR/index``). HNSW is approximate:
it may, rarely, miss a neighbour, so the near-duplicate rate of a large run is exact up to those
(on the tests' small runs it flags exactly what exact search flags).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from spadework.archive.side import Rows

EXACT_BELOW = 20_000
"""Environments up to which queries are exact."""

_FIRST_K = 16


class NearIndex:
    """Stored environment vectors (quantised, by record id), their near-duplicate flags, and a
    nearest-neighbour index over them."""

    def __init__(self, dimension: int, exact_below: int = EXACT_BELOW):
        self.dimension, self.exact_below = dimension, exact_below
        self._vectors = Rows(dimension, np.float32)
        """Every vector: quantised values are exact in float32."""
        self._exact: Rows | None = Rows(dimension, np.float64)
        """The same in float64 for exact queries, while there are at most ``exact_below``."""
        self._position: dict[int, int] = {}
        self._ids = Rows(1, np.int64)
        self._flags = Rows(1, bool)
        self._ann: Any = None

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def flags(self) -> np.ndarray:
        """Each stored vector's near-duplicate flag, in the order they were added."""
        return self._flags.view[:, 0]

    @property
    def ids(self) -> np.ndarray:
        """Each stored vector's record id, in the order they were added."""
        return self._ids.view[:, 0]

    @property
    def flagged(self) -> int:
        """How many stored vectors are flagged as near-duplicates."""
        return int(self.flags.sum())

    def recent(self, count: int) -> np.ndarray:
        """The last ``count`` vectors (float64), oldest first."""
        if count <= 0:
            return np.zeros((0, self.dimension))
        return self._vectors.view[len(self) - count:].astype(np.float64)

    def add(self, ids: np.ndarray, vectors: np.ndarray, flags: np.ndarray) -> None:
        """Store vectors with their record ids and near-duplicate flags (and add them to the index)."""
        vectors = np.asarray(vectors).reshape(len(ids), self.dimension)
        self._position.update((int(id), len(self) + k) for k, id in enumerate(ids))
        self._ids.append(np.asarray(ids, dtype=np.int64).reshape(-1, 1))
        self._vectors.append(vectors)
        self._flags.append(np.asarray(flags, dtype=bool).reshape(-1, 1))
        if self._exact is not None and len(self) <= self.exact_below:
            self._exact.append(vectors)
        else:
            self._exact = None
        if self._ann is not None:
            self._ann.add(np.asarray(ids, dtype=np.uint64), self._vectors.view[len(self) - len(ids):])

    def flag(self, positions) -> None:
        """Flag the vectors at ``positions`` as near-duplicates."""
        self._flags.view[list(positions), 0] = True

    @property
    def has_ann(self) -> bool:
        """Whether the approximate nearest-neighbour index has been built."""
        return self._ann is not None

    def build(self, path: Path | None = None, warn=print) -> None:
        """The approximate index over every stored vector: restored from ``path`` when it holds the
        first stored ids (the rest added), else built from the vectors (with a note)."""
        from usearch.index import Index

        if path is not None and path.is_file():
            restored = Index.restore(str(path))
            count = len(restored) if restored is not None else -1
            if restored is not None and 0 < count <= len(self) and restored.ndim == self.dimension \
                    and restored.contains(int(self.ids[0])) and restored.contains(int(self.ids[count - 1])):
                restored.add(self.ids[count:].astype(np.uint64), self._vectors.view[count:])
                self._ann = restored
                return
            warn(f"note: {path} does not match the archive's vectors; rebuilding it once")
        self._ann = Index(ndim=self.dimension, metric="cos", dtype="f32")
        self._ann.add(self.ids.astype(np.uint64), self._vectors.view, threads=2)

    def save(self, path: Path) -> None:
        """Write the approximate index (when there is one) to ``path`` atomically."""
        if self._ann is not None:
            part = path.with_name(path.name + ".part")
            self._ann.save(str(part))
            part.replace(path)

    def within(self, vector: np.ndarray, distance: float) -> np.ndarray:
        """Positions of the stored vectors closer than ``distance`` (cosine) to ``vector``."""
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        if self._exact is not None:
            close = 1.0 - self._exact.view @ np.asarray(vector, dtype=np.float64)
            return np.flatnonzero(close < distance)
        if self._ann is None:
            self.build()
        return self._approximate(np.asarray(vector, dtype=np.float32), distance)

    def _approximate(self, vector: np.ndarray, distance: float) -> np.ndarray:
        k = _FIRST_K
        while True:
            found = self._ann.search(vector, min(k, len(self)))
            keys, distances = np.asarray(found.keys), np.asarray(found.distances)
            if not (len(keys) == k and (distances < distance).all()):
                break
            k *= 4
        return np.array([self._position[int(key)] for key in keys[distances < distance]], dtype=np.int64)
