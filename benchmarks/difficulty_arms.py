"""Designs of the ablation arms at a fixed difficulty and with the difficulty controller: export the
valid final designs of run directories as files, then compare two calibration reports of them (one
played at each design's own difficulty, one after the controller's rounds).

    python benchmarks/difficulty_arms.py export results/coevolution-ablate/full --form records \\
        --out runs/difficulty/full-records
    P=results/coevolution-ablate/full/checkpoints/start   # the warm start, the full arm's config
    spadework calibrate runs/difficulty/full-records --policy $P --plays 4 \\
        --out results/difficulty/full-records-fixed.json
    spadework calibrate runs/difficulty/full-records --policy $P --plays 4 --rounds 3 \\
        --set difficulty.controller=sliding --set difficulty.window=4 --set difficulty.raise_at=0.75 \\
        --set difficulty.lower_at=0.25 --out results/difficulty/full-records-controller.json
    python benchmarks/difficulty_arms.py compare results/difficulty/full-records-fixed.json \\
        results/difficulty/full-records-controller.json
    python benchmarks/difficulty_arms.py ladders runs/difficulty/all --turns 12  # no model: levels kept

The in-band share is read as the loop reads it: the no-hint win rate of the paired plays within the
blend's band (``rewards.in_band``); the plays to the band are the controller's rounds until one lay
in it (``calibrate.climb.first_in_band``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from spadework.archive import Archive, DesignResult, content_hash

FORMS = {"records": "(DeclaredWorld)", "answer": "(AnswerEnv)"}


def export(runs: list[Path], form: str | None, out: Path) -> int:
    """Write each run's valid final designs (of ``form``, when given) to ``out``, once each."""
    out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    for run in runs:
        with Archive.open(run, create=False) as archive:
            for record in archive.records(valid=True):
                design = DesignResult.from_metrics(record.metrics)
                digest = content_hash(record.source)
                if design is None or not design.final or digest in seen:
                    continue
                if form is not None and FORMS[form] not in record.source:
                    continue
                seen.add(digest)
                (out / f"{run.name}-{design.design_id}.py").write_text(record.source, encoding="utf-8")
    return len(seen)


def ladders(folder: Path, turns: int) -> None:
    """Each file validated at every level it declares in the real sandbox (the agent's ``turns``),
    then how many kept how many levels, by form."""
    from collections import Counter

    from spadework.sandbox import Sandbox
    from spadework.validate import validate
    from spadework.validate.checks import ValidatorConfig

    kept: Counter[tuple[str, int]] = Counter()
    with Sandbox() as sandbox:
        for path in sorted(folder.glob("*.py")):
            source = path.read_text(encoding="utf-8")
            form = next((name for name, mark in FORMS.items() if mark in source), "other")
            start = time.perf_counter()
            verdict = validate(source, sandbox, ValidatorConfig(levels=True, turn_budget=turns))
            seconds = time.perf_counter() - start
            kept[(form, verdict.difficulties if verdict.valid else 0)] += 1
            print(f"{path.name}\t{form}\t{verdict.reason[:60] if not verdict.valid else 'valid'}\t"
                  f"{verdict.difficulties}\t{seconds:.1f} s\t{(verdict.ladder or '')[:160]}")
    print("\n| form | invalid now | levels kept: 1 | 2 | 3 | 4 | 5 |\n|---|---|---|---|---|---|---|")
    for form in sorted({f for f, _ in kept}):
        print(f"| {form} | " + " | ".join(str(kept[(form, n)]) for n in range(6)) + " |")


def rows(fixed: dict, controlled: dict) -> list[dict]:
    """One row a design played in both reports."""
    by_name = {env["name"]: env for env in controlled["environments"] if env["scores"]}
    found = []
    for env in fixed["environments"]:
        other = by_name.get(env["name"])
        if not env["scores"] or other is None:
            continue
        climb = other.get("climb") or {}
        standing = climb.get("standing") or {}
        found.append({"name": env["name"], "fixed_rate": env["solve_rate_nohint"],
                      "fixed_in_band": env["in_band"],
                      "levels": standing.get("path", []), "top": other.get("difficulties", 1),
                      "rounds": climb.get("rates", []), "plays_to_band": climb.get("plays_to_band"),
                      "rate": other["solve_rate_nohint"], "in_band": other["in_band"]})
    return found


def compare(fixed_path: Path, controlled_path: Path) -> None:
    """Per design, then the in-band shares and the plays it took to reach the band."""
    fixed, controlled = (json.loads(p.read_text(encoding="utf-8")) for p in (fixed_path, controlled_path))
    found = rows(fixed, controlled)
    print("| design | fixed: no-hint win rate | in band | levels (of) | round win rates | plays to band "
          "| controller: no-hint win rate | in band |")
    print("|---|---|---|---|---|---|---|---|")
    for r in found:
        path = " → ".join(map(str, r["levels"])) or "–"
        rounds = ", ".join(f"{v:.2f}" for v in r["rounds"]) or "–"
        print(f"| {r['name']} | {r['fixed_rate']:.2f} | {'yes' if r['fixed_in_band'] else 'no'} | {path} "
              f"({r['top']}) | {rounds} | {r['plays_to_band'] if r['plays_to_band'] is not None else '–'} "
              f"| {r['rate']:.2f} | {'yes' if r['in_band'] else 'no'} |")
    count = len(found)
    reached = sorted(r["plays_to_band"] for r in found if r["plays_to_band"] is not None)
    print(f"\n{count} designs played in both; in band at a fixed difficulty: "
          f"{sum(bool(r['fixed_in_band']) for r in found)}; with the controller: "
          f"{sum(bool(r['in_band']) for r in found)}; a round reached the band in {len(reached)} "
          f"(plays: {', '.join(map(str, reached)) or 'none'}); "
          f"{sum(len(r['levels']) > 1 for r in found)} moved off their start level")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    exporting = commands.add_parser("export", help="the valid final designs of run directories, as files")
    exporting.add_argument("runs", nargs="+", type=Path)
    exporting.add_argument("--form", choices=sorted(FORMS))
    exporting.add_argument("--out", type=Path, required=True)
    comparing = commands.add_parser("compare", help="two calibration reports of the same designs")
    comparing.add_argument("fixed", type=Path)
    comparing.add_argument("controlled", type=Path)
    laddering = commands.add_parser("ladders", help="the levels the validator keeps of each file")
    laddering.add_argument("folder", type=Path)
    laddering.add_argument("--turns", type=int, default=12, help="the agent's turns (agent.max_turns)")
    args = parser.parse_args()
    if args.command == "export":
        print(f"{export(args.runs, args.form, args.out)} designs written to {args.out}")
    elif args.command == "ladders":
        ladders(args.folder, args.turns)
    else:
        compare(args.fixed, args.controlled)


if __name__ == "__main__":
    main()
