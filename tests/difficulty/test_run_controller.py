"""A run with the difficulty controller on (scripted fake policy, records worlds): every window
design carries a level into its plays, the metrics say where the controller held them, the archive
keeps each design's standing, a resumed run goes on from it, and replays play at the archived level."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spadework.archive import Archive, DesignResult
from spadework.config import load_config
from spadework.run import run

SETTINGS = {"policy.kind": "scripted", "run.designs": 2, "run.plays": 2, "sandbox.pool_size": 2,
            "designer.max_attempts": 1, "designer.forms": {"records": 1.0}, "designer.regenerate_every": 2,
            "agent.max_turns": 12, "difficulty.controller": "sliding", "difficulty.window": 2,
            "replay.count": 1}


def episodes(run_dir: Path, iteration: int) -> list[dict]:
    path = run_dir / f"episodes/iteration-{iteration:04d}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.timeout(300)
def test_a_run_with_the_controller_plays_at_levels_archives_them_and_resumes(tmp_path: Path):
    run_dir = tmp_path / "run"
    run(load_config(None, {**SETTINGS, "run.iterations": 2}), run_dir)
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert all("difficulty/level_mean" in row for row in rows)
    played = [e for e in episodes(run_dir, 0) if e["env_id"].startswith("i0-")]
    assert played and all(e["difficulty"] == 1 for e in played)
    with Archive.open(run_dir, create=False) as archive:
        finals = [d for r in archive.records(valid=True)
                  if (d := DesignResult.from_metrics(r.metrics)) and d.final]
    assert finals and all(d.difficulty is not None and d.difficulty.plays == 4 for d in finals)
    levels = {d.design_id: d.difficulty.level for d in finals}
    second = {e["env_id"]: e["difficulty"] for e in episodes(run_dir, 1) if e["env_id"].startswith("i0-")}
    path = {d.design_id: d.difficulty.path for d in finals}
    assert all(second[key] == path[key][min(1, len(path[key]) - 1)] for key in second)

    run(load_config(None, {**SETTINGS, "run.iterations": 3}), run_dir, resume=True)
    replayed = [e for e in episodes(run_dir, 2) if "-r" in e["env_id"]]
    assert replayed and {e["difficulty"] for e in replayed} <= set(levels.values())
