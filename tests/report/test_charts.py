"""The pure SVG and page helpers: coordinates, ticks, colours, escaping."""

from __future__ import annotations

import json
import re

import pytest

from spadework.report import (
    Frame,
    Mark,
    ScatterPoint,
    Section,
    Series,
    page,
    script_json,
    svg_line_chart,
    svg_scatter,
)
from spadework.report.svg import nice_ticks, scale, sequential_colour

FRAME = Frame(width=200, height=100, left=20, right=20, top=10, bottom=10)


def polyline(svg: str) -> list[tuple[float, float]]:
    points = re.search(r'<polyline points="([^"]+)"', svg)
    assert points is not None
    return [tuple(map(float, pair.split(","))) for pair in points.group(1).split()]


def test_line_chart_scales_data_onto_the_frame():
    svg = svg_line_chart("t", [Series("a", ((0, 0.0), (5, 0.5), (10, 1.0)))], y_range=(0, 1), frame=FRAME)
    assert polyline(svg) == [(20.0, 90.0), (100.0, 50.0), (180.0, 10.0)]


def test_line_chart_widens_the_y_range_to_the_data_and_drops_non_finite_points():
    svg = svg_line_chart("t", [Series("a", ((0, 0.0), (1, float("nan")), (2, 2.0)))], y_range=(0, 1),
                         frame=FRAME)
    assert polyline(svg) == [(20.0, 90.0), (180.0, 10.0)]
    assert ">2</text>" in svg  # a tick at the widened top


def test_a_single_point_is_a_dot_and_marks_are_drawn():
    svg = svg_line_chart("t", [Series("a", ((3, 0.5),))], marks=[Mark(3, "alarm <3>")], frame=FRAME)
    assert "<polyline" not in svg and svg.count("<circle") == 1
    assert 'stroke="#c8413f"' in svg and "alarm &lt;3&gt;" in svg


def test_line_chart_has_title_axis_labels_and_a_legend_entry_per_series():
    svg = svg_line_chart("Solve rate", [Series("no hint", ((0, 0.1), (1, 0.2))),
                                        Series("hint", ((0, 0.5), (1, 0.9)))], y_label="share")
    for text in ("Solve rate", "no hint", "hint", "iteration", "share"):
        assert f">{text}</text>" in svg
    colours = re.findall(r'<polyline [^>]*stroke="(#[0-9a-f]{6})"', svg)
    assert len(colours) == 2 and colours[0] != colours[1]


def test_long_series_are_thinned():
    svg = svg_line_chart("t", [Series("a", tuple((i, float(i % 7)) for i in range(10_000)))])
    assert 1000 < len(polyline(svg)) <= 1501 and "<circle" not in svg


def test_every_text_in_a_chart_is_escaped():
    hostile = "</svg><script>alert(1)</script>"
    svg = svg_line_chart(hostile, [Series(hostile, ((0, 1.0), (1, 2.0)))], x_label=hostile, y_label=hostile)
    assert "<script" not in svg and svg.count("</svg>") == 1
    scatter = svg_scatter([ScatterPoint(0, 0, '"/><script>', hostile, {"env": hostile})], title=hostile)
    assert "<script" not in scatter and scatter.count("</svg>") == 1


def test_scatter_puts_extremes_at_the_corners_and_keeps_data_attributes():
    points = [ScatterPoint(-1, -1, "#111111", "low", {"env": "3"}),
              ScatterPoint(1, 1, "#222222", "high", {"env": "4"}),
              ScatterPoint(0, 0, "#333333", "middle")]
    svg = svg_scatter(points, frame=FRAME, radius=4)
    circles = re.findall(r'<circle data-index="(\d)" cx="([\d.]+)" cy="([\d.]+)"', svg)
    assert circles == [("0", "25.0", "85.0"), ("1", "175.0", "15.0"), ("2", "100.0", "50.0")]
    assert 'fill="#111111"' in svg and 'data-env="4"' in svg and "<title>middle</title>" in svg


@pytest.mark.parametrize(("lo", "hi", "integer", "expected"), [
    (0, 1, False, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]),
    (0, 100, False, [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]),
    (0, 2, True, [0.0, 1.0, 2.0]),
    (-0.3, 0.3, False, [-0.2, 0.0, 0.2]),
])
def test_nice_ticks(lo, hi, integer, expected):
    assert nice_ticks(lo, hi, integer=integer) == expected


def test_scale_and_colours():
    assert scale(2, (0, 4), (10, 30)) == 20.0
    assert sequential_colour(0.5) not in (sequential_colour(0), sequential_colour(1))
    assert sequential_colour(float("nan")) == sequential_colour(0)


def test_script_json_cannot_be_closed_by_its_data():
    data = {"a": "</script><script>alert(1)</script>", "b": "x & y", "c": "\u2028"}
    block = script_json(data, "x")
    assert block.count("</script>") == 1 and block.count("<script") == 1
    assert json.loads(block[block.index(">") + 1: block.rindex("<")]) == data


def test_page_is_self_contained():
    html = page("A <run>", [Section("one", "One & two", "<p>body</p>"), Section("two", "Two", "")],
                subtitle="<sub>")
    assert '<section id="one">\n<h2>One &amp; two</h2>' in html and '<a href="#two">Two</a>' in html
    assert "&lt;sub&gt;" in html and "<title>A &lt;run&gt;</title>" in html
    assert not re.search(r'(src|href)="(https?:)?//', html) and "@import" not in html
