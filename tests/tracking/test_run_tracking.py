"""A scripted run with TensorBoard on: its event files hold exactly metrics.jsonl's scalars,
read back with TensorBoard's own reader, and a resumed run adds its iterations only once."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import spadework.run as run_module
from spadework.config import load_config
from spadework.run import run

event_accumulator = pytest.importorskip(
    "tensorboard.backend.event_processing.event_accumulator",
    reason="TensorBoard is not installed (pip install 'spadework[tracking]')")


def read_scalars(log_dir: Path) -> dict[str, list[tuple[int, float]]]:
    accumulator = event_accumulator.EventAccumulator(str(log_dir), size_guidance={"scalars": 0})
    accumulator.Reload()
    return {tag: [(event.step, event.value) for event in accumulator.Scalars(tag)]
            for tag in accumulator.Tags()["scalars"]}


def numeric(rows: list[dict]) -> dict[str, list[tuple[int, float]]]:
    found: dict[str, list[tuple[int, float]]] = {}
    for row in rows:
        for name, value in row.items():
            if name != "iteration" and isinstance(value, int | float):
                found.setdefault(name, []).append((row["iteration"], float(value)))
    return found


SCRIPTED = {"policy.kind": "scripted", "run.designs": 2, "run.plays": 1, "sandbox.pool_size": 1,
            "diversity.embedder": "hashing"}


def test_a_run_shows_up_in_tensorboard_with_its_metric_names(tmp_path: Path) -> None:
    run(load_config(None, {**SCRIPTED, "tracking.tensorboard": True, "run.iterations": 1}), tmp_path / "run")
    run(load_config(tmp_path / "run/config.toml", {"run.iterations": 2}), tmp_path / "run", resume=True)

    assert_shows_every_iteration(tmp_path / "run", [0, 1])


def assert_shows_every_iteration(run_dir: Path, iterations: list[int]) -> None:
    """TensorBoard shows each iteration of metrics.jsonl once, in order, with its values."""
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in rows] == iterations
    shown = read_scalars(run_dir / "tensorboard")
    wanted = numeric(rows)
    assert set(shown) == set(wanted) and "reward/designer_mean" in shown
    for name, points in wanted.items():
        assert [step for step, _ in shown[name]] == [step for step, _ in points], name
        assert all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
                   for (_, a), (_, b) in zip(shown[name], points, strict=True)), name


def test_an_ended_run_read_back_builds_nothing_and_catches_a_new_tracker_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What `spadework ablate` does to every ended arm on each resume: no model, no sandbox; a tracker
    turned on since gets every iteration, and trackers that have them all are not opened."""
    ended = run(load_config(None, {**SCRIPTED, "run.iterations": 2}), tmp_path / "run")

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("reading an ended run back built something it does not need")

    monkeypatch.setattr(run_module, "build_engines", refuse)
    monkeypatch.setattr(run_module, "open_sandbox", refuse)
    with_tensorboard = load_config(tmp_path / "run/config.toml", {"tracking.tensorboard": True})
    assert run(with_tensorboard, tmp_path / "run", resume=True) == ended
    assert_shows_every_iteration(tmp_path / "run", [0, 1])

    monkeypatch.setattr(run_module, "open_trackers", refuse)
    assert run(with_tensorboard, tmp_path / "run", resume=True) == ended
