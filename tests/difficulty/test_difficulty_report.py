"""Where the controller held an environment, in the report: its details give the level and the
levels it was played at, and the curves chart the mean level beside the designer reward's band."""

from __future__ import annotations

from spadework.archive import DesignResult, PlayResult
from spadework.difficulty import Standing
from spadework.report import CURVES, chart
from spadework.report.environments import scores_html


def test_an_environments_details_say_its_level_and_the_path_it_took():
    play = PlayResult("Do it.", (1.0, 0.0), (1.0, 1.0), 0.5, 1.0, 0.5)
    held = Standing(3, 5, (), (1, 2, 3), 12)
    design = DesignResult(0, "i0-d0", 1, None, None, True, play=play, difficulty=held)
    html = scores_html(design)
    assert "difficulty: level 3 of 5 (played at 1 → 2 → 3; 12 no-hint plays)" in html
    assert "difficulty:" not in scores_html(DesignResult(0, "i0-d0", 1, None, None, True, play=play))


def test_the_curves_chart_the_level_played_and_say_when_no_controller_ran():
    spec = next(spec for spec in CURVES if spec.title == "Difficulty")
    drawn = chart(spec, [{"iteration": 0, "difficulty/level_mean": 1.0, "difficulty/next_mean": 2.0},
                         {"iteration": 1, "difficulty/level_mean": 2.0, "difficulty/next_mean": 2.5}])
    assert "played at" in drawn and "not recorded in this run" not in drawn
    assert "not recorded in this run" in chart(spec, [{"iteration": 0}])
