"""`spadework run --train` with the scripted policy and the tiny model: metrics, checkpoints,
and resume after a crash at any point ends exactly like an uninterrupted run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

from spadework.archive import Archive  # noqa: E402
from spadework.cli import main  # noqa: E402
from spadework.config import load_config  # noqa: E402
from spadework.errors import ConfigError, UsageError  # noqa: E402
from spadework.learn.checkpoint import checkpoints  # noqa: E402
from spadework.run import run  # noqa: E402

TIMINGS = ("perf/", "learn/update_s", "learn/tokens_per_s", "learn/sync_s")
# run.seed: a seed whose designs give both roles a group with variance (the scripted agent
# rarely solves without the hint, so many seeds leave the agent nothing to learn from; a change of
# the designer prompt moves every seed's designs)
SMALL = {"policy.kind": "scripted", "run.iterations": 3, "run.designs": 2, "run.plays": 2, "run.seed": 0,
         "sandbox.pool_size": 2, "corpus.max_doc_tokens": 32, "learn.enabled": True, "learn.model": "tiny",
         "learn.max_sample_tokens": 8192, "learn.micro_batch_tokens": 8192, "learn.lr": 1e-3}


def config(**overrides):
    return load_config(None, {**SMALL, **overrides})


def snapshot(run_dir: Path) -> tuple[list, list]:
    """What a run produced, without timestamps and timings."""
    with Archive.open(run_dir, create=False) as archive:
        records = [(r.origin, r.content_hash, r.valid, json.dumps(r.metrics, sort_keys=True))
                   for r in archive.records()]
    lines = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    return records, [{k: v for k, v in m.items() if not k.startswith(TIMINGS)} for m in lines]


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("whole") / "run"
    run(config(), run_dir)
    return run_dir


def test_training_logs_per_role_metrics_and_keeps_checkpoints(whole: Path):
    lines = [json.loads(line) for line in (whole / "metrics.jsonl").read_text().splitlines()]
    updates = [m["learn/updates"] for m in lines]
    assert updates[-1] >= 2 and updates == sorted(updates)  # an iteration with no samples takes no step
    assert all((m["learn/samples"] > 0) == (m["learn/grad_norm"] > 0) for m in lines)
    for m in lines:
        for key in ("learn/loss", "learn/grad_norm", "learn/update_s", "learn/designer_loss",
                    "learn/agent_loss", "learn/designer_adv_abs_mean", "learn/agent_adv_abs_mean"):
            assert key in m
    assert any(m["learn/designer_samples"] > 0 for m in lines)
    assert any(m["learn/agent_samples"] > 0 for m in lines)
    assert sorted(checkpoints(whole)) == [1, 2]  # keep_checkpoints = 2
    for m in lines:  # the time split: the update (with its checkpoint and sync) is one of the parts
        assert m["perf/update_s"] >= m["learn/update_s"] and m["perf/update_s"] > 0
        parts = m["perf/design_s"] + m["perf/play_s"] + m["perf/update_s"]
        assert parts <= m["perf/iteration_s"]
    assert (whole / "checkpoints" / "latest").read_text().strip() == "iteration-0002"


@pytest.mark.timeout(300)
def test_a_crash_while_generating_resumes_like_an_uninterrupted_run(tmp_path: Path, whole: Path,
                                                                   crashing_policy):
    with pytest.raises(KeyboardInterrupt):
        run(config(), tmp_path / "broken", policy=crashing_policy(calls=9, seed=SMALL["run.seed"]))
    assert 0 < len((tmp_path / "broken" / "metrics.jsonl").read_text().splitlines()) < 3
    run(config(), tmp_path / "broken", resume=True)
    assert snapshot(tmp_path / "broken") == snapshot(whole)


def crash_before_commit(monkeypatch, run_dir: Path) -> None:
    """Run until iteration 1's checkpoint is written and die before its commit."""
    original = Archive.commit_iteration

    def commit_then_die(self, iteration, *args, **kwargs):
        if iteration == 1:
            raise KeyboardInterrupt
        return original(self, iteration, *args, **kwargs)

    monkeypatch.setattr(Archive, "commit_iteration", commit_then_die)
    with pytest.raises(KeyboardInterrupt):
        run(config(), run_dir)
    monkeypatch.setattr(Archive, "commit_iteration", original)


@pytest.mark.timeout(300)
def test_a_crash_between_checkpoint_and_commit_resumes_like_an_uninterrupted_run(
        tmp_path: Path, whole: Path, monkeypatch):
    crash_before_commit(monkeypatch, tmp_path / "broken")
    assert 1 in checkpoints(tmp_path / "broken")
    run(config(), tmp_path / "broken", resume=True)
    assert snapshot(tmp_path / "broken") == snapshot(whole)


@pytest.mark.timeout(300)
def test_resume_refuses_a_trained_run_whose_committed_checkpoint_is_gone(tmp_path: Path, monkeypatch):
    run_dir = tmp_path / "broken"
    crash_before_commit(monkeypatch, run_dir)
    shutil.rmtree(run_dir / "checkpoints" / "iteration-0000")  # pruned by hand to the newest, uncommitted one
    with pytest.raises(UsageError, match=r"iteration 0 is committed and was trained.*0000 is missing"):
        run(config(), run_dir, resume=True)
    assert sorted(checkpoints(run_dir)) == [1]  # the uncommitted adapter is left for its owner to judge
    with Archive.open(run_dir, create=False) as archive:
        assert [i for i, _ in archive.iterations()] == [0]


def test_one_kept_checkpoint_is_refused():  # the newest is written before its iteration is committed
    with pytest.raises(ConfigError, match="keep_checkpoints"):
        config(**{"learn.keep_checkpoints": 1})


@pytest.mark.timeout(300)
def test_kill_9_during_training_resumes_cleanly(tmp_path: Path, whole: Path):
    run_dir = tmp_path / "run"
    (tmp_path / "c.toml").write_text(_toml(SMALL))
    command = [sys.executable, "-m", "spadework.cli", "run", "--config", str(tmp_path / "c.toml"),
               "--run-dir", str(run_dir)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((run_dir / "checkpoints").glob("iteration-0001*")):
        time.sleep(0.01)  # die while iteration 1's checkpoint is being written, or just after
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    done = subprocess.run([sys.executable, "-m", "spadework.cli", "run", "--resume", str(run_dir)],
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert snapshot(run_dir) == snapshot(whole)


def _toml(values: dict) -> str:
    sections: dict[str, list[str]] = {}
    for dotted, value in values.items():
        section, key = dotted.split(".")
        sections.setdefault(section, []).append(f"{key} = {json.dumps(value)}")
    return "".join(f"[{name}]\n" + "\n".join(lines) + "\n" for name, lines in sections.items())


def test_cli_train_flag_turns_training_on(tmp_path: Path, capsys):
    (tmp_path / "c.toml").write_text(_toml({k: v for k, v in SMALL.items() if k != "learn.enabled"}))
    code = main(["run", "--config", str(tmp_path / "c.toml"), "--iterations", "2", "--train",
                 "--run-dir", str(tmp_path / "run")])
    assert code == 0
    assert "enabled = true" in (tmp_path / "run" / "config.toml").read_text()
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["learn/updates"] == 1.0  # iteration 0 had no variance to learn from
