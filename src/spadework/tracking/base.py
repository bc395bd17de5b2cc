"""What every tracker shares: the protocol, which metrics are scalars, and the per-tracker state file.

A tracker remembers, in ``run_dir/tracking/<tracker>.json``, the last step it wrote. Steps at or
before it are skipped, so a resumed run can hand every committed iteration to its trackers again
(:func:`spadework.tracking.replay`) and each writes only what it does not have yet.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from spadework.errors import UsageError
from spadework.rundir import write_atomically

STATE_DIR = "tracking"
STEP_KEY = "iteration"
INSTALL_HINT = "pip install 'spadework[tracking]'"


class Tracker(Protocol):
    """Somewhere a run's per-iteration metrics are written besides ``metrics.jsonl``.

    ``log`` takes steps in increasing order; a step at or before ``last_step`` is already written
    and is skipped without a word (that is what makes a replay on resume safe).
    """

    @property
    def last_step(self) -> int | None:
        """The last step written, in this or an earlier session of the run; None: none yet."""
        ...

    def log(self, step: int, metrics: Mapping[str, Any]) -> None:
        """Write the scalar metrics of ``step`` (see :func:`scalars`)."""
        ...

    def close(self) -> None:
        """Flush and release; calling it twice is harmless."""
        ...


def scalars(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The metrics a tracker writes: every number under its own name, bools as 0/1.

    The step key (``iteration``) and values that are not numbers (text, nested records such as
    ``regret_ci``, None) are left out.

    >>> scalars({"iteration": 3, "reward/mean": 0.5, "perf/tokens": 120, "design/ok": True,
    ...          "regret_ci": {"low": 0.1}, "note": "x", "eval/score": None})
    {'reward/mean': 0.5, 'perf/tokens': 120.0, 'design/ok': 1.0}
    """
    return {name: float(value) for name, value in metrics.items()
            if name != STEP_KEY and isinstance(value, numbers.Real)}


def already_logged(step: int, last_step: int | None) -> bool:
    """Whether ``step`` was written before (steps only go forward).

    >>> already_logged(3, None), already_logged(3, 3), already_logged(4, 3)
    (False, True, False)
    """
    return last_step is not None and step <= last_step


@dataclass(frozen=True)
class TrackerState:
    """What a tracker keeps between sessions of one run.

    Attributes:
        last_step: the last step it wrote; None: none yet.
        run_id: the tracker's own id for this run (the W&B run id), fixed at the first session.
    """

    last_step: int | None = None
    run_id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The state as JSON."""
        return {"last_step": self.last_step, "run_id": self.run_id}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrackerState:
        """
        >>> TrackerState.from_json(TrackerState(4, "ab12cd34").to_json())
        TrackerState(last_step=4, run_id='ab12cd34')
        """
        return cls(last_step=data.get("last_step"), run_id=data.get("run_id"))


def state_path(run_dir: Path, tracker: str) -> Path:
    """Where ``tracker`` (``tensorboard``, ``wandb``) keeps its state in a run directory."""
    return run_dir / STATE_DIR / f"{tracker}.json"


def load_state(path: Path) -> TrackerState:
    """The state at ``path``; a fresh state when there is no file yet."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return TrackerState()
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read tracker state {path} ({error}): delete it to start that "
                         "tracker's history over (a W&B run then gets a new id)") from error
    state = TrackerState.from_json(data) if isinstance(data, dict) else None
    if state is None or not _valid(state):
        raise UsageError(f"tracker state {path} is not a JSON object with an integer last_step and a "
                         "text run_id: delete it to start that tracker's history over (a W&B run then "
                         "gets a new id)")
    return state


def _valid(state: TrackerState) -> bool:
    step_ok = state.last_step is None or (isinstance(state.last_step, int)
                                          and not isinstance(state.last_step, bool))
    return step_ok and (state.run_id is None or isinstance(state.run_id, str))


def save_state(path: Path, state: TrackerState) -> None:
    """Write ``state`` so that a crash leaves the old or the new file, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(state.to_json(), sort_keys=True) + "\n")


def missing_library(tracker: str, library: str) -> UsageError:
    """The error for a tracker whose library is not installed (raise it ``from`` the ImportError).

    >>> message = str(missing_library("TensorBoard", "tensorboardX"))
    >>> message.startswith("TensorBoard logging needs tensorboardX"), INSTALL_HINT in message
    (True, True)
    """
    return UsageError(f"{tracker} logging needs {library}, which is not installed: {INSTALL_HINT} "
                      f"(or turn {tracker} off in the tracking settings)")
