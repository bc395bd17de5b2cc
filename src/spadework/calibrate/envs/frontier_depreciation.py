"""Frontier: yearly straight-line depreciation, which the hint spells out as a method."""

from spadework.envs import AnswerEnv


class DepreciationEnv(AnswerEnv):
    max_turns = 1

    def new_episode(self) -> str:
        years = self.rng.randint(3, 8)
        salvage = self.rng.randrange(200, 2001, 50)
        cost = salvage + years * self.rng.randrange(150, 1201, 10)
        self.answer = (cost - salvage) // years
        return (f"A machine costs ${cost}. After {years} years of use it will be sold for its salvage "
                f"value of ${salvage}. What is its yearly depreciation, in dollars?")

    def hint(self) -> str:
        return "Subtract the salvage value from the cost, then divide by the number of years."
