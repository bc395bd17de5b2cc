"""Why the agent does not call: every reply the agent writes in tool worlds, sorted by shape.

    python benchmarks/tool_calls.py WORLD_OR_FOLDER... [--policy base] [--set policy.model=...]
        [--plays 2] [--out runs/tool-calls/NAME]

The worlds are validated and played as ``spadework calibrate`` plays them (both arms, paired seeds
from 20000); every reply the policy writes is kept with the tools it was shown and its shape
(``rollout.calls.ReplyShape``: a valid call, a call the world refuses, a call that cannot be read,
a boxed answer, prose). Prints, per world, the call rates and solve rates of each arm, then the
shapes of all replies with an example of each; writes ``replies.jsonl`` (every reply),
``calibration.json`` and ``summary.json`` into ``--out``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spadework.calibrate.command import run_calibration
from spadework.calibrate.report import report_json
from spadework.calibrate.runner import calibration_rollout, load_files
from spadework.config import parse_assignment
from spadework.eval.command import with_overrides
from spadework.eval.policies import parse_policy_spec
from spadework.policy.base import Completion, Policy
from spadework.policy.scripted_tools import listed_tools
from spadework.policy.settings import PolicySettings, build_policy
from spadework.rollout.calls import ReplyShape, reply_shape

SEED_START = 20_000
"""Seeds apart from calibration's (10000) and evaluation's."""


class Recording:
    """A policy that keeps every tool-world reply it writes, with the tools it was shown (sent with
    the conversation, or listed under the task)."""

    def __init__(self, inner: Policy) -> None:
        self.inner, self.replies = inner, []
        self.name = getattr(inner, "name", "policy")

    def generate(self, conversations: Sequence[Any], sampling: Any, tools: Any = None) -> list[Completion]:
        completions = self.inner.generate(conversations, sampling, tools) if tools is not None \
            else self.inner.generate(conversations, sampling)
        for index, completion in enumerate(completions):
            shown = (tools[index] if tools else None) or listed_tools(conversations[index][1].content)
            if shown:
                self.replies.append({"task": conversations[index][1].content[:300], "tools": shown,
                                     "reply": completion.text,
                                     "shape": reply_shape(completion.text, shown).value})
        return completions

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--policy", default="base")
    parser.add_argument("--config", type=Path)
    parser.add_argument("--set", action="append", default=[], dest="sets")
    parser.add_argument("--plays", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    overrides = dict(parse_assignment(text) for text in args.sets)
    spec = with_overrides(parse_policy_spec(args.policy, args.config), args.config, overrides)
    files = load_files(args.paths)
    recorder: list[Recording] = []

    def build(settings: PolicySettings) -> Policy:
        recorder.append(Recording(build_policy(settings)))
        return recorder[0]  # type: ignore[return-value]

    seeds = tuple(range(SEED_START, SEED_START + args.plays))
    calibration = run_calibration(spec, files, seeds, build)
    args.out.mkdir(parents=True, exist_ok=True)
    report = report_json(calibration, (spec.name, args.policy), calibration_rollout(spec.config), "")
    (args.out / "calibration.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    replies = recorder[0].replies if recorder else []
    with (args.out / "replies.jsonl").open("w", encoding="utf-8") as out:
        for reply in replies:
            out.write(json.dumps(reply, ensure_ascii=False) + "\n")
    summary = summarise(report, replies, spec.config.policy.model)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")


def summarise(report: dict[str, Any], replies: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """Per world: valid, call and solve rates per arm; over all replies: the shapes and an example each."""
    print(f"model {model}: {len(replies)} tool-world replies; over all: {report['summary'].get('calls')}")
    worlds = {}
    for env in report["environments"]:
        calls = env.get("calls") or {}
        worlds[env["name"]] = {"valid": env["valid"], "reason": env["reason"][:120],
                               "solve_nohint": env.get("solve_rate_nohint"),
                               "solve_hint": env.get("solve_rate_hint"), **calls}
        shown = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in worlds[env["name"]].items()
                 if k != "reason"}
        print(f"  {env['name']:<36} {shown}" + ("" if env["valid"] else f"  {env['reason'][:100]}"))
    shapes = Counter(reply["shape"] for reply in replies)
    examples = {shape.value: next((r["reply"][:400] for r in replies if r["shape"] == shape.value), None)
                for shape in ReplyShape}
    total = max(1, len(replies))
    for shape in ReplyShape:
        print(f"  {shape.value:<13} {shapes[shape.value]:>4} ({shapes[shape.value] / total:.0%})")
    return {"model": model, "replies": len(replies), "shapes": dict(shapes), "examples": examples,
            "worlds": worlds, "calls": report["summary"].get("calls", {})}


if __name__ == "__main__":
    main()
