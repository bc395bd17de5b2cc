"""``spadework eval``: held-out accuracy of one policy, or of two compared on the same items.

Usage::

    spadework eval                                   # the base policy on the default tasks
    spadework eval --policy runs/run-1               # a run's newest checkpoint
    spadework eval --policy base --policy runs/run-1/checkpoints/iteration-0004 --seeds 16
    spadework eval --suite textarena --task TowerOfHanoi-v0 --max-turns 20 --json
    spadework eval --suite bfcl --task multi_turn_base --limit 20   # BFCL v4 multi-turn, offline
    spadework eval --suite bfcl --task single_turn --limit 100      # BFCL v4 single-turn, offline
    spadework eval --suite bfcl --task single_turn --limit 100 --out runs/b.json --resume  # after a kill
    spadework eval --suite code --seeds 40                           # HumanEval, run in the sandbox
    spadework eval --suite probe --probe runs/run-1 --policy base --policy runs/run-2

Every policy plays every (task, seed) item once, without a hint, greedily (temperature 0).
The report (see ``spadework.eval.report``) is written to ``--out``, by default
``RUN_DIR/eval/eval-<time>.json`` when a policy comes from a run, else ``runs/eval-<time>.json``;
every item is journaled beside it as it is scored, and ``--resume`` plays only the items its
journal lacks (``spadework.eval.journal``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from spadework.config import CONFIG_FILE, add_set_option, load_config
from spadework.errors import UsageError
from spadework.eval.journal import Done, Journal, journal_path, open_journal, plan_of
from spadework.eval.policies import BASE, PolicySpec, distinct_names, parse_policy_spec, play_policy
from spadework.eval.probe import load_probe, probe_tasks
from spadework.eval.report import (
    EVAL_DIR,
    PolicyEval,
    accuracy_table,
    paired_rows,
    paired_table,
    report_json,
    write_report,
)
from spadework.eval.runner import ItemResult
from spadework.eval.tasks import Suite, TaskSpec, require_packages, select_tasks

DEFAULT_SEEDS = 8
MAX_POLICIES = 2


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Register ``spadework eval`` on the CLI's subparsers object (``add_subparsers()``)."""
    parser = commands.add_parser("eval", help="held-out accuracy: reasoning-gym, textarena, BFCL, HumanEval",
                                 description="Held-out accuracy of one policy, or of two compared on "
                                 "the same items.")
    parser.add_argument("--policy", action="append", metavar="SPEC",
                        help="'base', RUN_DIR, RUN_DIR/checkpoints/latest or "
                             "RUN_DIR/checkpoints/iteration-NNNN (or warm-start, start); twice to compare "
                             "two (default: base)")
    parser.add_argument("--config", type=Path, help="the config of 'base' (default: built-in defaults)")
    add_set_option(parser, "changes every policy's config (base's: --config or the defaults; a run's: its "
                           "config.toml)")
    parser.add_argument("--suite", action="append", choices=[s.value for s in Suite],
                        help="only this suite (repeatable; default: all)")
    parser.add_argument("--task", action="append", metavar="NAME",
                        help="only this task, e.g. basic_arithmetic or TowerOfHanoi-v0 (repeatable; "
                             "default: the suites' default tasks)")
    parser.add_argument("--seeds", "--limit", type=int, default=DEFAULT_SEEDS, dest="seeds",
                        help=f"items per task (default {DEFAULT_SEEDS}); for bfcl, entries per category, "
                             "drawn in a fixed order (a smaller category is played whole)")
    parser.add_argument("--seed-start", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--max-turns", type=int, help="moves per episode of the multi-turn tasks")
    parser.add_argument("--probe", type=Path, metavar="PATH",
                        help="the probe suite's environments: a run directory (its valid archived "
                             "environments) or a folder of environment files")
    parser.add_argument("--out", type=Path, help="the JSON report (default: RUN_DIR/eval/eval-<time>.json, "
                                                 "or runs/eval-<time>.json for base)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the evaluation --out names: the items its journal "
                             "(OUT.items.jsonl) holds are kept, only the rest are played")
    parser.add_argument("--json", action="store_true", help="print the JSON report instead of tables")
    parser.set_defaults(run=cmd_eval)
    return parser


def default_out(specs: Sequence[PolicySpec], stamp: str) -> Path:
    """``RUN_DIR/eval/eval-<stamp>.json`` for the first policy from a run, else ``runs/eval-<stamp>.json``."""
    run_dir = next((s.run_dir for s in specs if s.run_dir is not None), None)
    folder = run_dir / EVAL_DIR if run_dir is not None else Path("runs")
    return folder / f"eval-{stamp}.json"


def with_overrides(spec: PolicySpec, config_file: Path | None, overrides: dict[str, Any]) -> PolicySpec:
    """``spec`` with ``--set`` overrides applied to its config: a run's ``config.toml``, or for
    ``base`` ``config_file`` (None: the defaults).

    Raises:
        ConfigError: an override names no field, or its value is invalid.
    """
    if not overrides:
        return spec
    source = spec.run_dir / CONFIG_FILE if spec.run_dir is not None else config_file
    return replace(spec, config=load_config(source, overrides))


def _plan(args: argparse.Namespace) -> tuple[tuple[PolicySpec, ...], tuple[TaskSpec, ...], tuple[int, ...]]:
    """Policies, tasks and seeds from the flags; every mistake is found before anything plays."""
    given = args.policy or [BASE]
    if len(given) > MAX_POLICIES:
        raise UsageError(f"--policy given {len(given)} times; give one policy, or two to compare")
    if args.seeds < 1:
        raise UsageError(f"--seeds must be at least 1, got {args.seeds}")
    suites = args.suite or (["probe"] if args.probe else [])
    if (Suite.PROBE.value in suites) != bool(args.probe):
        raise UsageError("--suite probe and --probe PATH go together: --probe names the environments")
    tasks = select_tasks(suites, args.task or (), args.max_turns)
    overrides = dict(args.sets or ())
    specs = distinct_names([with_overrides(parse_policy_spec(text, args.config), args.config, overrides)
                            for text in given])
    if args.probe:
        tasks += probe_tasks(load_probe(args.probe), args.max_turns or specs[0].config.agent.max_turns)
    require_packages(tasks)
    return specs, tasks, tuple(range(args.seed_start, args.seed_start + args.seeds))


def _say(message: str) -> None:
    print(f"spadework eval: {message}", file=sys.stderr, flush=True)


def _evaluate(spec: PolicySpec, tasks: tuple[TaskSpec, ...], seeds: tuple[int, ...], journal: Journal,
              done: Done) -> PolicyEval:
    kept = done.get(spec.name, {})
    _say(f"{spec.name}: {len(tasks)} tasks x {len(seeds)} seeds" + (f"; {len(kept)} items kept from "
                                                                    f"{journal.path}" if kept else ""))
    start = time.perf_counter()
    def said(item: ItemResult) -> None:
        journal.record(spec.name, item)
        verdict = "solved" if item.solved else "not solved"
        seconds = item.figures.get("seconds")
        _say(f"{spec.name}: {item.key} item {item.seed}" + (f" ({item.entry})" if item.entry else "")
             + f" {verdict}" + (f" in {seconds:.0f} s" if seconds is not None else ""))

    played = play_policy(spec, tasks, seeds, on_item=said, done=kept)
    errors = played.result.errors
    note = f"; {errors} environment errors (counted unsolved)" if errors else ""
    _say(f"{spec.name}: done in {time.perf_counter() - start:.1f} s{note}")
    return played


def _call_rates(bfcl: dict[str, Any]) -> str:
    if "call_rate" not in bfcl:
        return ""
    return (f"; single-turn replies with a call {bfcl['call_rate']:.2f}, with calls of listed functions only "
            f"{bfcl['valid_call_rate']:.2f}")


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``spadework eval`` (see the module); 0 when the report is written.

    Raises:
        UsageError: bad flags, a missing run or checkpoint, a missing package.
    """
    specs, tasks, seeds = _plan(args)
    if args.resume and args.out is None:
        raise UsageError("--resume continues the evaluation whose report --out names; give --out")
    out = args.out or default_out(specs, time.strftime("%Y%m%d-%H%M%S"))
    journal, done = open_journal(journal_path(out), plan_of(specs), resume=args.resume)
    evals = [_evaluate(spec, tasks, seeds, journal, done) for spec in specs]
    report = report_json(evals, datetime.now(UTC).isoformat(timespec="seconds"))
    path = write_report(out, report)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    console.print(accuracy_table(evals))
    for e in evals:
        if "bfcl" in (shown := e.to_json()):
            b = shown["bfcl"]
            console.print(f"{e.name} on BFCL ({b['format']} format): overall {b['overall']:.3f} (mean of the "
                          f"categories); {b['positional_calls']:.0f} calls with positional arguments, "
                          f"{b['undecodable']:.0f} undecodable replies; {b['processed_per_entry_token']:.2f} "
                          f"prompt tokens computed per entry token; {b['seconds_per_entry']:.0f} s per entry"
                          + _call_rates(b), markup=False)
    if len(evals) == MAX_POLICIES:
        console.print(paired_table(paired_rows(evals[0], evals[1])))
    console.print(f"report: {path}", markup=False)
    return 0
