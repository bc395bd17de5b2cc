"""``spadework report RUN_DIR [--out FILE] [--check]``: write (and optionally check) the run report."""

from __future__ import annotations

import argparse
from pathlib import Path

from spadework.errors import UsageError
from spadework.report.build import build_report
from spadework.report.rundata import check_run_dir

SCREENSHOT_FILE = "report.png"


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register the ``report`` command on the CLI's subparsers."""
    report = commands.add_parser("report", help="write a run's HTML report (curves, diversity map, "
                                                "environment browser)")
    report.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory")
    report.add_argument("--out", type=Path, metavar="FILE", help="default: RUN_DIR/report.html")
    report.add_argument("--check", action="store_true",
                        help="open it in headless Chromium: sections, console errors, RUN_DIR/report.png")
    report.set_defaults(run=cmd_report)
    return report


def cmd_report(args: argparse.Namespace) -> int:
    """Write the report; with ``--check`` also open it in a browser. 1 when the check finds problems.

    Raises:
        UsageError: RUN_DIR is not a run directory; ``--check`` without chromium.
    """
    run_dir = check_run_dir(args.run_dir)
    if args.check:  # fail before the work when the check cannot run
        from spadework.report.browser import missing_reason

        reason = missing_reason()
        if reason is not None:
            raise UsageError(f"--check needs a browser: {reason}")
    path = build_report(run_dir, out=args.out)
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)", flush=True)
    if not args.check:
        return 0
    from spadework.report.browser import check_report

    result = check_report(path, screenshot=run_dir / SCREENSHOT_FILE)
    print(f"sections: {', '.join(result.sections) or 'none'}")
    if result.missing:
        print(f"missing sections: {', '.join(result.missing)}")
    print(f"console errors: {len(result.errors)}")
    for message in result.errors:
        print(f"  {message}")
    print(f"screenshot: {result.screenshot}")
    return 0 if result.ok else 1
