"""Every argument of every subcommand explains itself in ``--help``."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from spadework.cli import build_parser

SELF_EXPLAINING = (argparse._HelpAction, argparse._VersionAction)


def walk(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
    """Every (command path, action) of ``parser`` and its subcommands, subcommand choices included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from ((f"{path} {choice.dest}", choice) for choice in action._choices_actions)
            for name, sub in action.choices.items():
                yield from walk(sub, f"{path} {name}")
        elif not isinstance(action, SELF_EXPLAINING):
            yield path, action


def test_every_argument_of_every_subcommand_has_help():
    found = list(walk(build_parser(), "spadework"))
    missing = [f"{path}: {'/'.join(action.option_strings) or action.dest}" for path, action in found
               if not action.help or action.help == argparse.SUPPRESS]
    assert missing == []
    commands = {path for path, _ in found}
    assert {"spadework run", "spadework ablate", "spadework eval", "spadework calibrate",
            "spadework report", "spadework archive ls", "spadework play"} <= commands


def test_the_walk_finds_an_argument_without_help():
    parser = argparse.ArgumentParser(prog="p")
    sub = parser.add_subparsers().add_parser("x", help="x")
    sub.add_argument("--quiet", action="store_true")
    assert [(path, action.dest) for path, action in walk(parser, "p")] == [("p x", "x"), ("p x", "quiet")]


def test_the_run_options_name_their_config_field():
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = commands.choices["run"].format_help()
    for expected in ("--set SECTION.FIELD=VALUE", "--train, --no-train", "--tensorboard",
                     "--wandb {off,offline,online}", "tracking.tensorboard", "the named options below "
                     "win over --set"):
        assert expected in " ".join(text.split())
