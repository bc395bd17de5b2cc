"""Answer puzzles whose text states their own answer, and what regret paid them.

    python benchmarks/stated_answers.py results/coevolution-ablate/*

A puzzle like "Find the record whose code is record1. Change its value to 76." (key ``76``) is
solved by copying its one number; when a no-hint play loses it, it lost on the reply's form, and the
regret such a puzzle earns is format noise. The check measured here flags an answer-form
environment when, on every seed it was played on, its key is the only number in the opening text
(so a choice among shown numbers, "the largest of 3, 7 and 5", is not flagged), or the only phrase
it quotes: the validator's ``stated_answer`` check and the play audit's (``validate.answers``). It reads the
episodes a run kept (each play's opening text and key) and the archive (which design a played
environment is, and what it was paid); it prints each flagged environment and how much of the
run's designer pay went to them.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

from spadework.archive import Archive
from spadework.validate.answers import states_its_answer

REPLAY = re.compile(r"i\d+-r(\d+)$")


@dataclass(frozen=True)
class Design:
    """A valid design of the run: its archive id, its id in the iteration that made it, class and pay."""

    record_id: int
    design_id: str
    class_name: str
    iteration: int
    pay: float | None
    regret: float


def designs(run_dir: Path) -> list[Design]:
    """The run's valid designs, from its archive."""
    with Archive.open(run_dir, create=False) as archive:
        return [Design(record.id, design.design_id, record.class_name or "-", design.iteration,
                       design.designer_reward, float(record.metrics.get("regret", 0.0)))
                for record in archive.records(valid=True)
                if (design := record.design) is not None and record.id is not None]


def flagged(run_dir: Path) -> tuple[int, dict[Design, int], float]:
    """How many answer-form designs were played; those that state their answer on every played
    seed, each with its number of plays; and the run's designer pay in all."""
    every = designs(run_dir)
    # as the episodes name a design: ``iN-dK`` in the iteration that made it, its archive id in a replay
    known = {key: d for d in every for key in (d.design_id, str(d.record_id))}
    plays: dict[Design, list[bool]] = {}
    for path in sorted((run_dir / "episodes").glob("iteration-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            episode = json.loads(line)
            check, replay = episode.get("check"), REPLAY.match(episode["env_id"])
            design = known.get(replay.group(1) if replay else episode["env_id"])
            if design is None or check is None or episode.get("tools"):
                continue
            plays.setdefault(design, []).append(states_its_answer(check["observation"], check["solution"]))
    return len(plays), {d: len(p) for d, p in plays.items() if all(p)}, sum(d.pay or 0.0 for d in every)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dirs", type=Path, nargs="+")
    args = parser.parse_args()
    for run_dir in args.run_dirs:
        played, found, paid = flagged(run_dir)
        print(f"{run_dir}: {played} answer-form designs played, {len(found)} state their answer")
        for d, n in sorted(found.items(), key=lambda item: item[0].record_id):
            print(f"  {d.record_id} {d.class_name} (iteration {d.iteration}): all {n} plays; "
                  f"regret {d.regret:.2f}, paid {'-' if d.pay is None else f'{d.pay:.2f}'}")
        print(f"  pay to them {sum(d.pay or 0.0 for d in found):.2f} of the run's {paid:.2f}")


if __name__ == "__main__":
    main()
