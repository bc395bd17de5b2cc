"""Loop benchmark: the loop's own overhead, and how much of the model's speed the loop keeps.

(a) ``spadework run`` with the scripted fake policy, 16 designs x 4 paired plays: the whole
    wall time is loop overhead (target <= 10 s on 2 cores). Run twice in one process:
    ``overhead_cold_s`` includes what a process does once (imports, loading the diversity
    measure's sentence-embedding model), ``overhead_s`` is the second run, the loop's own cost.
(b) With the embedded model: generated tokens/s inside ``spadework run`` (its
    ``perf/tokens_per_s``) against the batched engine's own tokens/s on the same kind of batch
    (two design prompts decoded together, as the run's designer asks), measured in the same
    process (target ratio >= 0.85).

Run: ``.venv/bin/python benchmarks/loop_bench.py [--model qwen2.5-coder-0.5b]``. Prints a
table, then one JSON object as the last line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from spadework.config import load_config
from spadework.designer import MemoryDigest, render_design
from spadework.policy.base import Sampling
from spadework.policy.embedded import EmbeddedPolicy
from spadework.run import run


def overhead_seconds(run_dir: Path) -> float:
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 16,
                                "run.plays": 4})
    start = time.perf_counter()
    run(config, run_dir)
    return time.perf_counter() - start


def raw_tokens_per_s(policy: EmbeddedPolicy, max_tokens: int) -> float:
    """The batched engine alone, on two design prompts like the loop's, decoded together."""
    documents = ("Tides rise and fall twice a day as the moon pulls the oceans.",
                 "A binary search halves the interval it looks in at every step.")
    prompts = [render_design(document, MemoryDigest()) for document in documents]
    start = time.perf_counter()
    replies = policy.generate(prompts, Sampling(temperature=0.7, max_tokens=max_tokens, seed=0))
    elapsed = time.perf_counter() - start
    return sum(reply.completion_tokens for reply in replies) / elapsed


def loop_tokens_per_s(policy: EmbeddedPolicy, work: Path, max_tokens: int) -> float:
    config = load_config(None, {"run.iterations": 1, "run.designs": 2, "run.plays": 1,
                                "designer.max_attempts": 1, "designer.sampling.max_tokens": max_tokens,
                                "agent.max_turns": 2})
    summary = run(config, work / "embedded", policy=policy)
    return summary.metrics[-1]["perf/tokens_per_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--max-tokens", type=int, default=400)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        cold = overhead_seconds(work / "scripted-cold")
        overhead = overhead_seconds(work / "scripted")
        policy = EmbeddedPolicy(args.model)
        try:
            raw = raw_tokens_per_s(policy, args.max_tokens)
            looped = loop_tokens_per_s(policy, work, args.max_tokens)
        finally:
            policy.close()
    result = {"model": args.model, "overhead_s": round(overhead, 2), "overhead_cold_s": round(cold, 2),
              "loop_tokens_per_s": round(looped, 2), "raw_tokens_per_s": round(raw, 2),
              "ratio": round(looped / raw, 3) if raw else 0.0}
    width = max(map(len, result))
    for name, value in result.items():
        print(f"{name:<{width}}  {value}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
