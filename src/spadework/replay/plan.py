"""One iteration's replay: which archived environments it plays again, on which seeds, and what
their new plays change (the agent's samples, the pooled regret, the archive's records).

A replay trains the agent like a new design's plays do (its no-hint episodes with advantages
within its own group of seeds) and earns the designer nothing: the design's reward belongs to the
iteration that designed it. Its paired differences are pooled with all earlier ones of the same
environment, so its regret estimate and interval sharpen with every replay.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from spadework.archive import EnvRecord, PlayResult, RecordUpdate
from spadework.outcomes import DesignOutcome, paired_scores, voided_outcome
from spadework.replay.levels import ReplayCandidates, ReplayLevel, fresh_seeds, replay_levels
from spadework.replay.priority import draw_distinct, replay_priorities
from spadework.replay.settings import ReplaySettings as ReplaySettings
from spadework.rewards import group_advantages, mean, regret_estimate, solve_rate
from spadework.rollout import Arm, Episode, PlayJob
from spadework.rollout.audit import void_reason


@dataclass(frozen=True)
class ReplayPlan:
    """The environments one iteration replays, each with its priority and fresh seeds.

    Attributes:
        iteration: the iteration that replays them.
        levels: the drawn environments, in drawn order.
        priorities: each one's replay probability when the draw began.
        seeds: each one's fresh paired seeds.
        candidates: how many environments could have been drawn.
        enabled: replay is on (``count`` > 0); off, the iteration reports nothing of it.
    """

    iteration: int
    levels: tuple[ReplayLevel, ...] = ()
    priorities: tuple[float, ...] = ()
    seeds: tuple[tuple[int, ...], ...] = ()
    candidates: int = 0
    enabled: bool = False

    def env_id(self, level: ReplayLevel) -> str:
        """The name of a replayed environment's episodes: ``i<iteration>-r<record id>``."""
        return f"i{self.iteration}-r{level.record_id}"

    @property
    def env_ids(self) -> frozenset[str]:
        """The episode names of every replayed environment."""
        return frozenset(self.env_id(level) for level in self.levels)

    def others(self, episodes: Sequence[Episode]) -> list[Episode]:
        """The episodes that are not the replays' (the new designs')."""
        ids = self.env_ids
        return [e for e in episodes if e.env_id not in ids]

    def jobs(self) -> list[PlayJob]:
        """Both arms of every replayed environment on each of its seeds."""
        return [PlayJob(self.env_id(level), level.source, seed, arm, difficulty=level.difficulty)
                for level, seeds in zip(self.levels, self.seeds, strict=True)
                for seed in seeds for arm in Arm]

    def result(self, episodes: Sequence[Episode], confidence: float) -> ReplayResult:
        """What the replays' episodes (among ``episodes``) showed, and each level's pooled plays."""
        outcomes, pooled = [], []
        for level in self.levels:
            own = [e for e in episodes if e.env_id == self.env_id(level)]
            outcome = replay_outcome(self.env_id(level), own, confidence)
            seeds = tuple(sorted(e.seed for e in own if e.arm is Arm.NOHINT))
            outcomes.append(outcome)
            pooled.append(pooled_play(level, outcome, seeds, self.iteration, confidence))
        ids = self.env_ids
        return ReplayResult(self, tuple(outcomes), tuple(pooled), sum(1 for e in episodes if e.env_id in ids))


@dataclass(frozen=True)
class ReplayResult:
    """An iteration's replays, played.

    Attributes:
        plan: what was replayed.
        outcomes: each replay's plays this iteration, as the agent's trainer reads them (designer
            reward and advantage 0: the designer earns nothing for a replay).
        pooled: each replayed environment's plays with this iteration's pooled in.
        episodes: how many episodes the replays played.
    """

    plan: ReplayPlan
    outcomes: tuple[DesignOutcome, ...] = ()
    pooled: tuple[PlayResult, ...] = ()
    episodes: int = 0

    def updates(self) -> dict[int, RecordUpdate]:
        """The archive's changes: each replayed record's plays, with this iteration's pooled in."""
        return {level.record_id: RecordUpdate(play=play) for level, play in zip(self.plan.levels, self.pooled,
                                                                                   strict=True)}

    def metrics(self, all_episodes: int) -> dict[str, float]:
        """``replay/...`` metrics; none when replay is off (``all_episodes``: the iteration's)."""
        plan = self.plan
        if not plan.enabled:
            return {}
        scores = {arm: [s for o in self.outcomes for s in (o.scores_nohint if arm is Arm.NOHINT
                                                            else o.scores_hint)] for arm in Arm}
        return {
            "replay/count": float(len(plan.levels)),
            "replay/candidates": float(plan.candidates),
            "replay/mean_priority": mean(plan.priorities),
            "replay/play_share": self.episodes / all_episodes if all_episodes else 0.0,
            "replay/staleness_mean": mean([float(plan.iteration - lv.last_played) for lv in plan.levels]),
            "replay/regret_mean": mean([play.regret for play in self.pooled]),
            "replay/solve_rate_nohint": solve_rate(scores[Arm.NOHINT]),
            "replay/solve_rate_hint": solve_rate(scores[Arm.HINT]),
        }


def plan_replay(candidates: ReplayCandidates, fetch: Callable[[int], EnvRecord], iteration: int,
                settings: ReplaySettings, *, run_seed: int, plays: int, draw_seed: int) -> ReplayPlan:
    """Draw the iteration's replays (nothing when ``count`` is 0).

    The distribution covers every candidate (``replay_candidates``: a few numbers each); only the
    drawn environments' records are read in full (``fetch``, e.g. ``Archive.get``).

    Args:
        candidates: the archive's replay candidates (``replay_candidates``), in archive order.
        fetch: a record by id.
        iteration: the iteration that replays.
        settings: ``[replay]``.
        run_seed: the run's seed (the designs' seeds, and the replays' fresh ones, follow from it).
        plays: paired seeds per replayed environment (``run.plays``).
        draw_seed: the seed of the draw (the iteration's).
    """
    if settings.count == 0:
        return ReplayPlan(iteration)
    priorities = replay_priorities(candidates.scores(settings.score), candidates.last_played, iteration,
                                   staleness=settings.staleness, temperature=settings.temperature)
    drawn = draw_distinct(priorities, settings.count, random.Random(draw_seed))
    levels = tuple(replay_levels([fetch(int(candidates.ids[i])) for i in drawn], iteration, run_seed))
    return ReplayPlan(iteration, levels, tuple(priorities[i] for i in drawn),
                      tuple(fresh_seeds(run_seed, iteration, level, plays) for level in levels),
                      len(candidates), enabled=True)


def replay_outcome(env_id: str, episodes: Sequence[Episode], confidence: float) -> DesignOutcome:
    """A replay's plays this iteration: scores, regret and the agent's advantages within the group
    (as for a new design), and no designer reward."""
    voided = void_reason(episodes)
    if voided is not None:
        return voided_outcome(env_id, episodes, voided, reward=0.0)
    nohint, hint = paired_scores(episodes)
    estimate = regret_estimate(hint, nohint, confidence) if nohint else None
    advantages, flat = group_advantages(nohint) if nohint else ([], False)
    return DesignOutcome(design_id=env_id, valid=True, scores_nohint=nohint, scores_hint=hint,
                         regret=estimate.regret if estimate is not None else 0.0, reward=0.0,
                         agent_advantages=tuple(advantages), agent_zero_variance=flat, estimate=estimate)


def pooled_play(level: ReplayLevel, outcome: DesignOutcome, seeds: tuple[int, ...], iteration: int,
                confidence: float) -> PlayResult:
    """``level``'s plays with a replay's pooled in: the scores appended (in seed order), the rates and
    the regret with its interval computed over every paired play, the seeds, and when it was played.

    >>> level = ReplayLevel(1, "", "i0-d0", 0, PlayResult("", (0.0, 0.0), (1.0, 0.0), 0.0, 0.0, 0.5), (3, 9))
    >>> again = DesignOutcome("i2-r1", True, (0.0, 1.0), (1.0, 1.0), 0.5, 0.0)
    >>> play = pooled_play(level, again, (4, 8), 2, 0.95)
    >>> play.scores_hint, play.regret, play.estimate.plays, play.seeds, play.last_played, play.replays
    ((1.0, 0.0, 1.0, 1.0), 0.5, 4, (3, 9, 4, 8), 2, 1)
    >>> play.estimate == regret_estimate(play.scores_hint, play.scores_nohint)
    True
    """
    if outcome.voided is not None:  # its plays are not pooled: the environment no longer counts
        return replace(level.play, regret=0.0, estimate=None, voided=outcome.voided, last_played=iteration,
                       replays=level.play.replays + 1)
    nohint = level.play.scores_nohint + outcome.scores_nohint
    hint = level.play.scores_hint + outcome.scores_hint
    estimate = regret_estimate(hint, nohint, confidence)
    return replace(level.play, scores_nohint=nohint, scores_hint=hint, solve_rate_nohint=solve_rate(nohint),
                   solve_rate_hint=solve_rate(hint), regret=estimate.regret, estimate=estimate,
                   seeds=level.seeds + seeds, last_played=iteration, replays=level.play.replays + 1)
