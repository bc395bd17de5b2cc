"""Training curves over iterations, from the per-iteration metrics (``metrics.jsonl``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spadework.report.rundata import number
from spadework.report.shell import Section, esc
from spadework.report.svg import Series, svg_line_chart

NOT_RECORDED = "not recorded in this run"
EVAL_PREFIX = "eval/"
REFUSED_PREFIX = "validate/refused/"
_EVAL_PER_CHART = 6


@dataclass(frozen=True)
class Line:
    """One line of a chart: its legend label and the metric names to try, first found wins."""

    label: str
    names: tuple[str, ...]
    dashed: bool = False


@dataclass(frozen=True)
class ChartSpec:
    """One chart of the curves section.

    Attributes:
        title: the chart's title.
        y_label: the y axis label.
        lines: the lines to draw.
        y_range: the least y range (e.g. (0, 1) for rates), or None to fit the data.
        fallback: lines to draw when none of ``lines`` was recorded.
    """

    title: str
    y_label: str
    lines: tuple[Line, ...]
    y_range: tuple[float, float] | None = (0.0, 1.0)
    fallback: tuple[Line, ...] = ()


CURVES = (
    ChartSpec("Valid rate", "share of designs",
              (Line("valid (after repair)", ("design/valid_rate",)),
               Line("valid at first attempt", ("design/first_attempt_valid_rate",), dashed=True))),
    ChartSpec("Repair success", "share repaired",
              (Line("repaired", ("design/repair_success",)),)),
    ChartSpec("Regret", "mean regret", (Line("regret", ("reward/regret_mean",)),)),
    ChartSpec("Designer reward", "mean over a closing window's designs",
              (Line("blend", ("reward/blend_mean",)), Line("plateau", ("reward/plateau_mean",)),
               Line("in band", ("reward/in_band_share",), dashed=True)), y_range=None),
    ChartSpec("Difficulty", "mean level of the designs played (difficulty controller)",
              (Line("played at", ("difficulty/level_mean",)),
               Line("next", ("difficulty/next_mean",), dashed=True)), y_range=None),
    ChartSpec("Solve rate", "share of episodes",
              (Line("no hint", ("rollout/solve_rate_nohint",)), Line("hint", ("rollout/solve_rate_hint",)))),
    ChartSpec("Tool calls", "share of tool-world replies",
              (Line("call, no hint", ("rollout/call_rate_nohint",)),
               Line("call, hint", ("rollout/call_rate_hint",)),
               Line("valid call, no hint", ("rollout/valid_call_rate_nohint",), dashed=True),
               Line("valid call, hint", ("rollout/valid_call_rate_hint",), dashed=True))),
    ChartSpec("Learner loss", "loss",
              (Line("designer", ("learn/designer_loss",)), Line("agent", ("learn/agent_loss",))),
              y_range=None, fallback=(Line("both roles", ("learn/loss",)),)),
)
"""The charts of the curves section, in page order."""


def metric_points(metrics: Sequence[dict[str, Any]], name: str) -> tuple[tuple[float, float], ...]:
    """(iteration, value) of ``name`` in every iteration that recorded a finite number.

    >>> metric_points([{"iteration": 0, "a": 1.0}, {"iteration": 1}, {"iteration": 2, "a": "x"}], "a")
    ((0.0, 1.0),)
    """
    points = []
    for row in metrics:
        x, y = number(row.get("iteration")), number(row.get(name))
        if x is not None and y is not None:
            points.append((x, y))
    return tuple(points)


def _series(metrics: Sequence[dict[str, Any]], lines: Sequence[Line]) -> list[Series]:
    found = []
    for line in lines:
        for name in line.names:
            points = metric_points(metrics, name)
            if points:
                found.append(Series(line.label, points, dashed=line.dashed))
                break
    return found


def not_recorded(title: str, names: Sequence[str]) -> str:
    """The placeholder of a chart whose metrics the run did not record."""
    shown = ", ".join(names)
    return (f'<figure class="chart-empty"><figcaption>{esc(title)}</figcaption>'
            f'<p class="empty">{NOT_RECORDED} ({esc(shown)})</p></figure>')


def chart(spec: ChartSpec, metrics: Sequence[dict[str, Any]]) -> str:
    """One chart as a ``<figure>``: the lines found, else the fallback, else a placeholder."""
    series = _series(metrics, spec.lines) or _series(metrics, spec.fallback)
    if not series:
        names = [n for line in spec.lines + spec.fallback for n in line.names]
        return not_recorded(spec.title, names)
    svg = svg_line_chart(spec.title, series, y_label=spec.y_label, y_range=spec.y_range)
    return f"<figure>{svg}</figure>"


def eval_names(metrics: Sequence[dict[str, Any]]) -> list[str]:
    """Every ``eval/...`` metric recorded in any iteration, sorted.

    >>> eval_names([{"eval/b": 1}, {"eval/a": 0.5, "design/count": 3}])
    ['eval/a', 'eval/b']
    """
    return sorted({k for row in metrics for k in row if k.startswith(EVAL_PREFIX)})


def eval_charts(metrics: Sequence[dict[str, Any]]) -> list[str]:
    """In-loop held-out evaluation curves: a few ``eval/`` metrics per chart; none when absent."""
    names = eval_names(metrics)
    figures = []
    for start in range(0, len(names), _EVAL_PER_CHART):
        group = names[start:start + _EVAL_PER_CHART]
        lines = tuple(Line(name.removeprefix(EVAL_PREFIX), (name,)) for name in group)
        values = [y for name in group for _, y in metric_points(metrics, name)]
        in_unit = all(0.0 <= v <= 1.0 for v in values)
        part = f" ({start // _EVAL_PER_CHART + 1})" if len(names) > _EVAL_PER_CHART else ""
        spec = ChartSpec(f"In-loop held-out evaluation{part}", "value", lines,
                         y_range=(0.0, 1.0) if in_unit else None)
        figures.append(chart(spec, metrics))
    return figures


def refusal_chart(metrics: Sequence[dict[str, Any]]) -> str:
    """Design attempts refused per check per iteration (``validate/refused/<check>``), the checks
    that refused any; a placeholder when none did or the run predates the metrics.

    >>> "key_from_text" in refusal_chart([{"iteration": 0, "validate/refused/key_from_text": 2.0,
    ...                                    "validate/refused/static": 0.0}])
    True
    """
    names = sorted({k for row in metrics for k, v in row.items()
                    if k.startswith(REFUSED_PREFIX) and number(v)})
    title = "Refusals by check"
    if not names:
        return not_recorded(title, [REFUSED_PREFIX + "..."])
    lines = tuple(Line(name.removeprefix(REFUSED_PREFIX), (name,)) for name in names)
    return chart(ChartSpec(title, "design attempts refused", lines, y_range=None), metrics)


def curves_section(metrics: Sequence[dict[str, Any]]) -> Section:
    """The ``curves`` section: one chart per entry of ``CURVES``, the refusals by check, then the
    in-loop eval curves."""
    if not metrics:
        return Section("curves", "Training curves",
                       '<p class="empty">no iteration committed yet: metrics.jsonl is empty</p>')
    figures = [chart(spec, metrics) for spec in CURVES] + [refusal_chart(metrics)]
    evals = eval_charts(metrics)
    figures += evals or [not_recorded("In-loop held-out evaluation", ["eval/..."])]
    note = f'<p class="note">{len(metrics)} iterations; hover a point for its value.</p>'
    return Section("curves", "Training curves", note + '<div class="charts">' + "".join(figures) + "</div>")
