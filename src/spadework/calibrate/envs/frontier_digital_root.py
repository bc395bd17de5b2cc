"""Frontier: the digital root of a long number, which the hint spells out as a method."""

from spadework.envs import AnswerEnv


class DigitalRootEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        number = self.rng.randint(1_000_000, 99_999_999)
        while number % 9 == 1:  # a root of 1 would be the trivial guess '1'
            number = self.rng.randint(1_000_000, 99_999_999)
        self.answer = 9 if number % 9 == 0 else number % 9
        return f"What is the digital root of {number}? Reply with the digit."

    def hint(self) -> str:
        return ("Add up all the digits; while the sum has more than a single digit, add up its digits "
                "again. The single digit left is the digital root.")
