"""The validator's checks, in order. Each takes the context and raises ``CheckFailed``.

Every check can be run alone on a context that earlier checks filled in; the
messages say what is wrong and what to change.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from spadework.envs.contract import episode_score, is_solved
from spadework.errors import CheckFailed, EnvError, ParseError
from spadework.sandbox.env import EnvHandle
from spadework.validate import contract, static
from spadework.validate.parse import extract_code

TRIVIAL_ACTIONS = ("", "0", "1", "a", "yes", "no", "true", "false", "up", "down", "left", "right", "help",
                   "hint", "look", "solve", "answer", "done", "quit")
"""Actions an agent could try without reading the episode; none may solve it."""

STEP_FIELDS = ("observation", "reward", "terminated", "truncated", "info")
"""The parts of what ``step()`` returns, in order."""


@dataclass(frozen=True)
class ValidatorConfig:
    """Settings of the validator.

    Attributes:
        seeds: episodes that must be solvable by ``solution()``; the first is used for the
            other checks, and at least two are needed to tell seeds apart.
        trivial_actions: the battery of the not-guessable check.
    """

    seeds: tuple[int, ...] = (0, 1, 2)
    trivial_actions: tuple[str, ...] = TRIVIAL_ACTIONS

    def __post_init__(self) -> None:
        if len(set(self.seeds)) < 2:
            raise ValueError(f"ValidatorConfig.seeds needs at least two distinct seeds, got {self.seeds}")


@dataclass(frozen=True)
class Episode:
    """What one seed gives before any action: first observation, solution and hint."""

    seed: int
    observation: str
    solution: list[str]
    hint: str


@dataclass(frozen=True)
class Trace:
    """One played episode: every step's result, and its score."""

    steps: list[list[Any]]
    score: float



@dataclass
class CheckContext:
    """What the checks share. ``text`` is a designer reply when ``is_reply``, else a module."""

    text: str
    sandbox: Any
    config: ValidatorConfig = field(default_factory=ValidatorConfig)
    is_reply: bool = False
    code: str | None = None
    tree: ast.Module | None = None
    class_name: str | None = None
    env: EnvHandle | None = None
    episodes: dict[int, Episode] = field(default_factory=dict)

    @property
    def handle(self) -> EnvHandle:
        if self.env is None:
            raise CheckFailed("the environment is not loaded; run the load check first")
        return self.env

    def reset(self, seed: int) -> str:
        value = self.handle.reset(seed)
        _require(contract.reset_problem(value), f"seed {seed}")
        return value[0]

    def episode(self, seed: int) -> Episode:
        """Reset to ``seed`` and read its solution and hint (cached)."""
        if seed not in self.episodes:
            observation = self.reset(seed)
            actions = self.handle.solution()
            _require(contract.solution_problem(actions), f"seed {seed}")
            hint = self.handle.hint()
            _require(contract.hint_problem(hint), f"seed {seed}")
            self.episodes[seed] = Episode(seed, observation, actions, hint)
        return self.episodes[seed]

    def play(self, seed: int, actions: Sequence[str]) -> Trace:
        """Reset to ``seed`` and play ``actions`` until the episode ends."""
        self.reset(seed)
        steps: list[list[Any]] = []
        for action in actions:
            result = self.handle.step(action)
            _require(contract.step_problem(result), f"seed {seed}, action {action!r}")
            steps.append(result)
            if result[2] or result[3]:
                break
        return Trace(steps, episode_score(s[1] for s in steps))


def _require(problem: str | None, where: str) -> None:
    if problem is not None:
        raise CheckFailed(f"{where}: {problem}")


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
    try:
        ctx.code = extract_code(ctx.text)
    except ParseError as exc:
        raise CheckFailed(str(exc)) from None


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
        ctx.env = ctx.sandbox.open(ctx.code or "")
    except EnvError as exc:
        raise CheckFailed(f"loading failed: {exc}") from None
    ctx.class_name = ctx.env.class_name


def check_contract(ctx: CheckContext) -> None:
    """max_turns, reset, solution, hint and one step return the right types and sizes."""
    _require(contract.max_turns_problem(ctx.handle.max_turns), ctx.class_name or "the class")
    first = ctx.episode(ctx.config.seeds[0])
    ctx.play(first.seed, first.solution[:1])


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
    """Replaying solution() scores 1.0 within max_turns, on every validation seed."""
    max_turns = ctx.handle.max_turns
    for seed in ctx.config.seeds:
        actions = ctx.episode(seed).solution
        if len(actions) > max_turns:
            raise CheckFailed(f"seed {seed}: solution() has {len(actions)} actions but max_turns "
                              f"is {max_turns}; raise max_turns or shorten the solution")
        trace = ctx.play(seed, actions)
        if not is_solved(trace.score):
            ended = f", and the episode ended after {len(trace.steps)}" \
                if len(trace.steps) < len(actions) else ""
            raise CheckFailed(f"seed {seed}: replaying solution() ({len(actions)} actions{ended}) "
                              f"scored {trace.score:g}, not 1; make solution() return actions "
                              "that solve the episode, with rewards summing to 1")


def check_not_guessable(ctx: CheckContext) -> None:
    """No trivial action, repeated, solves the episode; nor does one seed's solution solve them all."""
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


def check_no_hint_leak(ctx: CheckContext) -> None:
    """No hint contains the seed-specific content of its episode's solution."""
    episodes = [ctx.episode(s) for s in ctx.config.seeds]
    for episode in episodes:
        others = [e.solution for e in episodes if e.seed != episode.seed]
        found = contract.leaked(episode.hint, episode.solution, others)
        if found:
            raise CheckFailed(f"seed {episode.seed}: the hint gives away the answer "
                              f"({', '.join(map(repr, found))}); hint at the method instead")


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
    Check("not_guessable", check_not_guessable),
    Check("no_hint_leak", check_no_hint_leak),
)
