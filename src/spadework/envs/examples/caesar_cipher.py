"""Decode a word whose letters were all shifted the same number of places along the alphabet."""

import string

from spadework.envs import TextEnv

ALPHABET = string.ascii_lowercase
WORDS = ("apple", "brick", "cloud", "dream", "eagle", "flame", "grape", "house", "ivory",
         "jelly", "knife", "lemon", "mango", "night", "ocean", "piano", "queen", "river",
         "stone", "tiger", "vivid", "whale", "yacht", "zebra")
HINT_SPAN = 5


def shift(word: str, places: int) -> str:
    """``word`` with every letter moved ``places`` forward, wrapping from z to a.

    >>> shift("zebra", 2)
    'bgdtc'
    """
    return "".join(ALPHABET[(ALPHABET.index(letter) + places) % 26] for letter in word)


class CaesarCipherEnv(TextEnv):
    """One coded word per episode; wrong answers are told how many letters are right."""

    max_turns = 6

    def new_episode(self) -> str:
        self.word = self.rng.choice(WORDS)
        self.places = self.rng.randint(1, 25)
        self.coded = shift(self.word, self.places)
        offset = self.rng.randrange(HINT_SPAN)
        self.lowest = max(1, min(self.places - offset, 26 - HINT_SPAN))
        return (f"The word '{self.coded}' was coded by moving every letter the same number of "
                "places forward in the alphabet, wrapping from z to a. Reply with the original "
                "word; after a wrong answer I say how many letters are in the right place.")

    def apply(self, action: str) -> tuple[str, float, bool]:
        answer = action.lower()
        if answer == self.word:
            return "Decoded.", 1.0, True
        if len(answer) != len(self.word) or not answer.isalpha():
            return f"Reply with one word of {len(self.word)} letters.", 0.0, False
        right = sum(a == b for a, b in zip(answer, self.word, strict=True))
        return (f"{right} of {len(self.word)} letters are right; the code is still "
                f"'{self.coded}'.", 0.0, False)

    def solution(self) -> list[str]:
        return [self.word]

    def hint(self) -> str:
        highest = self.lowest + HINT_SPAN - 1
        return (f"Each letter moved forward by {self.lowest} to {highest} places: undo "
                "each of those shifts on the code and keep the one that reads as a word.")
