"""Reading a run directory for the report, without changing it.

Environments are read in two passes: first the light rows of the environments the table shows
(from the archive's summaries: no code, no transcripts) and counts over all of them, then the full
records of only the few the page shows in detail. So a run with a hundred thousand environments
never sits in memory whole, and the page stays a few megabytes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from spadework.archive import ARCHIVE_FILE, Archive, EnvRecord, EnvSummary
from spadework.errors import ArchiveError, UsageError
from spadework.rewards import RegretEstimate
from spadework.rundir import CONFIG_FILE, METRICS_FILE


@dataclass(frozen=True)
class EnvRow:
    """What the environment table shows of one archived environment."""

    id: int
    iteration: int | None
    design_id: str
    attempt: int | None
    final: bool
    class_name: str | None
    valid: bool
    reason: str
    domain: str | None
    regret: float | None
    solve_nohint: float | None
    solve_hint: float | None
    regret_low: float | None = None
    """The regret's interval (both ends clipped at 0); None in archives written before it was kept."""
    regret_high: float | None = None
    confidence: float | None = None
    """The interval's two-sided confidence."""

    @classmethod
    def of(cls, record: EnvRecord) -> EnvRow:
        """The row of an archived record (what a record lacks is None: records not designed by
        the loop have no design, unplayed ones no play, older ones no interval)."""
        design = record.design
        play = design.play if design is not None else None
        row = cls(id=record.id or 0, iteration=None, design_id="", attempt=None, final=False,
                  class_name=record.class_name, valid=record.valid, reason=record.reason, domain=None,
                  regret=None, solve_nohint=None, solve_hint=None)
        if design is not None:
            row = replace(row, iteration=design.iteration, design_id=design.design_id, attempt=design.attempt,
                          final=design.final, domain=design.domain)
        if play is not None:
            row = replace(row, regret=number(play.regret), solve_nohint=number(play.solve_rate_nohint),
                          solve_hint=number(play.solve_rate_hint), regret_low=number(play.regret_low),
                          regret_high=number(play.regret_high), confidence=ci_confidence(play.estimate))
        return row

    @classmethod
    def of_summary(cls, s: EnvSummary) -> EnvRow:
        """The row of an archived record's summary (the same as ``of`` its record)."""
        return cls(id=s.id, iteration=s.iteration if s.designed else None, design_id=s.design_id,
                   attempt=s.attempt, final=s.final, class_name=s.class_name, valid=s.valid, reason=s.reason,
                   domain=s.domain, regret=number(s.regret), solve_nohint=number(s.solve_nohint),
                   solve_hint=number(s.solve_hint), regret_low=number(s.regret_low),
                   regret_high=number(s.regret_high), confidence=number(s.confidence))


@dataclass(frozen=True)
class Counts:
    """Counts over every archived environment (not only the rows read)."""

    environments: int = 0
    valid: int = 0
    designs: int = 0
    valid_designs: int = 0
    regret_mean: float | None = None
    """The mean regret of the valid designs that have one."""


@dataclass(frozen=True)
class RunData:
    """The parts of a run the report reads up front.

    Attributes:
        run_dir: the run directory.
        config_text: ``config.toml`` as written at the start, or None when missing.
        metrics: one dict per committed iteration, in iteration order.
        skipped_lines: lines of ``metrics.jsonl`` that were not JSON objects.
        rows: one row per archived environment, in id order: all of them, or the newest
            ``max_rows`` (``load_run``).
        counts: counts over every archived environment.
    """

    run_dir: Path
    config_text: str | None
    metrics: tuple[dict[str, Any], ...]
    skipped_lines: int
    rows: tuple[EnvRow, ...]
    counts: Counts = Counts()

    @property
    def valid_count(self) -> int:
        """Valid environments in the archive (all of them, not only the rows read)."""
        return self.counts.valid

    @property
    def designs(self) -> int:
        """Designs in the archive (their final attempts)."""
        return self.counts.designs

    @property
    def valid_designs(self) -> int:
        """Valid designs in the archive (valid final attempts)."""
        return self.counts.valid_designs


def number(value: Any) -> float | None:
    """A finite float, or None for anything else (missing, NaN, text, booleans).

    >>> number(1), number("x"), number(float("nan")), number(True)
    (1.0, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def ci_confidence(estimate: RegretEstimate | None) -> float | None:
    """The confidence of an archived regret interval, or None when there is none (older archives).

    >>> ci_confidence(RegretEstimate(2, 0.5, -0.4, 0.9)), ci_confidence(None)
    (0.95, None)
    """
    return number(estimate.confidence) if estimate is not None else None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_run_dir(run_dir: Path) -> Path:
    """``run_dir`` if it holds a run's archive; otherwise a UsageError that says what to pass."""
    if not run_dir.exists():
        raise UsageError(f"{run_dir} does not exist; pass a run directory written by `spadework run`")
    if not run_dir.is_dir():
        raise UsageError(f"{run_dir} is a file; pass the run directory that holds {ARCHIVE_FILE}")
    if not (run_dir / ARCHIVE_FILE).is_file():
        raise UsageError(f"{run_dir} is not a run directory (no {ARCHIVE_FILE}); pass the directory "
                         "`spadework run` wrote, e.g. runs/run-20260101-120000")
    return run_dir


def parse_metrics(lines: Iterable[str]) -> tuple[list[dict[str, Any]], int]:
    """The JSON-object lines of a metrics file, by iteration, and how many lines were not usable.

    A later line for the same iteration replaces an earlier one.

    >>> parse_metrics(['{"iteration": 1, "a": 2}', "{broken", '{"iteration": 0}', ""])
    ([{'iteration': 0}, {'iteration': 1, 'a': 2}], 1)
    """
    by_iteration: dict[int, dict[str, Any]] = {}
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            skipped += 1
            continue
        if not isinstance(data, dict) or _integer(data.get("iteration")) is None:
            skipped += 1
            continue
        by_iteration[data["iteration"]] = data
    return [by_iteration[k] for k in sorted(by_iteration)], skipped


def read_metrics(run_dir: Path, archive: Archive) -> tuple[list[dict[str, Any]], int]:
    """``metrics.jsonl``, or the archive's committed iterations when the file is missing."""
    path = run_dir / METRICS_FILE
    if path.is_file():
        with open(path, encoding="utf-8", errors="replace") as handle:
            return parse_metrics(handle)
    return [{"iteration": i, **m} for i, m in archive.iterations()], 0


def open_archive(run_dir: Path) -> Archive:
    """The run's archive, opened for reading; a damaged one is a UsageError naming the file."""
    try:
        return Archive.open(check_run_dir(run_dir), create=False)
    except ArchiveError as exc:
        raise UsageError(f"cannot read the run's archive: {exc}") from exc


def load_run(run_dir: Path, max_rows: int | None = None) -> RunData:
    """Config text, per-iteration metrics, counts, and one light row per environment of ``run_dir``
    (the newest ``max_rows`` of them; all when None).

    Raises:
        UsageError: ``run_dir`` is not a run directory, or its archive cannot be read.
    """
    config_path = run_dir / CONFIG_FILE
    config_text = config_path.read_text(encoding="utf-8", errors="replace") if config_path.is_file() else None
    with open_archive(run_dir) as archive:
        metrics, skipped = read_metrics(run_dir, archive)
        rows = tuple(EnvRow.of_summary(s) for s in archive.summaries(newest=max_rows))
        counts = Counts(**archive.summary_counts())
    return RunData(run_dir, config_text, tuple(metrics), skipped, rows, counts)


def fetch_records(run_dir: Path, ids: Iterable[int]) -> dict[int, EnvRecord]:
    """The full records of ``ids`` (code, verdict, transcripts), by id."""
    with open_archive(run_dir) as archive:
        return {i: archive.get(i) for i in ids}
