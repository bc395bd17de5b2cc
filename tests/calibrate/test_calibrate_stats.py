"""The calibration's statistics and kinds, against hand-computed values."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from spadework.calibrate import Kind, PairedScores, Reached, Screening, separation
from spadework.calibrate.stats import MAX_PROJECTED_PLAYS, pooled, rank_correlation, separates
from spadework.rewards import regret_estimate

LIFTED = PairedScores((1.0,) * 4, (0.0,) * 4)
"""Solved only with the hint, on all 4 seeds: a frontier environment as it should be."""
FLAT = PairedScores((1.0,) * 4, (1.0,) * 4)
"""Solved in both arms: an easy environment as it should be."""


def test_paired_scores_diffs_rates_and_estimate():
    scores = PairedScores((1.0, 1.0, 0.5), (0.0, 1.0, 0.5))
    assert scores.plays == 3 and scores.diffs == (1.0, 0.0, 0.0)
    assert scores.solve_rate(hinted=True) == pytest.approx(2 / 3)
    assert scores.solve_rate(hinted=False) == pytest.approx(1 / 3)
    # m = 5, S1 = 1, S2 = 2: centre 0.2, variance (0.4 - 0.04) / 5 = 0.072
    estimate = scores.estimate()
    assert estimate.regret == pytest.approx(1 / 3)
    assert estimate.low == pytest.approx(0.2 - 1.959964 * math.sqrt(0.072), abs=1e-5)


def test_paired_scores_refuse_unequal_arms():
    with pytest.raises(ValueError, match="one score per seed in each arm; got 2 hinted and 1 unhinted"):
        PairedScores((1.0, 0.0), (0.0,))


def test_first_cuts_then_repeats_and_pooled_concatenates():
    scores = PairedScores((1.0, 0.0, 1.0), (0.0, 0.0, 1.0))
    assert scores.first(2) == PairedScores((1.0, 0.0), (0.0, 0.0))
    assert scores.first(4) == PairedScores((1.0, 0.0, 1.0, 1.0), (0.0, 0.0, 1.0, 0.0))
    assert pooled([scores, LIFTED], k=1) == PairedScores((1.0, 1.0), (0.0, 0.0))
    assert pooled([scores, FLAT]).plays == 7


def test_rank_correlation_by_hand():
    # ranks (3.5, 3.5, 1.5, 1.5) and (4, 3, 1, 2): rho = 4 / sqrt(4 * 5)
    found = rank_correlation([1.0, 1.0, 0.0, 0.0], [1.0, 0.75, 0.0, 0.25])
    assert found.rho == pytest.approx(4 / math.sqrt(20)) and found.n == 4
    assert 0.0 < found.p_value < 1.0
    # ranks (3, 1.5, 1.5) and (1, 2, 3): -1.5 / sqrt(1.5 * 2)
    assert rank_correlation([1.0, 0.0, 0.0], [0.0, 0.5, 1.0]).rho == pytest.approx(-1.5 / math.sqrt(3))
    perfect = rank_correlation([1.0, 1.0, 0.0, 0.0, 0.0], [0.75, 0.75, 0.0, 0.0, 0.0])
    assert perfect.rho == pytest.approx(1.0)


def test_rank_correlation_is_undefined_without_spread():
    assert rank_correlation([1.0, 0.0, 0.0], [0.0, 0.0, 0.0]).rho is None
    assert rank_correlation([0.0, 0.0], [1.0, 0.0]).rho is None
    assert rank_correlation([1.0], [1.0]).to_json()["rho"] is None
    meaning = rank_correlation([], []).to_json()["meaning"]
    assert meaning.startswith("+1: regret ranks every frontier environment above")


def test_separates_compares_the_clipped_regret_intervals():
    # 8 lifted plays: low 0.484; 8 flat plays: m = 10, sd sqrt(0.1 / 10) = 0.1, high 0.196
    assert separates(regret_estimate([1.0] * 8, [0.0] * 8), regret_estimate([0.0] * 8, [0.0] * 8))
    # 2 lifted plays: m = 4, centre 0.5, sd sqrt((0.75 - 0.25) / 4): low -0.19, clipped to 0
    assert not separates(regret_estimate([1.0] * 2, [0.0] * 2), regret_estimate([0.0] * 2, [0.0] * 2))


def test_separation_measured_at_the_first_k_that_separates():
    # two environments each: K = 2 pools 4 plays (low 0.168 < high 0.327); K = 3 pools 6 (0.363 > 0.245)
    found = separation([LIFTED, LIFTED], [FLAT, FLAT])
    assert (found.reached, found.k, found.plays) == (Reached.MEASURED, 3, 4)
    assert found.frontier.regret == 1.0 and found.easy.regret == 0.0
    assert found.to_json()["text"] == "separated at K = 3 paired plays per environment (measured)"


def test_separation_projected_beyond_the_plays_made():
    # one environment each: K = 5 gives low 0.278 < high 0.280; K = 6 gives 0.363 > 0.245
    found = separation([LIFTED], [FLAT])
    assert (found.reached, found.k) == (Reached.PROJECTED, 6)
    assert "projected at K = 6" in found.describe()


def test_separation_never_beyond_or_unknown():
    assert separation([FLAT], [LIFTED]).reached is Reached.NEVER
    half = PairedScores((1.0, 0.0), (0.0, 1.0))  # mean difference 0: never above a flat easy one
    assert separation([half], [FLAT]).reached is Reached.NEVER
    slight = PairedScores((1.0,) + (0.0,) * 499, (0.0,) * 500)  # mean 0.002: about 1.96**2 / 0.002 plays
    beyond = separation([slight], [FLAT])
    assert beyond.reached is Reached.BEYOND and str(MAX_PROJECTED_PLAYS) in beyond.describe()
    assert separation([], [FLAT]).reached is Reached.UNKNOWN
    assert separation([LIFTED], []).to_json()["frontier"] is None


def test_kind_from_the_file_name_and_screening_against_it():
    assert [Kind.of_path(Path(n)) for n in ("easy_add.py", "frontier_x.py", "impossible_y.py",
                                            "leaking_z.py", "mine.py", "easyadd.py")] == [
        Kind.EASY, Kind.FRONTIER, Kind.IMPOSSIBLE, Kind.LEAKING, Kind.UNRANKED, Kind.UNRANKED]
    assert [k.expected for k in Kind] == [0.0, 1.0, 0.0, None, None]
    assert Screening.of(Kind.LEAKING, False) is Screening.LEAK_CAUGHT
    assert Screening.of(Kind.LEAKING, True).played and not Screening.of(Kind.EASY, False).played
