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

__all__ = ["ALL_GROUP", "agent_rewards", "centred_advantages", "designer_reward", "group_advantages",
           "mean", "paired_regret", "solve_rate"]
