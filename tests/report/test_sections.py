"""Sections built from hand-made inputs: curves and their fallbacks, evaluation files, the map."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from spadework.diversity.records import DiversitySummary, MapPoint, RunDiversity
from spadework.report import CURVES, chart, curves_section, eval_section, load_evals, map_section
from spadework.report.build import measure_diversity
from spadework.report.curves import NOT_RECORDED
from spadework.report.evaluation import NO_EVAL

LOSS = next(spec for spec in CURVES if spec.title == "Learner loss")


def test_loss_prefers_the_per_role_names_and_falls_back_to_the_shared_loss():
    per_role = [{"iteration": 0, "learn/designer_loss": 1.0, "learn/agent_loss": 2.0, "learn/loss": 9.0},
                {"iteration": 1, "learn/designer_loss": 0.5, "learn/agent_loss": 1.5, "learn/loss": 9.0}]
    svg = chart(LOSS, per_role)
    assert ">designer</text>" in svg and ">agent</text>" in svg and ">both roles</text>" not in svg
    shared = [{"iteration": 0, "learn/loss": 1.0}, {"iteration": 1, "learn/loss": 0.8}]
    assert ">both roles</text>" in chart(LOSS, shared)
    older = [{"iteration": 0, "learn/designer_loss": 1.0}]
    assert ">designer</text>" in chart(LOSS, older)
    assert NOT_RECORDED in chart(LOSS, [{"iteration": 0}]) and "<svg" not in chart(LOSS, [{"iteration": 0}])


def test_curves_draw_in_loop_eval_metrics_and_say_when_a_metric_is_missing():
    metrics = [{"iteration": i, "design/valid_rate": 0.5, "eval/games/accuracy": 0.1 * i} for i in range(3)]
    body = curves_section(metrics).body
    assert ">Valid rate</text>" in body and ">games/accuracy</text>" in body
    assert "Repair success</figcaption>" in body and NOT_RECORDED in body
    assert "no iteration committed yet" in curves_section([]).body


def write_eval(folder: Path, name: str, data: object) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(data if isinstance(data, str) else json.dumps(data))


def test_eval_section_reads_results_and_reports_unreadable_files(tmp_path: Path):
    assert NO_EVAL in eval_section(load_evals(tmp_path), []).body
    stats = {"n": 10, "solved": 3, "accuracy": 0.3, "ci_low": 0.1, "ci_high": 0.6, "mean_score": 0.3}
    result = {"created_at": "2026-01-01T00:00:00Z", "seeds": [0], "tasks": [{"suite": "s", "task": "t"}],
              "policies": [{"name": "<base>", "spec": "base", "overall": stats, "suites": {"s": stats},
                            "tasks": {"s/t": stats}}],
              "paired": [{"a": "x", "b": "y", "scope": "overall", "n": 10, "diff": -0.1, "ci_low": -0.3,
                          "ci_high": 0.1, "wins": 1, "losses": 2, "ties": 7}]}
    write_eval(tmp_path / "eval", "a.json", result)
    write_eval(tmp_path / "eval", "b.json", "{not json")
    write_eval(tmp_path / "eval", "c.json", {"policies": "no"})
    body = eval_section(load_evals(tmp_path), [{"iteration": 0, "eval/s/accuracy": 0.3}]).body
    assert "&lt;base&gt;" in body and "30% [10–60%]" in body and "n=10" in body
    assert "-10.0 pts" in body and "within noise" in body and "1/2/7" in body
    assert "b.json" in body and "cannot read it" in body and "not an evaluation result" in body
    assert "In-loop held-out evaluation" in body and NO_EVAL not in body


def diversity(points: tuple[MapPoint, ...], alarms: tuple[int, ...] = ()) -> RunDiversity:
    summary = DiversitySummary(len(points), 0.5, 0.1, 2)
    return RunDiversity(summary, {0: summary, 1: summary}, points, alarms, "t-SNE")


def test_map_colours_points_by_each_mode_and_escapes_labels():
    points = (MapPoint(1, 0.0, 0.0, 0, "games", 0.0, 0, "A"),
              MapPoint(2, 1.0, 1.0, 4, "<b>", 1.0, 1, "B<i>"),
              MapPoint(3, 0.5, 0.2, None, None, None, 1, None))
    body = map_section(diversity(points)).body
    fills = json.loads(body.split('id="map-colours">')[1].split("</script>")[0])
    assert fills["iteration"][:2] == ["#440154", "#fde725"] and fills["regret"][:2] == ["#440154", "#fde725"]
    assert len(set(fills["domain"])) == 3
    assert all(mode[2] == "#b8bec6" for mode in fills.values())  # unknown: grey in every mode
    assert "&lt;b&gt;" in body and "B&lt;i&gt;" in body and "<b>" not in body
    assert body.count('data-mode="iteration"') == 2 and "hidden" in body  # button and legend
    assert 'class="alarm"' not in body


def test_map_section_shows_alarms_and_says_why_when_there_is_no_measurement():
    body = map_section(diversity((MapPoint(1, 0, 0, 0, None, 0.5, 0, "A"),), alarms=(1,))).body
    assert 'class="alarm"' in body and "iteration 1" in body
    assert "no valid environments to map" in map_section(diversity(())).body
    assert "the reason" in map_section(None, "the reason").body


def test_measure_diversity_says_why_it_cannot(tmp_path: Path, monkeypatch):
    assert measure_diversity(tmp_path, 0) == (None, "no valid environments yet: nothing to measure")
    monkeypatch.setitem(sys.modules, "spadework.engines", None)
    measured, note = measure_diversity(tmp_path, 3)
    assert measured is None and "cannot be measured in this install" in note


def test_the_tool_call_rates_have_a_chart_per_arm():
    metrics = [{"iteration": i, "rollout/call_rate_nohint": 0.2 * i,
                "rollout/valid_call_rate_nohint": 0.1 * i}
                for i in range(3)]
    body = curves_section(metrics).body
    assert ">Tool calls</text>" in body and "call, no hint" in body and "valid call, no hint" in body
