"""TextEnv: turn counting, the seed it keeps, refused actions as moves of the game; AnswerEnv:
one answer, compared loosely, with feedback on wrong tries."""

from __future__ import annotations

import pytest

from spadework.envs import AnswerEnv, TextEnv
from spadework.validate import validate

SOURCE = '''
import random

from spadework.envs import TextEnv


class PickEnv(TextEnv):
    max_turns = 4

    def new_episode(self):
        self.secret = random.Random(self.seed).randint(1, 9)  # the seed, not only self.rng
        return "Pick a digit from 1 to 9; reply with the digit."

    def apply(self, action):
        digit = int(action)  # "x" raises ValueError: refused, not a crash
        if not 1 <= digit <= 9:
            raise ValueError("the digit must be from 1 to 9")
        if digit == self.secret:
            return "Yes!", 1.0, True
        return ("Higher." if digit < self.secret else "Lower."), 0.0, False

    def solution(self):
        low, high, moves = 1, 9, []
        while True:
            guess = (low + high) // 2
            moves.append(str(guess))
            if guess == self.secret:
                return moves
            low, high = (guess + 1, high) if guess < self.secret else (low, guess - 1)

    def hint(self):
        return "Halve the range every time."
'''


def make_env():
    namespace: dict = {}
    exec(compile(SOURCE, "pick_env.py", "exec"), namespace)  # trusted test source
    return namespace["PickEnv"]()


def test_a_refused_action_is_an_observation_and_the_turn_counts():
    env = make_env()
    env.reset(3)
    assert env.seed == 3
    observation, reward, terminated, truncated, info = env.step("x")
    assert observation.startswith("Invalid action: invalid literal for int()")
    assert (reward, terminated, truncated, info["turn"]) == (0.0, False, False, 1)
    assert env.step("12")[0] == "Invalid action: the digit must be from 1 to 9"
    for action in env.solution():
        observation, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    assert env.turn <= env.max_turns


def test_other_exceptions_still_escape():
    class Broken(TextEnv):
        def new_episode(self):
            return "go"

        def apply(self, action):
            raise KeyError(action)

    env = Broken()
    env.reset(0)
    with pytest.raises(KeyError):
        env.step("a")


def test_the_validator_accepts_a_game_that_refuses_bad_actions(sandbox):
    verdict = validate(SOURCE, sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.tolerances == ()


class SumEnv(AnswerEnv):
    """A fake answer puzzle: add two numbers, told higher or lower."""

    def new_episode(self):
        self.a, self.b = self.rng.randint(10, 99), self.rng.randint(10, 99)
        self.answer = self.a + self.b
        return f"What is {self.a} + {self.b}?"

    def feedback(self, guess):
        return "Higher." if int(guess) < self.answer else "Lower."

    def hint(self):
        return "Add the tens first."


def test_an_answer_env_pays_once_for_the_answer_however_it_is_spelled():
    env = SumEnv()
    env.reset(4)
    assert env.solution() == [str(env.answer)]
    assert env.step(str(env.answer - 1))[:4] == ("Higher.", 0.0, False, False)
    assert env.step(f" {env.answer}.0 ")[:3] == ("Correct.", 1.0, True)
    assert env.step(str(env.answer))[0] == "The episode is over."


def test_an_answer_env_refuses_an_unreadable_guess_and_stops_after_max_turns():
    env = SumEnv()
    env.reset(4)
    assert env.step("lots")[0].startswith("Invalid action: invalid literal for int()")
    env.step("0")
    observation, reward, terminated, truncated, _ = env.step("1")
    assert (reward, terminated, truncated) == (0.0, False, True)  # 3 tries by default


def test_a_list_answer_is_sent_as_words():
    class OrderEnv(AnswerEnv):
        def new_episode(self):
            self.answer = sorted(self.rng.sample(range(100), 4))
            return "Sort them."

        def hint(self):
            return "Smallest first."

    env = OrderEnv()
    env.reset(1)
    (action,) = env.solution()
    assert action == " ".join(map(str, env.answer))
    assert env.step("[" + ", ".join(map(str, env.answer)) + "]")[2] is True


def test_a_slip_in_feedback_gives_the_plain_reply_and_a_value_error_refuses():
    class SlipEnv(SumEnv):
        def feedback(self, guess):
            return "Lower." if guess > self.answer else "Higher."  # str against int: TypeError

    env = SlipEnv()
    env.reset(2)
    assert env.step("5")[:3] == ("Not right. Try again.", 0.0, False)
    assert env.step(str(env.answer))[:3] == ("Correct.", 1.0, True)
    env = SumEnv()
    env.reset(2)
    assert env.step("five")[0].startswith("Invalid action:")  # int("five") in feedback


def test_an_answer_env_without_an_answer_fails_validation_with_a_message():
    source = '''
from spadework.envs import AnswerEnv


class BlankEnv(AnswerEnv):
    def new_episode(self):
        self.number = self.rng.randint(10, 99)
        return f"What is {self.number} doubled?"

    def hint(self):
        return "Add it to itself."
'''
    from spadework.sandbox import InProcessSandbox

    verdict = validate(source, InProcessSandbox())
    assert verdict.failure.name == "contract"
    assert "new_episode() set no answer: store the puzzle's answer in self.answer" in verdict.reason
