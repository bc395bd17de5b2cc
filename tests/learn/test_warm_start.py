"""The supervised warm start (``[learn] warm_start``): the pool's tool worlds demonstrated by their own
solutions, the agent updated on them before the first iteration, checkpointed on its own, evaluated
by name, and never done twice by a run that crashed after it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

import spadework.run as run_module  # noqa: E402
from spadework.config import load_config  # noqa: E402
from spadework.errors import ConfigError  # noqa: E402
from spadework.eval.policies import PolicySource, parse_policy_spec  # noqa: E402
from spadework.learn.checkpoint import CHECKPOINTS_DIR, WARM_START, checkpoints  # noqa: E402
from spadework.run import run  # noqa: E402

SHELF = '''
from spadework.envs import DeclaredWorld


class ShelfEnv(DeclaredWorld):
    """A shop's shelves."""

    collections = {"items": {"name": ["tea", "rice", "salt", "oats", "figs"], "stock": [1, 4, 9, 12]}}
    tasks = ("update",)
    steps = 1
    size = 4
'''


def config(pool: Path, **overrides):
    return load_config(None, {
        "policy.kind": "scripted", "run.iterations": 1, "run.designs": 1, "run.plays": 2,
        "designer.fixed_pool": str(pool), "agent.arms": "nohint", "replay.count": 0,
        "sandbox.pool_size": 2, "learn.enabled": True, "learn.model": "tiny", "learn.designer": False,
        "learn.max_sample_tokens": 8192, "learn.micro_batch_tokens": 8192, "learn.lr": 1e-3,
        "learn.warm_start": 2, "learn.warm_start_seeds": 2, "diversity.embedder": "hashing", **overrides})


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    folder = tmp_path / "pool"
    folder.mkdir()
    (folder / "shelf.py").write_text(SHELF)
    return folder


@pytest.mark.timeout(300)
def test_the_warm_start_trains_before_the_first_iteration_and_is_evaluated_alone(tmp_path: Path, pool: Path):
    summary = run(config(pool), tmp_path / "run")
    first = summary.metrics[0]
    counts = [first[f"warm_start/{name}"] for name in ("demonstrations", "solved", "samples")]
    assert counts == [2, 2, 2] and first["warm_start/trained_tokens"] > 0
    assert first["warm_start/steps"] == 2 and first["learn/updates"] >= 2  # a step a pair, two passes
    assert first["warm_start/token_logp_last_pass"] > first["warm_start/token_logp_first_pass"]  # fitted
    folder = tmp_path / "run" / CHECKPOINTS_DIR / WARM_START
    assert (folder / "adapter").is_dir() and list(checkpoints(tmp_path / "run")) == [0]
    kept = json.loads((folder / "loop.json").read_text())  # carried into the first iteration's row:
    assert kept["warm_start/samples"] == 2 and all(k.startswith("warm_start/") for k in kept)  # no learn/
    spec = parse_policy_spec(str(folder))
    assert spec.source is PolicySource.CHECKPOINT and spec.checkpoint == folder


@pytest.mark.timeout(300)
def test_a_run_that_crashed_after_its_warm_start_loads_it_instead_of_training_again(
        tmp_path: Path, pool: Path, crashing_policy, monkeypatch):
    with pytest.raises(KeyboardInterrupt):  # iteration 0 dies at its first reply, after the warm start
        run(config(pool), tmp_path / "run", policy=crashing_policy(calls=0))
    adapter = tmp_path / "run" / CHECKPOINTS_DIR / WARM_START / "adapter"
    written = {p.name: p.read_bytes() for p in adapter.iterdir()}
    assert parse_policy_spec(str(tmp_path / "run")).checkpoint == adapter.parent  # no iteration's yet

    def never(*args, **kwargs):
        raise AssertionError("the warm start was demonstrated again")

    monkeypatch.setattr(run_module, "demonstrations", never)
    summary = run(config(pool), tmp_path / "run", resume=True)
    assert summary.metrics[0]["warm_start/samples"] == 2  # carried from its checkpoint into iteration 0
    assert {p.name: p.read_bytes() for p in adapter.iterdir()} == written


def test_a_warm_start_with_no_worlds_to_demonstrate_is_refused():
    with pytest.raises(ConfigError, match="warm_start_worlds"):
        load_config(None, {"learn.enabled": True, "learn.warm_start": 2})
