"""A scripted run with TensorBoard on: its event files hold exactly metrics.jsonl's scalars,
read back with TensorBoard's own reader, and a resumed run adds its iterations only once."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

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


def test_a_run_shows_up_in_tensorboard_with_its_metric_names(tmp_path: Path) -> None:
    overrides = {"policy.kind": "scripted", "run.designs": 2, "run.plays": 1, "sandbox.pool_size": 1,
                 "diversity.embedder": "hashing", "tracking.tensorboard": True}
    run(load_config(None, {**overrides, "run.iterations": 1}), tmp_path / "run")
    run(load_config(tmp_path / "run/config.toml", {"run.iterations": 2}), tmp_path / "run", resume=True)

    rows = [json.loads(line) for line in (tmp_path / "run/metrics.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in rows] == [0, 1]
    shown = read_scalars(tmp_path / "run/tensorboard")
    wanted = numeric(rows)
    assert set(shown) == set(wanted) and "reward/designer_mean" in shown
    for name, points in wanted.items():  # each iteration once, in order, with its value
        assert [step for step, _ in shown[name]] == [step for step, _ in points], name
        assert all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
                   for (_, a), (_, b) in zip(shown[name], points, strict=True)), name
