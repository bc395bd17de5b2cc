"""Frontier: a scoring convention the agent cannot know, which the hint states."""

from spadework.envs import AnswerEnv

WORDS = ("cat", "moon", "piano", "banana", "avocado", "umbrella", "education", "garden", "tomato",
         "elephant", "river", "kettle", "computer", "radio", "igloo", "volcano", "basket", "audio",
         "mountain", "ocean", "pumpkin", "dinosaur", "lemon", "potato")


class WordScoreEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        word = self.rng.choice(WORDS)
        self.answer = len(word) * sum(letter in "aeiou" for letter in word)
        return f"In the word game Quill, how many points does the word '{word}' score? Reply with the number."

    def hint(self) -> str:
        return "In Quill a word scores its number of letters times its number of vowels (a, e, i, o, u)."
