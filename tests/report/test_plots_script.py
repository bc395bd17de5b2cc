"""``benchmarks/plots.py``: the results pages' figures drawn from run directories (a synthetic run
here: its metrics and episode files written by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(folder: Path, rows: list[dict], episodes: dict[int, list[tuple[str, bool]]]) -> Path:
    folder.mkdir()
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "episodes").mkdir()
    for iteration, played in episodes.items():
        lines = "".join(json.dumps({"arm": arm, "solved": solved}) + "\n" for arm, solved in played)
        (folder / "episodes" / f"iteration-{iteration:04d}.jsonl").write_text(lines)
    return folder


ROWS = [{"iteration": 0, "design/valid_rate": 0.5, "rollout/solve_rate_nohint": 0.25},
        {"iteration": 1, "reward/in_band_share": 0.0, "eval/probe/accuracy": 0.4},
        {"iteration": 2, "design/valid_rate": 1.0, "diversity/score": 0.6, "diversity/collapse": 1.0},
        {"iteration": 3, "reward/in_band_share": 0.5}]


def test_the_charts_read_bands_from_the_episodes_and_windows_from_their_rows(tmp_path, benchmark_script):
    plots = benchmark_script("plots")
    run = plots.read_run(_run(tmp_path / "full", ROWS, {
        0: [("nohint", True), ("nohint", False), ("hint", True), ("nohint", False), ("nohint", False)],
        1: [("nohint", True), ("nohint", True)]}))
    assert plots.nohint_counts(run) == {0: (1, 4), 1: (2, 2)}  # the hinted arm left out
    rate, low, high = plots.band_series(run.label, plots.nohint_counts(run), "#000")
    assert rate.points == ((0.0, 0.25), (1.0, 1.0))
    assert low.points[0][1] < 0.25 < high.points[0][1]
    assert high.points[1][1] == 1.0 and 0.3 < low.points[1][1] < 1.0  # 2 of 2 is not certainty
    assert plots.window_series(run, "reward/in_band_share", "#000", "x").points == ((0.0, 0.0), (1.0, 0.5))
    assert plots.window_series(run, "design/valid_rate", "#000", "x").points == ((0.0, 0.5), (1.0, 1.0))
    svgs = plots.charts([run])
    assert set(svgs) == {"solve-rate.svg", "probe.svg", "windows.svg", "diversity.svg"}
    assert "collapse alarm" in svgs["diversity.svg"] and "full 95% low" in svgs["solve-rate.svg"]


def test_a_chart_no_run_recorded_is_left_out_and_a_run_without_metrics_refused(tmp_path, benchmark_script):
    plots = benchmark_script("plots")
    bare = plots.read_run(_run(tmp_path / "bare", [{"iteration": 0, "rollout/solve_rate_nohint": 0.5}], {}))
    assert set(plots.charts([bare])) == {"solve-rate.svg"}  # no episodes: the metric's line, no band
    with pytest.raises(SystemExit, match="metrics.jsonl"):
        plots.read_run(tmp_path)
