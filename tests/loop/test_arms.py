"""`[agent] arms = "nohint"`: a fixed-pool run without the hinted arm, with the scripted FAKE policy.
Against the same run with both arms: the same no-hint episodes at half the play, no figure that
needs the hint reported as 0, and the config refuses it where regret is needed."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from rich.console import Console

from spadework.archive import Archive
from spadework.config import load_config
from spadework.errors import ConfigError
from spadework.outcomes import HINTED_METRICS
from spadework.progress import SUMMARY, RichReporter
from spadework.report import build_report
from spadework.run import run

SETTINGS = {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 3, "run.plays": 2, "run.seed": 3,
            "designer.fixed_pool": "examples", "sandbox.pool_size": 1, "diversity.embedder": "hashing"}


def episodes_of(run_dir: Path) -> list[dict]:
    """Every episode of the run, timing left out."""
    lines = [json.loads(line) for path in sorted((run_dir / "episodes").glob("*.jsonl"))
             for line in path.read_text().splitlines()]
    return [{k: v for k, v in e.items() if k != "seconds"} for e in lines]


def metrics_of(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """The same fixed-pool run played in both arms and in the no-hint arm only."""
    root = tmp_path_factory.mktemp("arms")
    for arms in ("both", "nohint"):
        run(load_config(None, {**SETTINGS, "agent.arms": arms}), root / arms)
    return {"both": root / "both", "nohint": root / "nohint"}


def test_no_hint_play_is_the_both_arms_runs_no_hint_half(runs):
    both, nohint = episodes_of(runs["both"]), episodes_of(runs["nohint"])
    assert {e["arm"] for e in both} == {"nohint", "hint"}
    assert {e["arm"] for e in nohint} == {"nohint"}
    assert len(nohint) == len(both) // 2 == SETTINGS["run.iterations"] * SETTINGS["run.designs"] * 2
    assert nohint == [e for e in both if e["arm"] == "nohint"]


def test_figures_that_need_the_hint_are_left_out_and_the_rest_agree(runs):
    both, nohint = metrics_of(runs["both"]), metrics_of(runs["nohint"])
    for line in nohint:
        assert not HINTED_METRICS & line.keys()
    for line in both:
        assert HINTED_METRICS <= line.keys()
    for name in ("rollout/solve_rate_nohint", "reward/agent_mean", "adv/agent_zero_variance_groups"):
        assert [m[name] for m in nohint] == [m[name] for m in both]
    assert [m["rollout/episodes"] for m in nohint] == [m["rollout/episodes"] / 2 for m in both]


def test_archived_plays_say_the_hinted_arm_was_not_measured(runs, tmp_path):
    with Archive.open(runs["nohint"], create=False) as archive:
        plays = [r.design.play for r in archive.records() if r.design is not None and r.design.play]
    assert len(plays) == SETTINGS["run.iterations"] * SETTINGS["run.designs"]
    for play in plays:
        assert play.scores_hint == () and len(play.scores_nohint) == SETTINGS["run.plays"]
        assert math.isnan(play.solve_rate_hint) and math.isnan(play.regret) and play.estimate is None
    html = build_report(runs["nohint"], out=tmp_path / "report.html").read_text()
    shown = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    assert "not played" in shown and not re.search(r"\bnan\b", shown, re.I)


@pytest.mark.parametrize(("extra", "message"), [
    ({"designer.fixed_pool": None}, "fixed_pool"),
    ({"replay.count": 1}, "replay.count"),
])
def test_no_hint_play_is_refused_where_regret_is_needed(extra, message):
    settings = {**SETTINGS, "agent.arms": "nohint", **extra}
    if settings["designer.fixed_pool"] is None:
        del settings["designer.fixed_pool"]
    with pytest.raises(ConfigError, match=message):
        load_config(None, settings)


def test_the_iteration_table_shows_the_hinted_solve_rate_as_unknown(runs):
    def row(run_dir: Path) -> list[str]:
        console = Console(record=True, width=200)
        RichReporter(console).iteration_done(0, metrics_of(run_dir)[0])
        lines = [line for line in console.export_text().splitlines() if "│" in line]
        return [cell.strip() for cell in lines[-1].strip("│").split("│")]

    column = [label for label, _, _ in SUMMARY].index("with hint")
    assert row(runs["nohint"])[column] == "–"
    assert row(runs["both"])[column].endswith("%")
