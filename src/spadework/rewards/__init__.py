"""Pure functions: scores, hint-based regret, and advantages per role."""

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
from spadework.rewards.interval import (
    CONFIDENCE,
    DesignerReward,
    RegretEstimate,
    designer_regret,
    regret_estimate,
    z_of,
)

__all__ = ["ALL_GROUP", "CONFIDENCE", "DesignerReward", "RegretEstimate", "agent_rewards",
           "centred_advantages", "designer_regret", "designer_reward", "group_advantages", "mean",
           "paired_regret", "regret_estimate", "solve_rate", "z_of"]
