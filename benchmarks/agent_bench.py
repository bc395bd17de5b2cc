"""How well the agent uses a hint: solve rates per arm, unboxed replies and reply length, per prompt setting.

Plays every given environment on the same paired seeds, without and with its hint, for each
setting (hint style and reply budget), with a real policy (the embedded model by default), and
prints per setting: episodes, unboxed-reply rate, mean tokens per reply, solve rate without and
with the hint, and how many environments show a positive hinted lift. The last line is one JSON
object with every figure.

    python benchmarks/agent_bench.py ENV.py|FOLDER ... [--seeds 3] [--settings line:160,advice:384]

Environments that fail validation are skipped (and listed). Runs against older versions of the
package too (it then plays with their prompt), so a change can be measured before and after.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from spadework.config import load_config
from spadework.engines import policy_settings
from spadework.policy import build_policy
from spadework.policy.base import Sampling
from spadework.rewards import mean, paired_regret, solve_rate
from spadework.rollout import Arm, PlayJob, RolloutConfig, run_plays
from spadework.sandbox import Sandbox
from spadework.validate import read_source, validate
from spadework.validate.parse import extract_code


def sources(paths: list[Path]) -> dict[str, str]:
    """Valid environment sources by file stem, from files and folders (invalid ones are reported)."""
    files = [f for p in paths for f in (sorted(p.glob("*.py")) if p.is_dir() else [p])
             if f.name != "__init__.py"]
    found = {}
    with Sandbox() as sandbox:
        for path in files:
            text, is_reply = read_source(path)
            verdict = validate(text, sandbox, is_reply=is_reply)
            if verdict.valid:
                found[path.stem] = extract_code(text) if is_reply else text
            else:
                print(f"skipped {path.name}: {verdict.reason[:120]}")
    return found


def measure(policy, envs: dict[str, str], seeds: list[int], style: str, max_tokens: int,
            temperature: float) -> dict:
    """One setting's figures over every environment and seed, both arms."""
    jobs = [PlayJob(name, source, seed, arm)
            for name, source in envs.items() for seed in seeds for arm in Arm]
    fields = RolloutConfig.__dataclass_fields__
    extra = {"hint_style": style} if "hint_style" in fields else {}
    if extra:
        from spadework.rollout import HintStyle

        extra["hint_style"] = HintStyle(style)
    sampling = Sampling(temperature=temperature, top_p=0.95, max_tokens=max_tokens, seed=0)
    config = RolloutConfig(max_turns_cap=6, context_tokens=3072, concurrency=4, sampling=sampling, **extra)
    start = time.perf_counter()
    episodes = run_plays(policy, Sandbox(), jobs, config)
    seconds = time.perf_counter() - start
    per_env = {}
    for name in envs:
        arms = {arm: sorted((e for e in episodes if e.env_id == name and e.arm is arm), key=lambda e: e.seed)
                for arm in Arm}
        hint, nohint = [e.score for e in arms[Arm.HINT]], [e.score for e in arms[Arm.NOHINT]]
        per_env[name] = {"solve_nohint": solve_rate(nohint), "solve_hint": solve_rate(hint),
                         "regret": paired_regret(hint, nohint)}
    turns = sum(e.turns for e in episodes)
    return {
        "setting": f"{style}:{max_tokens}", "episodes": len(episodes), "seconds": round(seconds, 1),
        "unboxed_rate": sum(e.unboxed for e in episodes) / turns if turns else 0.0,
        "tokens_per_reply": sum(e.completion_tokens for e in episodes) / turns if turns else 0.0,
        "solve_nohint": solve_rate([e.score for e in episodes if e.arm is Arm.NOHINT]),
        "solve_hint": solve_rate([e.score for e in episodes if e.arm is Arm.HINT]),
        "positive_lift_envs": sum(1 for v in per_env.values() if v["regret"] > 0),
        "mean_regret": mean([v["regret"] for v in per_env.values()]),
        "environments": per_env,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seed-start", type=int, default=20_000)
    parser.add_argument("--settings", default="line:160,advice:384",
                        help="comma-separated STYLE:MAX_TOKENS, STYLE line or advice")
    parser.add_argument("--temperature", type=float, default=0.7)
    args = parser.parse_args()
    envs = sources(args.paths)
    policy = build_policy(policy_settings(load_config(args.config)))
    seeds = list(range(args.seed_start, args.seed_start + args.seeds))
    results = []
    for setting in args.settings.split(","):
        style, _, tokens = setting.partition(":")
        result = measure(policy, envs, seeds, style, int(tokens or 384), args.temperature)
        results.append(result)
        print(f"{result['setting']:>12}  episodes {result['episodes']:3d}  "
              f"unboxed {result['unboxed_rate']:.2f}  tokens/reply {result['tokens_per_reply']:6.1f}  "
              f"solved no hint {result['solve_nohint']:.2f}  with hint {result['solve_hint']:.2f}  "
              f"positive lift {result['positive_lift_envs']}/{len(envs)}  {result['seconds']:.0f} s",
              flush=True)
        for name, figures in result["environments"].items():
            print(f"    {name:40s} {figures['solve_nohint']:.2f} -> {figures['solve_hint']:.2f}", flush=True)
    print(json.dumps({"environments": sorted(envs), "seeds": seeds, "results": results}))


if __name__ == "__main__":
    main()
