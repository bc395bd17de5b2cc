"""The admission gate on the designs a person read: every design of the ablation arms (and the design
check) that a person classified after reading it (``results/second-solver/person*.txt``: wrong key,
fair, trivial, irreducible, other), validated again in the real sandbox with today's checks, no
model anywhere (the second solver off), each run's own validation settings. One line a design, then
a table by class: how many each check refused, and how many are still valid.

    python benchmarks/gate_on_arms.py results/second-solver/person*.txt > results/gate/arms.txt

The classes are that person's reading; the solvers the person wrote encode it (see
docs/results/coevolution-wrong-keys.md), so the figures say how far a model-free gate reaches
against a careful reading, not an independent accuracy.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import shlex
import subprocess
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

from spadework.archive import Archive
from spadework.config import CONFIG_FILE, load_config
from spadework.engines import open_sandbox, validator_settings
from spadework.validate import ValidatorConfig, read_source, validate
from spadework.validate.parse import ReplyCode

COMMAND = re.compile(r"^# (?:R=(?P<r>\S+); )?python benchmarks/second_solver\.py (?P<args>.*)$")


def classified(files: list[Path]) -> dict[str, str]:
    """Each design spec a person classified (``RUN_DIR:ID`` or a file), with its class (the last
    reading of a spec wins)."""
    found: dict[str, str] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            match = COMMAND.match(line)
            if match is None:
                continue
            text = match["args"].replace("$R", match["r"] or "$R")
            words = shlex.split(text)
            specs = words[:words.index("--classes")]
            classes = dict(item.split("=", 1) for item in words[words.index("--classes") + 1].split(","))
            for spec in specs:
                found[spec] = classes[spec.rpartition(":")[2] if ":" in spec else Path(spec).stem]
    return found


def verdict_of(spec: str, sandbox) -> tuple[str, str]:
    """(first failing check or ``valid``, its message) of one design under today's checks."""
    folder, _, record = spec.rpartition(":")
    settings = ValidatorConfig()
    if folder and record.isdigit():
        run = Path(folder)
        with Archive.open(run, create=False) as archive:
            found = archive.get(int(record))
        config = load_config(run / CONFIG_FILE)
        design = found.design
        settings = validator_settings(config, design.iteration) if design is not None else settings
        source = found.source
    else:
        text, is_reply = read_source(Path(spec))
        source = (ReplyCode.of(text).code if is_reply else text) or ""
    settings = dataclasses.replace(settings, second_solver=False)  # the gate alone: no solver, no model
    verdict = validate(source, sandbox, settings)
    if verdict.failure is None:
        return "valid", ""
    return verdict.failure.name, verdict.failure.message


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    designs = classified(args.files)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"# python benchmarks/gate_on_arms.py {' '.join(map(str, args.files))}")
    print(f"# {date.today()}, commit {commit}; {len(designs)} designs a person classified")
    by_class: defaultdict[str, Counter[str]] = defaultdict(Counter)
    with open_sandbox(load_config(None)) as sandbox:
        for spec, kind in designs.items():
            check, message = verdict_of(spec, sandbox)
            by_class[kind][check] += 1
            print(f"{spec} ({kind}): {check} {message[:220]}")
    checks = sorted({c for counts in by_class.values() for c in counts})
    print()
    print("| class | n | " + " | ".join(checks) + " |")
    print("|---|---|" + "---|" * len(checks))
    for kind, counts in sorted(by_class.items()):
        print(f"| {kind} | {sum(counts.values())} | " + " | ".join(str(counts[c]) for c in checks) + " |")


if __name__ == "__main__":
    main()
