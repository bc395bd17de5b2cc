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
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

from spadework.kinds import CONFIDENCE as CONFIDENCE

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


def arms_estimate(
    hint_scores: Sequence[float], nohint_scores: Sequence[float], confidence: float = CONFIDENCE
) -> RegretEstimate:
    """The regret of an environment's two arms: paired (``regret_estimate``) when they played the
    same seeds, and as the difference of two independent means when the hinted arm played a
    different number of seeds (``[run] hint_plays``), as the reference's recipe does.

    Unpaired, each arm's mean gets the same adjustment as a paired difference (half a pseudo-play
    at 1 and half at 0: ``(S + 0.5) / (n + 1)``, second moment ``(Q + 0.5) / (n + 1)``), and the
    variances of the two means add. ``plays`` is then the no-hint arm's count.

    >>> arms_estimate([1.0, 0.0], [0.0, 0.0]) == regret_estimate([1.0, 0.0], [0.0, 0.0])
    True

    Hinted 3 of 4 (adjusted 3.5/5 = 0.7, variance (0.7 - 0.49)/5 = 0.042), no-hint 0 of 2 (1/6,
    variance (1/6 - 1/36)/3 = 0.0463): centre 0.5333, half-width 1.96 * sqrt(0.0883) = 0.5824.

    >>> e = arms_estimate([1.0, 1.0, 1.0, 0.0], [0.0, 0.0])
    >>> e.plays, e.mean_diff, round(e.low, 4), round(e.high, 4)
    (2, 0.75, -0.0491, 1.0)
    """
    if len(hint_scores) == len(nohint_scores):
        return regret_estimate(hint_scores, nohint_scores, confidence)
    if not hint_scores or not nohint_scores:
        return RegretEstimate(len(nohint_scores), 0.0, -1.0, 1.0, confidence)
    arms = [_adjusted_mean([float(s) for s in arm]) for arm in (hint_scores, nohint_scores)]
    centre = arms[0][0] - arms[1][0]
    half = z_of(confidence) * math.sqrt(arms[0][1] + arms[1][1])
    mean_diff = math.fsum(hint_scores) / len(hint_scores) - math.fsum(nohint_scores) / len(nohint_scores)
    return RegretEstimate(len(nohint_scores), mean_diff, max(-1.0, centre - half), min(1.0, centre + half),
                          confidence)


def _adjusted_mean(scores: Sequence[float]) -> tuple[float, float]:
    """One arm's adjusted mean and the variance of that mean (see ``arms_estimate``)."""
    m = len(scores) + 1
    centre = (math.fsum(scores) + 0.5) / m
    return centre, max(0.0, (math.fsum(s * s for s in scores) + 0.5) / m - centre * centre) / m
