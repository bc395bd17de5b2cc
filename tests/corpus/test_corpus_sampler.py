"""The sampler: seeded, once per epoch, and resumable to the exact same sequence."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from spadework.corpus import Corpus, CorpusSampler, open_corpus
from spadework.corpus.permutation import Permutation
from spadework.errors import CorpusError

N_DOCS = 37


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": f"text {i}"}) + "\n" for i in range(N_DOCS)))
    return open_corpus(path)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 17, 64, 65, 1000])
def test_permutation_is_a_bijection_with_an_inverse(n: int) -> None:
    perm = Permutation(n, b"key")
    images = [perm(i) for i in range(n)]
    assert sorted(images) == list(range(n))
    assert [perm.inverse(j) for j in images] == list(range(n))


def test_permutation_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="n >= 1"):
        Permutation(0, b"k")
    with pytest.raises(IndexError):
        Permutation(5, b"k")(5)


def test_permutation_shuffles() -> None:
    images = [Permutation(1000, b"key")(i) for i in range(1000)]
    assert sum(a == i for i, a in enumerate(images)) < 10  # not the identity
    assert images != sorted(images)


def test_same_seed_same_sequence_other_seed_other_sequence(corpus: Corpus) -> None:
    a = [CorpusSampler(corpus, seed=3).sample().id for _ in range(1)]
    first = CorpusSampler(corpus, seed=3)
    second = CorpusSampler(corpus, seed=3)
    other = CorpusSampler(corpus, seed=4)
    seq1 = [first.sample().id for _ in range(50)]
    seq2 = [second.sample().id for _ in range(50)]
    seq3 = [other.sample().id for _ in range(50)]
    assert seq1 == seq2 and seq1[0] == a[0]
    assert seq1 != seq3


def test_every_document_once_per_epoch(corpus: Corpus) -> None:
    sampler = CorpusSampler(corpus, seed=11)
    first = [sampler.sample_position() for _ in range(N_DOCS)]
    second = [sampler.sample_position() for _ in range(N_DOCS)]
    assert sorted(first) == list(range(N_DOCS))
    assert sorted(second) == list(range(N_DOCS))
    assert first != second  # each epoch in a new order
    assert sampler.epoch == 2 and sampler.draws == 2 * N_DOCS


def test_times_used_follows_the_draws(corpus: Corpus) -> None:
    sampler = CorpusSampler(corpus, seed=5)
    drawn = [sampler.sample_position() for _ in range(N_DOCS + 10)]
    counts = Counter(drawn)
    assert [sampler.times_used(p) for p in range(N_DOCS)] == [counts[p] for p in range(N_DOCS)]
    assert set(counts.values()) == {1, 2}
    with pytest.raises(IndexError):
        sampler.times_used(N_DOCS)


@pytest.mark.parametrize("stop", [0, 1, 20, N_DOCS, N_DOCS + 5, 3 * N_DOCS - 1])
def test_restored_sampler_continues_the_same_sequence(corpus: Corpus, stop: int) -> None:
    uninterrupted = CorpusSampler(corpus, seed=99)
    expected = [uninterrupted.sample() for _ in range(stop + 60)]

    interrupted = CorpusSampler(corpus, seed=99)
    before = [interrupted.sample() for _ in range(stop)]
    state = json.loads(json.dumps(interrupted.state()))
    del interrupted
    restored = CorpusSampler.restore(corpus, state)
    after = [restored.sample() for _ in range(60)]

    assert before + after == expected
    assert state["draws"] == stop and state["epoch"] == stop // N_DOCS
    assert state["epoch_draws"] == stop % N_DOCS


def test_peek_does_not_draw(corpus: Corpus) -> None:
    sampler = CorpusSampler(corpus, seed=1)
    peeked = sampler.peek_position()
    assert sampler.draws == 0
    assert sampler.sample() == corpus.get(peeked)


def test_restore_rejects_other_corpus_and_bad_state(corpus: Corpus, tmp_path: Path) -> None:
    state = CorpusSampler(corpus, seed=1).state()
    smaller = tmp_path / "small.jsonl"
    smaller.write_text('{"text": "only one"}\n')
    with pytest.raises(CorpusError, match=f"saved over {N_DOCS} documents but .* has 1"):
        CorpusSampler.restore(open_corpus(smaller), state)
    with pytest.raises(CorpusError, match="lacks 'draws'"):
        CorpusSampler.restore(corpus, {k: v for k, v in state.items() if k != "draws"})
    with pytest.raises(CorpusError, match="version 2 is not 1"):
        CorpusSampler.restore(corpus, {**state, "version": 2})
    with pytest.raises(CorpusError, match="must be a dict"):
        CorpusSampler.restore(corpus, None)  # type: ignore[arg-type]
    with pytest.raises(CorpusError, match="draws must be an int >= 0"):
        CorpusSampler.restore(corpus, {**state, "draws": -1})
    with pytest.raises(CorpusError, match="seed must be an int"):
        CorpusSampler(corpus, seed="7")  # type: ignore[arg-type]


def test_single_document_corpus(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text('{"text": "alone"}\n')
    sampler = CorpusSampler(open_corpus(path), seed=0)
    assert [sampler.sample().text for _ in range(3)] == ["alone"] * 3
    assert sampler.times_used(0) == 3
