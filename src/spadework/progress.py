"""Showing a run as it goes: progress bars per phase and a short table per iteration."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

SUMMARY = (
    ("valid", "design/valid_rate", "{:.0%}"),
    ("repaired", "design/repair_success", "{:.0%}"),
    ("regret", "reward/regret_mean", "{:.3f}"),
    ("solved", "rollout/solve_rate_nohint", "{:.0%}"),
    ("with hint", "rollout/solve_rate_hint", "{:.0%}"),
    ("diversity", "diversity/score", "{:.2f}"),
    ("episodes", "rollout/episodes", "{:.0f}"),
    ("tok/s", "perf/tokens_per_s", "{:.1f}"),
    ("seconds", "perf/iteration_s", "{:.0f}"),
)


class RichReporter:
    """A progress bar per phase (advanced by every generation round) and a table per iteration."""

    def __init__(self, console: Console | None = None):
        self.console = console or Console()
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TimeElapsedColumn(), console=self.console,
                                 transient=True)
        self.task: Any = None

    def __enter__(self) -> RichReporter:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def phase(self, name: str, total: int | None) -> None:
        """Show a progress bar for the phase (replacing the previous one)."""
        if self.task is not None:
            self.progress.remove_task(self.task)
        self.task = self.progress.add_task(name, total=total)

    def advance(self, amount: int = 1) -> None:
        """Advance the phase's progress bar."""
        if self.task is not None:
            self.progress.advance(self.task, amount)

    def iteration_done(self, iteration: int, metrics: dict[str, float]) -> None:
        """Print the iteration's summary table."""
        if self.task is not None:
            self.progress.remove_task(self.task)
            self.task = None
        table = Table(title=f"iteration {iteration}")
        for label, _, _ in SUMMARY:
            table.add_column(label, justify="right")
        table.add_row(*(fmt.format(metrics[key]) if key in metrics else "–" for _, key, fmt in SUMMARY))
        self.console.print(table)
        if metrics.get("diversity/collapse"):
            self.console.print("[bold red]collapse alarm:[/] the most recent environments all fall into "
                               "one cluster (see diversity/... in metrics.jsonl and the report)")
