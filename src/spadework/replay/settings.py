"""How an iteration replays archived environments: the ``[replay]`` section. Light: reading a
configuration loads no replay."""

from __future__ import annotations

from pydantic import Field

from spadework.kinds import ReplayScore
from spadework.settings_base import Section


class ReplaySettings(Section):
    """Replaying archived environments from the frontier (``[replay]``): ``staleness`` is
    prioritised level replay's ``ρ``, ``temperature`` its ``β``."""

    count: int = Field(0, ge=0, description="archived environments replayed per iteration beside the new "
                       "designs, each on fresh paired seeds in both arms (0: no replay)")
    score: ReplayScore = Field(ReplayScore.REGRET, description="what ranks them: regret (the current, pooled "
                               "regret) or advantage (the mean positive part of the agent's no-hint score "
                               "minus its mean: p(1-p) for solve rate p)")
    staleness: float = Field(0.3, ge=0.0, le=1.0, description="weight of the staleness priority (iterations "
                             "since last played) against the score priority")
    temperature: float = Field(0.3, gt=0.0, description="rank-based score priority (1/rank)^(1/temperature); "
                               "smaller: the best-ranked are replayed more")
