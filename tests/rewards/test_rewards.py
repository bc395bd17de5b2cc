"""Rewards and advantages, against values computed by hand."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from spadework.rewards import (
    ALL_GROUP,
    DesignerReward,
    RegretEstimate,
    agent_rewards,
    centred_advantages,
    designer_reward,
    designer_score,
    group_advantages,
    mean,
    paired_regret,
    regret_estimate,
    solve_rate,
)
from spadework.rollout import Arm


def designer_regret(estimate: RegretEstimate, mode: DesignerReward = DesignerReward.REGRET) -> float:
    """The regret figure a design earns under ``mode``, its plays aside (``DesignerScore.reward``)."""
    return designer_score(estimate, [[]]).reward(mode)


def test_paired_regret_is_the_clipped_mean_gap():
    # gaps 0.5, 0.0, 1.0, -0.5 -> mean 0.25
    assert paired_regret([1.0, 0.5, 1.0, 0.0], [0.5, 0.5, 0.0, 0.5]) == 0.25
    assert paired_regret([0.0, 0.5], [1.0, 1.0]) == 0.0
    assert paired_regret([1.0, 1.0], [1.0, 1.0]) == 0.0
    assert paired_regret([], []) == 0.0


def test_paired_regret_needs_paired_seeds():
    with pytest.raises(ValueError, match="2 hinted and 3 unhinted"):
        paired_regret([1.0, 1.0], [0.0, 0.0, 0.0])


def test_designer_reward():
    assert designer_reward(True, 0.4) == 0.4
    assert designer_reward(True, 0.4, invalid_penalty=1.0) == 0.4
    assert designer_reward(False, 0.4, invalid_penalty=1.0) == -1.0
    assert designer_reward(False, 0.4) == 0.0
    with pytest.raises(ValueError, match="invalid_penalty must be >= 0"):
        designer_reward(False, 0.0, invalid_penalty=-1.0)


def test_agent_rewards_are_the_unhinted_scores_in_order():
    episodes = [SimpleNamespace(arm=Arm.NOHINT, score=0.25), SimpleNamespace(arm=Arm.HINT, score=1.0),
                SimpleNamespace(arm=Arm.NOHINT, score=1.0)]
    assert agent_rewards(episodes) == [0.25, 1.0]
    assert agent_rewards([]) == []


def test_group_advantages_are_z_scores():
    # mean 0.25, population std sqrt(3)/4 for [1, 0, 0, 0]
    advantages, flat = group_advantages([1.0, 0.0, 0.0, 0.0])
    assert not flat
    third = -1 / math.sqrt(3)
    assert advantages == pytest.approx([math.sqrt(3), third, third, third])
    assert sum(advantages) == pytest.approx(0.0)


def test_a_zero_variance_group_gets_zero_advantages():
    assert group_advantages([1.0, 1.0, 1.0]) == ([0.0, 0.0, 0.0], True)
    assert group_advantages([0.3]) == ([0.0], True)
    assert group_advantages([]) == ([], True)
    assert group_advantages([0.5, 0.5 + 1e-9]) == ([0.0, 0.0], True)


def test_centred_advantages_across_all_designs():
    # mean 0.5, population std 0.5
    assert centred_advantages([0.0, 1.0, 1.0, 0.0]) == ([-1.0, 1.0, 1.0, -1.0], [])
    # mean 0.5, population std sqrt(1/6) (squared deviations 0.25 four times, over six)
    advantages, flat = centred_advantages([0.0, 1.0, 0.5, 0.5, 1.0, 0.0])
    unit = 0.5 * math.sqrt(6)
    assert advantages == pytest.approx([-unit, unit, 0.0, 0.0, unit, -unit]) and flat == []
    assert centred_advantages([0.2, 0.2]) == (pytest.approx([0.0, 0.0]), [ALL_GROUP])


def test_centred_advantages_within_groups():
    rewards = [0.0, 0.25, 1.0, 0.75, 0.4]
    groups = ["maths", "games", "maths", "games", "law"]
    # maths: mean 0.5, std 0.5 -> -1, 1; games: mean 0.5, std 0.25 -> -1, 1; law alone: 0, flat.
    advantages, flat = centred_advantages(rewards, groups)
    assert advantages == pytest.approx([-1.0, -1.0, 1.0, 1.0, 0.0])
    assert flat == ["law"]


def test_small_deviations_are_centred_but_not_scaled():
    advantages, flat = centred_advantages([0.0, 1e-7], eps=1e-6)
    assert advantages == pytest.approx([-5e-8, 5e-8])
    assert flat == [ALL_GROUP]


def test_centred_advantages_need_one_group_per_reward():
    with pytest.raises(ValueError, match="2 names for 3 rewards"):
        centred_advantages([0.0, 1.0, 0.5], ["a", "b"])


def test_solve_rate_and_mean():
    assert solve_rate([1.0, 0.999, 1.0, 0.0]) == 0.5
    assert solve_rate([]) == 0.0
    assert mean([0.5, 1.0, 0.0, 0.5]) == 0.5
    assert mean([]) == 0.0


def test_designer_regret_picks_the_point_or_the_lower_bound():
    estimate = RegretEstimate(plays=4, mean_diff=0.5, low=0.125, high=0.875)
    assert designer_regret(estimate) == 0.5
    assert designer_regret(estimate, DesignerReward.REGRET) == 0.5
    assert designer_regret(estimate, DesignerReward.REGRET_LCB) == 0.125
    below = RegretEstimate(plays=2, mean_diff=-0.5, low=-0.9, high=0.2)
    assert designer_regret(below) == 0.0 and designer_regret(below, DesignerReward.REGRET_LCB) == 0.0
    assert [mode.value for mode in DesignerReward] == ["regret", "regret_lcb", "plateau",
                                                       "learning_potential", "blend"]


def test_the_lcb_pays_little_for_one_lucky_play_and_most_for_a_steady_lift():
    # one lucky hinted play of two: m=4, S1=1, S2=2; centre 1/4, variance (2/4 - 1/16)/4 = 7/64
    lucky = regret_estimate([1.0, 0.0], [0.0, 0.0])
    assert lucky.low == pytest.approx(0.25 - 1.959964 * math.sqrt(7 / 64), abs=1e-6)
    assert designer_reward(True, designer_regret(lucky, DesignerReward.REGRET)) == 0.5
    assert designer_reward(True, designer_regret(lucky, DesignerReward.REGRET_LCB)) == 0.0
    # four lifted plays of four: m=6, S1=4, S2=5; centre 2/3, variance (5/6 - 4/9)/6 = 7/108
    steady = regret_estimate([1.0] * 4, [0.0] * 4)
    lcb = 2 / 3 - 1.959964 * math.sqrt(7 / 108)
    assert lcb == pytest.approx(0.16768, abs=1e-5)
    assert designer_reward(True, designer_regret(steady, DesignerReward.REGRET_LCB)) == pytest.approx(lcb)
    assert designer_reward(True, designer_regret(steady, DesignerReward.REGRET)) == 1.0
    # an invalid design pays its penalty whatever the mode
    assert designer_reward(False, designer_regret(steady, DesignerReward.REGRET_LCB), 0.5) == -0.5


def test_two_plays_never_earn_a_positive_lcb_at_95_percent():
    # the best two plays can do, both lifted fully: centre 1/2, variance (3/4 - 1/4)/4 = 1/8
    best = regret_estimate([1.0, 1.0], [0.0, 0.0])
    assert best.low == pytest.approx(0.5 - 1.959964 * math.sqrt(1 / 8), abs=1e-6) and best.low < 0
    assert designer_regret(best, DesignerReward.REGRET_LCB) == 0.0
    # at 80% the same two plays clear zero: 0.5 - 1.281552 * sqrt(1/8)
    assert designer_regret(regret_estimate([1.0, 1.0], [0.0, 0.0], confidence=0.8),
                           DesignerReward.REGRET_LCB) == pytest.approx(0.046903, abs=1e-6)
