"""The diversity measures, updated one batch of environments at a time: the loop's per-iteration
cost follows the batch, not the archive.

- **score** (mean pairwise cosine distance): for vectors ``v_i``, the sum over unordered pairs of
  ``v_i · v_j`` is ``(|S|² - Q) / 2`` with ``S = Σ v_i`` and ``Q = Σ |v_i|²``, so the mean distance
  needs only the running ``S``, ``Q`` and count, no pairs. Vectors are first rounded to multiples
  of ``2**-24`` (float32's precision for numbers up to 1), which makes ``S`` and ``Q`` integer sums:
  exact, and the same in whatever order the environments are added (a resumed run recomputes them
  from the archive bit for bit).
- **near-duplicate rate**: an environment is a near-duplicate once another lies closer than the
  near-duplicate distance, and stays one; each new environment is queried against the earlier ones
  (``NearIndex``) and the batch, flagging both sides.
- **clusters** and the **collapse alarm**: average-linkage clustering of the most recent
  ``cluster_window`` environments (all of them in a run with fewer), and of the last
  ``collapse_window`` for the alarm.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from spadework.diversity.measure import cluster_labels, collapsed, diversity_score
from spadework.diversity.neighbours import EXACT_BELOW, NearIndex
from spadework.diversity.settings import DiversitySettings as DiversitySettings

SCALE = 1 << 24
"""Vectors are rounded to multiples of ``1 / SCALE``."""


def quantise(vectors) -> np.ndarray:
    """Rows rounded to multiples of ``2**-24`` (exact in float32 and float64).

    >>> quantise([[0.6, 0.8]]).tolist() == [[10066330 / 2**24, 13421773 / 2**24]]
    True
    """
    return np.round(np.asarray(vectors, dtype=np.float64) * SCALE) / SCALE


@dataclass(frozen=True)
class RunningSums:
    """Count, integer sum ``S`` and integer sum of squared norms ``Q`` of quantised vectors (in
    units of ``2**-24`` and ``2**-48``).

    >>> sums = RunningSums().add(quantise([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]))
    >>> sums.count, sums.score()  # pairs: 1, 0, 1 apart -> 2/3
    (3, 0.6666666666666667)
    >>> RunningSums().add(quantise([[1.0, 0.0]])).score()
    0.0
    """

    count: int = 0
    total: tuple[int, ...] = ()
    squares: int = 0

    def add(self, vectors: np.ndarray) -> RunningSums:
        """These sums with ``vectors`` (quantised rows) added."""
        if not len(vectors):
            return self
        units = np.round(np.asarray(vectors) * SCALE).astype(np.int64)
        total = np.array(self.total or [0] * units.shape[1], dtype=np.int64) + units.sum(axis=0)
        squares = self.squares + sum(int(v) for v in (units * units).sum(axis=1))
        return RunningSums(self.count + len(units), tuple(int(t) for t in total), squares)

    def score(self) -> float:
        """Mean cosine distance over all unordered pairs (of unit or zero vectors); 0 below two.

        ``1 - (|S|² - Q) / (n (n - 1))``, computed in integers and divided once.
        """
        n = self.count
        if n < 2:
            return 0.0
        cross = sum(t * t for t in self.total) - self.squares
        return 1.0 - cross / (SCALE * SCALE * n * (n - 1))


@dataclass(frozen=True)
class BatchResult:
    """What adding a batch changes, computed before it is committed.

    Attributes:
        vectors: the batch's quantised vectors.
        flags: whether each of them has a near-duplicate (earlier or in the batch).
        earlier: positions (in ``NearIndex``) of earlier environments that now have one.
        sums: the running sums with the batch.
        metrics: the ``diversity/...`` metrics after the batch.
    """

    vectors: np.ndarray
    flags: tuple[bool, ...]
    earlier: tuple[int, ...]
    sums: RunningSums
    metrics: dict[str, float] = field(default_factory=dict)


class IncrementalDiversity:
    """The run's environments as the measures need them: running sums, the nearest-neighbour index
    with each environment's near-duplicate flag, and the most recent vectors."""

    def __init__(self, settings: DiversitySettings, exact_below: int = EXACT_BELOW):
        self.settings, self.exact_below = settings, exact_below
        self.sums = RunningSums()
        self.near = NearIndex(0, exact_below)
        """The stored environments; its dimension is set by the first vectors added."""

    def __len__(self) -> int:
        return len(self.near)

    def _dimension(self, vectors: np.ndarray) -> None:
        if len(self.near) == 0 and vectors.shape[1] != self.near.dimension:
            self.near = NearIndex(vectors.shape[1], self.exact_below)

    def preview(self, vectors: np.ndarray) -> BatchResult:
        """The batch's flags, sums and metrics, without adding it.

        Its products are small (one vector against the stored ones, a window of a thousand): BLAS
        runs them on one thread, since waking more costs more than it saves (ten times more on a
        busy two-core machine).
        """
        with threadpool_limits(limits=1, user_api="blas"):
            return self._preview(vectors)

    def _preview(self, vectors: np.ndarray) -> BatchResult:
        vectors = quantise(vectors)
        vectors = vectors.reshape(len(vectors), -1) if vectors.ndim != 2 else vectors
        if len(vectors):
            self._dimension(vectors)
        limit = self.settings.near_duplicate
        flags = [False] * len(vectors)
        earlier: set[int] = set()
        for k, vector in enumerate(vectors):
            found = self.near.within(vector, limit)
            earlier.update(int(p) for p in found if not self.near.flags[p])
            flags[k] = len(found) > 0
        if len(vectors) > 1:
            close = (1.0 - vectors @ vectors.T) < limit
            np.fill_diagonal(close, False)
            flags = [f or bool(row.any()) for f, row in zip(flags, close, strict=True)]
        sums = self.sums.add(vectors)
        result = BatchResult(vectors, tuple(flags), tuple(sorted(earlier)), sums)
        return BatchResult(**{**result.__dict__, "metrics": self._metrics(result)})

    def _metrics(self, batch: BatchResult) -> dict[str, float]:
        s = self.settings
        count = batch.sums.count
        near = self.near.flagged + len(batch.earlier) + sum(batch.flags)
        window = self.near.recent(max(0, s.cluster_window - len(batch.vectors)))
        if len(batch.vectors):
            window = np.concatenate([window, batch.vectors])[-s.cluster_window:]
        clusters = len(set(cluster_labels(window, s.cluster_distance))) if count else 0
        alarm = collapsed(window, window=s.collapse_window, cluster_distance=s.cluster_distance)
        return {
            "diversity/environments": float(count), "diversity/score": batch.sums.score(),
            "diversity/near_duplicate_rate": near / count if count > 1 else 0.0,
            "diversity/clusters": float(clusters),
            "diversity/iteration_score": diversity_score(batch.vectors) if len(batch.vectors) > 1 else 0.0,
            "diversity/collapse": 1.0 if alarm else 0.0,
        }

    def apply(self, batch: BatchResult, ids: list[int]) -> None:
        """Add a previewed batch under its record ids."""
        if not len(batch.vectors):
            return
        self.near.flag(batch.earlier)
        self.near.add(np.asarray(ids, dtype=np.int64), batch.vectors, np.array(batch.flags, dtype=bool))
        self.sums = batch.sums

    def load(self, ids: np.ndarray, vectors: np.ndarray, flags: np.ndarray) -> None:
        """Start from stored environments (their vectors already quantised, their flags kept)."""
        if not len(vectors):
            return
        self._dimension(vectors)
        self.near.add(ids, vectors, flags)
        for start in range(0, len(vectors), 8192):  # a slice at a time: the sums are exact in any order
            self.sums = self.sums.add(np.asarray(vectors[start:start + 8192], dtype=np.float64))
