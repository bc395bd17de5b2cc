"""An evaluation's output: one JSON file (the shape below) and rich tables of it.

::

    {"created_at": ISO time, "seeds": [...], "tasks": [{"suite", "task"}],
     "policies": [{"name", "spec",
                   "tasks": {"<suite>/<task>": TALLY}, "suites": {"<suite>": TALLY}, "overall": TALLY,
                   "items": [{"suite", "task", "seed", "score", "solved", "turns"}]}],
     "paired": [{"a", "b", "scope", "n", "diff", "ci_low", "ci_high", "wins", "losses", "ties"}]}

where TALLY is ``{"n", "solved", "accuracy", "ci_low", "ci_high", "mean_score"}`` (Wilson 95%
interval); a policy that played BFCL also has ``"bfcl"`` (``bfcl_summary``) and its items the
entry, the checker's error and the entry's figures; and ``paired`` (empty with one policy)
compares the second policy (b) with the first (a) on every task, every suite and ``overall``:
``diff`` is b's accuracy minus a's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from spadework.eval.runner import OVERALL, EvalResult, Tally, call_rates
from spadework.eval.stats import PairedStats, paired_comparison
from spadework.eval.tasks import Suite
from spadework.rundir import write_atomically

EVAL_DIR = "eval"
"""Where a run keeps its evaluation reports (``RUN_DIR/eval/*.json``); its report reads them."""


@dataclass(frozen=True)
class PolicyEval:
    """One policy's evaluation under its name.

    Attributes:
        name: the policy's name in the report.
        spec: the ``--policy`` text as given.
        result: what it did.
    """

    name: str
    spec: str
    result: EvalResult

    def to_json(self) -> dict[str, Any]:
        """The policy's results as JSON: tallies per task, per suite and overall, and every item."""
        result = self.result
        return {
            "name": self.name,
            "spec": self.spec,
            "tasks": {t.key: result.tally(t.key).to_json() for t in result.tasks},
            "suites": {s.value: result.tally(s.value).to_json() for s in result.suites()},
            "overall": result.tally(OVERALL).to_json(),
            "items": [item.to_json() for item in result.items],
            **({"bfcl": bfcl_summary(result)} if result.bfcl is not None else {}),
        }


def bfcl_summary(result: EvalResult) -> dict[str, Any]:
    """How the BFCL entries were played and what they cost: the call format, the leaderboard's
    overall figure (the unweighted mean of the categories' accuracies), calls with positional
    arguments (the leaderboard's decoder drops those arguments), undecodable replies, prompt
    tokens processed per token of the entries' own prompts (multi-turn), and seconds per entry;
    with single-turn entries, their ``call_rate`` and ``valid_call_rate`` (``runner.call_rates``);
    and per category (``categories``) its tally and, single-turn, its call rates."""
    items = result.items_in(Suite.BFCL.value)
    categories = [t.key for t in result.tasks if t.suite is Suite.BFCL]
    per_category = {key.removeprefix("bfcl/"): {**result.tally(key).to_json(),
                                                **call_rates(result.items_in(key))} for key in categories}
    total = {name: sum(i.figures.get(name, 0.0) for i in items)
             for name in ("steps", "positional_calls", "undecodable", "processed_tokens", "entry_tokens",
                          "seconds")}
    return {
        "format": result.bfcl.call_format.value if result.bfcl else None,
        "overall": sum(result.tally(c).accuracy for c in categories) / len(categories) if categories else 0.0,
        "entries": len(items),
        **{name: value for name, value in total.items() if name != "seconds"},
        "processed_per_entry_token": (total["processed_tokens"] / total["entry_tokens"]
                                      if total["entry_tokens"] else 0.0),
        "seconds_per_entry": total["seconds"] / len(items) if items else 0.0,
        **call_rates(items),
        "categories": per_category,
    }


@dataclass(frozen=True)
class PairedRow:
    """Policy b against policy a on one scope (a task, a suite or ``overall``)."""

    a: str
    b: str
    scope: str
    stats: PairedStats

    def to_json(self) -> dict[str, Any]:
        """The comparison as JSON: the difference with its interval, and wins, losses and ties."""
        s = self.stats
        return {"a": self.a, "b": self.b, "scope": self.scope, "n": s.n, "diff": s.diff, "ci_low": s.ci_low,
                "ci_high": s.ci_high, "wins": s.wins, "losses": s.losses, "ties": s.ties}


def paired_rows(a: PolicyEval, b: PolicyEval) -> tuple[PairedRow, ...]:
    """b against a on every scope of a's evaluation, over the (task, seed) items both played."""
    theirs = {(i.key, i.seed): i.solved for i in b.result.items}
    rows = []
    for scope in a.result.scopes():
        pairs = [(i.solved, theirs[(i.key, i.seed)]) for i in a.result.items_in(scope)
                 if (i.key, i.seed) in theirs]
        stats = paired_comparison([x for x, _ in pairs], [y for _, y in pairs])
        rows.append(PairedRow(a.name, b.name, scope, stats))
    return tuple(rows)


def report_json(evals: Sequence[PolicyEval], created_at: str) -> dict[str, Any]:
    """The whole report (see the module); ``paired`` compares the second policy with the first."""
    first = evals[0].result
    paired = paired_rows(evals[0], evals[1]) if len(evals) == 2 else ()
    return {
        "created_at": created_at,
        "seeds": list(first.seeds),
        "tasks": [t.to_json() for t in first.tasks],
        "policies": [e.to_json() for e in evals],
        "paired": [row.to_json() for row in paired],
    }


def write_report(path: Path, report: dict[str, Any]) -> Path:
    """Write ``report`` as JSON at ``path`` (folders made; atomic: never half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(report, indent=2) + "\n")
    return path


def _cell(tally: Tally) -> str:
    low, high = tally.interval
    return f"{tally.accuracy:.2f} [{low:.2f}, {high:.2f}]"


def accuracy_table(evals: Sequence[PolicyEval]) -> Table:
    """Accuracy with its 95% interval and mean score, per task, suite and overall, per policy."""
    table = Table(title="Held-out accuracy (95% Wilson interval)")
    table.add_column("scope", overflow="fold")
    table.add_column("n", justify="right")
    for e in evals:
        table.add_column(f"{e.name} accuracy", justify="right")
        table.add_column("score", justify="right")
    first = evals[0].result
    for scope in first.scopes():
        bold = scope in {s.value for s in first.suites()} or scope == OVERALL
        cells = []
        for e in evals:
            tally = e.result.tally(scope)
            cells += [_cell(tally), f"{tally.mean_score:.2f}"]
        label = f"[bold]{scope}[/]" if bold else scope
        table.add_row(label, str(first.tally(scope).n), *cells)
    return table


def paired_table(rows: Sequence[PairedRow]) -> Table:
    """The paired rows: b minus a, its 95% interval, wins, losses and ties."""
    a, b = (rows[0].a, rows[0].b) if rows else ("a", "b")
    table = Table(title=f"{b} minus {a} on the same items (95% interval)")
    for column in ("scope", "n", "diff", "95% interval", "wins", "losses", "ties"):
        table.add_column(column, justify="left" if column == "scope" else "right", overflow="fold")
    for row in rows:
        s = row.stats
        table.add_row(row.scope, str(s.n), f"{s.diff:+.2f}", f"[{s.ci_low:+.2f}, {s.ci_high:+.2f}]",
                      str(s.wins), str(s.losses), str(s.ties))
    return table
