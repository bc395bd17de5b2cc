"""An environment set's lifetime: the window of iterations it stays in play, and what its designs
earn when it closes. Pure records and functions; the loop keeps one ``Window`` and commits it
with every iteration (``LoopState``), so a run resumed mid-window plays on where it stopped.

With ``[designer] regenerate_every = K`` a window opens every K iterations: the designer writes a
set, and for K iterations the agent plays the valid ones without the hint on fresh seeds and
trains on them; the hinted arm plays at the window's first step only (the regret is matched in
timing: both arms at the first step). When the window closes, each design is paid from all its
plays (``spadework.rewards.designer``) and the designer is trained on the set. K = 1 is one
iteration: designed, played, paid and trained at once, as the paper's loop does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from spadework.designer import Design
from spadework.difficulty import DifficultySettings, Standing, moved
from spadework.outcomes import PAPER, DesignOutcome, Payment, paired_scores, voided_outcome
from spadework.rewards import RegretEstimate, arms_estimate, designer_score, group_advantages, in_band, mean
from spadework.rollout import Episode
from spadework.rollout.audit import void_reason


@dataclass(frozen=True)
class WindowDesign:
    """One design of a window, as the window keeps it.

    Attributes:
        design_id: the design's id (``i8-d2``).
        index: its place among the window's designs (its play seeds follow from it).
        valid: whether it passed validation; only a valid design is played.
        code: its environment's source ("" when invalid).
        domain: its document's domain, when the corpus says.
        skill: the skill its request named, if any.
        invalid_reward: what it earns when invalid (``Payment.invalid``); 0.0 when valid.
        hint: the hinted arm's scores at the first step.
        first: the no-hint scores at the first step (the regret's other arm).
        steps: the no-hint scores of every step played so far, in order.
        voided: why its plays failed their audit; it is then played no more.
        chance: the share of episodes a blind guess wins (``Verdict.chance``); the plateau pays
            only the win rate above it.
        standing: its difficulty and the plays at it (``spadework.difficulty``), moved after every
            step; None: no controller, it plays at its own difficulty.
        levels: the difficulty each step was played at (empty without a controller).
    """

    design_id: str
    index: int
    valid: bool
    code: str = ""
    domain: str | None = None
    skill: str | None = None
    invalid_reward: float = 0.0
    hint: tuple[float, ...] = ()
    first: tuple[float, ...] = ()
    steps: tuple[tuple[float, ...], ...] = ()
    voided: str | None = None
    chance: float = 0.0
    standing: Standing | None = None
    levels: tuple[int, ...] = ()

    @property
    def difficulty(self) -> int | None:
        """The difficulty its next plays are at; None: its own."""
        return None if self.standing is None else self.standing.level

    @property
    def at_last_level(self) -> tuple[tuple[float, ...], ...]:
        """The no-hint scores of the steps played at the level of the last one (every step without
        a controller): what its win rate is read from.

        >>> d = WindowDesign("d", 0, True, steps=((1.0, 1.0), (0.0, 1.0), (0.0, 0.0)), levels=(1, 2, 2))
        >>> d.at_last_level
        ((0.0, 1.0), (0.0, 0.0))
        """
        if not self.levels:
            return self.steps
        last = self.levels[-1]
        return tuple(step for step, level in zip(self.steps, self.levels, strict=True) if level == last)

    @property
    def live(self) -> bool:
        """Whether it is still played: valid, and its plays never failed an audit."""
        return self.valid and self.voided is None

    def to_json(self) -> dict[str, Any]:
        """As committed with the loop state."""
        return {"design_id": self.design_id, "index": self.index, "valid": self.valid, "code": self.code,
                "domain": self.domain, "skill": self.skill, "invalid_reward": self.invalid_reward,
                "hint": list(self.hint), "first": list(self.first),
                "steps": [list(step) for step in self.steps], "voided": self.voided,
                "chance": self.chance, "standing": None if self.standing is None else self.standing.to_json(),
                "levels": list(self.levels)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WindowDesign:
        """Read back what ``to_json`` wrote."""
        return cls(data["design_id"], int(data["index"]), bool(data["valid"]), data["code"], data["domain"],
                   data["skill"], float(data["invalid_reward"]), tuple(data["hint"]), tuple(data["first"]),
                   tuple(tuple(step) for step in data["steps"]), data["voided"],
                   float(data.get("chance", 0.0)),
                   None if data.get("standing") is None else Standing.from_json(data["standing"]),
                   tuple(int(v) for v in data.get("levels", ())))


@dataclass(frozen=True)
class Window:
    """The designs in play, from the iteration that designed them (``start``) for ``length`` iterations.

    >>> w = Window(4, 2, (WindowDesign("i4-d0", 0, True, "code"),))
    >>> w.opens(4), w.closes(4), w.closes(5), Window.from_json(w.to_json()) == w
    (True, False, True, True)
    """

    start: int
    length: int
    designs: tuple[WindowDesign, ...]

    @classmethod
    def open(cls, iteration: int, length: int, designs: Sequence[Design], payment: Payment,
             controller: DifficultySettings | None = None) -> Window:
        """A window of the designs the iteration ``iteration`` wrote; with a ``controller`` that is
        on, each valid one starts at its start level (within the difficulties it validated)."""
        on = controller is not None and controller.on
        kept = tuple(WindowDesign(d.design_id, index, d.valid, (d.final.code or "") if d.valid else "",
                                  d.domain, d.skill, 0.0 if d.valid else payment.invalid(d),
                                  chance=(d.final.verdict.chance or 0.0) if d.valid else 0.0,
                                  standing=Standing.start(d.final.verdict.difficulties, controller)
                                  if on and d.valid and controller is not None else None)
                     for index, d in enumerate(designs))
        return cls(iteration, length, kept)

    def opens(self, iteration: int) -> bool:
        """Whether ``iteration`` is the window's first (the hinted arm plays then)."""
        return iteration == self.start

    def closes(self, iteration: int) -> bool:
        """Whether the window closes after ``iteration`` (its designs are paid then): its last
        iteration, or any once none of its designs is left to play (none was valid, or every one
        was voided), so a run never plays an empty window for its whole length.

        >>> Window(0, 4, (WindowDesign("i0-d0", 0, False),)).closes(0)
        True
        """
        return iteration == self.start + self.length - 1 or not self.live

    def covers(self, iteration: int) -> bool:
        """Whether ``iteration`` falls inside the window (while it has designs to play)."""
        return self.start <= iteration < self.start + self.length and bool(self.live)

    @property
    def standings(self) -> dict[str, Standing]:
        """Each design's difficulty standing, by design id (none without a controller)."""
        return {d.design_id: d.standing for d in self.designs if d.standing is not None}

    @property
    def live(self) -> tuple[WindowDesign, ...]:
        """The designs still played."""
        return tuple(d for d in self.designs if d.live)

    def step_outcomes(self, episodes: Sequence[Episode], payment: Payment) -> list[DesignOutcome]:
        """What the live designs' episodes of one iteration show: scores, the regret when the hinted
        arm played, the agent's advantages (a voided design's are zero). Their designer reward is
        the window's, paid when it closes (``close``)."""
        outcomes = []
        for design in self.live:
            mine = [e for e in episodes if e.env_id == design.design_id]
            voided = void_reason(mine)
            if voided is not None:
                outcomes.append(voided_outcome(design.design_id, mine, voided, payment.voided))
                continue
            nohint, hint = paired_scores(mine)
            estimate = arms_estimate(hint, nohint, payment.confidence) if nohint and hint else None
            outcomes.append(_played(design.design_id, nohint, hint, estimate))
        return outcomes

    def with_step(self, iteration: int, outcomes: Sequence[DesignOutcome],
                  controller: DifficultySettings | None = None) -> Window:
        """The window after one iteration's plays (``step_outcomes``) are recorded; each design's
        difficulty moved by its no-hint plays (``difficulty.moved``, with a controller)."""
        by_id = {o.design_id: o for o in outcomes}
        designs = []
        for design in self.designs:
            outcome = by_id.get(design.design_id)
            if outcome is None:
                designs.append(design)
                continue
            step = replace(design, steps=(*design.steps, outcome.scores_nohint), voided=outcome.voided)
            if design.standing is not None and controller is not None:
                step = replace(step, levels=(*design.levels, design.standing.level),
                               standing=moved(design.standing, outcome.scores_nohint, controller))
            if self.opens(iteration):
                step = replace(step, hint=outcome.scores_hint, first=outcome.scores_nohint)
            designs.append(step)
        return replace(self, designs=tuple(designs))

    def close(self, payment: Payment) -> list[DesignOutcome]:
        """Each design's designer outcome over the whole window, in design order (advantages not yet
        centred): an invalid design its penalty, a voided one the voided penalty, a valid one what
        ``payment.designer`` makes of its plays (``rewards.designer_score``)."""
        return [_closed(d, payment) for d in self.designs]

    def to_json(self) -> dict[str, Any]:
        """As committed with the loop state."""
        return {"start": self.start, "length": self.length, "designs": [d.to_json() for d in self.designs]}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Window | None:
        """Read back what ``to_json`` wrote (None: no window yet)."""
        if data is None:
            return None
        return cls(int(data["start"]), int(data["length"]),
                   tuple(WindowDesign.from_json(d) for d in data["designs"]))


def _played(design_id: str, nohint: tuple[float, ...], hint: tuple[float, ...],
            estimate: RegretEstimate | None) -> DesignOutcome:
    advantages, flat = group_advantages(nohint) if nohint else ([], False)
    return DesignOutcome(design_id=design_id, valid=True, scores_nohint=nohint, scores_hint=hint,
                         regret=estimate.regret if estimate is not None else 0.0, reward=0.0,
                         agent_advantages=tuple(advantages), agent_zero_variance=flat, estimate=estimate)


def _closed(design: WindowDesign, payment: Payment) -> DesignOutcome:
    """One design's outcome when its window closes."""
    base = DesignOutcome(design.design_id, design.valid, design.first, design.hint, 0.0,
                         design.invalid_reward)
    if not design.valid:
        return base
    if design.voided is not None:
        return replace(base, reward=payment.voided, voided=design.voided)
    if not design.first or not design.hint:  # not played in both arms: nothing measured
        return replace(base, reward=0.0)
    estimate = arms_estimate(design.hint, design.first, payment.confidence)
    score = designer_score(estimate, design.at_last_level, payment.blend, design.chance)
    return replace(base, regret=estimate.regret, reward=score.reward(payment.designer), estimate=estimate,
                   score=score, left_out=score.left_out(payment.designer))


def outcome_of(design: Design, episodes: Sequence[Episode], payment: Payment = PAPER) -> DesignOutcome:
    """What one design earned from one iteration's episodes, as a window of that iteration alone:
    its scores, regret, the agent's advantages and the designer's reward (not yet centred).
    Played without the hinted arm (``Arms.NOHINT``) it has no regret estimate: regret 0, the agent's
    advantages as ever."""
    window = Window.open(0, 1, [design], payment)
    step = window.step_outcomes(episodes, payment)
    return settled(step, window.with_step(0, step).close(payment))[0]


def settled(step: Sequence[DesignOutcome], closed: Sequence[DesignOutcome]) -> list[DesignOutcome]:
    """The closed outcomes (the designer's side, in design order) with the agent's side of this
    iteration's step (scores, advantages) where the design was played."""
    by_id = {o.design_id: o for o in step}
    return [replace(by_id[c.design_id], reward=c.reward, advantage=c.advantage, score=c.score,
                    left_out=c.left_out) if c.design_id in by_id else c for c in closed]


def window_metrics(outcomes: Sequence[DesignOutcome], payment: Payment) -> dict[str, float]:
    """The closing window's designer-reward components, over its played valid designs (``reward/...``).

    >>> from spadework.rewards import DesignerScore
    >>> s = DesignerScore(0.25, 0.0, 0.5, 1.0, 0.1, 0.0, 0.9, False)
    >>> m = window_metrics([DesignOutcome("d", True, (), (), 0.25, 0.9, score=s)], Payment())
    >>> m["reward/plateau_mean"], m["reward/micro_lp_mean"], m["reward/blend_mean"], m["reward/in_band_share"]
    (1.0, 0.1, 0.9, 1.0)
    """
    scores = [o.score for o in outcomes if o.score is not None]
    return {
        "reward/plateau_mean": mean([s.plateau for s in scores]),
        "reward/micro_lp_mean": mean([s.micro_lp for s in scores]),
        "reward/blend_mean": mean([s.blend for s in scores]),
        "reward/win_rate_mean": mean([s.win_rate for s in scores]),
        "reward/in_band_share": mean([1.0 if in_band(s.skill_rate, payment.blend) else 0.0 for s in scores]),
        "reward/chance_mean": mean([s.chance for s in scores]),
        "reward/masked": float(sum(o.left_out for o in outcomes)),
    }


def difficulty_metrics(window: Window, iteration: int) -> dict[str, float]:
    """Where the controller held the designs played at ``iteration`` (``difficulty/...``): the mean
    level they were played at, how many it then raised and lowered, and the mean level they will
    play at next.

    >>> d = WindowDesign("d", 0, True, "code", steps=((1.0, 1.0),), levels=(1,), standing=Standing(2, 3))
    >>> m = difficulty_metrics(Window(4, 2, (d,)), 4)
    >>> m["difficulty/level_mean"], m["difficulty/raised"], m["difficulty/lowered"], m["difficulty/next_mean"]
    (1.0, 1.0, 0.0, 2.0)
    """
    played = [d for d in window.designs
              if d.standing is not None and len(d.levels) == iteration - window.start + 1]
    after = [d.standing.level for d in played if d.standing is not None]
    return {
        "difficulty/level_mean": mean([float(d.levels[-1]) for d in played]),
        "difficulty/raised": float(sum(a > d.levels[-1] for a, d in zip(after, played, strict=True))),
        "difficulty/lowered": float(sum(a < d.levels[-1] for a, d in zip(after, played, strict=True))),
        "difficulty/next_mean": mean([float(a) for a in after]),
    }
