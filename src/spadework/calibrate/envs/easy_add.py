"""Easy: the sum of two small numbers."""

from spadework.envs import AnswerEnv


class AddTwoEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        first, second = self.rng.randint(11, 49), self.rng.randint(11, 49)
        self.answer = first + second
        return f"What is {first} + {second}? Reply with the number."

    def hint(self) -> str:
        return "Add the tens, then the ones, and carry when the ones pass nine."
