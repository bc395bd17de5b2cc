"""What the designer is paid for, for a person to read: each window's best-paid designs of a run.

    python benchmarks/top_designs.py RUN_DIR [--top 3] [--sources FOLDER]

Prints a markdown table, per designer window (the iteration that designed it) its ``--top`` valid
designs by designer reward: the archive id (``spadework archive show RUN_DIR ID`` shows the whole
environment), the form and domain, what it was paid and the components of the pay (regret, the
no-hint win rate, plateau, blend), and a ``class`` column for the reader: *fair*; *trivial* (the
answer is shown); *wrong key* (the answer does not follow from the text, e.g. a greedy "optimum",
and a hint teaching the same wrong method earns regret); *irreducible*; *other*. ``--sources``
writes each listed environment's source into FOLDER as ``<id>-<design>.py``, to read beside the
table.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from spadework.archive import Archive

CLASSES = ("fair", "trivial", "wrong key", "irreducible", "other")
"""What a reader calls a paid design (the results pages' tables use these words)."""


@dataclass(frozen=True)
class Paid:
    """One valid design with its pay, as the table shows it."""

    record_id: int
    iteration: int
    design_id: str
    form: str
    domain: str
    reward: float
    regret: float
    win_rate: float
    plateau: float
    blend: float
    source: str


def paid_designs(run_dir: Path) -> list[Paid]:
    """Every valid, final design of the run whose window closed (it has a designer reward)."""
    with Archive.open(run_dir, create=False) as archive:
        found = []
        for record in archive.records(valid=True):
            design = record.design
            if design is None or not design.final or design.designer_reward is None or record.id is None:
                continue
            score = design.score
            found.append(Paid(record.id, design.iteration, design.design_id, design.form or "-",
                              design.domain or "-", design.designer_reward,
                              score.regret if score else 0.0, score.win_rate if score else 0.0,
                              score.plateau if score else 0.0, score.blend if score else 0.0, record.source))
    return found


def top_per_window(designs: Iterable[Paid], top: int) -> list[Paid]:
    """The ``top`` best-paid designs of each designing iteration, iterations in order.

    >>> rows = [Paid(i, it, f"d{i}", "answer", "-", pay, 0, 0, 0, 0, "") for i, (it, pay) in
    ...         enumerate([(0, 0.1), (0, 0.9), (0, 0.5), (2, 0.0)])]
    >>> [(p.iteration, p.reward) for p in top_per_window(rows, 2)]
    [(0, 0.9), (0, 0.5), (2, 0.0)]
    """
    by_window: dict[int, list[Paid]] = {}
    for paid in designs:
        by_window.setdefault(paid.iteration, []).append(paid)
    return [p for it in sorted(by_window) for p in sorted(by_window[it], key=lambda p: -p.reward)[:top]]


def table(rows: Iterable[Paid]) -> str:
    """The markdown table, with an empty ``class`` column to fill in."""
    lines = ["| window | id | design | form | domain | pay | regret | win rate | plateau | blend | class |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {p.iteration} | {p.record_id} | {p.design_id} | {p.form} | {p.domain} | {p.reward:.2f} | "
              f"{p.regret:.2f} | {p.win_rate:.2f} | {p.plateau:.2f} | {p.blend:.2f} |  |" for p in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--top", type=int, default=3, help="designs a window (default 3)")
    parser.add_argument("--sources", type=Path, help="write the listed environments' sources here")
    args = parser.parse_args()
    rows = top_per_window(paid_designs(args.run_dir), args.top)
    print(table(rows))
    if args.sources:
        args.sources.mkdir(parents=True, exist_ok=True)
        for p in rows:
            (args.sources / f"{p.record_id}-{p.design_id}.py").write_text(p.source, encoding="utf-8")
    if not rows:
        print(f"{args.run_dir}: no valid design has been paid yet (no window has closed)")


if __name__ == "__main__":
    main()
