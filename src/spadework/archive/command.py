"""``spadework archive ls|show|export RUN_DIR``: list, show or export a run's archive."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from spadework.archive.export import export_jsonl, export_parquet
from spadework.archive.store import Archive

PAGE = 100
"""Environments per page of ``spadework archive ls``."""


def _print(*args: Any, **kwargs: Any) -> None:
    """Rich output on stdout; wide when piped, so tables are not folded into a file."""
    Console(highlight=False, width=None if sys.stdout.isatty() else 200).print(*args, **kwargs)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``spadework archive`` command and its ``ls``, ``show`` and ``export`` subcommands."""
    archive = commands.add_parser("archive", help="list, show or export a run's archive")
    verbs = archive.add_subparsers(dest="verb", required=True)
    ls = verbs.add_parser("ls", help="one line per environment")
    ls.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory")
    ls.add_argument("--valid", action="store_true", default=None, help="valid ones only")
    ls.add_argument("--invalid", dest="valid", action="store_false", help="invalid ones only")
    ls.add_argument("--limit", type=int, default=PAGE, help=f"environments per page (default {PAGE}; 0: all)")
    ls.add_argument("--page", type=int, default=1, help="which page, from 1 (oldest first)")
    ls.set_defaults(run=cmd_archive_ls)
    show = verbs.add_parser("show", help="one environment in full")
    show.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory")
    show.add_argument("id", type=int, metavar="ID", help="the environment's id (see archive ls)")
    show.set_defaults(run=cmd_archive_show)
    export = verbs.add_parser("export", help="write the archive as JSONL or Parquet")
    export.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory")
    export.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl",
                        help="jsonl (default) or parquet")
    export.add_argument("--out", type=Path, help="default: RUN_DIR/archive.<format>")
    export.set_defaults(run=cmd_archive_export)
    return archive


def cmd_archive_ls(args: argparse.Namespace) -> int:
    """One page of the archive (light columns only, so a page of a large archive is quick)."""
    size, page = (args.limit or None), max(1, args.page)
    with Archive.open(args.run_dir, create=False) as archive:
        total = archive.count(valid=args.valid)
        rows = archive.listing(valid=args.valid, limit=size, offset=(page - 1) * (size or 0))
        table = Table(title=f"{archive.path} ({len(archive)} environments)")
        for column in ("id", "created", "class", "valid", "reason", "origin"):
            table.add_column(column, overflow="fold")
        for id, created, name, valid, reason, origin in rows:
            table.add_row(str(id), created, name or "", "yes" if valid else "no", reason, origin)
        _print(table)
    pages = -(-total // size) if size else 1
    if pages > 1:
        _print(f"page {page} of {pages} ({len(rows)} of {total} environments); next: "
               f"spadework archive ls {args.run_dir} --page {page + 1}" if page < pages
               else f"page {page} of {pages} ({len(rows)} of {total} environments)", markup=False)
    return 0


def cmd_archive_show(args: argparse.Namespace) -> int:
    """``spadework archive show``: one record's source, verdict and results."""
    with Archive.open(args.run_dir, create=False) as archive:
        record = archive.get(args.id)
    _print(f"[bold]#{record.id} {record.class_name or '?'}[/] from {record.origin} "
              f"at {record.created_at}")
    _print(f"valid: {'yes' if record.valid else 'no'}; hash {record.content_hash[:16]}")
    for check in record.verdict.checks:
        _print(f"  {check.name:14} {check.outcome.value:8} {check.message}", markup=False)
    for tolerance in record.tolerances:
        _print(f"  tolerance: {tolerance}", markup=False)
    _print(f"hint: {record.hint}", markup=False)
    if record.metrics:
        _print(f"metrics: {json.dumps(record.metrics, sort_keys=True)}", markup=False)
    _print("\n" + record.source, markup=False)
    return 0


def cmd_archive_export(args: argparse.Namespace) -> int:
    """``spadework archive export``: every record as JSONL or Parquet."""
    target = args.out or args.run_dir / f"archive.{args.format}"
    writer = export_jsonl if args.format == "jsonl" else export_parquet
    with Archive.open(args.run_dir, create=False) as archive:
        count = writer(archive, target)
    _print(f"wrote {count} environments to {target}")
    return 0
