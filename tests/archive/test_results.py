"""A designed attempt's results as typed records: the archived keys, old archives, other records."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from spadework.archive import Archive, DesignResult, EnvRecord, PlayResult, RecordUpdate, export_jsonl
from spadework.rewards import DesignerScore, RegretEstimate, regret_estimate
from spadework.validate.verdict import CheckResult, Outcome, Verdict

TRANSCRIPTS = {"nohint": {"arm": "nohint", "seed": 0, "score": 0.0, "messages": []}, "hint": None}
ESTIMATE = regret_estimate([1.0, 1.0], [0.0, 1.0])

# The metrics a final, valid, played attempt has always been archived with (the loop wrote these
# keys, with these value shapes, before the results were typed).
PLAYED = {
    "iteration": 2, "design_id": "i2-d1", "attempt": 2, "document_id": "doc-7", "domain": "maths",
    "final": True, "designer_reward": 0.5, "designer_advantage": 0.25,
    "description": "Add the numbers.", "scores_nohint": [0.0, 1.0], "scores_hint": [1.0, 1.0],
    "solve_rate_nohint": 0.5, "solve_rate_hint": 1.0, "regret": 0.5, "transcripts": TRANSCRIPTS,
    "regret_low": ESTIMATE.regret_low, "regret_high": ESTIMATE.regret_high,
    "regret_ci": ESTIMATE.to_json(), "regret_plays": 2,
}
INTERVAL_KEYS = ("regret_low", "regret_high", "regret_ci", "regret_plays")


def verdict(valid: bool = True) -> Verdict:
    outcome = Outcome.PASSED if valid else Outcome.FAILED
    return Verdict((CheckResult("loads", outcome),), isolation="none", class_name="AddEnv", hint="add")


def played() -> DesignResult:
    play = PlayResult("Add the numbers.", (0.0, 1.0), (1.0, 1.0), 0.5, 1.0, 0.5, TRANSCRIPTS, ESTIMATE)
    return DesignResult(2, "i2-d1", 2, "doc-7", "maths", True, 0.5, 0.25, play)


def test_a_played_attempt_writes_exactly_the_archived_keys_and_reads_them_back():
    design = played()
    assert design.to_metrics() == PLAYED
    assert list(design.to_metrics()) == list(PLAYED)  # the loop's order, too
    stored = json.loads(json.dumps(design.to_metrics()))
    assert DesignResult.from_metrics(stored) == design
    play = design.play
    assert play is not None and (play.regret_low, play.regret_high, play.regret_plays) == (
        ESTIMATE.regret_low, ESTIMATE.regret_high, 2)


def test_an_earlier_attempt_has_no_reward_and_no_play():
    earlier = DesignResult(2, "i2-d1", 1, "doc-7", "maths", False)
    assert earlier.to_metrics() == {"iteration": 2, "design_id": "i2-d1", "attempt": 1,
                                    "document_id": "doc-7", "domain": "maths", "final": False}
    assert DesignResult.from_metrics(earlier.to_metrics()) == earlier


def test_an_invalid_final_attempt_has_its_reward_but_no_play():
    metrics = {"iteration": 0, "design_id": "i0-d0", "attempt": 1, "document_id": None, "domain": None,
               "final": True, "designer_reward": -1.0, "designer_advantage": -0.5}
    design = DesignResult.from_metrics(metrics)
    assert design == DesignResult(0, "i0-d0", 1, None, None, True, -1.0, -0.5)
    assert design.to_metrics() == metrics


def test_an_archive_from_before_the_interval_reads_without_one_and_writes_the_same_keys():
    old = {k: v for k, v in PLAYED.items() if k not in INTERVAL_KEYS}
    design = DesignResult.from_metrics(old)
    assert design is not None and design.play is not None
    assert design.play.estimate is None
    assert (design.play.regret_low, design.play.regret_high, design.play.regret_plays) == (None, None, None)
    assert design.play.regret == 0.5 and design.play.scores_hint == (1.0, 1.0)
    assert design.to_metrics() == old


def test_optional_keys_may_be_missing_or_broken():
    sparse = {"iteration": 1, "design_id": "d", "attempt": 1, "final": False}
    assert DesignResult.from_metrics(sparse) == DesignResult(1, "d", 1, None, None, False)
    broken_interval = {**PLAYED, "regret_ci": {"plays": 2, "low": "?"}}
    design = DesignResult.from_metrics(broken_interval)
    assert design is not None and design.play is not None and design.play.estimate is None
    no_transcripts = {k: v for k, v in PLAYED.items() if k != "transcripts"}
    design = DesignResult.from_metrics(no_transcripts)
    assert design is not None and design.play is None and design.designer_reward == 0.5
    assert DesignResult.from_metrics({**PLAYED, "scores_hint": [1.0, "x"]}).play is None


def test_records_that_are_not_designed_attempts_have_no_design():
    assert DesignResult.from_metrics({}) is None
    assert DesignResult.from_metrics({"regret": 0.5, "solve_rate_nohint": 0.5}) is None
    assert DesignResult.from_metrics({**PLAYED, "design_id": None}) is None
    assert DesignResult.from_metrics({**PLAYED, "iteration": "2"}) is None
    assert DesignResult.from_metrics({**PLAYED, "final": 1}) is None
    assert EnvRecord.new("x = 1", verdict(), "envs/add.py").design is None  # spadework validate --run-dir


def test_a_record_made_with_a_design_stores_its_metrics_and_reads_it_back(tmp_path: Path):
    record = EnvRecord.new("x = 1", verdict(), "run:i2:i2-d1:a2", {"note": "kept", "regret": 9.0},
                           design=played())
    assert record.metrics == {"note": "kept", **PLAYED}  # the design's keys win
    with Archive.open(tmp_path) as archive:
        stored = archive.add(record)
        again = archive.get(stored.id)
        assert again.metrics == {"note": "kept", **PLAYED}
        assert again.design == played()
        export_jsonl(archive, tmp_path / "out.jsonl")
    (line,) = (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()
    assert DesignResult.from_metrics(json.loads(line)["metrics"]) == played()


def test_regret_estimate_round_trips_through_its_archived_form():
    estimate = RegretEstimate(3, 1 / 3, -0.3259, 0.7259, 0.9)
    play = PlayResult("", (0.0,) * 3, (1.0, 0.0, 0.0), 0.0, 1 / 3, 1 / 3, {}, estimate)
    assert PlayResult.from_metrics(json.loads(json.dumps(play.to_metrics()))) == play


def test_the_asked_form_is_archived_under_form_and_old_records_have_none():
    tool = DesignResult(2, "i2-d1", 1, "doc-7", "maths", False, form="tool")
    metrics = json.loads(json.dumps(tool.to_metrics()))
    assert metrics["form"] == "tool" and DesignResult.from_metrics(metrics) == tool
    final = DesignResult(2, "i2-d1", 2, "doc-7", "maths", True, 0.5, 0.25, played().play, form="answer")
    assert DesignResult.from_metrics(json.loads(json.dumps(final.to_metrics()))) == final
    assert DesignResult.from_metrics(PLAYED).form is None  # written before forms were kept
    assert "form" not in played().to_metrics()  # no form asked (a fixed pool): no key


def _old_window_update(reward: float, advantage: float, score: DesignerScore | None) -> dict:
    """What the loop merged into a closing window's design before updates were typed."""
    return {"designer_reward": reward, "designer_advantage": advantage,
            **({"designer_score": score.to_json()} if score is not None else {})}


def test_record_updates_write_the_keys_the_loop_wrote_before_they_were_typed():
    play = PlayResult("Add.", (0.0, 1.0), (1.0, 1.0), 0.5, 1.0, 0.5, TRANSCRIPTS, ESTIMATE, seeds=(3, 9),
                      last_played=4, replays=2)
    assert RecordUpdate(play).to_metrics() == play.to_metrics()  # a replay's: the pooled play's keys
    score = DesignerScore(0.25, 0.0, 0.5, 1.0, 0.0, 0.0, 0.9, False)
    for reward, advantage, scored in ((0.9, 0.1, score), (-1.0, -0.5, None), (math.nan, 0.0, score)):
        new = RecordUpdate(designer_reward=reward, designer_advantage=advantage, score=scored).to_metrics()
        old = _old_window_update(reward, advantage, scored)
        assert json.dumps(new, sort_keys=True) == json.dumps(old, sort_keys=True)
        assert list(new) == list(old)


def test_a_record_update_refuses_half_a_pay():
    with pytest.raises(ValueError, match="give both or neither"):
        RecordUpdate(designer_reward=0.5)
    with pytest.raises(ValueError, match="give designer_reward and designer_advantage with it"):
        RecordUpdate(score=DesignerScore(0.25, 0.0, 0.5, 1.0, 0.0, 0.0, 0.9, False))


def test_committed_updates_change_only_their_keys_of_the_stored_record(tmp_path: Path):
    design = DesignResult.from_metrics(PLAYED)
    assert design is not None
    replayed = RecordUpdate(PlayResult("Add.", (0.0, 1.0, 1.0), (1.0, 1.0, 1.0), 2 / 3, 1.0, 1 / 3,
                                       seeds=(0, 1, 7), last_played=3, replays=1))
    with Archive.open(tmp_path) as archive:
        first = archive.add(EnvRecord.new("x = 1", verdict(), "run:i2:i2-d1:a2", design=design))
        assert first.id is not None
        archive.commit_iteration(3, [], {}, {}, {first.id: replayed})
        stored = archive.get(first.id).metrics
    assert stored == {**PLAYED, **replayed.to_metrics()}
    assert stored["designer_reward"] == 0.5 and stored["replays"] == 1
    assert stored["regret_ci"] == PLAYED["regret_ci"]  # a key the update does not write stays as stored
