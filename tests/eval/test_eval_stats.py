"""The statistics of an evaluation, against values computed by hand."""

from __future__ import annotations

import math

import pytest

from spadework.eval.stats import Z95, paired_comparison, paired_interval, wilson_interval


def test_wilson_interval_matches_the_formula_worked_by_hand():
    # 2 of 8: p = 0.25, z^2 = 3.8415; centre = (0.25 + 3.8415/16) / (1 + 3.8415/8)
    z2 = Z95 * Z95
    centre = (0.25 + z2 / 16) / (1 + z2 / 8)
    half = Z95 * math.sqrt(0.25 * 0.75 / 8 + z2 / 256) / (1 + z2 / 8)
    low, high = wilson_interval(2, 8)
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert (round(low, 4), round(high, 4)) == (0.0715, 0.5907)


def test_wilson_interval_is_symmetric_and_stays_in_zero_one():
    assert wilson_interval(3, 10) == pytest.approx(tuple(1 - x for x in reversed(wilson_interval(7, 10))))
    assert wilson_interval(0, 1)[0] == 0.0 and wilson_interval(1, 1)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    def width(solved, n):
        low, high = wilson_interval(solved, n)
        return high - low

    assert width(50, 100) < width(5, 10)


def test_wilson_interval_rejects_impossible_counts():
    with pytest.raises(ValueError, match="between 0 and n"):
        wilson_interval(3, 2)


def test_paired_comparison_counts_wins_losses_ties_and_the_difference():
    a = [True, True, False, False, True, False, False, False]
    b = [True, False, True, True, True, False, True, False]
    stats = paired_comparison(a, b)
    assert (stats.n, stats.wins, stats.losses, stats.ties) == (8, 3, 1, 4)
    assert stats.diff == pytest.approx(5 / 8 - 3 / 8)
    # half an item in each cell: w = 3.5, l = 1.5, m = 10; centre 0.2, variance (5 - 0.4) / 100
    half = Z95 * math.sqrt(4.6 / 100)
    assert (stats.ci_low, stats.ci_high) == pytest.approx((0.2 - half, 0.2 + half))


def test_paired_interval_keeps_width_when_the_policies_never_disagree_and_is_clipped():
    low, high = paired_interval(0, 0, 4)  # w = l = 0.5, m = 6: variance 1 / 36
    assert (low, high) == pytest.approx((-Z95 / 6, Z95 / 6))
    assert paired_interval(4, 0, 4)[1] == 1.0
    assert paired_interval(0, 4, 4)[0] == -1.0


def test_paired_comparison_rejects_unmatched_items():
    with pytest.raises(ValueError, match="paired items must match"):
        paired_comparison([True], [True, False])
