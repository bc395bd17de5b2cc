"""The ``spadework`` command line: run, validate, play, archive, and the commands of the other parts."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from spadework import __version__
from spadework.ablate import Ablation, HeldOut, ablate, markdown_table
from spadework.archive import Archive, EnvRecord
from spadework.archive.command import add_parser as add_archive_parser
from spadework.calibrate.command import add_parser as add_calibrate_parser
from spadework.config import add_set_option, load_config
from spadework.errors import SpadeworkError, UsageError
from spadework.eval.command import add_parser as add_eval_parser
from spadework.eval.probe import held_out_tasks
from spadework.learn.distributed import is_follower
from spadework.paths import describe_os_error, need_folder
from spadework.policy.settings import PolicyKind
from spadework.progress import RichReporter
from spadework.report import build_report
from spadework.report.command import add_parser as add_report_parser
from spadework.rollout.command import add_parser as add_play_parser
from spadework.run import RunSummary, resumed_config, run
from spadework.sandbox import Sandbox
from spadework.tracking.settings import WandbMode
from spadework.validate.files import FileVerdict, validate_file, verdict_table


class _Output:
    """Rich output on stdout, made when first used (so it sees the stdout of that moment);
    wide when piped, so tables are not folded into a file."""

    def print(self, *args: Any, **kwargs: Any) -> None:
        width = None if sys.stdout.isatty() else 200
        Console(highlight=False, width=width).print(*args, **kwargs)


out = _Output()


def fail(message: str) -> None:
    """One plain line on stderr (never wrapped, never a traceback)."""
    print(f"spadework: {message}", file=sys.stderr, flush=True)


def build_parser() -> argparse.ArgumentParser:
    """The ``spadework`` command line: every subcommand and its options."""
    parser = argparse.ArgumentParser(prog="spadework", description=(
        "Self-play in adaptive synthetic executable environments."))
    parser.add_argument("--version", action="version", version=f"spadework {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("validate", help="validate environment files and print verdicts")
    check.add_argument("files", nargs="+", type=Path, metavar="FILE",
                       help="a Python module (.py) or a designer reply with one ```python block")
    check.add_argument("--json", action="store_true", help="one JSON object per file per line")
    check.add_argument("--run-dir", type=Path, help="also record every verdict in RUN_DIR's archive")
    check.add_argument("--verbose", "-v", action="store_true", help="show every check")
    check.add_argument("--levels", action="store_true",
                       help="validate every difficulty the environment declares (as a run with a "
                            "difficulty controller does)")
    check.set_defaults(run=cmd_validate)

    add_play_parser(commands)

    selfplay = commands.add_parser("run", help="run self-play (designer and agent) in a run directory")
    add_run_options(selfplay)
    selfplay.add_argument("--resume", type=Path, metavar="RUN_DIR",
                          help="continue this run with its own config.toml (--set and the options above "
                               "change it; not with --config or --run-dir)")
    selfplay.add_argument("--run-dir", type=Path,
                          help="the new run's folder, created when missing (default: runs/run-<date>-<time>)")
    selfplay.set_defaults(run=cmd_run)

    add_ablate_parser(commands)
    add_report_parser(commands)
    add_eval_parser(commands)
    add_calibrate_parser(commands)

    add_archive_parser(commands)
    return parser


def cmd_validate(args: argparse.Namespace) -> int:
    """``spadework validate``: 0 when every file is valid, 1 otherwise."""
    if args.run_dir:
        need_folder(args.run_dir, "--run-dir")
    archive = Archive.open(args.run_dir) if args.run_dir else None
    results: list[FileVerdict] = []
    with Sandbox() as sandbox:
        for path in args.files:
            result = validate_file(path, sandbox, args.levels)
            results.append(result)
            if result.verdict is None:
                fail(result.error)
            elif archive is not None:
                archive.add(EnvRecord.new(result.source, result.verdict, str(path)))
            if args.json:
                print(result.json_line(), flush=True)
        if not args.json:
            out.print(verdict_table(results, args.verbose))
            valid = sum(1 for r in results if r.valid)
            out.print(f"{valid} of {len(results)} valid; isolation: {sandbox.isolation.value}")
    if archive is not None:
        if not args.json:
            out.print(f"recorded in {archive.path}")
        archive.close()
    return 0 if all(r.valid for r in results) else 1


def run_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The config fields the run options set: every ``--set`` in order, then the named options
    given (which win over ``--set``); options not given are left out."""
    named = {"run.iterations": args.iterations, "run.designs": args.designs,
             "run.plays": args.plays, "run.seed": args.seed, "policy.kind": args.policy,
             "policy.model": args.model, "corpus.path": args.corpus, "learn.enabled": args.train,
             "sandbox.executor": args.executor, "tracking.tensorboard": args.tensorboard,
             "tracking.wandb": args.wandb}
    return {**dict(args.sets or ()), **{k: v for k, v in named.items() if v is not None}}


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options ``run`` and ``ablate`` share."""
    parser.add_argument("--config", type=Path, help="a TOML config (default: built-in defaults)")
    add_set_option(parser, "the named options below win over --set")
    parser.add_argument("--iterations", type=int, help="self-play iterations (run.iterations)")
    parser.add_argument("--designs", type=int, help="environments per iteration (run.designs)")
    parser.add_argument("--plays", type=int, help="paired seeds per valid environment (run.plays)")
    parser.add_argument("--policy", choices=[k.value for k in PolicyKind],
                        help="the inference backend of both roles (policy.kind)")
    parser.add_argument("--model", help="preset name or GGUF path; a model name with --policy openai "
                        "(policy.model)")
    parser.add_argument("--corpus", help="'default', a .jsonl/.parquet file or a folder (corpus.path)")
    parser.add_argument("--seed", type=int,
                        help="seeds the corpus sampler, play seeds and sampling (run.seed)")
    parser.add_argument("--executor", choices=["local", "ray"],
                        help="where environments run: this machine, or Ray actors (needs spadework[ray])")
    parser.add_argument("--train", action=argparse.BooleanOptionalAction, default=None,
                        help="train both roles after every iteration (LoRA; needs spadework[train]); "
                             "--no-train: do not (default: the config's learn.enabled)")
    parser.add_argument("--tensorboard", action="store_true", default=None,
                        help="write TensorBoard event files into RUN_DIR/tensorboard (tracking.tensorboard)")
    parser.add_argument("--wandb", choices=[m.value for m in WandbMode],
                        help="log to Weights & Biases: off, offline (into the run directory; wandb sync "
                             "uploads it later) or online (tracking.wandb)")


def add_ablate_parser(commands: Any) -> None:
    """The ``spadework ablate`` command and its options."""
    ablation = commands.add_parser("ablate", help="full SPADE against its ablations, in one table")
    add_run_options(ablation)
    ablation.add_argument("--out", type=Path, help="default: runs/ablate-<date>-<time>")
    ablation.add_argument("--arms", default=",".join(a.value for a in Ablation),
                          help="comma-separated, of: " + ", ".join(a.value for a in Ablation))
    ablation.add_argument("--eval-seeds", type=int, default=4,
                          help="held-out items per task for each arm's policy (0: no held-out eval; "
                          "the tasks are the config's [eval] suites, tasks and probe)")
    ablation.set_defaults(run=cmd_ablate)


def cmd_ablate(args: argparse.Namespace) -> int:
    """``spadework ablate``: full SPADE against its ablations, in one table."""
    try:
        arms = [Ablation(name.strip()) for name in args.arms.split(",") if name.strip()]
    except ValueError as exc:
        raise UsageError(f"--arms: {exc}; choose from {', '.join(a.value for a in Ablation)}") from None
    overrides = run_overrides(args)
    config = load_config(args.config, overrides)  # a bad config or --set fails before any arm runs
    if not config.learn.enabled and Ablation.FROZEN_DESIGNER in arms:
        out.print("note: without --train nothing is trained, so frozen-designer plays like full")
    target = need_folder(args.out or Path("runs") / time.strftime("ablate-%Y%m%d-%H%M%S"), "--out")

    held_out = HeldOut(args.eval_seeds) if args.eval_seeds > 0 else None
    if held_out is not None:  # a bad task, a missing library or an empty probe fails before any arm runs
        held_out_tasks(config.eval, config.agent.max_turns)
    rows = ablate(arms, target, overrides, config_file=args.config,
                  run_arm=lambda config, run_dir, resume: run(config, run_dir, resume=resume),
                  evaluate=held_out, say=out.print)
    out.print(markdown_table(rows), markup=False)
    out.print(f"written: {target}/ablation.md, ablation.json and ablation.html")
    return 0


def check_run_paths(args: argparse.Namespace) -> None:
    """Refuse ``run`` options that would be silently ignored, and a file given as a run folder."""
    if args.resume is not None and args.run_dir is not None:
        raise UsageError("--run-dir and --resume cannot be combined; --resume names the run directory")
    if args.resume is not None and args.config is not None:
        raise UsageError("--config and --resume cannot be combined; a resumed run keeps its own "
                         "config.toml (change fields with --set or the named options)")
    if args.resume is not None:
        need_folder(args.resume, "--resume", "the run directory a run wrote")
    if args.run_dir is not None:
        need_folder(args.run_dir, "--run-dir")


def cmd_run(args: argparse.Namespace) -> int:
    """``spadework run``: a new run, or ``--resume`` of one."""
    check_run_paths(args)
    overrides = run_overrides(args)
    if args.resume is not None:
        run_dir = args.resume
        config = resumed_config(run_dir, overrides)
    else:
        run_dir = args.run_dir or Path("runs") / time.strftime("run-%Y%m%d-%H%M%S")
        config = load_config(args.config, overrides)
    if is_follower():  # another learner process under accelerate launch: it only trains
        run(config, run_dir, resume=args.resume is not None)
        return 0
    try:
        with RichReporter() as reporter:
            summary = run(config, run_dir, resume=args.resume is not None, reporter=reporter)
    except KeyboardInterrupt:
        fail(f"interrupted; nothing committed is lost. Continue with: spadework run --resume {run_dir}")
        return 130
    except OSError as exc:  # a full disk: what is committed stays, and the run can go on
        raise UsageError(describe_os_error(exc, resume=f"spadework run --resume {run_dir}",
                                          where=run_dir)) from None
    print_summary(summary)
    try:
        out.print(f"report: {build_report(summary.run_dir)} (spadework report {summary.run_dir} --check "
                  "renders it in a browser)")
    except SpadeworkError as exc:  # the run itself is committed; only its page is missing
        fail(f"the run is saved, but its report could not be written: {exc}")
    return 0


def print_summary(summary: RunSummary) -> None:
    """The end of a run: its directory and the best environments it found."""
    with Archive.open(summary.run_dir, create=False) as archive:
        finals = [(r, design.play) for r in archive.records(valid=True)
                  if (design := r.design) is not None and design.final]
    figures = [(r, (p.regret, p.solve_rate_nohint, p.solve_rate_hint) if p else (0.0, 0.0, 0.0))
               for r, p in finals]  # (regret, solved without the hint, with it)
    best = sorted(figures, key=lambda f: -f[1][0])[:5]
    out.print(f"\nrun directory: [bold]{summary.run_dir}[/]")
    out.print(f"{summary.iterations} iterations; {summary.environments} environments archived "
              f"(every attempt), {summary.valid} valid")
    for record, (regret, nohint, hint) in best:
        out.print(f"  #{record.id} {record.class_name}: regret {regret:.2f}, "
                  f"solved {nohint:.0%} without the hint, {hint:.0%} with it", markup=False)
    out.print(f"see: spadework archive ls {summary.run_dir}; metrics in {summary.run_dir}/metrics.jsonl")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``spadework`` command line; the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except SpadeworkError as exc:
        fail(str(exc))
        return 2
    except OSError as exc:  # a path that is the wrong kind, unreadable or on a full disk: one line
        fail(describe_os_error(exc))
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
