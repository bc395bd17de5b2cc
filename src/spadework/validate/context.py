"""What the validator's checks share: its settings, what a seed opens with, a played trace, and
the context that loads the environment once and caches each seed's opening.

Its own module so the tool-world checks and the general checks both build on it without
importing each other.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from spadework.envs.contract import episode_score, is_tool_world
from spadework.errors import CheckFailed
from spadework.sandbox import SandboxProtocol
from spadework.sandbox.env import EnvHandle
from spadework.validate import contract
from spadework.validate.parse import ReplyCode

TRIVIAL_ACTIONS = ("", "0", "1", "a", "yes", "no", "true", "false", "up", "down", "left", "right", "help",
                   "hint", "look", "solve", "answer", "done", "quit")
"""Actions an agent could try without reading the episode; none may solve it."""

MIN_COMPARED = 8
"""The fewest episodes the determined check compares."""


@dataclass(frozen=True)
class ValidatorConfig:
    """Settings of the validator.

    Attributes:
        seeds: episodes that must be solvable by ``solution()``; the first is used for the
            other checks, and at least two are needed to tell seeds apart.
        trivial_actions: the battery of the not-guessable check.
        compared: episodes the determined check compares (``seeds`` first, then the seeds after
            the largest of them); at least 8.
        turn_budget: the most turns the run's agent plays (``agent.max_turns``): a solution longer
            than it fails ``solvable``, since no play could win it; None: the environment's own
            ``max_turns`` only.
        second_solver: an answer puzzle must define a top-level ``solve(observation)`` whose answer,
            run apart from the class, wins each of 16 seeds: its key follows from its text (set by
            ``designer.second_solver``; the check is ``validate.second_solver``).
        max_chance: ``not_guessable`` refuses a design whose blind guesser (``Verdict.chance``) wins
            more than this share of the compared seeds (``designer.max_chance``); None: off.
        levels: validate every difficulty the environment declares, from 1, and keep those that
            pass and are each harder than the one below (``validate.levels``; on with a
            difficulty controller); off: the environment at its own difficulty only.
    """

    seeds: tuple[int, ...] = (0, 1, 2)
    trivial_actions: tuple[str, ...] = TRIVIAL_ACTIONS
    compared: int = 8
    turn_budget: int | None = None
    second_solver: bool = False
    max_chance: float | None = None
    levels: bool = False

    def __post_init__(self) -> None:
        if len(set(self.seeds)) < 2:
            raise ValueError(f"ValidatorConfig.seeds needs at least two distinct seeds, got {self.seeds}")
        if self.compared < MIN_COMPARED:
            raise ValueError(f"ValidatorConfig.compared must be at least {MIN_COMPARED}, got {self.compared}")
        if self.turn_budget is not None and self.turn_budget < 1:
            raise ValueError(f"ValidatorConfig.turn_budget must be at least 1, got {self.turn_budget}")

    def compared_seeds(self, count: int | None = None) -> tuple[int, ...]:
        """The seeds the determined check compares: ``seeds``, then the ones after the largest
        (``count`` of them in all; ``compared`` when None).

        >>> ValidatorConfig(seeds=(4, 1)).compared_seeds(), ValidatorConfig(seeds=(4, 1)).compared_seeds(3)
        ((4, 1, 5, 6, 7, 8, 9, 10), (4, 1, 5))
        """
        seeds = list(dict.fromkeys(self.seeds))
        following = max(seeds) + 1
        while len(seeds) < (self.compared if count is None else count):
            seeds.append(following)
            following += 1
        return tuple(seeds)


@dataclass(frozen=True)
class Episode:
    """What one seed gives before any action: first observation, solution and hint."""

    seed: int
    observation: str
    solution: list[str]
    hint: str


@dataclass(frozen=True)
class Trace:
    """One played episode: every step's result, its score, and the info reset() gave."""

    steps: list[list[Any]]
    score: float
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class CheckContext:
    """What the checks share. ``text`` is a designer reply when ``is_reply``, else a module;
    ``extracted`` is the reply's code block when the caller has already extracted it (the parse
    check extracts it when None)."""

    text: str
    sandbox: SandboxProtocol
    config: ValidatorConfig = field(default_factory=ValidatorConfig)
    is_reply: bool = False
    extracted: ReplyCode | None = None
    code: str | None = None
    tree: ast.Module | None = None
    class_name: str | None = None
    env: EnvHandle | None = None
    episodes: dict[int, Episode] = field(default_factory=dict)
    chance: float | None = None
    difficulty: int | None = None
    """The difficulty the environment is opened at; None: its own."""
    declared: int = 1
    """The difficulties the loaded environment declares (read when its worker closes)."""

    @property
    def tool_world(self) -> bool:
        """Whether the environment is a tool world (a ``ToolEnv`` or ``ToolWorld`` subclass)."""
        return is_tool_world(self.code or "")

    @property
    def handle(self) -> EnvHandle:
        """The loaded environment; raises ``CheckFailed`` before the load check."""
        if self.env is None:
            raise CheckFailed("the environment is not loaded; run the load check first")
        return self.env

    def reset(self, seed: int) -> str:
        """The first observation of ``seed``."""
        return self.opening(seed)[0]

    def opening(self, seed: int) -> tuple[str, dict[str, Any]]:
        """Reset to ``seed``: the first observation and the info."""
        value = self.handle.reset(seed)
        require(contract.reset_problem(value), f"seed {seed}")
        return value[0], value[1]

    def episode(self, seed: int) -> Episode:
        """Reset to ``seed`` and read its solution and hint (cached)."""
        if seed not in self.episodes:
            observation = self.reset(seed)
            actions = self.handle.solution()
            require(contract.solution_problem(actions), f"seed {seed}")
            hint = self.handle.hint()
            require(contract.hint_problem(hint), f"seed {seed}")
            self.episodes[seed] = Episode(seed, observation, actions, hint)
        return self.episodes[seed]

    def play(self, seed: int, actions: Sequence[str]) -> Trace:
        """Reset to ``seed`` and play ``actions`` until the episode ends."""
        _, info = self.opening(seed)
        steps: list[list[Any]] = []
        for action in actions:
            result = self.handle.step(action)
            require(contract.step_problem(result), f"seed {seed}, action {action!r}")
            steps.append(result)
            if result[2] or result[3]:
                break
        return Trace(steps, episode_score(s[1] for s in steps), info)


def told_apart(first: Trace, second: Trace) -> bool:
    """Whether two plays of the same actions show different observations before either's outcome
    (reward, end) differs: a difference in what the agent reads, not only in whether it won.

    >>> lower, higher = ["lower", 0.0, False, False, {}], ["higher", 0.0, False, False, {}]
    >>> told_apart(Trace([lower], 0.0), Trace([higher], 0.0))
    True
    >>> wrong, right = ["Wrong.", 0.0, False, False, {}], ["Right.", 1.0, True, False, {}]
    >>> told_apart(Trace([wrong], 0.0), Trace([right], 1.0))
    False
    """
    for a, b in zip(first.steps, second.steps, strict=False):
        if a[1:4] != b[1:4]:
            return False
        if a[0] != b[0]:
            return True
    return False


def require(problem: str | None, where: str) -> None:
    """Fail the check with ``where: problem`` when there is a problem."""
    if problem is not None:
        raise CheckFailed(f"{where}: {problem}")
