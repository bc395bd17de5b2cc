"""Designs mixed by form in a run with the scripted fake policy: each design is asked for the form
the weights give it, the archive keeps that form, and the metrics are reported per form too."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from spadework.archive import Archive, DesignResult
from spadework.config import load_config
from spadework.outcomes import FORM_METRICS
from spadework.run import run


@pytest.mark.timeout(120)
def test_a_run_shares_the_designs_out_by_weight_and_archives_their_forms(tmp_path: Path):
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 4,
                                "run.plays": 1, "sandbox.pool_size": 2, "designer.max_attempts": 2,
                                "designer.forms": {"answer": 0.5, "game": 0.5}})
    run(config, tmp_path / "run")
    with Archive.open(tmp_path / "run", create=False) as archive:
        results = [DesignResult.from_metrics(r.metrics) for r in archive.records()]
    finals = [r for r in results if r is not None and r.final]
    for iteration in (0, 1):
        assert Counter(r.form for r in finals if r.iteration == iteration) == {"answer": 2, "game": 2}
    asked = {r.design_id: r.form for r in finals}
    assert all(r.form == asked[r.design_id] for r in results if r is not None)  # every attempt
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    for row in rows:
        assert {f"{name}/{form}" for name in FORM_METRICS for form in ("answer", "game")} <= set(row)
        assert not any(name.endswith("/tool") for name in row)


@pytest.mark.timeout(120)
def test_a_run_with_the_records_form_archives_declared_tool_worlds_that_are_played_with_tools(tmp_path: Path):
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 4,
                                "run.plays": 1, "sandbox.pool_size": 2, "designer.max_attempts": 2,
                                "designer.forms": {"answer": 0.5, "records": 0.5}})
    run(config, tmp_path / "run")
    with Archive.open(tmp_path / "run", create=False) as archive:
        declared = [r for r in archive.records(valid=True) if "(DeclaredWorld)" in r.source]
    assert declared
    [row] = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert row["design/valid_rate/records"] > 0
    lines = (tmp_path / "run/episodes/iteration-0000.jsonl").read_text().splitlines()
    episodes = [json.loads(line) for line in lines]
    tool_episodes = [e for e in episodes if e.get("tools")]
    assert tool_episodes and all(any(m["role"] == "tool" for m in e["messages"]) for e in tool_episodes)


@pytest.mark.timeout(120)
def test_a_run_rejects_worlds_whose_solution_outlasts_the_agents_turns(tmp_path: Path):
    """agent.max_turns reaches the validator: a world no play could finish in time is not valid."""
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 2,
                                "run.plays": 1, "sandbox.pool_size": 2, "designer.max_attempts": 1,
                                "designer.forms": {"records": 1.0}, "agent.max_turns": 1})
    run(config, tmp_path / "run")
    with Archive.open(tmp_path / "run", create=False) as archive:
        records = list(archive.records())
    assert records and not any(r.valid for r in records)
    worlds = [r for r in records if "(DeclaredWorld)" in r.source]  # the fake also writes a codeless reply
    assert worlds and all("but the agent plays at most 1 turns" in (r.reason or "") for r in worlds)
