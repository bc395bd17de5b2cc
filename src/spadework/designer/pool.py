"""The fixed-environment baseline: a fixed pool of environments stands in for the designer.

The agent trains on environments drawn from the pool; nothing new is designed. The pool is
``"examples"`` (the bundled environments), a folder of ``.py`` files, or an earlier run (its
directory or ``archive.sqlite``: the valid final designs). Each member is validated once, in
the sandbox, when the pool is loaded; members that fail are left out and counted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from spadework.archive import ARCHIVE_FILE, Archive
from spadework.designer.design import Design, DesignAttempt
from spadework.envs.examples import example_paths
from spadework.errors import ConfigError
from spadework.sandbox import SandboxProtocol
from spadework.validate import validate

EXAMPLES = "examples"


@dataclass(frozen=True)
class PoolMember:
    """One environment of the fixed-pool baseline: its name and source."""

    name: str
    code: str
    attempt: DesignAttempt


def pool_sources(spec: str) -> list[tuple[str, str]]:
    """(name, source) of every environment the pool ``spec`` names.

    Raises:
        ConfigError: ``spec`` names nothing, or nothing with environments in it.
    """
    path = Path(spec)
    if spec == EXAMPLES:
        found = [(p.stem, p.read_text(encoding="utf-8")) for p in example_paths()]
    elif path.is_dir() and not (path / ARCHIVE_FILE).exists():
        found = [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(path.rglob("*.py"))]
    elif path.name == ARCHIVE_FILE or (path / ARCHIVE_FILE).exists():
        with Archive.open(path.parent if path.name == ARCHIVE_FILE else path, create=False) as archive:
            found = [(f"archive-{r.id}", r.source) for r in archive.records(valid=True)
                     if (design := r.design) is not None and design.final]
    else:
        raise ConfigError(f"designer.fixed_pool {spec!r} is neither 'examples', a folder of .py files, "
                          "nor a run directory or archive.sqlite")
    if not found:
        raise ConfigError(f"designer.fixed_pool {spec!r} holds no environments")
    return found


def load_pool(spec: str, sandbox: SandboxProtocol) -> tuple[list[PoolMember], int]:
    """The pool's valid members (validated now) and how many were left out as invalid.

    Raises:
        ConfigError: no member of the pool is valid.
    """
    members, invalid = [], 0
    for name, code in pool_sources(spec):
        verdict = validate(code, sandbox)
        if not verdict.valid:
            invalid += 1
            continue
        members.append(PoolMember(name, code, DesignAttempt(1, (), "", code, verdict)))
    if not members:
        raise ConfigError(f"designer.fixed_pool {spec!r}: none of its {invalid} environments is valid")
    return members, invalid


def draw_designs(
    pool: Sequence[PoolMember], count: int, seed: int, design_ids: Sequence[str]
) -> list[Design]:
    """``count`` designs drawn from the pool with replacement, fixed by ``seed``.

    >>> from spadework.validate.verdict import Verdict
    >>> pool = [PoolMember(n, "", DesignAttempt(1, (), "", "", Verdict((), "none"))) for n in "ab"]
    >>> [d.document_id for d in draw_designs(pool, 3, 0, ["x", "y", "z"])]
    ['pool:b', 'pool:b', 'pool:a']
    """
    rng = random.Random(seed)
    picks = [rng.choice(pool) for _ in range(count)]
    return [Design(design_id, f"pool:{m.name}", None, (m.attempt,)) for design_id, m in zip(design_ids, picks,
                                                                                           strict=True)]
