"""The experiment configs in configs/experiments/ load, and the environments they name are all valid."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.config import load_config
from spadework.designer.pool import load_pool, pool_sources

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = sorted((ROOT / "configs" / "experiments").glob("*.toml"))


def test_there_is_an_experiment():
    assert [p.stem for p in EXPERIMENTS] and "cpu-learning" in [p.stem for p in EXPERIMENTS]


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.stem)
def test_an_experiment_loads_and_every_environment_of_its_pool_and_probe_is_valid(path, sandbox,
                                                                                   monkeypatch):
    monkeypatch.chdir(ROOT)  # the configs name their pools relative to the repository's root
    config = load_config(path)
    for spec in {config.designer.fixed_pool, config.eval.probe} - {None}:
        members, invalid = load_pool(spec, sandbox)
        assert invalid == 0 and len(members) == len(pool_sources(spec)) >= 2
