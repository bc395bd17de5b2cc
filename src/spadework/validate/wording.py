"""Words of a text as the leak checks read them: lowercased, with number words read as numbers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
        "ninety": 90}
SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000}
NUMBER_WORDS = {**{word: value for value, word in enumerate(UNITS)}, **TENS, **SCALES}
WORD = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+")
"""A word of a text: a number (with its decimals) or a run of letters."""

@dataclass(frozen=True)
class Word:
    """A normalised word of a text, and the text it came from (number words become numbers)."""

    text: str
    source: str
    from_words: bool = False


def words(text: str, keep: re.Pattern[str] = WORD) -> list[Word]:
    """The words of a text, lowercased, with runs of number words read as numbers.

    A run of single digit words ("four two") becomes one word per digit; any other run
    ("forty-two", "four hundred and twelve") becomes its value. Punctuation other than a hyphen
    ends a run. A lone "one" stays a word: it is a pronoun more often than a number.

    >>> [w.text for w in words("Press 4, then forty-two; four two. Four hundred and twelve")]
    ['press', '4', 'then', '42', '4', '2', '412']
    >>> [w.text for w in words("forty two four two, nineteen ninety")]
    ['42', '4', '2', '19', '90']
    >>> [w.text for w in words("Take one at a time: one one, twenty-one")]
    ['take', 'one', 'at', 'a', 'time', '1', '1', '21']
    """
    lowered = text.lower()
    matches = list(keep.finditer(lowered))
    found: list[Word] = []
    index = 0
    while index < len(matches):
        end = index
        while end < len(matches) and _in_number(matches, index, end, lowered):
            end += 1
        if end == index or [m.group(0) for m in matches[index:end]] == ["one"]:
            found.append(Word(matches[index].group(0), matches[index].group(0)))  # "the one on the left"
            index += 1
            continue
        found.extend(_numbers([m.group(0) for m in matches[index:end]]))
        index = end
    return found


def _in_number(matches: Sequence[re.Match[str]], start: int, at: int, text: str) -> bool:
    """Whether the word at ``at`` continues the run of number words that began at ``start``."""
    word = matches[at].group(0)
    if at > start and text[matches[at - 1].end():matches[at].start()].strip(" -"):
        return False  # punctuation between the words
    if word == "and":
        return at > start and matches[at - 1].group(0) in SCALES and at + 1 < len(matches) \
            and matches[at + 1].group(0) in NUMBER_WORDS
    return word in NUMBER_WORDS


def _numbers(run: Sequence[str]) -> list[Word]:
    """A run of number words as numbers: digit by digit when every word is a digit, else phrase by
    phrase (a new phrase starts where a word cannot continue the one before: "forty two four")."""
    if len(run) > 1 and all(NUMBER_WORDS.get(w, 10) < 10 for w in run):
        return [Word(str(NUMBER_WORDS[w]), w, True) for w in run]
    phrases: list[list[str]] = []
    for word in run:
        if phrases and not _starts_number(phrases[-1][-1], word):
            phrases[-1].append(word)
        else:
            phrases.append([word])
    return [Word(str(_phrase_value(p)), " ".join(p), True) for p in phrases]


def _starts_number(previous: str, word: str) -> bool:
    """Whether ``word`` after ``previous`` begins a new number rather than continuing it."""
    if word in SCALES or word == "and" or previous == "and":
        return False
    if previous in SCALES:
        return False
    return not (previous in TENS and NUMBER_WORDS[word] < 10)


def _phrase_value(run: Sequence[str]) -> int:
    """The value of a phrase of number words.

    >>> _phrase_value(["two", "thousand", "and", "five"]), _phrase_value(["ninety", "nine"])
    (2005, 99)
    """
    total, current = 0, 0
    for word in run:
        if word == "and":
            continue
        value = NUMBER_WORDS[word]
        if word in SCALES:
            if value == 100:
                current = max(current, 1) * value
            else:
                total, current = total + max(current, 1) * value, 0
        else:
            current += value
    return total + current


def shown(sequence: Sequence[str], observed: Sequence[str]) -> bool:
    """Whether ``sequence`` appears, contiguously, in ``observed``.

    >>> shown(["4", "2"], ["a", "4", "2"]), shown(["4", "2"], ["4", "x", "2"])
    (True, False)
    """
    size = len(sequence)
    return any(list(observed[i:i + size]) == list(sequence) for i in range(len(observed) - size + 1))


def is_number(text: str) -> bool:
    """Whether ``text`` is a number as the leak detectors read one."""
    return bool(re.fullmatch(r"\d+(?:\.\d+)?", text))
