"""Ablations: full SPADE against its ablations and the fixed-environment baseline, each a run of
its own at the same small scale and seed, compared in one table.

``OUT/<arm>/`` is each arm's run directory (an interrupted ablation resumes every arm);
``OUT/ablation.json`` and ``OUT/ablation.md`` hold the table, ``OUT/ablation.html`` the table
with the arms' diversity maps side by side.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from spadework.archive import Archive
from spadework.config import CONFIG_FILE, RunConfig, load_config
from spadework.diversity import RunDiversity
from spadework.engines import measure_run
from spadework.eval.policies import PolicySpec, parse_policy_spec, play_policy
from spadework.eval.probe import held_out_tasks
from spadework.eval.report import EVAL_DIR, report_json, write_report
from spadework.report.ablation import COLUMNS, AblationRow, ablation_page, figure_cells, map_svg
from spadework.rewards import mean
from spadework.rundir import write_atomically


class Ablation(StrEnum):
    """One arm of the comparison."""

    FULL = "full"
    NO_CORPUS = "no-corpus"
    NO_MEMORY = "no-memory"
    FROZEN_DESIGNER = "frozen-designer"
    FIXED_POOL = "fixed-pool"
    PLAIN_REGRET = "plain-regret"


OVERRIDES: dict[Ablation, dict[str, Any]] = {
    Ablation.FULL: {},
    Ablation.NO_CORPUS: {"designer.corpus": False},
    Ablation.NO_MEMORY: {"designer.memory": False},
    Ablation.FROZEN_DESIGNER: {"learn.designer": False},
    Ablation.FIXED_POOL: {"designer.fixed_pool": "examples"},
    Ablation.PLAIN_REGRET: {"rewards.designer": "regret", "run.plays": 2, "run.hint_plays": 2},
}
"""What each arm changes in the shared configuration."""

DESCRIPTIONS = {
    Ablation.FULL: "SPADE: corpus grounding, environment memory, designer trained",
    Ablation.NO_CORPUS: "no corpus document in the designer's prompt",
    Ablation.NO_MEMORY: "no digest of earlier environments in the designer's prompt",
    Ablation.FROZEN_DESIGNER: "only the agent is trained",
    Ablation.FIXED_POOL: "no designer: the agent plays the bundled example environments",
    Ablation.PLAIN_REGRET: "the designer paid the plain regret, measured on 2 plays an arm (the early runs')",
}


def arm_config(base: dict[str, Any], arm: Ablation, config_file: Path | None) -> RunConfig:
    """The shared overrides plus the arm's own."""
    return load_config(config_file, {**base, **OVERRIDES[arm]})


def row_of(arm: Ablation, run_dir: Path, diversity: RunDiversity,
           eval_result: tuple[float, float, float] | None = None,
           designs: RunDiversity | None = None) -> AblationRow:
    """An arm's row from its archive and its diversity (of its environments, and of ``designs``: every
    design, valid or not); ``eval_result``: (accuracy, low, high)."""
    with Archive.open(run_dir, create=False) as archive:
        finals = [(r.valid, design.play) for r in archive.records()
                  if (design := r.design) is not None and design.final]
    valid = [play for is_valid, play in finals if is_valid]
    row = AblationRow(
        arm=arm.value, run_dir=str(run_dir), designs=len(finals), valid=len(valid),
        valid_rate=len(valid) / len(finals) if finals else 0.0,
        mean_regret=mean([play.regret if play is not None else 0.0 for play in valid]),
        diversity=diversity.overall.score, near_duplicate_rate=diversity.overall.near_duplicate_rate,
        clusters=diversity.overall.clusters, collapse_alarms=len(diversity.alarms),
        eval_accuracy=eval_result[0] if eval_result else None,
        eval_ci=(eval_result[1], eval_result[2]) if eval_result else None,
        diversity_ci=diversity.score_ci, near_duplicate_ci=diversity.near_duplicate_ci,
    )
    if designs is None:
        return row
    return replace(row, designs_measured=designs.overall.count, designs_diversity=designs.overall.score,
                   designs_diversity_ci=designs.score_ci,
                   designs_near_duplicate_rate=designs.overall.near_duplicate_rate,
                   designs_near_duplicate_ci=designs.near_duplicate_ci)


def markdown_table(rows: Sequence[AblationRow]) -> str:
    """The comparison as a Markdown table.

    >>> row = AblationRow("full", "r/full", 4, 3, 0.75, 0.5, 0.41, 0.0, 3, 0, 0.5, (0.2, 0.8),
    ...                   (0.3, 0.52), (0, 0.56))
    >>> print(markdown_table([row]).splitlines()[2])
    | full | 3/4 (75%) | 0.500 | 0.410 [0.300, 0.520] | 0% [0%, 56%] | 3 | - | - | 0 | 50% [20%, 80%] |
    """
    names = [c for c in COLUMNS if c != "what changes"]
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    for r in rows:
        cells = figure_cells(r, lambda x: f"{x:.3f}", lambda x: f"{x:.0%}", "-")
        lines.append(f"| {r.arm} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


class HeldOut:
    """Each arm's held-out accuracy (overall, with its 95% interval): its newest checkpoint, or the
    base policy for an arm that did not train (evaluated once for all such arms). The report goes
    into the arm's run too (``RUN_DIR/eval/eval-ablate.json``), so that run's report shows it, and
    an ablation run again (to resume its other arms) reads it back instead of playing it again when
    it measured the same checkpoint on as many seeds."""

    def __init__(self, seeds: int):
        self.seeds = seeds
        self.reports: dict[str, dict[str, Any]] = {}

    def __call__(self, config: RunConfig, run_dir: Path) -> tuple[float, float, float]:
        """The arm's overall held-out accuracy and its 95% interval."""
        spec = parse_policy_spec(str(run_dir))  # its newest checkpoint, or its untrained model
        key = str(spec.checkpoint) if spec.checkpoint else f"untrained {config.policy.model_dump_json()}"
        measured = {"of": key, "seeds": self.seeds}
        saved = run_dir / EVAL_DIR / "eval-ablate.json"
        if key not in self.reports and saved.is_file():
            report = json.loads(saved.read_text(encoding="utf-8"))
            if report.get("measured") == measured:
                self.reports[key] = report
        if key not in self.reports:
            self.reports[key] = {**self.evaluate(spec, config), "measured": measured}
        [played] = self.reports[key]["policies"]
        own = {**self.reports[key], "policies": [{**played, "name": spec.name, "spec": spec.spec}]}
        write_report(saved, own)
        overall = played["overall"]
        return overall["accuracy"], overall["ci_low"], overall["ci_high"]

    def evaluate(self, spec: PolicySpec, config: RunConfig) -> dict[str, Any]:
        """Play the config's held-out tasks with ``spec``'s policy; the JSON report."""
        played = play_policy(spec, held_out_tasks(config.eval, config.agent.max_turns), range(self.seeds))
        return report_json([played], datetime.now(UTC).isoformat(timespec="seconds"))


RunFunction = Callable[[RunConfig, Path, bool], Any]
EvalFunction = Callable[[RunConfig, Path], tuple[float, float, float] | None]


def ablate(
    arms: Sequence[Ablation], out: Path, base: dict[str, Any], *, config_file: Path | None,
    run_arm: RunFunction, evaluate: EvalFunction | None = None, say: Callable[[str], None] = print,
) -> list[AblationRow]:
    """Run (or resume) every arm in ``out/<arm>``, measure it, and write the comparison files."""
    out.mkdir(parents=True, exist_ok=True)
    rows, maps, design_maps = [], {}, {}
    for arm in arms:
        run_dir = out / arm.value
        config = arm_config(base, arm, config_file)
        resume = (run_dir / CONFIG_FILE).is_file()
        say(f"{'resuming' if resume else 'running'} {arm.value}: {DESCRIPTIONS[arm]} -> {run_dir}")
        run_arm(config, run_dir, resume)
        maps[arm.value] = measure_run(run_dir)
        design_maps[arm.value] = measure_run(run_dir, every_design=True)
        rows.append(row_of(arm, run_dir, maps[arm.value], evaluate(config, run_dir) if evaluate else None,
                           design_maps[arm.value]))
    write_atomically(out / "ablation.json", json.dumps([asdict(r) for r in rows], indent=2) + "\n")
    write_atomically(out / "ablation.md", markdown_table(rows))
    write_atomically(out / "ablation.html", ablation_page(rows, maps, DESCRIPTIONS, design_maps))
    write_maps(out / MAPS_DIR, maps, design_maps)
    return rows


MAPS_DIR = "maps"


def write_maps(folder: Path, maps: dict[str, RunDiversity], design_maps: dict[str, RunDiversity]) -> None:
    """Each arm's maps as SVG files: ``<arm>.svg`` (its valid environments) and
    ``<arm>-every-design.svg``; a map with nothing to show is not written."""
    folder.mkdir(exist_ok=True)
    for name, suffix, measured in [*((a, "", m) for a, m in maps.items()),
                                   *((a, "-every-design", m) for a, m in design_maps.items())]:
        svg = map_svg(measured, "designs" if suffix else "environments")
        if svg is not None:
            write_atomically(folder / f"{name}{suffix}.svg", svg)
