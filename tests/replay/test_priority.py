"""Replay priorities (PLR): hand-computed values, and draws that favour high scores and stale levels."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from spadework.archive import EnvRecord, PlayResult
from spadework.archive.results import DesignResult
from spadework.outcomes import play_seeds
from spadework.replay import (
    ReplayLevel,
    ReplayScore,
    draw_distinct,
    fresh_seeds,
    positive_advantage,
    replay_levels,
    replay_priorities,
)
from spadework.replay.priority import rank_priorities, score_ranks, staleness_priorities
from spadework.validate.verdict import CheckResult, Outcome, Verdict

DRAWS = 4000


def test_rank_priority_by_hand():
    # scores 0.9, 0.1, 0.5 rank 1, 3, 2; beta 0.5: (1/rank)^2 = 1, 1/9, 1/4 over 49/36
    assert rank_priorities([0.9, 0.1, 0.5], 0.5) == pytest.approx([36 / 49, 4 / 49, 9 / 49])


def test_mixture_by_hand():
    # P_S as above; ages 1, 4, 3 -> P_C = 1/8, 4/8, 3/8; rho 0.25
    priorities = replay_priorities([0.9, 0.1, 0.5], [5, 2, 3], 6, staleness=0.25, temperature=0.5)
    expected = [0.75 * s + 0.25 * c for s, c in zip([36 / 49, 4 / 49, 9 / 49], [1 / 8, 4 / 8, 3 / 8],
                                                    strict=True)]
    assert priorities == pytest.approx(expected)
    assert sum(priorities) == pytest.approx(1.0)


def test_rho_zero_ignores_staleness_and_rho_one_ignores_scores():
    scores, last = [1.0, 0.0], [9, 0]
    by_score = replay_priorities(scores, last, 10, staleness=0.0, temperature=1.0)
    by_age = replay_priorities(scores, last, 10, staleness=1.0, temperature=1.0)
    assert by_score == rank_priorities(scores, 1.0) and by_age == staleness_priorities(last, 10)


def drawn_counts(priorities: list[float], count: int = 1) -> Counter[int]:
    rng = random.Random(11)
    return Counter(i for _ in range(DRAWS) for i in draw_distinct(priorities, count, rng))


def test_high_regret_levels_are_drawn_more_often():
    # same age, regret 0.8 > 0.3 > 0: drawn in that order of frequency, close to their priorities
    priorities = replay_priorities([0.3, 0.0, 0.8], [2, 2, 2], 4, staleness=0.3, temperature=0.3)
    counts = drawn_counts(priorities)
    assert counts[2] > counts[0] > counts[1]
    for index, priority in enumerate(priorities):
        assert counts[index] / DRAWS == pytest.approx(priority, abs=0.03)


def test_stale_levels_are_drawn_more_often():
    # equal regret: only the staleness term tells them apart (played 1, 3 and 6 iterations ago)
    priorities = replay_priorities([0.5, 0.5, 0.5], [5, 3, 0], 6, staleness=0.3, temperature=0.3)
    counts = drawn_counts(priorities)
    assert counts[2] > counts[1] > counts[0]


def test_draws_are_distinct_and_repeatable():
    priorities = [0.7, 0.1, 0.1, 0.1]
    for seed in range(50):
        drawn = draw_distinct(priorities, 3, random.Random(seed))
        assert len(drawn) == len(set(drawn)) == 3
        assert drawn == draw_distinct(priorities, 3, random.Random(seed))
    assert len(draw_distinct(priorities, 9, random.Random(0))) == 4
    assert draw_distinct([], 2, random.Random(0)) == []


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="temperature must be above 0"):
        rank_priorities([1.0], 0.0)
    with pytest.raises(ValueError, match="staleness must be in"):
        replay_priorities([1.0], [0], 1, staleness=1.5, temperature=0.3)


def test_advantage_score_peaks_at_half_solved():
    assert positive_advantage([1, 1, 0, 0]) == 0.25 > positive_advantage([1, 0, 0, 0]) == 3 / 16
    assert positive_advantage([0, 0, 0, 0]) == positive_advantage([1, 1, 1, 1]) == 0.0


def record(rid: int, iteration: int, index: int, *, valid: bool = True, final: bool = True,
           play: PlayResult | None = None) -> EnvRecord:
    checks = (CheckResult("parse", Outcome.PASSED if valid else Outcome.FAILED, ""),)
    play = play or PlayResult("", (0.0, 1.0), (1.0, 1.0), 0.5, 1.0, 0.5) if valid and final else None
    design = DesignResult(iteration, f"i{iteration}-d{index}", 1, None, None, final, 0.5, 0.0, play)
    new = EnvRecord.new(f"x = {rid}", Verdict(checks, "none"), f"o{rid}", design=design)
    return replace(new, id=rid)


def test_candidates_are_final_valid_designs_of_earlier_iterations():
    records = [record(1, 0, 0), record(2, 0, 1, valid=False), record(3, 1, 0, final=False),
               record(4, 1, 1), record(5, 2, 0)]
    levels = replay_levels(records, 2, run_seed=7)
    assert [level.record_id for level in levels] == [1, 4]  # not invalid, not earlier attempts, not i2
    assert levels[1].seeds == tuple(sorted(play_seeds(7, 1, 1, 2)))  # the design's own play seeds
    assert levels[1].last_played == 1


def test_a_replayed_level_keeps_its_pooled_seeds_and_last_play():
    play = PlayResult("", (0.0, 1.0, 0.0), (1.0, 1.0, 1.0), 1 / 3, 1.0, 2 / 3, seeds=(4, 5, 6), last_played=3,
                      replays=1)
    (level,) = replay_levels([record(1, 0, 0, play=play)], 5, run_seed=0)
    assert level.seeds == (4, 5, 6) and level.last_played == 3
    assert level.score(ReplayScore.REGRET) == 2 / 3
    assert level.score(ReplayScore.ADVANTAGE) == pytest.approx(positive_advantage([0.0, 1.0, 0.0]))
    assert not set(fresh_seeds(0, 5, level, 8)) & set(level.seeds)


def test_fresh_seeds_skip_every_seed_played_before():
    level = ReplayLevel(1, "", "i0-d0", 0, PlayResult("", (), (), 0.0, 0.0, 0.0), ())
    taken = fresh_seeds(0, 4, level, 3)
    again = ReplayLevel(1, "", "i0-d0", 0, PlayResult("", (), (), 0.0, 0.0, 0.0), taken[:2])
    assert fresh_seeds(0, 4, again, 3)[0] == taken[2]  # the first two are skipped


def test_candidates_read_from_the_archive_are_the_levels_of_the_records(tmp_path):
    """The loop ranks replay candidates from the archive's summaries (a few numbers each) and reads
    only the drawn records; the candidates are exactly the levels the records would give."""
    from spadework.archive import Archive
    from spadework.replay import replay_candidates

    replayed = PlayResult("", (0.0, 1.0, 0.0), (1.0, 1.0, 1.0), 1 / 3, 1.0, 2 / 3, seeds=(4, 5, 6),
                          last_played=3, replays=1)
    made = [record(1, 0, 0), record(2, 0, 1, valid=False), record(3, 1, 0, final=False),
            record(4, 1, 1, play=replayed), record(5, 2, 0), record(6, 4, 0)]
    with Archive.open(tmp_path) as archive:
        archive.commit_iteration(0, [replace(r, id=None) for r in made], {}, {})
        candidates = replay_candidates(archive.replay_rows(4, scores=True), 4)
        records = list(archive.records())
    levels = replay_levels(records, 4, run_seed=7)
    assert candidates.ids.tolist() == [level.record_id for level in levels] == [1, 4, 5]
    assert candidates.last_played.tolist() == [level.last_played for level in levels]
    for mode in ReplayScore:
        assert candidates.scores(mode) == [level.score(mode) for level in levels]


def test_ranks_are_counted_by_sorting_as_by_comparing_every_pair():
    rng = random.Random(5)
    scores = [rng.choice([0.0, 0.25, 0.5, 1.0, float("nan")]) for _ in range(300)]
    naive = [1 + sum(1 for other in scores if other > score) for score in scores]
    assert score_ranks(scores) == naive
