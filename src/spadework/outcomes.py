"""Pure aggregation of one iteration: per-design results, rewards, advantages, metrics, and the
archive records they become."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from spadework.archive import DesignResult, EnvRecord, PlayResult
from spadework.designer import Design
from spadework.difficulty import Standing
from spadework.rewards import (
    CONFIDENCE,
    BlendSettings,
    DesignerReward,
    DesignerScore,
    RegretEstimate,
    centred_advantages,
    designer_reward,
    mean,
    solve_rate,
)
from spadework.rollout import Arm, Arms, EndReason, Episode
from spadework.rollout.calls import call_metrics
from spadework.validate.checks import CHECKS

CHECK_NAMES = (*(check.name for check in CHECKS), "novel")
"""Every check that can refuse a design attempt in a run, in order."""

_DESIGN_ID = re.compile(r"i(\d+)-d(\d+)")


def design_id(iteration: int, index: int) -> str:
    """The id of an iteration's ``index``-th design (whose play seeds are ``play_seeds``'s of it).

    >>> design_id(3, 1), design_index(design_id(3, 1))
    ('i3-d1', (3, 1))
    >>> design_index("tool-7") is None
    True
    """
    return f"i{iteration}-d{index}"


def design_index(design_id: str) -> tuple[int, int] | None:
    """The iteration and index a ``design_id`` names; None for an id it did not make."""
    match = _DESIGN_ID.fullmatch(design_id)
    return None if match is None else (int(match[1]), int(match[2]))


def play_seeds(run_seed: int, iteration: int, design_index: int, plays: int) -> list[int]:
    """The paired seeds of one design: fixed by the run seed and the design's place.

    >>> play_seeds(0, 1, 2, 2) == play_seeds(0, 1, 2, 2)
    True
    >>> len(set(play_seeds(0, 0, 0, 4)))
    4
    """
    return [_drawn(f"{run_seed}/{iteration}/{design_index}/{k}") for k in range(plays)]


def validation_seeds(run_seed: int, iteration: int, count: int = 3) -> tuple[int, ...]:
    """The seeds the validator checks an iteration's designs on: drawn like play seeds, from the
    same range, under a prefix of their own (so no design can be fair on a small fixed range of
    seeds and not on those it is played on).

    >>> seeds = validation_seeds(0, 1)
    >>> len(set(seeds)), all(0 <= s < 2**31 for s in seeds), seeds == validation_seeds(0, 1)
    (3, True, True)
    """
    return tuple(_drawn(f"validate/{run_seed}/{iteration}/{k}") for k in range(count))


def _drawn(key: str) -> int:
    """A seed in [0, 2**31) fixed by ``key``."""
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=4).digest(), "big") % 2**31


@dataclass(frozen=True)
class DesignOutcome:
    """What one design earned this iteration.

    Attributes:
        regret: the paper's hint-based regret (0.0 when invalid or not played).
        reward: the designer's reward: under ``[rewards] designer``, a figure of its plays when
            valid (``score.reward``), the invalid penalty when not.
        estimate: the regret with its interval over the paired seeds; None when the design was
            invalid, not played, or voided.
        voided: why its played episodes cannot pay regret (``rollout.audit.void_reason``): it then
            earns the invalid penalty, and its agent advantages are zero; None when they held up.
        score: every component of a valid, played design's reward (regret, plateau, micro learning
            potential, blend); None otherwise.
        left_out: the designer's update leaves it out (a negative blend, masked): advantage 0, and
            the others are centred without it.
    """

    design_id: str
    valid: bool
    scores_nohint: tuple[float, ...]
    scores_hint: tuple[float, ...]
    regret: float
    reward: float
    advantage: float = 0.0
    agent_advantages: tuple[float, ...] = ()
    agent_zero_variance: bool = False
    estimate: RegretEstimate | None = None
    voided: str | None = None
    score: DesignerScore | None = None
    left_out: bool = False


def check_progress(design: Design) -> float:
    """The share of the validator's checks the design's final reply passed (or that did not apply to it).

    >>> from spadework.designer.design import DesignAttempt
    >>> from spadework.validate.verdict import CheckResult, Outcome, Verdict
    >>> checks = (CheckResult("parse", Outcome.PASSED, ""), CheckResult("tool_effort", Outcome.OFF, "x"),
    ...           CheckResult("static", Outcome.FAILED, "x"), CheckResult("load", Outcome.SKIPPED, ""))
    >>> check_progress(Design("d", "doc", None, (DesignAttempt(1, (), "", None, Verdict(checks, "none")),)))
    0.5
    """
    checks = design.final.verdict.checks
    return sum(c.ok for c in checks) / len(checks) if checks else 0.0


@dataclass(frozen=True)
class Payment:
    """How designs are paid (``[designer]`` and ``[rewards]``).

    Attributes:
        invalid_penalty: what an invalid design costs (``designer.invalid_penalty``).
        partial_credit: an invalid design's penalty shrinks with the checks it passed.
        designer: what a valid design earns (``rewards.designer``).
        confidence: two-sided confidence of the regret's interval (``rewards.confidence``).
        blend: the blend's weights, band and ramp (``rewards.blend``).
    """

    invalid_penalty: float = 0.0
    partial_credit: bool = False
    designer: DesignerReward = DesignerReward.REGRET
    confidence: float = CONFIDENCE
    blend: BlendSettings = BlendSettings()

    def invalid(self, design: Design) -> float:
        """What an invalid design earns (minus the penalty, less the checks it passed with partial credit)."""
        return designer_reward(False, 0.0, self.invalid_penalty,
                               check_progress(design) if self.partial_credit else 0.0)

    @property
    def voided(self) -> float:
        """What a design whose plays failed their audit earns: cheating never pays more than failing."""
        return designer_reward(False, 0.0, self.invalid_penalty)


PAPER = Payment()
"""The paper's payment: regret, no penalty for an invalid design."""


def voided_outcome(design_id: str, episodes: Sequence[Episode], reason: str, reward: float) -> DesignOutcome:
    """A valid environment whose played episodes failed their audit (``reason``): its scores kept,
    regret 0 with no interval, ``reward`` for its designer, zero advantages for its agent."""
    nohint, hint = paired_scores(episodes)
    return DesignOutcome(design_id=design_id, valid=True, scores_nohint=nohint, scores_hint=hint, regret=0.0,
                         reward=reward, agent_advantages=(0.0,) * len(nohint), voided=reason)


def paired_scores(episodes: Sequence[Episode]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The no-hint and the hinted scores of one environment's episodes, each arm in seed order."""
    arms = {arm: sorted((e for e in episodes if e.arm is arm), key=lambda e: e.seed) for arm in Arm}
    return tuple(e.score for e in arms[Arm.NOHINT]), tuple(e.score for e in arms[Arm.HINT])


def with_designer_advantages(
    outcomes: Sequence[DesignOutcome], groups: Sequence[str] | None
) -> tuple[list[DesignOutcome], list[str]]:
    """Centre the designer rewards across the designs (optionally per group); a design ``left_out``
    of the update (a masked negative blend) gets advantage 0 and is not centred with the others.

    >>> out = [DesignOutcome(f"d{i}", True, (), (), 0.0, r) for i, r in enumerate((0.0, 1.0))]
    >>> masked = DesignOutcome("d2", True, (), (), 0.0, -0.5, left_out=True)
    >>> tuple(o.advantage for o in with_designer_advantages([*out, masked], None)[0])
    (-1.0, 1.0, 0.0)
    """
    kept = [i for i, o in enumerate(outcomes) if not o.left_out]
    advantages, flat = centred_advantages([outcomes[i].reward for i in kept],
                                          None if groups is None else [groups[i] for i in kept])
    centred = dict(zip(kept, advantages, strict=True))
    return [replace(o, advantage=centred.get(i, 0.0)) for i, o in enumerate(outcomes)], flat


def iteration_metrics(
    designs: Sequence[Design], outcomes: Sequence[DesignOutcome], episodes: Sequence[Episode],
    designer_flat: Sequence[str] | None = (), arms: Arms = Arms.BOTH,
) -> dict[str, float]:
    """The iteration's metrics under their stable names (perf/ figures are added by the loop), and
    ``form_metrics``'s for each design form the iteration asked for. Without the hinted arm
    (``Arms.NOHINT``, or a window's later steps) the figures that need it (``HINTED_METRICS``) are
    left out, not reported as 0; so are the designer's pay (``PAID_METRICS``) when ``designer_flat``
    is None (a window still open), and the design figures (``design/...``) when nothing was designed."""
    first_failed = [d for d in designs if not d.attempts[0].verdict.valid]
    valid = [o for o in outcomes if o.valid]
    estimates = [o.estimate for o in valid if o.estimate is not None]  # the valid designs played
    by_arm = {arm: [e for e in episodes if e.arm is arm] for arm in Arm}
    novel_rejects = sum(1 for d in designs for a in d.attempts
                        if a.verdict.failure is not None and a.verdict.failure.name == "novel")
    metrics = {
        "design/count": float(len(designs)),
        "design/valid_rate": mean([1.0 if d.valid else 0.0 for d in designs]),
        "design/first_attempt_valid_rate": mean([1.0 if d.attempts[0].verdict.valid else 0.0
                                                 for d in designs]),
        "design/repair_success": mean([1.0 if d.valid else 0.0 for d in first_failed]),
        "design/attempts_mean": mean([float(len(d.attempts)) for d in designs]),
        "design/novel_rejects": float(novel_rejects),
        "reward/regret_mean": mean([o.regret for o in valid]),
        "reward/regret_ci_width": mean([e.width for e in estimates]),
        "reward/regret_positive_share": mean([1.0 if e.regret > 0 else 0.0 for e in estimates]),
        "reward/voided": float(sum(o.voided is not None for o in outcomes)),
        "reward/agent_mean": mean([e.score for e in by_arm[Arm.NOHINT]]),
        "rollout/episodes": float(len(episodes)),
        "rollout/solve_rate_nohint": solve_rate([e.score for e in by_arm[Arm.NOHINT]]),
        "rollout/solve_rate_hint": solve_rate([e.score for e in by_arm[Arm.HINT]]),
        "rollout/turns_mean": mean([float(e.turns) for e in episodes]),
        "rollout/unboxed_rate": _ratio(sum(e.unboxed for e in episodes), sum(e.turns for e in episodes)),
        "rollout/env_error_rate": mean([1.0 if e.end is EndReason.ENV_ERROR else 0.0 for e in episodes]),
        "adv/agent_zero_variance_groups": float(sum(o.agent_zero_variance for o in valid)),
        **call_metrics(episodes),
        **form_metrics(designs, outcomes, episodes),
    }
    if designer_flat is not None:
        metrics.update({"reward/designer_mean": mean([o.reward for o in outcomes]),
                        "adv/designer_zero_variance_groups": float(len(designer_flat))})
    if designs:
        metrics.update(refusal_metrics(designs))
    left_out = (HINTED_METRICS if Arm.HINT not in arms.played else frozenset()) | \
        (frozenset(n for n in metrics if n.startswith("design/")) if not designs else frozenset())
    return {name: value for name, value in metrics.items() if name not in left_out}


REFUSED = "validate/refused/"
"""Stable metric prefix: design attempts each check refused in the iteration (``refusal_metrics``)."""


def refusal_metrics(designs: Sequence[Design], checks: Sequence[str] = CHECK_NAMES) -> dict[str, float]:
    """``validate/refused/<check>``: the iteration's design attempts each check refused (every check
    of the validator and the loop's ``novel``, 0 when it refused none).

    >>> from types import SimpleNamespace as N
    >>> refused = N(verdict=N(failure=N(name="key_from_text")))
    >>> design = N(attempts=[refused, refused, N(verdict=N(failure=None))])
    >>> refusal_metrics([design], ("key_from_text", "novel"))
    {'validate/refused/key_from_text': 2.0, 'validate/refused/novel': 0.0}
    """
    counts = dict.fromkeys(checks, 0.0)
    for design in designs:
        for attempt in design.attempts:
            if attempt.verdict.failure is not None:
                name = attempt.verdict.failure.name
                counts[name] = counts.get(name, 0.0) + 1.0
    return {REFUSED + name: count for name, count in counts.items()}


HINTED_METRICS = frozenset({"rollout/solve_rate_hint", "reward/regret_mean", "reward/regret_ci_width",
                            "reward/regret_positive_share"})
"""The iteration metrics that only the hinted arm's plays give (left out of a no-hint-only run's)."""


FORM_METRICS = ("design/valid_rate", "rollout/solve_rate_nohint", "rollout/solve_rate_hint",
                "reward/regret_mean")
"""The metrics also reported per design form, as ``<name>/<form>`` (e.g. ``design/valid_rate/tool``)."""


def form_metrics(
    designs: Sequence[Design], outcomes: Sequence[DesignOutcome], episodes: Sequence[Episode],
) -> dict[str, float]:
    """``FORM_METRICS`` over the designs of each form present (designs not asked for a form, such
    as a fixed pool's, count in none), computed as the iteration-wide ones are: the valid rate over
    the form's designs, solve rates over their episodes, the regret's mean over their valid ones.

    >>> from spadework.designer.design import DesignAttempt
    >>> from spadework.designer.prompts import DesignForm
    >>> from spadework.validate.verdict import CheckResult, Outcome, Verdict
    >>> ok = Verdict((CheckResult("parse", Outcome.PASSED, ""),), "none")
    >>> tool = Design("d", "doc", None, (DesignAttempt(1, (), "", "code", ok),), form=DesignForm.TOOL)
    >>> metrics = form_metrics([tool], [DesignOutcome("d", True, (0.0,), (1.0,), 1.0, 1.0)], [])
    >>> for name, value in metrics.items():
    ...     print(name, value)
    design/valid_rate/tool 1.0
    rollout/solve_rate_nohint/tool 0.0
    rollout/solve_rate_hint/tool 0.0
    reward/regret_mean/tool 1.0
    """
    metrics: dict[str, float] = {}
    for form in sorted({d.form for d in designs if d.form is not None}):
        mine = [(d, o) for d, o in zip(designs, outcomes, strict=True) if d.form is form]
        ids = {d.design_id for d, _ in mine}
        played = {arm: [e.score for e in episodes if e.arm is arm and e.env_id in ids] for arm in Arm}
        values = (mean([1.0 if d.valid else 0.0 for d, _ in mine]), solve_rate(played[Arm.NOHINT]),
                  solve_rate(played[Arm.HINT]), mean([o.regret for _, o in mine if o.valid]))
        metrics.update({f"{name}/{form.value}": value
                        for name, value in zip(FORM_METRICS, values, strict=True)})
    return metrics


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


ORIGIN = "run"
"""The origin of the loop's archive records: ``run:i<iteration>:<design id>:a<attempt>``."""


def first_observation(episode: Episode | None) -> str:
    """The first observation of a no-hint episode (its first user message), shortened."""
    if episode is None:
        return ""
    users = [m.content for m in episode.messages if m.role.value == "user"]
    return users[0][:300] if users else ""


def sample_transcript(episode: Episode) -> dict[str, Any]:
    """An episode as stored with its environment: everything but its timing."""
    data = episode.to_json()
    data.pop("seconds", None)
    return data


def archive_records(
    iteration: int, designs: Sequence[Design], outcomes: Sequence[DesignOutcome],
    episodes: Sequence[Episode], *, paid: bool = True, standings: Mapping[str, Standing] | None = None,
) -> list[EnvRecord]:
    """One record per attempt of every design; the final valid attempt carries the results, and
    its designer's reward once ``paid`` (a window that closes later updates it then), and its
    difficulty's standing (``standings``, by design id) where a controller holds one."""
    records = []
    for design, outcome in zip(designs, outcomes, strict=True):
        play = play_result(outcome, [e for e in episodes if e.env_id == design.design_id]) \
            if design.valid else None
        for attempt in design.attempts:
            final = attempt is design.final
            result = DesignResult(
                iteration=iteration, design_id=design.design_id, attempt=attempt.attempt,
                document_id=design.document_id, domain=design.domain, final=final,
                designer_reward=outcome.reward if final and paid else None,
                designer_advantage=outcome.advantage if final and paid else None,
                play=play if final else None, form=None if design.form is None else design.form.value,
                skill=design.skill, score=outcome.score if final and paid else None,
                difficulty=(standings or {}).get(design.design_id) if final else None,
            )
            source = attempt.code if attempt.code is not None else attempt.reply
            records.append(EnvRecord.new(source, attempt.verdict,
                                         f"{ORIGIN}:i{iteration}:{design.design_id}:a{attempt.attempt}",
                                         design=result))
    return records


def play_result(outcome: DesignOutcome, episodes: Sequence[Episode]) -> PlayResult:
    """What the plays of a valid design showed, as archived with its final attempt: scores, solve
    rates, regret with its interval, its first no-hint observation and one transcript per arm. Not
    played with the hint (``agent.arms = "nohint"``), its hinted solve rate and regret are NaN:
    not measured (the archive keeps NaN; the report shows it as unknown)."""
    samples = {arm.value: next((sample_transcript(e) for e in episodes if e.arm is arm), None)
               for arm in Arm}
    hinted = bool(outcome.scores_hint)
    return PlayResult(
        description=first_observation(next((e for e in episodes if e.arm is Arm.NOHINT), None)),
        scores_nohint=outcome.scores_nohint, scores_hint=outcome.scores_hint,
        solve_rate_nohint=solve_rate(outcome.scores_nohint),
        solve_rate_hint=solve_rate(outcome.scores_hint) if hinted else math.nan,
        regret=outcome.regret if hinted else math.nan, transcripts=samples, estimate=outcome.estimate,
        voided=outcome.voided,
    )
