"""Prioritised level replay: archived environments at the agent's frontier, played again.

The names below are loaded on first use, so importing ``replay.settings`` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spadework.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "spadework.replay.levels": ("ReplayCandidates", "ReplayLevel", "fresh_seeds", "replay_candidates",
                                "replay_levels"),
    "spadework.replay.plan": ("ReplayPlan", "ReplayResult", "plan_replay"),
    "spadework.replay.priority": ("ReplayScore", "draw_distinct", "positive_advantage", "replay_priorities"),
    "spadework.replay.settings": ("ReplaySettings",),
})

if TYPE_CHECKING:
    from spadework.replay.levels import (
        ReplayCandidates,
        ReplayLevel,
        fresh_seeds,
        replay_candidates,
        replay_levels,
    )
    from spadework.replay.plan import ReplayPlan, ReplayResult, plan_replay
    from spadework.replay.priority import ReplayScore, draw_distinct, positive_advantage, replay_priorities
    from spadework.replay.settings import ReplaySettings

__all__ = ["ReplayCandidates", "ReplayLevel", "ReplayPlan", "ReplayResult", "ReplayScore", "ReplaySettings",
           "draw_distinct", "fresh_seeds", "plan_replay", "positive_advantage", "replay_candidates",
           "replay_levels", "replay_priorities"]
