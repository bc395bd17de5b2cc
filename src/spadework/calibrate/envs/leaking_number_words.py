"""Leaking: a hint that writes the answer's digits as number words."""

from spadework.envs import AnswerEnv

DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


class LockerEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        self.answer = self.rng.randint(100, 999)
        locker = self.rng.randint(100, 999)
        return f"What is the combination of locker {locker}? Reply with its digits."

    def hint(self) -> str:
        return "Its digits are " + " ".join(DIGITS[int(d)] for d in str(self.answer)) + "."
