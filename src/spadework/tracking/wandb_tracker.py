"""Weights & Biases, online or offline, one W&B run per spadework run (resumes included).

The W&B run id is made at the first session and kept in ``run_dir/tracking/wandb.json``; every
later session of the run opens W&B with that id and ``resume="allow"``, so online the curves
continue in the same W&B run. Offline, each session leaves its own
``run_dir/wandb/offline-run-<time>-<id>`` folder with that id; ``wandb sync`` them in order
(``wandb sync --id <id> <run_dir>/wandb/offline-run-*``) to upload one run. Sync offline sessions
before resuming the run online.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from spadework.errors import UsageError
from spadework.tracking.base import (
    TrackerState,
    already_logged,
    load_state,
    missing_library,
    save_state,
    scalars,
    state_path,
)
from spadework.tracking.settings import TrackingSettings, WandbMode

if TYPE_CHECKING:
    from wandb import Run

RUN_ID_ALPHABET = string.ascii_lowercase + string.digits
RUN_ID_LENGTH = 8

WANDB_MODES: dict[WandbMode, Literal["offline", "online"]] = {
    WandbMode.OFFLINE: "offline", WandbMode.ONLINE: "online"}
"""The ``mode`` ``wandb.init`` is given for each W&B setting that starts a run."""


def new_run_id() -> str:
    """A fresh W&B run id: 8 random lowercase letters and digits (what W&B itself makes).

    >>> run_id = new_run_id()
    >>> len(run_id), set(run_id) <= set(RUN_ID_ALPHABET)
    (8, True)
    """
    return "".join(secrets.choice(RUN_ID_ALPHABET) for _ in range(RUN_ID_LENGTH))


def wandb_settings(wandb: Any) -> Any:
    """Quiet, fast settings for ``wandb.init``: spadework logs its own ``perf/...`` metrics and
    keeps its console, so W&B's console capture, system metrics and git/code capture are off."""
    return wandb.Settings(console="off", x_disable_stats=True, disable_git=True, disable_code=True,
                          save_code=False, quiet=True)


class WandbTracker:
    """Logs each metric to W&B under exactly its name, the iteration as W&B's ``step``.

    Args:
        run_dir: the run directory; W&B writes into ``run_dir/wandb``, the run id and last step
            are kept in ``run_dir/tracking/wandb.json``.
        settings: the tracking settings; ``settings.wandb`` must be offline or online.
        config: the run's resolved configuration, shown as the W&B run's config.
        name: the W&B run's display name.

    Raises:
        UsageError: wandb is not installed, W&B is off in ``settings``, or W&B could not start the
            run (online without ``wandb login``, for instance).
    """

    STATE = "wandb"  # its state file's name (``state_path``)

    def __init__(self, run_dir: Path, settings: TrackingSettings, config: Mapping[str, Any],
                 name: str) -> None:
        if settings.wandb is WandbMode.OFF:
            raise UsageError("WandbTracker needs W&B offline or online, and the tracking settings "
                             "say off: set wandb to offline or online, or leave W&B out")
        try:
            import wandb
        except ImportError as error:
            raise missing_library("W&B", "wandb") from error
        self._state_path = state_path(run_dir, self.STATE)
        state = load_state(self._state_path)
        if state.run_id is None:  # kept before W&B starts, so even a failed start keeps its id
            state = replace(state, run_id=new_run_id())
            save_state(self._state_path, state)
        self._state: TrackerState = state
        self._run: Run | None
        try:
            self._run = wandb.init(
                project=settings.wandb_project, entity=settings.wandb_entity, dir=str(run_dir),
                mode=WANDB_MODES[settings.wandb], config=dict(config), name=name, id=state.run_id,
                resume="allow", reinit="create_new", settings=wandb_settings(wandb),
            )
        except wandb.errors.Error as error:
            raise UsageError(
                f"W&B could not start run {state.run_id} in project {settings.wandb_project!r} "
                f"({settings.wandb.value}): {str(error).rstrip('.')}. To go on without the W&B "
                "server, set wandb to offline in the tracking settings (upload later with "
                "`wandb sync`)") from error

    @property
    def run_id(self) -> str:
        """The W&B run id, the same in every session of this run."""
        assert self._state.run_id is not None
        return self._state.run_id

    @property
    def last_step(self) -> int | None:
        """The last step logged; None before any."""
        return self._state.last_step

    def log(self, step: int, metrics: Mapping[str, Any]) -> None:
        """Log the scalar metrics of ``step``; a step at or before :attr:`last_step` is skipped."""
        if self._run is None:
            raise ValueError("WandbTracker.log after close(): open a new tracker to log again")
        if already_logged(step, self._state.last_step):
            return
        values = scalars(metrics)
        if values:
            self._run.log(values, step=step)
        self._state = replace(self._state, last_step=step)
        save_state(self._state_path, self._state)

    def close(self) -> None:
        """Finish the W&B run (online: waits for the upload)."""
        if self._run is not None:
            self._run.finish()
            self._run = None
