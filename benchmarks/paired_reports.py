"""One policy against another across two evaluation reports, paired on the items both played: a
policy measured once (the base, at temperature 0) is not played again beside every new adapter.

    python benchmarks/paired_reports.py BEFORE.json AFTER.json [--a base] [--b NAME]

``--a`` names the policy of BEFORE (its first by default), ``--b`` the policy of AFTER (its last by
default). Items pair on (suite/task, seed); a task either report lacks is left out. Prints a
markdown table: each task, then each suite, then all, with both accuracies, the paired
difference, its 95% interval and the wins and losses (``spadework.eval.stats``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from spadework.eval.stats import paired_comparison

Items = dict[tuple[str, int], bool]


def policy_items(report: dict[str, Any], name: str | None, last: bool) -> tuple[str, Items]:
    """A report's policy (by name; else its first or last) as {(suite/task, seed): solved}.

    Raises:
        SystemExit: no policy of that name in the report.
    """
    policies = report["policies"]
    chosen = next((p for p in policies if p["name"] == name), None) if name else policies[-1 if last else 0]
    if chosen is None:
        raise SystemExit(f"no policy {name!r} in the report; it has {', '.join(p['name'] for p in policies)}")
    items = {(f"{i['suite']}/{i['task']}", i["seed"]): bool(i["solved"]) for i in chosen["items"]}
    return chosen["name"], items


def paired_table(a_name: str, a: Items, b_name: str, b: Items) -> str:
    """The markdown table of b against a over the items both played, per task, per suite and in all.

    >>> a = {("bfcl/simple", 0): True, ("bfcl/simple", 1): False, ("bfcl/multiple", 0): True}
    >>> b = {("bfcl/simple", 0): True, ("bfcl/simple", 1): True, ("bfcl/multiple", 0): False}
    >>> print(paired_table("base", a, "new", b).splitlines()[-1])
    | all | 3 | 0.67 | 0.67 | +0.00 [-0.68, +0.68] | 1 / 1 |
    """
    shared = [key for key in a if key in b]
    tasks = list(dict.fromkeys(task for task, _ in shared))
    suites = list(dict.fromkeys(task.split("/")[0] for task in tasks))
    scopes = [(t, [k for k in shared if k[0] == t]) for t in tasks]
    scopes += [(s, [k for k in shared if k[0].split("/")[0] == s]) for s in suites] + [("all", shared)]
    lines = [f"| scope | n | {a_name} | {b_name} | paired difference [95%] | wins / losses |",
             "|---|---|---|---|---|---|"]
    for scope, keys in scopes:
        s = paired_comparison([a[k] for k in keys], [b[k] for k in keys])
        before, after = (sum(items[k] for k in keys) / max(1, len(keys)) for items in (a, b))
        lines.append(f"| {scope} | {s.n} | {before:.2f} | {after:.2f} | {s.diff:+.2f} "
                     f"[{s.ci_low:+.2f}, {s.ci_high:+.2f}] | {s.wins} / {s.losses} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--a", help="the policy of BEFORE (default: its first)")
    parser.add_argument("--b", help="the policy of AFTER (default: its last)")
    args = parser.parse_args()
    a_name, a = policy_items(json.loads(args.before.read_text()), args.a, last=False)
    b_name, b = policy_items(json.loads(args.after.read_text()), args.b, last=True)
    print(paired_table(a_name, a, b_name, b))


if __name__ == "__main__":
    main()
