"""A declared answer kind: the base class states the form under the puzzle, scores by it (a decimal
at its stated places), and refuses a key the form cannot hold, in the sandbox and the validator."""

from __future__ import annotations

import pytest

from spadework.envs import AnswerEnv, Decimals, InOrder, OneOf, WholeNumber
from spadework.sandbox import InProcessSandbox
from spadework.validate import validate

PUZZLE = '''
from spadework.envs import AnswerEnv, Decimals, InOrder, OneOf, WholeNumber


class KindEnv(AnswerEnv):
    answer_kind = {kind}

    def new_episode(self):
        xs = [self.rng.randint(1, 90) for _ in range(3)]
        names = ["north", "south", "east", "west"]
        self.rng.shuffle(names)
        self.xs, self.names = xs, names
        self.answer = {answer}
        return f"Numbers: {{xs[0]}}, {{xs[1]}} and {{xs[2]}}. Directions: {{', '.join(names)}}. {question}"

    def hint(self):
        return "Read the numbers carefully."
'''

CASES = {
    "whole": ("WholeNumber()", "sum(xs)", "What is their sum?", "Answer with a whole number."),
    "decimals": ("Decimals(2)", "sum(xs) / 3", "What is their mean?",
                 "Answer with a number rounded to 2 decimal places."),
    "one of": ("OneOf(['north', 'south', 'east', 'west'])", "names[0]", "Which direction comes first?",
               "Answer with one of: north, south, east, west."),
    "in order": ("InOrder(WholeNumber())", "sorted(xs)", "Sort the numbers.",
                 "Answer with the items in order, separated by spaces; each: a whole number."),
}


def source(name: str) -> str:
    kind, answer, question, _ = CASES[name]
    return PUZZLE.format(kind=kind, answer=answer, question=question)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_kind_states_its_form_and_passes_the_validator(name, sandbox):
    verdict = validate(source(name), sandbox)
    assert verdict.valid, verdict.reason
    env = sandbox.open(source(name))
    try:
        observation, _ = env.reset(seed=4)
        assert observation.endswith("\n" + CASES[name][3])
        assert env.step(env.solution()[0])[1:3] == [1.0, True]
    finally:
        env.close()


def test_a_decimal_is_compared_at_its_stated_places():
    kind = Decimals(2)
    assert kind.text(31.666666) == "31.67"
    assert [kind.matches(guess, 31.666666) for guess in ("31.67", "31.671", "31.7", "31.66", "31.6667")] == \
        [True, True, False, False, True]
    assert Decimals(0).matches("32", 31.6) and not Decimals(0).matches("31", 31.6)


def test_lists_words_and_whole_numbers_are_read_in_their_form():
    assert InOrder(WholeNumber()).matches("[12, 40, 77]", [12, 40, 77])
    assert not InOrder(WholeNumber()).matches("77 40 12", [12, 40, 77])
    assert InOrder(Decimals(1)).matches("0.5 1.3", [0.49, 1.25])
    assert OneOf(["North", "South"]).matches(" north. ", "North")
    assert WholeNumber().matches("1,250", 1250) and not WholeNumber().matches("1250 g and 3", 1250)


@pytest.mark.parametrize(("kind", "answer", "problem"), [
    ("WholeNumber()", "sum(xs) / 7", "is not a whole number"),
    ("OneOf(['up', 'down'])", "names[0]", "is not one of the options"),
    ("InOrder(WholeNumber())", "sum(xs)", "is not a list"),
])
def test_a_key_its_declared_form_cannot_hold_is_refused(kind, answer, problem):
    code = PUZZLE.format(kind=kind, answer=answer, question="Answer it.")
    verdict = validate(code, InProcessSandbox())
    assert verdict.failure is not None and verdict.failure.name == "contract"
    assert "reset() raised ValueError: answer_kind is " in verdict.reason
    assert problem in verdict.reason and verdict.reason.endswith("store an answer of that form")


def test_a_kind_may_depend_on_the_episode():
    class PickEnv(AnswerEnv):
        def new_episode(self):
            options = self.rng.sample(["red", "green", "blue", "amber"], 3)
            self.answer_kind = OneOf(options)
            self.answer = options[1]
            return "Name the second colour."

    env = PickEnv()
    observation, _ = env.reset(seed=2)
    assert observation.splitlines()[-1].startswith("Answer with one of: ")
    assert env.answer in observation and env.step(env.solution()[0])[1] == 1.0


def test_kinds_are_checked_when_made():
    for bad in (lambda: Decimals(-1), lambda: Decimals(2.5), lambda: OneOf(["only"]), lambda: InOrder("x")):
        with pytest.raises(ValueError):
            bad()
