"""Pure statistics of a calibration: paired scores, the rank correlation, and when kinds separate.

Every environment is played on the same K seeds without and with its hint, so it has K paired
differences ``d_i = hint_i - nohint_i``; its regret and the regret's interval are
``spadework.rewards.regret_estimate`` of those plays. Two questions are asked of them:

- **Does regret rank right?** Spearman's rho between each ranked environment's regret and its
  expected score (1 for a frontier environment, 0 for an easy or an impossible one). +1: regret
  puts frontier environments above the others, as it should; 0: no relation; -1: the reverse.
  The expected scores tie within a kind, so rho is 1 exactly only when the regrets also tie
  within each kind; undefined (None) when either side is constant.
- **How many plays does it take?** The plays of all frontier environments pooled, and of all easy
  ones: the smallest K at which the pooled frontier regret's interval lies wholly above the pooled
  easy regret's interval when only the first K plays of each environment count (measured); when
  the plays made do not reach it, the K at which it would, if further plays repeated the observed
  ones (so with the observed means and variances): projected.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from scipy.stats import spearmanr

from spadework.rewards import CONFIDENCE, RegretEstimate, regret_estimate, solve_rate

MAX_PROJECTED_PLAYS = 1000
"""The most paired plays per environment a projection looks at."""

RHO_MEANING = ("+1: regret ranks every frontier environment above every easy and impossible one, "
               "as it should; 0: no relation; -1: the reverse")


@dataclass(frozen=True)
class PairedScores:
    """One environment's scores on its paired seeds, in seed order.

    Attributes:
        hint: the hinted arm's scores.
        nohint: the other arm's scores on the same seeds.
    """

    hint: tuple[float, ...]
    nohint: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.hint) != len(self.nohint):
            raise ValueError(f"paired scores need one score per seed in each arm; got {len(self.hint)} "
                             f"hinted and {len(self.nohint)} unhinted")

    @property
    def plays(self) -> int:
        """K, the paired seeds."""
        return len(self.hint)

    @property
    def diffs(self) -> tuple[float, ...]:
        """``hint - nohint`` per seed.

        >>> PairedScores((1.0, 0.0, 1.0), (0.0, 0.0, 1.0)).diffs
        (1.0, 0.0, 0.0)
        """
        return tuple(h - n for h, n in zip(self.hint, self.nohint, strict=True))

    def solve_rate(self, hinted: bool) -> float:
        """The share of seeds solved in one arm.

        >>> scores = PairedScores((1.0, 1.0), (0.0, 1.0))
        >>> scores.solve_rate(hinted=True), scores.solve_rate(hinted=False)
        (1.0, 0.5)
        """
        return solve_rate(self.hint if hinted else self.nohint)

    def estimate(self, confidence: float = CONFIDENCE) -> RegretEstimate:
        """The regret with its interval (``regret_estimate``)."""
        return regret_estimate(self.hint, self.nohint, confidence)

    def first(self, k: int) -> PairedScores:
        """The first ``k`` plays; beyond the plays made, the observed plays repeated in order.

        >>> PairedScores((1.0, 0.0), (0.0, 0.0)).first(5)
        PairedScores(hint=(1.0, 0.0, 1.0, 0.0, 1.0), nohint=(0.0, 0.0, 0.0, 0.0, 0.0))
        """
        pairs = list(itertools.islice(itertools.cycle(zip(self.hint, self.nohint, strict=True)), k))
        return PairedScores(tuple(h for h, _ in pairs), tuple(n for _, n in pairs))

    def to_json(self) -> dict[str, list[float]]:
        """The scores as JSON: ``{"nohint": [...], "hint": [...]}``."""
        return {"nohint": list(self.nohint), "hint": list(self.hint)}


def pooled(scores: Sequence[PairedScores], k: int | None = None) -> PairedScores:
    """The plays of several environments as one sample: the first ``k`` of each (all when None).

    >>> pooled([PairedScores((1.0, 1.0), (0.0, 1.0)), PairedScores((0.0, 0.0), (0.0, 0.0))], k=1)
    PairedScores(hint=(1.0, 0.0), nohint=(0.0, 0.0))
    """
    parts = [s if k is None else s.first(k) for s in scores]
    return PairedScores(tuple(h for s in parts for h in s.hint), tuple(n for s in parts for n in s.nohint))


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman's rho between regrets and the expected order (see the module).

    Attributes:
        rho: the correlation, in [-1, 1]; None when undefined (fewer than two environments, or
            every regret or every expected score the same).
        p_value: two-sided p-value of no correlation (scipy's); None with ``rho``.
        n: environments ranked.
    """

    rho: float | None
    p_value: float | None
    n: int

    @property
    def interval(self) -> tuple[float, float] | None:
        """Rho's 95% interval (``rho_interval``); None when rho is undefined or n < 4."""
        return None if self.rho is None else rho_interval(self.rho, self.n)

    def to_json(self) -> dict[str, Any]:
        """The correlation as JSON, with its meaning and its interval (None when undefined)."""
        interval = self.interval
        return {"rho": self.rho, "p_value": self.p_value, "n": self.n, "meaning": RHO_MEANING,
                "low": None if interval is None else interval[0],
                "high": None if interval is None else interval[1]}


def rho_interval(rho: float, n: int, z: float = 1.959963984540054) -> tuple[float, float] | None:
    """A 95% interval of Spearman's rho from ``n`` pairs: Fisher's z with the standard error
    ``sqrt(1.06 / (n - 3))`` of Fieller, Hartley and Pearson; None for n < 4.

    atanh(0.5) = 0.5493, standard error sqrt(1.06 / 9) = 0.3432: tanh(0.5493 -+ 1.96 * 0.3432).

    >>> [round(x, 3) for x in rho_interval(0.5, 12)]
    [-0.123, 0.84]
    >>> rho_interval(0.5, 3) is None, [round(x, 3) for x in rho_interval(1.0, 9)]
    (True, [0.999, 1.0])
    """
    if n < 4:
        return None
    centre = math.atanh(max(-0.9999, min(0.9999, rho)))
    half = z * math.sqrt(1.06 / (n - 3))
    return math.tanh(centre - half), math.tanh(centre + half)


def rank_correlation(expected: Sequence[float], regrets: Sequence[float]) -> RankCorrelation:
    """Spearman's rho between expected scores and measured regrets (scipy.stats.spearmanr).

    Ranks of the expected (1, 1, 0, 0) are (3.5, 3.5, 1.5, 1.5), of the regrets (1, .75, 0, .25)
    (4, 3, 1, 2); deviations from the mean rank 2.5: (1, 1, -1, -1) and (1.5, .5, -1.5, -.5);
    rho = 4 / sqrt(4 * 5) = 0.8944.

    >>> round(rank_correlation([1, 1, 0, 0], [1.0, 0.75, 0.0, 0.25]).rho, 4)
    0.8944
    >>> round(rank_correlation([1, 0], [0.0, 1.0]).rho, 4), rank_correlation([1, 0, 0], [0.5] * 3).rho
    (-1.0, None)
    """
    n = len(expected)
    if n != len(regrets):
        raise ValueError(f"rank_correlation needs one regret per expected score; got {n} and {len(regrets)}")
    if n < 2 or len(set(expected)) < 2 or len(set(regrets)) < 2:
        return RankCorrelation(None, None, n)
    result = spearmanr(expected, regrets)
    return RankCorrelation(float(result.statistic), float(result.pvalue), n)


def separates(upper: RegretEstimate, lower: RegretEstimate) -> bool:
    """Whether ``upper``'s regret interval lies wholly above ``lower``'s (both clipped at 0).

    >>> separates(regret_estimate([1.0] * 8, [0.0] * 8), regret_estimate([0.0] * 8, [0.0] * 8))
    True
    """
    return upper.regret_low > lower.regret_high


class Reached(StrEnum):
    """How the number of plays that separates frontier from easy was found."""

    MEASURED = "measured"
    PROJECTED = "projected"
    BEYOND = "beyond"
    """projected, but more than ``MAX_PROJECTED_PLAYS``."""
    NEVER = "never"
    """the frontier regret is not above the easy regret: more plays only confirm it."""
    UNKNOWN = "unknown"
    """no frontier or no easy environment was played."""


@dataclass(frozen=True)
class Separation:
    """When the pooled frontier regret separates from the pooled easy regret at 95%.

    Attributes:
        reached: how ``k`` was found.
        k: paired plays per environment (measured or projected); None unless measured or projected.
        plays: paired plays per environment made.
        frontier: the pooled frontier regret over all plays made (None: none played).
        easy: the pooled easy regret over all plays made (None: none played).
    """

    reached: Reached
    k: int | None
    plays: int
    frontier: RegretEstimate | None = None
    easy: RegretEstimate | None = None

    def describe(self) -> str:
        """The finding in words.

        >>> Separation(Reached.PROJECTED, 6, 4).describe()
        'not separated within 4 plays; projected at K = 6 (further plays repeating the observed ones)'
        """
        return {
            Reached.MEASURED: f"separated at K = {self.k} paired plays per environment (measured)",
            Reached.PROJECTED: f"not separated within {self.plays} plays; projected at K = {self.k} "
                               "(further plays repeating the observed ones)",
            Reached.BEYOND: f"not separated within {self.plays} plays; projected beyond "
                            f"{MAX_PROJECTED_PLAYS} plays",
            Reached.NEVER: f"not separated within {self.plays} plays, and never: the frontier regret is "
                           "not above the easy regret",
            Reached.UNKNOWN: "unknown: no frontier or no easy environment was played",
        }[self.reached]

    def to_json(self) -> dict[str, Any]:
        """The separation as JSON, with its description and both kinds' intervals."""
        return {"reached": self.reached.value, "k": self.k, "plays": self.plays, "text": self.describe(),
                "frontier": self.frontier.to_json() if self.frontier else None,
                "easy": self.easy.to_json() if self.easy else None}


def _separated_at(frontier: Sequence[PairedScores], easy: Sequence[PairedScores], k: int,
                  confidence: float) -> bool:
    return separates(pooled(frontier, k).estimate(confidence), pooled(easy, k).estimate(confidence))


def separation(frontier: Sequence[PairedScores], easy: Sequence[PairedScores],
               confidence: float = CONFIDENCE) -> Separation:
    """The smallest K that separates the kinds: measured within the plays made, else projected.

    Args:
        frontier: the frontier environments' plays.
        easy: the easy environments' plays.
        confidence: of both intervals.

    One frontier environment lifted on all 4 plays, one easy one solved in both arms on all 4:
    at K = 4 the frontier interval (m = 6, centre 4/6, sd sqrt((5/6 - 4/9) / 6): low 0.168) still
    overlaps the easy one (m = 6, sd sqrt((1/6) / 6): high 0.327); at K = 6, repeating the plays,
    low 0.750 - 1.96 * 0.198 = 0.363 > high 1.96 * 0.125 = 0.245.

    >>> lifted, flat = PairedScores((1.0,) * 4, (0.0,) * 4), PairedScores((1.0,) * 4, (1.0,) * 4)
    >>> separation([lifted], [flat]).describe()
    'not separated within 4 plays; projected at K = 6 (further plays repeating the observed ones)'
    >>> separation([lifted, lifted], [flat, flat]).describe()
    'separated at K = 3 paired plays per environment (measured)'
    >>> separation([flat], [lifted]).reached, separation([], [flat]).reached
    (<Reached.NEVER: 'never'>, <Reached.UNKNOWN: 'unknown'>)
    """
    if not frontier or not easy:
        return Separation(Reached.UNKNOWN, None, max((s.plays for s in (*frontier, *easy)), default=0))
    plays = min(s.plays for s in (*frontier, *easy))
    whole_f, whole_e = pooled(frontier).estimate(confidence), pooled(easy).estimate(confidence)
    measured = next((k for k in range(1, plays + 1) if _separated_at(frontier, easy, k, confidence)), None)
    if measured is not None:
        return Separation(Reached.MEASURED, measured, plays, whole_f, whole_e)
    if plays == 0 or whole_f.regret <= whole_e.regret:
        return Separation(Reached.NEVER, None, plays, whole_f, whole_e)
    projected = next((k for k in range(plays + 1, MAX_PROJECTED_PLAYS + 1)
                      if _separated_at(frontier, easy, k, confidence)), None)
    if projected is None:
        return Separation(Reached.BEYOND, None, plays, whole_f, whole_e)
    return Separation(Reached.PROJECTED, projected, plays, whole_f, whole_e)
