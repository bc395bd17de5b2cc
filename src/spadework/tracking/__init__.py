"""Experiment tracking: a run's per-iteration metrics in TensorBoard and W&B as well.

``metrics.jsonl`` stays the source of truth; trackers are views of it. Each numeric metric is
written under exactly its name (``reward/designer_mean``), with the iteration as step.
TensorBoard and W&B are optional (``pip install 'spadework[tracking]'``); this package imports
without them and the trackers import their library when opened.

How a run uses them:

1. ``trackers = open_trackers(settings, run_dir, config, name)`` once at start (main process only).
2. On resume, ``replay(trackers, committed_rows)`` with the rows of ``metrics.jsonl`` (the
   committed iterations). Each tracker remembers the last step it wrote
   (``run_dir/tracking/<tracker>.json``) and skips what it has, so only iterations it missed are
   written: a replay never duplicates a step.
3. After each iteration is committed (never before), ``trackers.log(iteration, metrics)``.
4. ``trackers.close()`` at the end, also on failure (or use ``with open_trackers(...) as t:``).

The names below are loaded on first use, so importing ``tracking.settings`` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spadework.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "spadework.tracking.base": ("Tracker", "TrackerState", "scalars"),
    "spadework.tracking.recording": ("RecordingTracker",),
    "spadework.tracking.settings": ("TrackingSettings", "WandbMode"),
    "spadework.tracking.tensorboard_tracker": ("TensorBoardTracker",),
    "spadework.tracking.trackers": ("Trackers", "caught_up", "open_trackers", "replay"),
    "spadework.tracking.wandb_tracker": ("WandbTracker",),
})

if TYPE_CHECKING:
    from spadework.tracking.base import Tracker, TrackerState, scalars
    from spadework.tracking.recording import RecordingTracker
    from spadework.tracking.settings import TrackingSettings, WandbMode
    from spadework.tracking.tensorboard_tracker import TensorBoardTracker
    from spadework.tracking.trackers import Trackers, caught_up, open_trackers, replay
    from spadework.tracking.wandb_tracker import WandbTracker

__all__ = [
    "RecordingTracker",
    "TensorBoardTracker",
    "Tracker",
    "TrackerState",
    "Trackers",
    "TrackingSettings",
    "WandbMode",
    "WandbTracker",
    "caught_up",
    "open_trackers",
    "replay",
    "scalars",
]
