"""Prioritised level replay: archived environments at the agent's frontier, played again."""

from spadework.replay.levels import (
    ReplayCandidates,
    ReplayLevel,
    fresh_seeds,
    replay_candidates,
    replay_levels,
)
from spadework.replay.plan import ReplayPlan, ReplayResult, ReplaySettings, plan_replay
from spadework.replay.priority import ReplayScore, draw_distinct, positive_advantage, replay_priorities

__all__ = ["ReplayCandidates", "ReplayLevel", "ReplayPlan", "ReplayResult", "ReplayScore", "ReplaySettings",
           "draw_distinct", "fresh_seeds", "plan_replay", "positive_advantage", "replay_candidates",
           "replay_levels", "replay_priorities"]
