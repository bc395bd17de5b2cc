"""Environments that would earn regret without teaching: planted, and rejected with exact messages.

Each irreducible-regret shape (the answer is not in what the agent reads) fails ``determined``;
each disguise of the answer in the hint fails ``no_hint_leak``; fair environments in the same
shapes (a hint that names the puzzle's numbers, a game that opens alike every time and is found
out by playing) pass.
"""

from __future__ import annotations

import pytest

from spadework.envs.examples import example_paths
from spadework.errors import CheckFailed
from spadework.sandbox import InProcessSandbox
from spadework.validate import CheckContext, ValidatorConfig, validate
from spadework.validate.arithmetic import arithmetic_tokens, evaluate
from spadework.validate.checks import check_determined, check_no_hint_leak
from spadework.validate.leaks import LeakForm, leaks
from spadework.validate.wording import words

READ = "put what decides the answer into the text the agent reads"


def answer_env(puzzle: str, answer: str, hint: str, extra: str = "") -> str:
    """An AnswerEnv module whose puzzle, answer and hint are expressions over ``self.rng`` draws
    ``a`` (100-499), ``b`` (100-499) and ``w`` (a word)."""
    return f'''
from spadework.envs import AnswerEnv

WORDS = ("lantern", "harbour", "meadow", "quarry", "thimble", "walnut", "saffron", "pebble")


class PlantedEnv(AnswerEnv):
{extra}
    def new_episode(self):
        self.a, self.b = self.rng.randint(100, 499), self.rng.randint(100, 499)
        self.w = self.rng.choice(WORDS)
        self.answer = {answer}
        return {puzzle}

    def hint(self):
        return {hint}
'''


def reason(source: str) -> str:
    return validate(source, InProcessSandbox()).reason


# --- irreducible regret: the answer is not in what the agent reads ---------------------------------


@pytest.mark.parametrize(("answer", "hint"), [
    ("str(self.a * 10 + 7)", "'Backwards: ' + self.answer[::-1]"),
    ("self.w", "'It rhymes with nothing.'"),
    ("self.a + self.b", "f'It is {self.a} plus {self.b}.'"),
], ids=["secret-code", "secret-word", "hint-expression"])
def test_the_same_question_with_different_answers_is_not_determined(answer, hint):
    source = answer_env("'What is the secret? Reply with it.'", answer, hint)
    assert reason(source).startswith("determined: seeds 0 and 1 show the same text but need different "
                                     "answers (")
    assert reason(source).endswith(f"so no player can tell which; {READ}")


def test_informative_feedback_does_not_excuse_an_answer_puzzle_that_hides_its_answer():
    """An answer puzzle is read, then answered: its text decides the answer, whatever feedback says."""
    feedback = ("    def feedback(self, guess):\n"
                "        return 'too high' if float(guess) > self.answer else 'too low'\n")
    source = answer_env("'Guess my number from 200 to 1000.'", "self.a + self.b", "'Halve the range.'",
                        extra=feedback)
    assert reason(source).startswith("determined: seeds 0 and 1 show the same text")


def test_the_check_compares_at_least_eight_seeds():
    """Seeds 0-2 show different texts; seeds 3 and 9 collide (a three-way choice) with different answers."""
    source = '''
from spadework.envs import AnswerEnv


class RareEnv(AnswerEnv):
    def new_episode(self):
        self.answer = self.seed * 7 + 100
        return "Which number?" if self.seed in (3, 9) else f"What is {self.seed} * 7 + 100?"

    def hint(self):
        return "Multiply first."
'''
    assert validate(source, InProcessSandbox(), ValidatorConfig(compared=8)).valid
    assert reason(source) == "valid"
    assert validate(source, InProcessSandbox(), ValidatorConfig(compared=10)).reason == (
        "determined: seeds 3 and 9 show the same text but need different answers ('121' and '163'), "
        f"so no player can tell which; {READ}")
    with pytest.raises(ValueError, match="compared must be at least 8"):
        ValidatorConfig(compared=4)


def test_the_determined_check_runs_alone():
    source = answer_env("'Name the secret word.'", "self.w", "'It is a noun.'")
    sandbox = InProcessSandbox()
    ctx = CheckContext(source, sandbox, code=source, env=sandbox.open(source))
    with pytest.raises(CheckFailed, match="^seeds 0 and 1 show the same text"):
        check_determined(ctx)
    assert len(ctx.episodes) == 8


# --- fair environments in the same shapes pass ------------------------------------------------------


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.stem)
def test_every_bundled_example_is_determined_and_leaks_nothing(path):
    """number_guess opens alike on every seed: its feedback tells seeds apart, so it is fair."""
    source = path.read_text()
    sandbox = InProcessSandbox()
    ctx = CheckContext(source, sandbox, code=source, env=sandbox.open(source))
    check_determined(ctx)
    check_no_hint_leak(ctx)


@pytest.mark.parametrize(("puzzle", "answer", "hint"), [
    ("f'Add {self.a} and {self.b}.'", "self.a + self.b",
     "f'Add the hundreds of {self.a} and {self.b} first.'"),
    ("f'What is {self.a} + {self.b}?'", "self.a + self.b",
     "f'{self.a} + {self.b}: carry when a column passes 9.'"),
    ("f'Reverse the word {self.w}.'", "self.w[::-1]", "f'Read {self.w} from its last letter.'"),
    ("f'Subtract {self.b} from {self.a + 500}.'", "self.a + 500 - self.b",
     "'Count up from the smaller number to the larger one.'"),
    ("f'What is {self.a} times 3?'", "self.a * 3", "'Three times a number is the number plus twice it.'"),
], ids=["names-numbers", "repeats-the-sum", "shows-the-word", "method", "number-words-of-the-puzzle"])
def test_fair_hints_that_mention_the_puzzle_pass(puzzle, answer, hint):
    assert reason(answer_env(puzzle, answer, hint)) == "valid"


# --- the leak forms, one by one ---------------------------------------------------------------------


@pytest.mark.parametrize(("hint", "answer", "form", "found"), [
    ("The code is 4812.", "4812", LeakForm.LITERAL, "4812"),
    ("the CODE is ApPlE", "apple", LeakForm.LITERAL, "apple"),
    ("Backwards it reads 2184.", "4812", LeakForm.REVERSED, "2184"),
    ("Backwards: 2 1 8 4", "4812", LeakForm.REVERSED, "2 1 8 4"),
    ("The digits are 4, 8, 1, 2.", "4812", LeakForm.SPACED, "4 8 1 2"),
    ("Spell it: A.P.P.L.E", "apple", LeakForm.SPACED, "a p p l e"),
    ("Think 48-12.", "4812", LeakForm.SPACED, "48 12"),
    ("It is forty-two.", "42", LeakForm.NUMBER_WORDS, "forty two"),
    ("Say four two.", "42", LeakForm.NUMBER_WORDS, "four two"),
    ("Five hundred and forty-nine.", "549", LeakForm.NUMBER_WORDS, "five hundred and forty nine"),
    ("It is 412 plus 137.", "549", LeakForm.ARITHMETIC, "412 + 137"),
    ("Work out (825 - 66) / 9.", "84.33", LeakForm.ARITHMETIC, "(825 - 66) / 9"),
    ("Try 20 x 27 + 9.", "549", LeakForm.ARITHMETIC, "20 * 27 + 9"),
    ("It is six hundred minus fifty-one.", "549", LeakForm.ARITHMETIC, "600 - 51"),
    ("Use 3 multiplied by 183.", "549", LeakForm.ARITHMETIC, "3 * 183"),
    ("It is the sum of 400 and 149.", "549", LeakForm.ARITHMETIC, "(400 + 149)"),
    ("It is 137 more than 412.", "549", LeakForm.ARITHMETIC, "(412 + 137)"),
    ("Take half of 1098.", "549", LeakForm.ARITHMETIC, "(1098 / 2)"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 12 else None)
def test_each_disguise_is_found_and_named(hint, answer, form, found):
    (leak,) = leaks(hint, [answer], [["1234"], ["77"]])
    assert (leak.form, leak.answer, leak.found) == (form, answer.lower(), found)


@pytest.mark.parametrize(("hint", "solution"), [
    ("Press up, then left, then down.", ["up", "left", "down"]),
    ("right twice and down x3", ["right", "right", "down", "down", "down"]),
    ("First pay 20, next pay 5.", ["pay 20", "pay 5"]),
])
def test_a_hint_that_spells_the_actions_in_order_leaks(hint, solution):
    (leak,) = [leak for leak in leaks(hint, solution, [["down", "up"]]) if leak.form is LeakForm.ACTIONS]
    assert leak.answer == " ".join(solution)


@pytest.mark.parametrize(("hint", "solution", "observation"), [
    ("Look up the map: the exit is somewhere on the left.", ["up", "left"], ""),
    ("Keep left, then go up.", ["up", "left"], ""),
    ("The code has 4 digits and starts high.", ["4812"], ""),
    ("Add the 12 and the 9.", ["21"], "What is 12 + 9?"),
    ("12 + 9 is the sum asked for.", ["21"], "What is 12 + 9?"),
    ("It can be paid with two coins.", ["pay 20", "pay 2"], "Pay 22 with coins 2, 5, 20."),
    ("Multiply first: 9 * 6 = 54, then add.", ["80"], "Compute 9 * 6 + 26."),
], ids=["words-in-other-order", "reversed-order", "length", "reversed-puzzle-number", "puzzle-expression",
        "number-word-shown", "partial-step"])
def test_fair_hints_leak_nothing(hint, solution, observation):
    assert leaks(hint, solution, [["left", "up", "pay 9", "7"]], observation) == []


def test_a_part_every_seed_shares_is_no_secret():
    assert leaks("Reply with a word like 'guess 42'.", ["guess 42"], [["guess 42"]]) == []
    assert [leak.answer for leak in leaks("guess 42", ["guess 42"], [["guess 17"]])] == ["42"]


def test_arithmetic_is_parsed_never_evaluated_as_code():
    assert evaluate("__import__('os').system('true')") is None
    assert evaluate("9 ** 999999") is None and evaluate("(1 + 2") is None
    assert evaluate("-(4 - 10) * 2") == 12
    assert arithmetic_tokens("ninety-nine divided by three") == ["99", "/", "3"]
    assert [w.text for w in words("Twenty-one, then one two three")] == ["21", "then", "1", "2", "3"]


def test_characters_spelled_out_with_connecting_words_leak():
    (leak,) = leaks("The digits are 4, then 8, then 1 and 2.", ["4812"], [["1234"]])
    assert (leak.form, leak.found) == (LeakForm.SPACED, "4 8 1 2")
    assert leaks("Between 12 and 48 coins.", ["4812"], [["1234"]]) == []
