"""Replay priorities as in prioritised level replay (PLR, 2021): pure functions.

Each archived environment ``i`` has a score ``S_i`` (how much there is to learn from it) and the
iteration ``C_i`` it was last played in. With the current iteration ``c``, staleness ``ρ`` and
temperature ``β``:

- score priority, rank-based: ``P_S(i) ∝ (1 / rank_i) ** (1 / β)``, ``rank_i`` the place of
  ``S_i`` among the scores from the highest down (tied scores share the best rank of the tie);
- staleness priority: ``P_C(i) ∝ c - C_i`` (uniform when every environment was played now);
- the replay distribution: ``P = (1 - ρ) · P_S + ρ · P_C``.

``count`` distinct environments are drawn from ``P`` one after the other, each draw among those
left with ``P`` renormalised over them (sampling without replacement).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from spadework.kinds import ReplayScore as ReplayScore
from spadework.rewards import mean

#: Iterations, one per candidate: a list, or the int64 array the archive's summaries are read into.
Iterations = Sequence[int] | npt.NDArray[np.int64]


def positive_advantage(scores: Sequence[float]) -> float:
    """The mean positive part of the agent's advantages over its no-hint plays of one environment,
    with each advantage taken as the score minus the plays' mean (before the learner's division
    by the group's deviation): ``mean(max(0, s_k - mean(s)))``.

    PLR scores a level by its mean positive GAE; here an episode's advantage over the environment's
    own mean plays that part. The division by the deviation is left out on purpose: it would give
    two nearly equal scores as much weight as a solved and a failed play. For solved/unsolved
    scores the value is ``p (1 - p)`` with ``p`` the solve rate: 0 for environments always or
    never solved, highest (0.25) at ``p = 1/2``, where the agent learns most.

    >>> positive_advantage([1.0, 0.0, 0.0, 1.0])  # p = 1/2
    0.25
    >>> positive_advantage([1.0, 0.0, 0.0, 0.0])  # p = 1/4: 3/16
    0.1875
    >>> positive_advantage([1.0, 1.0]), positive_advantage([]), round(positive_advantage([0.5, 0.51]), 6)
    (0.0, 0.0, 0.0025)
    """
    centre = mean(scores)
    return mean([max(0.0, s - centre) for s in scores])


def score_ranks(scores: Sequence[float]) -> list[int]:
    """Each score's rank from the highest down, from 1; tied scores share the best rank of the tie
    (one more than the number of scores above it; a NaN score has none above it and is above none).

    >>> score_ranks([0.2, 0.9, 0.2, 0.0])
    [2, 1, 2, 4]
    >>> score_ranks([])
    []
    """
    values = np.asarray(scores, dtype=np.float64)
    known = np.sort(values[~np.isnan(values)])
    above = len(known) - np.searchsorted(known, values, side="right")
    return np.where(np.isnan(values), 1, 1 + above).tolist()


def rank_priorities(scores: Sequence[float], temperature: float) -> list[float]:
    """PLR's rank-based score priority: ``(1 / rank) ** (1 / temperature)``, normalised.

    Args:
        scores: one per environment; higher is replayed more.
        temperature: ``β > 0``; small values put nearly all weight on the best ranks.

    >>> [round(p, 4) for p in rank_priorities([0.5, 0.0, 0.25], 1.0)]  # 1, 1/3, 1/2 over 11/6
    [0.5455, 0.1818, 0.2727]
    >>> rank_priorities([0.0, 0.0], 0.3)
    [0.5, 0.5]

    Raises:
        ValueError: ``temperature`` is not above 0.
    """
    if not temperature > 0:
        raise ValueError(f"the replay temperature must be above 0, got {temperature}")
    weights = (1.0 / np.array(score_ranks(scores), dtype=np.float64)) ** (1.0 / temperature)
    return _normalised(weights)


def staleness_priorities(last_played: Iterations, current: int) -> list[float]:
    """PLR's staleness priority: ``current - last_played``, normalised (uniform when all are 0).

    >>> staleness_priorities([0, 2, 3], 4)  # 4, 2, 1 iterations ago
    [0.5714285714285714, 0.2857142857142857, 0.14285714285714285]
    >>> staleness_priorities([4, 4], 4)
    [0.5, 0.5]
    """
    return _normalised(np.maximum(0, current - np.asarray(last_played, dtype=np.int64)).astype(np.float64))


def replay_priorities(
    scores: Sequence[float], last_played: Iterations, current: int, *, staleness: float,
    temperature: float,
) -> list[float]:
    """The replay distribution ``(1 - ρ) · P_S + ρ · P_C`` over the candidates (sums to 1).

    Args:
        scores: each candidate's score (higher: replayed more).
        last_played: the iteration each candidate was last played in (designed or replayed).
        current: this iteration.
        staleness: ``ρ`` in [0, 1], the weight of the staleness priority.
        temperature: ``β > 0`` of the rank-based score priority.

    Two candidates, the better scored played last iteration, the other five iterations ago:
    ``P_S = (1, 1/2) / 1.5`` (β = 1), ``P_C = (1, 5) / 6``.

    >>> [round(p, 4) for p in replay_priorities([0.9, 0.1], [5, 1], 6, staleness=0.5, temperature=1.0)]
    [0.4167, 0.5833]
    >>> replay_priorities([], [], 3, staleness=0.3, temperature=0.3)
    []
    """
    if len(scores) != len(last_played):
        raise ValueError(f"one score and one last-played iteration per candidate; got {len(scores)} "
                         f"scores and {len(last_played)} iterations")
    if not 0.0 <= staleness <= 1.0:
        raise ValueError(f"the replay staleness must be in [0, 1], got {staleness}")
    if not scores:
        return []
    by_score = rank_priorities(scores, temperature)
    by_age = staleness_priorities(last_played, current)
    return ((1.0 - staleness) * np.array(by_score) + staleness * np.array(by_age)).tolist()


def draw_distinct(priorities: Sequence[float], count: int, rng: random.Random) -> list[int]:
    """``count`` distinct indices drawn one at a time in proportion to ``priorities`` among those
    not yet drawn (all of them, in drawn order, when ``count`` is not smaller).

    Indices of priority 0 are drawn only after every other one. Each draw costs one pass over the
    priorities in numpy (the archive's whole replay distribution, at any size).

    >>> draw_distinct([0.0, 1.0, 0.0], 1, random.Random(0))
    [1]
    >>> sorted(draw_distinct([0.2, 0.5, 0.3], 5, random.Random(0)))
    [0, 1, 2]
    >>> draw_distinct([0.5, 0.5], 2, random.Random(3)) == draw_distinct([0.5, 0.5], 2, random.Random(3))
    True
    """
    left = np.arange(len(priorities))
    weights_all = np.asarray(priorities, dtype=np.float64)
    drawn: list[int] = []
    while len(left) and len(drawn) < count:
        weights = weights_all[left]
        total = math.fsum(weights.tolist())
        if total <= 0.0:
            weights, total = np.ones(len(left)), float(len(left))
        point = rng.random() * total
        picked = int(np.searchsorted(np.cumsum(weights), point, side="right"))
        if picked >= len(left) or weights[picked] <= 0.0:  # rounding at the very end
            picked = int(np.flatnonzero(weights > 0.0)[-1])
        drawn.append(int(left[picked]))
        left = np.delete(left, picked)
    return drawn


def _normalised(weights: np.ndarray) -> list[float]:
    """``weights`` divided by their (exactly rounded) sum; uniform when the sum is 0."""
    total = math.fsum(weights.tolist())
    if total <= 0.0:
        return [1.0 / len(weights)] * len(weights)
    return (weights / total).tolist()
