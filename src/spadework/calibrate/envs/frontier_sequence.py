"""Frontier: the next term of a sequence whose rule the hint gives."""

from spadework.envs import AnswerEnv


class DoublingSequenceEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        terms = [self.rng.randint(3, 20)]
        while len(terms) < 5:
            terms.append(2 * terms[-1] + 1)
        self.answer = terms[-1]
        shown = ", ".join(map(str, terms[:-1]))
        return f"The sequence {shown}, ... follows a fixed rule. What is its next term?"

    def hint(self) -> str:
        return "Each term is twice the term before it, plus one."
