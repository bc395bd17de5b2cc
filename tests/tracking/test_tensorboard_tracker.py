"""TensorBoardTracker, read back with TensorBoard's own reader."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from spadework.errors import UsageError
from spadework.tracking import TensorBoardTracker, replay
from spadework.tracking.base import TrackerState, save_state, state_path

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator",
    reason="TensorBoard is not installed (pip install 'spadework[tracking]')")

ROWS = [
    {"iteration": 1, "reward/designer_mean": 0.25, "perf/tokens_per_s": 1200, "design/all_valid": True,
     "regret_ci": {"low": 0.0, "high": 1.0}, "note": "text"},
    {"iteration": 2, "reward/designer_mean": 0.5, "perf/tokens_per_s": 1350, "design/all_valid": False},
    {"iteration": 3, "reward/designer_mean": -0.125, "perf/tokens_per_s": 990.5, "design/all_valid": True,
     "eval/score": None},
]


def read_scalars(log_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar TensorBoard shows for ``log_dir``: tag -> [(step, value)]."""
    accumulator = event_accumulator.EventAccumulator(str(log_dir), size_guidance={"scalars": 0})
    accumulator.Reload()
    return {tag: [(event.step, event.value) for event in accumulator.Scalars(tag)]
            for tag in accumulator.Tags()["scalars"]}


def expected(rows: list[dict]) -> dict[str, list[tuple[int, float]]]:
    names = ("reward/designer_mean", "perf/tokens_per_s", "design/all_valid")
    return {name: [(row["iteration"], float(row[name])) for row in rows] for name in names}


def test_every_numeric_metric_is_a_scalar_under_its_name(tmp_path: Path) -> None:
    tracker = TensorBoardTracker(tmp_path)
    for row in ROWS:
        tracker.log(row["iteration"], row)
    tracker.close()
    tracker.close()  # a second close is harmless
    assert tracker.log_dir == tmp_path / "tensorboard"
    assert read_scalars(tracker.log_dir) == expected(ROWS)  # the values are exact in float32


def test_a_resumed_run_continues_without_writing_a_step_twice(tmp_path: Path) -> None:
    first = TensorBoardTracker(tmp_path)
    replay(first, ROWS[:2])
    first.close()
    second = TensorBoardTracker(tmp_path)
    assert second.last_step == 2
    replay(second, ROWS)  # the committed rows again: only step 3 is new
    second.close()
    assert len(list(second.log_dir.glob("events.out.tfevents.*"))) == 2
    assert read_scalars(tmp_path / "tensorboard") == expected(ROWS)


def test_reading_an_ended_run_back_writes_no_event_file(tmp_path: Path) -> None:
    first = TensorBoardTracker(tmp_path)
    replay(first, ROWS)
    first.close()
    files = sorted(first.log_dir.iterdir())
    readback = TensorBoardTracker(tmp_path)
    replay(readback, ROWS)  # every row already logged
    readback.close()
    assert sorted(first.log_dir.iterdir()) == files
    assert read_scalars(first.log_dir) == expected(ROWS)


def test_steps_written_after_the_last_recorded_one_are_replaced(tmp_path: Path) -> None:
    """A crash between writing step 3 and recording it: the next session writes step 3 again,
    and TensorBoard shows the new value only."""
    first = TensorBoardTracker(tmp_path)
    replay(first, ROWS)
    first.close()
    save_state(state_path(tmp_path, "tensorboard"), TrackerState(last_step=2))
    redone = {**ROWS[2], "reward/designer_mean": 2.0}
    second = TensorBoardTracker(tmp_path)
    replay(second, [*ROWS[:2], redone])
    second.close()
    assert read_scalars(tmp_path / "tensorboard") == expected([*ROWS[:2], redone])


def test_log_after_close_says_what_to_do(tmp_path: Path) -> None:
    tracker = TensorBoardTracker(tmp_path)
    tracker.close()
    with pytest.raises(ValueError, match=r"after close\(\): open a new tracker"):
        tracker.log(1, ROWS[0])


def test_without_tensorboardx_the_error_names_the_extra(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(UsageError) as caught:
        TensorBoardTracker(tmp_path)
    assert str(caught.value) == ("TensorBoard logging needs tensorboardX, which is not installed: "
                                 "pip install 'spadework[tracking]' (or turn TensorBoard off in the "
                                 "tracking settings)")
    assert not (tmp_path / "tensorboard").exists()
