"""What would today's validator say about a run's designs? Each archived design attempt, validated
again in the real sandbox with the settings the run validated it with (its seeds, the agent's turns,
the second solver) under the run's config with ``--set`` overrides (a setting the run's config
predates takes today's default: set it to say which); how many designs would gain. The loop's
``novel`` check (a near-duplicate of an earlier design) is not run again: take ``--reason`` to
leave out what it refused.

    python benchmarks/revalidate.py RUN_DIR [--reason TEXT] [--set SECTION.FIELD=VALUE ...]

``--reason TEXT`` takes only the attempts whose stored verdict's reason holds TEXT (e.g. ``"hint()
returned a None"``). One line an attempt: archive id, class, the stored verdict, the new one; then
how many of them are valid now, and how many designs no attempt of which was valid would have one.
The archive is only read (opening it does its upkeep: write-ahead logging, a schema upgrade).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from spadework.archive import Archive, EnvRecord
from spadework.config import CONFIG_FILE, RunConfig, load_config, parse_assignment
from spadework.engines import open_sandbox, validator_settings
from spadework.sandbox import SandboxProtocol
from spadework.validate import ValidatorConfig, validate


def revalidated(records: list[EnvRecord], config: RunConfig, sandbox: SandboxProtocol) \
        -> list[tuple[EnvRecord, str]]:
    """Each record with the reason (``valid`` or the first failure) of validating it again."""
    out = []
    for record in records:
        design = record.design
        settings = validator_settings(config, design.iteration) if design is not None else ValidatorConfig()
        out.append((record, validate(record.source, sandbox, settings).reason))
    return out


def gained(results: list[tuple[EnvRecord, str]], every: list[EnvRecord]) -> tuple[int, int]:
    """(designs with no valid attempt before, those of them with a valid attempt now)."""
    valid_before = {r.design.design_id for r in every if r.design is not None and r.valid}
    now: defaultdict[str, bool] = defaultdict(bool)
    for record, reason in results:
        if record.design is not None and record.design.design_id not in valid_before:
            now[record.design.design_id] |= reason == "valid"
    return len(now), sum(now.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--reason", default="", help="only attempts whose stored reason holds this text")
    parser.add_argument("--set", action="append", default=[], dest="overrides", metavar="SECTION.FIELD=VALUE")
    args = parser.parse_args()
    config = load_config(args.run_dir / CONFIG_FILE, dict(parse_assignment(s) for s in args.overrides))
    with Archive.open(args.run_dir, create=False) as archive:
        every = list(archive.records())
    chosen = [r for r in every if args.reason in r.reason]
    with open_sandbox(config) as sandbox:
        results = revalidated(chosen, config, sandbox)
    for record, reason in results:
        print(f"{record.id} {record.verdict.class_name}: {record.reason[:90]!r} -> {reason[:90]!r}")
    designs, now = gained(results, every)
    print(f"{sum(reason == 'valid' for _, reason in results)} of {len(results)} attempts valid now; "
          f"{now} of the {designs} designs among them with no valid attempt have one now")


if __name__ == "__main__":
    main()
