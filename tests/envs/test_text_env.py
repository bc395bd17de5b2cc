"""TextEnv: turn counting, the seed it keeps, and refused actions as moves of the game."""

from __future__ import annotations

import pytest

from spadework.envs import TextEnv
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
