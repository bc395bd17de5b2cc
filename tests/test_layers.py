"""The parts import only downward: every import of one part by another (at module level, inside
a function, or for type checking only) goes to a lower layer. Fails naming file and line."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).parents[1] / "src" / "spadework"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "rundir", "kinds", "lazy"),
    ("paths", "tomltext", "pysyntax"),
    ("settings_base",),
    ("envs", "tracking", "corpus"),
    ("sandbox", "rewards"),
    ("validate", "policy", "difficulty"),
    ("archive", "rollout", "metered"),
    ("designer", "diversity"),
    ("outcomes",),
    ("learn", "replay", "window"),
    ("config",),
    ("engines",),
    ("eval",),
    ("calibrate",),
    ("report", "loop"),
    ("run", "ablate", "progress"),
    ("api", "cli"),
)
"""Lowest first. A part may import parts of lower layers only (the package root, which only
re-exports ``api`` lazily, is left out)."""

LEVEL = {part: level for level, parts in enumerate(LAYERS) for part in parts}


def part_of(module: str) -> str | None:
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 and pieces[0] == "spadework" else None


def imports(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
    return found


def sources() -> list[Path]:
    skip = ("envs/examples", "calibrate/envs")
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if p.parent != PACKAGE or p.name != "__init__.py"
            if not any(s in p.relative_to(PACKAGE).as_posix() for s in skip)]


def test_every_part_has_a_layer():
    parts = {(p.relative_to(PACKAGE).parts[0]).removesuffix(".py") for p in sources()}
    assert sorted(parts - set(LEVEL)) == []


def test_imports_run_down_the_layers():
    upward = []
    for path in sources():
        own = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        for module, line in imports(path):
            target = part_of(module)
            if target is None or target == own:
                continue
            if LEVEL[target] >= LEVEL[own]:
                upward.append(f"{path.relative_to(PACKAGE)}:{line} imports {module} ({own} -> {target})")
    assert upward == []
