"""Where a run's metrics go besides ``metrics.jsonl`` (which stays the source of truth): the
``[tracking]`` section. Light: reading a configuration loads no tracker."""

from __future__ import annotations

from pydantic import Field

from spadework.kinds import WandbMode as WandbMode
from spadework.settings_base import Section


class TrackingSettings(Section):
    """What a run's trackers need (``[tracking]``; see :func:`spadework.tracking.open_trackers`)."""

    tensorboard: bool = Field(False, description="write TensorBoard event files into RUN_DIR/tensorboard")
    wandb: WandbMode = Field(WandbMode.OFF, description="Weights & Biases: off, offline (into the run "
                             "directory; `wandb sync` uploads it later) or online")
    wandb_project: str = Field("spadework", description="the W&B project")
    wandb_entity: str | None = Field(None, description="the W&B team or user (unset: the user's default)")
