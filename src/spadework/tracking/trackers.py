"""Several trackers as one, opened from the tracking settings; replaying committed iterations."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from spadework.tracking.base import STEP_KEY, Tracker, already_logged, load_state, state_path
from spadework.tracking.settings import TrackingSettings, WandbMode
from spadework.tracking.tensorboard_tracker import TensorBoardTracker
from spadework.tracking.wandb_tracker import WandbTracker


@dataclass(frozen=True)
class Trackers:
    """Fans ``log`` and ``close`` out to each tracker; with none, does nothing.

    Usable as a context manager that closes every tracker on the way out.

    >>> Trackers().log(1, {"reward/mean": 0.5})
    >>> bool(Trackers())
    False
    """

    members: tuple[Tracker, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.members)

    def log(self, step: int, metrics: Mapping[str, Any]) -> None:
        """Hand ``step``'s metrics to every tracker (each skips a step it already has)."""
        for tracker in self.members:
            tracker.log(step, metrics)

    def close(self) -> None:
        """Close every tracker, even when one fails; the first failure is raised afterwards."""
        failure: BaseException | None = None
        for tracker in self.members:
            try:
                tracker.close()
            except Exception as error:  # the others must still close
                failure = failure or error
        if failure is not None:
            raise failure

    def __enter__(self) -> Trackers:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()


def open_trackers(settings: TrackingSettings, run_dir: Path, config: Mapping[str, Any],
                  name: str) -> Trackers:
    """The trackers ``settings`` turn on, for the run in ``run_dir``.

    Args:
        settings: which trackers, and the W&B project and entity.
        run_dir: the run directory (it must exist).
        config: the run's resolved configuration (the W&B run's config).
        name: the run's name (the W&B run's display name).

    Returns:
        The open trackers; empty when TensorBoard and W&B are both off.

    Raises:
        UsageError: a library is missing or W&B could not start (nothing is left open then).
    """
    members: list[Tracker] = []
    try:
        if settings.tensorboard:
            members.append(TensorBoardTracker(run_dir))
        if settings.wandb is not WandbMode.OFF:
            members.append(WandbTracker(run_dir, settings, config, name))
    except BaseException:
        Trackers(tuple(members)).close()
        raise
    return Trackers(tuple(members))


def caught_up(settings: TrackingSettings, run_dir: Path, step: int) -> bool:
    """Whether every tracker ``settings`` turn on has written ``step`` already.

    Read from the trackers' state files, opening none: reading an ended run back whose trackers
    hold all of it needs no tracker at all (no W&B run started, no event file written).
    """
    turned_on = {TensorBoardTracker.STATE: settings.tensorboard,
                 WandbTracker.STATE: settings.wandb is not WandbMode.OFF}
    return all(already_logged(step, load_state(state_path(run_dir, name)).last_step)
               for name, on in turned_on.items() if on)


def replay(trackers: Trackers | Tracker, rows: Iterable[Mapping[str, Any]]) -> None:
    """Hand committed iterations to ``trackers`` again, in order (on resume, before going on).

    Each row is a line of ``metrics.jsonl``: its ``iteration`` is the step. Every tracker skips
    the steps it already wrote in an earlier session, so it only catches up on iterations it
    missed: the one committed just before a crash, or all of them when the tracker was turned on
    at resume.

    Raises:
        ValueError: a row has no integer ``iteration``.
    """
    for row in rows:
        step = row.get(STEP_KEY)
        if not isinstance(step, int) or isinstance(step, bool):
            raise ValueError(f"a metrics row needs an integer {STEP_KEY!r} to replay it; got "
                             f"{step!r} in a row with keys {sorted(row)}")
        trackers.log(step, row)
