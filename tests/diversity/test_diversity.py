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
from spadework.diversity.measure import cosine_distances
from spadework.diversity.run import DiversityTracker
from spadework.engines import measure_run
from spadework.errors import UsageError
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
    assert measured.alarms == (2,)  # only after iteration 2 are the last three (A, A, A) one cluster
    assert [p.cluster for p in measured.points] == [0, 1, 0, 0, 0]
    assert [p.regret for p in measured.points] == [0.5] * 5
    assert measured.projection == "PCA"
    twins = [(p.x, p.y) for p in measured.points if p.cluster == 0]
    assert max(abs(a[0] - b[0]) + abs(a[1] - b[1]) for a in twins for b in twins) < 1e-9


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
