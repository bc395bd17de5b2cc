"""The archived environments an iteration may replay, their scores, and fresh seeds to play them on."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from spadework.archive import EnvRecord, PlayResult, ReplayRow
from spadework.outcomes import design_index, play_seeds
from spadework.replay.priority import ReplayScore, positive_advantage


@dataclass(frozen=True)
class ReplayLevel:
    """An archived environment that can be played again (PLR's "level").

    Attributes:
        record_id: the archive record of the design's final, valid attempt.
        source: the environment's code.
        design_id: the design it is (``i<iteration>-d<index>``).
        designed_in: the iteration that designed it.
        play: its plays so far: the design's, with every replay's pooled in.
        seeds: the seed of each paired play so far, aligned with ``play``'s scores.
        difficulty: the level its window's controller left it at, which its replays play (where
            the agent was held, so its pooled regret joins the window's first level to this one);
            None: its own.
    """

    record_id: int
    source: str
    design_id: str
    designed_in: int
    play: PlayResult
    seeds: tuple[int, ...]
    difficulty: int | None = None

    @property
    def last_played(self) -> int:
        """The last iteration that played it: its last replay's, or the one that designed it."""
        return self.play.last_played if self.play.last_played is not None else self.designed_in

    def score(self, mode: ReplayScore) -> float:
        """Its replay score under ``mode`` (higher: replayed more)."""
        return _SCORES[mode](self.play)


_SCORES: dict[ReplayScore, Callable[[PlayResult], float]] = {
    ReplayScore.REGRET: lambda play: play.regret,
    ReplayScore.ADVANTAGE: lambda play: positive_advantage(play.scores_nohint),
}


@dataclass(frozen=True)
class ReplayCandidates:
    """What the replay distribution needs of every archived environment that can be replayed, as
    arrays read from the archive's summaries (never a source or a transcript: the full record is
    read only once it is drawn).

    Attributes:
        ids: each candidate's archive record, in archive order.
        regrets: its current regret (NaN when unknown).
        last_played: the last iteration that played it.
        scores_nohint: its no-hint scores as stored (JSON), parsed only to rank by advantage.
    """

    ids: npt.NDArray[np.int64]
    regrets: npt.NDArray[np.float64]
    last_played: npt.NDArray[np.int64]
    scores_nohint: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, mode: ReplayScore) -> list[float]:
        """Each candidate's replay score under ``mode`` (the same as its level's)."""
        if mode is ReplayScore.REGRET:
            return self.regrets.tolist()
        return [positive_advantage(json.loads(scores)) for scores in self.scores_nohint]


def replay_candidates(rows: Iterable[ReplayRow], iteration: int) -> ReplayCandidates:
    """The candidates ``replay_levels`` would make of the same records, from their summaries
    (``Archive.replay_rows``: final, valid, played designs of earlier iterations), in archive order.

    >>> from spadework.archive import DesignResult, EnvSummary
    >>> from spadework.validate.verdict import CheckResult, Outcome, Verdict
    >>> ok = Verdict((CheckResult("load", Outcome.PASSED),), "none")
    >>> play = PlayResult("", (0.0,), (1.0,), 0.0, 1.0, 1.0)
    >>> design = DesignResult(0, "i0-d1", 1, None, None, True, play=play)
    >>> s = EnvSummary.of(EnvRecord(4, "x = 1", ok, "run", "t", "h", design.to_metrics()))
    >>> row = ReplayRow(s.id, s.design_id, s.iteration, s.regret, s.last_played, "[0.0]")
    >>> found = replay_candidates([row], 2)
    >>> found.ids.tolist(), found.regrets.tolist(), found.last_played.tolist()
    ([4], [1.0], [0])
    >>> len(replay_candidates([row], 0))  # only earlier iterations' designs
    0
    """
    kept = [r for r in rows if 0 <= r.iteration < iteration and design_index(r.design_id) is not None]
    regrets = np.array([r.regret for r in kept], dtype=np.float64)  # None becomes NaN
    last = np.array([r.iteration if r.last_played is None else r.last_played for r in kept], dtype=np.int64)
    return ReplayCandidates(np.array([r.id for r in kept], dtype=np.int64), regrets, last,
                            tuple(r.scores_nohint for r in kept))


def replay_levels(records: Iterable[EnvRecord], iteration: int, run_seed: int) -> list[ReplayLevel]:
    """The replay candidates among ``records``, in archive order: the final, valid, played attempts
    of designs of earlier iterations than ``iteration`` (never the iteration's own).

    Args:
        records: the run's archived records (the run's own designs; other records are skipped).
        iteration: the iteration that replays.
        run_seed: the run's seed, which fixed the designs' own play seeds.
    """
    levels = []
    for record in records:
        design = record.design
        if (record.id is None or not record.valid or design is None or not design.final
                or design.play is None or design.iteration >= iteration):
            continue
        plays = len(design.play.scores_nohint)
        seeds = design.play.seeds or designed_seeds(run_seed, design.design_id, plays)
        if seeds is None:
            continue
        levels.append(ReplayLevel(record.id, record.source, design.design_id, design.iteration, design.play,
                                  seeds, design.difficulty.level if design.difficulty is not None else None))
    return levels


def designed_seeds(run_seed: int, design_id: str, plays: int) -> tuple[int, ...] | None:
    """The seeds a design was played on when it was designed, in the order its scores are stored
    (seed order); None for an id the loop did not make.

    >>> designed_seeds(0, "i1-d2", 2) == tuple(sorted(play_seeds(0, 1, 2, 2)))
    True
    >>> designed_seeds(0, "pool-3", 2) is None
    True
    """
    place = design_index(design_id)
    return None if place is None else tuple(sorted(play_seeds(run_seed, place[0], place[1], plays)))


def fresh_seeds(run_seed: int, iteration: int, level: ReplayLevel, plays: int) -> tuple[int, ...]:
    """``plays`` seeds, in order, for replaying ``level`` in ``iteration``: none it was played on
    before. Hashed like ``play_seeds`` under a ``replay/`` prefix, so no design's own seeds are
    reused either, and any that an earlier play used is skipped.

    >>> level = ReplayLevel(5, "", "i0-d0", 0, PlayResult("", (), (), 0.0, 0.0, 0.0), ())
    >>> first = fresh_seeds(0, 2, level, 2)
    >>> len(set(first)), first == fresh_seeds(0, 2, level, 2), first == fresh_seeds(0, 3, level, 2)
    (2, True, False)
    >>> again = ReplayLevel(5, "", "i0-d0", 0, PlayResult("", (), (), 0.0, 0.0, 0.0), first[:1])
    >>> first[0] in fresh_seeds(0, 2, again, 2)
    False
    """
    seeds: list[int] = []
    used = set(level.seeds)
    k = 0
    while len(seeds) < plays:
        text = f"replay/{run_seed}/{iteration}/{level.record_id}/{k}"
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big") % 2**31
        if seed not in used:
            used.add(seed)
            seeds.append(seed)
        k += 1
    return tuple(seeds)
