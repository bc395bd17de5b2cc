"""The ablation page: the comparison table, and every arm's diversity map side by side."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spadework.report.diversity_map import iteration_fills, point_label
from spadework.report.shell import Section, empty, esc, page, percent, table, with_interval
from spadework.report.svg import ScatterPoint, format_number, svg_scatter

if TYPE_CHECKING:
    from spadework.diversity.records import RunDiversity

@dataclass(frozen=True)
class AblationRow:
    """One arm's figures (``None``: not measured). ``diversity``, ``near_duplicate_rate`` and
    ``clusters`` are of the arm's valid environments; the ``designs_*`` figures of every design
    the designer wrote, valid or not (``designs_measured`` of them had code to measure)."""

    arm: str
    run_dir: str
    designs: int
    valid: int
    valid_rate: float
    mean_regret: float
    diversity: float
    near_duplicate_rate: float
    clusters: int
    collapse_alarms: int
    eval_accuracy: float | None = None
    eval_ci: tuple[float, float] | None = None
    diversity_ci: tuple[float, float] | None = None
    near_duplicate_ci: tuple[float, float] | None = None
    designs_measured: int | None = None
    designs_diversity: float | None = None
    designs_diversity_ci: tuple[float, float] | None = None
    designs_near_duplicate_rate: float | None = None
    designs_near_duplicate_ci: tuple[float, float] | None = None


COLUMNS = ("arm", "what changes", "valid", "mean regret", "diversity", "near-duplicates", "clusters",
           "every design: diversity", "every design: near-duplicates", "collapse alarms", "held-out eval")


def figure_cells(row: AblationRow, number: Callable[[float], str], share: Callable[[float], str],
                 missing: str) -> list[str]:
    """An arm's figures in ``COLUMNS`` order after its name and description: numbers shown by
    ``number``, shares by ``share``, a figure not measured as ``missing``.

    >>> row = AblationRow("full", "r", 4, 1, 0.25, 0.0, 0.5, 0.0, 1, 0, designs_measured=3,
    ...                   designs_diversity=0.5, designs_diversity_ci=(0.25, 0.75),
    ...                   designs_near_duplicate_rate=0.0)
    >>> figure_cells(row, str, str, "-")
    ['1/4 (0.25)', '0.0', '0.5', '0.0', '1', '0.5 [0.25, 0.75] of 3', '0.0', '0', '-']
    """
    every_design = [missing, missing]
    if row.designs_diversity is not None and row.designs_near_duplicate_rate is not None:
        diversity = with_interval(number(row.designs_diversity), row.designs_diversity_ci, number)
        near = with_interval(share(row.designs_near_duplicate_rate), row.designs_near_duplicate_ci, share)
        every_design = [f"{diversity} of {row.designs_measured}", near]
    held_out = missing
    if row.eval_accuracy is not None:
        held_out = with_interval(share(row.eval_accuracy), row.eval_ci, share)
    return [f"{row.valid}/{row.designs} ({share(row.valid_rate)})", number(row.mean_regret),
            with_interval(number(row.diversity), row.diversity_ci, number),
            with_interval(share(row.near_duplicate_rate), row.near_duplicate_ci, share), str(row.clusters),
            *every_design, str(row.collapse_alarms), held_out]


def comparison_table(rows: Sequence[AblationRow], descriptions: Mapping[Any, str]) -> str:
    """One row per arm (every cell escaped)."""
    by_name = {str(k): v for k, v in descriptions.items()}
    cells = [[esc(r.arm), esc(by_name.get(r.arm, "")),
              *(esc(c) for c in figure_cells(r, format_number, percent, "–"))] for r in rows]
    return table(COLUMNS, cells, numeric=(False, False) + (True,) * (len(COLUMNS) - 2))


def map_svg(diversity: RunDiversity, what: str = "environments") -> str | None:
    """A run's map as one SVG (coloured by iteration); None when there is nothing to map."""
    points = diversity.points
    if not points:
        return None
    fills, _ = iteration_fills(points)
    scatter = [ScatterPoint(p.x, p.y, fill, point_label(p)) for p, fill in zip(points, fills, strict=True)]
    return svg_scatter(scatter, title=f"{len(points)} {what} ({diversity.projection})",
                       x_label="colour: iteration, dark (early) to yellow (late)")


def arm_map(name: str, diversity: RunDiversity, what: str = "environments") -> str:
    """One arm's map, coloured by iteration, with its scores under the title."""
    overall = diversity.overall
    score = with_interval(format_number(overall.score), diversity.score_ci, format_number)
    near = with_interval(percent(overall.near_duplicate_rate), diversity.near_duplicate_ci, percent)
    summary = f"diversity {score}, near-duplicates {near}, {overall.clusters} clusters"
    scatter = map_svg(diversity, what)
    if scatter is None:
        return f"<figure><h3>{esc(name)}</h3>{empty(f'no {what} to map')}</figure>"
    return f'<figure><h3>{esc(name)}</h3><p class="note">{esc(summary)}</p>{scatter}</figure>'


def ablation_page(rows: Sequence[AblationRow], maps: Mapping[str, RunDiversity],
                  descriptions: Mapping[Any, str],
                  design_maps: Mapping[str, RunDiversity] | None = None) -> str:
    """The whole page: the table, then the maps in the table's order (of the valid environments, and
    of every design when ``design_maps`` are given)."""
    figures = "".join(arm_map(r.arm, maps[r.arm]) for r in rows if r.arm in maps)
    note = ('<p class="note">Each arm is a run of its own at the same scale and seed. Diversity is the '
            "mean pairwise cosine distance of the valid environments' embeddings; near-duplicates have "
            "a nearest neighbour closer than the near-duplicate distance. \"Every design\" measures what "
            "the designer wrote, valid or not (each design's final attempt that names an environment "
            "class). Brackets: 95% intervals (the diversity score's by the jackknife over environments, "
            "the near-duplicate rate's Wilson's).</p>")
    sections = [Section("comparison", "Comparison", note + comparison_table(rows, descriptions)),
                Section("maps", "Diversity maps", f'<div class="charts">{figures}</div>')]
    if design_maps:
        designs = "".join(arm_map(r.arm, design_maps[r.arm], "designs") for r in rows if r.arm in design_maps)
        sections.append(Section("design-maps", "Maps of every design",
                                f'<div class="charts">{designs}</div>'))
    return page("spadework ablation", sections, subtitle=f"{len(rows)} arms")
