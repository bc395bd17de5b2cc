"""Where a run's metrics go besides ``metrics.jsonl`` (which stays the source of truth)."""

from __future__ import annotations

from dataclasses import dataclass

from spadework.kinds import WandbMode as WandbMode


@dataclass(frozen=True)
class TrackingSettings:
    """What a run's trackers need (see :func:`spadework.tracking.open_trackers`).

    Attributes:
        tensorboard: write TensorBoard event files into ``run_dir/tensorboard``.
        wandb: off, offline or online (W&B writes into ``run_dir/wandb``).
        project: the W&B project.
        entity: the W&B entity (team or user); None: the user's default.
    """

    tensorboard: bool = False
    wandb: WandbMode = WandbMode.OFF
    project: str = "spadework"
    entity: str | None = None
