"""How often a blind guess wins the valid designs of runs: ``Verdict.chance`` as each run's validator
stored it (the best share of the compared seeds one seed's solution wins beyond its own), its
distribution per run, and every design at or above ``--show``; then the bundled calibration set,
validated again. What ``designer.max_chance`` (the random-guess gate) would refuse at a limit.

    A=results/coevolution-ablate
    python benchmarks/chance_on_arms.py $A/full $A/frozen-designer $A/fixed-pool $A/no-corpus $A/plain-regret
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from spadework.archive import Archive
from spadework.calibrate import bundled_paths
from spadework.sandbox import Sandbox
from spadework.validate import validate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--show", type=float, default=0.4, help="list the designs at or above this chance")
    args = parser.parse_args()
    for run in args.runs:
        with Archive.open(run, create=False) as archive:
            valid = list(archive.records(valid=True))
        counts = Counter(round(r.verdict.chance or 0.0, 2) for r in valid)
        shares = ", ".join(f"{c:.2f} x{n}" for c, n in sorted(counts.items()))
        print(f"{run.name}: {len(valid)} valid; chance: {shares}")
        for record in valid:
            if (record.verdict.chance or 0.0) >= args.show:
                print(f"  {record.id} {record.class_name}: {record.verdict.chance:.2f}")
    with Sandbox() as sandbox:
        found = {p.name: validate(p.read_text(encoding="utf-8"), sandbox).chance for p in bundled_paths()}
    shown = (f"{name} {'refused' if c is None else f'{c:.2f}'}" for name, c in found.items())
    print("bundled: " + ", ".join(shown))


if __name__ == "__main__":
    main()
