"""What an answer puzzle's text says of its key: a text that states its own answer (nothing left to
compute or choose: the ``stated_answer`` check), and a key in a form the text rules out (a whole
number asked, a fraction keyed: the ``answer_form`` check). Pure functions of the opening text and
the key, applied by the validator on its compared seeds and by the play audit on the played ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from spadework.envs.contract import is_answer_puzzle
from spadework.errors import CheckFailed, CheckOff
from spadework.validate.context import CheckContext

NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w]|\.\d)")
"""A number as a text shows it (not part of a word, a version or a longer decimal)."""

QUOTED = re.compile(r"'([^'\n]{1,80})'|\"([^\"\n]{1,80})\"|“([^”\n]{1,80})”")
"""A quoted phrase."""

WHOLE_ASKED = re.compile(r"\b(?:whole[- ]numbers?|integers?|nearest (?:whole|integer|unit))\b", re.IGNORECASE)
"""Words by which a text asks for a whole number."""

STATED = "the text states its own answer"
ASKED_WHOLE = "the text asks for a whole number"


def states_its_answer(observation: str, solution: Iterable[str]) -> bool:
    """Whether the key is given by the text itself: one number that is the only number the text
    shows, or one phrase that is the only phrase the text quotes.

    >>> states_its_answer("Find the record whose code is record1. Change its value to 76.", ["76"])
    True
    >>> states_its_answer("Two numbers are chosen: 8 and 15. What is their sum?", ["23"])
    False
    >>> states_its_answer("Which is the largest: 3, 7 or 5?", ["7"])
    False
    >>> states_its_answer('What is the value stored under "apple"?', ["apple"])
    True
    >>> states_its_answer("Which fruit is sweeter, 'apple' or 'lemon'?", ["apple"])
    False
    >>> states_its_answer("Name the capital of France.", ["Paris"])
    False
    """
    key = [a.strip() for a in solution]
    if len(key) != 1 or not key[0]:
        return False
    if NUMBER.fullmatch(key[0]) is not None:
        return NUMBER.findall(observation) == [key[0]]
    quoted = [next(g for g in match.groups() if g is not None).strip()
              for match in QUOTED.finditer(observation)]
    return len(set(quoted)) == 1 and quoted[0].lower() == key[0].lower()


def form_problem(observation: str, solution: Sequence[str]) -> str | None:
    """What is wrong with the key's form against what the text asks, or None.

    >>> form_problem("How much is it? Answer with a whole number.", ["47.316"])
    "the text asks for a whole number, but the answer is '47.316'"
    >>> form_problem("How much is it? Answer with a whole number.", ["47"]) is None
    True
    >>> form_problem("What is the mean, to two decimals?", ["3.14"]) is None
    True
    """
    if len(solution) != 1 or WHOLE_ASKED.search(observation) is None:
        return None
    key = solution[0].strip()
    if NUMBER.fullmatch(key) is None or float(key).is_integer():
        return None
    return f"{ASKED_WHOLE}, but the answer is {key!r}"


def check_stated_answer(ctx: CheckContext) -> None:
    """No answer puzzle whose text states its own answer on every compared seed (the player copies
    it: nothing to compute or choose)."""
    if not is_answer_puzzle(ctx.code or ""):
        raise CheckOff("not an answer puzzle: the key is not one answer to a text")
    episodes = [ctx.episode(seed) for seed in ctx.config.compared_seeds()]
    if all(states_its_answer(e.observation, e.solution) for e in episodes):
        first = episodes[0]
        key = first.solution[0].strip()
        shown = "number it shows" if NUMBER.fullmatch(key) else "phrase it quotes"
        raise CheckFailed(f"{STATED} on every seed (seed {first.seed}: {key!r} is the only {shown}); "
                          "make the player compute or choose the answer")


def check_answer_form(ctx: CheckContext) -> None:
    """No answer puzzle keyed in a form its text rules out (a whole number asked, a fraction keyed)."""
    if not is_answer_puzzle(ctx.code or ""):
        raise CheckOff("not an answer puzzle: the key is not one answer to a text")
    for seed in ctx.config.compared_seeds():
        episode = ctx.episode(seed)
        problem = form_problem(episode.observation, episode.solution)
        if problem is not None:
            raise CheckFailed(f"seed {seed}: {problem}; round the answer as the text asks (round() in "
                              "new_episode), or ask for the decimals it has")
