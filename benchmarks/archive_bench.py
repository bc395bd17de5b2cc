"""Per-iteration bookkeeping of the self-play loop on large archives.

Builds archives of synthetic valid environments (variants of real sources: the bundled examples,
the calibration environments, the designer prompts' examples and the scripted designer's families
on random topics, each grown by a few random helper functions) with everything the loop keeps
beside them (summaries, near-duplicate sketches, diversity vectors with their flags, the saved
nearest-neighbour index, per-iteration metrics), once, in a temporary folder (or ``--keep DIR``,
reused by later runs). Then, in a fresh process per size, it opens the run as a resumed loop would
and times one iteration's bookkeeping, three times (the median is reported):

- ``digest_s``: the archive query for the memory digest, and the digest;
- ``novelty_s``: near-duplicate lookups of 8 new designs (each added to the batch's index);
- ``diversity_s``: the diversity update of the 8 (their embeddings already cached, as the model
  would have left them: embedding is the model's work, not bookkeeping);
- ``commit_s``: the commit with its side rows, and the in-memory indexes learning the new ids;
- ``replay_s`` (not in ``total_s``): drawing 4 replays from every candidate, reading the drawn.

``open_s`` is the one-off start (reading stored sketches and vectors, restoring the saved
nearest-neighbour index); ``peak_rss_mb`` the measuring process's peak resident memory. The last
line is one JSON object with the figures per size and the growth from 10,000 to 100,000.

    python benchmarks/archive_bench.py                       # 1,000, 10,000 and 100,000
    python benchmarks/archive_bench.py --sizes 1000 10000 --keep /tmp/archives
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from spadework.archive import (
    Archive,
    DesignResult,
    EnvRecord,
    PlayResult,
    RecordUpdate,
    StoredSketch,
    content_hash,
)
from spadework.config import load_config
from spadework.designer import build_digest, checks_with_novelty
from spadework.designer.memory import DEFAULT_BAND
from spadework.designer.minhash import sketch
from spadework.designer.prompts import DesignForm, default_example
from spadework.designer.run_novelty import RunNovelty
from spadework.diversity import DiversitySettings, DiversityTracker, HashingEmbedder, IncrementalDiversity
from spadework.diversity.run import INDEX_DIR, _update, embed_records
from spadework.envs.examples import example_paths
from spadework.policy import scripted_families
from spadework.replay import ReplaySettings, plan_replay, replay_candidates
from spadework.rewards import regret_estimate, solve_rate
from spadework.validate.verdict import CheckResult, Outcome, Verdict

SIZES = (1_000, 10_000, 100_000)
DESIGNS = 8
REPEATS = 3
WORDS = ("river castle orbit lantern harbour meadow comet forge glacier tundra falcon copper saffron "
         "quarry beacon thistle marble cobalt willow ember prism canyon anchor velvet signal pepper "
         "citadel walrus juniper mosaic fjord lattice nectar obsidian parcel quiver ribbon sapphire "
         "trellis umber vortex wicker yarrow zephyr almanac bramble cinder dune estuary").split()
OPS = ("<", ">", "<=", ">=", "!=", "==")
DONE = "complete.json"


def bases() -> list[str]:
    paths = [*example_paths(), *sorted((Path(scripted_families.__file__).parents[1] / "calibrate" / "envs")
                                       .glob("*.py"))]
    return [p.read_text(encoding="utf-8") for p in paths] + [default_example(f) for f in DesignForm]


MAKERS = [getattr(scripted_families, n) for n in sorted(dir(scripted_families)) if n.startswith("design_")]


def helper(rng: random.Random, k: int) -> str:
    """A small module-level function with random words, numbers and structure."""
    words = " ".join(rng.sample(WORDS, 3))
    op, n, m = rng.choice(OPS), rng.randrange(2, 50), rng.randrange(1, 9)
    body = rng.choice([
        f"    kept = [v for v in values if v {op} {n}]\n"
        f"    return '{words}'.join(str(v) for v in kept[:{m}])\n",
        f"    total = 0\n    for v in values:\n        if v {op} {n}:\n            total += v * {m}\n"
        f"    return f'{words} {{total}}'\n",
        f"    table = {{w: len(w) for w in '{words}'.split()}}\n"
        f"    return sorted(table, key=table.get)[:{m}]\n",
        f"    return [('{rng.choice(WORDS)}', v % {n}) for v in values if v {op} {m}]\n",
    ])
    return f"\n\ndef helper_{rng.choice(WORDS)}_{k}(values):\n{body}"


def variant(seed: int) -> str:
    """One synthetic environment: a real source (or a scripted family on a random topic) with one to
    three random helpers."""
    rng = random.Random(seed)
    if rng.random() < 0.6:
        code = rng.choice(MAKERS)(f"{rng.choice(WORDS)} {rng.choice(WORDS)}", rng)
    else:
        code = rng.choice(BASES)
    return code + "".join(helper(rng, k) for k in range(rng.randint(1, 3)))


BASES = bases()


def made(seed: int) -> tuple[str, str, bytes, int]:
    """A variant with its content hash and sketch (computed in worker processes)."""
    code = variant(seed)
    found = sketch(code)
    return code, content_hash(code), found.to_bytes(), found.size


def verdict(code: str) -> Verdict:
    name = next((line.split()[1].split("(")[0].rstrip(":") for line in code.splitlines()
                 if line.startswith("class ")), "Env")
    return Verdict((CheckResult("parse", Outcome.PASSED), CheckResult("static", Outcome.PASSED)), "none",
                   class_name=name, hint="Think about the rule first.")


def play(rng: random.Random) -> PlayResult:
    nohint = tuple(float(rng.random() < 0.4) for _ in range(4))
    hint = tuple(max(n, float(rng.random() < 0.6)) for n in nohint)
    estimate = regret_estimate(hint, nohint)
    episode = {"arm": "nohint", "seed": 1, "score": nohint[0], "turns": 2, "end": "solved",
               "messages": [{"role": "user", "content": "Guess the word."},
                            {"role": "assistant", "content": "\\boxed{river}"}]}
    transcripts = {"nohint": episode, "hint": {**episode, "arm": "hint"}}
    return PlayResult("Guess the hidden word from the clues.", nohint, hint, solve_rate(nohint),
                      solve_rate(hint), estimate.regret, transcripts, estimate)


def record(iteration: int, k: int, item: tuple[str, str, bytes, int], rng: random.Random) -> EnvRecord:
    code, chash = item[0], item[1]
    domain = rng.choice(["games", "maths", None])
    design = DesignResult(iteration, f"i{iteration}-d{k}", 1, f"doc-{k}", domain, True, 0.5, 0.0, play(rng),
                          "answer")
    origin = f"run:i{iteration}:i{iteration}-d{k}:a1"
    return EnvRecord(None, code, verdict(code), origin, "2026-11-30T00:00:00Z", chash, design.to_metrics())


def synthetic_vectors(count: int, seed: int, dimension: int = 512) -> np.ndarray:
    """Unit vectors around 300 centres (kinds of game), a tenth of them near-copies of another."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(300, dimension))
    rows = centres[rng.integers(0, 300, count)] + rng.normal(size=(count, dimension)) * 0.9
    twins = rng.random(count) < 0.1
    rows[1:][twins[1:]] = rows[:-1][twins[1:]] + rng.normal(size=(int(twins[1:].sum()), dimension)) * 0.05
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def build(run_dir: Path, size: int) -> float:
    """An archive of ``size`` valid designs over many iterations, with everything the loop keeps."""
    start = time.perf_counter()
    per_iteration = max(25, size // 500)
    embedder = HashingEmbedder()
    settings = DiversitySettings()
    state = IncrementalDiversity(settings)
    vectors = synthetic_vectors(size, seed=size)
    rng = random.Random(size)
    lines = []
    with Pool(2) as pool, Archive.open(run_dir) as archive:
        items = pool.imap(made, range(size), chunksize=64)
        for iteration in range(-(-size // per_iteration)):
            count = min(per_iteration, size - iteration * per_iteration)
            chunk = [next(items) for _ in range(count)]
            records = [record(iteration, k, item, rng) for k, item in enumerate(chunk)]
            batch = state.preview(vectors[iteration * per_iteration:iteration * per_iteration + count])
            metrics = {"design/valid_rate": 1.0, "reward/regret_mean": 0.3, **batch.metrics}
            stored = archive.commit_iteration(
                iteration, records, metrics, {"sampler": None},
                sketches=("minhash-128-5-v1", [StoredSketch(c[1], c[2], c[3]) for c in chunk]),
                vectors=_update(embedder.name, batch, list(range(count)), state))
            state.apply(batch, [r.id for r in stored])
            lines.append(json.dumps({"iteration": iteration, **metrics}))
    (run_dir / INDEX_DIR).mkdir(exist_ok=True)
    state.near.save(DiversityTracker(embedder, settings, index_dir=run_dir / INDEX_DIR).index_path)
    (run_dir / "config.toml").write_text(load_config(None, {"diversity.embedder": "hashing"}).to_toml())
    (run_dir / "metrics.jsonl").write_text("\n".join(lines) + "\n")
    seconds = time.perf_counter() - start
    (run_dir / DONE).write_text(json.dumps({"size": size, "build_s": seconds}))
    return seconds


def new_records(iteration: int, seed: int) -> list[EnvRecord]:
    rng = random.Random(seed)
    return [record(iteration, k, made(10**9 + seed * 100 + k), rng) for k in range(DESIGNS)]


def one_iteration(archive: Archive, novelty: RunNovelty, tracker: DiversityTracker, iteration: int,
                  seed: int) -> dict[str, float]:
    """The loop's bookkeeping for one iteration of 8 new designs, timed part by part."""
    records = new_records(iteration, seed)
    embed_records(records, tracker.embedder, archive)  # the model's work: cached before the clock
    times = {}
    start = time.perf_counter()
    build_digest(archive.digest_rows(references=2, recent=5, band=DEFAULT_BAND)).render()
    times["digest_s"] = time.perf_counter() - start
    start = time.perf_counter()
    batch = novelty.batch()
    checks_with_novelty(batch)
    for k, r in enumerate(records):
        if batch.twin(r.source) is None:
            batch.add(f"i{iteration}-d{k}", r.source, r.class_name)
    times["novelty_s"] = time.perf_counter() - start
    start = time.perf_counter()
    plan = plan_replay(replay_candidates(archive.replay_rows(iteration), iteration), archive.get, iteration,
                       ReplaySettings(count=4), run_seed=0, plays=4, draw_seed=iteration)
    times["replay_s"] = time.perf_counter() - start
    start = time.perf_counter()
    metrics = tracker.measure(archive, records, iteration)
    times["diversity_s"] = time.perf_counter() - start
    start = time.perf_counter()
    updates = {level.record_id: RecordUpdate(replace(level.play, last_played=iteration))
               for level in plan.levels}
    stored = archive.commit_iteration(iteration, records, {"iteration": iteration, **metrics},
                                      {"sampler": None}, updates, sketches=novelty.sketches(records),
                                      vectors=tracker.update())
    novelty.committed(stored)
    tracker.committed(stored)
    times["commit_s"] = time.perf_counter() - start
    times["total_s"] = sum(times[k] for k in ("digest_s", "novelty_s", "diversity_s", "commit_s"))
    return times


def measure(run_dir: Path) -> dict[str, float]:
    """Open the run as a resumed loop would, then time ``REPEATS`` iterations (in this process)."""
    start = time.perf_counter()
    notes: list[str] = []
    with Archive.open(run_dir, create=False) as archive:
        novelty = RunNovelty(archive, warn=notes.append)
        novelty.load()
        tracker = DiversityTracker(HashingEmbedder(), DiversitySettings(), notes.append, run_dir / INDEX_DIR)
        tracker._open(archive, 0)
        opened = time.perf_counter() - start
        first = (archive.last_iteration() or (-1, None))[0] + 1
        runs = [one_iteration(archive, novelty, tracker, first + k, seed=first + k) for k in range(REPEATS)]
        count = len(archive)
    figures = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"environments": count, "open_s": opened, **figures, "peak_rss_mb": peak, "notes": notes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--keep", type=Path, help="build the archives here and reuse them (default: a "
                        "temporary folder, removed at the end)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure)))
        return 0
    with tempfile.TemporaryDirectory(prefix="archive-bench-") as scratch:
        root = args.keep or Path(scratch)
        results = {}
        for size in args.sizes:
            run_dir = root / f"archive-{size}"
            if not (run_dir / DONE).is_file():
                if run_dir.exists():
                    raise SystemExit(f"{run_dir} holds an unfinished archive; remove it")
                print(f"building {size} environments in {run_dir} ...", flush=True)
                print(f"  built in {build(run_dir, size):.1f} s", flush=True)
            built = json.loads((run_dir / DONE).read_text())
            copy = Path(scratch) / f"measured-{size}"  # the measured iterations commit: keep the build
            shutil.copytree(run_dir, copy)
            child = subprocess.run([sys.executable, __file__, "--measure", str(copy)], capture_output=True,
                                   text=True, check=True)
            shutil.rmtree(copy)
            figures = {**json.loads(child.stdout.strip().splitlines()[-1]), "build_s": built["build_s"]}
            results[str(size)] = figures
            print(f"{size:>7}: " + ", ".join(f"{k} {v:.3f}" for k, v in figures.items()
                                           if isinstance(v, float)), flush=True)
        summary: dict = {"sizes": results}
        if "10000" in results and "100000" in results:
            ratio = results["100000"]["total_s"] / results["10000"]["total_s"]
            print(f"growth of total_s from 10,000 to 100,000: {ratio:.2f}x (goal <= 2x)")
            summary["growth_10k_to_100k"] = ratio
        if "100000" in results:
            big = results["100000"]
            summary["goals"] = {"total_s_under_1": big["total_s"] < 1.0,
                                "peak_under_2gb": big["peak_rss_mb"] < 2048,
                                "growth_at_most_2x": summary.get("growth_10k_to_100k", 0.0) <= 2.0}
        print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
