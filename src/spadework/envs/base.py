"""Optional base classes for environments, so a designer writes only the game (``TextEnv``)
or only the puzzle and its answer (``AnswerEnv``).

This module uses the standard library only: it is copied into the sandbox, where
environment code imports it as ``from spadework.envs import TextEnv, AnswerEnv``.
"""

from __future__ import annotations

import math
import random

INVALID_ACTION = "Invalid action: "
"""How a ``TextEnv`` shows an action the game refused: this, then the refusal's message."""


class TextEnv:
    """A text environment that counts turns and truncates at ``max_turns``.

    Subclass it and write four methods:

    - ``new_episode() -> str``: set up the episode's state from ``self.rng`` and
      return the first observation;
    - ``apply(action) -> (observation, reward, solved)``: play one action (already
      stripped of surrounding whitespace); it may raise ``ValueError`` to refuse an
      invalid action: the player then reads ``Invalid action: <message>``, gets no
      reward, and the turn still counts;
    - ``solution() -> list[str]``: actions that solve the episode from its start;
    - ``hint() -> str``: privileged help that does not give the answer away.

    ``reset`` and ``step`` are provided: ``reset(seed)`` keeps ``self.seed``, makes
    ``self.rng`` (a ``random.Random`` seeded with ``seed``) and sets ``self.turn`` to 0; ``step``
    counts the turn, and truncates the episode once ``max_turns`` actions were
    played without solving it. After the episode ended, ``step`` only repeats that
    it is over.
    """

    max_turns: int = 20

    def reset(self, seed: int | None = None) -> tuple[str, dict]:
        """Start the episode of ``seed``: a fresh ``rng``, turn 0; returns ``(observation, {})``."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.turn = 0
        self.over = False
        return self.new_episode(), {}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        """Play one action: ``(observation, reward, terminated, truncated, info)``."""
        if self.over:
            return "The episode is over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        try:
            observation, reward, solved = self.apply(str(action).strip())
        except ValueError as exc:  # the game refused the action: a move of the game, not a crash
            observation, reward, solved = f"{INVALID_ACTION}{exc}", 0.0, False
        truncated = not solved and self.turn >= self.max_turns
        self.over = bool(solved) or truncated
        return observation, float(reward), bool(solved), truncated, {"turn": self.turn}

    def new_episode(self) -> str:
        """Set up the episode from ``self.rng`` and return its first observation (write this)."""
        raise NotImplementedError("write new_episode(): set up the episode, return the first observation")

    def apply(self, action: str) -> tuple[str, float, bool]:
        """Apply one action: ``(observation, reward, solved)``; a ``ValueError`` refuses it."""
        raise NotImplementedError("write apply(action): return (observation, reward, solved)")

    def solution(self) -> list[str]:
        """The actions that solve this episode (write this)."""
        raise NotImplementedError("write solution(): the actions that solve this episode")

    def hint(self) -> str:
        """Privileged help for this episode that does not give the answer away (write this)."""
        raise NotImplementedError("write hint(): privileged help that does not give the answer")


NOT_RIGHT = "Not right. Try again."
"""What a wrong answer is told when ``feedback()`` is not written, or fails."""


class AnswerEnv(TextEnv):
    """A puzzle with one answer: the designer writes the puzzle, the base class the rest.

    Subclass it and write two methods:

    - ``new_episode() -> str``: make the puzzle from ``self.rng``, store the answer the
      player must send in ``self.answer`` (a number, a word, or a list of them), and
      return the puzzle with the answer's format;
    - ``hint() -> str``: privileged help that does not give the answer away.

    Optionally ``feedback(guess) -> str``, what a wrong answer (the player's text) is told,
    for example "too high", and ``max_turns``, the tries allowed (3 by default). A
    ``ValueError`` from ``feedback`` refuses the guess, as in ``TextEnv``; any other error in it
    gives the plain "Not right. Try again." instead. ``apply`` compares each
    answer with ``self.answer`` through ``answers_match`` (case, spacing, brackets, commas and
    the spelling of numbers do not matter; a number that is not whole may be rounded) and pays
    1.0 for the right one; ``solution()`` is ``[answer_text(self.answer)]``.
    """

    max_turns: int = 3
    answer: object = None

    def apply(self, action: str) -> tuple[str, float, bool]:
        """Check a guess against the answer: solved when it matches, else ``feedback``'s text."""
        if answers_match(action, self.correct_answer()):
            return "Correct.", 1.0, True
        try:
            return str(self.feedback(action)), 0.0, False
        except ValueError:
            raise  # a refused guess: the player reads why
        except Exception:  # feedback() is garnish: a slip in it must not break a checked game
            return NOT_RIGHT, 0.0, False

    def feedback(self, guess: str) -> str:
        """What a wrong guess is told (override to say more, e.g. higher or lower)."""
        return NOT_RIGHT

    def solution(self) -> list[str]:
        """The answer, as text, in one action."""
        return [answer_text(self.correct_answer())]

    def correct_answer(self) -> object:
        """The episode's answer; raises ``RuntimeError`` when ``new_episode()`` set none."""
        if self.answer is None or self.answer == "" or self.answer == []:
            raise RuntimeError("new_episode() set no answer: store the puzzle's answer in self.answer")
        return self.answer


ANSWER_PUNCTUATION = "()[]{}'\"`.!?:;"
"""Characters stripped from both ends of every word of an answer."""


def answer_text(answer: object) -> str:
    """An answer as the text a player sends: a list's items joined by spaces.

    >>> answer_text([3, 1, 2]), answer_text(2.5), answer_text("north")
    ('3 1 2', '2.5', 'north')
    """
    if isinstance(answer, (list, tuple)):
        return " ".join(answer_text(item) for item in answer)
    return str(answer)


def answers_match(guess: object, answer: object) -> bool:
    """Whether a guess is the answer: the same words, lowercased, with numbers compared as numbers.

    Case, brackets, commas and punctuation around words do not matter; a number that is not
    whole may be given rounded, to at least one decimal.

    >>> answers_match("  The [3, 1, 2]. ", ["the", 3, 1.0, 2]), answers_match("2.50", 2.5)
    (True, True)
    >>> answers_match("5.39", 5.385164807), answers_match("5", 5.385164807), answers_match("1e3", 1000)
    (True, False, True)
    >>> answers_match("12", "1 2"), answers_match("North", "south"), answers_match("7", 7.4)
    (False, False, False)
    """
    guessed, wanted = answer_words(guess), answer_words(answer)
    return len(guessed) == len(wanted) and all(map(_same_word, guessed, wanted))


def answer_words(answer: object) -> list[str]:
    """The words of an answer, lowercased, with commas and surrounding punctuation dropped.

    >>> answer_words("(North, 3).")
    ['north', '3']
    """
    words = (word.strip(ANSWER_PUNCTUATION) for word in answer_text(answer).lower().replace(",", " ").split())
    return [word for word in words if word]


def _same_word(guess: str, answer: str) -> bool:
    if guess == answer:
        return True
    given, wanted = _number(guess), _number(answer)
    if given is None or wanted is None:
        return False
    if given == wanted:
        return True
    decimals = len(guess.partition(".")[2]) if "." in guess and "e" not in guess else 0
    return decimals >= 1 and not wanted.is_integer() and abs(given - wanted) <= 0.5 * 10 ** -decimals + 1e-12


def _number(word: str) -> float | None:
    try:
        number = float(word)
    except ValueError:
        return None
    return number if math.isfinite(number) else None
