"""What a valid design earns, knob for knob: regret, its lower bound, the plateau, learning potential
and their blend. Pure functions of scores, no I/O.

An environment lives for a *window* of agent updates (``[designer] regenerate_every``; one
iteration by default). Over its window it is played without the hint at every step and with the
hint at the first step, so its designer reward can read:

- **regret**, matched in timing: the hinted mean minus the no-hint mean, both at the window's first
  step (``max(0, ·)``, the paper's), or the lower end of its interval (``regret_lcb``);
- **plateau** of the window's no-hint win rate above chance (``above_chance``: the share of solved
  plays beyond what a blind guess wins, rescaled to [0, 1]): 1 inside the band ``[low, high]``,
  falling linearly to 0 over ``ramp`` outside it. Read on the raw win rate, a coin toss the agent
  cannot see (``heads or tails``) sits in the band whatever the agent learns: the plateau would pay
  the designer for noise;
- **micro learning potential**: how much the agent's no-hint win rate on this environment rose
  over the window, as the weighted least-squares line through the per-step win rates (weights
  ``sqrt(n)`` for ``n`` plays a step) read as its fitted end minus its fitted start;
- **frontier** penalty: ``(w - centre)^2 / scale`` on the same rate above chance, centre the middle
  of the band;
- **blend**: ``w_regret * clip(regret / s_regret, 0, 1) + w_plateau * plateau + w_lp * lp / s_lp
  - w_frontier * frontier``; a design whose blend is negative is left out of the designer's
  update (``mask_negative``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from spadework.kinds import DesignerReward
from spadework.rewards.core import solve_rate
from spadework.rewards.interval import RegretEstimate


@dataclass(frozen=True)
class BlendSettings:
    """The blend's weights, scales, band and ramp (``[rewards.blend]``); the defaults are the
    reference's released tool-use recipe (0.6 plateau + 0.4 floored regret)."""

    regret_weight: float = 0.4
    plateau_weight: float = 0.6
    lp_weight: float = 0.0
    frontier_weight: float = 0.0
    regret_scale: float = 0.15
    lp_scale: float = 0.10
    frontier_scale: float = 0.08
    band_low: float = 0.4
    band_high: float = 0.6
    ramp: float = 0.25
    mask_negative: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.band_low <= self.band_high <= 1.0:
            raise ValueError(f"the band needs 0 <= band_low <= band_high <= 1, got [{self.band_low}, "
                             f"{self.band_high}]")
        for name in ("regret_scale", "lp_scale", "frontier_scale", "ramp"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be greater than 0, got {getattr(self, name)}")

    @property
    def band(self) -> tuple[float, float]:
        """The win rates the plateau pays in full."""
        return self.band_low, self.band_high


REFERENCE_BLEND = BlendSettings()
"""The reference's released tool-use blend: 0.6 plateau of [0.4, 0.6] (ramp 0.25) + 0.4 regret / 0.15."""


def plateau(win_rate: float, low: float = 0.4, high: float = 0.6, ramp: float = 0.25) -> float:
    """1 for a win rate inside ``[low, high]``, falling linearly to 0 over ``ramp`` outside it.

    >>> plateau(0.5), plateau(0.6), plateau(0.7), plateau(0.85), plateau(0.3)
    (1.0, 1.0, 0.6, 0.0, 0.6)
    >>> round(plateau(0.62), 4), plateau(0.0), plateau(1.0)
    (0.92, 0.0, 0.0)
    """
    outside = max(low - win_rate, win_rate - high, 0.0)
    return round(max(0.0, 1.0 - outside / ramp), 12)


def above_chance(win_rate: float, chance: float) -> float:
    """The win rate beyond a blind guess's, rescaled so that chance is 0 and always winning is 1:
    ``max(0, (w - chance) / (1 - chance))``; 0.0 when a blind guess always wins.

    ``chance`` is the share of episodes the most common solution wins, played blind on every seed
    (the validator's measure, ``Verdict.chance``): a coin toss has chance about 0.5, so an agent
    winning half its plays is not in the band, and one winning three quarters is at 0.5.

    >>> above_chance(0.5, 0.0), above_chance(0.5, 0.5), above_chance(0.75, 0.5), above_chance(0.3, 0.5)
    (0.5, 0.0, 0.5, 0.0)
    >>> above_chance(1.0, 1.0)
    0.0
    """
    if chance >= 1.0:
        return 0.0
    return round(max(0.0, (win_rate - chance) / (1.0 - chance)), 12)


def floored_regret(regret: float, scale: float = 0.15) -> float:
    """``clip(regret / scale, 0, 1)``: any regret of ``scale`` or more pays in full.

    >>> floored_regret(0.0), floored_regret(0.075), floored_regret(0.5), floored_regret(-0.2)
    (0.0, 0.5, 1.0, 0.0)
    """
    return min(1.0, max(0.0, regret / scale))


def frontier_penalty(win_rate: float, centre: float = 0.5, scale: float = 0.08) -> float:
    """``(win_rate - centre)^2 / scale``: 0 at the centre of the band, 3.125 at a win rate of 0 or 1.

    >>> frontier_penalty(0.5), frontier_penalty(0.3), frontier_penalty(1.0)
    (0.0, 0.5, 3.125)
    """
    return round((win_rate - centre) ** 2 / scale, 12)


def micro_lp(steps: Sequence[tuple[int, float]]) -> float:
    """The rise of the no-hint win rate over a window: the weighted least-squares line through
    ``(step, win rate)`` points, weights ``sqrt(n)`` for ``n`` plays at that step, read as its
    fitted value at the last step minus at the first; 0.0 with fewer than two steps played.

    Args:
        steps: ``(plays, win rate)`` per step of the window, in order (a step with no plays counts
            for nothing).

    Equal weights, win rates 0, 0.5, 0.5 at steps 0, 1, 2: slope 0.25, fitted end minus start 0.5.

    >>> micro_lp([(4, 0.0), (4, 0.5), (4, 0.5)])
    0.5

    The step with 16 plays weighs twice the one with 4 (steps 0 and 1: the line joins them):

    >>> micro_lp([(4, 0.25), (16, 0.75)]), micro_lp([(4, 0.5)]), micro_lp([(4, 1.0), (4, 0.0)])
    (0.5, 0.0, -1.0)
    """
    points = [(float(x), rate, math.sqrt(n)) for x, (n, rate) in enumerate(steps) if n > 0]
    if len(points) < 2:
        return 0.0
    total = math.fsum(w for _, _, w in points)
    x_mean = math.fsum(w * x for x, _, w in points) / total
    y_mean = math.fsum(w * y for _, y, w in points) / total
    spread = math.fsum(w * (x - x_mean) ** 2 for x, _, w in points)
    slope = math.fsum(w * (x - x_mean) * (y - y_mean) for x, y, w in points) / spread
    return round(slope * (points[-1][0] - points[0][0]), 12)


@dataclass(frozen=True)
class DesignerScore:
    """Every component of one valid design's reward over its window.

    Attributes:
        regret: matched-timing regret, ``max(0, hinted mean - no-hint mean)`` at the first step.
        regret_low: the lower end of its interval, clipped at 0.
        win_rate: the share of the window's no-hint plays solved.
        plateau: ``plateau`` of the win rate above chance, on the blend's band and ramp.
        micro_lp: the window's rise of the no-hint win rate (``micro_lp``).
        frontier: ``frontier_penalty`` of the win rate above chance.
        blend: the weighted blend of the above.
        masked: the blend is negative and ``mask_negative`` is on: left out of the designer's update
            when the blend is what it earns.
        chance: the share of episodes a blind guess wins (``above_chance``); 0 when not measured.
    """

    regret: float
    regret_low: float
    win_rate: float
    plateau: float
    micro_lp: float
    frontier: float
    blend: float
    masked: bool
    chance: float = 0.0

    @property
    def skill_rate(self) -> float:
        """The win rate above chance, which the plateau, the frontier and the band read."""
        return above_chance(self.win_rate, self.chance)

    def reward(self, variant: DesignerReward) -> float:
        """What the design earns under ``[rewards] designer = variant``.

        >>> s = DesignerScore(0.25, 0.0, 0.5, 1.0, 0.1, 0.0, 1.0, False)
        >>> [s.reward(v) for v in DesignerReward]
        [0.25, 0.0, 1.0, 0.1, 1.0]
        """
        return _REWARDS[variant](self)

    def left_out(self, variant: DesignerReward) -> bool:
        """Whether the designer's update leaves this design out (a negative, masked blend)."""
        return variant is DesignerReward.BLEND and self.masked

    def to_json(self) -> dict[str, float | bool]:
        """The components as stored with the design in the archive (``designer_score``)."""
        return {"regret": self.regret, "regret_low": self.regret_low, "win_rate": self.win_rate,
                "plateau": self.plateau, "micro_lp": self.micro_lp, "frontier": self.frontier,
                "blend": self.blend, "masked": self.masked, "chance": self.chance}

    @classmethod
    def from_json(cls, data: dict[str, float | bool]) -> DesignerScore:
        """Read back what ``to_json`` wrote (a score archived before chance was measured reads 0)."""
        return cls(float(data["regret"]), float(data["regret_low"]), float(data["win_rate"]),
                   float(data["plateau"]), float(data["micro_lp"]), float(data["frontier"]),
                   float(data["blend"]), bool(data["masked"]), float(data.get("chance", 0.0)))


_REWARDS: dict[DesignerReward, Callable[[DesignerScore], float]] = {
    DesignerReward.REGRET: lambda s: s.regret,
    DesignerReward.REGRET_LCB: lambda s: s.regret_low,
    DesignerReward.PLATEAU: lambda s: s.plateau,
    DesignerReward.LEARNING_POTENTIAL: lambda s: s.micro_lp,
    DesignerReward.BLEND: lambda s: s.blend,
}


def blend(regret: float, plateau_value: float, lp: float, frontier: float, settings: BlendSettings) -> float:
    """The weighted blend of the components (see the module).

    The reference's tool-use weights: regret 0.075 (half of the 0.15 floor) in band pays
    0.4 * 0.5 + 0.6 * 1 = 0.8.

    >>> blend(0.075, 1.0, 0.0, 0.0, BlendSettings())
    0.8
    >>> blend(0.0, 0.0, -0.05, 3.125, BlendSettings(lp_weight=0.2, frontier_weight=0.2))
    -0.725
    """
    s = settings
    value = (s.regret_weight * floored_regret(regret, s.regret_scale) + s.plateau_weight * plateau_value
             + s.lp_weight * lp / s.lp_scale - s.frontier_weight * frontier)
    return round(value, 12)


def designer_score(estimate: RegretEstimate, steps: Sequence[Sequence[float]],
                   settings: BlendSettings = REFERENCE_BLEND, chance: float = 0.0) -> DesignerScore:
    """Every component of a valid design's reward over its window.

    Args:
        estimate: the regret of the window's first step, with its interval.
        steps: the no-hint scores of each step of the window, in order (the first step's included).
        settings: the blend's weights, scales, band and ramp.
        chance: the share of episodes a blind guess wins (the validator's ``Verdict.chance``); the
            plateau and the frontier read the win rate above it.

    One step (a window of one iteration), 2 of 4 no-hint plays solved, the hint lifting 1 of 4:

    >>> from spadework.rewards.interval import regret_estimate
    >>> e = regret_estimate([1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0])
    >>> s = designer_score(e, [[1.0, 1.0, 0.0, 0.0]])
    >>> s.regret, s.win_rate, s.plateau, s.micro_lp, s.blend, s.masked
    (0.25, 0.5, 1.0, 0.0, 1.0, False)

    Two steps whose win rate rose from 0 to 0.5 (too hard at first, learnt over the window):

    >>> s = designer_score(regret_estimate([0.0] * 4, [0.0] * 4), [[0.0] * 4, [1.0, 1.0, 0.0, 0.0]])
    >>> s.win_rate, s.plateau, s.micro_lp, s.blend
    (0.25, 0.4, 0.5, 0.24)

    A coin toss out of sight (a blind guess wins half the seeds): half the plays won is chance, not
    the frontier, so the plateau pays nothing:

    >>> s = designer_score(regret_estimate([1.0, 0.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]),
    ...                    [[1.0, 1.0, 0.0, 0.0]], chance=0.5)
    >>> s.win_rate, s.skill_rate, s.plateau, s.blend
    (0.5, 0.0, 0.0, 0.0)
    """
    scores = [score for step in steps for score in step]
    win_rate = solve_rate(scores)
    rate = above_chance(win_rate, chance)
    plateau_value = plateau(rate, settings.band_low, settings.band_high, settings.ramp)
    lp = micro_lp([(len(step), solve_rate(step)) for step in steps])
    centre = (settings.band_low + settings.band_high) / 2
    frontier = frontier_penalty(rate, centre, settings.frontier_scale)
    value = blend(estimate.regret, plateau_value, lp, frontier, settings)
    return DesignerScore(estimate.regret, estimate.regret_low, win_rate, plateau_value, lp, frontier, value,
                         masked=settings.mask_negative and value < 0, chance=chance)


def in_band(win_rate: float, settings: BlendSettings = REFERENCE_BLEND) -> bool:
    """Whether a no-hint win rate lies within the blend's band (what ``reward/in_band_share`` counts).

    >>> in_band(0.5), in_band(0.4), in_band(0.75)
    (True, True, False)
    """
    return settings.band_low <= win_rate <= settings.band_high
