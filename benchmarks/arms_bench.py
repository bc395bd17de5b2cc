"""A fixed-pool iteration played in both arms and in the no-hint arm only (``agent.arms``), side by side.

Runs one iteration of a fixed-pool config (the learning experiment's by default, without its update
and evaluation) twice with the embedded model, the same seed and draws: once with both arms, once
with ``agent.arms = "nohint"``. Prints per setting the play seconds, episodes, generated tokens and
the no-hint solve rate, and how many no-hint episodes of the two runs have the same transcript. The
last line is one JSON object with every figure.

    python benchmarks/arms_bench.py [--config configs/experiments/cpu-learning.toml] [--designs 4]
        [--plays 4] [--model qwen2.5-coder-0.5b]

Run it from the repository's root (the experiment's pool is a relative path).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from spadework.config import load_config
from spadework.loop import SilentReporter
from spadework.run import run

FIGURES = ("perf/play_s", "rollout/episodes", "perf/generated_tokens", "rollout/solve_rate_nohint")


def no_hint_transcripts(run_dir: Path) -> dict[tuple[str, int], list]:
    """Each no-hint episode's messages, by environment and seed."""
    episodes = [json.loads(line) for path in (run_dir / "episodes").glob("*.jsonl")
                for line in path.read_text().splitlines()]
    return {(e["env_id"], e["seed"]): e["messages"] for e in episodes if e["arm"] == "nohint"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/experiments/cpu-learning.toml")
    parser.add_argument("--designs", type=int, default=4)
    parser.add_argument("--plays", type=int, default=4)
    parser.add_argument("--model", default=None)
    args = parser.parse_args()
    overrides = {"run.iterations": 1, "run.designs": args.designs, "run.plays": args.plays,
                 "learn.enabled": False, "eval.every": 0, "diversity.embedder": "hashing"}
    if args.model:
        overrides["policy.model"] = args.model
    figures, transcripts = {}, {}
    with tempfile.TemporaryDirectory() as root:
        for arms in ("both", "nohint"):
            run_dir = Path(root) / arms
            run(load_config(Path(args.config), {**overrides, "agent.arms": arms}), run_dir,
                reporter=SilentReporter())
            metrics = json.loads((run_dir / "metrics.jsonl").read_text().splitlines()[0])
            figures[arms] = {name: metrics[name] for name in FIGURES}
            transcripts[arms] = no_hint_transcripts(run_dir)
    same = sum(transcripts["both"].get(key) == messages for key, messages in transcripts["nohint"].items())
    print(f"{'arms':8} {'play s':>8} {'episodes':>9} {'generated':>10} {'solved, no hint':>16}")
    for arms, row in figures.items():
        print(f"{arms:8} {row['perf/play_s']:8.1f} {row['rollout/episodes']:9.0f} "
              f"{row['perf/generated_tokens']:10.0f} {row['rollout/solve_rate_nohint']:16.2f}")
    speedup = figures["both"]["perf/play_s"] / figures["nohint"]["perf/play_s"]
    print(f"play {speedup:.2f}x faster; {same} of {len(transcripts['nohint'])} no-hint transcripts the same")
    print(json.dumps({"figures": figures, "play_speedup": speedup, "same_transcripts": same,
                      "no_hint_episodes": len(transcripts["nohint"])}))


if __name__ == "__main__":
    main()
