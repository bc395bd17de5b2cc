"""The checkout stays cheap: no tracked file over 20 MB, results/ under 100 MB, and results/ free of
what only a running run needs (optimizer and RNG state, GGUF copies of adapters, the start copy).

What results/ keeps and how to get the rest: docs/results/index.md."""

from __future__ import annotations

import shutil
import subprocess
from collections import defaultdict
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
MB = 1_000_000
FILE_LIMIT = 20 * MB
RESULTS_LIMIT = 100 * MB
RUN_ONLY = ("optimizer.pt", "rng.pt", "adapter.gguf")
"""Files of a checkpoint that only a resumed run or the embedded engine reads, never committed."""
DUPLICATE_FLOOR = 1 * MB
"""Two tracked copies of a file this large are one too many."""


def tracked() -> list[tuple[str, str, int]]:
    """(path, blob id, size) of every tracked file in the checkout."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listing = subprocess.run(["git", "ls-files", "-s", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    files = []
    for entry in listing.decode().split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            on_disk = ROOT / path
            files.append((path, meta.split()[1], on_disk.stat().st_size if on_disk.is_file() else 0))
    return files


def test_no_tracked_file_is_over_the_limit():
    big = [f"{path} ({size / MB:.1f} MB)" for path, _, size in tracked() if size > FILE_LIMIT]
    assert not big, (f"tracked files over {FILE_LIMIT // MB} MB: {', '.join(big)}; keep large artefacts out "
                     "of git (docs/results/index.md says what results/ keeps)")


def test_results_stay_under_their_total():
    sizes = {path: size for path, _, size in tracked() if path.startswith("results/")}
    total = sum(sizes.values())
    largest = sorted(sizes, key=sizes.__getitem__, reverse=True)[:5]
    assert total <= RESULTS_LIMIT, (
        f"results/ holds {total / MB:.1f} MB tracked (limit {RESULTS_LIMIT // MB} MB); the largest: "
        + ", ".join(f"{p} ({sizes[p] / MB:.1f} MB)" for p in largest))


def test_results_keep_no_run_only_state_and_no_start_copy():
    found = [path for path, _, _ in tracked() if path.startswith("results/") and (
        PurePosixPath(path).name in RUN_ONLY or "/checkpoints/start/" in path or ".partial/" in path)]
    assert not found, f"run-only files committed under results/ (git rm them): {', '.join(found)}"


def test_no_large_file_is_tracked_twice():
    paths = defaultdict(list)
    for path, blob, size in tracked():
        if size >= DUPLICATE_FLOOR:
            paths[blob].append(path)
    twice = [" = ".join(sorted(same)) for same in paths.values() if len(same) > 1]
    assert not twice, f"the same large file is tracked more than once: {'; '.join(twice)}"
