"""Optional base classes for environments, so a designer writes only the game (``TextEnv``)
or only the puzzle and its answer (``AnswerEnv``).

This module uses the standard library only: it is copied into the sandbox, where
environment code imports it as ``from spadework.envs import TextEnv, AnswerEnv``.
"""

from __future__ import annotations

import decimal
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

    The difficulty knob: set ``difficulties`` to the number of difficulties the game has and read
    ``self.difficulty`` (1, the easiest, to ``difficulties``) in ``new_episode()``: more values,
    larger numbers, more steps as it rises. The run sets it before ``reset``, holding each
    environment where the agent wins some plays and loses others (``spadework.difficulty``).
    """

    max_turns: int = 20
    difficulties: int = 1
    difficulty: int = 1

    def reset(self, seed: int | None = None) -> tuple[str, dict]:
        """Start the episode of ``seed``: a fresh ``rng``, turn 0; returns ``(observation, {})``."""
        self.seed = seed
        self.rng = random.Random(seed)
        self.turn = 0
        self.over = False
        return self.opened(self.new_episode()), {}

    def opened(self, observation: str) -> str:
        """The first observation as the player reads it (``AnswerEnv`` adds its answer's form)."""
        return observation

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

    Optionally ``answer_kind``, the answer's form (``WholeNumber()``, ``Decimals(2)``,
    ``OneOf([...])``, ``InOrder(WholeNumber())``; set on the class, or in ``new_episode`` when it
    depends on the episode): the base class then says the form under the puzzle, scores by it (a
    decimal compared at its stated places) and refuses a key the form cannot hold; without it
    answers are compared by ``answers_match``. Optionally ``feedback(guess) -> str``, what a wrong
    answer (the player's text) is told, for example "too high", and ``max_turns``, the tries
    allowed (3 by default). A
    ``ValueError`` from ``feedback`` refuses the guess, as in ``TextEnv``; any other error in it
    gives the plain "Not right. Try again." instead. ``apply`` compares each
    answer with ``self.answer`` through ``answers_match`` (case, spacing, brackets, commas and
    the spelling of numbers do not matter; a number that is not whole may be rounded) and pays
    1.0 for the right one; ``solution()`` is ``[answer_text(self.answer)]``.
    """

    max_turns: int = 3
    answer: object = None
    answer_kind: AnswerKind | None = None

    def opened(self, observation: str) -> str:
        """The puzzle, with the answer's form under it when ``answer_kind`` says it; raises
        ``ValueError`` when the key does not fit the form it declares."""
        kind = self.answer_kind
        if kind is None:
            return observation
        problem = kind.problem(self.correct_answer())
        if problem is not None:
            raise ValueError(f"answer_kind is {kind!r}, but {problem}; store an answer of that form")
        return f"{observation}\n{kind.instruction()}"

    def apply(self, action: str) -> tuple[str, float, bool]:
        """Check a guess against the answer: solved when it matches, else ``feedback``'s text."""
        kind = self.answer_kind
        right = kind.matches(action, self.correct_answer()) if kind is not None else \
            answers_match(action, self.correct_answer())
        if right:
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
        """The answer, as text, in one action (in its declared form)."""
        kind = self.answer_kind
        return [kind.text(self.correct_answer()) if kind is not None else answer_text(self.correct_answer())]

    def correct_answer(self) -> object:
        """The episode's answer; raises ``RuntimeError`` when ``new_episode()`` set none."""
        if self.answer is None or self.answer == "" or self.answer == []:
            raise RuntimeError("new_episode() set no answer: store the puzzle's answer in self.answer")
        return self.answer


class AnswerKind:
    """The form of an ``AnswerEnv``'s answer: what the player is told, how a guess is scored, and
    which keys it can hold. Subclasses: ``WholeNumber``, ``Decimals``, ``OneOf``, ``InOrder``."""

    def instruction(self) -> str:
        """What the player is told under the puzzle."""
        raise NotImplementedError

    def problem(self, answer: object) -> str | None:
        """Why ``answer`` cannot be a key of this form, or None."""
        raise NotImplementedError

    def matches(self, guess: str, answer: object) -> bool:
        """Whether the player's text is the answer, read in this form."""
        raise NotImplementedError

    def text(self, answer: object) -> str:
        """The answer as the player sends it."""
        return answer_text(answer)


class WholeNumber(AnswerKind):
    """A whole number.

    >>> kind = WholeNumber()
    >>> kind.matches(" 1,250. ", 1250), kind.matches("1250.4", 1250), kind.problem(2.5)
    (True, False, 'the answer 2.5 is not a whole number')
    """

    def __repr__(self) -> str:
        return "WholeNumber()"

    def instruction(self) -> str:
        """What the player is told under the puzzle."""
        return "Answer with a whole number."

    def problem(self, answer: object) -> str | None:
        """Why the answer cannot be of this form, or None."""
        number = _number(answer_text(answer)) if not isinstance(answer, bool) else None
        if number is not None and number.is_integer():
            return None
        return f"the answer {answer!r} is not a whole number"

    def matches(self, guess: str, answer: object) -> bool:
        """Whether the player's text is the answer in this form."""
        words = answer_words(guess.replace(",", ""))
        number = _number(words[0]) if len(words) == 1 else None
        return number is not None and number == _number(answer_text(answer))

    def text(self, answer: object) -> str:
        """The answer as the player sends it."""
        return str(int(float(answer_text(answer))))


class Decimals(AnswerKind):
    """A number given to ``places`` decimal places, compared at those places.

    >>> kind = Decimals(2)
    >>> kind.text(3.14159), kind.matches("3.14", 3.14159), kind.matches("3.1416", 3.14159)
    ('3.14', True, True)
    >>> kind.matches("3.1", 3.14159), Decimals(1).matches("1.3", 1.25), Decimals(1).matches("1.2", 1.25)
    (False, True, True)
    """

    def __init__(self, places: int):
        if not isinstance(places, int) or isinstance(places, bool) or not 0 <= places <= 6:
            raise ValueError(f"Decimals(places): places must be a whole number from 0 to 6, not {places!r}")
        self.places = places

    def __repr__(self) -> str:
        return f"Decimals({self.places})"

    def instruction(self) -> str:
        """What the player is told under the puzzle."""
        return f"Answer with a number rounded to {self.places} decimal places."

    def problem(self, answer: object) -> str | None:
        """Why the answer cannot be of this form, or None."""
        return None if _number(answer_text(answer)) is not None else f"the answer {answer!r} is not a number"

    def matches(self, guess: str, answer: object) -> bool:
        """The guess, rounded to the places, is a rounding of the answer to them (either way at a tie)."""
        words = answer_words(guess.replace(",", ""))
        given = _number(words[0]) if len(words) == 1 else None
        wanted = _number(answer_text(answer))
        return given is not None and wanted is not None and \
            abs(float(self.text(given)) - wanted) <= 0.5 * 10 ** -self.places + 1e-9

    def text(self, answer: object) -> str:
        """The answer rounded half up to the places (2.345 to two places is 2.35)."""
        exact = decimal.Decimal(repr(float(answer_text(answer))))
        return str(exact.quantize(decimal.Decimal(1).scaleb(-self.places), rounding=decimal.ROUND_HALF_UP))


class OneOf(AnswerKind):
    """One of the options, which the player is shown (case and punctuation around it do not matter).

    >>> kind = OneOf(["north", "South"])
    >>> kind.instruction(), kind.matches("south.", "South"), kind.problem("east")
    ('Answer with one of: north, South.', True, "the answer 'east' is not one of the options")
    """

    def __init__(self, options: object):
        if not isinstance(options, (list, tuple)) or len(options) < 2:
            raise ValueError("OneOf(options): give a list of at least two options")
        self.options = [answer_text(option) for option in options]

    def __repr__(self) -> str:
        return f"OneOf({self.options!r})"

    def instruction(self) -> str:
        """What the player is told under the puzzle."""
        return f"Answer with one of: {', '.join(self.options)}."

    def problem(self, answer: object) -> str | None:
        """Why the answer cannot be of this form, or None."""
        wanted = answer_words(answer)
        return None if any(answer_words(o) == wanted for o in self.options) else \
            f"the answer {answer!r} is not one of the options"

    def matches(self, guess: str, answer: object) -> bool:
        """Whether the player's text is the answer in this form."""
        return answer_words(guess) == answer_words(answer)


class InOrder(AnswerKind):
    """A list, in order, each item of the ``item`` form, separated by spaces.

    >>> kind = InOrder(WholeNumber())
    >>> kind.matches("[3, 1, 2]", [3, 1, 2]), kind.matches("1 2 3", [3, 1, 2]), kind.problem(5)
    (True, False, 'the answer 5 is not a list')
    """

    def __init__(self, item: AnswerKind):
        if not isinstance(item, AnswerKind) or isinstance(item, InOrder):
            raise ValueError("InOrder(item): give the items' form, such as WholeNumber() or Decimals(1)")
        self.item = item

    def __repr__(self) -> str:
        return f"InOrder({self.item!r})"

    def instruction(self) -> str:
        """What the player is told under the puzzle."""
        return (f"Answer with the items in order, separated by spaces; each: "
                f"{self.item.instruction().removeprefix('Answer with ').rstrip('.')}.")

    def problem(self, answer: object) -> str | None:
        """Why the answer cannot be of this form, or None."""
        if not isinstance(answer, (list, tuple)) or not answer:
            return f"the answer {answer!r} is not a list"
        return next((p for p in map(self.item.problem, answer) if p is not None), None)

    def matches(self, guess: str, answer: object) -> bool:
        """Whether the player's text is the answer in this form."""
        given = answer_words(guess.replace(",", " "))
        wanted = list(answer) if isinstance(answer, (list, tuple)) else []
        return len(given) == len(wanted) and \
            all(self.item.matches(g, w) for g, w in zip(given, wanted, strict=True))

    def text(self, answer: object) -> str:
        """The answer as the player sends it."""
        return " ".join(self.item.text(item) for item in answer) if isinstance(answer, (list, tuple)) else ""


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
