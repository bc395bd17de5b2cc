"""The key follows from what the player is shown: an episode drawn again with one drawn value
changed must not change the key while the text stays the same (the ``key_from_text`` check).

The sandbox writes down every value an episode draws (``sandbox.draws``: ``self.rng`` of the base
classes, an environment's own ``random.Random(seed)``, the ``random`` module's functions) and
draws the episode again with one value changed at a time, at several sizes of change
(``alternatives``). A re-draw whose opening text is the same as before but which the original
solution no longer wins is two episodes the player cannot tell apart with different keys: the key
reads a value the text never shows, or a precision the text hides. The refusal names the line
that drew the value.

An answer puzzle is judged on its opening text alone, as ``determined`` judges it. A game may let
the player find things out by acting, so a re-draw counts against it only when the solution's moves
end it lost while every observation before the last move is the original's (nothing told the player
before it was too late), and a game fails only when more than ``UNRESOLVED_SHARE`` of its re-draws
that the solution loses are of that kind.

What it cannot see: a wrong method applied to values the text shows (a key computed with the
wrong formula from shown numbers), values drawn outside ``random`` (a hash of the seed, another
generator), and a value whose every tried change also changes the text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from spadework.envs.contract import episode_score, is_answer_puzzle, is_solved, is_tool_world
from spadework.errors import CheckFailed, CheckOff, EnvRaised
from spadework.validate.context import CheckContext, Trace
from spadework.validate.contract import reset_problem, step_problem
from spadework.validate.tool_leaks import answer_actions

REDRAWS_PER_SEED = 40
"""The most re-drawn episodes tried per seed (two seeds): the check's cost is bounded."""

UNRESOLVED_SHARE = 0.25
"""As in ``determined``: the share of a game's alike re-draws the probes may fail to tell apart."""

MAX_PLACES = 8
"""The most places of a shuffled, sampled or chosen list changed one at a time."""

FLOAT_STEPS = (1e-7, 1e-4, 3e-3, 0.3)
"""Changes of a drawn float, as shares of its range: below any rounding a text shows, about at
two or three decimals, and large."""

NUMBERS = frozenset({"randint", "randrange", "getrandbits"})
FLOATS = frozenset({"random", "uniform", "triangular", "gauss", "normalvariate"})

ADVICE = "show it in the text, or leave it out of the answer"


def alternatives(draw: dict[str, Any]) -> list[Any]:
    """Other values a draw could have given, nearest first (several sizes of change).

    >>> alternatives({"method": "randint", "args": [1, 10, 1], "value": 4})
    [5, 3, 1, 10]
    >>> alternatives({"method": "choice", "args": [3], "value": 2})
    [0, 1]
    >>> alternatives({"method": "uniform", "args": [0.0, 10.0], "value": 9.9})[:2]
    [9.900001, 9.901]
    >>> alternatives({"method": "shuffle", "args": [3], "value": [2, 0, 1]})
    [[0, 2, 1], [2, 1, 0], [1, 0, 2]]
    >>> alternatives({"method": "sample", "args": [4, 2], "value": [3, 1]})
    [[2, 1], [3, 0], [1, 3]]
    >>> alternatives({"method": "choices", "args": [5, 3], "value": [4, 0, 0]})
    [[0, 0, 0], [4, 1, 0], [4, 0, 1]]
    >>> alternatives({"method": "randint", "args": [5, 5, 1], "value": 5})
    []
    """
    method, args, value = draw.get("method"), draw.get("args") or [], draw.get("value")
    found: list[Any] = []
    if method in ("randint", "randrange") and type(value) is int:
        low, high, step = args
        found = [value + step, value - step, low, high]
        found = [v for v in found if low <= v <= high and (v - low) % step == 0]
    elif method == "getrandbits" and type(value) is int and args[0] >= 1:
        found = [value ^ 1, value ^ (1 << (args[0] - 1))]
    elif method in FLOATS and isinstance(value, float) and math.isfinite(value):
        found = _floats(method, args, value)
    elif method == "choice" and type(value) is int:
        found = [(value + 1) % args[0], (value - 1) % args[0]]
    elif method == "choices" and isinstance(value, list) and value:
        found = [_with(value, i, (value[i] + 1) % args[0]) for i in range(min(len(value), MAX_PLACES))]
    elif method == "shuffle" and isinstance(value, list) and len(value) > 1:
        found = [_swapped(value, i) for i in range(min(len(value) - 1, MAX_PLACES))] + [value[::-1]]
    elif method == "sample" and isinstance(value, list) and value:
        unused = [i for i in range(args[0]) if i not in value]
        found = [_with(value, i, min(unused, key=lambda u: abs(u - value[i])))
                 for i in range(min(len(value), MAX_PLACES))] if unused else []
        found += [value[::-1]] if len(value) > 1 else []
    unique: list[Any] = []
    for candidate in found:
        if candidate != value and candidate not in unique:
            unique.append(candidate)
    return unique


def _with(items: list[Any], place: int, value: Any) -> list[Any]:
    """``items`` with ``value`` at ``place``.

    >>> _with([1, 2, 3], 1, 9)
    [1, 9, 3]
    """
    return [*items[:place], value, *items[place + 1:]]


def _swapped(items: list[Any], place: int) -> list[Any]:
    """``items`` with the items at ``place`` and the next swapped.

    >>> _swapped([1, 2, 3], 1)
    [1, 3, 2]
    """
    return [*items[:place], items[place + 1], items[place], *items[place + 2:]]


def _floats(method: str, args: list[Any], value: float) -> list[float]:
    """A float draw's changes at ``FLOAT_STEPS``, kept inside its range (turned back at an end)."""
    if method in ("gauss", "normalvariate"):
        low, high, scale = -math.inf, math.inf, abs(args[1]) or 1.0
    else:
        low, high = (0.0, 1.0) if method == "random" else (float(args[0]), float(args[1]))
        scale = high - low
    if not scale or not math.isfinite(scale):
        return []
    found = []
    for step in FLOAT_STEPS:
        changed = value + step * scale
        if changed >= high:
            changed = value - step * scale
        if low <= changed and (changed < high or method != "random"):
            found.append(round(changed, 12))
    return found


def plans(draws: Sequence[dict[str, Any]], budget: int) -> list[tuple[int, Any]]:
    """(index, new value) of the re-draws to try: each draw's nearest change first, then each
    draw's next, until ``budget`` (so every draw is tried before any is tried twice).

    >>> plans([{"method": "choice", "args": [2], "value": 0},
    ...        {"method": "randint", "args": [1, 3, 1], "value": 2}], 3)
    [(0, 1), (1, 3), (1, 1)]
    """
    options = [alternatives(draw) for draw in draws]
    chosen: list[tuple[int, Any]] = []
    for rank in range(max((len(o) for o in options), default=0)):
        for index, values in enumerate(options):
            if rank < len(values) and len(chosen) < budget:
                chosen.append((index, values[rank]))
    return chosen


def describe(draw: dict[str, Any], value: Any) -> str:
    """The draw and its change, as a refusal names them.

    >>> describe({"method": "uniform", "args": [1, 2], "value": 1.25, "line": 7,
    ...           "code": "self.w = self.rng.uniform(1, 2)"}, 1.2501)
    'the value drawn at line 7 (`self.w = self.rng.uniform(1, 2)`), changed from 1.25 to 1.2501'
    >>> describe({"method": "choice", "args": [3], "value": 0, "line": 0, "code": ""}, 1)
    'the value drawn at a choice() call, its choice changed (item 1 of 3 to 2)'
    """
    where = f"line {draw['line']} (`{draw['code']}`)" if draw.get("line") else f"a {draw['method']}() call"
    old, method = draw["value"], draw["method"]
    if method in ("choice", "choices", "sample"):
        change = f"its choice changed (item {_places(old)} of {draw['args'][0]} to {_places(value)})"
    elif method == "shuffle":
        change = "its order changed"
    else:
        change = f"changed from {old!r} to {value!r}"
    return f"the value drawn at {where}, {change}"


def _places(indices: Any) -> str:
    """Indices as 1-based places.

    >>> _places(2), _places([0, 3])
    ('3', '1, 4')
    """
    return ", ".join(str(i + 1) for i in (indices if isinstance(indices, list) else [indices]))


@dataclass(frozen=True)
class Redrawn:
    """What drawing one seed again, a value changed at a time, found.

    Attributes:
        seed: the seed.
        drew: whether its episode drew any value through ``random``.
        alike: re-draws whose text (a game: every observation) stayed the original's and which the
            original solution no longer wins.
        unseen: of those, what changed where the player could not have known (an answer puzzle:
            all of them), described for a refusal.
        answer: the original solution, as a refusal quotes it.
    """

    seed: int
    drew: bool
    alike: int = 0
    unseen: tuple[str, ...] = ()
    answer: str = ""


class Reading(Enum):
    """How a re-draw the solution loses is judged: by what the player read before answering."""

    ANSWER = "answer"
    """An answer puzzle: on its opening text alone."""
    GAME = "game"
    """A game: only when the moves end it lost with every observation before the last the same."""
    TOOLS = "tools"
    """A tool world: as a game, and a final answer is judged on the tool results read before it."""

    @classmethod
    def of(cls, source: str) -> Reading:
        """How a design is read, from its source.

        >>> Reading.of("class SumEnv(AnswerEnv):\\n    pass\\n"), Reading.of("class A: pass")
        (<Reading.ANSWER: 'answer'>, <Reading.GAME: 'game'>)
        """
        if is_tool_world(source):
            return cls.TOOLS
        return cls.ANSWER if is_answer_puzzle(source) else cls.GAME


def redraw_seed(env: Any, seed: int, reading: Reading, budget: int = REDRAWS_PER_SEED) -> Redrawn:
    """Draw ``seed`` again with one drawn value changed at a time (``plans``) and play its original
    solution on each re-draw whose opening text is the same. An answer puzzle stops at the first
    re-draw the solution loses. ``env`` is an ``EnvHandle`` with ``redraw``; a value the environment
    cannot take (it raised) is no evidence either way.

    Raises:
        EnvError: the environment ended (a timeout, a crash) while drawn again.
    """
    first = _redraw(env, seed, None)
    if first is None or not first["draws"]:
        return Redrawn(seed, drew=False)
    solution = env.solution()
    original = _played(env, solution) if isinstance(solution, list) else None
    if original is None or not is_solved(original.score):
        return Redrawn(seed, drew=True)  # not this drawing's episode (``solvable`` judged the plain one)
    replay = [[d["method"], d["value"]] for d in first["draws"]]
    answers = reading is Reading.TOOLS and bool(answer_actions(solution[-1:]))  # ends with a final answer
    alike, unseen = 0, []
    for index, value in plans(first["draws"], budget):
        variant = _redraw(env, seed, {"replay": replay, "index": index, "value": value})
        if variant is None or not variant["applied"] or variant["opening"][0] != first["opening"][0]:
            continue  # the value could not be taken, or the text shows the change
        played = _played(env, solution)
        if played is None or is_solved(played.score):
            continue
        alike += 1
        if reading is Reading.ANSWER or _unseen(original, played, answers):
            unseen.append(describe(first["draws"][index], value))
            if reading is Reading.ANSWER:
                break
    return Redrawn(seed, True, alike, tuple(unseen), _short(solution))


def refusal(found: Sequence[Redrawn], reading: Reading) -> str | None:
    """Why the re-draws refuse the design (None: they do not); pure.

    >>> refusal([Redrawn(0, True, 1, ("the value drawn at line 3 (`x = 1`), changed from 1 to 2",),
    ...                  "'7'")], Reading.ANSWER)  # doctest: +NORMALIZE_WHITESPACE
    "seed 0: the answer reads a value the text never shows: the value drawn at line 3 (`x = 1`),
    changed from 1 to 2 leaves the text as it was, yet the answer '7' no longer wins; show it in the
    text, or leave it out of the answer"
    >>> refusal([Redrawn(0, True, 4, ("a change",), "'go'")], Reading.GAME) is None  # 1 of 4: feedback tells
    True
    """
    if reading is Reading.ANSWER:
        first = next((r for r in found if r.unseen), None)
        return None if first is None else (
            f"seed {first.seed}: the answer reads a value the text never shows: {first.unseen[0]} leaves "
            f"the text as it was, yet the answer {first.answer} no longer wins; {ADVICE}")
    alike = sum(r.alike for r in found)
    unseen = [u for r in found for u in r.unseen]
    if not unseen or len(unseen) <= UNRESOLVED_SHARE * alike:
        return None
    return (f"the outcome reads a value the player can never find: {unseen[0]} leaves every observation "
            f"as it was under the same moves, yet the solution no longer wins ({len(unseen)} of {alike} "
            f"such changes); {ADVICE}, or answer the player's moves with what it needs to find out")


def check_key_from_text(ctx: CheckContext) -> None:
    """An episode drawn again with one drawn value changed keeps its key wherever its text stays
    the same (see the module)."""
    reading = Reading.of(ctx.code or "")
    found = [redraw_seed(ctx.handle, seed, reading) for seed in ctx.config.seeds[:2]]
    if not any(r.drew for r in found):
        raise CheckOff("the episode draws no value through random (self.rng, random.Random(seed) or the "
                       "random module), so it could not be drawn again with a value changed")
    problem = refusal(found, reading)
    if problem is not None:
        raise CheckFailed(problem)


def _redraw(env: Any, seed: int, plan: dict[str, Any] | None) -> dict[str, Any] | None:
    """The seed's opening drawn under ``plan``, or None when the environment raised at it or gave
    no opening (a value it cannot take is no evidence either way)."""
    try:
        result = env.redraw(seed, plan)
    except EnvRaised:
        return None
    if not isinstance(result, dict) or not isinstance(result.get("draws"), list) \
            or reset_problem(result.get("opening")) is not None:
        return None
    return result


def _played(env: Any, actions: Sequence[str]) -> Trace | None:
    """``actions`` played from the state the last re-draw left; None when a step raised or broke
    the contract (no evidence)."""
    steps: list[list[Any]] = []
    for action in actions:
        try:
            result = env.step(action)
        except EnvRaised:
            return None
        if step_problem(result) is not None:
            return None
        steps.append(result)
        if result[2] or result[3]:
            break
    return Trace(steps, episode_score(s[1] for s in steps))


def _unseen(original: Trace, variant: Trace, answers: bool = False) -> bool:
    """Whether a game's re-draw was lost unseen: the original's moves end it unsolved (terminated or
    truncated: the player cannot go on; or, ``answers``, its last move was a tool world's final
    answer, judged like an answer puzzle's on what the player read before it) while every
    observation before the last move is the original's.

    >>> won = Trace([["A door.", 0.0, False, False, {}], ["Treasure!", 1.0, True, False, {}]], 1.0)
    >>> lost = Trace([["A door.", 0.0, False, False, {}], ["Empty.", 0.0, True, False, {}]], 0.0)
    >>> told = Trace([["A draught.", 0.0, False, False, {}], ["Empty.", 0.0, True, False, {}]], 0.0)
    >>> going = Trace([["A door.", 0.0, False, False, {}], ["Higher.", 0.0, False, False, {}]], 0.0)
    >>> _unseen(won, lost), _unseen(won, told), _unseen(won, going), _unseen(won, going, answers=True)
    (True, False, False, True)
    """
    if is_solved(variant.score) or not variant.steps:
        return False
    last = variant.steps[-1]
    ended = bool(last[2] or last[3]) or answers
    before = [s[0] for s in original.steps[:len(variant.steps) - 1]]
    return ended and before == [s[0] for s in variant.steps[:-1]]


def _short(actions: Sequence[str], limit: int = 60) -> str:
    text = " ".join(map(str, actions))
    return repr(text if len(text) <= limit else text[:limit - 3] + "...")
