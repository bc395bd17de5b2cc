"""The designer's reward variants, knob for knob, against values computed by hand: plateau, floored
regret, micro learning potential, the frontier penalty, the blend and its negative mask, unpaired
arms; and a calibration report ranked by every variant."""

from __future__ import annotations

import math

import pytest

from spadework.calibrate.records import WINDOWLESS, Calibration
from spadework.rewards import BlendSettings, DesignerReward, arms_estimate, designer_score, regret_estimate
from spadework.rewards.designer import floored_regret, frontier_penalty, micro_lp, plateau

TOOL_USE = BlendSettings()  # 0.6 plateau of [0.4, 0.6] with ramp 0.25 + 0.4 clip(regret / 0.15)


@pytest.mark.parametrize(("win_rate", "expected"), [
    (0.4, 1.0), (0.55, 1.0), (0.6, 1.0),       # inside the band
    (0.65, 0.8), (0.35, 0.8),                   # 0.05 outside: 1 - 0.05 / 0.25
    (0.85, 0.0), (0.15, 0.0), (0.9, 0.0),       # a whole ramp outside and beyond
    (0.7, 0.6),
])
def test_plateau_is_one_in_band_and_falls_linearly_over_the_ramp(win_rate, expected):
    assert plateau(win_rate, 0.4, 0.6, 0.25) == pytest.approx(expected)


def test_a_narrow_band_and_a_short_ramp():
    assert plateau(0.5, 0.5, 0.5, 0.1) == 1.0
    assert plateau(0.55, 0.5, 0.5, 0.1) == pytest.approx(0.5)


def test_floored_regret_pays_in_full_from_the_scale():
    assert [floored_regret(r) for r in (0.0, 0.03, 0.15, 0.6)] == pytest.approx([0.0, 0.2, 1.0, 1.0])


def test_micro_lp_is_the_weighted_line_read_end_minus_start():
    # steps 0..3 with 4, 4, 16, 16 plays (weights 2, 2, 4, 4) and win rates 0, .25, .5, .5:
    # weighted means x = (0*2 + 1*2 + 2*4 + 3*4) / 12 = 22/12, y = (0 + .5 + 2 + 2) / 12 = .375
    x_mean, y_mean = 22 / 12, 0.375
    points = [(0, 0.0, 2), (1, 0.25, 2), (2, 0.5, 4), (3, 0.5, 4)]
    slope = (sum(w * (x - x_mean) * (y - y_mean) for x, y, w in points)
             / sum(w * (x - x_mean) ** 2 for x, _, w in points))
    assert micro_lp([(4, 0.0), (4, 0.25), (16, 0.5), (16, 0.5)]) == pytest.approx(3 * slope)
    assert micro_lp([(4, 0.5), (0, 0.0), (4, 0.5)]) == 0.0  # a step with no plays counts for nothing
    assert micro_lp([]) == 0.0


def test_frontier_penalty_is_the_scaled_square_distance_from_the_centre():
    assert frontier_penalty(0.5) == 0.0
    assert frontier_penalty(0.1) == pytest.approx(0.16 / 0.08)


def test_the_reference_blend_on_hand_computed_designs():
    # in band (2 of 4 solved), regret 0.25 >= 0.15: 0.6 * 1 + 0.4 * 1
    s = designer_score(regret_estimate([1, 1, 1, 0], [1, 1, 0, 0]), [[1, 1, 0, 0]], TOOL_USE)
    assert (s.win_rate, s.plateau, s.blend, s.masked) == (0.5, 1.0, 1.0, False)
    # too easy (4 of 4), no regret: nothing
    s = designer_score(regret_estimate([1] * 4, [1] * 4), [[1] * 4], TOOL_USE)
    assert (s.plateau, s.regret, s.blend) == (0.0, 0.0, 0.0)
    # 3 of 4 (0.15 above the band: plateau 0.4), regret 0.05 (1 in 8 lifted... here 0.25 / 5): 0.24 + 0.4/3
    s = designer_score(regret_estimate([1, 1, 1, 1], [1, 1, 1, 0]), [[1, 1, 1, 0]], TOOL_USE)
    assert s.plateau == pytest.approx(0.4) and s.regret == 0.25 and s.blend == pytest.approx(0.64)


def test_a_negative_blend_is_masked_only_when_the_blend_is_paid():
    penalised = BlendSettings(frontier_weight=0.5)
    s = designer_score(regret_estimate([0.0] * 4, [0.0] * 4), [[0.0] * 4], penalised)
    assert s.frontier == pytest.approx(3.125) and s.blend == pytest.approx(-1.5625) and s.masked
    assert s.left_out(DesignerReward.BLEND) and not s.left_out(DesignerReward.REGRET)
    kept = designer_score(regret_estimate([0.0] * 4, [0.0] * 4), [[0.0] * 4],
                          BlendSettings(frontier_weight=0.5, mask_negative=False))
    assert kept.blend < 0 and not kept.masked


def test_learning_potential_reads_the_whole_window():
    steps = [[0.0] * 4, [1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]]  # 0, .25, .5: slope .25 per step
    s = designer_score(regret_estimate([0.0] * 4, [0.0] * 4), steps, BlendSettings(lp_weight=0.5))
    assert s.micro_lp == pytest.approx(0.5) and s.win_rate == pytest.approx(0.25)
    assert s.reward(DesignerReward.LEARNING_POTENTIAL) == pytest.approx(0.5)
    # plateau(0.25) = 0.4, lp 0.5 / 0.1 * 0.5 = 2.5: blend 0.24 + 2.5
    assert s.blend == pytest.approx(0.6 * 0.4 + 2.5)


def test_unpaired_arms_pay_the_difference_of_the_means():
    e = arms_estimate([1.0] * 8 + [0.0] * 8, [0.0, 0.0, 0.0, 1.0])  # 0.5 - 0.25
    assert e.mean_diff == pytest.approx(0.25) and e.plays == 4
    # adjusted: hint (8.5/17, var (8.5/17 - .25)/17), no-hint (1.5/5, var (1.5/5 - .09)/5)
    var = (0.5 - 0.25) / 17 + (0.3 - 0.09) / 5
    assert e.low == pytest.approx(0.5 - 0.3 - 1.959964 * math.sqrt(var), abs=1e-5)


def test_a_calibration_report_is_ranked_by_every_windowless_reward():
    def env(name, kind, hint, nohint):
        return {"name": name, "path": f"/x/{name}", "kind": kind, "expected": None, "screening": "valid",
                "valid": True, "reason": "valid", "failed_check": None,
                "scores": {"hint": hint, "nohint": nohint}, "env_errors": 0}
    report = {"seeds": [0, 1, 2, 3], "isolation": "none", "environments": [
        env("easy_a.py", "easy", [1] * 4, [1] * 4), env("easy_b.py", "easy", [1] * 4, [1, 1, 1, 0]),
        env("frontier_a.py", "frontier", [1, 1, 1, 0], [1, 1, 0, 0]),
        env("frontier_b.py", "frontier", [1, 1, 0, 0], [1, 0, 0, 0]),
        env("impossible_a.py", "impossible", [0] * 4, [0] * 4)]}
    ranks = Calibration.from_report(report).correlations()
    assert set(ranks) == set(WINDOWLESS)
    # plateau: frontier a (win .5) 1, frontier b (win .25) 0.4, easy b (win .75) 0.4, the others 0;
    # ranks expected (2, 2, 4.5, 4.5, 2), plateau (1.5, 3.5, 5, 3.5, 1.5): rho = 6.25 / sqrt(7.5 * 9)
    assert ranks[DesignerReward.PLATEAU].rho == pytest.approx(6.25 / math.sqrt(67.5))
    assert ranks[DesignerReward.REGRET].n == 5
