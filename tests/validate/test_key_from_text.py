"""The admission gate's ``key_from_text`` check on planted designs written for it: every class of
wrong key the ablation arms' designs showed (a value the key reads and the text never shows, a
rounding the text hides, a hidden draw in an environment written from scratch or through the
``random`` module), each beside a fair twin that must pass; what the gate cannot re-draw is said,
never passed in silence; and a value the environment cannot take is no evidence."""

from __future__ import annotations

import pytest

from spadework.sandbox import InProcessSandbox
from spadework.validate import validate
from spadework.validate.verdict import Outcome

ANSWER = '''
from spadework.envs import AnswerEnv


class PlantedEnv(AnswerEnv):
    max_turns = 2

    def new_episode(self):
{body}

    def hint(self):
        return "Work it out step by step."
'''


def answer_env(body: str) -> str:
    return ANSWER.format(body="\n".join("        " + line for line in body.strip().splitlines()))


WRONG = {
    "a hidden amount added": answer_env('''
a, b = self.rng.randint(10, 99), self.rng.randint(10, 99)
extra = self.rng.randint(1, 9)
self.answer = a + b + extra
return f"A crate holds {a} apples and {b} pears, and a few plums. How many fruits in all?"'''),
    "a hidden exchange rate": answer_env('''
price = self.rng.randint(20, 90)
rate = self.rng.uniform(0.8, 1.2)
self.answer = round(price * rate, 2)
return f"Book {self.rng.randint(1, 10**6)} costs {price} euros. What is it in dollars, to two decimals?"'''),
    "a hidden station": answer_env('''
stations = ["North", "East", "West"]
where = self.rng.choice(stations)
self.answer = where
return f"Train {self.rng.randint(100, 10**6)} stops at one station. Which one? Answer with its name."'''),
    "values shown rounded, keyed unrounded": answer_env('''
a, b = self.rng.uniform(1, 10), self.rng.uniform(1, 10)
self.answer = round(a + b, 3)
return f"Two parcels weigh {a:.1f} kg and {b:.1f} kg. Their total weight, to three decimals?"'''),
    "a shuffle the text never shows": answer_env('''
names = ["Ann", "Bo", "Cy"]
self.rng.shuffle(names)
self.answer = names[0]
return f"Race {self.rng.randint(1, 10**6)}: three runners, Ann, Bo and Cy, finished. Who won?"'''),
}

FAIR = {
    "every value shown": answer_env('''
a, b = self.rng.randint(10, 99), self.rng.randint(10, 99)
self.answer = a + b
return f"A crate holds {a} apples and {b} pears. How many fruits in all?"'''),
    "a value drawn only for flavour": answer_env('''
a, b = self.rng.randint(10, 99), self.rng.randint(10, 99)
self.crate_id = self.rng.randint(1000, 9999)  # an internal id, never shown, never keyed
self.colour = self.rng.choice(["red", "blue"])
self.answer = a * b
return f"A grid has {a} rows of {b} seats. How many seats?"'''),
    "values shown rounded, keyed rounded": answer_env('''
a, b = round(self.rng.uniform(1, 10), 1), round(self.rng.uniform(1, 10), 1)
self.answer = round(a + b, 1)
return f"Two parcels weigh {a:.1f} kg and {b:.1f} kg. Their total weight, to one decimal?"'''),
    "a choice between shown options": answer_env('''
options = self.rng.sample([12, 35, 47, 58, 71, 86], 3)
self.answer = max(options)
return f"Which is largest: {options[0]}, {options[1]} or {options[2]}?"'''),
    "a shuffle the text shows": answer_env('''
names = ["Ann", "Bo", "Cy", "Di"]
self.rng.shuffle(names)
self.answer = names[-1]
return f"The runners finished in this order: {', '.join(names)}. Who came last?"'''),
}

SCRATCH_HIDDEN = '''
import random


class LockerEnv:
    max_turns = 1

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.door = rng.randint(1, 10**6)
        self.code = rng.randint(100, 999)
        return f"Locker {self.door} is shut. What is its code?", {}

    def step(self, action):
        won = action.strip() == str(self.code)
        return ("Open." if won else "Shut."), float(won), True, False, {}

    def solution(self):
        return [str(self.code)]

    def hint(self):
        return "It is a three-digit number."
'''

MODULE_HIDDEN = '''
import random


class DiceEnv:
    max_turns = 1

    def reset(self, seed=None):
        random.seed(seed)
        self.table = random.randint(1, 10**6)
        self.roll = random.randint(1, 6)
        return f"At table {self.table} a die was rolled. What did it show?", {}

    def step(self, action):
        won = action.strip() == str(self.roll)
        return ("Yes." if won else "No."), float(won), True, False, {}

    def solution(self):
        return [str(self.roll)]

    def hint(self):
        return "Dice favour no face."
'''


def gate(verdict):
    return next(c for c in verdict.checks if c.name == "key_from_text")


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_key_is_refused_naming_the_line_that_drew_the_hidden_value(name):
    verdict = validate(WRONG[name], InProcessSandbox())
    assert verdict.failure is not None and verdict.failure.name == "key_from_text", verdict.reason
    assert "the answer reads a value the text never shows: the value drawn at line " in verdict.reason
    assert verdict.reason.endswith("show it in the text, or leave it out of the answer")


@pytest.mark.parametrize("name", sorted(FAIR))
def test_a_fair_twin_passes(name):
    verdict = validate(FAIR[name], InProcessSandbox())
    assert verdict.valid, verdict.reason
    assert gate(verdict).outcome is Outcome.PASSED


def test_the_line_named_is_the_one_that_drew_the_hidden_value():
    reason = validate(WRONG["a hidden amount added"], InProcessSandbox()).reason
    assert "(`extra = self.rng.randint(1, 9)`)" in reason


@pytest.mark.parametrize("source", [SCRATCH_HIDDEN, MODULE_HIDDEN], ids=["own-generator", "random-module"])
def test_environments_written_from_scratch_are_reached(source, sandbox):
    verdict = validate(source, sandbox)
    assert verdict.failure is not None and verdict.failure.name == "key_from_text", verdict.reason
    assert "randint(1" in verdict.reason or "randint(100, 999)" in verdict.reason


def test_an_environment_that_draws_nothing_through_random_is_said_to_be_unchecked():
    source = SCRATCH_HIDDEN.replace("rng = random.Random(seed)", "rng = None").replace(
        "rng.randint(1, 10**6)", "(seed * 7) % 200 + 1").replace(
        "rng.randint(100, 999)", "(seed * 37) % 900 + 100")
    verdict = validate(source, InProcessSandbox())
    assert verdict.valid, verdict.reason
    assert (gate(verdict).outcome, gate(verdict).message) == (
        Outcome.OFF, "the episode draws no value through random (self.rng, random.Random(seed) or the random "
                     "module), so it could not be drawn again with a value changed")


def test_a_value_the_environment_cannot_take_is_no_evidence():
    fair = answer_env('''
a, b = self.rng.randint(10, 99), self.rng.randint(10, 99)
if a == 11 or b == 11:  # a re-draw that moves a value here raises: no evidence either way
    raise ValueError("not that one")
self.answer = a + b
return f"A crate holds {a} apples and {b} pears. How many fruits in all?"''')
    verdict = validate(fair, InProcessSandbox())
    assert verdict.valid, verdict.reason


def test_the_same_gate_holds_in_the_real_sandbox(sandbox):
    for name, source in (("wrong", WRONG["values shown rounded, keyed unrounded"]),
                         ("fair", FAIR["values shown rounded, keyed rounded"])):
        verdict = validate(source, sandbox)
        assert verdict.valid is (name == "fair"), verdict.reason


def test_a_game_with_feedback_passes_and_one_that_hides_the_outcome_does_not():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    guess = (root / "src" / "spadework" / "envs" / "examples" / "number_guess.py").read_text()
    assert gate(validate(guess, InProcessSandbox())).outcome is Outcome.PASSED
    door = (root / "tests" / "fixtures" / "envs" / "broken" / "key_from_text_game_door.py").read_text()
    assert gate(validate(door, InProcessSandbox())).outcome is Outcome.FAILED
