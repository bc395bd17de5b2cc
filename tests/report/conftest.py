"""One small real run (scripted fake policy) shared by the report tests, with a hostile environment,
a hand-made diversity measurement and a hand-made evaluation result."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from spadework.archive import Archive, EnvRecord
from spadework.config import load_config
from spadework.diversity.records import DiversitySummary, MapPoint, RunDiversity
from spadework.run import run
from spadework.validate.verdict import CheckResult, Outcome, Verdict

HOSTILE = "</script><script>alert(1)</script>"
HOSTILE_DOMAIN = "</script><script>alert(2)</script>"


@dataclass(frozen=True)
class ReportRun:
    """A run directory ready for a report, and what was put into it by hand."""

    run_dir: Path
    ids: tuple[int, ...]
    hostile_id: int
    diversity: RunDiversity
    hostile: str = HOSTILE
    hostile_domain: str = HOSTILE_DOMAIN


def hostile_record() -> EnvRecord:
    """A valid-looking environment whose every text tries to break out of the page."""
    checks = tuple(CheckResult(name, Outcome.PASSED, f"ok {HOSTILE}") for name in ("parse", "static", "load"))
    verdict = Verdict(checks, "none", class_name="EvilEnv", hint=f"hint {HOSTILE}")
    episode = {"arm": "nohint", "seed": 1, "score": 0.0, "turns": 1, "end": "truncated", "error": None,
               "messages": [{"role": "user", "content": f"observation {HOSTILE}"},
                            {"role": "assistant", "content": f"reply {HOSTILE}"}]}
    metrics = {"iteration": 1, "design_id": "i1-evil", "attempt": 1, "final": True, "domain": HOSTILE_DOMAIN,
               "document_id": "doc", "designer_reward": 1.0, "description": f"task {HOSTILE}",
               "scores_nohint": [0.0], "scores_hint": [1.0], "solve_rate_nohint": 0.0,
               "solve_rate_hint": 1.0, "regret": 1.0,
               "transcripts": {"nohint": episode, "hint": {**episode, "arm": "hint"}}}
    source = f"# {HOSTILE}\nclass EvilEnv:\n    text = '{HOSTILE}'\n"
    return EnvRecord.new(source, verdict, "test:hostile", metrics)


def hand_made_diversity(records: list[EnvRecord]) -> RunDiversity:
    """One point per valid record: iterations, domains and regrets that colour differently."""
    points = tuple(
        MapPoint(record_id=r.id or 0, x=float(k), y=float(k % 3),
                 iteration=int(r.metrics.get("iteration", 0)), domain=r.metrics.get("domain"),
                 regret=r.metrics.get("regret"), cluster=k % 2,
                 class_name=r.class_name)
        for k, r in enumerate(records))
    per_iteration = {0: DiversitySummary(3, 0.4, 0.0, 2), 1: DiversitySummary(len(points), 0.3, 0.25, 2)}
    return RunDiversity(DiversitySummary(len(points), 0.3, 0.25, 2), per_iteration, points, (1,), "PCA")


def eval_result() -> dict:
    """A held-out evaluation result in the format `spadework eval` writes."""
    def stats(n, solved, low, high):
        return {"n": n, "solved": solved, "accuracy": solved / n, "ci_low": low, "ci_high": high,
                "mean_score": solved / n}
    policy = {"name": "base", "spec": "base", "overall": stats(8, 4, 0.2, 0.8),
              "suites": {"games": stats(8, 4, 0.2, 0.8)},
              "tasks": {"games/wordle": stats(4, 1, 0.05, 0.7), "games/nim": stats(4, 3, 0.3, 0.95)},
              "items": []}
    trained = {"name": "run", "spec": "runs/x", "overall": stats(8, 6, 0.4, 0.93),
               "suites": {"games": stats(8, 6, 0.4, 0.93)},
               "tasks": {"games/wordle": stats(4, 3, 0.3, 0.95), "games/nim": stats(4, 3, 0.3, 0.95)},
               "items": []}
    paired = [{"a": "base", "b": "run", "scope": "overall", "n": 8, "diff": 0.25, "ci_low": 0.05,
               "ci_high": 0.45, "wins": 2, "losses": 0, "ties": 6}]
    return {"created_at": "2026-11-29T12:00:00Z", "seeds": [0, 1],
            "tasks": [{"suite": "games", "task": "wordle"}, {"suite": "games", "task": "nim"}],
            "policies": [policy, trained], "paired": paired}


@pytest.fixture(scope="package")
def report_run(tmp_path_factory) -> ReportRun:
    """2 iterations x 3 designs x 2 plays with the scripted policy, plus the hand-made parts."""
    run_dir = tmp_path_factory.mktemp("report") / "run"
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 3,
                                "run.plays": 2, "sandbox.pool_size": 2, "diversity.embedder": "hashing"})
    run(config, run_dir)
    with Archive.open(run_dir, create=False) as archive:
        hostile = archive.add(hostile_record())
        records = list(archive.records())
    (run_dir / "eval").mkdir()
    (run_dir / "eval" / "2026-11-29-base-vs-run.json").write_text(json.dumps(eval_result()))
    valid = [r for r in records if r.valid]
    return ReportRun(run_dir, tuple(r.id or 0 for r in records), hostile.id or 0, hand_made_diversity(valid))
