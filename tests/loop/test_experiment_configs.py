"""The experiment configs in configs/experiments/ load, and the environments they name are all valid."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.config import load_config
from spadework.designer.pool import load_pool, pool_sources

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = sorted((ROOT / "configs" / "experiments").glob("*.toml"))


def test_there_is_an_experiment():
    assert [p.stem for p in EXPERIMENTS] and "cpu-learning" in [p.stem for p in EXPERIMENTS]


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_an_experiment_loads_and_every_environment_of_its_pool_and_probe_is_valid(path, sandbox,
                                                                                   monkeypatch):
    monkeypatch.chdir(ROOT)  # the configs name their pools relative to the repository's root
    config = load_config(path)
    for spec in {config.designer.fixed_pool, config.eval.probe} - {None}:
        members, invalid = load_pool(spec, sandbox)
        assert invalid == 0 and len(members) == len(pool_sources(spec)) >= 2


@pytest.mark.timeout(300)
def test_the_tool_learning_experiment_runs_end_to_end_and_counts_its_calls(tmp_path: Path, monkeypatch):
    """The tool-use learning config as it is (its pool, its way of showing the tools, the agent's arm
    alone), made small, with the scripted agent and the tiny learner: the agent calls in every turn,
    and the learner is built (the scripted agent solves no records world, so nothing varies enough to
    take a step)."""
    pytest.importorskip("torch")
    from spadework.run import run

    monkeypatch.chdir(ROOT)
    config = load_config(ROOT / "configs" / "experiments" / "tool-learning.toml", {
        "policy.kind": "scripted", "run.iterations": 2, "run.designs": 2, "run.plays": 2,
        "learn.model": "tiny", "learn.min_tokens": 0, "sandbox.pool_size": 2,
        "diversity.embedder": "hashing"})
    summary = run(config, tmp_path / "run")
    assert summary.iterations == 2
    for metrics in summary.metrics:
        assert metrics["rollout/call_rate"] == 1.0 and metrics["rollout/valid_call_rate_nohint"] > 0.5
        assert "rollout/call_rate_hint" not in metrics and "learn/updates" in metrics


@pytest.mark.timeout(300)
def test_the_coevolution_experiment_runs_windows_with_both_roles_trained(tmp_path: Path, monkeypatch,
                                                                        benchmark_script):
    """The coevolution config as it is (mixed forms, windows of two updates, the blend, replay, the
    probe in the loop), made small, with the scripted policy and the tiny learner: two windows close,
    each paying its designs and training the designer on them, both forms designed, earlier windows'
    environments replayed, the probe measured in the loop; the results' figures and the table of
    each window's best-paid designs are drawn from the run directory."""
    pytest.importorskip("torch")
    from spadework.run import run

    monkeypatch.chdir(ROOT)
    config = load_config(ROOT / "configs" / "experiments" / "coevolution.toml", {
        "policy.kind": "scripted", "run.iterations": 4, "run.designs": 2, "run.plays": 2, "run.hint_plays": 2,
        "eval.every": 2, "eval.seeds": 1, "learn.model": "tiny", "learn.min_tokens": 0,
        "learn.max_sample_tokens": 60_000,  # the tiny learner's tokens are bytes: a design prompt is many
        "learn.init_adapter": "",  # the config's start is the 1.5B's adapter; the tiny learner's is fresh
        "sandbox.pool_size": 2, "diversity.embedder": "hashing", "difficulty.controller": "sliding"})
    assert not config.sandbox.docstring_hint  # the arms keep the validator they began with
    summary = run(config, tmp_path / "run")
    trained = [m["iteration"] for m in summary.metrics if m["learn/samples"] > 0 and not m["learn/skipped"]]
    assert summary.iterations == 4 and summary.metrics[-1]["learn/updates"] == len(trained)  # one update each
    assert {1, 3} <= set(trained)  # each window trains the designer when it closes
    assert any(m["learn/agent_samples"] > 0 for m in summary.metrics)
    closing = [m for m in summary.metrics if "reward/blend_mean" in m]
    assert [m["iteration"] for m in closing] == [1, 3]  # a window closes every second iteration
    assert all("reward/in_band_share" in m and m["learn/designer_samples"] > 0 for m in closing)
    assert all("difficulty/level_mean" in m for m in summary.metrics)  # the rerun's switch, on
    opening = [m for m in summary.metrics if "design/valid_rate" in m]
    assert [m["iteration"] for m in opening] == [0, 2]
    assert all("design/valid_rate/answer" in m and "design/valid_rate/records" in m for m in opening)
    assert any(m.get("replay/count", 0) > 0 for m in summary.metrics[2:])
    assert sum("eval/probe/accuracy" in m for m in summary.metrics) == 2
    assert list((tmp_path / "run" / "tensorboard").glob("**/events.out.tfevents.*"))  # for TensorBoard
    plots, top, table = (benchmark_script(name) for name in ("plots", "top_designs", "window_table"))
    windows = table.windows(tmp_path / "run")
    assert [w["window"] for w in windows] == ["0-1", "2-3"] and windows[1]["eval/probe/accuracy"] >= 0
    figures = plots.charts([plots.read_run(tmp_path / "run")])
    assert {"windows.svg", "probe.svg", "solve-rate.svg"} <= set(figures)
    paid = top.top_per_window(top.paid_designs(tmp_path / "run"), 3)
    assert sorted({p.iteration for p in paid}) == [0, 2] and all("class " in p.source for p in paid)
