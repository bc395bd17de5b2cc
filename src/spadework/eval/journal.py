"""A long evaluation's items kept as they are scored, so ``spadework eval --resume`` plays only what
is missing: BFCL at 100 entries a category is hours of a laptop CPU, and a kill must not lose them.

The journal sits beside the report (``OUT.items.jsonl`` for ``--out OUT.json``). Its first line is
the plan: each policy's name and a digest of what its items are played under (its config's
``[policy]``, ``[agent]`` and ``[eval]`` sections and its checkpoint, so a later version that adds
a field elsewhere still resumes it); then one line an item, with the
policy that played it. A resumed evaluation takes the items its policies already have for any task
and seed it asks for, so a larger ``--limit`` extends a smaller one; a journal of other policies or
settings is refused, never mixed in. A line cut short by a kill is dropped and its item played again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadework.errors import UsageError
from spadework.eval.policies import PolicySpec
from spadework.eval.runner import ItemResult
from spadework.eval.tasks import Suite
from spadework.rollout.records import EndReason
from spadework.rundir import write_atomically

SUFFIX = ".items.jsonl"
ItemKey = tuple[str, int]
"""An item's task (``<suite>/<task>``) and seed."""
Done = Mapping[str, Mapping[ItemKey, ItemResult]]
"""Items already played, by policy name."""


def journal_path(out: Path) -> Path:
    """The journal of the report ``out``.

    >>> journal_path(Path("runs/bfcl.json")).as_posix()
    'runs/bfcl.items.jsonl'
    """
    return out.with_suffix(SUFFIX)


PLAYED_UNDER = frozenset({"policy", "agent", "eval"})
"""The config sections an evaluation's items depend on (the designer's, the learner's and the run's
do not)."""


def plan_of(specs: Sequence[PolicySpec]) -> dict[str, str]:
    """Each policy's name with a digest of what its items were played under (``PLAYED_UNDER`` and
    its checkpoint)."""
    return {s.name: _digest(s) for s in specs}


def _digest(spec: PolicySpec) -> str:
    played = spec.config.model_dump(mode="json", include=set(PLAYED_UNDER))
    played["checkpoint"] = None if spec.checkpoint is None else spec.checkpoint.as_posix()
    return hashlib.sha256(json.dumps(played, sort_keys=True).encode()).hexdigest()[:16]


def item_json(policy: str, item: ItemResult) -> dict[str, Any]:
    """An item as one journal line's JSON, every field kept (``item_from_json`` reads it back)."""
    return {"policy": policy, "suite": item.suite.value, "task": item.task, "seed": item.seed,
            "score": item.score, "solved": item.solved, "turns": item.turns, "end": item.end.value,
            "error": item.error, "entry": item.entry, "figures": dict(item.figures)}


def item_from_json(data: Mapping[str, Any]) -> ItemResult:
    """The item a journal line holds.

    >>> item = ItemResult(Suite.BFCL, "simple_python", 3, 1.0, True, 1, entry="simple_7",
    ...                   figures={"seconds": 4.0})
    >>> item_from_json(item_json("base", item)) == item
    True

    Raises:
        KeyError, ValueError, TypeError: the line is not an item.
    """
    return ItemResult(Suite(data["suite"]), str(data["task"]), int(data["seed"]), float(data["score"]),
                      bool(data["solved"]), int(data["turns"]), EndReason(data["end"]), data["error"],
                      data["entry"], {str(k): float(v) for k, v in dict(data["figures"]).items()})


@dataclass(frozen=True)
class Journal:
    """An evaluation's journal, open for appending (``open_journal``)."""

    path: Path

    def record(self, policy: str, item: ItemResult) -> None:
        """Append one scored item (a whole line, flushed when the file closes)."""
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(item_json(policy, item)) + "\n")


def open_journal(path: Path, plan: dict[str, str], *, resume: bool) -> tuple[Journal, Done]:
    """The journal at ``path`` and the items it already holds: with ``resume`` and a journal there,
    its readable items (rewritten without the unreadable lines, so the next one starts whole);
    else an empty journal of ``plan``.

    Raises:
        UsageError: the journal there was written for other policies or settings.
    """
    lines = path.read_text(encoding="utf-8").splitlines() if resume and path.is_file() else []
    if not lines:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps({"plan": plan}) + "\n")
        return Journal(path), {}
    header = _json(lines[0]) or {}
    if header.get("plan") != plan:
        written = ", ".join(header.get("plan") or {}) or "nothing readable"
        raise UsageError(f"{path} holds items of {written} played with other settings than this evaluation's "
                         f"({', '.join(plan)}): resume with the same --policy, --config and --set flags, "
                         "or give another --out")
    kept = [lines[0]]
    done: dict[str, dict[ItemKey, ItemResult]] = {}
    for line in lines[1:]:
        try:
            data = _json(line) or {}
            item = item_from_json(data)
        except (KeyError, ValueError, TypeError):
            continue
        done.setdefault(str(data["policy"]), {})[(item.key, item.seed)] = item
        kept.append(line)
    write_atomically(path, "".join(f"{line}\n" for line in kept))  # a kill now loses no kept item
    return Journal(path), done


def _json(line: str) -> dict[str, Any] | None:
    """A line's JSON object, or None when it is not one (a line a kill cut short)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
