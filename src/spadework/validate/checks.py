"""The validator's checks, in order. Each takes the context and raises ``CheckFailed`` (or ``CheckOff``
when it does not apply to the design).

Every check can be run alone on a context that earlier checks filled in; the
messages say what is wrong and what to change.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from spadework.envs.contract import is_answer_puzzle, is_solved
from spadework.errors import CheckFailed, EnvError
from spadework.validate import contract, static
from spadework.validate.answers import check_answer_form, check_stated_answer
from spadework.validate.context import TRIVIAL_ACTIONS as TRIVIAL_ACTIONS
from spadework.validate.context import CheckContext as CheckContext
from spadework.validate.context import Episode as Episode
from spadework.validate.context import Trace as Trace
from spadework.validate.context import ValidatorConfig as ValidatorConfig
from spadework.validate.context import require
from spadework.validate.context import told_apart as _told_apart
from spadework.validate.leaks import leaks
from spadework.validate.parse import ReplyCode
from spadework.validate.redraw import check_key_from_text
from spadework.validate.second_solver import check_second_solver
from spadework.validate.tool_checks import check_hint_calls, check_tool_effort, check_unsolved, tools_problem
from spadework.validate.tool_leaks import answer_actions

READ_THE_TEXT = "put what decides the answer into the text the agent reads"

UNRESOLVED_SHARE = 0.25
"""The share of alike-opening game seeds that probes may fail to tell apart before a game fails
``determined`` (the probes are the compared seeds' solutions, so a few pairs of a fair game escape)."""

CHANCE_CANDIDATES = 3
"""How many of the most common solutions ``blind_share`` plays blind on every compared seed."""

STEP_FIELDS = ("observation", "reward", "terminated", "truncated", "info")
"""The parts of what ``step()`` returns, in order."""


def _difference(first: list[Any], second: list[Any]) -> str:
    """The first part in which two step results differ, with both values (shortened).

    >>> _difference(["ok", 0.0, False, False, {"n": 1}], ["ok", 0.0, False, False, {"n": 2}])
    "info {'n': 1} then {'n': 2}"
    """
    name, a, b = next(d for d in zip(STEP_FIELDS, first, second, strict=True) if d[1] != d[2])
    return f"{name} {_short(a)} then {_short(b)}"


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_parse(ctx: CheckContext) -> None:
    """A reply holds exactly one Python code block (a module is taken as it is)."""
    if not ctx.is_reply:
        ctx.code = ctx.text
        return
    found = ctx.extracted if ctx.extracted is not None else ReplyCode.of(ctx.text)
    if found.code is None:
        raise CheckFailed(found.problem or "the reply has no code block to take")
    ctx.code = found.code


def check_static(ctx: CheckContext) -> None:
    """It parses; one Env class with the contract's methods; allowed imports and calls only."""
    ctx.tree = static.parse_module(ctx.code or "")
    cls = static.the_env_class(ctx.tree)
    ctx.class_name = cls.name
    static.check_methods(cls, ctx.tree)
    static.check_imports(ctx.tree)
    static.check_forbidden(ctx.tree)


def check_load(ctx: CheckContext) -> None:
    """The module runs and the class can be built, inside the sandbox."""
    try:
        code = ctx.code or ""
        ctx.env = ctx.sandbox.open(code) if ctx.difficulty is None else \
            ctx.sandbox.open(code, difficulty=ctx.difficulty)
    except EnvError as exc:
        raise CheckFailed(f"loading failed: {exc}") from None
    ctx.class_name = ctx.env.class_name


def check_contract(ctx: CheckContext) -> None:
    """max_turns, reset, solution, hint and one step return the right types and sizes; a tool
    world's reset() gives its tools."""
    require(contract.max_turns_problem(ctx.handle.max_turns), ctx.class_name or "the class")
    first = ctx.episode(ctx.config.seeds[0])
    trace = ctx.play(first.seed, first.solution[:1])
    if ctx.tool_world:
        problem = tools_problem(trace.info)
        if problem is not None:
            raise CheckFailed(problem)


def check_determinism(ctx: CheckContext) -> None:
    """The same seed and actions give the same episode; different seeds differ."""
    seed = ctx.config.seeds[0]
    actions = ctx.episode(seed).solution
    first, second = ctx.play(seed, actions), ctx.play(seed, actions)
    for turn, (a, b) in enumerate(zip(first.steps, second.steps, strict=False), start=1):
        if a != b:
            raise CheckFailed(f"seed {seed} played twice differs at turn {turn} in "
                              f"{_difference(a, b)}; take all randomness from the seed and set "
                              "all state in reset()")
    if len(first.steps) != len(second.steps):
        raise CheckFailed(f"seed {seed} played twice lasted {len(first.steps)} then "
                          f"{len(second.steps)} turns; take all randomness from the seed")
    again = ctx.episodes.pop(seed)
    if ctx.episode(seed) != again:
        raise CheckFailed(f"seed {seed} reset twice gave different observations, solutions or "
                          "hints; take all randomness from the seed given to reset()")
    episodes = [ctx.episode(s) for s in ctx.config.seeds]
    views = {(e.observation, tuple(e.solution), e.hint) for e in episodes}
    if len(views) == 1:
        raise CheckFailed(f"seeds {', '.join(map(str, ctx.config.seeds))} all give the same "
                          "episode; draw it from the seed: self.rng in new_episode() (TextEnv, "
                          "AnswerEnv), or random.Random(seed) made in reset()")


def check_solvable(ctx: CheckContext) -> None:
    """Replaying solution() scores 1.0 within max_turns and the run's turn budget, on every
    validation seed (in a tool world the message names the first call that failed, and its error)."""
    max_turns, budget = ctx.handle.max_turns, ctx.config.turn_budget
    for seed in ctx.config.seeds:
        actions = ctx.episode(seed).solution
        if len(actions) > max_turns:
            raise CheckFailed(f"seed {seed}: solution() has {len(actions)} actions but max_turns "
                              f"is {max_turns}; raise max_turns or shorten the solution")
        if budget is not None and len(actions) > budget:
            raise CheckFailed(f"seed {seed}: solution() has {len(actions)} actions but the agent plays "
                              f"at most {budget} turns, so no play could win it; make an episode need "
                              f"{budget} actions or fewer (fewer steps or tasks)")
        if ctx.tool_world:
            check_unsolved(ctx, seed, actions)
            continue
        trace = ctx.play(seed, actions)
        if not is_solved(trace.score):
            ended = f", and the episode ended after {len(trace.steps)}" \
                if len(trace.steps) < len(actions) else ""
            raise CheckFailed(f"seed {seed}: replaying solution() ({len(actions)} actions{ended}) "
                              f"scored {trace.score:g}, not 1; make solution() return actions "
                              "that solve the episode, with rewards summing to 1")


def check_not_guessable(ctx: CheckContext) -> None:
    """No trivial action, repeated, solves the episode; nor does one seed's solution solve them all.
    Passing, it measures how often a blind guess wins (``blind_share``, kept as ``ctx.chance``)."""
    seed, *others = ctx.config.seeds
    turns = ctx.handle.max_turns
    for action in ctx.config.trivial_actions:
        if is_solved(ctx.play(seed, [action] * turns).score):
            raise CheckFailed(f"seed {seed}: repeating the trivial action {action!r} solves the "
                              "episode; make success depend on what the agent reads")
    actions = ctx.episode(seed).solution
    if all(is_solved(ctx.play(other, actions).score) for other in others):
        raise CheckFailed(f"the solution of seed {seed} ({_short(actions)}) solves seeds "
                          f"{', '.join(map(str, others))} too: the same actions win every episode; "
                          "make the answer depend on what each episode shows")
    ctx.chance = blind_share(ctx)
    limit = ctx.config.max_chance
    if limit is not None and ctx.chance > limit:
        raise CheckFailed(f"a blind guess (one seed's solution played on the others) wins {ctx.chance:.0%} "
                          f"of the compared seeds, more than designer.max_chance ({limit:.0%}); make the "
                          "answer depend on what each episode shows")


def blind_share(ctx: CheckContext) -> float:
    """The share of episodes a blind guess wins: each of the ``CHANCE_CANDIDATES`` most common
    solutions of the compared seeds is played on all of them, and the best share of the *other*
    seeds it solves is the chance (a solution always solves the seed it came from).

    An environment whose answer does not follow from its text (a coin tossed out of sight, however
    its opening is dressed up) has a chance near the share of its most common answer; one whose
    every seed needs its own solution has a chance of 0.
    """
    episodes = [ctx.episode(seed) for seed in ctx.config.compared_seeds()]
    counts = Counter(tuple(e.solution) for e in episodes)
    best = 0
    for actions, _ in counts.most_common(CHANCE_CANDIDATES):
        solved = sum(is_solved(ctx.play(e.seed, list(actions)).score) for e in episodes)
        best = max(best, solved - 1)
    return round(best / (len(episodes) - 1), 6)


def check_determined(ctx: CheckContext) -> None:
    """What the agent sees decides the answer: seeds that show the same thing need the same solution.

    An answer puzzle (an ``AnswerEnv``: read, then answer) must differ in its opening text wherever
    its answers differ, whatever its feedback to a wrong answer says. In a game the agent may find
    things out by acting: two seeds that open alike and need different solutions (neither's
    solution solves the other) are told apart when some probe (any compared seed's solution)
    draws different observations from them before either is won or lost. A game fails when more
    than ``UNRESOLVED_SHARE`` of such pairs cannot be told apart (a few may escape the probes of a
    fair game whose feedback is informative).
    """
    episodes = [ctx.episode(seed) for seed in ctx.config.compared_seeds()]
    traces: dict[tuple[int, tuple[str, ...]], Trace] = {}

    def played(seed: int, actions: Sequence[str]) -> Trace:
        if (seed, tuple(actions)) not in traces:
            traces[seed, tuple(actions)] = ctx.play(seed, actions)
        return traces[seed, tuple(actions)]

    alike = [(a, b) for i, a in enumerate(episodes) for b in episodes[i + 1:]
             if a.observation == b.observation and not is_solved(played(b.seed, a.solution).score)]
    if alike and is_answer_puzzle(ctx.code or ""):
        first, second = alike[0]
        raise CheckFailed(
            f"seeds {first.seed} and {second.seed} show the same text but need different answers "
            f"({_short(first.solution[0], 40)} and {_short(second.solution[0], 40)}), so no player can "
            f"tell which; {READ_THE_TEXT}")
    probes = list(dict.fromkeys(tuple(e.solution) for e in episodes))
    pairs = [(a, b) for a, b in alike if not is_solved(played(a.seed, b.solution).score)]
    unresolved = [(a, b) for a, b in pairs
                  if not any(_told_apart(played(a.seed, p), played(b.seed, p)) for p in probes)]
    if unresolved and len(unresolved) > UNRESOLVED_SHARE * len(pairs):
        first, second = unresolved[0]
        raise CheckFailed(
            f"seeds {first.seed} and {second.seed} show the same observations under the same actions but "
            f"need different solutions ({_short(first.solution, 40)} and {_short(second.solution, 40)}), "
            f"as do {len(unresolved)} of {len(pairs)} such pairs; {READ_THE_TEXT}, or answer the "
            "agent's moves with what it needs to find out")


def check_no_hint_leak(ctx: CheckContext) -> None:
    """No hint gives away its episode's seed-specific answer, as it is or in a usual disguise:
    reversed, spaced out, in number words, as arithmetic, or as the solution's actions in order.
    In a tool world no hint spells out a call of its solution, and the answer is the solution's
    actions with no call (the final answer, when the task asks for one)."""
    find_hint_leaks([ctx.episode(s) for s in ctx.config.seeds], ctx.tool_world)


def find_hint_leaks(episodes: Sequence[Episode], tool_world: bool,
                    contrasts: Sequence[Sequence[str]] = ()) -> None:
    """``check_no_hint_leak`` on any seeds' openings (the validator's, or the played ones).

    Args:
        contrasts: solutions of further seeds, whose answers only tell what is not secret.

    Raises:
        CheckFailed: a hint gives away its own episode's answer (the first one found).
    """
    if tool_world:
        check_hint_calls(episodes)
        episodes = [replace(e, solution=answer_actions(e.solution)) for e in episodes]
        contrasts = [answer_actions(c) for c in contrasts]
    for episode in episodes:
        if not episode.solution:
            continue
        others = [e.solution for e in episodes if e.seed != episode.seed] + [list(c) for c in contrasts]
        found = leaks(episode.hint, episode.solution, others, episode.observation)
        if found:
            raise CheckFailed(f"seed {episode.seed}: the hint gives away the answer "
                              f"({', '.join(leak.describe() for leak in found)}); hint at the method instead")


@dataclass(frozen=True)
class Check:
    """A named check."""

    name: str
    run: Callable[[CheckContext], None]


CHECKS: tuple[Check, ...] = (
    Check("parse", check_parse),
    Check("static", check_static),
    Check("load", check_load),
    Check("contract", check_contract),
    Check("determinism", check_determinism),
    Check("solvable", check_solvable),
    Check("tool_effort", check_tool_effort),
    Check("determined", check_determined),
    Check("key_from_text", check_key_from_text),
    Check("stated_answer", check_stated_answer),
    Check("answer_form", check_answer_form),
    Check("not_guessable", check_not_guessable),
    Check("no_hint_leak", check_no_hint_leak),
    Check("second_solver", check_second_solver),
)
