"""``build_report``: one self-contained ``report.html`` from a run directory.

The report only reads the run (config, metrics, archive, evaluation results); the one file
it writes is the report itself, atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from spadework.errors import SpadeworkError
from spadework.report.calibration import calibration_section, load_calibrations
from spadework.report.curves import curves_section
from spadework.report.diversity_map import map_section
from spadework.report.environments import DEFAULT_LIMITS, Limits, environments_section
from spadework.report.evaluation import eval_section, load_evals
from spadework.report.overview import config_section
from spadework.report.rundata import check_run_dir, load_run
from spadework.report.shell import Section, page
from spadework.rundir import write_atomically

if TYPE_CHECKING:  # the diversity part is imported only when it measures
    from spadework.diversity.records import RunDiversity

REPORT_FILE = "report.html"
SECTION_IDS = ("config", "curves", "eval", "diversity", "environments")
"""The section ids of every report, in page order; a run with calibration results
(``spadework calibrate``) also gets ``calibration`` after ``eval``."""


def measure_diversity(run_dir: Path, valid: int) -> tuple[RunDiversity | None, str]:
    """The run's diversity, or None with the reason it could not be measured."""
    if valid == 0:
        return None, "no valid environments yet: nothing to measure"
    try:
        from spadework.engines import measure_run
    except ImportError as exc:
        return None, f"diversity cannot be measured in this install ({exc})"
    try:
        return measure_run(run_dir), ""
    except (SpadeworkError, ImportError) as exc:
        return None, f"diversity could not be measured: {exc}"


def report_sections(run_dir: Path, diversity: RunDiversity | None = None,
                    limits: Limits = DEFAULT_LIMITS) -> list[Section]:
    """The sections of a run's report, in page order (see ``SECTION_IDS``)."""
    run = load_run(run_dir, limits.max_rows)
    note = ""
    if diversity is None:
        diversity, note = measure_diversity(run_dir, run.valid_count)
    calibrations = load_calibrations(run_dir)
    return [
        config_section(run),
        curves_section(run.metrics),
        eval_section(load_evals(run_dir), run.metrics),
        *([calibration_section(calibrations)] if calibrations else []),
        map_section(diversity, note),
        environments_section(run_dir, run.rows, limits, total=run.counts.environments),
    ]


def build_report(run_dir: Path, diversity: RunDiversity | None = None, *, out: Path | None = None,
                 limits: Limits = DEFAULT_LIMITS) -> Path:
    """Write the HTML report of ``run_dir`` and return its path.

    Args:
        run_dir: a run directory (holds ``archive.sqlite``).
        diversity: the run's diversity; measured here with ``spadework.engines.measure_run``
            when None (the section says why when it cannot be).
        out: where to write; default ``RUN_DIR/report.html``.
        limits: bounds on rows, details and text lengths.

    Raises:
        UsageError: ``run_dir`` is not a run directory, or its archive cannot be read.
    """
    run_dir = check_run_dir(Path(run_dir))
    target = Path(out) if out is not None else run_dir / REPORT_FILE
    html = page(f"spadework run · {run_dir.resolve().name}", report_sections(run_dir, diversity, limits),
                subtitle=str(run_dir))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, html)
    return target
