"""Pay an exact amount from a purse of coins, one coin per turn, without paying too much."""

import itertools
import random

DENOMINATIONS = (2, 5, 7, 10, 20)
PURSE_SIZE = 7
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven")


class CoinPurseEnv:
    """A plain class: the amount is a sum of some of the purse's coins; overpaying loses."""

    max_turns = 10

    def reset(self, seed: int | None = None) -> tuple[str, dict]:
        rng = random.Random(seed)
        self.purse = sorted(rng.choices(DENOMINATIONS, k=PURSE_SIZE))
        chosen = rng.sample(self.purse, rng.randint(3, 5))
        self.amount = sum(chosen)
        self.left = list(self.purse)
        self.paid = 0
        self.turn = 0
        return (f"Pay exactly {self.amount}. Your purse holds the coins {self.show()}. Reply "
                "'pay N' to hand over one coin of value N; paying more than the amount loses."), {}

    def show(self) -> str:
        return ", ".join(map(str, self.left))

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        self.turn += 1
        out_of_turns = self.turn >= self.max_turns
        words = action.lower().split()
        if len(words) != 2 or words[0] != "pay" or not words[1].isdigit():
            return "Reply like 'pay 5'.", 0.0, False, out_of_turns, {"paid": self.paid}
        coin = int(words[1])
        if coin not in self.left:
            return (f"You have no coin of {coin}; you hold {self.show()}.", 0.0, False,
                    out_of_turns, {"paid": self.paid})
        self.left.remove(coin)
        self.paid += coin
        if self.paid == self.amount:
            return f"Paid exactly {self.amount}.", 1.0, True, False, {"paid": self.paid}
        if self.paid > self.amount:
            return (f"You paid {self.paid}, more than {self.amount}; the shop keeps it.", 0.0,
                    True, False, {"paid": self.paid})
        return (f"Paid {self.paid} of {self.amount}; you hold {self.show()}.", 0.0, False,
                out_of_turns, {"paid": self.paid})

    def fewest_coins(self) -> tuple[int, ...]:
        """The smallest set of the purse's coins that adds up to the amount, largest first."""
        for size in range(1, PURSE_SIZE + 1):
            for coins in itertools.combinations(sorted(self.purse, reverse=True), size):
                if sum(coins) == self.amount:
                    return coins
        raise AssertionError("the amount is always a sum of purse coins")

    def solution(self) -> list[str]:
        return [f"pay {coin}" for coin in self.fewest_coins()]

    def hint(self) -> str:
        count = NUMBER_WORDS[len(self.fewest_coins())]
        return (f"It can be paid with {count} coins. Handing over the biggest coins first can "
                "overshoot, so add up a few choices before you pay.")
