"""Multi-turn play with and without the embedded engine's prompt-state cache, side by side.

Plays the same lockstep batch of episodes (the given environments, both arms, the same seeds, the
same seeded sampling) twice with the embedded model: once holding only the last prompt's state (the
engine as it was), once with ``prompt_cache_mb`` of states. Prints per setting the seconds, prompt
tokens sent, prompt tokens computed (sent minus those reused from a held state), generated tokens
and the share of episodes whose transcript is the same in both settings. The last line is one JSON
object with every figure.

    python benchmarks/prompt_cache_bench.py ENV.py|FOLDER ... [--seeds 2] [--cache-mb 2048]
        [--model qwen2.5-coder-0.5b]

Defaults: the bundled multi-turn examples (number guessing, coin purse, Caesar cipher).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from spadework.config import load_config
from spadework.engines import policy_settings
from spadework.envs.examples import example_paths
from spadework.policy import build_policy
from spadework.policy.base import Sampling
from spadework.rollout import Arm, PlayJob, RolloutConfig, run_plays
from spadework.sandbox import Sandbox

DEFAULT_EXAMPLES = ("number_guess", "coin_purse", "caesar_cipher")


class Tally:
    """Counts what a policy is sent and computes, around its ``generate``."""

    def __init__(self, policy):
        self.policy, self.sent, self.computed, self.generated = policy, 0, 0, 0

    def generate(self, conversations, sampling, tools=None):
        completions = self.policy.generate(conversations, sampling, tools)
        for c in completions:
            self.sent += c.prompt_tokens
            self.computed += c.prompt_tokens - c.cached_tokens
            self.generated += c.completion_tokens
        return completions

    def count_tokens(self, messages, tools=None):
        return self.policy.count_tokens(messages, tools)


def play(settings, jobs: list[PlayJob], config: RolloutConfig) -> tuple[dict, list]:
    policy = build_policy(settings)
    try:
        tally = Tally(policy)
        start = time.perf_counter()
        with Sandbox() as sandbox:
            episodes = run_plays(tally, sandbox, jobs, config)
        seconds = time.perf_counter() - start
    finally:
        policy.close()
    figures = {"prompt_cache_mb": settings.prompt_cache_mb, "seconds": round(seconds, 1),
               "episodes": len(episodes), "turns": sum(e.turns for e in episodes),
               "prompt_tokens_sent": tally.sent, "prompt_tokens_computed": tally.computed,
               "generated_tokens": tally.generated}
    return figures, episodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--cache-mb", type=int, default=2048)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--max-turns", type=int, default=6)
    args = parser.parse_args()
    files = [f for p in args.paths for f in (sorted(p.glob("*.py")) if p.is_dir() else [p])] or \
        [p for p in example_paths() if p.stem in DEFAULT_EXAMPLES]
    jobs = [PlayJob(f.stem, f.read_text(encoding="utf-8"), 30_000 + seed, arm)
            for f in files for seed in range(args.seeds) for arm in Arm]
    config = RolloutConfig(max_turns_cap=args.max_turns, context_tokens=3072, concurrency=4,
                           sampling=Sampling(temperature=0.7, top_p=0.95, max_tokens=384, seed=0))
    base = policy_settings(load_config(None, {"policy.model": args.model}))
    results, transcripts = [], []
    for cache_mb in (0, args.cache_mb):
        figures, episodes = play(base.model_copy(update={"prompt_cache_mb": cache_mb}), jobs, config)
        results.append(figures)
        transcripts.append([[m.content for m in e.messages] for e in episodes])
        print(f"prompt cache {cache_mb:5d} MB  {figures['seconds']:7.1f} s  turns {figures['turns']:4d}  "
              f"prompt tokens sent {figures['prompt_tokens_sent']:7d}  computed "
              f"{figures['prompt_tokens_computed']:7d}  generated {figures['generated_tokens']:6d}",
              flush=True)
    same = sum(a == b for a, b in zip(*transcripts, strict=True)) / len(jobs)
    print(f"episodes with the same transcript in both settings: {same:.2f}; "
          f"speed-up {results[0]['seconds'] / results[1]['seconds']:.2f}x")
    print(json.dumps({"environments": [f.stem for f in files], "seeds": args.seeds, "model": args.model,
                      "same_transcript_share": same, "results": results}))


if __name__ == "__main__":
    main()
