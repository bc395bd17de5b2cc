"""The ``eval`` section: held-out evaluation results (``RUN_DIR/eval/*.json``) and in-loop curves.

A results file (written by ``spadework eval``) holds per policy the accuracy with a
confidence interval per task, per suite and overall, and paired differences between policies.
A file that cannot be read is reported in the section, never a crash of the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spadework.eval.report import EVAL_DIR
from spadework.report.curves import eval_charts
from spadework.report.rundata import number
from spadework.report.shell import ResultsFile, Section, empty, esc, load_results, percent, table

NO_EVAL = ("no held-out evaluation yet: run `spadework eval --policy RUN_DIR` (its newest checkpoint, "
           "or its model as it is when it did not train); add `--config RUN_DIR/config.toml --policy base` "
           "before it to compare with the untrained model")


EvalFile = ResultsFile
"""One ``RUN_DIR/eval/*.json``."""


def load_evals(run_dir: Path) -> list[EvalFile]:
    """Every ``RUN_DIR/eval/*.json``, oldest name first."""
    return load_results(run_dir / EVAL_DIR, "policies", "an evaluation result")


def ci_bar(accuracy: float | None, low: float | None, high: float | None) -> str:
    """A tiny bar on [0, 1]: the confidence interval as a band, the accuracy as a dot.

    >>> '<rect x="25.0" y="3" width="50.0"' in ci_bar(0.5, 0.25, 0.75)
    True
    >>> ci_bar(None, None, None)
    ''
    """
    if accuracy is None:
        return ""
    width = 100.0
    parts = [f'<svg class="ci" width="{width:g}" height="12" viewBox="0 0 {width:g} 12" role="img" '
             f'aria-label="confidence interval"><line x1="0" y1="6" x2="{width:g}" y2="6" stroke="#dfe3e8"/>']
    if low is not None and high is not None:
        parts.append(f'<rect x="{low * width:.1f}" y="3" width="{max(high - low, 0.0) * width:.1f}" '
                     f'height="6" rx="2" fill="#9bbbe0"/>')
    parts.append(f'<circle cx="{accuracy * width:.1f}" cy="6" r="3" fill="#2f6db3"/></svg>')
    return "".join(parts)


def stats_cell(stats: Any) -> str:
    """``62% [48–75%] n=40`` with its bar; an en dash when the policy has no such scope.

    >>> stats_cell({"n": 4, "accuracy": 0.5, "ci_low": 0.25, "ci_high": 0.75}).split("<svg")[0]
    '50% [25–75%] <span class="note">n=4</span>'
    """
    if not isinstance(stats, dict):
        return "–"
    accuracy, n = number(stats.get("accuracy")), number(stats.get("n"))
    low, high = number(stats.get("ci_low")), number(stats.get("ci_high"))
    interval = f" [{percent(low)[:-1]}–{percent(high)}]" if low is not None and high is not None else ""
    count = f' <span class="note">n={int(n)}</span>' if n is not None else ""
    return f"{percent(accuracy)}{interval}{count}{ci_bar(accuracy, low, high)}"


def _scopes(policies: Sequence[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(label, kind, key) rows: overall, then each suite followed by its tasks."""
    suites = sorted({s for p in policies for s in (p.get("suites") or {})})
    tasks = sorted({t for p in policies for t in (p.get("tasks") or {})})
    rows = [("overall", "overall", "")]
    for suite in suites:
        rows.append((f"suite {suite}", "suites", suite))
        rows += [(f"\u2003{t}", "tasks", t) for t in tasks if t.split("/", 1)[0] == suite]
    listed = {key for _, kind, key in rows if kind == "tasks"}
    rows += [(t, "tasks", t) for t in tasks if t not in listed]
    return rows


def accuracy_table(policies: Sequence[dict[str, Any]]) -> str:
    """Rows: overall, suites, tasks; columns: one per policy."""
    names = [str(p.get("name", f"policy {i}")) for i, p in enumerate(policies)]
    rows = []
    for label, kind, key in _scopes(policies):
        cells = []
        for policy in policies:
            stats = policy.get("overall") if kind == "overall" else (policy.get(kind) or {}).get(key)
            cells.append(stats_cell(stats))
        strong = f"<strong>{esc(label)}</strong>" if kind != "tasks" else esc(label)
        rows.append([strong, *cells])
    return table(["scope", *names], rows)


def paired_table(paired: Sequence[Any]) -> str:
    """Paired differences (b minus a, in points) with their interval and wins/losses/ties."""
    rows = []
    for pair in paired:
        if not isinstance(pair, dict):
            continue
        diff, low, high = number(pair.get("diff")), number(pair.get("ci_low")), number(pair.get("ci_high"))
        clear = low is not None and high is not None and (low > 0 or high < 0)
        verdict = ('<span class="ok">clear</span>' if clear and (diff or 0) > 0 else
                   '<span class="bad">clear</span>' if clear else '<span class="note">within noise</span>')
        interval = f"[{_points(low)}, {_points(high)}]" if low is not None and high is not None else "–"
        record = "/".join(str(pair.get(k, "?")) for k in ("wins", "losses", "ties"))
        rows.append([esc(pair.get("a", "?")), esc(pair.get("b", "?")), esc(pair.get("scope", "")),
                     esc(pair.get("n", "")), _points(diff), interval, esc(record), verdict])
    if not rows:
        return empty("no paired comparisons in this file")
    return table(["a", "b", "scope", "n", "difference", "95% interval", "wins/losses/ties", ""], rows,
                 numeric=[False, False, False, True, True, True, True, False])


def _points(value: float | None) -> str:
    """A difference of accuracies in percentage points.

    >>> _points(0.125), _points(-0.05), _points(None)
    ('+12.5 pts', '-5.0 pts', '–')
    """
    return "–" if value is None else f"{value * 100:+.1f} pts"


def eval_file_html(result: EvalFile) -> str:
    """One results file: what was run, accuracy per policy, and the paired comparisons."""
    if result.data is None:
        return f"<h3>{esc(result.name)}</h3>" + f'<p class="bad">{esc(result.error)}</p>'
    data = result.data
    policies = [p for p in data["policies"] if isinstance(p, dict)]
    seeds = data.get("seeds") or []
    tasks = data.get("tasks") or []
    specs = "; ".join(f"{p.get('name', '?')} = {p.get('spec', '?')}" for p in policies)
    head = (f"<h3>{esc(result.name)}</h3><p class=\"note\">created {esc(data.get('created_at', '?'))}; "
            f"{len(tasks)} tasks; seeds {esc(', '.join(map(str, seeds)) or '–')}; policies: {esc(specs)}</p>")
    return (head + "<h4>Accuracy (95% interval)</h4>" + accuracy_table(policies)
            + "<h4>Paired comparisons</h4>" + paired_table(data.get("paired") or []))


def eval_section(evals: Sequence[EvalFile], metrics: Sequence[dict[str, Any]]) -> Section:
    """The ``eval`` section: every results file, then the in-loop ``eval/`` curves."""
    parts = [eval_file_html(e) for e in evals] or [empty(NO_EVAL)]
    curves = eval_charts(metrics)
    if curves:
        parts.append('<h3>In-loop held-out evaluation</h3><div class="charts">' + "".join(curves) + "</div>")
    return Section("eval", "Held-out evaluation", "\n".join(parts))
