"""The environment families of the scripted fake: the code it designs and how it plays them.

Each family renders a complete environment module from a topic word and a few drawn
parameters, and knows how to play its own observations: well when the episode's hint
is shown, with a fixed weak strategy when it is not. Everything here is a pure function
of its inputs.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

WORDS = ("anchor", "basket", "candle", "dragon", "falcon", "garden", "harbor", "island", "jacket",
         "kettle", "ladder", "magnet", "napkin", "orange", "pencil", "rabbit", "saddle", "tunnel",
         "violin", "walnut", "window", "yellow", "meadow", "copper", "marble", "pirate", "silver",
         "thunder", "planet", "forest")
"""Non-palindromic lowercase words the word families draw from."""


@dataclass(frozen=True)
class AgentView:
    """What the scripted agent reads from its conversation.

    Attributes:
        first: the first observation, without the hint line.
        hint: the hint line's text, or None in the arm without it.
        later: the observations after the first, in order.
        turn: how many replies the agent already gave.
    """

    first: str
    hint: str | None
    later: tuple[str, ...]
    turn: int


Move = tuple[str, str]
"""A short thought and the command to box."""


@dataclass(frozen=True)
class Family:
    """One kind of environment the scripted designer writes.

    Attributes:
        name: short name, also the class name's suffix.
        design: ``(topic, rng) -> module source``; draws its parameters from ``rng``.
        play: ``view -> move``, or None when the observation is not of this family.
    """

    name: str
    design: Callable[[str, random.Random], str]
    play: Callable[[AgentView], Move | None]


def class_prefix(topic: str) -> str:
    """A class-name prefix from a topic word.

    >>> class_prefix("volcano")
    'Volcano'
    """
    return topic[:1].upper() + topic[1:]


def _words_for(topic: str, rng: random.Random, count: int, template: str) -> tuple[str, ...]:
    """``count`` words from ``WORDS``, with the topic among them when it is safe to use.

    The topic is left out when it is a palindrome, or when the family's own text (its
    ``template``) holds it: a hint that names the answer would leak it.
    """
    pool = list(WORDS)
    rng.shuffle(pool)
    words = pool[:count]
    usable = len(topic) >= 4 and topic != topic[::-1] and topic not in template.lower()
    if usable and topic not in words:
        words[0] = topic
    return tuple(words)


# Number guessing with higher / lower feedback.

GUESS_TEMPLATE = string.Template('''"""Find a number hidden in the $topic records: higher or lower."""

from spadework.envs import TextEnv

LOW = $low
HIGH = $high
TOPIC = "$topic"


class ${prefix}GuessEnv(TextEnv):
    """The hidden number comes from the seed; halving the range finds it in time."""

    max_turns = $max_turns

    def new_episode(self):
        self.secret = self.rng.randint(LOW, HIGH)
        return (f"The {TOPIC} records hide a whole number from {LOW} to {HIGH}. Reply with one "
                "number; after a wrong guess I say whether the secret is higher or lower.")

    def apply(self, action):
        if not action.isdigit():
            return f"Reply with one whole number from {LOW} to {HIGH}.", 0.0, False
        guess = int(action)
        if guess == self.secret:
            return f"Yes, the secret is {guess}.", 1.0, True
        direction = "higher" if self.secret > guess else "lower"
        return f"No, the secret is {direction} than {guess}.", 0.0, False

    def solution(self):
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

    def hint(self):
        return "Use binary search on the range: always guess the middle of what is still possible."
''')

GUESS_RANGE = re.compile(r"whole number from (\d+) to (\d+)")
GUESS_FEEDBACK = re.compile(r"secret is (higher|lower) than (\d+)")


def design_guess(topic: str, rng: random.Random) -> str:
    """A number-guessing environment about ``topic``, as the scripted designer writes it."""
    bits = rng.randint(5, 7)
    low = rng.randint(2, 40)
    high = low + (1 << bits) - 2
    return GUESS_TEMPLATE.substitute(topic=topic, prefix=class_prefix(topic), low=low, high=high,
                                     max_turns=bits + rng.randint(0, 2))


def play_guess(view: AgentView) -> Move | None:
    """Binary search from the feedback with the hint; counting up from the bottom without it.

    >>> play_guess(AgentView("a whole number from 10 to 40.", "Use binary search.", (), 0))
    ('The secret is from 10 to 40; I guess the middle.', '25')
    >>> play_guess(AgentView("a whole number from 10 to 40.", None, ("No, higher than 10.",), 1))
    ('I count up from the bottom of the range.', '11')
    """
    found = GUESS_RANGE.search(view.first)
    if found is None:
        return None
    low, high = int(found.group(1)), int(found.group(2))
    if view.hint is None:
        return "I count up from the bottom of the range.", str(low + view.turn)
    for later in view.later:
        for direction, guess in GUESS_FEEDBACK.findall(later):
            if direction == "higher":
                low = max(low, int(guess) + 1)
            else:
                high = min(high, int(guess) - 1)
    return f"The secret is from {low} to {high}; I guess the middle.", str((low + high) // 2)


# Reversing a word.

REVERSE_TEMPLATE = string.Template('''"""Spell a word from the $topic glossary backwards."""

from spadework.envs import TextEnv

WORDS = $words
TOPIC = "$topic"


class ${prefix}ReverseEnv(TextEnv):
    """One word per episode, drawn from the seed; the answer is the word backwards."""

    max_turns = $max_turns

    def new_episode(self):
        self.word = self.rng.choice(WORDS)
        return (f"A page of the {TOPIC} glossary is printed in a mirror. Reverse the letters of the "
                f"word '{self.word}' and reply with the result.")

    def apply(self, action):
        if action.lower() == self.word[::-1]:
            return "Correct, that is the word backwards.", 1.0, True
        return f"No. Reverse the letters of '{self.word}': the last letter comes first.", 0.0, False

    def solution(self):
        return [self.word[::-1]]

    def hint(self):
        return "Write the letters in the opposite order, starting from the last one."
''')

REVERSE_WORD = re.compile(r"Reverse the letters of the\s+word '([A-Za-z]+)'")


def design_reverse(topic: str, rng: random.Random) -> str:
    """A word-reversing environment about ``topic``, as the scripted designer writes it."""
    words = _words_for(topic, rng, rng.randint(16, 24), REVERSE_TEMPLATE.template)
    return REVERSE_TEMPLATE.substitute(topic=topic, prefix=class_prefix(topic), words=repr(words),
                                       max_turns=rng.randint(2, 4))


def play_reverse(view: AgentView) -> Move | None:
    """The word backwards with the hint; the word as it is without it.

    >>> play_reverse(AgentView("Reverse the letters of the word 'cat' now.", "Backwards.", (), 0))
    ('The hint says to write it backwards.', 'tac')
    """
    found = REVERSE_WORD.search(view.first)
    if found is None:
        return None
    word = found.group(1)
    if view.hint is None:
        return "I repeat the word.", word
    return "The hint says to write it backwards.", word[::-1]


# Summing numbers.

SUM_TEMPLATE = string.Template('''"""Total the amounts in a $topic ledger."""

from spadework.envs import TextEnv

COUNT = $count
HIGHEST = $highest
TOPIC = "$topic"


class ${prefix}SumEnv(TextEnv):
    """Some amounts drawn from the seed; the answer is their total."""

    max_turns = $max_turns

    def new_episode(self):
        self.amounts = [self.rng.randint(2, HIGHEST) for _ in range(COUNT)]
        listing = ", ".join(str(a) for a in self.amounts)
        return (f"The {TOPIC} ledger needs its total. Add up these numbers: {listing}. "
                "Reply with the total as one number.")

    def apply(self, action):
        if action == str(sum(self.amounts)):
            return "Correct, the ledger balances.", 1.0, True
        return "That is not the total of the ledger.", 0.0, False

    def solution(self):
        return [str(sum(self.amounts))]

    def hint(self):
        return "Add the numbers one at a time, keeping a running total."
''')

SUM_LIST = re.compile(r"Add up these numbers: ([\d, ]+)")


def design_sum(topic: str, rng: random.Random) -> str:
    """A sum puzzle about ``topic``, as the scripted designer writes it."""
    return SUM_TEMPLATE.substitute(topic=topic, prefix=class_prefix(topic), count=rng.randint(3, 6),
                                   highest=rng.choice((20, 50, 99, 500)), max_turns=rng.randint(2, 3))


def play_sum(view: AgentView) -> Move | None:
    """The total with the hint; the largest number without it.

    >>> play_sum(AgentView("Add up these numbers: 3, 4, 10. Reply.", "Keep a running total.", (), 0))
    ('A running total of the numbers.', '17')
    >>> play_sum(AgentView("Add up these numbers: 3, 4, 10. Reply.", None, (), 0))
    ('The largest number stands out.', '10')
    """
    found = SUM_LIST.search(view.first)
    numbers = [int(n) for n in re.findall(r"\d+", found.group(1))] if found else []
    if not numbers:
        return None
    if view.hint is None:
        return "The largest number stands out.", str(max(numbers))
    return "A running total of the numbers.", str(sum(numbers))


# A Caesar shift.

CAESAR_TEMPLATE = string.Template('''"""Decode a $topic message whose letters were all shifted."""

import string

from spadework.envs import TextEnv

ALPHABET = string.ascii_lowercase
WORDS = $words
SPAN = $span
TOPIC = "$topic"


def shift(word, places):
    return "".join(ALPHABET[(ALPHABET.index(c) + places) % 26] for c in word)


class ${prefix}CaesarEnv(TextEnv):
    """A coded word drawn from the seed; the hint narrows the shift to a few places."""

    max_turns = SPAN

    def new_episode(self):
        self.word = self.rng.choice(WORDS)
        self.places = self.rng.randint(1, 25)
        self.coded = shift(self.word, self.places)
        offset = self.rng.randrange(SPAN)
        self.lowest = max(1, min(self.places - offset, 26 - SPAN))
        return (f"A {TOPIC} message arrived: the word '{self.coded}' was coded by moving every letter "
                "the same number of places forward in the alphabet, wrapping from z to a. Reply "
                "with the original word.")

    def apply(self, action):
        answer = action.lower()
        if answer == self.word:
            return "Decoded.", 1.0, True
        right = sum(a == b for a, b in zip(answer, self.word))
        return f"{right} letters are in the right place; the code is still '{self.coded}'.", 0.0, False

    def solution(self):
        return [self.word]

    def hint(self):
        return (f"Each letter moved forward by {self.lowest} to {self.lowest + SPAN - 1} places: "
                "undo each of those shifts in turn.")
''')

CAESAR_CODE = re.compile(r"word '([a-z]+)' was coded by moving every letter")
CAESAR_HINT = re.compile(r"by (\d+) to (\d+) places")


def design_caesar(topic: str, rng: random.Random) -> str:
    """A Caesar-cipher environment about ``topic``, as the scripted designer writes it."""
    words = _words_for(topic, rng, rng.randint(16, 24), CAESAR_TEMPLATE.template)
    return CAESAR_TEMPLATE.substitute(topic=topic, prefix=class_prefix(topic), words=repr(words),
                                      span=rng.randint(5, 6))


def unshift(word: str, places: int) -> str:
    """``word`` with every letter moved ``places`` back along the alphabet.

    >>> unshift("bcd", 1), unshift("abc", 27)
    ('abc', 'zab')
    """
    return "".join(chr((ord(c) - 97 - places) % 26 + 97) for c in word)


def play_caesar(view: AgentView) -> Move | None:
    """Undo the hinted shifts in turn; without the hint, undo shifts 0, 1, 2, ... in turn.

    >>> play_caesar(AgentView("the word 'dbu' was coded by moving every letter", "by 1 to 5 places", (), 0))
    ('I undo a shift of 1.', 'cat')
    """
    found = CAESAR_CODE.search(view.first)
    if found is None:
        return None
    places = view.turn
    hinted = CAESAR_HINT.search(view.hint or "")
    if hinted is not None:
        places += int(hinted.group(1))
    return f"I undo a shift of {places}.", unshift(found.group(1), places)


FAMILIES: tuple[Family, ...] = (
    Family("guess", design_guess, play_guess),
    Family("reverse", design_reverse, play_reverse),
    Family("sum", design_sum, play_sum),
    Family("caesar", design_caesar, play_caesar),
)
"""Every family, in a fixed order (the designer draws from it by hash)."""
