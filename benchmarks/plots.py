"""The results pages' figures, drawn from run directories: anyone redraws them from their own runs.

    python benchmarks/plots.py RUN_DIR [RUN_DIR ...] --out docs/images/NAME [--label NAME ...]

Writes SVG files into ``--out`` (one line per run in each chart, labelled by ``--label`` or the
run directory's name; an ablation's ``OUT/<arm>/`` folders are runs like any other):

- ``solve-rate.svg``: the agent's no-hint solve rate per iteration, with its 95% Wilson band
  (dashed) from the iteration's no-hint episodes (``episodes/iteration-NNNN.jsonl``);
- ``probe.svg``: the held-out probe's accuracy wherever the loop measured it (``eval/probe/accuracy``);
- ``windows.svg``: per designer window, the share of valid environments in the band
  (``reward/in_band_share``) and the design valid rate;
- ``diversity.svg``: the diversity score per iteration, collapse alarms marked;
- ``map-<label>.svg``: each run's environment map, coloured from its first iteration (dark) to its
  last (light).

A chart whose metric no run recorded is left out, and says so on the terminal.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadework.engines import measure_run
from spadework.report.svg import Mark, ScatterPoint, Series, sequential_colour, svg_line_chart, svg_scatter
from spadework.rewards.interval import wilson_interval

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


@dataclass(frozen=True)
class Run:
    """A run directory's metrics, read once."""

    label: str
    path: Path
    metrics: tuple[dict[str, Any], ...]


def read_run(path: Path, label: str | None = None) -> Run:
    """The run at ``path`` (its ``metrics.jsonl``).

    Raises:
        SystemExit: no ``metrics.jsonl`` there.
    """
    file = path / "metrics.jsonl"
    if not file.is_file():
        raise SystemExit(f"{path}: no metrics.jsonl; give the run directory of a spadework run")
    rows = tuple(json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip())
    return Run(label or path.name, path, rows)


def nohint_counts(run: Run) -> dict[int, tuple[int, int]]:
    """Iteration -> (solved, played) of its no-hint episodes, from the run's episode files."""
    counts = {}
    for file in sorted((run.path / "episodes").glob("iteration-*.jsonl")):
        played = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
        nohint = [e for e in played if e.get("arm") == "nohint"]
        counts[int(file.stem.split("-")[1])] = (sum(bool(e["solved"]) for e in nohint), len(nohint))
    return counts


def band_series(label: str, counts: dict[int, tuple[int, int]], colour: str) -> list[Series]:
    """A rate per iteration and its 95% Wilson band (dashed), from (solved, played) counts.

    >>> [s.points for s in band_series("a", {0: (1, 4), 1: (3, 4)}, "#000")][0]
    ((0.0, 0.25), (1.0, 0.75))
    >>> [round(y, 2) for _, y in band_series("a", {0: (1, 4)}, "#000")[1].points]
    [0.05]
    """
    rows = sorted((i, s, n) for i, (s, n) in counts.items() if n)
    bounds = [(float(i), *wilson_interval(s, n)) for i, s, n in rows]
    return [Series(label, tuple((float(i), s / n) for i, s, n in rows), colour),
            Series(f"{label} 95% low", tuple((x, lo) for x, lo, _ in bounds), colour, dashed=True),
            Series(f"{label} 95% high", tuple((x, hi) for x, _, hi in bounds), colour, dashed=True)]


def metric_series(run: Run, name: str, colour: str, label: str | None = None, dashed: bool = False) -> Series:
    """One metric of a run over its iterations (the rows that carry it)."""
    points = tuple((float(m["iteration"]), float(m[name])) for m in run.metrics if name in m)
    return Series(label or run.label, points, colour, dashed)


def window_series(run: Run, name: str, colour: str, label: str, dashed: bool = False) -> Series:
    """A metric of each closing designer window (rows with ``reward/in_band_share``), x = window number;
    ``design/valid_rate`` is read from the row that opened the window."""
    opened, points = None, []
    for row in run.metrics:
        opened = row if "design/valid_rate" in row else opened
        if "reward/in_band_share" in row:
            source = opened if name == "design/valid_rate" else row
            if source is not None and name in source:
                points.append((float(len(points)), float(source[name])))
    return Series(label, tuple(points), colour, dashed)


def charts(runs: Sequence[Run]) -> dict[str, str]:
    """File name -> SVG of every chart some run has data for (see the module)."""
    colours = {run.label: COLOURS[i % len(COLOURS)] for i, run in enumerate(runs)}
    out: dict[str, str] = {}
    solve = [s for run in runs for s in band_series(run.label, nohint_counts(run), colours[run.label])]
    if not any(s.points for s in solve):
        solve = [metric_series(run, "rollout/solve_rate_nohint", colours[run.label]) for run in runs]
    _add(out, "solve-rate.svg", "The agent's no-hint solve rate (95% band dashed)", solve, "iteration")
    probe = [metric_series(run, "eval/probe/accuracy", colours[run.label]) for run in runs]
    _add(out, "probe.svg", "Held-out probe accuracy", probe, "iteration")
    windows = [s for run in runs for s in (
        window_series(run, "reward/in_band_share", colours[run.label], f"{run.label} in band"),
        window_series(run, "design/valid_rate", colours[run.label], f"{run.label} valid", dashed=True))]
    _add(out, "windows.svg", "Per designer window: share in the band, valid rate (dashed)", windows, "window")
    diversity = [metric_series(run, "diversity/score", colours[run.label]) for run in runs]
    marks = [Mark(float(m["iteration"]), f"{run.label}: collapse alarm") for run in runs for m in run.metrics
             if m.get("diversity/collapse")]
    _add(out, "diversity.svg", "Diversity of the valid environments", diversity, "iteration", marks)
    return out


def _add(out: dict[str, str], name: str, title: str, series: Sequence[Series], x_label: str,
         marks: Sequence[Mark] = ()) -> None:
    if any(s.points for s in series):
        drawn = [s for s in series if s.points]
        out[name] = svg_line_chart(title, drawn, x_label=x_label, y_range=(0.0, 1.0), marks=marks)


def map_svg(run: Run) -> str | None:
    """The run's environment map coloured by iteration, or None with fewer than three environments."""
    points = [p for p in measure_run(run.path).points if p.iteration is not None]
    if len(points) < 3:
        return None
    last = max(1, max(p.iteration or 0 for p in points))
    dots = [ScatterPoint(p.x, p.y, sequential_colour((p.iteration or 0) / last),
                         f"{p.class_name or p.record_id} (iteration {p.iteration})") for p in points]
    return svg_scatter(dots, title=f"{run.label}: environments, first iteration dark, last light")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--label", action="append", default=[], help="a label per run, in order")
    args = parser.parse_args()
    labels = args.label + [None] * (len(args.runs) - len(args.label))
    runs = [read_run(path, label) for path, label in zip(args.runs, labels, strict=True)]
    args.out.mkdir(parents=True, exist_ok=True)
    written = charts(runs)
    for run in runs:
        if (svg := map_svg(run)) is not None:
            written[f"map-{run.label}.svg"] = svg
    for name, svg in written.items():
        (args.out / name).write_text(svg, encoding="utf-8")
    left = {"solve-rate.svg", "probe.svg", "windows.svg", "diversity.svg"} - set(written)
    print(f"wrote {', '.join(sorted(written))} into {args.out}"
          + (f"; nothing recorded for {', '.join(sorted(left))}" if left else ""))


if __name__ == "__main__":
    main()
