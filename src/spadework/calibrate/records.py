"""Records of a calibration: the kinds of environment, what the validator said, what each scored."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from spadework.calibrate.climb import Climb
from spadework.calibrate.stats import PairedScores, RankCorrelation, Separation, rank_correlation, separation
from spadework.rewards import (
    REFERENCE_BLEND,
    BlendSettings,
    DesignerReward,
    DesignerScore,
    designer_score,
    in_band,
    mean,
)

WINDOWLESS = (DesignerReward.REGRET, DesignerReward.REGRET_LCB, DesignerReward.PLATEAU, DesignerReward.BLEND)
"""The designer rewards a calibration can rank: those that need no window of agent updates (its plays
are one step, so learning potential is 0 and the blend has none of it)."""


class Kind(StrEnum):
    """What an environment is known to be, from its file name's prefix (``easy_add.py``: easy).

    EASY: solved without the hint by a small model; its regret should be about 0.
    FRONTIER: solved reliably only with the method its hint gives; its regret should be high.
    IMPOSSIBLE: beyond anyone without a computer, hint or not; its regret should be about 0.
    LEAKING: a hint that gives the answer away, or a puzzle that does not decide it; the validator
        must reject it.
    UNRANKED: no known prefix; played and reported, not ranked.
    """

    EASY = "easy"
    FRONTIER = "frontier"
    IMPOSSIBLE = "impossible"
    LEAKING = "leaking"
    UNRANKED = "unranked"

    @classmethod
    def of_path(cls, path: Path) -> Kind:
        """The kind a file's name announces.

        >>> Kind.of_path(Path("envs/frontier_sequence.py")), Kind.of_path(Path("mine.py"))
        (<Kind.FRONTIER: 'frontier'>, <Kind.UNRANKED: 'unranked'>)
        >>> Kind.of_path(Path("unranked_x.py")), Kind.of_path(Path("easy.py"))
        (<Kind.UNRANKED: 'unranked'>, <Kind.UNRANKED: 'unranked'>)
        """
        prefix, underscore, _ = path.name.partition("_")
        known = {k.value: k for k in cls if k is not cls.UNRANKED}
        return known.get(prefix, cls.UNRANKED) if underscore else cls.UNRANKED

    @property
    def expected(self) -> float | None:
        """The regret this kind should earn in the expected order (None: not ranked).

        >>> Kind.FRONTIER.expected, Kind.IMPOSSIBLE.expected, Kind.LEAKING.expected
        (1.0, 0.0, None)
        """
        return EXPECTED_SCORE.get(self)


EXPECTED_SCORE = {Kind.FRONTIER: 1.0, Kind.EASY: 0.0, Kind.IMPOSSIBLE: 0.0}
"""The expected order regret should follow: frontier above easy and impossible."""


class Screening(StrEnum):
    """The validator's verdict read against the file's kind.

    VALID: a non-leaking file accepted; played.
    REJECTED: a non-leaking file rejected; not played (the file needs fixing).
    LEAK_CAUGHT: a leaking file rejected, as it must be: a pass for the validator.
    LEAK_MISSED: a leaking file accepted: a hole in the validator, flagged; played, not ranked.
    """

    VALID = "valid"
    REJECTED = "rejected"
    LEAK_CAUGHT = "leak caught"
    LEAK_MISSED = "LEAK MISSED"

    @classmethod
    def of(cls, kind: Kind, valid: bool) -> Screening:
        """What a verdict (valid or not) means for a file of ``kind``.

        >>> Screening.of(Kind.LEAKING, True), Screening.of(Kind.EASY, False)
        (<Screening.LEAK_MISSED: 'LEAK MISSED'>, <Screening.REJECTED: 'rejected'>)
        """
        if kind is Kind.LEAKING:
            return cls.LEAK_MISSED if valid else cls.LEAK_CAUGHT
        return cls.VALID if valid else cls.REJECTED

    @property
    def played(self) -> bool:
        """Whether the validator accepted the file, so the agent plays it."""
        return self in (Screening.VALID, Screening.LEAK_MISSED)


@dataclass(frozen=True)
class EnvResult:
    """One calibration file: its kind, its verdict, and its plays when it was valid.

    Attributes:
        path: the file.
        kind: from its name.
        screening: the verdict read against the kind.
        reason: the verdict in one line (``valid``, or the first failed check and its message).
        failed_check: the first failed check's name, when rejected.
        scores: the paired plays, when played.
        env_errors: episodes in which the environment failed while played (scored 0).
        chance: the share of episodes a blind guess wins (``Verdict.chance``; 0 when not valid).
        voided: why its played episodes failed their audit (``rollout.audit.void_reason``): the loop
            would pay it no regret, so neither does the calibration (None: they held up).
        calls: in a tool world, the share of replies with a call and with a valid one, over both arms
            and per arm (``rollout.calls.call_metrics``, without the ``rollout/`` prefix); else empty.
        difficulties: the difficulties its verdict validated (``Verdict.difficulties``).
        climb: how the difficulty controller moved it before its paired plays; None: no controller.
    """

    path: Path
    kind: Kind
    screening: Screening
    reason: str
    failed_check: str | None = None
    scores: PairedScores | None = None
    env_errors: int = 0
    chance: float = 0.0
    calls: Mapping[str, float] = field(default_factory=dict)
    voided: str | None = None
    difficulties: int = 1
    climb: Climb | None = None

    def in_band(self, blend: BlendSettings = REFERENCE_BLEND) -> bool | None:
        """Whether its paired plays' no-hint win rate lies in the band; None when not played or voided."""
        if self.scores is None or self.voided is not None:
            return None
        return in_band(self.scores.solve_rate(hinted=False), blend)

    @property
    def name(self) -> str:
        """The environment file's name."""
        return self.path.name

    @property
    def ranked(self) -> bool:
        """Whether it counts in the rank correlation: played, its plays not voided by the audit, of a
        kind with an expected score."""
        return self.scores is not None and self.voided is None and self.kind.expected is not None

    def score(self, blend: BlendSettings = REFERENCE_BLEND) -> DesignerScore | None:
        """Every designer-reward component of its plays as one step; None when not played, or when
        the audit voided its plays (the loop pays such a design no regret)."""
        if self.scores is None or self.voided is not None:
            return None
        return designer_score(self.scores.estimate(), [self.scores.nohint], blend, self.chance)

    def to_json(self, blend: BlendSettings = REFERENCE_BLEND) -> dict[str, Any]:
        """The result as JSON: its screening and, when played, its scores, rates and rewards."""
        data: dict[str, Any] = {"name": self.name, "path": str(self.path), "kind": self.kind.value,
                                "expected": self.kind.expected, "screening": self.screening.value,
                                "valid": self.screening.played, "reason": self.reason,
                                "failed_check": self.failed_check, "scores": None,
                                "env_errors": self.env_errors, "chance": self.chance,
                                "calls": dict(self.calls), "voided": self.voided,
                                "difficulties": self.difficulties, "in_band": self.in_band(blend),
                                "climb": None if self.climb is None else self.climb.to_json()}
        if self.scores is None:
            return data
        data.update(scores=self.scores.to_json(), solve_rate_nohint=self.scores.solve_rate(hinted=False),
                    solve_rate_hint=self.scores.solve_rate(hinted=True))
        if self.voided is not None:  # the loop pays a voided design no regret
            data.update(regret=0.0, regret_low=0.0, regret_high=0.0, estimate=None, designer_score=None)
            return data
        estimate = self.scores.estimate()
        score = designer_score(estimate, [self.scores.nohint], blend, self.chance)
        data.update(regret=estimate.regret, regret_low=estimate.regret_low, regret_high=estimate.regret_high,
                    estimate=estimate.to_json(), designer_score=score.to_json())
        return data


@dataclass(frozen=True)
class Calibration:
    """A whole calibration: every file's result, the seeds played and the sandbox's isolation."""

    results: tuple[EnvResult, ...]
    seeds: tuple[int, ...]
    isolation: str
    blend: BlendSettings = REFERENCE_BLEND
    """The blend's settings (the config's ``[rewards.blend]``) the reward variants are scored with."""
    calls: Mapping[str, float] = field(default_factory=dict)
    """The tool worlds' call rates over every episode (``EnvResult.calls``'s names); empty without any."""

    def of_kind(self, kind: Kind) -> tuple[PairedScores, ...]:
        """The plays of the played environments of one kind."""
        return tuple(r.scores for r in self.results if r.kind is kind and r.scores is not None)

    def correlation(self, variant: DesignerReward = DesignerReward.REGRET) -> RankCorrelation:
        """Spearman's rho of the ranked environments' designer rewards (regret unless ``variant`` says
        otherwise) against the expected order."""
        pairs = [(r.kind.expected, score.reward(variant)) for r in self.results
                 if r.ranked and r.kind.expected is not None and (score := r.score(self.blend)) is not None]
        return rank_correlation([expected for expected, _ in pairs], [reward for _, reward in pairs])

    def correlations(self) -> dict[DesignerReward, RankCorrelation]:
        """``correlation`` of every reward a calibration can rank (``WINDOWLESS``)."""
        return {variant: self.correlation(variant) for variant in WINDOWLESS}

    def separation(self) -> Separation:
        """When the pooled frontier and easy regrets separate at 95%."""
        return separation(self.of_kind(Kind.FRONTIER), self.of_kind(Kind.EASY))

    @classmethod
    def from_report(cls, report: dict[str, Any], blend: BlendSettings = REFERENCE_BLEND) -> Calibration:
        """The calibration a report (``calibrate.report.report_json``) was written from, its rewards
        scored with ``blend``: so any report, old ones included, can be ranked by every reward."""
        results = tuple(EnvResult(
            Path(env["path"]), Kind(env["kind"]), Screening(env["screening"]), env["reason"],
            env["failed_check"],
            None if env["scores"] is None else PairedScores(tuple(env["scores"]["hint"]),
                                                             tuple(env["scores"]["nohint"])),
            int(env.get("env_errors", 0)), float(env.get("chance", 0.0)), dict(env.get("calls", {})),
            env.get("voided"))
            for env in report["environments"])
        return cls(results, tuple(report["seeds"]), report["isolation"], blend,
                   dict(report.get("summary", {}).get("calls", {})))

    def with_screening(self, screening: Screening) -> tuple[EnvResult, ...]:
        """The results of the given screening, in order."""
        return tuple(r for r in self.results if r.screening is screening)

    def summary_json(self) -> dict[str, Any]:
        """The calibration's findings as JSON: rank correlations, separation, leaks caught and missed."""
        return {
            "ranked": sum(1 for r in self.results if r.ranked),
            "spearman": self.correlation().to_json(),
            "rewards": {variant.value: rho.to_json() for variant, rho in self.correlations().items()},
            "separation": self.separation().to_json(),
            "leaks_caught": [r.name for r in self.with_screening(Screening.LEAK_CAUGHT)],
            "leaks_missed": [r.name for r in self.with_screening(Screening.LEAK_MISSED)],
            "rejected": [r.name for r in self.with_screening(Screening.REJECTED)],
            "calls": dict(self.calls),
            "in_band_share": mean([1.0 if band else 0.0 for r in self.results
                                   if (band := r.in_band(self.blend)) is not None]),
            "plays_to_band": [r.climb.plays_to_band for r in self.results if r.climb is not None],
        }
