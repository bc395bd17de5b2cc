"""Guess a secret two-digit number, told "higher" or "lower" after each wrong guess."""

from spadework.envs import TextEnv

LOW, HIGH = 10, 99


class NumberGuessEnv(TextEnv):
    """The secret comes from the seed; always guessing the middle finds it in seven tries."""

    max_turns = 10

    def new_episode(self) -> str:
        self.secret = self.rng.randint(LOW, HIGH)
        return (f"I picked a whole number from {LOW} to {HIGH}. Guess it by replying with one "
                "number; after a wrong guess I say whether the secret is higher or lower.")

    def apply(self, action: str) -> tuple[str, float, bool]:
        if not action.isdigit():
            return f"Reply with one whole number from {LOW} to {HIGH}.", 0.0, False
        guess = int(action)
        if guess == self.secret:
            return f"Yes, the secret is {guess}.", 1.0, True
        direction = "higher" if self.secret > guess else "lower"
        return f"No, the secret is {direction} than {guess}.", 0.0, False

    def solution(self) -> list[str]:
        low, high, guesses = LOW, HIGH, []
        while True:
            guess = (low + high) // 2
            guesses.append(str(guess))
            if guess == self.secret:
                return guesses
            if guess < self.secret:
                low = guess + 1
            else:
                high = guess - 1

    def hint(self) -> str:
        parity = "even" if self.secret % 2 == 0 else "odd"
        return (f"The secret is {parity}. Guess the middle of what is still possible, so that "
                "each answer rules out half of it.")
