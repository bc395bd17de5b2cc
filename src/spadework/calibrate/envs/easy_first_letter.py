"""Easy: the first letter of a word."""

from spadework.envs import AnswerEnv

WORDS = ("garden", "pencil", "river", "window", "basket", "candle", "forest", "mirror", "ladder",
         "turtle", "violin", "jacket", "kettle", "orange", "lemon", "quilt", "saddle", "helmet",
         "wagon", "needle", "eagle", "umbrella", "yogurt", "zipper")


class FirstLetterEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        word = self.rng.choice(WORDS)
        self.answer = word[0]
        return f"What is the first letter of the word '{word}'? Reply with that letter only."

    def hint(self) -> str:
        return "Read the word from its start: the answer is its opening character."
