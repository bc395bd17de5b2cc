"""Designs checked on the episodes that are played (``rollout.audit``), against planted attacks.

The fixtures in ``tests/fixtures/envs/played`` are environments that are fair where the validator
looks and pay themselves regret where play looks, or that try to tell the two arms apart; each
says in its docstring what must happen to it. They are played in the real sandbox by a FAKE
agent that reads any number a hint gives it and otherwise answers sums it can read.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from spadework.designer import Design
from spadework.designer.design import DesignAttempt
from spadework.outcomes import Payment, paired_scores, play_seeds, validation_seeds
from spadework.policy.base import Completion, Role
from spadework.rollout import Arm, PlayJob, RolloutConfig, run_plays
from spadework.rollout.audit import void_reason
from spadework.sandbox import InProcessSandbox
from spadework.validate import ValidatorConfig, validate
from spadework.window import outcome_of

PLAYED = Path(__file__).parents[1] / "fixtures" / "envs" / "played"


class HintReader:
    """FAKE agent: the number a shown hint gives ("The code is 4821", "It is 391"), else the sum it
    reads in the question, else 0."""

    name = "hint-reader"

    def generate(self, conversations, sampling, tools=None):
        replies = []
        for conversation in conversations:
            text = "\n".join(m.content for m in conversation if m.role is Role.USER)
            given = re.search(r"(?:code is|It is) (\d+)", text)
            asked = re.search(r"What is (\d+) \+ (\d+)", text)
            answer = given[1] if given else str(int(asked[1]) + int(asked[2])) if asked else "0"
            replies.append(Completion(f"\\boxed{{{answer}}}", prompt_tokens=20, completion_tokens=5))
        return replies

    def close(self):
        pass


def source(name: str) -> str:
    return (PLAYED / f"{name}.py").read_text()


def played(name: str, sandbox, plays: int = 2) -> list:
    jobs = [PlayJob(name, source(name), seed, arm) for seed in play_seeds(0, 0, 0, plays)
            for arm in (Arm.NOHINT, Arm.HINT)]
    return run_plays(HintReader(), sandbox, jobs, RolloutConfig(max_turns_cap=2, audit=True))


def design(name: str) -> Design:
    verdict = validate(source(name), InProcessSandbox())
    return Design(name, "doc", None, (DesignAttempt(1, (), "", source(name), verdict),))


def test_a_design_fair_on_small_seeds_passes_the_old_validation_seeds_but_not_drawn_ones():
    assert validate(source("switch_on_large_seed"), InProcessSandbox()).valid
    drawn = validate(source("switch_on_large_seed"), InProcessSandbox(),
                     ValidatorConfig(seeds=validation_seeds(0, 0)))
    assert not drawn.valid and drawn.failure.name == "determined"  # the same text, different codes


def test_its_played_episodes_are_voided_with_the_reason_and_earn_the_invalid_penalty(sandbox):
    episodes = played("switch_on_large_seed", sandbox)
    assert [e.solved for e in episodes] == [False, True] * 2  # the hinted arm was handed the code
    outcome = outcome_of(design("switch_on_large_seed"), episodes, Payment(invalid_penalty=0.5))
    # the played seeds' re-draw sees the hidden code before the hints are compared across seeds
    assert outcome.voided.startswith("nohint arm: seed ")
    assert "the answer reads a value the text never shows" in outcome.voided
    assert (outcome.regret, outcome.reward, outcome.estimate) == (0.0, -0.5, None)
    assert set(outcome.agent_advantages) == {0.0}


def test_a_solution_that_lies_on_the_played_seeds_voids_the_design(sandbox):
    reason = void_reason(played("lying_solution", sandbox))
    assert reason is not None and "solution() scored 0 on the played seed" in reason


def test_state_carried_across_episodes_shows_when_the_played_seed_is_replayed(sandbox):
    reason = void_reason(played("carried_state", sandbox))
    assert reason is not None and "did not replay identically after seed" in reason and "hint" in reason


def test_an_episode_counter_never_reaches_its_switch_in_play(sandbox):
    assert validate(source("switch_after_forty"), InProcessSandbox()).valid
    episodes = played("switch_after_forty", sandbox)
    assert void_reason(episodes) is None
    assert all(e.hint == "Split the second number into tens and ones." for e in episodes if e.arm is Arm.HINT)
    assert not any(e.solved for e in episodes)


def test_the_arms_see_the_same_calls_so_watching_for_the_hint_pays_both(sandbox):
    episodes = played("hint_call_observed", sandbox)
    assert all(e.solved for e in episodes)  # hint() was asked in both arms
    nohint, hint = paired_scores(episodes)
    assert nohint == hint == (1.0, 1.0)


def test_a_fair_design_is_played_checked_and_kept(sandbox):
    episodes = played("fair_sum", sandbox)
    assert all(e.check is not None and e.check.problem is None and e.check.contrast for e in episodes)
    outcome = outcome_of(design("fair_sum"), episodes, Payment(invalid_penalty=0.5))
    assert outcome.voided is None and outcome.valid and outcome.reward == outcome.regret == 0.0


@pytest.mark.parametrize("change", ["observation", "hint"])
def test_arms_that_opened_differently_void_the_design(sandbox, change):
    from dataclasses import replace

    episodes = played("fair_sum", sandbox, plays=1)
    hinted = episodes[1]
    changed = replace(hinted.check, **{change: getattr(hinted.check, change) + "!"})
    episodes[1] = replace(hinted, check=changed)
    reason = void_reason(episodes)
    assert reason is not None and reason.endswith("the environment told them apart or does not depend on its "
                                                  "seed only")


def test_an_unaudited_play_reads_no_hint_in_the_arm_without_it(sandbox):
    jobs = [PlayJob("w", source("hint_call_observed"), 3, arm) for arm in (Arm.NOHINT, Arm.HINT)]
    episodes = run_plays(HintReader(), sandbox, jobs, RolloutConfig(max_turns_cap=1))
    assert [e.check for e in episodes] == [None, None] and [e.solved for e in episodes] == [False, True]


def test_a_hint_that_is_a_password_voids_the_design(sandbox):
    reason = void_reason(played("hint_is_a_key", sandbox))
    assert reason is not None and "the hint itself, played as the first action, solves the episode" in reason


def test_a_broken_step_during_the_replay_voids_the_design_and_the_plays_go_on(sandbox):
    episodes = played("odd_reward_on_replay", sandbox)
    assert len(episodes) == 4
    reason = void_reason(episodes)
    assert reason is not None and "replaying it after the episode failed" in reason


@pytest.mark.parametrize("name", ["switch_on_large_seed", "hint_is_a_key"])
def test_calibrate_reads_the_audit_as_the_loop_does(name, sandbox, tmp_path):
    """Fair on the validation seeds, paying itself on the played ones: calibrate reports no regret
    for it (the loop would pay none), says why, and leaves it out of the ranking."""
    from spadework.calibrate import CalibrationFile, Kind
    from spadework.calibrate.runner import calibrate

    file = CalibrationFile(tmp_path / f"frontier_{name}.py", Kind.FRONTIER, source(name))
    result = calibrate([file], HintReader(), sandbox, RolloutConfig(max_turns_cap=2, audit=True),
                       (10_000, 10_001, 10_002)).results[0]
    assert result.screening.played and result.scores is not None
    if name == "switch_on_large_seed":  # the regret it would have been reported with: 1.00
        assert result.scores.estimate().regret == 1.0
    assert result.voided is not None and not result.ranked and result.score() is None
    shown = result.to_json()
    assert (shown["regret"], shown["regret_high"], shown["designer_score"]) == (0.0, 0.0, None)
    assert shown["voided"] == result.voided


def test_a_replay_reads_the_audit_as_the_loop_does(sandbox):
    """The replay path: an archived design replayed on fresh seeds is voided by the same audit."""
    from spadework.replay.plan import replay_outcome

    outcome = replay_outcome("i3-r7", played("switch_on_large_seed", sandbox), confidence=0.95)
    assert outcome.voided is not None and "the answer reads a value the text never shows" in outcome.voided
    assert (outcome.regret, outcome.reward, set(outcome.agent_advantages)) == (0.0, 0.0, {0.0})


GAME_SAYING_ITS_MOVE = '''
from spadework.envs import TextEnv


class EchoGameEnv(TextEnv):
    """A game whose opening names the move that wins: a game's text may say what to do."""

    max_turns = 2

    def new_episode(self):
        self.word = self.rng.choice(["olive", "cedar", "maple", "birch"])
        return f"Plant the tree named '{self.word}'."

    def apply(self, action):
        won = action == self.word
        return ("Planted." if won else "Not that one."), float(won), won

    def solution(self):
        return [self.word]

    def hint(self):
        return "Read the name in quotes."
'''


def test_the_answer_checks_of_played_openings_hold_puzzles_and_leave_games_alone(sandbox):
    """A text that states its answer voids an answer puzzle's plays; a game's opening that names its
    move is no stated key (the validator holds only answer puzzles to that check too)."""
    puzzle = (PLAYED.parent / "broken" / "stated_answer_quoted.py").read_text()
    for code, voided in ((puzzle, True), (GAME_SAYING_ITS_MOVE, False)):
        jobs = [PlayJob("d", code, seed, arm) for seed in play_seeds(0, 0, 0, 2) for arm in Arm]
        episodes = run_plays(HintReader(), sandbox, jobs, RolloutConfig(max_turns_cap=2, audit=True))
        assert all(e.check is not None and e.check.puzzle is voided for e in episodes)
        reason = void_reason(episodes)
        assert (reason is not None and "states its own answer" in reason) is voided, reason
