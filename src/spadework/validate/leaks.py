"""Pure detection of a hint that gives away its episode's answer, in the usual disguises.

A designer paid by regret earns the most with a hint that hands over the answer, so the
no-hint-leak check looks for the answer in the hint not only as it is but also reversed,
spaced or separated character by character, in another case, in number words ("four two",
"forty-two"), as simple arithmetic that evaluates to it ("412 plus 137"), and, for a solution of
several actions, as those actions spelled out in order ("right three times, then down").

Only what is specific to the episode counts: a part of the answer that every other validation
seed's answer shares is no secret. A disguised form (anything but the answer itself) that the
episode's own first observation shows in the same form is the puzzle's data, not a leak: a hint
may name the puzzle's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from spadework.validate.arithmetic import expression_for
from spadework.validate.wording import Word, is_number, shown, words

CONNECTORS = frozenset({"then", "and", "next", "followed", "by", "after", "that", "comes"})
"""Words a hint may put between the characters it spells out ("4, then 8, then 1")."""

REPEATS = {"twice": 2, "thrice": 3}
MAX_GAP = 3
"""Words a hint may put between two actions of a solution it spells out in order."""


class LeakForm(StrEnum):
    """How a hint gives the answer away."""

    LITERAL = "literal"
    REVERSED = "reversed"
    SPACED = "spaced out"
    NUMBER_WORDS = "in number words"
    ARITHMETIC = "as arithmetic"
    ACTIONS = "actions in order"


@dataclass(frozen=True)
class Leak:
    """One way a hint gives away (part of) the answer.

    Attributes:
        form: the disguise.
        answer: the part of the answer that was given away.
        found: the hint's text that gives it away.
    """

    form: LeakForm
    answer: str
    found: str

    def describe(self) -> str:
        """The leak in words, for the validator's message.

        >>> Leak(LeakForm.LITERAL, "964", "964").describe()
        "'964'"
        >>> Leak(LeakForm.REVERSED, "4812", "2184").describe()
        "'4812' reversed: '2184'"
        """
        if self.form is LeakForm.LITERAL:
            return repr(self.answer)
        return f"{self.answer!r} {self.form.value}: {self.found!r}"


def _secret_parts(solution: Sequence[str], others: Sequence[Sequence[str]]) -> list[str]:
    """The words of a solution that not every other seed's solution has (numbers; words of 3+ letters).

    >>> _secret_parts(["guess 42"], [["guess 17"]]), _secret_parts(["go up"], [])
    (['42'], [])
    """
    if not others:
        return []
    mine = [w.text for w in words(" ".join(solution))]
    shared = set.intersection(*({w.text for w in words(" ".join(o))} for o in others))
    keep = (w for w in dict.fromkeys(mine) if w not in shared)
    return [w for w in keep if is_number(w) or len(w) >= 3]


def _spelled(part: str, hint: Sequence[Word], observed: Sequence[str]) -> Leak | None:
    """The part given as a run of hint words: itself, reversed, spaced out, or in number words."""
    backwards = part[::-1]
    for start in range(len(hint)):
        joined = ""
        for end in range(start, len(hint)):
            joined += hint[end].text
            if len(joined) > len(part):
                break
            if joined not in (part, backwards):
                continue
            run = hint[start:end + 1]
            form = _form_of(run, reversed_=joined != part)
            if form is LeakForm.LITERAL or not shown([w.text for w in run], observed):
                return Leak(form, part, " ".join(w.source for w in run))
    return None


def _form_of(run: Sequence[Word], reversed_: bool) -> LeakForm:
    if reversed_:
        return LeakForm.REVERSED
    if any(w.from_words for w in run):
        return LeakForm.NUMBER_WORDS
    return LeakForm.SPACED if len(run) > 1 else LeakForm.LITERAL


def leaks(hint: str, solution: Sequence[str], others: Sequence[Sequence[str]], observation: str = "") \
        -> list[Leak]:
    """Every way ``hint`` gives away the seed-specific part of ``solution``.

    Args:
        hint: the episode's hint.
        solution: the episode's solution (its actions).
        others: the solutions of the other validation seeds (what is shared is no secret).
        observation: the episode's first observation (a disguised form it shows is data).

    >>> [leak.describe() for leak in leaks("The number is 42.", ["guess 42"], [["guess 17"]])]
    ["'42'"]
    >>> leaks("Halve the range each guess.", ["guess 42"], [["guess 17"]])
    []
    >>> [leak.describe() for leak in leaks("Backwards it reads 2-1-8-4.", ["4812"], [["1234"]])]
    ["'4812' reversed: '2 1 8 4'"]
    >>> [leak.describe() for leak in leaks("It is four hundred twelve plus 137.", ["549"], [["17"]])]
    ["'549' as arithmetic: '412 + 137'"]
    >>> leaks("Write 'planet' from its last letter.", ["tenalp"], [["nagem"]], "Reverse 'planet'.")
    []
    """
    hint_words = words(hint)
    spelling = [w for w in hint_words if w.text not in CONNECTORS]
    observed = [w.text for w in words(observation)]
    found: list[Leak] = []
    for part in _secret_parts(solution, others):
        leak = _spelled(part, hint_words, observed) or _spelled(part, spelling, observed) \
            or _arithmetic(part, hint, observation)
        if leak is not None:
            found.append(leak)
    if len(solution) > 1 and any(list(o) != list(solution) for o in others):
        spelled = _actions_in_order(solution, hint_words)
        if spelled is not None:
            found.append(spelled)
    return found


def _actions_in_order(solution: Sequence[str], hint: Sequence[Word]) -> Leak | None:
    """The solution's actions, each as its words, in order in the hint, at most ``MAX_GAP`` words apart;
    "right 3 times", "right x3" and "right twice" count as repeated actions.

    >>> _actions_in_order(["right", "right", "right", "down"], words("Go right 3 times, then down.")).found
    'right 3 times then down'
    >>> _actions_in_order(["up", "left"], words("Look up the map: the exit is somewhere on the left."))
    """
    expanded, sources = _expand_repeats(hint)
    wanted = [[w.text for w in words(action)] for action in solution]
    if not all(wanted):
        return None
    position, first, last = 0, None, 0
    for action in wanted:
        limit = len(expanded) if first is None else min(len(expanded), position + MAX_GAP + len(action))
        at = next((i for i in range(position, limit - len(action) + 1)
                   if expanded[i:i + len(action)] == action), None)
        if at is None:
            return None
        first = at if first is None else first
        position = last = at + len(action)
    assert first is not None  # the loop found every action
    shown = [source for i, source in enumerate(sources[first:last], start=first)
             if i == first or source != sources[i - 1]]
    return Leak(LeakForm.ACTIONS, " ".join(" ".join(a) for a in wanted), " ".join(shown))


def _expand_repeats(hint: Sequence[Word]) -> tuple[list[str], list[str]]:
    """Hint words with "W N times", "W x N" and "W twice" written out, and each one's source text."""
    out: list[str] = []
    sources: list[str] = []
    index = 0
    while index < len(hint):
        word = hint[index]
        count, used = _repeat_after(hint, index)
        out.extend([word.text] * count)
        source = " ".join(w.source for w in hint[index:index + used + 1])
        sources.extend([source] * count)
        index += used + 1
    return out, sources


def _repeat_after(hint: Sequence[Word], index: int) -> tuple[int, int]:
    """How often the word at ``index`` is said to repeat, and how many words say so."""
    following = [w.text for w in hint[index + 1:index + 3]]
    if following[:1] and following[0] in REPEATS:
        return REPEATS[following[0]], 1
    if len(following) == 2 and following[0].isdigit() and following[1] == "times":
        return max(1, min(int(following[0]), 20)), 2
    if len(following) == 2 and following[0] == "x" and following[1].isdigit():
        return max(1, min(int(following[1]), 20)), 2
    return 1, 0


def _arithmetic(part: str, hint: str, observation: str) -> Leak | None:
    """A sum, product, quotient or difference in the hint that comes to the numeric ``part``."""
    found = expression_for(part, hint, observation)
    return None if found is None else Leak(LeakForm.ARITHMETIC, part, found)
