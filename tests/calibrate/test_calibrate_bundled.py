"""The bundled calibration set on the real sandbox: every file of a known kind, every non-leaking one
valid, every leaking one rejected by the check meant to catch it."""

from __future__ import annotations

import pytest

from spadework.calibrate import Kind, bundled_paths
from spadework.validate import validate

BUNDLED = bundled_paths()
LEAK_CHECKS = {"determined", "key_from_text", "no_hint_leak"}
LEAKING = [p for p in BUNDLED if Kind.of_path(p) is Kind.LEAKING]
OTHERS = [p for p in BUNDLED if Kind.of_path(p) is not Kind.LEAKING]


def test_the_bundled_set_has_every_kind_in_the_planned_numbers():
    kinds = [Kind.of_path(p) for p in BUNDLED]
    assert kinds.count(Kind.EASY) == 3 and kinds.count(Kind.FRONTIER) == 4
    assert kinds.count(Kind.IMPOSSIBLE) == 2 and kinds.count(Kind.LEAKING) == 4
    assert Kind.UNRANKED not in kinds


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: p.stem)
def test_every_non_leaking_file_is_valid(path, sandbox):
    verdict = validate(path.read_text(encoding="utf-8"), sandbox)
    assert verdict.valid, verdict.reason
    assert verdict.isolation in ("namespaces", "rlimits") and verdict.tolerances == ()


@pytest.mark.parametrize("path", LEAKING, ids=lambda p: p.stem)
def test_every_leaking_file_is_rejected(path, sandbox):
    verdict = validate(path.read_text(encoding="utf-8"), sandbox)
    assert not verdict.valid
    assert verdict.failure.name in LEAK_CHECKS, verdict.reason
