"""``spadework play FILE [--seed N]``: play an environment in the terminal, sandboxed.

Between actions, ``:hint`` shows the hint, ``:solution`` the solution's actions and ``:quit`` ends
the episode.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path
from typing import Any

from rich.console import Console

from spadework.envs.contract import episode_score, is_solved
from spadework.envs.tool_schema import signature_lines
from spadework.errors import CheckFailed, EnvError, UsageError
from spadework.sandbox import EnvHandle, Sandbox
from spadework.validate import read_source
from spadework.validate.files import source_of
from spadework.validate.static import parse_module, the_env_class

QUIT = (":quit", ":q")
"""What ends the episode from the keyboard."""


def _print(*args: Any, **kwargs: Any) -> None:
    """Rich output on stdout; wide when piped, so nothing is folded into a file."""
    Console(highlight=False, width=None if sys.stdout.isatty() else 200).print(*args, **kwargs)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Register the ``play`` command on the CLI's subparsers."""
    play = commands.add_parser("play", help="play an environment in the terminal (sandboxed)")
    play.add_argument("file", type=Path, metavar="FILE",
                      help="a Python module (.py) or a designer reply with one ```python block")
    play.add_argument("--seed", type=int, default=0, help="the episode's seed (default 0)")
    play.add_argument("--difficulty", type=int, metavar="N",
                      help="play at difficulty N, one the environment declares (default: its own)")
    play.set_defaults(run=cmd_play)
    return play


def cmd_play(args: argparse.Namespace) -> int:
    """Load the file's environment in a sandbox and play it from stdin; 1 when the environment
    ended with an error.

    Raises:
        UsageError: the file is missing, holds no environment class, or does not load.
    """
    text, is_reply = read_source(args.file)
    code = source_of(text, is_reply)
    try:
        the_env_class(parse_module(code))
    except CheckFailed as exc:
        raise UsageError(f"{args.file}: {exc}") from None
    with Sandbox() as sandbox:
        try:
            env = sandbox.open(code, difficulty=args.difficulty)
        except EnvError as exc:
            raise UsageError(f"{args.file}: cannot load it: {exc}") from None
        with closing(env):
            return play_loop(env, args.seed, sys.stdin)


def play_loop(env: EnvHandle, seed: int, lines: Iterable[str]) -> int:
    """Play one episode of ``env`` with an action a line of ``lines`` until it ends, showing each
    observation and reward, then the score; 0, or 1 when the environment ended with an error."""
    try:
        observation, info = env.reset(seed)
        _print(f"[bold]{env.class_name}[/] (seed {seed}, up to {env.max_turns} turns; "
               ":hint, :solution, :quit)\n")
        tools = signature_lines(info.get("tools") if isinstance(info, dict) else None)
        if tools:
            _print("tools (call them as [name(arg=value, ...)]):\n  " + "\n  ".join(tools) + "\n",
                   markup=False)
        _print(observation, markup=False)
        _print("> ", end="")
        rewards: list[float] = []
        for line in lines:
            action = line.rstrip("\n")
            if action in QUIT:
                break
            if action in (":hint", ":solution"):
                _print(str(env.hint() if action == ":hint" else env.solution()), markup=False)
                _print("> ", end="")
                continue
            observation, reward, terminated, truncated, _ = env.step(action)
            rewards.append(float(reward))
            _print(observation, markup=False)
            _print(f"[dim]reward {reward:g}[/]")
            if terminated or truncated:
                break
            _print("> ", end="")
    except EnvError as exc:
        print(f"spadework: the environment ended: {exc}", file=sys.stderr, flush=True)
        return 1
    score = episode_score(rewards)
    _print(f"\nscore {score:g} after {len(rewards)} turns" + (" - solved!" if is_solved(score) else ""))
    return 0
