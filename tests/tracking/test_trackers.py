"""Fan-out, replay on resume, tracker state and opening trackers from settings (no real library)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import spadework.tracking.trackers as trackers_module
from spadework.errors import UsageError
from spadework.tracking import (
    RecordingTracker,
    Trackers,
    TrackingSettings,
    WandbMode,
    caught_up,
    open_trackers,
    replay,
)
from spadework.tracking.base import TrackerState, load_state, save_state, state_path

ROWS = [
    {"iteration": 1, "reward/designer_mean": 0.25, "design/valid_rate": 1, "regret_ci": {"low": 0.0}},
    {"iteration": 2, "reward/designer_mean": 0.5, "design/valid_rate": 0.5, "note": "text"},
    {"iteration": 3, "reward/designer_mean": 0.75, "design/all_valid": False},
]


class CloseFails(RecordingTracker):
    """A tracker whose close breaks."""

    def close(self) -> None:
        super().close()
        raise OSError("disk full")


def test_trackers_hand_every_step_to_every_tracker() -> None:
    first, second = RecordingTracker(), RecordingTracker()
    with Trackers((first, second)) as trackers:
        trackers.log(1, ROWS[0])
    assert first.rows == second.rows == [(1, {"reward/designer_mean": 0.25, "design/valid_rate": 1.0})]
    assert first.closed and second.closed


def test_close_closes_every_tracker_and_then_raises_the_first_failure() -> None:
    broken, healthy = CloseFails(), RecordingTracker()
    with pytest.raises(OSError, match="disk full"):
        Trackers((broken, healthy)).close()
    assert broken.closed and healthy.closed


def test_replay_writes_only_the_steps_a_tracker_missed() -> None:
    resumed, new = RecordingTracker(last_step=2), RecordingTracker()
    replay(Trackers((resumed, new)), ROWS)
    assert resumed.rows == [(3, {"reward/designer_mean": 0.75, "design/all_valid": 0.0})]
    assert [step for step, _ in new.rows] == [1, 2, 3]
    new.log(2, ROWS[1])  # a step already written is skipped
    assert [step for step, _ in new.rows] == [1, 2, 3]


def test_replay_names_a_row_without_an_iteration() -> None:
    with pytest.raises(ValueError) as caught:
        replay(RecordingTracker(), [{"reward/designer_mean": 0.5}])
    assert str(caught.value) == ("a metrics row needs an integer 'iteration' to replay it; got None in a "
                                 "row with keys ['reward/designer_mean']")


def test_tracker_state_survives_a_round_trip(tmp_path: Path) -> None:
    path = state_path(tmp_path, "wandb")
    assert load_state(path) == TrackerState()
    save_state(path, TrackerState(last_step=7, run_id="ab12cd34"))
    assert path == tmp_path / "tracking" / "wandb.json"
    assert load_state(path) == TrackerState(last_step=7, run_id="ab12cd34")


@pytest.mark.parametrize("text", ["[1, 2]", '{"last_step": "3"}', '{"run_id": 12}'])
def test_a_malformed_tracker_state_says_what_to_do(tmp_path: Path, text: str) -> None:
    path = state_path(tmp_path, "tensorboard")
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(UsageError) as caught:
        load_state(path)
    assert str(caught.value) == (f"tracker state {path} is not a JSON object with an integer last_step and "
                                 "a text run_id: delete it to start that tracker's history over (a W&B run "
                                 "then gets a new id)")


def test_a_tracker_state_that_is_not_json_says_what_to_do(tmp_path: Path) -> None:
    path = state_path(tmp_path, "wandb")
    path.parent.mkdir()
    path.write_text("{")
    with pytest.raises(UsageError, match=r"cannot read tracker state .*wandb\.json .*delete it"):
        load_state(path)


def test_nothing_on_opens_no_tracker_and_writes_nothing(tmp_path: Path) -> None:
    trackers = open_trackers(TrackingSettings(), tmp_path, config={}, name="run")
    assert trackers == Trackers()
    trackers.log(1, ROWS[0])
    trackers.close()
    assert list(tmp_path.iterdir()) == []


def test_caught_up_reads_each_turned_on_trackers_last_step(tmp_path: Path) -> None:
    both = TrackingSettings(tensorboard=True, wandb=WandbMode.OFFLINE)
    assert caught_up(TrackingSettings(), tmp_path, 3)  # nothing on: nothing to write
    assert not caught_up(both, tmp_path, 3)  # neither has written a step
    save_state(state_path(tmp_path, "tensorboard"), TrackerState(last_step=3))
    assert caught_up(TrackingSettings(tensorboard=True), tmp_path, 3)
    assert not caught_up(TrackingSettings(tensorboard=True), tmp_path, 4)
    assert not caught_up(both, tmp_path, 3)  # W&B, turned on since, has nothing yet
    save_state(state_path(tmp_path, "wandb"), TrackerState(last_step=3, run_id="ab12cd34"))
    assert caught_up(both, tmp_path, 3)
    assert list(tmp_path.iterdir()) == [tmp_path / "tracking"]  # read only: no tracker opened


def test_a_tracker_that_cannot_open_leaves_none_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[RecordingTracker] = []

    def fake_tensorboard(run_dir: Path) -> RecordingTracker:
        opened.append(RecordingTracker())
        return opened[-1]

    monkeypatch.setattr(trackers_module, "TensorBoardTracker", fake_tensorboard)
    monkeypatch.setitem(sys.modules, "wandb", None)  # as if wandb were not installed
    settings = TrackingSettings(tensorboard=True, wandb=WandbMode.OFFLINE)
    with pytest.raises(UsageError) as caught:
        open_trackers(settings, tmp_path, config={}, name="run")
    assert str(caught.value) == ("W&B logging needs wandb, which is not installed: pip install "
                                 "'spadework[tracking]' (or turn W&B off in the tracking settings)")
    assert len(opened) == 1 and opened[0].closed


def test_tracking_imports_without_tensorboardx_or_wandb() -> None:
    code = ("import sys; sys.modules.update(wandb=None, tensorboardX=None, tensorboard=None); "
            "import spadework.tracking")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
