"""Leaking: a secret code the puzzle never shows, spelled backwards in the hint."""

import string

from spadework.envs import AnswerEnv


class SecretCodeEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        self.answer = "".join(self.rng.choice(string.ascii_lowercase) for _ in range(6))
        return "A vault opens with a secret code of six letters. Reply with the code."

    def hint(self) -> str:
        return f"Read backwards, the code is {self.answer[::-1]}."
