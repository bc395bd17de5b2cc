"""Pure functions: scores, hint-based regret, the designer's reward variants, advantages per role."""

from spadework.kinds import DesignerReward
from spadework.rewards.core import (
    ALL_GROUP,
    agent_rewards,
    centred_advantages,
    designer_reward,
    group_advantages,
    mean,
    paired_regret,
    solve_rate,
)
from spadework.rewards.designer import (
    REFERENCE_BLEND,
    BlendSettings,
    DesignerScore,
    above_chance,
    designer_score,
    in_band,
)
from spadework.rewards.interval import (
    CONFIDENCE,
    RegretEstimate,
    arms_estimate,
    regret_estimate,
    z_of,
)

__all__ = ["ALL_GROUP", "CONFIDENCE", "REFERENCE_BLEND", "BlendSettings", "DesignerReward", "DesignerScore",
           "RegretEstimate", "above_chance", "agent_rewards", "arms_estimate", "centred_advantages",
           "designer_reward",
           "designer_score", "group_advantages", "in_band", "mean", "paired_regret", "regret_estimate",
           "solve_rate", "z_of"]
