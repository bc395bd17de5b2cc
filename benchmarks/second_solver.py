"""Would the second solver catch the wrong keys a person found? The check, on classified designs.

Each design (``RUN_DIR:ID``, an archived environment, or a file holding one, a reply or a module)
is an answer puzzle a person has read and classified (``--classes``). The designer is asked, as
``designer.second_solver`` asks it, for ``solve(observation)`` beside its own environment (the
source shown, one reply at temperature 0; of a reply that writes the module again, its ``solve``
and helpers are taken, not its class), and the environment with that solver is validated with
the check on, in the real sandbox. ``--solvers DIR`` takes ``DIR/<name>.py`` (a person's solver:
what a careful one would answer) in place of asking. One line a design: its name, its class, the
check that failed (or ``valid``) and the message; then the JSON of it all.

    python benchmarks/second_solver.py results/coevolution-ablate/full:10 results/...:39 \\
        results/coevolution-design-check/valid/*.md --classes "10=wrong key,39=wrong key,..." \\
        [--policy CHECKPOINT] [--set SECTION.FIELD=VALUE] [--blind] [--solvers DIR] [--replies DIR]

``--blind`` shows the policy three openings of the puzzle (seeds 101-103) in place of its source: a
solver written from the text alone, which cannot copy the key's method.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections.abc import Sequence
from pathlib import Path

from spadework.archive import Archive
from spadework.config import parse_assignment
from spadework.designer.prompts import system_message, template
from spadework.engines import open_sandbox
from spadework.eval.command import with_overrides
from spadework.eval.policies import load_eval_policy, parse_policy_spec
from spadework.policy.base import Message, Role, Sampling
from spadework.sandbox import SandboxProtocol
from spadework.validate import ValidatorConfig, read_source, validate
from spadework.validate.parse import ReplyCode
from spadework.validate.second_solver import solver_source

BLIND = ("Here are puzzles of one kind, as a player sees them:\n\n{puzzles}\n\nWrite `solve(observation)`: "
         "given the text of any puzzle of this kind, it returns the answer. Reply with exactly one "
         "```python code block that holds `solve` and the imports it needs, and nothing else.")
BLIND_SEEDS = (101, 102, 103)
"""Seeds of the openings a blind solver is shown (apart from the 16 the check plays)."""

ASK = ("Here is an answer puzzle you wrote:\n\n```python\n{source}\n```\n\n{line}\n\nReply with exactly one "
       "```python code block that holds `solve` and the imports it needs, and nothing else.")


def design_source(spec: str) -> tuple[str, str]:
    """A design's name and module source: ``RUN_DIR:ID`` from the run's archive, else a file."""
    folder, _, record = spec.rpartition(":")
    if folder and record.isdigit() and Path(folder).is_dir():
        with Archive.open(Path(folder), create=False) as archive:
            return record, archive.get(int(record)).source
    text, is_reply = read_source(Path(spec))
    code = ReplyCode.of(text).code if is_reply else text
    return Path(spec).stem, code or ""


def solver_of(name: str, source: str, policy, solvers: Path | None, replies: Path | None,
              blind: Sequence[str] = ()) -> str:
    """The design's solver: the person's file, or the policy's reply to the check's request (shown the
    source; with ``blind``, these openings of the puzzle instead)."""
    if solvers is not None:
        return (solvers / f"{name}.py").read_text(encoding="utf-8")
    if blind:
        shown = "\n\n".join(f"Puzzle {k}:\n{text}" for k, text in enumerate(blind, start=1))
        asked = BLIND.format(puzzles=shown)
    else:
        asked = ASK.format(source=source.strip(), line=template("design_answer_solver").template.strip())
    conversation = [system_message(), Message(Role.USER, asked)]
    reply = policy.generate([conversation], Sampling(temperature=0.0, max_tokens=400))[0].text
    if replies is not None:
        replies.mkdir(parents=True, exist_ok=True)
        (replies / f"{name}.md").write_text(reply, encoding="utf-8")
    return replied_solver(ReplyCode.of(reply).code or "")


def openings(sandbox: SandboxProtocol, source: str, seeds: Sequence[int] = BLIND_SEEDS) -> list[str]:
    """The puzzle's first observation on each seed, read in the sandbox."""
    env = sandbox.open(source)
    try:
        return [str(env.reset(seed)[0]) for seed in seeds]
    finally:
        env.close()


def replied_solver(code: str) -> str:
    """The solver of a reply: its ``solve`` with the imports, functions and helpers it needs, never an
    environment class (a reply that writes the whole module again keeps the archived key)."""
    try:
        return solver_source(ast.parse(code)) or ""
    except SyntaxError:
        return code  # the validator names the syntax error


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("designs", nargs="+", help="RUN_DIR:ID or a file holding an answer puzzle")
    parser.add_argument("--classes", default="", help="NAME=class,... as read by a person")
    parser.add_argument("--policy", default="base", help="'base' or a checkpoint, as spadework eval takes")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.FIELD=VALUE",
                        help="any config field of the policy's (e.g. policy.model=qwen2.5-coder-0.5b)")
    parser.add_argument("--solvers", type=Path, help="DIR/<name>.py: a person's solvers, no model asked")
    parser.add_argument("--blind", action="store_true", help="show the policy three openings of the puzzle, "
                        "not its source: a solver that cannot copy the key's method")
    parser.add_argument("--replies", type=Path, help="keep the designer's solver replies in this folder")
    args = parser.parse_args()
    classes = dict(item.split("=", 1) for item in args.classes.split(",") if "=" in item)
    spec = with_overrides(parse_policy_spec(args.policy), None, dict(parse_assignment(t) for t in args.sets))
    policy = None if args.solvers else load_eval_policy(spec)
    rows = []
    with open_sandbox(spec.config) as sandbox:
        for design in args.designs:
            name, source = design_source(design)
            shown = openings(sandbox, source) if args.blind and not args.solvers else []
            solver = solver_of(name, source, policy, args.solvers, args.replies, shown)
            verdict = validate(f"{source.rstrip()}\n\n\n{solver.strip()}\n", sandbox,
                               ValidatorConfig(second_solver=True))
            failed = verdict.failure
            rows.append({"design": name, "class": classes.get(name, "-"),
                         "check": failed.name if failed else "valid",
                         "message": failed.message[:300] if failed else ""})
            print(f"{name} ({rows[-1]['class']}): {rows[-1]['check']} {rows[-1]['message']}", flush=True)
    print(json.dumps({"policy": "person" if args.solvers else args.policy, "designs": rows}))


if __name__ == "__main__":
    main()
