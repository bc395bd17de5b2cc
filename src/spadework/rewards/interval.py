"""Regret with its uncertainty: a confidence interval from the K paired seeds.

Each valid environment is played on K seeds in both arms, so its regret rests on K paired
differences ``d_i = hint_i - nohint_i`` (each in [-1, 1]; -1, 0 or 1 when scores are solved or
not). The point estimate is the paper's: ``regret = max(0, mean(d))``.

The interval is the normal approximation on the mean of the ``d_i`` with the Agresti-Min
adjustment that ``spadework eval`` uses for paired accuracies, written for any scores: two
pseudo-plays are added, one half-weighted ``d = +1``, one half-weighted ``d = -1`` and one
``d = 0`` (as adding half an item to each cell of a paired 2x2 table does for solved/unsolved
scores). With ``m = K + 2``, ``S1 = sum(d)`` and ``S2 = sum(d**2) + 1`` the centre is ``S1 / m``
and the variance of the mean ``(S2 / m - (S1 / m) ** 2) / m``; the interval is centre ± z·sd,
clipped to [-1, 1]. Without the adjustment, K = 2 plays that agree (both lifted, or neither)
would get an interval of zero width; with it, two plays honestly say little. The interval of
the regret is the interval of the mean difference with both ends clipped at 0, and its lower end
is the pessimistic regret that ``[rewards] designer = "regret_lcb"`` pays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from spadework.kinds import CONFIDENCE as CONFIDENCE
from spadework.kinds import DesignerReward as DesignerReward

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson_interval(solved: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for the accuracy ``solved / n`` (95% by default).

    ``(0.0, 1.0)`` when ``n`` is 0 (nothing is known).

    Raises:
        ValueError: ``solved`` is not between 0 and ``n``.

    >>> [round(x, 4) for x in wilson_interval(5, 10)]
    [0.2366, 0.7634]
    >>> [round(x, 4) for x in wilson_interval(0, 10)]
    [0.0, 0.2775]
    >>> [round(x, 4) for x in wilson_interval(10, 10)]
    [0.7225, 1.0]
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    """
    if not 0 <= solved <= n:
        raise ValueError(f"solved must be between 0 and n, got {solved} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = solved / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def z_of(confidence: float) -> float:
    """The standard normal quantile of a two-sided interval of ``confidence``.

    >>> round(z_of(0.95), 4), round(z_of(0.8), 4)
    (1.96, 1.2816)
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1 (exclusive), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


@dataclass(frozen=True)
class RegretEstimate:
    """The regret of one environment from its paired plays, with its interval.

    Attributes:
        plays: K, the paired seeds.
        mean_diff: mean of ``hint - nohint`` over the seeds (may be negative).
        low: lower end of the interval of the mean difference (adjusted, see the module).
        high: upper end.
        confidence: the interval's two-sided confidence.
    """

    plays: int
    mean_diff: float
    low: float
    high: float
    confidence: float = CONFIDENCE

    @property
    def regret(self) -> float:
        """The paper's hint-based regret: ``max(0, mean_diff)``."""
        return max(0.0, self.mean_diff)

    @property
    def regret_low(self) -> float:
        """The lower confidence bound of the regret, clipped at 0 (what ``regret_lcb`` pays)."""
        return max(0.0, self.low)

    @property
    def regret_high(self) -> float:
        """The upper end of the regret's interval, clipped at 0."""
        return max(0.0, self.high)

    @property
    def width(self) -> float:
        """The width of the interval of the mean difference."""
        return self.high - self.low

    def to_json(self) -> dict[str, float]:
        """The estimate as stored with its environment in the archive.

        >>> RegretEstimate(2, 0.5, -0.25, 1.0).to_json()
        {'plays': 2, 'mean_diff': 0.5, 'low': -0.25, 'high': 1.0, 'confidence': 0.95}
        """
        return {"plays": self.plays, "mean_diff": self.mean_diff, "low": self.low, "high": self.high,
                "confidence": self.confidence}


def regret_estimate(
    hint_scores: Sequence[float], nohint_scores: Sequence[float], confidence: float = CONFIDENCE
) -> RegretEstimate:
    """The regret of paired plays with its interval (see the module for the method).

    Args:
        hint_scores: the hinted arm's scores, one per seed.
        nohint_scores: the other arm's scores on the same seeds, in the same order.
        confidence: two-sided confidence of the interval.

    Raises:
        ValueError: the arms have different numbers of seeds, or ``confidence`` is not in (0, 1).

    One lucky hinted play of two: regret 0.5, but the interval reaches far below 0.

    >>> e = regret_estimate([1.0, 0.0], [0.0, 0.0])  # m=4, S1=1, S2=2: centre .25, var (.5-.0625)/4
    >>> e.regret, round(e.low, 4), round(e.high, 4), e.regret_low
    (0.5, -0.3982, 0.8982, 0.0)

    Eight lifted plays of eight: m=10, S1=8, S2=9, centre .8, variance (.9 - .64) / 10.

    >>> e = regret_estimate([1.0] * 8, [0.0] * 8)
    >>> e.regret, round(e.low, 4), e.high, round(e.regret_low, 4)
    (1.0, 0.484, 1.0, 0.484)

    Solved/unsolved scores give the paired interval of ``spadework eval`` (3 wins, 1 loss, 10 items).

    >>> e = regret_estimate([1, 1, 1, 0] + [0] * 6, [0, 0, 0, 1] + [0] * 6)
    >>> round(e.mean_diff, 4), round(e.low, 4), round(e.high, 4)
    (0.2, -0.1862, 0.5195)

    Partial scores and no plays:

    >>> e = regret_estimate([1.0, 1.0, 0.5], [0.0, 1.0, 0.5])  # m=5, S1=1, S2=2
    >>> round(e.regret, 4), round(e.low, 4), round(e.high, 4)
    (0.3333, -0.3259, 0.7259)
    >>> regret_estimate([], [])
    RegretEstimate(plays=0, mean_diff=0.0, low=-1.0, high=1.0, confidence=0.95)
    """
    if len(hint_scores) != len(nohint_scores):
        raise ValueError(f"regret_estimate needs one score per seed in each arm; got {len(hint_scores)} "
                         f"hinted and {len(nohint_scores)} unhinted scores")
    z = z_of(confidence)
    diffs = [float(h) - float(n) for h, n in zip(hint_scores, nohint_scores, strict=True)]
    if not diffs:
        return RegretEstimate(0, 0.0, -1.0, 1.0, confidence)
    low, high = adjusted_interval(math.fsum(diffs), math.fsum(d * d for d in diffs), len(diffs), z)
    return RegretEstimate(len(diffs), math.fsum(diffs) / len(diffs), low, high, confidence)


def adjusted_interval(total: float, squares: float, count: int, z: float) -> tuple[float, float]:
    """The adjusted normal interval of a mean of ``count`` paired differences in [-1, 1], from their
    sum and their sum of squares (see the module), clipped to [-1, 1].

    For solved/unsolved pairs the sum is wins minus losses and the sum of squares wins plus losses:
    3 wins and 1 loss in 10 (m = 12, centre 2/12, variance (5/12 - 1/36) / 12).

    >>> [round(x, 4) for x in adjusted_interval(2.0, 4.0, 10, 1.959963984540054)]
    [-0.1862, 0.5195]
    """
    m = count + 2
    centre = total / m
    variance = max(0.0, (squares + 1.0) / m - centre * centre) / m
    half = z * math.sqrt(variance)
    return max(-1.0, centre - half), min(1.0, centre + half)


_FIGURES: dict[DesignerReward, Callable[[RegretEstimate], float]] = {
    DesignerReward.REGRET: lambda estimate: estimate.regret,
    DesignerReward.REGRET_LCB: lambda estimate: estimate.regret_low,
}


def designer_regret(estimate: RegretEstimate, mode: DesignerReward = DesignerReward.REGRET) -> float:
    """The regret figure a valid design earns under ``mode`` (see ``DesignerReward``).

    Args:
        estimate: the design's regret with its interval.
        mode: ``regret`` (the point estimate) or ``regret_lcb`` (the interval's lower end, >= 0).

    One lucky hinted play of two (mean 0.5, interval [-0.40, 0.90]): the lcb pays nothing.

    >>> lucky = regret_estimate([1.0, 0.0], [0.0, 0.0])
    >>> designer_regret(lucky), designer_regret(lucky, DesignerReward.REGRET_LCB)
    (0.5, 0.0)

    Eight lifted plays of eight (interval [0.484, 1]) keep most of their regret:

    >>> steady = regret_estimate([1.0] * 8, [0.0] * 8)
    >>> designer_regret(steady), round(designer_regret(steady, DesignerReward.REGRET_LCB), 4)
    (1.0, 0.484)
    """
    return _FIGURES[mode](estimate)
