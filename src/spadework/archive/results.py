"""What a designed attempt earned, as typed records: the design's facts and, for the final valid
attempt, what the agent's paired plays showed.

The archive stores these as a record's ``metrics`` (JSON, and so do the JSONL and Parquet exports),
under stable names that runs have always written::

    iteration, design_id, attempt, document_id, domain, final,
    form                                                       # when the designer was asked for one
    skill                                                      # when the request named one
    designer_score                                             # the components, once its window closed
    designer_reward, designer_advantage                        # the final attempt only
    description, scores_nohint, scores_hint, solve_rate_nohint,
    solve_rate_hint, regret, transcripts                       # the final valid attempt only
    regret_low, regret_high, regret_ci, regret_plays           # with those, since regret has an interval
    voided                                                     # when a played episode failed its audit
    play_seeds, last_played, replays                           # once the loop has replayed it ([replay])

``DesignResult.to_metrics`` writes exactly these keys and ``DesignResult.from_metrics`` reads them
back, from old archives too; nothing else reads them by name. A later iteration changes some of them
in a stored record through a ``RecordUpdate`` (a replay's pooled play; a window's pay once it closes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

from spadework.difficulty import Standing
from spadework.rewards import DesignerScore, RegretEstimate


@dataclass(frozen=True)
class PlayResult:
    """What the agent's plays of a valid design showed (K paired seeds, without and with the hint).

    Attributes:
        description: the first observation of a no-hint play, shortened ("" when none was played).
        scores_nohint: the no-hint arm's score on each seed, in seed order.
        scores_hint: the hinted arm's scores on the same seeds.
        solve_rate_nohint: the share of no-hint plays solved.
        solve_rate_hint: the share of hinted plays solved.
        regret: the hint-based regret, ``max(0, mean(hint - nohint))``.
        transcripts: one sample episode per arm (``"nohint"``, ``"hint"``) as JSON, None for an arm
            that has none.
        estimate: the regret with its interval; None in archives written before it was kept.
        seeds: once replayed, the seed of every paired play, aligned with the scores; () before.
        last_played: once replayed, the last iteration that played it; None before (its design's).
        replays: how many iterations replayed it; the scores and the estimate pool all its plays.
        voided: why its played episodes could not pay regret (``rollout.audit``); None when they
            held up. A voided play's regret is 0 and it has no interval.
    """

    description: str
    scores_nohint: tuple[float, ...]
    scores_hint: tuple[float, ...]
    solve_rate_nohint: float
    solve_rate_hint: float
    regret: float
    transcripts: dict[str, Any] = field(default_factory=dict)
    estimate: RegretEstimate | None = None
    seeds: tuple[int, ...] = ()
    last_played: int | None = None
    replays: int = 0
    voided: str | None = None

    @property
    def regret_low(self) -> float | None:
        """The lower end of the regret's interval (clipped at 0); None without an interval."""
        return self.estimate.regret_low if self.estimate is not None else None

    @property
    def regret_high(self) -> float | None:
        """The upper end of the regret's interval (clipped at 0); None without an interval."""
        return self.estimate.regret_high if self.estimate is not None else None

    @property
    def regret_plays(self) -> int | None:
        """The paired plays the interval rests on; None without an interval."""
        return self.estimate.plays if self.estimate is not None else None

    def to_metrics(self) -> dict[str, Any]:
        """The play's archived keys; the interval's only when there is one.

        >>> play = PlayResult("Guess.", (0.0, 0.0), (1.0, 0.0), 0.0, 0.5, 0.5, {"nohint": None, "hint": None},
        ...                   RegretEstimate(2, 0.5, -0.4, 0.9))
        >>> m = play.to_metrics()
        >>> m["regret_low"], m["regret_high"], m["regret_plays"], m["regret_ci"]["low"]
        (0.0, 0.9, 2, -0.4)
        >>> m["scores_hint"], m["solve_rate_hint"], m["regret"]
        ([1.0, 0.0], 0.5, 0.5)
        >>> " ".join(sorted(PlayResult("", (), (), 0.0, 0.0, 0.0).to_metrics()))  # no interval: no regret_ci
        'description regret scores_hint scores_nohint solve_rate_hint solve_rate_nohint transcripts'
        >>> replayed = PlayResult("", (0.0,), (1.0,), 0.0, 1.0, 1.0, seeds=(7,), last_played=3, replays=1)
        >>> {k: v for k, v in replayed.to_metrics().items() if k in ("play_seeds", "last_played", "replays")}
        {'play_seeds': [7], 'last_played': 3, 'replays': 1}
        >>> PlayResult.from_metrics(replayed.to_metrics()) == replayed
        True
        """
        metrics: dict[str, Any] = {
            "description": self.description,
            "scores_nohint": list(self.scores_nohint),
            "scores_hint": list(self.scores_hint),
            "solve_rate_nohint": self.solve_rate_nohint,
            "solve_rate_hint": self.solve_rate_hint,
            "regret": self.regret,
            "transcripts": dict(self.transcripts),
        }
        if self.estimate is not None:
            metrics.update({"regret_low": self.estimate.regret_low, "regret_high": self.estimate.regret_high,
                            "regret_ci": self.estimate.to_json(), "regret_plays": self.estimate.plays})
        if self.replays:
            metrics.update({"play_seeds": list(self.seeds), "last_played": self.last_played,
                            "replays": self.replays})
        if self.voided is not None:
            metrics["voided"] = self.voided
        return metrics

    @classmethod
    def from_metrics(cls, metrics: dict[str, Any]) -> PlayResult | None:
        """The play in a record's metrics; None when it holds none (or not all of a play's keys).

        The interval is read from ``regret_ci``; None when that is missing (older archives).

        >>> PlayResult.from_metrics({"final": True, "designer_reward": -1.0}) is None
        True
        """
        scores_nohint = _scores(metrics.get("scores_nohint"))
        scores_hint = _scores(metrics.get("scores_hint"))
        rates = _number(metrics.get("solve_rate_nohint")), _number(metrics.get("solve_rate_hint"))
        regret = _number(metrics.get("regret"))
        description, transcripts = metrics.get("description"), metrics.get("transcripts")
        if (scores_nohint is None or scores_hint is None or rates[0] is None or rates[1] is None
                or regret is None or not isinstance(description, str) or not isinstance(transcripts, dict)):
            return None
        seeds, last, replays = metrics.get("play_seeds"), metrics.get("last_played"), metrics.get("replays")
        return cls(description, scores_nohint, scores_hint, rates[0], rates[1], regret, dict(transcripts),
                   _estimate(metrics.get("regret_ci")),
                   seeds=tuple(seeds) if isinstance(seeds, list) and all(map(_is_int, seeds)) else (),
                   last_played=last if _is_int(last) else None, replays=replays if _is_int(replays) else 0,
                   voided=metrics["voided"] if isinstance(metrics.get("voided"), str) else None)


@dataclass(frozen=True)
class DesignResult:
    """One attempt of a design as the loop archives it.

    Attributes:
        iteration: the loop iteration that designed it.
        design_id: the design's id within its iteration.
        attempt: the attempt's number, from 1.
        document_id: the corpus document the design reads (None for none).
        domain: the document's domain, when the corpus says.
        final: whether this is the design's last attempt (the one that was judged and played).
        designer_reward: the designer's reward; None on earlier attempts.
        designer_advantage: the designer's advantage; None on earlier attempts.
        play: what the plays showed; only on the final attempt of a valid design.
        form: the design form the designer was asked for (``answer``, ``game``, ``tool``); None when
            it was not asked for one (a fixed pool) or the record predates forms.
        skill: the skill the request named (``[designer] skills``); None when it named none.
        score: every component of the designer's reward over the design's window (regret,
            plateau, micro learning potential, blend); None until the window closed, or when the
            design was not played in both arms.
        difficulty: where the difficulty controller held it (``spadework.difficulty``), as its
            window left it; None without a controller. Replays play it at that level.
    """

    iteration: int
    design_id: str
    attempt: int
    document_id: str | None
    domain: str | None
    final: bool
    designer_reward: float | None = None
    designer_advantage: float | None = None
    play: PlayResult | None = None
    form: str | None = None
    skill: str | None = None
    score: DesignerScore | None = None
    difficulty: Standing | None = None

    def to_metrics(self) -> dict[str, Any]:
        """The attempt as a record's metrics, under the names every run has written.

        >>> attempt = DesignResult(3, "d1", 1, "doc", None, False)
        >>> attempt.to_metrics() == {"iteration": 3, "design_id": "d1", "attempt": 1,  # no reward, no play
        ...                          "document_id": "doc", "domain": None, "final": False}
        True
        >>> final = DesignResult(3, "d1", 2, "doc", "games", True, 0.5, 0.25,
        ...                      PlayResult("Guess.", (0.0,), (1.0,), 0.0, 1.0, 1.0, {"nohint": None}))
        >>> DesignResult.from_metrics(final.to_metrics()) == final
        True
        >>> DesignResult(3, "d1", 1, "doc", None, False, form="tool").to_metrics()["form"]
        'tool'
        >>> scored = DesignResult(3, "d1", 1, "doc", None, True, 0.9, 0.1, skill="Error_Recovery",
        ...                       score=DesignerScore(0.25, 0.0, 0.5, 1.0, 0.0, 0.0, 0.9, False))
        >>> DesignResult.from_metrics(scored.to_metrics()) == scored
        True
        """
        metrics: dict[str, Any] = {
            "iteration": self.iteration, "design_id": self.design_id, "attempt": self.attempt,
            "document_id": self.document_id, "domain": self.domain, "final": self.final,
        }
        if self.form is not None:
            metrics["form"] = self.form
        if self.skill is not None:
            metrics["skill"] = self.skill
        if self.score is not None:
            metrics["designer_score"] = self.score.to_json()
        if self.difficulty is not None:
            metrics["difficulty"] = self.difficulty.to_json()
        if self.designer_reward is not None or self.designer_advantage is not None:
            metrics.update({"designer_reward": self.designer_reward,
                            "designer_advantage": self.designer_advantage})
        if self.play is not None:
            metrics.update(self.play.to_metrics())
        return metrics

    @classmethod
    def from_metrics(cls, metrics: dict[str, Any]) -> DesignResult | None:
        """The designed attempt in a record's metrics, or None when the record is not one.

        A record is a designed attempt when its metrics name the design (``design_id``) with its
        iteration, attempt number and whether it is final; records added by
        ``spadework validate --run-dir`` have none of these. The other keys are optional: an
        earlier attempt has no reward and no play, and older archives no regret interval and no form.

        >>> DesignResult.from_metrics({}) is None, DesignResult.from_metrics({"regret": 0.5}) is None
        (True, True)
        >>> old = DesignResult.from_metrics({"iteration": 0, "design_id": "i0-d0", "attempt": 1,
        ...     "document_id": "doc", "domain": "maths", "final": True, "designer_reward": 0.5,
        ...     "designer_advantage": 0.1, "description": "Add.", "scores_nohint": [0, 1],
        ...     "scores_hint": [1, 1], "solve_rate_nohint": 0.5, "solve_rate_hint": 1.0, "regret": 0.5,
        ...     "transcripts": {}})
        >>> old.final, old.play.regret, old.play.scores_nohint, old.play.regret_low, old.form
        (True, 0.5, (0.0, 1.0), None, None)
        """
        design_id, iteration = metrics.get("design_id"), metrics.get("iteration")
        attempt, final = metrics.get("attempt"), metrics.get("final")
        if (not isinstance(design_id, str) or not _is_int(iteration) or not _is_int(attempt)
                or not isinstance(final, bool)):
            return None
        return cls(
            iteration=iteration, design_id=design_id, attempt=attempt,
            document_id=_text(metrics.get("document_id")), domain=_text(metrics.get("domain")), final=final,
            designer_reward=_number(metrics.get("designer_reward")),
            designer_advantage=_number(metrics.get("designer_advantage")),
            play=PlayResult.from_metrics(metrics), form=_text(metrics.get("form")),
            skill=_text(metrics.get("skill")), score=_score(metrics.get("designer_score")),
            difficulty=_standing(metrics.get("difficulty")),
        )


@dataclass(frozen=True)
class RecordUpdate:
    """What a later iteration changes in an archived design's metrics (``Archive.commit_iteration``
    merges ``to_metrics`` into the stored ones; other stored keys stay).

    Attributes:
        play: a replayed environment's plays with the replay's pooled in (``PlayResult.to_metrics``'s
            keys); None: the stored play stays.
        designer_reward: the designer's reward, when the design's window closes after the iteration
            that designed it; None: not paid by this update.
        designer_advantage: the designer's advantage; given with ``designer_reward``.
        score: the reward's components (``designer_score``), with the pay; None: none written.
        difficulty: where the controller left the design when its window closed; None: unchanged.

    Raises:
        ValueError: only one of ``designer_reward`` and ``designer_advantage`` is given, or a
            ``score`` without them.
    """

    play: PlayResult | None = None
    designer_reward: float | None = None
    designer_advantage: float | None = None
    score: DesignerScore | None = None
    difficulty: Standing | None = None

    def __post_init__(self) -> None:
        if (self.designer_reward is None) != (self.designer_advantage is None):
            raise ValueError("RecordUpdate: designer_reward and designer_advantage are paid together; "
                             "give both or neither")
        if self.score is not None and self.designer_reward is None:
            raise ValueError("RecordUpdate: a score comes with the designer's pay; give designer_reward "
                             "and designer_advantage with it")

    def to_metrics(self) -> dict[str, Any]:
        """The keys merged into the stored metrics: the play's, then the pay's (with its score).

        >>> RecordUpdate(designer_reward=0.5, designer_advantage=0.25).to_metrics()
        {'designer_reward': 0.5, 'designer_advantage': 0.25}
        >>> play = PlayResult("", (0.0,), (1.0,), 0.0, 1.0, 1.0, seeds=(7,), last_played=3, replays=1)
        >>> RecordUpdate(play).to_metrics() == play.to_metrics(), RecordUpdate().to_metrics()
        (True, {})
        """
        metrics = {} if self.play is None else self.play.to_metrics()
        if self.designer_reward is not None:
            metrics.update({"designer_reward": self.designer_reward,
                            "designer_advantage": self.designer_advantage})
            if self.score is not None:
                metrics["designer_score"] = self.score.to_json()
        if self.difficulty is not None:
            metrics["difficulty"] = self.difficulty.to_json()
        return metrics


def _standing(value: Any) -> Standing | None:
    """A stored ``difficulty``; None when absent or not whole.

    >>> _standing(Standing(2, 5).to_json()), _standing({"level": 2}), _standing(None)
    (Standing(level=2, top=5, recent=(), path=(), plays=0), None, None)
    """
    try:
        return Standing.from_json(value) if isinstance(value, dict) else None
    except (KeyError, TypeError, ValueError):
        return None


def _score(value: Any) -> DesignerScore | None:
    """A stored ``designer_score``; None when absent or not whole.

    >>> s = DesignerScore(0.25, 0.0, 0.5, 1.0, 0.0, 0.0, 0.9, False)
    >>> _score(s.to_json()) == s, _score({"regret": 1}), _score(None)
    (True, None, None)
    """
    try:
        return DesignerScore.from_json(value) if isinstance(value, dict) else None
    except (KeyError, TypeError, ValueError):
        return None


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> float | None:
    """A stored number as a float (NaN kept: the archive stores it); None for anything else.

    >>> _number(1), _number(0.5), _number(True), _number("1"), _number(None)
    (1.0, 0.5, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _scores(value: Any) -> tuple[float, ...] | None:
    """A stored list of scores; None unless it is a list of numbers.

    >>> _scores([1, 0.5]), _scores([1, "x"]), _scores(None)
    ((1.0, 0.5), None, None)
    """
    if not isinstance(value, list):
        return None
    scores = [_number(s) for s in value]
    return None if any(s is None for s in scores) else tuple(s for s in scores if s is not None)


def _estimate(value: Any) -> RegretEstimate | None:
    """The interval stored as ``regret_ci`` (``RegretEstimate.to_json``); None when missing or broken.

    >>> _estimate(RegretEstimate(2, 0.5, -0.4, 0.9).to_json())
    RegretEstimate(plays=2, mean_diff=0.5, low=-0.4, high=0.9, confidence=0.95)
    >>> _estimate({"plays": 2}) is None, _estimate(None) is None
    (True, True)
    """
    if not isinstance(value, dict) or not _is_int(value.get("plays")):
        return None
    numbers = [_number(value.get(key)) for key in ("mean_diff", "low", "high", "confidence")]
    mean_diff, low, high, confidence = numbers
    if mean_diff is None or low is None or high is None or confidence is None:
        return None
    return RegretEstimate(value["plays"], mean_diff, low, high, confidence)
