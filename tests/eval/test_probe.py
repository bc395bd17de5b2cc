"""The probe suite: designed environments played in the sandbox on seeds no training or validation
uses, from a folder of files or a run's archive, by ``evaluate``, ``spadework eval`` and the loop.

The agents are FAKES: one that adds the two numbers of an addition puzzle, one that answers 0.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import pytest

from spadework.config import load_config
from spadework.errors import ConfigError, UsageError
from spadework.eval.command import add_parser
from spadework.eval.probe import PROBE_SEED_BASE, ProbeOpener, load_probe, probe_tasks
from spadework.eval.runner import eval_rollout, evaluate
from spadework.policy.base import Completion, Role
from spadework.run import run
from spadework.sandbox import Sandbox

CALIBRATION = Path(__file__).resolve().parents[2] / "src/spadework/calibrate/envs"


class Adder:
    """FAKE agent: boxes the sum of the first two numbers it is shown (0 when it sees none)."""

    name = "adder"

    def __init__(self, right: bool = True):
        self.right = right

    def generate(self, conversations, sampling, tools=None):
        replies = []
        for conversation in conversations:
            text = next(m.content for m in conversation if m.role is Role.USER)
            numbers = [int(n) for n in re.findall(r"\d+", text)[:2]]
            total = sum(numbers) if self.right and len(numbers) == 2 else 0
            replies.append(Completion(f"\\boxed{{{total}}}", prompt_tokens=10, completion_tokens=3))
        return replies

    def close(self):
        pass


class SeedRecorder:
    """Opens through a real sandbox and records every seed an environment is reset with."""

    def __init__(self, sandbox):
        self.sandbox = sandbox
        self.seeds: list[int] = []

    def open(self, source):
        env = self.sandbox.open(source)
        recorder = self

        class Recorded:
            def __getattr__(self, name):
                return getattr(env, name)

            def reset(self, seed=None):
                recorder.seeds.append(seed)
                return env.reset(seed=seed)

        return Recorded()


@pytest.fixture
def folder(tmp_path):
    probe = tmp_path / "probe"
    probe.mkdir()
    for name in ("easy_add.py", "easy_larger.py"):
        shutil.copy(CALIBRATION / name, probe / name)
    return probe


def test_a_folder_probe_plays_each_file_on_reserved_seeds_in_the_sandbox(folder):
    envs = load_probe(folder)
    assert [e.name for e in envs] == ["easy_add", "easy_larger"]
    tasks = probe_tasks(envs, max_turns=4)
    assert [t.key for t in tasks] == ["probe/easy_add", "probe/easy_larger"]
    config = load_config(None)
    with Sandbox() as sandbox:
        recorder = SeedRecorder(ProbeOpener(tasks, sandbox))
        result = evaluate(Adder(), tasks, range(3), eval_rollout(config), recorder)
    assert sorted(set(recorder.seeds)) == [PROBE_SEED_BASE + k for k in range(3)]
    assert [(i.task, i.seed) for i in result.items] == [(t.task, k) for t in tasks for k in range(3)]
    assert result.tally("probe/easy_add").accuracy == 1.0  # the adder solves addition, on every seed
    assert result.errors == 0


def test_a_run_probe_is_its_valid_archived_environments(tmp_path):
    values = {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 3, "run.plays": 1,
              "sandbox.pool_size": 1, "diversity.embedder": "hashing"}
    run(load_config(None, values), tmp_path / "run")
    envs = load_probe(tmp_path / "run")
    assert envs and all(re.fullmatch(r"\d+-\w+Env", e.name) for e in envs)
    assert len({e.source for e in envs}) == len(envs)


def test_a_probe_needs_environments_and_a_path_that_holds_them(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="has no environment files"):
        load_probe(tmp_path / "empty")
    with pytest.raises(UsageError, match="no such run directory or folder"):
        load_probe(tmp_path / "missing")


def run_eval(argv):
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", *argv])
    return args.run(args)


def test_spadework_eval_compares_two_policies_on_the_probe(folder, tmp_path, monkeypatch):
    from spadework.eval import policies

    agents = iter([Adder(right=False), Adder(right=True)])
    monkeypatch.setattr(policies, "load_eval_policy", lambda spec, build=None: next(agents))
    config = tmp_path / "config.toml"
    config.write_text('[policy]\nkind = "scripted"\n')
    out = tmp_path / "report.json"
    assert run_eval(["--config", str(config), "--policy", "base", "--policy", "base",
                     "--probe", str(folder), "--seeds", "4", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["tasks"] == [{"suite": "probe", "task": name} for name in ("easy_add", "easy_larger")]
    first, second = report["policies"]
    assert first["tasks"]["probe/easy_add"]["accuracy"] == 0.0
    assert second["tasks"]["probe/easy_add"]["accuracy"] == 1.0
    row = next(r for r in report["paired"] if r["scope"] == "probe/easy_add")
    assert (row["n"], row["diff"], row["wins"]) == (4, 1.0, 4)


def test_suite_probe_and_probe_path_go_together(folder, tmp_path):
    with pytest.raises(UsageError, match="go together"):
        run_eval(["--suite", "probe"])
    with pytest.raises(ConfigError, match="eval.probe is unset"):
        load_config(None, {"eval.every": 1, "eval.suites": ["probe"]})


def test_the_loop_plays_the_probe_every_eval_iteration(folder, tmp_path):
    values = {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 1, "run.plays": 1,
              "sandbox.pool_size": 1, "diversity.embedder": "hashing", "eval.every": 1,
              "eval.suites": ["probe"], "eval.probe": str(folder), "eval.seeds": 2}
    run(load_config(None, values), tmp_path / "run")
    row = json.loads((tmp_path / "run/metrics.jsonl").read_text().splitlines()[0])
    names = {"eval/probe/easy_add/accuracy", "eval/probe/easy_larger/accuracy", "eval/probe/accuracy"}
    assert names <= set(row)


def test_a_probe_of_tool_worlds_counts_how_the_agent_called(tmp_path):
    """Held-out tool worlds report the call rates of the agent's replies (``eval/probe/call_rate``)."""
    from spadework.eval.runner import eval_metrics
    from spadework.policy.scripted import ScriptedPolicy

    worlds = Path(__file__).resolve().parents[2] / "configs/experiments/tool-worlds/heldout"
    tasks = probe_tasks(load_probe(worlds)[:1], max_turns=3)
    with Sandbox() as sandbox:
        result = evaluate(ScriptedPolicy(), tasks, range(2), eval_rollout(load_config(None)),
                          ProbeOpener(tasks, sandbox))
    assert all(item.figures["tool_replies"] == item.turns == 3 for item in result.items)
    metrics = eval_metrics(result)
    assert metrics["eval/probe/call_rate"] == 1.0 and 0.0 < metrics["eval/probe/valid_call_rate"] <= 1.0
    assert set(result.items[0].to_json()) >= {"tool_replies", "calls", "valid_calls"}
