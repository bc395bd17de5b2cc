"""A planted attack on the plateau: an answer that does not follow from the text, dressed up so each
seed opens differently (the validator's ``determined`` check cannot see it). The admission gate
(``key_from_text``) refuses it, naming the line that drew the hidden value. Where the gate cannot
draw an episode again (a value drawn outside ``random``), the second line holds: a blind guess wins
about as often as the band asks, so the raw plateau would pay the designer for a coin toss; the
validator measures the chance and the plateau pays only the win rate above it."""

from __future__ import annotations

import pytest

from spadework.rewards import REFERENCE_BLEND, designer_score, regret_estimate
from spadework.rewards.designer import plateau
from spadework.sandbox import InProcessSandbox
from spadework.validate import validate
from spadework.validate.checks import CHECKS

WITHOUT_GATE = tuple(check for check in CHECKS if check.name != "key_from_text")

HIDDEN_DRAW = '''
from spadework.envs import AnswerEnv


class HiddenDrawEnv(AnswerEnv):
    """Each round something is drawn out of sight: call it."""

    max_turns = 1

    def new_episode(self):
        self.answer = self.rng.choice({sides!r})
        shown = ", ".join({sides!r})
        return f"Round {{self.rng.randint(1, 999)}}: one of {{shown}} was drawn out of sight. Name it."

    def hint(self):
        return "Think about which comes up more often in this game."
'''

FAIR = '''
from spadework.envs import AnswerEnv


class SumEnv(AnswerEnv):
    """Add two numbers."""

    max_turns = 1

    def new_episode(self):
        a, b = self.rng.randint(100, 999), self.rng.randint(100, 999)
        self.answer = a + b
        return f"What is {a} + {b}?"

    def hint(self):
        return "Add the hundreds first."
'''


def blind_wins(source: str, guess: str, seeds: range) -> list[float]:
    """The scores of an agent that always answers ``guess``, on ``seeds``."""
    sandbox = InProcessSandbox()
    env = sandbox.open(source)
    scores = []
    for seed in seeds:
        env.reset(seed=seed)
        scores.append(float(env.step(guess)[1]))
    return scores


@pytest.mark.parametrize("sides", [("heads", "tails"), ("red", "black", "green")], ids=["coin", "three-way"])
def test_a_hidden_draw_is_refused_by_the_gate_at_the_line_that_drew_it(sides):
    verdict = validate(HIDDEN_DRAW.format(sides=sides), InProcessSandbox())
    assert not verdict.valid
    assert verdict.reason.startswith("key_from_text: seed 0: the answer reads a value the text never shows")
    assert "line 11 (`self.answer = self.rng.choice(" in verdict.reason


@pytest.mark.parametrize("sides", [("heads", "tails"), ("red", "black", "green")], ids=["coin", "three-way"])
def test_past_the_gate_a_hidden_draw_has_its_chance_measured(sides):
    verdict = validate(HIDDEN_DRAW.format(sides=sides), InProcessSandbox(), checks=WITHOUT_GATE)
    assert verdict.valid, verdict.reason  # the disguise gets past ``determined``: each seed opens differently
    assert verdict.chance is not None
    assert verdict.chance >= 0.25


def test_a_fair_puzzle_has_no_chance():
    verdict = validate(FAIR, InProcessSandbox())
    assert verdict.valid and verdict.chance == 0.0


def test_an_invalid_environment_has_no_chance_measured():
    assert validate("class Broken:\n    pass\n", InProcessSandbox()).chance is None


@pytest.mark.parametrize("sides", [("heads", "tails"), ("red", "black", "green")], ids=["coin", "three-way"])
def test_the_plateau_does_not_pay_a_blind_guess(sides):
    """An agent that guesses blind wins about 1/len(sides) of its plays: on the raw win rate the
    plateau pays the design, above chance it pays nothing; the blend keeps only the regret's share."""
    source = HIDDEN_DRAW.format(sides=sides)
    chance = validate(source, InProcessSandbox(), checks=WITHOUT_GATE).chance
    assert chance is not None
    nohint = blind_wins(source, sides[0], range(100, 132))
    win_rate = sum(nohint) / len(nohint)
    assert plateau(win_rate) > 0.5  # the attack: a blind guess sits near the band
    estimate = regret_estimate(nohint, nohint)
    score = designer_score(estimate, [nohint], REFERENCE_BLEND, chance)
    assert score.win_rate == win_rate
    assert score.plateau < 0.5
    assert score.blend == pytest.approx(0.6 * score.plateau)
    assert designer_score(estimate, [nohint], REFERENCE_BLEND).plateau > score.plateau


def test_a_fair_puzzle_at_the_frontier_is_still_paid_in_full():
    verdict = validate(FAIR, InProcessSandbox())
    half = [1.0, 0.0] * 8
    score = designer_score(regret_estimate(half, half), [half], REFERENCE_BLEND, verdict.chance or 0.0)
    assert score.plateau == 1.0


def test_the_random_guess_gate_refuses_above_its_limit_and_is_off_by_default():
    from spadework.validate import ValidatorConfig

    source = HIDDEN_DRAW.format(sides=("heads", "tails"))
    off = validate(source, InProcessSandbox(), checks=WITHOUT_GATE)
    assert off.valid and off.chance is not None and off.chance > 0.25
    gated = validate(source, InProcessSandbox(), ValidatorConfig(max_chance=0.25), checks=WITHOUT_GATE)
    assert gated.failure is not None and gated.failure.name == "not_guessable"
    assert "more than designer.max_chance (25%)" in gated.reason
    assert validate(FAIR, InProcessSandbox(), ValidatorConfig(max_chance=0.0)).valid  # chance 0



def test_the_limit_is_a_config_field_the_run_validates_with():
    from spadework.config import load_config
    from spadework.engines import validator_settings

    assert validator_settings(load_config(None), 0).max_chance is None
    assert validator_settings(load_config(None, {"designer.max_chance": 0.75}), 0).max_chance == 0.75
