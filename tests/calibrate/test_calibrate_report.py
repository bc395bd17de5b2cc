"""The run report's Calibration section: shown when the run has calibration results, escaped."""

from __future__ import annotations

import json

import pytest

import spadework.cli
from spadework.config import load_config
from spadework.report import SECTION_IDS, build_report
from spadework.report.calibration import calibration_section, load_calibrations
from spadework.run import run

HOSTILE = "</script><script>alert(3)</script>"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """One small scripted run, then a calibration of one bundled file with its policy."""
    run_dir = tmp_path_factory.mktemp("calibrated") / "run"
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 2,
                                "run.plays": 1, "sandbox.pool_size": 1, "diversity.embedder": "hashing"})
    run(config, run_dir)
    return run_dir


def test_a_run_without_calibration_has_no_section(run_dir):
    assert load_calibrations(run_dir) == []  # this test runs before the module's calibration
    html = build_report(run_dir, out=run_dir / "before.html").read_text()
    assert '<section id="calibration">' not in html and html.count("<section id=") == len(SECTION_IDS)


def test_calibrate_then_report_shows_the_section_escaped(run_dir, capsys):
    from spadework.calibrate import bundled_paths

    easy = next(p for p in bundled_paths() if p.name.startswith("easy_"))
    argv = ["calibrate", str(easy), "--policy", str(run_dir), "--plays", "1", "--json"]
    assert spadework.cli.main(argv) == 0
    capsys.readouterr()
    folder = run_dir / "calibration"
    [written] = folder.glob("calibration-*.json")
    hostile = json.loads(written.read_text())
    hostile["environments"][0]["name"] = f"easy_{HOSTILE}.py"
    hostile["summary"]["leaks_missed"] = [HOSTILE]
    (folder / "zz-hostile.json").write_text(json.dumps(hostile))
    (folder / "zz-broken.json").write_text("{not json")
    html = build_report(run_dir).read_text()
    assert '<section id="calibration">' in html
    positions = [html.index(f'<section id="{s}">') for s in ("eval", "calibration", "diversity")]
    assert positions == sorted(positions)
    assert HOSTILE not in html and "&lt;/script&gt;&lt;script&gt;alert(3)" in html
    assert easy.name in html and "Frontier above easy at 95%" in html and "cannot read it" in html
    assert "LEAK MISSED" in html


def test_the_section_reads_a_hand_made_result(tmp_path):
    folder = tmp_path / "calibration"
    folder.mkdir()
    env = {"name": "frontier_x.py", "kind": "frontier", "screening": "valid", "scores": {"nohint": [0.0],
           "hint": [1.0]}, "solve_rate_nohint": 0.0, "solve_rate_hint": 1.0, "regret": 1.0,
           "regret_low": 0.0, "regret_high": 1.0}
    rejected = {"name": "leaking_y.py", "kind": "leaking", "screening": "leak caught", "scores": None,
                "reason": "determined: <same text>"}
    summary = {"spearman": {"rho": 0.5, "n": 2, "meaning": "+1: right"}, "separation": {"text": "unknown"}}
    (folder / "a.json").write_text(json.dumps({"environments": [env, rejected], "summary": summary}))
    (folder / "b.json").write_text(json.dumps({"policies": []}))
    section = calibration_section(load_calibrations(tmp_path))
    assert section.id == "calibration"
    assert "1.00 [0.00–1.00]" in section.body and "+0.50" in section.body
    assert "determined: &lt;same text&gt;" in section.body
    assert "not a calibration result" in section.body
