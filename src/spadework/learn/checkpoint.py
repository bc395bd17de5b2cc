"""Checkpoints: one directory per iteration under ``RUN_DIR/checkpoints``, made whole or not at all.

A checkpoint is written into a temporary folder beside it and renamed into place, so a crash
leaves either the complete directory or a temporary one that the next writer removes. The
loop writes iteration N's checkpoint before it commits iteration N to the archive; on
resume, a checkpoint newer than the last committed iteration belongs to work that was
never committed, and is removed.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from spadework.errors import UsageError
from spadework.rundir import atomic_path, write_atomically

CHECKPOINTS_DIR = "checkpoints"
LOOP_STATE_FILE = "loop.json"
ADAPTER_DIR = "adapter"
"""A checkpoint's PEFT adapter folder."""
ADAPTER_WEIGHTS = "adapter_model.safetensors"
"""The weights file PEFT saves in an adapter folder."""
GGUF_ADAPTER = "adapter.gguf"
"""A checkpoint's adapter as a GGUF LoRA file (for llama.cpp), written when first needed."""
LATEST = "latest"
"""A text file in ``checkpoints/`` holding the newest checkpoint's folder name."""
NAME = re.compile(r"^iteration-(\d{4,})$")
WARM_START = "warm-start"
"""The checkpoint of the supervised warm start, taken before the first iteration (``[learn]
warm_start``): kept beside the iterations' and never pruned, so it can be evaluated on its own."""
START = "start"
"""The adapter a run began from (``[learn] init_adapter``), as the learner loaded it: kept beside
the iterations' and never pruned, so a run shows what it started from and can be paired against it."""


def checkpoint_name(iteration: int) -> str:
    """The folder name of iteration ``iteration``'s checkpoint.

    >>> checkpoint_name(7)
    'iteration-0007'
    """
    return f"iteration-{iteration:04d}"


def checkpoints(run_dir: Path) -> dict[int, Path]:
    """The complete checkpoints of a run, by iteration, oldest first."""
    folder = run_dir / CHECKPOINTS_DIR
    found = {}
    for path in folder.iterdir() if folder.is_dir() else ():
        match = NAME.match(path.name)
        if match and path.is_dir():
            found[int(match.group(1))] = path
    return dict(sorted(found.items()))


def write_checkpoint(run_dir: Path, iteration: int, save: Callable[[Path], None], loop_state: dict[str, Any],
                     keep: int = 2) -> Path:
    """Write iteration ``iteration``'s checkpoint atomically and keep only the ``keep`` newest.

    Args:
        save: writes the learner's files into the folder it is given.
        loop_state: everything else the loop needs to continue (JSON).
    """
    folder = run_dir / CHECKPOINTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / checkpoint_name(iteration)
    with atomic_path(final) as partial:  # replaces a leftover of a run that crashed before its commit
        partial.mkdir()
        save(partial)
        (partial / LOOP_STATE_FILE).write_text(json.dumps(loop_state, sort_keys=True), encoding="utf-8")
    write_atomically(folder / LATEST, final.name + "\n")
    for old in list(checkpoints(run_dir))[:-keep]:
        shutil.rmtree(folder / checkpoint_name(old), ignore_errors=True)
    return final


def named_folder(run_dir: Path, name: str) -> Path:
    """Where a run's checkpoint that is not an iteration's (``WARM_START``, ``START``) is, whether or
    not it was written."""
    return run_dir / CHECKPOINTS_DIR / name


def start_source(run_dir: Path, init_adapter: str) -> Path:
    """Where a run's adapter starts from (``[learn] init_adapter``): the run's own record of it
    (``checkpoints/start``) once written, so a resumed run does not need the folder first named."""
    recorded = named_folder(run_dir, START)
    return recorded if recorded.is_dir() else Path(init_adapter)


def write_named(run_dir: Path, name: str, save: Callable[[Path], None], loop_state: dict[str, Any]) -> Path:
    """Write a checkpoint that is not an iteration's (``WARM_START``, ``START``) atomically, with
    ``loop_state`` (what it was made from); returns its folder. Never pruned."""
    final = named_folder(run_dir, name)
    final.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(final) as partial:
        partial.mkdir()
        save(partial)
        (partial / LOOP_STATE_FILE).write_text(json.dumps(loop_state, sort_keys=True), encoding="utf-8")
    return final


def drop_uncommitted(run_dir: Path, last_committed: int | None) -> list[int]:
    """Remove partial checkpoints and those after ``last_committed``; returns the removed iterations."""
    folder = run_dir / CHECKPOINTS_DIR
    for partial in [*folder.glob("*.partial"), *folder.glob(".*.tmp")] if folder.is_dir() else ():
        shutil.rmtree(partial, ignore_errors=True)
    limit = -1 if last_committed is None else last_committed
    removed = [i for i in checkpoints(run_dir) if i > limit]
    for iteration in removed:
        shutil.rmtree(folder / checkpoint_name(iteration), ignore_errors=True)
    remaining = checkpoints(run_dir)
    if removed and remaining:
        write_atomically(folder / LATEST, remaining[max(remaining)].name + "\n")
    elif removed:
        (folder / LATEST).unlink(missing_ok=True)
    return removed


def require_checkpoint(run_dir: Path, iteration: int, metrics: dict[str, Any]) -> None:
    """Refuse to resume a trained run whose last committed iteration has lost its checkpoint:
    the learner would otherwise start a fresh adapter and the run would go on as if nothing had
    happened. ``metrics`` are that iteration's committed metrics (``learn/updates`` in them: it
    was trained; a run trained only from now on has no checkpoint to find)."""
    if "learn/updates" in metrics and iteration not in checkpoints(run_dir):
        folder = run_dir / CHECKPOINTS_DIR / checkpoint_name(iteration)
        raise UsageError(f"{run_dir}: iteration {iteration} is committed and was trained, but its "
                         f"checkpoint {folder} is missing, so the adapter it trained is lost; put that "
                         "folder back (from a copy or from git) and resume again, or start a new run "
                         "(nothing was changed)")


def latest_checkpoint(run_dir: Path) -> Path | None:
    """The newest complete checkpoint (what ``checkpoints/latest`` names), or None."""
    found = checkpoints(run_dir)
    return found[max(found)] if found else None
