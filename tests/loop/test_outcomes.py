"""One iteration's outcomes: the regret with its interval, the designer's reward under each mode,
and the interval's metrics, against values computed by hand."""

from __future__ import annotations

import math

import pytest

from spadework.designer import Design, DesignAttempt
from spadework.designer.prompts import DesignForm
from spadework.outcomes import Payment, iteration_metrics
from spadework.rewards import DesignerReward
from spadework.rollout import Arm, EndReason, Episode
from spadework.validate.verdict import CheckResult, Outcome, Verdict
from spadework.window import outcome_of

Z95 = 1.959964


def design(design_id: str, valid: bool = True, form: DesignForm | None = None) -> Design:
    outcome = Outcome.PASSED if valid else Outcome.FAILED
    verdict = Verdict((CheckResult("parse", Outcome.PASSED, ""), CheckResult("load", outcome, "")), "none")
    return Design(design_id, "doc", None, (DesignAttempt(1, (), "reply", "code", verdict),), form=form)


def episodes(design_id: str, hint: list[float], nohint: list[float]) -> list[Episode]:
    """Both arms on seeds 0, 1, ...: ``hint[k]`` and ``nohint[k]`` are the scores on seed k."""
    return [Episode(env_id=design_id, seed=seed, arm=arm, messages=(), rewards=(score,), score=score,
                    solved=score >= 1.0, turns=1, unboxed=0, hint=None, error=None, completion_tokens=1,
                    seconds=0.0, end=EndReason.TERMINATED)
            for arm, scores in ((Arm.HINT, hint), (Arm.NOHINT, nohint)) for seed, score in enumerate(scores)]


def test_one_lucky_hinted_play_has_regret_but_earns_nothing_under_the_lcb():
    played = episodes("d", hint=[0.0, 1.0], nohint=[0.0, 0.0])
    paper = outcome_of(design("d"), played, Payment(invalid_penalty=1.0))
    lcb = outcome_of(design("d"), played, Payment(1.0, designer=DesignerReward.REGRET_LCB))
    assert paper.regret == lcb.regret == 0.5 and paper.reward == 0.5
    assert lcb.reward == 0.0
    # m=4, S1=1, S2=2: centre 1/4, variance (2/4 - 1/16)/4 = 7/64
    half = Z95 * math.sqrt(7 / 64)
    assert paper.estimate is not None and paper.estimate.plays == 2
    assert paper.estimate.low == pytest.approx(0.25 - half, abs=1e-6)
    assert paper.estimate.high == pytest.approx(0.25 + half, abs=1e-6)
    assert paper.estimate == lcb.estimate


def test_many_lifted_plays_keep_most_of_their_regret_and_the_confidence_is_used():
    played = episodes("d", hint=[1.0] * 8, nohint=[0.0] * 8)
    lcb = outcome_of(design("d"), played, Payment(designer=DesignerReward.REGRET_LCB))
    # m=10, S1=8, S2=9: centre 0.8, variance (0.9 - 0.64)/10 = 0.026
    assert lcb.regret == 1.0 and lcb.reward == pytest.approx(0.8 - Z95 * math.sqrt(0.026), abs=1e-6)
    two = episodes("d", hint=[1.0, 1.0], nohint=[0.0, 0.0])
    assert outcome_of(design("d"), two, Payment(designer=DesignerReward.REGRET_LCB)).reward == 0.0
    # at 80%: 0.5 - 1.281552 * sqrt(1/8)
    loose = outcome_of(design("d"), two, Payment(designer=DesignerReward.REGRET_LCB, confidence=0.8))
    assert loose.estimate is not None and loose.estimate.confidence == 0.8
    assert loose.reward == pytest.approx(0.046903, abs=1e-6)


def test_invalid_and_unplayed_designs_have_no_interval_and_the_same_reward_in_every_mode():
    for mode in DesignerReward:
        broken = outcome_of(design("x", valid=False), [], Payment(0.5, designer=mode))
        assert broken.estimate is None and broken.regret == 0.0 and broken.reward == -0.5
        unplayed = outcome_of(design("y"), [], Payment(0.5, designer=mode))
        assert unplayed.estimate is None and unplayed.regret == 0.0 and unplayed.reward == 0.0


def test_iteration_metrics_report_the_interval_width_and_the_share_with_regret():
    designs = [design("lucky"), design("flat"), design("unplayed"), design("broken", valid=False)]
    played = episodes("lucky", [1.0, 0.0], [0.0, 0.0]) + episodes("flat", [0.0, 0.0], [0.0, 0.0])
    outcomes = [outcome_of(d, [e for e in played if e.env_id == d.design_id], Payment(1.0)) for d in designs]
    metrics = iteration_metrics(designs, outcomes, played, [])
    # lucky: width 2 z sqrt(7/64); flat: m=4, S1=0, S2=1, variance (1/4)/4, width 2 z / 4
    widths = [2 * Z95 * math.sqrt(7 / 64), 2 * Z95 / 4]
    assert metrics["reward/regret_ci_width"] == pytest.approx(sum(widths) / 2, abs=1e-6)
    assert metrics["reward/regret_positive_share"] == 0.5  # of the two played; not the unplayed one
    assert metrics["reward/regret_mean"] == pytest.approx(0.5 / 3)  # over the three valid designs
    assert metrics["reward/designer_mean"] == pytest.approx((0.5 + 0 + 0 - 1.0) / 4)
    empty = iteration_metrics(designs[3:], outcomes[3:], [], [])
    assert empty["reward/regret_ci_width"] == 0.0 and empty["reward/regret_positive_share"] == 0.0


def test_metrics_per_form_count_each_forms_designs_and_episodes_only():
    tool, answer = DesignForm.TOOL, DesignForm.ANSWER
    designs = [design("t1", form=tool), design("t2", form=tool), design("t3", valid=False, form=tool),
               design("a1", form=answer), design("pool")]  # a pool design was asked for no form
    played = (episodes("t1", hint=[1.0, 1.0], nohint=[0.0, 1.0]) + episodes("t2", [0.0, 0.0], [0.0, 0.0])
              + episodes("a1", hint=[1.0, 0.0], nohint=[1.0, 1.0]) + episodes("pool", [1.0, 1.0], [0.0, 0.0]))
    outcomes = [outcome_of(d, [e for e in played if e.env_id == d.design_id], Payment(1.0)) for d in designs]
    metrics = iteration_metrics(designs, outcomes, played, [])
    per_form = {name: value for name, value in metrics.items() if name.endswith(("/tool", "/answer"))}
    assert per_form == {
        "design/valid_rate/answer": 1.0, "rollout/solve_rate_nohint/answer": 1.0,
        "rollout/solve_rate_hint/answer": 0.5, "reward/regret_mean/answer": 0.0,  # hint - nohint < 0: none
        "design/valid_rate/tool": pytest.approx(2 / 3),
        "rollout/solve_rate_nohint/tool": 0.25, "rollout/solve_rate_hint/tool": 0.5,
        "reward/regret_mean/tool": 0.25,  # t1 0.5, t2 0.0; the invalid t3 is not counted
    }
    assert metrics["design/valid_rate"] == pytest.approx(4 / 5)  # the iteration-wide names stay
    assert metrics["rollout/solve_rate_nohint"] == pytest.approx(3 / 8)


def test_no_form_no_metrics_per_form():
    metrics = iteration_metrics([design("pool")], [outcome_of(design("pool"), [])], [], [])
    # validate/refused/<check> is per check, not per form
    assert not [name for name in metrics if name.count("/") > 1 and not name.startswith("validate/refused/")]
