"""A valid design of a real make-run-sized run (the 1.5B designer, archive record 7), kept as it was written."""

from spadework.envs import AnswerEnv


class QueueItemEnv(AnswerEnv):
    """Put an item on the queue."""

    max_turns = 2

    def new_episode(self):
        self.item = self.rng.choice(["apple", "banana", "cherry", "date", "elderberry"])
        self.answer = self.item
        return f"Put the {self.item} on the queue."

    def feedback(self, guess):
        return "The item is already on the queue."

    def hint(self):
        return "The item is one of the five fruits listed."
