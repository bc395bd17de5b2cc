"""The run report: one self-contained HTML page (inline style, script and SVG charts) per run.

``build_report(run_dir)`` writes ``RUN_DIR/report.html``; ``spadework report RUN_DIR --check``
also opens it in headless Chromium (``spadework.report.browser``). The pieces (``page``,
``svg_line_chart``, ``svg_scatter``, ``map_section``) are reusable by other reports.
"""

from spadework.report.build import REPORT_FILE, SECTION_IDS, build_report, report_sections
from spadework.report.curves import CURVES, ChartSpec, Line, chart, curves_section
from spadework.report.diversity_map import map_section
from spadework.report.environments import Limits, environments_section
from spadework.report.evaluation import eval_section, load_evals
from spadework.report.overview import config_section
from spadework.report.shell import Section, esc, page, script_json
from spadework.report.svg import Frame, Mark, ScatterPoint, Series, svg_line_chart, svg_scatter

__all__ = [
    "CURVES",
    "REPORT_FILE",
    "SECTION_IDS",
    "ChartSpec",
    "Frame",
    "Limits",
    "Line",
    "Mark",
    "ScatterPoint",
    "Section",
    "Series",
    "build_report",
    "chart",
    "config_section",
    "curves_section",
    "environments_section",
    "esc",
    "eval_section",
    "load_evals",
    "map_section",
    "page",
    "report_sections",
    "script_json",
    "svg_line_chart",
    "svg_scatter",
]
