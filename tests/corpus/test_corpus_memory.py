"""A large JSONL corpus is indexed in a stream, holding positions and never the texts."""

from __future__ import annotations

import json
import sys
import tracemalloc
from pathlib import Path

from spadework.corpus import CorpusSampler, open_corpus

FILLER = "word " * 30


def write_corpus(path: Path, lines: int) -> int:
    """Write ``lines`` lines, every thousandth one broken; return the file size."""
    with path.open("w", encoding="utf-8") as handle:
        for i in range(lines):
            if i % 1000 == 999:
                handle.write("{broken\n")
            else:
                handle.write(json.dumps({"id": i, "domain": f"d{i % 7}", "text": f"{i} {FILLER}"}) + "\n")
    return path.stat().st_size


def test_200k_line_corpus_index_holds_only_positions(tmp_path: Path) -> None:
    lines = 200_000
    path = tmp_path / "big.jsonl"
    size = write_corpus(path, lines)
    assert size > 30_000_000

    corpus = open_corpus(path)

    valid = lines - lines // 1000
    assert len(corpus) == valid
    assert corpus.stats.bad == {"invalid_json": lines // 1000}
    assert corpus.stats.domains == {
        f"d{k}": sum(1 for i in range(lines) if i % 7 == k and i % 1000 != 999) for k in range(7)
    }
    assert corpus.index_bytes() == 12 * valid  # an 8-byte offset and a 4-byte line number each
    arrays = [value for value in vars(corpus._index).values() if hasattr(value, "itemsize")]
    assert sum(sys.getsizeof(a) for a in arrays) < size / 10
    assert corpus.get(valid - 1).id == str(lines - 2)  # the last line is a broken one
    sampler = CorpusSampler(corpus, seed=0)
    assert len({sampler.sample().id for _ in range(100)}) == 100


def test_indexing_memory_peak_is_a_small_share_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "medium.jsonl"
    size = write_corpus(path, 30_000)
    tracemalloc.start()
    try:
        corpus = open_corpus(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(corpus) == 30_000 - 30
    assert peak < size / 10, f"indexing peaked at {peak} bytes for a {size}-byte file"
