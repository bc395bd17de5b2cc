"""One policy against another across two evaluation reports, paired on the items both played: a
policy measured once (the base, at temperature 0) is not played again beside every new adapter.

    python benchmarks/paired_reports.py BEFORE.json AFTER.json [--a base] [--b NAME]
    python benchmarks/paired_reports.py --entries REPORT.json > entries.tsv

``--a`` names the policy of BEFORE (its first by default), ``--b`` the policy of AFTER (its last by
default). Items pair on (suite/task, the BFCL entry or else the seed); a task either report lacks
is left out. Either side may be an ``entries.tsv`` instead of a report (category, entry, solved,
seconds: what ``--entries`` writes of a report's BFCL items, as ``results/`` keeps them). Prints a
markdown table: each task, then each suite, then all, with both accuracies, the paired
difference, its 95% interval and the wins and losses (``spadework.eval.stats``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from spadework.eval.stats import paired_comparison

Items = dict[tuple[str, int | str], bool]


def chosen_policy(report: dict[str, Any], name: str | None, last: bool) -> dict[str, Any]:
    """A report's policy by name; else its first or last.

    Raises:
        SystemExit: no policy of that name in the report.
    """
    policies = report["policies"]
    chosen = next((p for p in policies if p["name"] == name), None) if name else policies[-1 if last else 0]
    if chosen is None:
        raise SystemExit(f"no policy {name!r} in the report; it has {', '.join(p['name'] for p in policies)}")
    return chosen


def policy_items(report: dict[str, Any], name: str | None, last: bool) -> tuple[str, Items]:
    """A report's policy (``chosen_policy``) as {(suite/task, BFCL entry or seed): solved}."""
    chosen = chosen_policy(report, name, last)
    items = {(f"{i['suite']}/{i['task']}", i.get("entry") or i["seed"]): bool(i["solved"])
             for i in chosen["items"]}
    return chosen["name"], items


def tsv_items(text: str) -> Items:
    """An ``entries.tsv`` (a header, then category, entry, solved, seconds) as BFCL items.

    >>> tsv_items("category\tentry\tsolved\tseconds\nsimple_python\tsimple_python_3\t1\t7\n")
    {('bfcl/simple_python', 'simple_python_3'): True}
    """
    rows = [line.split("\t") for line in text.splitlines()[1:] if line]
    return {(f"bfcl/{row[0]}", row[1]): row[2] == "1" for row in rows}


def entries_tsv(report: dict[str, Any], name: str | None) -> str:
    """A report's BFCL items as ``entries.tsv``: category, entry, solved (1 or 0), seconds."""
    chosen = chosen_policy(report, name, last=True)
    lines = ["category\tentry\tsolved\tseconds"]
    lines += [f"{i['task']}\t{i['entry']}\t{int(bool(i['solved']))}\t{round(i.get('seconds', 0))}"
              for i in chosen["items"] if i["suite"] == "bfcl"]
    return "\n".join(lines) + "\n"


def read_items(path: Path, name: str | None, last: bool) -> tuple[str, Items]:
    """A side of the comparison: a report's policy, or an ``entries.tsv`` (named by its folder)."""
    if path.suffix == ".tsv":
        return path.parent.name, tsv_items(path.read_text(encoding="utf-8"))
    return policy_items(json.loads(path.read_text(encoding="utf-8")), name, last)


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
    parser.add_argument("after", type=Path, nargs="?")
    parser.add_argument("--a", help="the policy of BEFORE (default: its first)")
    parser.add_argument("--b", help="the policy of AFTER (default: its last)")
    parser.add_argument("--entries", action="store_true", help="write BEFORE's BFCL items (its --b policy, "
                        "else its last) as entries.tsv on stdout, and compare nothing")
    args = parser.parse_args()
    if args.entries:
        print(entries_tsv(json.loads(args.before.read_text(encoding="utf-8")), args.b), end="")
        return
    if args.after is None:
        parser.error("give AFTER, or --entries")
    a_name, a = read_items(args.before, args.a, last=False)
    b_name, b = read_items(args.after, args.b, last=True)
    print(paired_table(a_name, a, b_name, b))


if __name__ == "__main__":
    main()
