"""The report of a real small run: every section, every environment, hostile text escaped, the CLI."""

from __future__ import annotations

import argparse
import html as html_module
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from spadework.archive import Archive
from spadework.errors import UsageError
from spadework.report import SECTION_IDS, Limits, build_report
from spadework.report.command import add_parser, cmd_report
from spadework.report.evaluation import NO_EVAL


@pytest.fixture(scope="module")
def html(report_run: Any) -> str:
    path = build_report(report_run.run_dir, report_run.diversity)
    assert path == report_run.run_dir / "report.html"
    return path.read_text(encoding="utf-8")


def test_every_section_is_there_with_a_heading(html: str):
    for section_id in SECTION_IDS:
        assert re.search(f'<section id="{section_id}">\\s*<h2>[^<]+</h2>', html), section_id
    positions = [html.index(f'<section id="{s}">') for s in SECTION_IDS]
    assert positions == sorted(positions)


def test_every_environment_has_a_row_and_a_detail_panel(html: str, report_run: Any):
    for record_id in report_run.ids:
        assert f'<tr class="env-row" data-env="{record_id}"' in html
        assert f'id="env-{record_id}"' in html
    assert html.count('class="env-row"') == len(report_run.ids) and report_run.hostile_id in report_run.ids
    with Archive.open(report_run.run_dir, create=False) as archive:
        records = list(archive.records())
    for record in records:  # every class and every verdict reason (escaped) is on the page
        assert html_module.escape(record.class_name or "") in html
        assert html_module.escape(record.reason[:60]) in html


def test_the_browser_shows_each_regret_interval_and_how_it_was_made(html: str, report_run: Any):
    assert '<th data-type="number" class="num">regret 95% CI</th>' in html
    with Archive.open(report_run.run_dir, create=False) as archive:
        records = list(archive.records())
    played = [r for r in records if "regret_low" in r.metrics]
    assert played and report_run.hostile_id not in [r.id for r in played]  # hand-made: an older record
    for record in records:
        row = re.search(f'<tr class="env-row" data-env="{record.id}".*?</tr>', html, re.S)
        assert row is not None
        attrs, text = re.findall(r"<td([^>]*)>(.*?)</td>", row.group(0), re.S)[7]
        detail = html.split(f'id="env-{record.id}"')[1].split('<div class="env-detail"')[0]
        m = record.metrics
        if record in played:
            interval = f'[{m["regret_low"]:.2f}, {m["regret_high"]:.2f}]'
            assert text == interval and f'data-sort="{m["regret_low"]}"' in attrs
            assert (f"{m['regret']:.3f}</strong>, 95% interval {interval} over 2 paired plays "
                    "(paired differences, Agresti-Min adjusted); designer reward") in detail
        else:
            assert text == "" and 'data-sort=""' in attrs
            assert "paired plays" not in detail
    hostile = html.split(f'id="env-{report_run.hostile_id}"')[1].split('<div class="env-detail"')[0]
    assert "regret <strong>1.000</strong>; designer reward 1.000" in hostile


def test_hostile_text_is_escaped_everywhere(html: str, report_run: Any):
    assert "<script>alert(" not in html
    assert html.count("<script") == 2  # the map's JSON block and the page script, nothing else
    assert html.count("</script>") == 2
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html  # code, hint, transcripts
    assert "&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in html  # the map's domain
    assert report_run.hostile not in html and report_run.hostile_domain not in html


def test_the_map_colours_come_from_an_escaped_json_block(html: str, report_run: Any):
    block = re.search(r'<script type="application/json" id="map-colours">(.*?)</script>', html, re.S)
    assert block is not None
    colours = json.loads(block.group(1))
    assert set(colours) == {"iteration", "domain", "regret"}
    assert all(len(fills) == len(report_run.diversity.points) for fills in colours.values())
    assert colours["iteration"][0] != colours["domain"][0]
    assert html.count("<circle data-index=") == len(report_run.diversity.points)
    assert "Collapse alarm at iteration 1" in html


def test_curves_and_evaluation(html: str):
    curves = html.split('<section id="curves">')[1].split("</section>")[0]
    for title in ("Valid rate", "Repair success", "Regret", "Solve rate"):
        assert f">{title}</text>" in curves
    assert ">no hint</text>" in curves and ">hint</text>" in curves
    assert "Learner loss</figcaption>" in curves and "not recorded in this run" in curves
    evaluation = html.split('<section id="eval">')[1].split("</section>")[0]
    assert "2026-11-29-base-vs-run.json" in evaluation and NO_EVAL not in evaluation
    assert "50% [20–80%]" in evaluation and "75% [40–93%]" in evaluation
    assert "games/wordle" in evaluation and "+25.0 pts" in evaluation and "clear" in evaluation


def test_config_section_shows_the_resolved_config_and_a_summary(html: str):
    config = html.split('<section id="config">')[1].split("</section>")[0]
    assert "iterations committed</dt><dd>2 of 2</dd>" in config
    assert "&quot;scripted&quot;" in config and "<h4>designer.sampling</h4>" in config


def test_limits_keep_large_runs_small(report_run: Any, tmp_path: Path):
    path = build_report(report_run.run_dir, report_run.diversity, out=tmp_path / "small.html",
                        limits=Limits(max_rows=4, max_details=2, max_code_chars=10, max_message_chars=5))
    text = path.read_text(encoding="utf-8")
    assert text.count('class="env-row"') == 4
    assert len(re.findall(r'<div class="env-detail" id="env-\d+"', text)) == 2
    assert "more characters not shown" in text and "The table keeps the 4 most recent" in text


def test_a_bare_run_says_what_it_lacks(tmp_path: Path, report_run: Any, monkeypatch):
    bare = tmp_path / "bare"
    shutil.copytree(report_run.run_dir, bare,
                    ignore=shutil.ignore_patterns("*.toml", "*.jsonl", "eval", "*.html", "*.png"))
    monkeypatch.setattr("spadework.report.build.measure_diversity", lambda *_: (None, "not today"))
    text = build_report(bare, limits=Limits(max_details=0)).read_text()
    assert NO_EVAL in text and "not today" in text
    assert "no config.toml in this run directory" in text
    assert ">Valid rate</text>" in text  # without metrics.jsonl the curves come from the archive
    assert 'id="env-missing"' in text


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(argv)


def test_cli_writes_the_report(report_run: Any, tmp_path: Path, capsys, monkeypatch):
    monkeypatch.setattr("spadework.report.build.measure_diversity", lambda run_dir, valid: (None, "skipped"))
    args = parse(["report", str(report_run.run_dir), "--out", str(tmp_path / "r.html")])
    assert args.run is cmd_report
    assert cmd_report(args) == 0
    assert f"wrote {tmp_path / 'r.html'}" in capsys.readouterr().out
    assert (tmp_path / "r.html").read_text().count("<section id=") == len(SECTION_IDS)


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p / "missing", "does not exist; pass a run directory"),
    (lambda p: (p / "file.txt").write_text("x") and p / "file.txt", "is a file"),
    (lambda p: p, "is not a run directory (no archive.sqlite)"),
])
def test_cli_refuses_what_is_not_a_run_directory(tmp_path: Path, make, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        cmd_report(parse(["report", str(make(tmp_path))]))


def test_check_without_chromium_says_what_to_install(report_run: Any, monkeypatch):
    monkeypatch.setattr("spadework.report.browser.find_chromium", lambda: None)
    with pytest.raises(UsageError, match=re.escape("apt-get install chromium chromium-driver")):
        cmd_report(parse(["report", str(report_run.run_dir), "--check"]))
