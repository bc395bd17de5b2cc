"""`spadework run` end to end with the scripted fake policy: archive, metrics, resume, bad input."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spadework.archive import Archive
from spadework.cli import main
from spadework.config import load_config
from spadework.rewards import regret_estimate
from spadework.run import run

STABLE = ("design/valid_rate", "design/repair_success", "reward/regret_mean",
          "rollout/solve_rate_nohint", "rollout/solve_rate_hint", "perf/tokens_per_s")


def scripted(**overrides):
    values = {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 3, "run.plays": 2,
              "sandbox.pool_size": 2}
    values.update(overrides)
    return load_config(None, values)


def snapshot(run_dir: Path) -> tuple[list, list]:
    """What a run produced, without timestamps and timings: the records (with what the loop keeps
    beside them: summaries, near-duplicate sketches, diversity vectors and flags) and the metrics."""
    with Archive.open(run_dir, create=False) as archive:
        records = [(r.origin, r.content_hash, r.valid, r.reason, json.dumps(r.metrics, sort_keys=True))
                   for r in archive.records()]
    lines = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    metrics = [{k: v for k, v in m.items() if not k.startswith("perf/")} for m in lines]
    return records, metrics


def side_rows(run_dir: Path) -> list:
    conn = sqlite3.connect(run_dir / "archive.sqlite")
    try:
        return [conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in ("summaries", "sketches", "vectors")]
    finally:
        conn.close()


@pytest.mark.timeout(120)
def test_cli_run_end_to_end(tmp_path: Path, capsys):
    run_dir = tmp_path / "run"
    code = main(["run", "--policy", "scripted", "--iterations", "2", "--designs", "3", "--plays", "2",
                 "--run-dir", str(run_dir), "--seed", "3"])
    printed = capsys.readouterr().out
    assert code == 0
    assert f"run directory: {run_dir}" in printed
    assert (run_dir / "config.toml").read_text().count("kind = \"scripted\"") == 1
    lines = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [m["iteration"] for m in lines] == [0, 1]
    assert all(set(STABLE) <= set(m) for m in lines)
    with Archive.open(run_dir, create=False) as archive:
        finals = [r for r in archive.records(valid=True) if r.metrics["final"]]
    assert finals, "the scripted designer writes valid environments"
    for record in finals:
        metrics = record.metrics
        assert len(metrics["scores_nohint"]) == len(metrics["scores_hint"]) == 2
        expected = max(0.0, sum(h - n for h, n in zip(metrics["scores_hint"], metrics["scores_nohint"],
                                                     strict=True)) / 2)
        assert metrics["regret"] == pytest.approx(expected)
        assert metrics["transcripts"]["hint"]["arm"] == "hint"
        assert_interval_archived(metrics)
    assert any(r.metrics["regret"] > 0 for r in finals)
    episodes = (run_dir / "episodes" / "iteration-0001.jsonl").read_text().splitlines()
    assert len(episodes) == 4 * sum(1 for r in finals if r.metrics["iteration"] == 1)


def assert_interval_archived(metrics: dict) -> None:
    """A played final attempt keeps its regret's interval, as computed from its archived scores."""
    estimate = regret_estimate(metrics["scores_hint"], metrics["scores_nohint"])
    assert metrics["regret_ci"] == estimate.to_json()
    assert metrics["regret_plays"] == metrics["regret_ci"]["plays"] == len(metrics["scores_hint"])
    assert metrics["regret_low"] == max(0.0, metrics["regret_ci"]["low"])
    assert metrics["regret_high"] == max(0.0, metrics["regret_ci"]["high"]) > 0.0
    assert metrics["regret_low"] == 0.0  # two plays never clear zero at 95%


@pytest.mark.timeout(120)
def test_the_lcb_designer_reward_is_the_archived_lower_bound(tmp_path: Path):
    run(scripted(**{"run.iterations": 1, "run.designs": 4, "rewards.designer": "regret_lcb",
                    "designer.invalid_penalty": 1.0}), tmp_path / "run")
    with Archive.open(tmp_path / "run", create=False) as archive:
        records = [r for r in archive.records() if r.metrics["final"]]
    played = [r.metrics for r in records if r.valid]
    assert played and any(m["regret"] > 0 for m in played)  # the paper's regret is still recorded
    for metrics in played:
        assert_interval_archived(metrics)
        assert metrics["designer_reward"] == metrics["regret_low"] == 0.0
    for record in records:
        if not record.valid:
            assert "regret_low" not in record.metrics and record.metrics["designer_reward"] == -1.0


@pytest.mark.timeout(180)
def test_resume_after_a_crash_ends_like_an_uninterrupted_run(tmp_path: Path, crashing_policy):
    config = scripted(**{"run.iterations": 3})
    run(config, tmp_path / "whole")
    with pytest.raises(KeyboardInterrupt):
        run(config, tmp_path / "broken", policy=crashing_policy(calls=9))
    committed = len((tmp_path / "broken" / "metrics.jsonl").read_text().splitlines())
    assert 0 < committed < 3
    summary = run(config, tmp_path / "broken", resume=True)
    assert summary.iterations == 3
    assert snapshot(tmp_path / "broken") == snapshot(tmp_path / "whole")
    assert side_rows(tmp_path / "broken") == side_rows(tmp_path / "whole")
    assert all(side_rows(tmp_path / "whole"))  # the run kept summaries, sketches and vectors


@pytest.mark.timeout(180)
def test_a_resumed_run_whose_indexes_are_gone_rebuilds_them_once_and_ends_the_same(tmp_path: Path,
                                                                                  crashing_policy, capsys):
    """Sketches and vectors deleted after a crash (as an older spadework would have left the archive):
    the resumed run rebuilds them from the archive once, says so, and ends like an uninterrupted run."""
    config = scripted(**{"run.iterations": 3})
    run(config, tmp_path / "whole")
    with pytest.raises(KeyboardInterrupt):
        run(config, tmp_path / "broken", policy=crashing_policy(calls=9))
    conn = sqlite3.connect(tmp_path / "broken" / "archive.sqlite")
    with conn:
        conn.execute("DELETE FROM sketches")
        conn.execute("DELETE FROM vectors")
    conn.close()
    capsys.readouterr()
    run(config, tmp_path / "broken", resume=True)
    printed = capsys.readouterr().out
    assert printed.count("note: indexing") == 1 and printed.count("note: measuring") == 1
    assert snapshot(tmp_path / "broken") == snapshot(tmp_path / "whole")
    assert side_rows(tmp_path / "broken") == side_rows(tmp_path / "whole")


@pytest.mark.timeout(180)
def test_kill_9_loses_nothing_committed_and_repeats_nothing(tmp_path: Path):
    run_dir = tmp_path / "run"
    command = [sys.executable, "-m", "spadework.cli", "run", "--policy", "scripted", "--iterations",
               "40", "--designs", "2", "--plays", "1", "--run-dir", str(run_dir)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    metrics = run_dir / "metrics.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not metrics.exists() or len(metrics.read_text().splitlines()) < 2):
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before, kept = snapshot(run_dir), side_rows(run_dir)
    assert_side_rows_complete(run_dir)
    assert len(before[1]) >= 2
    done = subprocess.run([sys.executable, "-m", "spadework.cli", "run", "--resume", str(run_dir),
                           "--iterations", str(len(before[1]) + 1)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    after = snapshot(run_dir)
    assert after[0][:len(before[0])] == before[0] and after[1][:len(before[1])] == before[1]
    assert [m["iteration"] for m in after[1]] == list(range(len(before[1]) + 1))
    origins = [origin for origin, *_ in after[0]]
    assert len(origins) == len(set(origins))
    now = side_rows(run_dir)
    assert set(kept[0]) <= set(now[0]) and set(kept[1]) <= set(now[1])  # summaries, sketches
    assert {row[:3] for row in kept[2]} <= {row[:3] for row in now[2]}  # vectors (a later twin flags one)
    assert_side_rows_complete(run_dir)


def assert_side_rows_complete(run_dir: Path) -> None:
    """Every record has its summary, every valid source its sketch, every measured environment its
    vector: the side rows are committed with the records, so a kill leaves none behind."""
    conn = sqlite3.connect(run_dir / "archive.sqlite")
    try:
        count = conn.execute("SELECT COUNT(*) FROM environments").fetchone()[0]
        assert conn.execute("SELECT COUNT(*) FROM summaries").fetchone()[0] == count > 0
        assert conn.execute("SELECT COUNT(*) FROM environments e WHERE valid = 1 AND NOT EXISTS (SELECT 1 "
                            "FROM sketches s WHERE s.content_hash = e.content_hash)").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM summaries s WHERE valid = 1 AND final = 1 AND NOT EXISTS "
                            "(SELECT 1 FROM vectors v WHERE v.id = s.id)").fetchone()[0] == 0
    finally:
        conn.close()


def test_bad_corpus_lines_are_skipped(tmp_path: Path):
    corpus = tmp_path / "corpus.jsonl"
    good = [json.dumps({"text": f"Document {i} about rivers, bridges and ferries.", "domain": "travel"})
            for i in range(5)]
    corpus.write_text("\n".join(good + ["{not json", json.dumps({"title": "no text"})]) + "\n")
    summary = run(scripted(**{"run.iterations": 1, "corpus.path": str(corpus)}), tmp_path / "run")
    assert summary.environments >= 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--corpus", "{tmp}/missing.jsonl"], "{tmp}/missing.jsonl"),
        (["--corpus", "{tmp}/empty.jsonl"], "no valid documents"),
        (["--config", "{tmp}/bad.toml"], "config field 'run.designs'"),
        (["--resume", "{tmp}/nowhere"], "no config.toml; is this a run directory?"),
    ],
)
def test_bad_input_gets_one_line(tmp_path: Path, args, message):
    (tmp_path / "empty.jsonl").write_text("{broken\n\n")
    (tmp_path / "bad.toml").write_text("[run]\ndesigns = -1\n")
    fill = {"tmp": str(tmp_path)}
    own_dir = [] if "--resume" in args else ["--run-dir", str(tmp_path / "run")]
    command = [sys.executable, "-m", "spadework.cli", "run", "--policy", "scripted", *own_dir,
               *(a.format(**fill) for a in args)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and message.format(**fill) in done.stderr


def test_existing_run_needs_resume(tmp_path: Path):
    run(scripted(**{"run.iterations": 1, "run.designs": 1}), tmp_path / "run")
    with pytest.raises(Exception, match="already holds a run; continue it with"):
        run(scripted(), tmp_path / "run")


def test_partial_credit_charges_invalid_designs_by_how_far_they_got(tmp_path: Path):
    rewards = {}
    for partial in (False, True):
        run(scripted(**{"run.iterations": 1, "run.designs": 8, "designer.max_attempts": 1,  # 8: some fail
                        "designer.invalid_penalty": 1.0, "designer.partial_credit": partial}),
            tmp_path / str(partial))
        with Archive.open(tmp_path / str(partial), create=False) as archive:
            rewards[partial] = [(r.verdict.failure.name, r.metrics["designer_reward"])
                                for r in archive.records(valid=False)]
    assert rewards[False] and all(reward == -1.0 for _, reward in rewards[False])
    for check, reward in rewards[True]:
        assert -1.0 <= reward < 0.0
        assert (reward == -1.0) == (check == "parse")  # failing the first check earns no credit


@pytest.mark.timeout(120)
@pytest.mark.parametrize("on", [False, True])
def test_the_second_solver_setting_reaches_the_designs_validator(tmp_path: Path, monkeypatch, on):
    import spadework.loop as loop

    seen, design_batch = [], loop.design_batch

    def recording(policy, sandbox, requests, digest, settings):
        seen.append(settings.validator.second_solver)
        return design_batch(policy, sandbox, requests, digest, settings)

    monkeypatch.setattr(loop, "design_batch", recording)
    run(scripted(**{"run.iterations": 1, "designer.second_solver": on}), tmp_path)
    assert seen == [on]
