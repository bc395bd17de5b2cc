"""``spadework calibrate``: does regret rank environments of known kind right?

Usage::

    spadework calibrate                                  # the bundled set, the base policy, 4 seeds
    spadework calibrate --policy runs/a --plays 8        # a run's newest checkpoint
    spadework calibrate my_envs/ frontier_mine.py --config my.toml --json

Every file is validated in the sandbox (a leaking file rejected is a pass; one accepted is
flagged); every valid one is played on K paired seeds from ``--seed-start`` (10000 by default,
a range kept for calibration) without and with its hint. The report (see
``spadework.calibrate.report``) goes to ``--out``, by default
``RUN_DIR/calibration/calibration-<time>.json`` when the policy comes from a run, else
``runs/calibration-<time>.json``. Exit status 1 when the validator disagreed with a file's
kind (a leak missed, or a non-leaking file rejected).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from spadework.calibrate.climb import DEFAULT_ROUNDS
from spadework.calibrate.records import Calibration, Screening
from spadework.calibrate.report import (
    CALIBRATION_DIR,
    regret_table,
    rejected_table,
    report_json,
    summary_lines,
)
from spadework.calibrate.runner import (
    CALIBRATION_SEED_START,
    DEFAULT_PLAYS,
    CalibrationFile,
    calibrate,
    calibration_rollout,
    load_files,
)
from spadework.config import add_set_option
from spadework.engines import sandbox_settings
from spadework.errors import UsageError
from spadework.eval.command import with_overrides
from spadework.eval.policies import BASE, PolicySpec, load_eval_policy, parse_policy_spec
from spadework.eval.report import write_report
from spadework.policy.base import Policy
from spadework.policy.settings import PolicySettings, build_policy
from spadework.sandbox import Sandbox


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Register ``spadework calibrate`` on the CLI's subparsers object (``add_subparsers()``)."""
    parser = commands.add_parser("calibrate", help="check that regret ranks environments of known kind right",
                                 description="Validate and play environments of known kind (easy, frontier, "
                                 "impossible, leaking) and check that regret ranks them right.")
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="environment files or folders of them (default: the bundled set); the kind "
                             "is the name's prefix: easy_, frontier_, impossible_, leaking_ (others: not "
                             "ranked)")
    parser.add_argument("--policy", default=BASE, metavar="SPEC",
                        help="'base', RUN_DIR, RUN_DIR/checkpoints/latest or "
                             "RUN_DIR/checkpoints/iteration-NNNN (or warm-start, start) (default: base)")
    parser.add_argument("--config", type=Path, help="the config of 'base' (default: built-in defaults)")
    add_set_option(parser, "changes the policy's config (base's: --config or the defaults; a run's: its "
                           "config.toml)")
    parser.add_argument("--plays", type=int, default=DEFAULT_PLAYS,
                        help=f"paired seeds per environment (default {DEFAULT_PLAYS})")
    parser.add_argument("--seed-start", type=int, default=CALIBRATION_SEED_START,
                        help=f"the first seed (default {CALIBRATION_SEED_START})")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                        help="with [difficulty] controller on (--set difficulty.controller=sliding): rounds "
                             "of difficulty.window no-hint plays that move each environment's difficulty "
                             f"before its paired plays (default {DEFAULT_ROUNDS})")
    parser.add_argument("--out", type=Path, help="the JSON report (default: RUN_DIR/calibration/"
                                                 "calibration-<time>.json, or runs/calibration-<time>.json)")
    parser.add_argument("--json", action="store_true", help="print the JSON report instead of tables")
    parser.set_defaults(run=cmd_calibrate)
    return parser


def default_out(spec: PolicySpec, stamp: str) -> Path:
    """``RUN_DIR/calibration/calibration-<stamp>.json`` for a policy from a run, else under ``runs/``.

    >>> from spadework.config import load_config
    >>> from spadework.eval.policies import PolicySource
    >>> default_out(PolicySpec("base", "base", PolicySource.BASE, load_config(None)), "T").as_posix()
    'runs/calibration-T.json'
    """
    folder = spec.run_dir / CALIBRATION_DIR if spec.run_dir is not None else Path("runs")
    return folder / f"calibration-{stamp}.json"


def _say(message: str) -> None:
    print(f"spadework calibrate: {message}", file=sys.stderr, flush=True)


def run_calibration(spec: PolicySpec, files: Sequence[CalibrationFile], seeds: Sequence[int],
                    build: Callable[[PolicySettings], Policy] = build_policy, rounds: int = DEFAULT_ROUNDS
                    ) -> Calibration:
    """Build ``spec``'s policy, calibrate ``files`` with it on ``seeds`` in a real sandbox, close it.

    Args:
        spec: the policy (``parse_policy_spec``); its config gives the rollout settings.
        files: the environment files (``load_files``).
        seeds: the paired seeds.
        build: the backend constructor (a fake in tests).
        rounds: with ``[difficulty] controller`` on, its rounds of no-hint plays before the paired ones.
    """
    policy = load_eval_policy(spec, build)
    try:
        with Sandbox(sandbox_settings(spec.config)) as sandbox:
            return calibrate(files, policy, sandbox, calibration_rollout(spec.config), seeds,
                             spec.config.rewards.blend.settings(), spec.config.difficulty, rounds)
    finally:
        policy.close()


def print_report(calibration: Calibration, path: Path) -> None:
    """The tables and findings on stdout (wide when piped)."""
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    console.print(regret_table(calibration))
    rejected = rejected_table(calibration)
    if rejected is not None:
        console.print(rejected)
    for line in summary_lines(calibration):
        console.print(line)
    console.print(f"report: {path}", markup=False)


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Run ``spadework calibrate`` (see the module).

    Returns:
        0 when every file's verdict agrees with its kind, 1 when a leak was missed or a
        non-leaking file was rejected.

    Raises:
        UsageError: bad flags, a missing path, a missing run or checkpoint.
    """
    if args.plays < 1:
        raise UsageError(f"--plays must be at least 1, got {args.plays}")
    files = load_files(args.paths)
    spec = with_overrides(parse_policy_spec(args.policy, args.config), args.config, dict(args.sets or ()))
    seeds = tuple(range(args.seed_start, args.seed_start + args.plays))
    _say(f"{spec.name}: {len(files)} files, {len(seeds)} paired seeds from {seeds[0]}")
    start = time.perf_counter()
    if args.rounds < 0:
        raise UsageError(f"--rounds must be 0 or more, got {args.rounds}")
    calibration = run_calibration(spec, files, seeds, rounds=args.rounds)
    _say(f"done in {time.perf_counter() - start:.1f} s")
    report = report_json(calibration, (spec.name, spec.spec), calibration_rollout(spec.config),
                         datetime.now(UTC).isoformat(timespec="seconds"))
    path = write_report(args.out or default_out(spec, time.strftime("%Y%m%d-%H%M%S")), report)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(calibration, path)
    disagreed = [r for r in calibration.results if r.screening in (Screening.LEAK_MISSED, Screening.REJECTED)]
    return 1 if disagreed else 0
