"""``benchmarks/paired_reports.py``: pairing two policies across two reports gives what one report
pairing both gives (the committed adapter's BFCL report is the case)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "results" / "tool-learning-0.5b" / "bfcl-warm-start-records-only.json"


def test_pairing_across_reports_reproduces_the_reports_own_paired_rows(benchmark_script):
    script = benchmark_script("paired_reports")
    report = json.loads(REPORT.read_text())
    a_name, a = script.policy_items(report, None, last=False)
    b_name, b = script.policy_items(report, None, last=True)
    table = script.paired_table(a_name, a, b_name, b).splitlines()[2:]
    rows = {line.split(" | ")[0][2:]: line for line in table}
    for row in report["paired"]:
        scope = "all" if row["scope"] == "overall" else row["scope"]
        n, diff, wins, losses = row["n"], row["diff"], row["wins"], row["losses"]
        assert rows[scope].startswith(f"| {scope} | {n} |") and f"| {diff:+.2f} [" in rows[scope]
        assert rows[scope].endswith(f"| {wins} / {losses} |")


def test_items_of_only_one_report_are_left_out(benchmark_script):
    script = benchmark_script("paired_reports")
    a = {("bfcl/simple", 0): True, ("bfcl/simple", 1): False}
    table = script.paired_table("a", a, "b", {("bfcl/simple", 1): True, ("bfcl/other", 0): True})
    assert table.splitlines()[-1] == "| all | 1 | 0.00 | 1.00 | +1.00 [-0.51, +1.00] | 1 / 0 |"


def test_a_reports_entries_written_as_tsv_pair_with_the_report_itself(benchmark_script, tmp_path):
    """What ``results/`` keeps of a BFCL evaluation (entries.tsv) pairs as the report does."""
    script = benchmark_script("paired_reports")
    report = json.loads(REPORT.read_text())
    path = tmp_path / "warm" / "entries.tsv"
    path.parent.mkdir()
    path.write_text(script.entries_tsv(report, None), encoding="utf-8")
    name, from_tsv = script.read_items(path, None, last=True)
    _, from_report = script.policy_items(report, None, last=True)
    assert name == "warm" and from_tsv == from_report
    assert len(from_tsv) == len(report["policies"][-1]["items"])
