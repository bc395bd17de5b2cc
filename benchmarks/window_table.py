"""Per-window figures of self-play runs, from their run directories: what the designer was paid
(each reward component), the share of designs in the band, the valid rate, the agent's no-hint
solve rate, the diversity when the window closed, whether the collapse alarm rang, and the last
probe in the window, as a markdown table.

    python benchmarks/window_table.py runs/tool-use-blend-k4 runs/tool-use-regret-k1 [--block 4]

A window closes on the iterations whose metrics carry ``reward/blend_mean``; ``--block N`` also
groups a run's closing iterations N at a time (to set a run of one-iteration windows beside one of
N-iteration windows on the same span of agent updates).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from spadework.archive import Archive, DesignResult
from spadework.rewards import mean

COLUMNS = ("reward/designer_mean", "reward/regret_mean", "reward/plateau_mean", "reward/micro_lp_mean",
           "reward/blend_mean", "reward/win_rate_mean", "reward/in_band_share", "reward/masked")


def windows(run_dir: Path) -> list[dict]:
    """Each closing iteration's figures, with the valid rate and solve rate of its window."""
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    out, opened = [], None
    for row in rows:
        if "design/valid_rate" in row:
            opened = row
        if "reward/blend_mean" in row and opened is not None:
            span = [r for r in rows if opened["iteration"] <= r["iteration"] <= row["iteration"]]
            out.append({"window": f"{opened['iteration']}-{row['iteration']}",
                        "design/valid_rate": opened["design/valid_rate"],
                        "reward/regret_mean": opened.get("reward/regret_mean", float("nan")),
                        "rollout/solve_rate_nohint": mean([r["rollout/solve_rate_nohint"] for r in span]),
                        **{k: row.get(k, float("nan")) for k in COLUMNS if k != "reward/regret_mean"},
                        **span_figures(span)})
    return out


def span_figures(span: list[dict]) -> dict[str, float]:
    """A window's diversity when it closed, whether the collapse alarm rang in it, and its last probe.

    >>> span_figures([{"diversity/score": 0.5, "diversity/collapse": 1.0}, {"diversity/score": 0.4}])
    {'diversity/score': 0.4, 'diversity/collapse': 1.0, 'eval/probe/accuracy': nan}
    """
    probes = [r["eval/probe/accuracy"] for r in span if "eval/probe/accuracy" in r]
    return {"diversity/score": span[-1].get("diversity/score", float("nan")),
            "diversity/collapse": max((r.get("diversity/collapse", 0.0) for r in span), default=0.0),
            "eval/probe/accuracy": probes[-1] if probes else float("nan")}


def blocks(rows: list[dict], size: int) -> list[dict]:
    """``rows`` averaged ``size`` at a time."""
    out = []
    for start in range(0, len(rows), size):
        part = rows[start:start + size]
        keys = [k for k in part[0] if k != "window"]
        out.append({"window": f"{part[0]['window'].split('-')[0]}-{part[-1]['window'].split('-')[1]}",
                    **{k: mean([r[k] for r in part]) for k in keys}})
    return out


def paid_designs(run_dir: Path) -> list[DesignResult]:
    """The run's final attempts that were paid with their components."""
    with Archive.open(run_dir, create=False) as archive:
        found = [DesignResult.from_metrics(r.metrics) for r in archive.records()]
    return [d for d in found if d is not None and d.final and d.score is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--block", type=int, default=0)
    args = parser.parse_args()
    names = ["window", "design/valid_rate", "rollout/solve_rate_nohint", *COLUMNS, "diversity/score",
             "diversity/collapse", "eval/probe/accuracy"]
    for run_dir in args.runs:
        rows = windows(run_dir)
        if args.block:
            rows = blocks(rows, args.block)
        print(f"\n{run_dir}\n")
        print("| " + " | ".join(n.removeprefix("reward/").removeprefix("rollout/").removeprefix("design/")
                                for n in names) + " |")
        print("|" + "---|" * len(names))
        for row in rows:
            print("| " + " | ".join(str(row[n]) if n == "window" else f"{row[n]:.2f}" for n in names) + " |")
        paid = paid_designs(run_dir)
        print(f"\n{len(paid)} designs paid; per design (window start, skill, win rate, regret, plateau, "
              "micro-LP, blend):")
        for d in paid:
            s = d.score
            assert s is not None
            print(f"  i{d.iteration} {d.design_id} {d.skill or '-'}: win {s.win_rate:.2f} "
                  f"regret {s.regret:.2f} plateau {s.plateau:.2f} lp {s.micro_lp:+.2f} blend {s.blend:.2f}")


if __name__ == "__main__":
    main()
