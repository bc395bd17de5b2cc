"""Leaking: the same question every time, with a different answer each time."""

from spadework.envs import AnswerEnv


class SameQuestionEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        self.answer = self.rng.randint(100, 999)
        return "I am thinking of a whole number from 100 to 999. Which is it?"

    def hint(self) -> str:
        return "It is not a round number."
