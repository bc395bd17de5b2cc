"""A calibration design judged at its best difficulty: before its paired plays, rounds of no-hint
plays that the run's controller (``[difficulty]``) reads to move its level, as the loop moves a
design's after every step. Each round plays ``window`` seeds an environment, all environments
together; the paired plays then run at the level the rounds left.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from spadework.difficulty import DifficultySettings, Standing, moved
from spadework.policy.base import Policy
from spadework.rewards import REFERENCE_BLEND, BlendSettings, in_band, solve_rate
from spadework.rollout import Arm, PlayJob, RolloutConfig, run_plays
from spadework.sandbox import SandboxProtocol

DEFAULT_ROUNDS = 4
"""Rounds of no-hint plays before the paired plays, by default."""
CLIMB_SEED_OFFSET = 50_000
"""The rounds' seeds start this far after the paired seeds' start: never one of those."""


@dataclass(frozen=True)
class Climb:
    """How the controller moved one environment before its paired plays.

    Attributes:
        standing: where the rounds left it (its path: every level it played at).
        rates: the no-hint win rate of each round, in order.
        plays_to_band: the no-hint plays until a round's win rate first lay in the band (that
            round's included); None: no round did.
    """

    standing: Standing
    rates: tuple[float, ...] = ()
    plays_to_band: int | None = None

    def to_json(self) -> dict:
        """As the calibration report writes it."""
        return {"standing": self.standing.to_json(), "rates": list(self.rates),
                "plays_to_band": self.plays_to_band}


def first_in_band(rates: Sequence[float], per_round: int,
                  blend: BlendSettings = REFERENCE_BLEND) -> int | None:
    """The plays until the first round whose win rate lies in the band, that round's included.

    >>> first_in_band([0.0, 1.0, 0.5], 8), first_in_band([1.0, 1.0], 8)
    (24, None)
    """
    return next(((n + 1) * per_round for n, rate in enumerate(rates) if in_band(rate, blend)), None)


def climb(sources: Mapping[str, tuple[str, int]], policy: Policy, sandbox: SandboxProtocol,
          rollout: RolloutConfig, controller: DifficultySettings, rounds: int, seed_start: int,
          blend: BlendSettings = REFERENCE_BLEND) -> dict[str, Climb]:
    """Each environment's climb (``sources``: id → (code, the difficulties it validated)) over
    ``rounds`` rounds of ``controller.window`` no-hint plays."""
    standings = {key: Standing.start(top, controller) for key, (_, top) in sources.items()}
    rates: dict[str, list[float]] = {key: [] for key in sources}
    for round_ in range(rounds):
        first = seed_start + CLIMB_SEED_OFFSET + round_ * controller.window
        jobs = [PlayJob(key, code, seed, Arm.NOHINT, difficulty=standings[key].level)
                for key, (code, _) in sources.items() for seed in range(first, first + controller.window)]
        episodes = run_plays(policy, sandbox, jobs, rollout) if jobs else []
        for key in sources:
            scores = [e.score for e in episodes if e.env_id == key]
            rates[key].append(solve_rate(scores))
            standings[key] = moved(standings[key], scores, controller)
    return {key: Climb(standings[key], tuple(rates[key]), first_in_band(rates[key], controller.window, blend))
            for key in sources}
