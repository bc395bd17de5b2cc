"""The ``calibration`` section: what ``spadework calibrate`` found (``RUN_DIR/calibration/*.json``).

Shown only when the run has calibration results. Per results file: every environment's kind, the
validator's word, solve rates per arm and regret with its interval; then whether regret ranks
right (Spearman's rho) and how many paired plays separate frontier from easy. A file that cannot
be read is reported in the section, never a crash of the report; all its text is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spadework.calibrate.records import Screening
from spadework.calibrate.report import CALIBRATION_DIR
from spadework.report.evaluation import ci_bar
from spadework.report.rundata import number
from spadework.report.shell import ResultsFile, Section, esc, load_results, percent, table

MISSED = Screening.LEAK_MISSED.value


CalibrationResults = ResultsFile
"""One ``RUN_DIR/calibration/*.json``."""


def load_calibrations(run_dir: Path) -> list[CalibrationResults]:
    """Every ``RUN_DIR/calibration/*.json``, oldest name first."""
    return load_results(run_dir / CALIBRATION_DIR, "environments", "a calibration result")


def regret_cell(env: dict[str, Any]) -> str:
    """``0.75 [0.32–1.00]`` with its bar; an en dash for an environment not played.

    >>> regret_cell({"regret": 0.5, "regret_low": 0.25, "regret_high": 0.75}).split("<svg")[0]
    '0.50 [0.25–0.75]'
    >>> regret_cell({"regret": None})
    '–'
    """
    regret = number(env.get("regret"))
    low, high = number(env.get("regret_low")), number(env.get("regret_high"))
    if regret is None:
        return "–"
    interval = f" [{low:.2f}–{high:.2f}]" if low is not None and high is not None else ""
    return f"{regret:.2f}{interval}{ci_bar(regret, low, high)}"


def _screening(env: dict[str, Any]) -> str:
    word = str(env.get("screening", "?"))
    css = "bad" if word == MISSED else "ok" if word in (Screening.VALID, Screening.LEAK_CAUGHT) else "note"
    return f'<span class="{css}">{esc(word)}</span>'


def environments_table(environments: Sequence[Any]) -> str:
    """One row per environment: kind, validator, solve rates, regret; the reason when rejected."""
    rows = []
    for env in environments:
        if not isinstance(env, dict):
            continue
        played = isinstance(env.get("scores"), dict)
        reason = "" if played else f'<br><span class="note">{esc(env.get("reason", ""))}</span>'
        rates = [percent(number(env.get(f"solve_rate_{arm}"))) for arm in ("nohint", "hint")]
        rows.append([esc(env.get("name", "?")) + reason, esc(env.get("kind", "?")), _screening(env), *rates,
                     regret_cell(env)])
    headers = ["environment", "kind", "validator", "solved, no hint", "solved, hint", "regret [95%]"]
    return table(headers, rows, numeric=[False, False, False, True, True, True])


def summary_html(summary: Any) -> str:
    """Missed leaks, the rank correlation with its meaning, and the separation, in words."""
    summary = summary if isinstance(summary, dict) else {}
    spearman = summary.get("spearman") if isinstance(summary.get("spearman"), dict) else {}
    separation = summary.get("separation") if isinstance(summary.get("separation"), dict) else {}
    rho = number(spearman.get("rho"))
    parts = [f'<p class="bad">{MISSED}: {esc(", ".join(map(str, summary.get("leaks_missed") or [])))}</p>'
             if summary.get("leaks_missed") else ""]
    rho_text = "undefined (every regret, or every expected score, the same)" if rho is None else f"{rho:+.2f}"
    parts.append(f"<p>Spearman's rho, regret against the expected order ({esc(spearman.get('n', '?'))} "
                 f"environments): <strong>{esc(rho_text)}</strong> "
                 f'<span class="note">{esc(spearman.get("meaning", ""))}</span></p>')
    parts.append(f"<p>Frontier above easy at 95%: {esc(separation.get('text', '–'))}</p>")
    return "".join(parts)


def calibration_file_html(result: CalibrationResults) -> str:
    """One results file: what was run, the environments, the findings."""
    if result.data is None:
        return f"<h3>{esc(result.name)}</h3>" + f'<p class="bad">{esc(result.error)}</p>'
    data = result.data
    policy = found if isinstance(found := data.get("policy"), dict) else {}
    seeds = ", ".join(map(str, data.get("seeds") or [])) or "–"
    head = (f"<h3>{esc(result.name)}</h3><p class=\"note\">created {esc(data.get('created_at', '?'))}; "
            f"policy {esc(policy.get('name', '?'))} = {esc(policy.get('spec', '?'))}; seeds {esc(seeds)}</p>")
    return head + environments_table(data["environments"]) + summary_html(data.get("summary"))


def calibration_section(results: Sequence[CalibrationResults]) -> Section:
    """The ``calibration`` section: every results file."""
    return Section("calibration", "Calibration", "\n".join(calibration_file_html(r) for r in results))
