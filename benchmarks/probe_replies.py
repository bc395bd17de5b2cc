"""Every reply a policy gives on one probe task's items, with its verdict: what the evaluation
report's scores alone do not show (why an item was lost: the sum, or the form of the answer).

Plays the items as `spadework eval --suite probe` does (the policy's config, temperature as that
config says, no hint; the held-out probe seeds) and prints, per policy and seed, solved or not and
each of the agent's replies. The tables in docs/results/coevolution.md (the easy_add replies) came
from:

    python benchmarks/probe_replies.py --config configs/experiments/coevolution.toml \
        --probe configs/experiments/cpu-learning-envs --task easy_add --seeds 8 \
        --policy results/tool-learning-1.5b/checkpoints/warm-start --policy results/coevolution-ablate/full

The model's replies are not bitwise repeatable across processes (batched sampling), so a replay
may differ from a report in an item or two; the reports' scores are the figures.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from spadework.engines import open_sandbox
from spadework.eval.policies import load_eval_policy, parse_policy_spec
from spadework.eval.probe import ProbeOpener, load_probe, probe_tasks
from spadework.eval.runner import ItemResult, episode_seed, eval_rollout, held_out_rollout
from spadework.policy import Role
from spadework.rollout import Arm, PlayJob, run_plays


def replies(episode) -> list[str]:
    """The agent's replies of an episode, in order."""
    return [m.content for m in episode.messages if m.role is Role.ASSISTANT]


def play(spec_text: str, config: Path | None, probe: Path, task: str, seeds: int) -> list[dict]:
    """One policy's items of ``task``: seed, solved, replies."""
    spec = parse_policy_spec(spec_text, config)
    tasks = [t for t in probe_tasks(load_probe(probe), spec.config.agent.max_turns) if t.task == task]
    if not tasks:
        raise SystemExit(f"{probe} has no probe task {task!r}")
    policy = load_eval_policy(spec)
    try:
        with open_sandbox(spec.config) as sandbox:
            jobs = [PlayJob(t.key, t.source or t.key, episode_seed(t, seed), Arm.NOHINT, t.form)
                    for t in tasks for seed in range(seeds)]
            rollout = held_out_rollout(eval_rollout(spec.config), tasks)
            episodes = run_plays(policy, ProbeOpener(tasks, sandbox), jobs, rollout)
    finally:
        policy.close()
    return [{"policy": spec.name, "seed": seed, "solved": ItemResult.of(tasks[0], episode).solved,
             "replies": replies(episode)} for seed, episode in zip(range(seeds), episodes, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", action="append", required=True, help="as spadework eval takes it")
    parser.add_argument("--config", type=Path, help="the config of --policy base")
    parser.add_argument("--probe", type=Path, required=True, help="a run directory or a folder of *.py")
    parser.add_argument("--task", required=True, help="the probe task's name (the file's stem)")
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="one JSON line an item")
    args = parser.parse_args()
    for text in args.policy:
        items = play(text, args.config, args.probe, args.task, args.seeds)
        if args.json:
            print("\n".join(json.dumps(item) for item in items))
            continue
        print(f"## {items[0]['policy']}: {sum(i['solved'] for i in items)} of {len(items)} solved")
        for item in items:
            shown = " | ".join(r.strip().replace("\n", " ")[:160] for r in item["replies"])
            print(f"seed {item['seed']}: {'solved' if item['solved'] else 'lost  '}  {shown}")


if __name__ == "__main__":
    main()
