"""The ``diversity`` section: collapse alarms, the 2-D map of valid environments, diversity curves.

The map is one SVG scatter; the colour-by buttons switch each point's fill to the colours
precomputed here (embedded as JSON), so the page's script never computes colours.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from spadework.report.rundata import number
from spadework.report.shell import Section, definition_list, empty, esc, percent, script_json, with_interval
from spadework.report.svg import (
    MISSING_COLOUR,
    PALETTE,
    Mark,
    ScatterPoint,
    Series,
    format_number,
    sequential_colour,
    svg_line_chart,
    svg_scatter,
)

if TYPE_CHECKING:  # records only; the measuring part is not needed to draw a measurement
    from spadework.diversity.records import MapPoint, RunDiversity

COLOUR_MODES = ("iteration", "domain", "regret")
OTHER_COLOUR = "#9aa3ad"
_NAMED_DOMAINS = 9

Legend = list[tuple[str, str]]


def iteration_fills(points: Sequence[MapPoint]) -> tuple[list[str], Legend]:
    """Fills from early (dark) to late (yellow) iterations, and a legend of up to six steps.

    >>> fills, legend = iteration_fills([_point(0, iteration=0), _point(1, iteration=4)])
    >>> fills, legend[0], legend[-1]
    (['#440154', '#fde725'], ('iteration 0', '#440154'), ('iteration 4', '#fde725'))
    """
    known = [p.iteration for p in points if p.iteration is not None]
    lo, hi = (min(known), max(known)) if known else (0, 0)

    def colour(iteration: int | None) -> str:
        if iteration is None:
            return MISSING_COLOUR
        return sequential_colour((iteration - lo) / (hi - lo) if hi > lo else 1.0)

    steps = sorted(set(known)) if len(set(known)) <= 6 else [round(lo + (hi - lo) * k / 5) for k in range(6)]
    legend = [(f"iteration {i}", colour(i)) for i in steps]
    if len(known) < len(points):
        legend.append(("iteration unknown", MISSING_COLOUR))
    return [colour(p.iteration) for p in points], legend


def domain_fills(points: Sequence[MapPoint]) -> tuple[list[str], Legend]:
    """One colour per domain, the most frequent first; rarer domains share "other".

    >>> domain_fills([_point(0, domain="games"), _point(1, domain=None), _point(2, domain="games")])
    (['#2f6db3', '#b8bec6', '#2f6db3'], [('games (2)', '#2f6db3'), ('no domain (1)', '#b8bec6')])
    """
    counts = Counter(p.domain for p in points if p.domain is not None)
    named = [d for d, _ in counts.most_common(_NAMED_DOMAINS)]
    colours = {d: PALETTE[i % len(PALETTE)] for i, d in enumerate(named)}
    fills = [MISSING_COLOUR if p.domain is None else colours.get(p.domain, OTHER_COLOUR) for p in points]
    legend = [(f"{d} ({counts[d]})", colours[d]) for d in named]
    others = sum(n for d, n in counts.items() if d not in colours)
    if others:
        legend.append((f"other domains ({others})", OTHER_COLOUR))
    missing = sum(1 for p in points if p.domain is None)
    if missing:
        legend.append((f"no domain ({missing})", MISSING_COLOUR))
    return fills, legend


def regret_fills(points: Sequence[MapPoint]) -> tuple[list[str], Legend]:
    """Regret on [0, 1] from dark (0: too easy or broken) to yellow (1: solved only with the hint).

    >>> regret_fills([_point(0, regret=0.0), _point(1, regret=None)])[0]
    ['#440154', '#b8bec6']
    """
    regrets = [number(p.regret) for p in points]
    fills = [MISSING_COLOUR if r is None else sequential_colour(r) for r in regrets]
    legend = [(f"regret {v:g}", sequential_colour(v)) for v in (0.0, 0.25, 0.5, 0.75, 1.0)]
    if any(r is None for r in regrets):
        legend.append(("regret unknown", MISSING_COLOUR))
    return fills, legend


_FILLS = {"iteration": iteration_fills, "domain": domain_fills, "regret": regret_fills}


def _point(record_id: int, iteration: int | None = 0, domain: str | None = None,
           regret: float | None = None) -> MapPoint:
    """A map point for examples and tests."""
    from spadework.diversity.records import MapPoint

    return MapPoint(record_id, 0.0, 0.0, iteration, domain, regret, 0, "Env")


def point_label(point: MapPoint) -> str:
    """The hover text of a point.

    >>> point_label(_point(7, iteration=2, domain="games", regret=0.5))
    '#7 Env: iteration 2, domain games, regret 0.50, cluster 0'
    """
    value = number(point.regret)
    regret = "?" if value is None else f"{value:.2f}"
    iteration = "?" if point.iteration is None else point.iteration
    return (f"#{point.record_id} {point.class_name or '?'}: iteration {iteration}, "
            f"domain {point.domain or 'none'}, regret {regret}, cluster {point.cluster}")


def _legend_html(mode: str, legend: Legend, shown: bool) -> str:
    items = "".join(f'<div><span class="swatch" style="background:{esc(colour)}"></span>{esc(label)}</div>'
                    for label, colour in legend)
    hidden = "" if shown else " hidden"
    return f'<div class="legend" data-mode="{mode}"{hidden}><h4>colour: {mode}</h4>{items}</div>'


def map_title(shown: int, total: int, projection: str) -> str:
    """The map's title: how many environments it shows, and of how many.

    >>> map_title(5, 5, "PCA")
    '5 valid environments (PCA of their embeddings)'
    >>> map_title(2000, 100000, "t-SNE")
    '2000 of 100000 valid environments, evenly spaced in archive order (t-SNE of their embeddings)'
    """
    if shown >= total:
        return f"{shown} valid environments ({projection} of their embeddings)"
    return (f"{shown} of {total} valid environments, evenly spaced in archive order "
            f"({projection} of their embeddings)")


def map_html(diversity: RunDiversity) -> str:
    """The map with its colour-by buttons, legends and the JSON of fills per mode."""
    points = diversity.points
    fills = {mode: _FILLS[mode](points) for mode in COLOUR_MODES}
    first = COLOUR_MODES[0]
    scatter = svg_scatter(
        [ScatterPoint(p.x, p.y, fills[first][0][i], point_label(p), {"env": str(p.record_id)})
         for i, p in enumerate(points)],
        title=map_title(len(points), diversity.overall.count, diversity.projection),
        x_label="click a point to open the environment")
    buttons = "".join(f'<button type="button" data-mode="{m}" aria-pressed="{str(m == first).lower()}">'
                      f"{m}</button>" for m in COLOUR_MODES)
    legends = "".join(_legend_html(m, fills[m][1], m == first) for m in COLOUR_MODES)
    data = script_json({mode: fills[mode][0] for mode in COLOUR_MODES}, "map-colours")
    return (f'<div class="map-layout"><div><div class="segmented" role="group" aria-label="colour by">'
            f'<span class="note" style="padding:5px 10px">colour by</span>{buttons}</div>{scatter}</div>'
            f"<div>{legends}</div></div>{data}")


def diversity_charts(diversity: RunDiversity) -> str:
    """Diversity score and near-duplicate rate, and the number of clusters, over iterations."""
    iterations = sorted(diversity.per_iteration)
    if not iterations:
        return empty("no per-iteration diversity recorded")
    per = diversity.per_iteration
    marks = [Mark(i, f"collapse alarm at iteration {i}") for i in diversity.alarms]
    shares = svg_line_chart("Diversity", [
        Series("diversity score", tuple((i, per[i].score) for i in iterations)),
        Series("near-duplicate rate", tuple((i, per[i].near_duplicate_rate) for i in iterations)),
    ], y_label="share / mean distance", y_range=(0.0, 1.0), marks=marks)
    clusters = svg_line_chart("Clusters", [
        Series("clusters", tuple((i, float(per[i].clusters)) for i in iterations)),
        Series("environments", tuple((i, float(per[i].count)) for i in iterations), dashed=True),
    ], y_label="count", y_range=(0.0, 1.0), marks=marks)
    note = ('<p class="note">Each iteration counts the valid environments of all iterations up to it.'
            + (" Red dashed lines mark collapse alarms." if marks else "") + "</p>")
    return note + f'<div class="charts"><figure>{shares}</figure><figure>{clusters}</figure></div>'


def alarms_html(alarms: Sequence[int]) -> str:
    """The collapse alarm banner, or nothing when there is none.

    >>> alarms_html([])
    ''
    >>> "iterations 3, 4" in alarms_html([3, 4])
    True
    """
    if not alarms:
        return ""
    which = ", ".join(str(a) for a in alarms)
    word = "iteration" if len(alarms) == 1 else "iterations"
    return (f'<div class="alarm" role="alert">Collapse alarm at {word} {which}: the recent designs fell '
            "into one cluster. Check corpus grounding and the environment memory.</div>")


def map_section(diversity: RunDiversity | None, note: str = "") -> Section:
    """The ``diversity`` section; with no measurement, ``note`` says why."""
    title = "Diversity"
    if diversity is None:
        return Section("diversity", title, empty(note or "diversity was not measured for this run"))
    overall = diversity.overall
    parts = [alarms_html(diversity.alarms), definition_list([
        ("valid environments measured", overall.count),
        ("diversity score (mean pairwise cosine distance) [95% interval]",
         with_interval(format_number(overall.score), diversity.score_ci, format_number)),
        ("near-duplicate rate [95% interval]",
         with_interval(percent(overall.near_duplicate_rate, 1), diversity.near_duplicate_ci, percent)),
        ("clusters", overall.clusters),
        ("map projection", diversity.projection),
    ])]
    if diversity.points:
        parts.append(map_html(diversity))
    else:
        parts.append(empty("no valid environments to map yet"))
    parts.append("<h3>Diversity over iterations</h3>" + diversity_charts(diversity))
    return Section("diversity", title, "\n".join(p for p in parts if p))
