"""A fake tracker for tests of code that logs: it keeps what a real tracker would write."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spadework.tracking.base import already_logged, scalars


@dataclass
class RecordingTracker:
    """Keeps ``(step, scalars)`` rows in memory, skipping steps like a real tracker does.

    Attributes:
        rows: what was logged, in order: the step and :func:`~spadework.tracking.base.scalars`.
        last_step: the last step kept; set it to act as a tracker resumed after that step.
        closed: whether ``close`` was called.

    >>> tracker = RecordingTracker(last_step=1)
    >>> for step in (1, 2):
    ...     tracker.log(step, {"iteration": step, "reward/mean": step / 4, "note": "x"})
    >>> tracker.rows
    [(2, {'reward/mean': 0.5})]
    """

    rows: list[tuple[int, dict[str, float]]] = field(default_factory=list)
    last_step: int | None = None
    closed: bool = False

    def log(self, step: int, metrics: Mapping[str, Any]) -> None:
        """Keep the step's scalar metrics (a step already logged is skipped)."""
        if self.closed:
            raise ValueError("RecordingTracker.log after close()")
        if already_logged(step, self.last_step):
            return
        self.rows.append((step, scalars(metrics)))
        self.last_step = step

    def close(self) -> None:
        """Mark it closed: a later ``log`` raises."""
        self.closed = True
