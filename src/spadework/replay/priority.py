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
from enum import StrEnum

from spadework.rewards import mean


class ReplayScore(StrEnum):
    """What ranks the archived environments for replay (``[replay] score``).

    ``regret``: the environment's current hint-based regret (pooled over all its plays).
    ``advantage``: ``positive_advantage`` of its no-hint scores, the agent-side analogue of PLR's
    positive value loss.
    """

    REGRET = "regret"
    ADVANTAGE = "advantage"


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
    """Each score's rank from the highest down, from 1; tied scores share the best rank of the tie.

    >>> score_ranks([0.2, 0.9, 0.2, 0.0])
    [2, 1, 2, 4]
    >>> score_ranks([])
    []
    """
    return [1 + sum(1 for other in scores if other > score) for score in scores]


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
    weights = [(1.0 / rank) ** (1.0 / temperature) for rank in score_ranks(scores)]
    return _normalised(weights)


def staleness_priorities(last_played: Sequence[int], current: int) -> list[float]:
    """PLR's staleness priority: ``current - last_played``, normalised (uniform when all are 0).

    >>> staleness_priorities([0, 2, 3], 4)  # 4, 2, 1 iterations ago
    [0.5714285714285714, 0.2857142857142857, 0.14285714285714285]
    >>> staleness_priorities([4, 4], 4)
    [0.5, 0.5]
    """
    return _normalised([float(max(0, current - last)) for last in last_played])


def replay_priorities(
    scores: Sequence[float], last_played: Sequence[int], current: int, *, staleness: float,
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
    return [(1.0 - staleness) * s + staleness * c for s, c in zip(by_score, by_age, strict=True)]


def draw_distinct(priorities: Sequence[float], count: int, rng: random.Random) -> list[int]:
    """``count`` distinct indices drawn one at a time in proportion to ``priorities`` among those
    not yet drawn (all of them, in drawn order, when ``count`` is not smaller).

    Indices of priority 0 are drawn only after every other one.

    >>> draw_distinct([0.0, 1.0, 0.0], 1, random.Random(0))
    [1]
    >>> sorted(draw_distinct([0.2, 0.5, 0.3], 5, random.Random(0)))
    [0, 1, 2]
    >>> draw_distinct([0.5, 0.5], 2, random.Random(3)) == draw_distinct([0.5, 0.5], 2, random.Random(3))
    True
    """
    left = list(range(len(priorities)))
    drawn: list[int] = []
    while left and len(drawn) < count:
        weights = [priorities[i] for i in left]
        total = math.fsum(weights)
        if total <= 0.0:
            weights, total = [1.0] * len(left), float(len(left))
        point = rng.random() * total
        picked = max(k for k, weight in enumerate(weights) if weight > 0.0)  # in case rounding leaves some
        for position, weight in enumerate(weights):
            point -= weight
            if point < 0.0:
                picked = position
                break
        drawn.append(left.pop(picked))
    return drawn


def _normalised(weights: Sequence[float]) -> list[float]:
    """``weights`` divided by their sum; uniform when the sum is 0."""
    total = math.fsum(weights)
    if total <= 0.0:
        return [1.0 / len(weights)] * len(weights) if weights else []
    return [w / total for w in weights]
