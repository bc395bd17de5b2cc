"""Charts as inline SVG strings: pure functions of their data, no plotting library, no network.

Every function returns markup that stands on its own (presentation attributes, no external
style sheet), so a chart can be pasted into any HTML page. All text is escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

PALETTE = ("#2f6db3", "#e07b28", "#3a9a5b", "#c8413f", "#8a63b8", "#8c6a4f", "#d55fa7", "#6f7d8c",
           "#b3a41e", "#2aa3b5")
"""Categorical colours: the i-th series (or category) gets ``PALETTE[i % 10]``."""

MISSING_COLOUR = "#b8bec6"
"""The fill of a point whose value is unknown (no domain, no regret)."""

_SEQUENTIAL = ((68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37))
_FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"'
_MAX_POINTS = 1500
_DOT_LIMIT = 60


@dataclass(frozen=True)
class Series:
    """One line of a line chart: (x, y) points in x order, with a legend label."""

    label: str
    points: tuple[tuple[float, float], ...]
    colour: str | None = None
    dashed: bool = False


@dataclass(frozen=True)
class Mark:
    """A vertical marker at ``x`` (e.g. a collapse alarm), labelled on hover."""

    x: float
    label: str


@dataclass(frozen=True)
class ScatterPoint:
    """One point of a scatter plot.

    Attributes:
        x, y: data coordinates.
        fill: its colour.
        label: the hover text.
        data: extra ``data-*`` attributes (name without the prefix -> value) for scripts.
    """

    x: float
    y: float
    fill: str
    label: str
    data: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Frame:
    """The geometry of a chart: total size and the margins around the plotting area."""

    width: float = 560
    height: float = 280
    left: float = 58
    right: float = 18
    top: float = 56
    bottom: float = 44

    @property
    def x_span(self) -> tuple[float, float]:
        """The plot's horizontal extent in pixels: left edge, right edge."""
        return (self.left, self.width - self.right)

    @property
    def y_span(self) -> tuple[float, float]:
        """The plot's vertical extent in pixels: bottom edge, top edge."""
        return (self.height - self.bottom, self.top)


def scale(value: float, domain: tuple[float, float], span: tuple[float, float]) -> float:
    """Map ``value`` linearly from ``domain`` onto ``span`` (a degenerate domain maps to the middle).

    >>> scale(5, (0, 10), (40, 540))
    290.0
    >>> scale(1.0, (0.0, 1.0), (236, 56))  # SVG y grows downwards: the top value maps to the top
    56.0
    >>> scale(3, (3, 3), (0, 100))
    50.0
    """
    lo, hi = domain
    if hi == lo:
        return (span[0] + span[1]) / 2
    return span[0] + (value - lo) / (hi - lo) * (span[1] - span[0])


def nice_ticks(lo: float, hi: float, count: int = 5, integer: bool = False) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 times a power of ten) within [lo, hi].

    >>> nice_ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(0, 3, integer=True)
    [0.0, 1.0, 2.0, 3.0]
    >>> nice_ticks(2, 2)
    [2.0]
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [float(lo)] if math.isfinite(lo) else []
    raw = (hi - lo) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if integer:
        step = max(1.0, round(step))
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    value = first
    while value <= hi + step * 1e-9:
        ticks.append(round(value, 12) + 0.0)
        value += step
    return ticks


def format_number(value: float) -> str:
    """A short label for a number: up to 4 significant digits, no float noise.

    >>> format_number(0.30000000000000004), format_number(12.0), format_number(1234567.0)
    ('0.3', '12', '1.235e+06')
    """
    return f"{round(value, 10):.4g}"


def sequential_colour(t: float) -> str:
    """A colour from a dark-purple-to-yellow ramp; ``t`` in [0, 1] (clamped).

    >>> sequential_colour(0.0), sequential_colour(1.0), sequential_colour(7)
    ('#440154', '#fde725', '#fde725')
    """
    t = min(1.0, max(0.0, t)) if math.isfinite(t) else 0.0
    position = t * (len(_SEQUENTIAL) - 1)
    index = min(int(position), len(_SEQUENTIAL) - 2)
    a, b = _SEQUENTIAL[index], _SEQUENTIAL[index + 1]
    frac = position - index
    rgb = (round(a[i] + (b[i] - a[i]) * frac) for i in range(3))
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _value_range(values: Sequence[float], minimum: tuple[float, float] | None) -> tuple[float, float]:
    """The y range: ``minimum`` widened to the data, or the data padded by 8 %."""
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if minimum is not None:
        return (min(lo, minimum[0]), max(hi, minimum[1]))
    if hi == lo:
        pad = abs(lo) * 0.5 or 1.0
        return (lo - pad, hi + pad)
    pad = (hi - lo) * 0.08
    return (lo - pad if lo < 0 or lo - pad >= 0 else 0.0, hi + pad)


def _thin(points: tuple[tuple[float, float], ...]) -> tuple[tuple[float, float], ...]:
    """At most ``_MAX_POINTS`` points (evenly strided, last one kept) so long runs stay small."""
    if len(points) <= _MAX_POINTS:
        return points
    stride = math.ceil(len(points) / _MAX_POINTS)
    return points[::stride] + ((points[-1],) if (len(points) - 1) % stride else ())


def _open(frame: Frame, title: str, css_class: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" viewBox="0 0 {frame.width:g} '
        f'{frame.height:g}" role="img" aria-label="{escape(title)}" {_FONT}>',
        f'<text x="{frame.left:g}" y="20" font-size="15" font-weight="600" fill="#1d2430">'
        f"{escape(title)}</text>",
    ]


def _legend(frame: Frame, entries: Sequence[tuple[str, str, bool]]) -> list[str]:
    """Swatches in one row under the title (wrapping when long); entries are (label, colour, dashed)."""
    parts, x, y = [], frame.left, 40.0
    for label, colour, dashed in entries:
        width = 28 + 6.6 * len(label)
        if x + width > frame.width - frame.right and x > frame.left:
            x, y = frame.left, y + 15
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        parts.append(f'<line x1="{x:g}" y1="{y - 4:g}" x2="{x + 18:g}" y2="{y - 4:g}" stroke="{colour}" '
                     f'stroke-width="2.5"{dash}/>')
        parts.append(f'<text x="{x + 23:g}" y="{y:g}" font-size="12" fill="#39424e">{escape(label)}</text>')
        x += width + 10
    return parts


def _axes(frame: Frame, x_range: tuple[float, float], y_range: tuple[float, float], x_label: str,
          y_label: str, integer_x: bool) -> list[str]:
    """Grid lines, tick labels, the axis lines and the axis labels."""
    (x0, x1), (y0, y1) = frame.x_span, frame.y_span
    parts = []
    for tick in nice_ticks(*y_range):
        y = scale(tick, y_range, frame.y_span)
        parts.append(f'<line x1="{x0:g}" y1="{y:.1f}" x2="{x1:g}" y2="{y:.1f}" stroke="#e4e7eb"/>')
        parts.append(f'<text x="{x0 - 6:g}" y="{y + 4:.1f}" font-size="11" text-anchor="end" '
                     f'fill="#5b6573">{format_number(tick)}</text>')
    for tick in nice_ticks(*x_range, count=6, integer=integer_x):
        x = scale(tick, x_range, frame.x_span)
        parts.append(f'<line x1="{x:.1f}" y1="{y0:g}" x2="{x:.1f}" y2="{y0 + 4:g}" stroke="#8a939f"/>')
        parts.append(f'<text x="{x:.1f}" y="{y0 + 16:g}" font-size="11" text-anchor="middle" '
                     f'fill="#5b6573">{format_number(tick)}</text>')
    parts.append(f'<path d="M{x0:g} {y1:g}V{y0:g}H{x1:g}" fill="none" stroke="#8a939f"/>')
    parts.append(f'<text x="{(x0 + x1) / 2:g}" y="{frame.height - 8:g}" font-size="12" '
                 f'text-anchor="middle" fill="#39424e">{escape(x_label)}</text>')
    middle = (y0 + y1) / 2
    parts.append(f'<text x="14" y="{middle:g}" font-size="12" text-anchor="middle" fill="#39424e" '
                 f'transform="rotate(-90 14 {middle:g})">{escape(y_label)}</text>')
    return parts


def svg_line_chart(
    title: str,
    series: Sequence[Series],
    *,
    x_label: str = "iteration",
    y_label: str = "",
    y_range: tuple[float, float] | None = None,
    marks: Sequence[Mark] = (),
    frame: Frame = Frame(),
) -> str:
    """A line chart with a title, labelled axes, a legend and optional vertical marks.

    Args:
        title: shown above the plot.
        series: the lines; points with a non-finite coordinate are left out.
        x_label, y_label: the axis labels.
        y_range: the least y range to show (e.g. (0, 1) for rates); widened to fit the data.
        marks: vertical dashed red lines (e.g. iterations with an alarm).
        frame: size and margins.

    Returns:
        One ``<svg>`` element. A series with one point is drawn as a dot.

    >>> svg = svg_line_chart("Regret", [Series("regret", ((0, 0.0), (10, 1.0)))], y_range=(0, 1))
    >>> 'points="58.0,236.0 542.0,56.0"' in svg
    True
    >>> "<script" in svg_line_chart("<script>", [])
    False
    """
    cleaned = [Series(s.label, _thin(tuple((float(x), float(y)) for x, y in s.points
                                            if math.isfinite(x) and math.isfinite(y))),
                      s.colour or PALETTE[i % len(PALETTE)], s.dashed) for i, s in enumerate(series)]
    xs = [x for s in cleaned for x, _ in s.points]
    ys = [y for s in cleaned for _, y in s.points]
    x_range = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x_range[0] == x_range[1]:
        x_range = (x_range[0] - 1, x_range[1] + 1)
    y_bounds = _value_range(ys, y_range)
    integer_x = all(x == int(x) for x in xs)
    parts = _open(frame, title, "chart")
    parts += _legend(frame, [(s.label, s.colour or "", s.dashed) for s in cleaned])
    parts += _axes(frame, x_range, y_bounds, x_label, y_label, integer_x)
    for mark in marks:
        x = scale(mark.x, x_range, frame.x_span)
        parts.append(f'<line x1="{x:.1f}" y1="{frame.top:g}" x2="{x:.1f}" y2="{frame.y_span[0]:g}" '
                     f'stroke="#c8413f" stroke-dasharray="4 3" stroke-width="1.5">'
                     f"<title>{escape(mark.label)}</title></line>")
    for s in cleaned:
        coords = [(scale(x, x_range, frame.x_span), scale(y, y_bounds, frame.y_span)) for x, y in s.points]
        dash = ' stroke-dasharray="6 4"' if s.dashed else ""
        if len(coords) > 1:
            joined = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in coords)
            parts.append(f'<polyline points="{joined}" fill="none" stroke="{s.colour}" stroke-width="2" '
                         f'stroke-linejoin="round"{dash}/>')
        if len(coords) <= _DOT_LIMIT:
            for (cx, cy), (x, y) in zip(coords, s.points, strict=True):
                parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="{s.colour}"><title>'
                             f"{escape(s.label)}: {format_number(y)} at {escape(x_label)} "
                             f"{format_number(x)}</title></circle>")
    parts.append("</svg>")
    return "\n".join(parts)


def svg_scatter(
    points: Sequence[ScatterPoint],
    *,
    title: str = "",
    x_label: str = "",
    y_label: str = "",
    frame: Frame = Frame(width=640, height=480, left=24, right=24, top=36, bottom=34),
    radius: float = 5.5,
) -> str:
    """A scatter plot of coloured points with hover labels; axes without ticks (for 2-D maps).

    Args:
        points: the points; each carries its fill, hover label and ``data-*`` attributes.
        title, x_label, y_label: texts around the plot.
        frame: size and margins.
        radius: the points' radius.

    Returns:
        One ``<svg>`` element; the i-th point is ``<circle data-index="i" ...>``.

    >>> svg = svg_scatter([ScatterPoint(0, 0, "#000", "a"), ScatterPoint(1, 1, "#fff", "b")],
    ...                   frame=Frame(100, 100, 10, 10, 10, 10), radius=2)
    >>> '<circle data-index="0" cx="13.0" cy="87.0"' in svg
    True
    >>> '<circle data-index="1" cx="87.0" cy="13.0"' in svg
    True
    >>> "&lt;b&gt;" in svg_scatter([ScatterPoint(0, 0, "#000", "<b>")])
    True
    """
    xs, ys = [p.x for p in points], [p.y for p in points]
    pad = radius + 1
    x_span = (frame.left + pad, frame.width - frame.right - pad)
    y_span = (frame.height - frame.bottom - pad, frame.top + pad)
    x_range = (min(xs), max(xs)) if xs else (0.0, 1.0)
    y_range = (min(ys), max(ys)) if ys else (0.0, 1.0)
    parts = _open(frame, title, "scatter") if title else _open(frame, "", "scatter")[:1]
    inner_width = frame.width - frame.left - frame.right
    inner_height = frame.height - frame.top - frame.bottom
    parts.append(f'<rect x="{frame.left:g}" y="{frame.top:g}" width="{inner_width:g}" '
                 f'height="{inner_height:g}" fill="#fbfcfd" stroke="#d5dae0"/>')
    if x_label:
        parts.append(f'<text x="{frame.width / 2:g}" y="{frame.height - 10:g}" font-size="12" '
                     f'text-anchor="middle" fill="#5b6573">{escape(x_label)}</text>')
    if y_label:
        middle = (frame.top + frame.height - frame.bottom) / 2
        parts.append(f'<text x="14" y="{middle:g}" font-size="12" text-anchor="middle" fill="#5b6573" '
                     f'transform="rotate(-90 14 {middle:g})">{escape(y_label)}</text>')
    for index, point in enumerate(points):
        cx, cy = scale(point.x, x_range, x_span), scale(point.y, y_range, y_span)
        data = "".join(f' data-{escape(k)}="{escape(v)}"' for k, v in point.data.items())
        parts.append(f'<circle data-index="{index}" cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:g}" '
                     f'fill="{escape(point.fill)}" stroke="#ffffff" stroke-width="1.2"{data}>'
                     f"<title>{escape(point.label)}</title></circle>")
    parts.append("</svg>")
    return "\n".join(parts)
