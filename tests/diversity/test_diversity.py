"""Diversity: hand-checked measures on a small synthetic archive, the embedding cache, the loop's
metrics and collapse alarm, and the real sentence-embedding model."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

from spadework.archive import Archive, DesignResult, EnvRecord, PlayResult
from spadework.config import load_config
from spadework.diversity import (
    DiversitySettings,
    EmbedderKind,
    FakeEmbedder,
    HashingEmbedder,
    MiniLMEmbedder,
    make_embedder,
    run_diversity,
)
from spadework.diversity import embed as embed_module
from spadework.diversity.measure import cosine_distances, diversity_score, score_interval
from spadework.diversity.run import DiversityTracker
from spadework.engines import measure_run
from spadework.errors import UsageError
from spadework.eval.stats import Z95, wilson_interval
from spadework.run import run
from spadework.validate.verdict import CheckResult, Outcome, Verdict

# Each environment's description and code carry one key; the fake embedder maps keys to vectors,
# so an environment's vector is the unit mean of its two keys' vectors.
VECTORS = {"AAA": [1.0, 0.0, 0.0], "BBB": [0.0, 1.0, 0.0], "CCC": [0.0, 0.0, 1.0]}
SETTINGS = DiversitySettings(near_duplicate=0.05, cluster_distance=0.3, collapse_window=3)


def verdict(valid: bool = True) -> Verdict:
    outcome = Outcome.PASSED if valid else Outcome.FAILED
    return Verdict(checks=(CheckResult("loads", outcome),), isolation="none", class_name="KeyEnv",
                   hint="a hint")


def record(key: str, iteration: int, *, valid: bool = True, final: bool = True, regret: float = 0.5):
    play = PlayResult(f"play {key}", (), (), 0.0, 0.0, regret)
    design = DesignResult(iteration, f"i{iteration}-{key}", 1, None, "games", final, play=play)
    return EnvRecord.new(f"class KeyEnv:  # {key}\n    pass\n", verdict(valid), f"run:{key}", design=design)


def synthetic_archive(run_dir: Path) -> None:
    """Iteration 0: AAA, BBB (valid), CCC invalid; iteration 1: AAA again, and CCC as a
    non-final attempt; iteration 2: AAA twice more."""
    with Archive.open(run_dir) as archive:
        archive.commit_iteration(0, [record("AAA", 0), record("BBB", 0), record("CCC", 0, valid=False)],
                                 {}, {})
        archive.commit_iteration(1, [record("AAA", 1), record("CCC", 1, final=False)], {}, {})
        archive.commit_iteration(2, [record("AAA", 2), record("AAA", 2)], {}, {})


def test_run_diversity_on_a_synthetic_archive_matches_hand_computed_values(tmp_path: Path):
    synthetic_archive(tmp_path)
    measured = run_diversity(tmp_path, FakeEmbedder(VECTORS), SETTINGS)
    # only valid final designs count: AAA, BBB, AAA, AAA, AAA (CCC is invalid or not final)
    assert [p.class_name for p in measured.points] == ["KeyEnv"] * 5
    assert [p.iteration for p in measured.points] == [0, 0, 1, 2, 2]
    first = measured.per_iteration[0]  # AAA vs BBB: orthogonal, distance 1
    assert (first.count, first.score, first.near_duplicate_rate, first.clusters) == (2, 1.0, 0.0, 2)
    second = measured.per_iteration[1]  # pairs: A-B 1, A-A 0, B-A 1 -> mean 2/3; both A's are twins
    assert second.count == 3 and math.isclose(second.score, 2 / 3)
    assert math.isclose(second.near_duplicate_rate, 2 / 3) and second.clusters == 2
    overall = measured.overall  # 10 pairs: six A-A (0), four A-B (1) -> 0.4
    assert overall == measured.per_iteration[2]
    assert overall.count == 5 and math.isclose(overall.score, 0.4)
    assert math.isclose(overall.near_duplicate_rate, 4 / 5) and overall.clusters == 2
    # leaving B out scores 0, leaving an A out 3/6: jackknife variance 4/5 * (4 * 0.1**2 + 0.4**2) = 0.16
    assert np.allclose(measured.score_ci, (0.0, 0.4 + Z95 * 0.4))
    assert np.allclose(measured.near_duplicate_ci, wilson_interval(4, 5))
    assert measured.alarms == (2,)  # only after iteration 2 are the last three (A, A, A) one cluster
    assert [p.cluster for p in measured.points] == [0, 1, 0, 0, 0]
    assert [p.regret for p in measured.points] == [0.5] * 5
    assert measured.projection == "PCA"
    twins = [(p.x, p.y) for p in measured.points if p.cluster == 0]
    assert max(abs(a[0] - b[0]) + abs(a[1] - b[1]) for a in twins for b in twins) < 1e-9


def test_every_design_counts_invalid_final_attempts_but_not_replies_without_a_class(tmp_path: Path):
    synthetic_archive(tmp_path)
    no_code = Verdict(checks=(CheckResult("parse", Outcome.FAILED),), isolation="none")
    design = DesignResult(3, "i3-empty", 1, None, "games", True)
    empty = EnvRecord.new("no code here", no_code, "run:empty", design=design)
    with Archive.open(tmp_path, create=False) as archive:
        archive.commit_iteration(3, [empty], {}, {})
    measured = run_diversity(tmp_path, FakeEmbedder(VECTORS), SETTINGS, every_design=True)
    # AAA, BBB, CCC (invalid, final) in iteration 0, then AAA three times; CCC's retry is not final
    assert measured.overall.count == 6 and math.isclose(measured.overall.score, 9 / 15)
    assert measured.per_iteration[0].count == 3 and math.isclose(measured.per_iteration[0].score, 1.0)
    assert run_diversity(tmp_path, FakeEmbedder(VECTORS), SETTINGS).overall.count == 5  # valid only


def test_embeddings_are_cached_in_the_archive(tmp_path: Path):
    synthetic_archive(tmp_path)
    fake = FakeEmbedder(VECTORS)
    first = run_diversity(tmp_path, fake, SETTINGS)
    assert sum(fake.calls) == 4  # two descriptions and two codes are distinct texts
    again = FakeEmbedder({"AAA": [0.0, 0.0, 1.0]})  # would measure differently if it were asked
    again.name = fake.name
    assert run_diversity(tmp_path, again, SETTINGS) == first
    assert again.calls == []


def test_the_loop_logs_diversity_and_raises_the_collapse_alarm(tmp_path: Path):
    """A fixed pool of one environment: every design is the same, so the alarm rings once the
    window is full; the loop's figures equal the offline measurement of the same run."""
    pool = tmp_path / "pool"
    pool.mkdir()
    example = Path(__file__).parents[2] / "src/spadework/envs/examples/number_guess.py"
    (pool / "number_guess.py").write_text(example.read_text())
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 2,
                                "run.plays": 1, "sandbox.pool_size": 1, "designer.fixed_pool": str(pool),
                                "diversity.embedder": "hashing", "diversity.collapse_window": 3})
    run(config, tmp_path / "run")
    lines = [json.loads(line) for line in (tmp_path / "run/metrics.jsonl").read_text().splitlines()]
    assert [m["diversity/environments"] for m in lines] == [2.0, 4.0]
    assert [m["diversity/collapse"] for m in lines] == [0.0, 1.0]
    assert [m["diversity/clusters"] for m in lines] == [1.0, 1.0]
    assert lines[1]["diversity/near_duplicate_rate"] == 1.0
    offline = measure_run(tmp_path / "run")  # with the run's own [diversity] settings
    assert offline.alarms == (1,)
    assert run_diversity(tmp_path / "run").alarms == ()  # the default window (6) is not full
    assert [offline.per_iteration[i].score for i in (0, 1)] == [m["diversity/score"] for m in lines]


def test_tracker_counts_only_valid_final_designs(tmp_path: Path):
    synthetic_archive(tmp_path)
    tracker = DiversityTracker(FakeEmbedder(VECTORS), SETTINGS)
    with Archive.open(tmp_path, create=False) as archive:
        metrics = tracker.measure(archive, [record("BBB", 3), record("CCC", 3, valid=False)])
    assert metrics["diversity/environments"] == 6.0
    assert metrics["diversity/iteration_score"] == 0.0  # one new environment: no pair
    assert metrics["diversity/collapse"] == 0.0  # the last three: A, A, B


def test_hashing_embedder_is_deterministic_and_separates_games():
    texts = ["Guess the secret number between 1 and 50", "Guess the secret number between 1 and 90",
             "Decode a message whose letters were shifted"]
    rows = HashingEmbedder().embed(texts)
    assert np.allclose(rows, HashingEmbedder().embed(texts))
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0)
    distances = cosine_distances(rows)
    assert distances[0, 1] < 0.2 < distances[0, 2]


def test_auto_embedder_falls_back_to_hashing_with_a_note(monkeypatch):
    def missing():
        raise UsageError("the sentence-embedding model is not installed")

    monkeypatch.setattr(embed_module, "minilm_folder", missing)
    notes: list[str] = []
    assert isinstance(make_embedder(EmbedderKind.AUTO, warn=notes.append), HashingEmbedder)
    assert "not installed" in notes[0]
    with pytest.raises(UsageError, match="not installed"):
        make_embedder(EmbedderKind.MINILM)


def test_minilm_puts_a_rethemed_game_closer_than_another_game():
    from spadework.policy.scripted_families import design_caesar, design_guess

    codes = [design_guess("harbor", random.Random(1)), design_guess("violin", random.Random(1)),
             design_caesar("harbor", random.Random(1))]
    rows = MiniLMEmbedder().embed(codes)
    assert rows.shape == (3, 384)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    distances = cosine_distances(rows)
    assert distances[0, 1] < SETTINGS.near_duplicate * 3 < distances[0, 2]
    assert distances[0, 1] < DiversitySettings().cluster_distance < distances[0, 2]


def clustered_vectors(count: int, seed: int, dimension: int = 24) -> np.ndarray:
    """Unit vectors around a few centres, some almost equal (near-duplicates), some far apart."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(6, dimension))
    rows = centres[rng.integers(0, 6, count)] + rng.normal(size=(count, dimension)) * rng.choice(
        [0.02, 0.3, 1.5], size=(count, 1))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_the_score_interval_covers_the_population_score_about_as_often_as_it_says():
    """Sets of 30 environments drawn from 3,000: the 95% jackknife interval of each set's score
    holds the whole population's score in most draws (a standard error off by a factor would not)."""
    population = clustered_vectors(3000, seed=5)
    truth = diversity_score(population)
    rng = np.random.default_rng(6)
    draws = [population[rng.choice(3000, 30, replace=False)] for _ in range(200)]
    covered = [low <= truth <= high for low, high in map(score_interval, draws)]
    narrow = [score_interval(d, z=0.5) for d in draws]  # a 38% interval
    assert 0.88 <= np.mean(covered) <= 0.99
    assert np.mean([low <= truth <= high for low, high in narrow]) < 0.6


@pytest.mark.parametrize("exact_below", [20_000, 0])
def test_incremental_measures_agree_with_the_exact_ones(exact_below: int):
    """Batch by batch, the running-sum score equals the mean over all pairs (to 1e-12 on the rounded
    vectors, to 1e-7 against the exact measure, which renormalises them), and the
    near-duplicate rate, clusters and collapse alarm equal the exact measures', with exact
    nearest-neighbour queries and with usearch's HNSW (``exact_below=0``) alike."""
    from spadework.diversity.incremental import IncrementalDiversity, quantise
    from spadework.diversity.measure import collapsed, diversity_score, summarise

    settings = DiversitySettings(near_duplicate=0.05, cluster_distance=0.4, collapse_window=3)
    vectors = quantise(clustered_vectors(240, seed=3))
    state = IncrementalDiversity(settings, exact_below=exact_below)
    done = 0
    for size in [1, 5, 16, 2, 40, 8, 8, 60, 100]:
        batch = state.preview(vectors[done:done + size])
        state.apply(batch, list(range(done, done + size)))
        done += size
        exact = summarise(vectors[:done], near_duplicate=0.05, cluster_distance=0.4)
        metrics = batch.metrics
        assert metrics["diversity/environments"] == exact.count == done
        assert metrics["diversity/score"] == pytest.approx(exact.score, abs=1e-7)  # vectors rounded to 2**-24
        pairs = vectors[:done] @ vectors[:done].T
        mean_cosine = pairs[np.triu_indices(done, 1)].mean() if done > 1 else 1.0
        assert metrics["diversity/score"] == pytest.approx(1.0 - mean_cosine, abs=1e-12)  # the identity
        assert metrics["diversity/near_duplicate_rate"] == exact.near_duplicate_rate
        assert metrics["diversity/clusters"] == exact.clusters
        alarm = collapsed(vectors[:done], window=3, cluster_distance=0.4)
        assert metrics["diversity/collapse"] == float(alarm)
        expected = diversity_score(vectors[done - size:done]) if size > 1 else 0.0
        assert metrics["diversity/iteration_score"] == pytest.approx(expected, abs=1e-12)
    assert state.near.has_ann == (exact_below == 0)


def test_clusters_are_counted_in_the_recent_window():
    from spadework.diversity.incremental import IncrementalDiversity, quantise
    from spadework.diversity.measure import cluster_labels

    vectors = quantise(clustered_vectors(120, seed=4))
    state = IncrementalDiversity(DiversitySettings(cluster_window=50, cluster_distance=0.4))
    state.apply(state.preview(vectors[:100]), list(range(100)))
    batch = state.preview(vectors[100:])
    assert batch.metrics["diversity/clusters"] == len(set(cluster_labels(vectors[70:], 0.4)))


def test_running_sums_do_not_depend_on_the_order_of_addition():
    from spadework.diversity.incremental import RunningSums, quantise

    vectors = quantise(clustered_vectors(50, seed=5))
    one = RunningSums().add(vectors[:20]).add(vectors[20:])
    other = RunningSums().add(vectors[::-1][:7]).add(vectors[::-1][7:])
    assert one == other and one.score() == other.score()


def test_the_saved_neighbour_index_is_restored_caught_up_or_rebuilt_with_a_note(tmp_path: Path):
    from spadework.diversity.neighbours import NearIndex

    vectors = clustered_vectors(300, seed=6)
    path = tmp_path / "vectors.usearch"
    first = NearIndex(24, exact_below=0)
    first.add(np.arange(200), vectors[:200], np.zeros(200, bool))
    first.build()
    first.save(path)
    notes: list[str] = []
    later = NearIndex(24, exact_below=0)  # the archive has 100 more since the save
    later.add(np.arange(300), vectors, np.zeros(300, bool))
    later.build(path, notes.append)
    assert notes == [] and len(later._ann) == 300
    assert later.within(vectors[250], 1e-6).tolist() == [250]
    stale = NearIndex(24, exact_below=0)  # another archive: ids the file does not hold
    stale.add(np.arange(1000, 1100), vectors[:100], np.zeros(100, bool))
    stale.build(path, notes.append)
    assert len(notes) == 1 and "rebuilding it once" in notes[0] and len(stale._ann) == 100


def test_a_tracker_started_from_the_archive_measures_like_one_that_kept_going(tmp_path: Path):
    """The loop's diversity state is the archive's: a new tracker (a resumed run) reads the stored
    vectors and flags and gives the same metrics as the tracker that committed them."""
    fake = FakeEmbedder(VECTORS)
    going = DiversityTracker(fake, SETTINGS)
    with Archive.open(tmp_path) as archive:
        for iteration, keys in enumerate([["AAA", "BBB"], ["AAA"], ["CCC", "BBB"]]):
            records = [record(k, iteration) for k in keys]
            going.measure(archive, records, iteration)
            stored = archive.commit_iteration(iteration, records, {}, {}, vectors=going.update())
            going.committed(stored)
        following = [record("AAA", 3), record("CCC", 3)]
        assert DiversityTracker(fake, SETTINGS).measure(archive, following, 3) == \
            going.measure(archive, following, 3)
        assert archive.vector_counts(fake.name) == (5, 5, 4)  # A, A and B, B have a twin; C has none


def test_vectors_missing_from_the_archive_are_measured_once_with_a_note(tmp_path: Path):
    synthetic_archive(tmp_path)  # committed without vectors, as an older spadework left it
    notes: list[str] = []
    tracker = DiversityTracker(FakeEmbedder(VECTORS), SETTINGS, warn=notes.append)
    with Archive.open(tmp_path, create=False) as archive:
        metrics = tracker.measure(archive, [record("BBB", 3)], 3)
        assert len(notes) == 1 and "measuring 5 archived environments" in notes[0]
        assert metrics["diversity/environments"] == 6.0
        assert archive.unvectored(tracker.embedder.name) == []
        tracker.measure(archive, [record("BBB", 3)], 3)
    assert len(notes) == 1


def test_a_large_run_is_mapped_through_an_evenly_spaced_sample(tmp_path: Path, monkeypatch):
    monkeypatch.setattr("spadework.diversity.run.MAP_POINTS", 3)
    synthetic_archive(tmp_path)
    measured = run_diversity(tmp_path, FakeEmbedder(VECTORS), SETTINGS)
    assert measured.overall.count == 5 and len(measured.points) == 3  # the first, middle and last of five
    with Archive.open(tmp_path, create=False) as archive:
        ids = [s.id for s in archive.summaries("valid = 1 AND (iteration < 0 OR final = 1)")]
    assert [p.record_id for p in measured.points] == [ids[0], ids[2], ids[4]]
    assert measured.projection == "PCA" and [p.iteration for p in measured.points] == [0, 1, 2]


def test_the_report_reads_the_loops_logged_measures(tmp_path: Path):
    """``measure_run`` (the report's) takes the per-iteration figures the loop logged, when the loop
    stored every vector: it never measures the run again iteration by iteration."""
    fake = FakeEmbedder(VECTORS)
    tracker = DiversityTracker(fake, SETTINGS)
    with Archive.open(tmp_path) as archive:
        for iteration, keys in enumerate([["AAA", "BBB"], ["AAA", "AAA"]]):
            records = [record(k, iteration) for k in keys]
            row = {**tracker.measure(archive, records, iteration), "diversity/score": 0.123}
            stored = archive.commit_iteration(iteration, records, row, {}, vectors=tracker.update())
            tracker.committed(stored)
    logged = run_diversity(tmp_path, fake, SETTINGS, use_logged=True)
    assert [s.score for s in logged.per_iteration.values()] == [0.123, 0.123]  # as logged
    again = run_diversity(tmp_path, fake, SETTINGS)
    assert again.per_iteration[0].score == 1.0 and again.overall == logged.overall
