"""Impossible: the exact product of five 4-digit numbers, beyond anyone without a computer."""

import math

from spadework.envs import AnswerEnv


class BigProductEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        numbers = [self.rng.randint(1000, 9999) for _ in range(5)]
        self.answer = math.prod(numbers)
        return f"What is the exact product {' x '.join(map(str, numbers))}? Reply with the whole number."

    def hint(self) -> str:
        return "Multiply them a pair at a time and keep every digit of each partial product."
