"""Impossible: the start of a SHA-256 digest, beyond anyone without a computer."""

import hashlib
import string

from spadework.envs import AnswerEnv


class DigestPrefixEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        word = "".join(self.rng.choice(string.ascii_lowercase) for _ in range(6))
        self.answer = hashlib.sha256(word.encode()).hexdigest()[:8]
        return (f"What are the first 8 hexadecimal digits of the SHA-256 digest of the word '{word}' "
                "(its UTF-8 bytes; lowercase hex)?")

    def hint(self) -> str:
        return "SHA-256 mixes every bit of its input; there is no shortcut to its digest."
