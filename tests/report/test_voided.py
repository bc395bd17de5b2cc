"""A voided design's reason travels from its outcome to the archive's record and the report."""

from __future__ import annotations

from spadework.archive import DesignResult, PlayResult
from spadework.report.environments import scores_html

REASON = ("hint arm: seed 7 did not replay identically after seed 1000010 in the same worker "
          "(its hint changed)")


def voided_design(reason: str | None) -> DesignResult:
    play = PlayResult("Guess.", (0.0,), (1.0,), 0.0, 1.0, 0.0, {"nohint": None, "hint": None}, voided=reason)
    return DesignResult(0, "i0-d0", 1, None, None, True, designer_reward=-0.5, play=play)


def test_the_reason_is_archived_and_read_back():
    metrics = voided_design(REASON).to_metrics()
    assert metrics["voided"] == REASON and metrics["regret"] == 0.0
    assert DesignResult.from_metrics(metrics).play.voided == REASON
    assert "voided" not in voided_design(None).to_metrics()


def test_the_report_shows_why_the_regret_was_not_paid():
    shown = scores_html(voided_design(REASON + " <script>"))
    assert '<p class="bad">voided: hint arm: seed 7 did not replay identically' in shown
    assert "&lt;script&gt;" in shown and "<script>" not in shown
    assert "voided" not in scores_html(voided_design(None))
