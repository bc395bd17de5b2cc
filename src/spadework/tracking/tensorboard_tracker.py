"""TensorBoard event files in ``run_dir/tensorboard``, written with ``tensorboardX``.

Watch a run with ``tensorboard --logdir <run_dir>/tensorboard`` (or ``--logdir`` on a folder of
runs). Each session of a run that writes a new step writes a new event file (a session that only
reads a run back writes none); a resumed session starts its file with TensorBoard's "restart at
step N" marker (``purge_step``), N the first step it may write, so anything an interrupted session
wrote at N or later is hidden instead of shown twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from spadework.tracking.base import (
    TrackerState,
    already_logged,
    load_state,
    missing_library,
    save_state,
    scalars,
    state_path,
)

TENSORBOARD_DIR = "tensorboard"


class TensorBoardTracker:
    """Writes each metric as a TensorBoard scalar under exactly its name, the iteration as step.

    Args:
        run_dir: the run directory; events go to ``run_dir/tensorboard``, the last step written
            to ``run_dir/tracking/tensorboard.json``.

    Raises:
        UsageError: tensorboardX is not installed.
    """

    STATE = "tensorboard"  # its state file's name (``state_path``)

    def __init__(self, run_dir: Path) -> None:
        try:
            from tensorboardX import SummaryWriter
        except ImportError as error:
            raise missing_library("TensorBoard", "tensorboardX") from error
        self._writer_class = SummaryWriter
        self.log_dir = run_dir / TENSORBOARD_DIR
        self._state_path = state_path(run_dir, self.STATE)
        self._state: TrackerState = load_state(self._state_path)
        self._writer: Any = None  # opened by the first new step, so a readback writes no file
        self._closed = False

    @property
    def last_step(self) -> int | None:
        """The last step written; None before any."""
        return self._state.last_step

    def log(self, step: int, metrics: Mapping[str, Any]) -> None:
        """Write the scalar metrics of ``step`` and flush them, so TensorBoard shows them at once.

        A step at or before :attr:`last_step` is skipped.
        """
        if self._closed:
            raise ValueError("TensorBoardTracker.log after close(): open a new tracker to log again")
        if already_logged(step, self._state.last_step):
            return
        if self._writer is None:
            self._writer = self._open_writer()
        for name, value in scalars(metrics).items():
            self._writer.add_scalar(name, value, global_step=step)
        self._writer.flush()
        self._state = replace(self._state, last_step=step)
        save_state(self._state_path, self._state)

    def close(self) -> None:
        """Flush and close the event file, if this session opened one."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._closed = True

    def _open_writer(self) -> Any:
        """This session's event file, from the step after the last one recorded."""
        start = 0 if self._state.last_step is None else self._state.last_step + 1
        # Event file names carry the time in whole seconds and are opened with "wb": the suffix
        # keeps two sessions started within one second apart, and in step order.
        return self._writer_class(
            logdir=str(self.log_dir),
            purge_step=None if self._state.last_step is None else start,
            filename_suffix=f".from-step-{start:09d}",
        )
