"""An optional base class for environments, so a designer writes only the game.

This module uses the standard library only: it is copied into the sandbox, where
environment code imports it as ``from spadework.envs import TextEnv``.
"""

from __future__ import annotations

import random


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
        self.seed = seed
        self.rng = random.Random(seed)
        self.turn = 0
        self.over = False
        return self.new_episode(), {}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self.over:
            return "The episode is over.", 0.0, True, False, {"turn": self.turn}
        self.turn += 1
        try:
            observation, reward, solved = self.apply(str(action).strip())
        except ValueError as exc:  # the game refused the action: a move of the game, not a crash
            observation, reward, solved = f"Invalid action: {exc}", 0.0, False
        truncated = not solved and self.turn >= self.max_turns
        self.over = bool(solved) or truncated
        return observation, float(reward), bool(solved), truncated, {"turn": self.turn}

    def new_episode(self) -> str:
        raise NotImplementedError("write new_episode(): set up the episode, return the first observation")

    def apply(self, action: str) -> tuple[str, float, bool]:
        raise NotImplementedError("write apply(action): return (observation, reward, solved)")

    def solution(self) -> list[str]:
        raise NotImplementedError("write solution(): the actions that solve this episode")

    def hint(self) -> str:
        raise NotImplementedError("write hint(): privileged help that does not give the answer")
