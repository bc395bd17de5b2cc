"""Held-out evaluation inside `spadework run`, every `eval.every` iterations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("reasoning_gym")

from eval_fakes import FakeAgent  # noqa: E402

from spadework.config import load_config  # noqa: E402
from spadework.errors import UsageError  # noqa: E402
from spadework.eval.runner import eval_metrics, eval_rollout, evaluate  # noqa: E402
from spadework.eval.tasks import select_tasks  # noqa: E402
from spadework.run import run  # noqa: E402


def config(**extra):
    values = {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 2, "run.plays": 1,
              "sandbox.pool_size": 1, "diversity.embedder": "hashing", "eval.every": 2,
              "eval.tasks": ["spell_backward"], "eval.seeds": 3}
    return load_config(None, {**values, **extra})


def test_every_second_iteration_logs_the_held_out_accuracies(tmp_path: Path):
    agent = FakeAgent(spells=True)
    run(config(), tmp_path / "run", policy=agent)
    lines = [json.loads(line) for line in (tmp_path / "run/metrics.jsonl").read_text().splitlines()]
    assert not any(k.startswith("eval/") for k in lines[0])
    # the fake spells every word backward correctly: all three items solved
    assert lines[1]["eval/reasoning-gym/spell_backward/accuracy"] == 1.0
    assert lines[1]["eval/reasoning-gym/accuracy"] == lines[1]["eval/accuracy"] == 1.0
    assert lines[1]["perf/eval_s"] > 0


def test_in_loop_figures_equal_a_separate_evaluation(tmp_path: Path):
    setup = config()
    run(setup, tmp_path / "run", policy=FakeAgent(spells=False))
    logged = json.loads((tmp_path / "run/metrics.jsonl").read_text().splitlines()[1])
    tasks = select_tasks((), ["spell_backward"])
    alone = eval_metrics(evaluate(FakeAgent(spells=False), tasks, range(3), eval_rollout(setup)))
    assert alone == {k: v for k, v in logged.items() if k.startswith("eval/")}
    assert alone["eval/accuracy"] == 0.0


def test_an_unknown_task_stops_the_run_before_it_writes_anything(tmp_path: Path):
    with pytest.raises(UsageError, match="no task 'nope'"):
        run(config(**{"eval.tasks": ["nope"]}), tmp_path / "run")
    assert not (tmp_path / "run").exists()
