"""Rewards and advantages: pure functions of scores, no I/O.

The designer earns hint-based regret (how much the hint helps the agent on paired seeds);
the agent earns its score without the hint. Advantages are normalised per role: the agent's
within each environment's group of plays, the designer's across the iteration's designs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol

from spadework.envs.contract import is_solved

ALL_GROUP = "all"
"""The group name ``centred_advantages`` uses when no groups are given."""


class ScoredEpisode(Protocol):
    """What ``agent_rewards`` reads of an episode (``spadework.rollout.Episode`` has it)."""

    arm: str
    score: float


def mean(values: Iterable[float]) -> float:
    """The arithmetic mean; 0.0 when there are no values.

    >>> mean([1.0, 2.0, 4.5])
    2.5
    >>> mean([])
    0.0
    """
    values = list(values)
    return math.fsum(values) / len(values) if values else 0.0


def _std(values: Sequence[float]) -> float:
    """Population standard deviation (divides by n).

    >>> _std([1.0, 3.0])
    1.0
    """
    centre = mean(values)
    return math.sqrt(mean([(v - centre) ** 2 for v in values]))


def solve_rate(scores: Iterable[float]) -> float:
    """The fraction of scores that count as solved; 0.0 when there are none.

    >>> solve_rate([1.0, 0.5, 1.0, 0.0])
    0.5
    >>> solve_rate([])
    0.0
    """
    return mean([1.0 if is_solved(s) else 0.0 for s in scores])


def paired_regret(hint_scores: Sequence[float], nohint_scores: Sequence[float]) -> float:
    """Hint-based regret: ``max(0, mean over seeds of (hint - nohint))``; 0.0 for no seeds.

    Args:
        hint_scores: the hinted arm's scores, one per seed.
        nohint_scores: the other arm's scores on the same seeds, in the same order.

    Raises:
        ValueError: the two arms have different numbers of seeds.

    >>> paired_regret([1.0, 1.0, 0.5], [0.0, 1.0, 0.5])
    0.3333333333333333
    >>> paired_regret([0.0, 0.0], [1.0, 0.5])
    0.0
    """
    if len(hint_scores) != len(nohint_scores):
        raise ValueError(f"paired_regret needs one score per seed in each arm; got {len(hint_scores)} "
                         f"hinted and {len(nohint_scores)} unhinted scores")
    return max(0.0, mean([h - n for h, n in zip(hint_scores, nohint_scores, strict=True)]))


def designer_reward(valid: bool, regret: float, invalid_penalty: float = 0.0, progress: float = 0.0) -> float:
    """The designer's reward for one design: its regret when valid; when not, ``-invalid_penalty``
    scaled down by how far it got through the validator.

    Args:
        valid: whether the design passed validation.
        regret: ``paired_regret`` of the design (ignored when invalid).
        invalid_penalty: how much an invalid design costs, as a number >= 0.
        progress: the share of the validator's checks an invalid design passed (or that did not apply
            to it), in [0, 1]; 0 (the default) charges the full penalty. Partial credit gives a small
            model's designer a learning signal when none of its designs is valid yet.

    Raises:
        ValueError: ``invalid_penalty`` is negative, or ``progress`` is outside [0, 1].

    >>> designer_reward(True, 0.25, invalid_penalty=0.5)
    0.25
    >>> designer_reward(False, 0.25, invalid_penalty=0.5)
    -0.5
    >>> designer_reward(False, 0.25, invalid_penalty=0.5, progress=0.75)
    -0.125
    >>> designer_reward(False, 0.25)
    0.0
    """
    if invalid_penalty < 0:
        raise ValueError(f"invalid_penalty must be >= 0 (the reward of an invalid design is its negative), "
                         f"got {invalid_penalty}")
    if not 0.0 <= progress <= 1.0:
        raise ValueError(f"progress is the share of checks passed, in [0, 1]; got {progress}")
    return float(regret) if valid else 0.0 - float(invalid_penalty) * (1.0 - progress)


def agent_rewards(episodes: Iterable[ScoredEpisode]) -> list[float]:
    """The agent's rewards: the scores of the episodes played without the hint, in order.

    >>> from types import SimpleNamespace as FakeEpisode
    >>> agent_rewards([FakeEpisode(arm="nohint", score=0.5), FakeEpisode(arm="hint", score=1.0),
    ...                FakeEpisode(arm="nohint", score=0.0)])
    [0.5, 0.0]
    """
    return [float(e.score) for e in episodes if e.arm == "nohint"]


def group_advantages(rewards: Sequence[float], eps: float = 1e-6) -> tuple[list[float], bool]:
    """Group-relative advantages: each reward's z-score within one environment's group of plays.

    Uses the population standard deviation. A group whose deviation is at most ``eps``
    teaches nothing: its advantages are all 0.0 and it is reported as zero-variance.

    Returns:
        ``(advantages, zero_variance)``.

    >>> group_advantages([1.0, 0.0, 0.0, 1.0])
    ([1.0, -1.0, -1.0, 1.0], False)
    >>> group_advantages([0.5, 0.5])
    ([0.0, 0.0], True)
    """
    std = _std(rewards)
    if std <= eps:
        return [0.0] * len(rewards), True
    centre = mean(rewards)
    return [(r - centre) / std for r in rewards], False


def centred_advantages(
    rewards: Sequence[float], groups: Sequence[str] | None = None, eps: float = 1e-6
) -> tuple[list[float], list[str]]:
    """Designer advantages: rewards minus their group's mean, divided by its std when above ``eps``.

    Args:
        rewards: one per design of the iteration.
        groups: a group name per design (e.g. its corpus domain); None puts every design in one
            group, named ``ALL_GROUP``.
        eps: deviations at most this are not divided by.

    Returns:
        ``(advantages, zero_variance_groups)``: advantages in the order of ``rewards``, and the
        names of groups whose deviation is at most ``eps``, in order of first appearance.

    Raises:
        ValueError: ``groups`` is not one name per reward.

    >>> centred_advantages([0.0, 0.5, 1.0])
    ([-1.224744871391589, 0.0, 1.224744871391589], [])
    >>> centred_advantages([0.0, 1.0, 0.5, 0.5], groups=["a", "a", "b", "b"])
    ([-1.0, 1.0, 0.0, 0.0], ['b'])
    """
    names = [ALL_GROUP] * len(rewards) if groups is None else list(groups)
    if len(names) != len(rewards):
        raise ValueError(f"centred_advantages needs one group name per reward; got {len(names)} names "
                         f"for {len(rewards)} rewards")
    advantages = [0.0] * len(rewards)
    flat: list[str] = []
    for name in dict.fromkeys(names):
        members = [i for i, n in enumerate(names) if n == name]
        values = [rewards[i] for i in members]
        centre, std = mean(values), _std(values)
        scale = std if std > eps else 1.0
        if std <= eps:
            flat.append(name)
        for i in members:
            advantages[i] = (rewards[i] - centre) / scale
    return advantages, flat
