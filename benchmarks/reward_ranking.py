"""Which designer reward ranks a calibration set best: Spearman's rho (with its 95% interval) of
every reward a calibration can rank, read from calibration reports already written.

    python benchmarks/reward_ranking.py runs/calibration-16.json [more reports] [--json OUT]

Each report's plays are scored again with the blend's reference settings, so reports written
before the reward variants existed rank them too (no play is repeated).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from spadework.calibrate.records import Calibration
from spadework.calibrate.report import _rho_text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    figures = {}
    for path in args.reports:
        report = json.loads(path.read_text(encoding="utf-8"))
        calibration = Calibration.from_report(report)
        rows = {variant.value: rho for variant, rho in calibration.correlations().items()}
        figures[str(path)] = {"policy": report["policy"]["spec"], "plays": report["plays"],
                              "rewards": {name: rho.to_json() for name, rho in rows.items()}}
        print(f"{path} ({report['policy']['spec']}, {report['plays']} plays, "
              f"{calibration.correlation().n} ranked)")
        for name, rho in rows.items():
            p = "" if rho.p_value is None else f" p = {rho.p_value:.3f}"
            print(f"  {name:<12} {_rho_text(rho)}{p}")
        for result in calibration.results:
            score = result.score()
            if score is not None:
                print(f"    {result.name:<26} {result.kind.value:<10} win {score.win_rate:.2f} regret "
                      f"{score.regret:.2f} lcb {score.regret_low:.2f} plateau {score.plateau:.2f} "
                      f"blend {score.blend:.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
