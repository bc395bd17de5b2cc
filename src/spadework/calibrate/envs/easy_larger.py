"""Easy: the larger of two numbers."""

from spadework.envs import AnswerEnv


class LargerNumberEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        first, second = self.rng.sample(range(100, 1000), 2)
        self.answer = max(first, second)
        return f"Which is larger, {first} or {second}? Reply with that number."

    def hint(self) -> str:
        return "Compare the hundreds digits first, then the tens."
