"""Pure statistics of an evaluation: an interval for an accuracy, a paired comparison of two policies.

Accuracy is the share of items solved. Its 95% interval is Wilson's score interval, which
stays inside [0, 1] and keeps a sensible width at 0 or n solved, where the plain normal
(Wald) interval collapses to a point.

Two policies played on the same (task, seed) items are compared item by item. The
difference of accuracies is the mean of the per-item differences ``d = b - a`` (each -1, 0
or 1); its 95% interval is the normal approximation on those differences with the
Agresti-Min adjustment: half an item is added to each of the four cells of the paired
2x2 table (both solved, only b, only a, neither) before the Wald interval is computed.
Without it the interval has zero width whenever the two policies never disagree (or b
always wins), which small evaluations often are; with it, it does not. The interval is
clipped to [-1, 1]. ``diff`` itself is the plain difference of accuracies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spadework.rewards.interval import Z95, adjusted_interval, wilson_interval

__all__ = ["Z95", "PairedStats", "paired_comparison", "paired_interval", "wilson_interval"]

@dataclass(frozen=True)
class PairedStats:
    """Policy b against policy a on the same items.

    Attributes:
        n: items compared.
        diff: b's accuracy minus a's.
        ci_low: lower end of the 95% interval of ``diff`` (see the module).
        ci_high: upper end.
        wins: items b solved and a did not.
        losses: items a solved and b did not.
        ties: items both solved or both did not.
    """

    n: int
    diff: float
    ci_low: float
    ci_high: float
    wins: int
    losses: int
    ties: int


def paired_interval(wins: int, losses: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The adjusted Wald interval of a paired difference of accuracies (see the module).

    With a half item added to each cell: ``w = wins + 0.5``, ``l = losses + 0.5``,
    ``m = n + 2``; centre ``(w - l) / m``, variance ``((w + l) - (w - l)**2 / m) / m**2`` — the
    regret interval's ``adjusted_interval`` for differences of -1, 0 and 1.

    >>> [round(x, 4) for x in paired_interval(3, 1, 10)]  # centre 2/12, sd sqrt(14/3)/12
    [-0.1862, 0.5195]
    >>> [round(x, 4) for x in paired_interval(0, 0, 10)]  # never disagree: centre 0, sd 1/12
    [-0.1633, 0.1633]
    >>> [round(x, 4) for x in paired_interval(10, 0, 10)]  # centre 10/12, sd sqrt(8/3)/12
    [0.5666, 1.0]
    """
    return adjusted_interval(wins - losses, wins + losses, n, z)


def paired_comparison(a: Sequence[bool], b: Sequence[bool]) -> PairedStats:
    """Compare two policies' solved flags on the same items, in the same order.

    Args:
        a: whether policy a solved each item.
        b: whether policy b solved each item.

    Raises:
        ValueError: the sequences differ in length.

    >>> s = paired_comparison([True, False, False, True, False], [True, True, True, False, False])
    >>> s.n, s.diff, s.wins, s.losses, s.ties
    (5, 0.2, 2, 1, 2)
    >>> paired_comparison([], [])
    PairedStats(n=0, diff=0.0, ci_low=-1.0, ci_high=1.0, wins=0, losses=0, ties=0)
    """
    if len(a) != len(b):
        raise ValueError(f"paired items must match: {len(a)} results of a, {len(b)} of b")
    n = len(a)
    wins = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    losses = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    if n == 0:
        return PairedStats(0, 0.0, -1.0, 1.0, 0, 0, 0)
    low, high = paired_interval(wins, losses, n)
    return PairedStats(n, (wins - losses) / n, low, high, wins, losses, n - wins - losses)
