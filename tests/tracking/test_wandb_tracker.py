"""WandbTracker in offline mode (no network), read back from the run's ``.wandb`` file."""

from __future__ import annotations

import json
import os
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

from spadework.errors import UsageError
from spadework.tracking import TrackingSettings, WandbMode, WandbTracker, replay
from spadework.tracking.base import load_state, state_path

wandb = pytest.importorskip("wandb", reason="wandb is not installed (pip install 'spadework[tracking]')")

OFFLINE = TrackingSettings(wandb=WandbMode.OFFLINE, wandb_project="spadework-tests")
CONFIG = {"run": {"iterations": 3, "seed": 7}, "designer": {"model": "scripted"}}
ROWS = [
    {"iteration": 1, "reward/designer_mean": 0.25, "perf/tokens_per_s": 1200, "design/all_valid": True,
     "regret_ci": {"low": 0.0, "high": 1.0}, "note": "text"},
    {"iteration": 2, "reward/designer_mean": 0.5, "perf/tokens_per_s": 1350, "design/all_valid": False},
    {"iteration": 3, "reward/designer_mean": -0.125, "perf/tokens_per_s": 990.5, "design/all_valid": True},
]

# A .wandb file is a LevelDB-style log of protobuf ``Record``s after a 7-byte header; wandb has no
# public reader, so this small one reads it back.
BLOCK, CHUNK_HEADER, FULL, LAST = 32768, 7, 1, 4


def wandb_records(path: Path) -> list[Any]:
    from wandb.proto import wandb_internal_pb2

    data = path.read_bytes()
    assert data[:4] == b":W&B", f"{path} is not a .wandb file"
    records, pending, position = [], b"", CHUNK_HEADER
    while position + CHUNK_HEADER <= len(data):
        if BLOCK - position % BLOCK < CHUNK_HEADER:  # a block's tail too short for a chunk is padding
            position += BLOCK - position % BLOCK
            continue
        _crc, length, kind = struct.unpack("<IHB", data[position:position + CHUNK_HEADER])
        pending += data[position + CHUNK_HEADER:position + CHUNK_HEADER + length]
        position += CHUNK_HEADER + length
        if kind in (FULL, LAST):
            records.append(wandb_internal_pb2.Record.FromString(pending))
            pending = b""
    return records


def history(records: list[Any]) -> list[tuple[int, dict[str, float]]]:
    """(step, values) of each history record, W&B's own ``_step``/``_runtime``... left out."""
    rows = []
    for record in records:
        if record.WhichOneof("record_type") == "history":
            values = {item.key or "/".join(item.nested_key): json.loads(item.value_json)
                      for item in record.history.item}
            rows.append((record.history.step.num, {k: v for k, v in values.items() if not k.startswith("_")}))
    return rows


def offline_runs(run_dir: Path, run_id: str) -> list[Path]:
    """The ``.wandb`` files of the offline sessions of ``run_id``, oldest first, complete.

    ``run.finish()`` returns a few milliseconds before the W&B service has written the last
    records; stopping the service (``wandb.teardown``) waits for them.
    """
    wandb.teardown()
    return sorted(run_dir.glob(f"wandb/offline-run-*-{run_id}*/run-{run_id}.wandb"))


def expected(rows: list[dict]) -> list[tuple[int, dict[str, float]]]:
    names = ("reward/designer_mean", "perf/tokens_per_s", "design/all_valid")
    return [(row["iteration"], {name: float(row[name]) for name in names}) for row in rows]


@pytest.fixture
def isolated_wandb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """W&B with no login, no user settings and no WANDB_* variables from outside; what wandb sets
    process-wide (its service, WANDB_SERVICE, sys.excepthook and sys.exit hooks) is undone after."""
    home = tmp_path / "home"
    home.mkdir()
    for name in [name for name in os.environ if name.startswith("WANDB_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("NETRC", str(home / ".netrc"))
    for name, folder in (("WANDB_CONFIG_DIR", "config"), ("WANDB_CACHE_DIR", "cache"),
                         ("WANDB_DATA_DIR", "data"), ("WANDB_ARTIFACT_DIR", "artifacts")):
        monkeypatch.setenv(name, str(home / folder))
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(sys, "exit", sys.exit)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    yield run_dir
    wandb.teardown()  # stops the service and removes WANDB_SERVICE


def test_offline_run_logs_every_metric_under_its_name(isolated_wandb: Path) -> None:
    run_dir = isolated_wandb
    tracker = WandbTracker(run_dir, OFFLINE, CONFIG, name="tiny-run")
    for row in ROWS:
        tracker.log(row["iteration"], row)
    tracker.close()
    tracker.close()  # a second close is harmless
    [run_file] = offline_runs(run_dir, tracker.run_id)
    records = wandb_records(run_file)
    assert history(records) == expected(ROWS)
    [run] = [record.run for record in records if record.WhichOneof("record_type") == "run"]
    assert (run.run_id, run.project, run.display_name) == (tracker.run_id, "spadework-tests", "tiny-run")
    config = {item.key: json.loads(item.value_json) for item in run.config.update}
    assert {key: config[key] for key in CONFIG} == CONFIG
    assert load_state(state_path(run_dir, "wandb")).last_step == 3


def test_a_resumed_run_keeps_its_id_and_logs_only_new_steps(isolated_wandb: Path) -> None:
    run_dir = isolated_wandb
    first = WandbTracker(run_dir, OFFLINE, CONFIG, name="tiny-run")
    replay(first, ROWS[:2])
    first.close()
    second = WandbTracker(run_dir, OFFLINE, CONFIG, name="tiny-run")
    assert (second.run_id, second.last_step) == (first.run_id, 2)
    replay(second, ROWS)  # the committed rows again: only step 3 is new
    second.close()
    sessions = offline_runs(run_dir, first.run_id)
    assert [history(wandb_records(path)) for path in sessions] == [expected(ROWS[:2]), expected(ROWS[2:])]


def test_online_without_a_login_says_how_to_fix_it(isolated_wandb: Path) -> None:
    settings = TrackingSettings(wandb=WandbMode.ONLINE, wandb_project="spadework-tests")
    with pytest.raises(UsageError) as caught:
        WandbTracker(isolated_wandb, settings, CONFIG, name="tiny-run")
    run_id = load_state(state_path(isolated_wandb, "wandb")).run_id
    assert str(caught.value) == (
        f"W&B could not start run {run_id} in project 'spadework-tests' (online): No API key configured. "
        "Use `wandb login` to log in. To go on without the W&B server, set wandb to offline in the tracking "
        "settings (upload later with `wandb sync`)")


def test_wandb_off_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="set wandb to offline or online"):
        WandbTracker(tmp_path, TrackingSettings(), CONFIG, name="tiny-run")


def test_without_wandb_the_error_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(UsageError) as caught:
        WandbTracker(tmp_path, OFFLINE, CONFIG, name="tiny-run")
    assert str(caught.value) == ("W&B logging needs wandb, which is not installed: pip install "
                                 "'spadework[tracking]' (or turn W&B off in the tracking settings)")
    assert list(tmp_path.iterdir()) == []
