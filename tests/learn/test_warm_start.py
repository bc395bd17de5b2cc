"""Where a run's adapter starts. The supervised warm start (``[learn] warm_start``): the pool's tool
worlds demonstrated by their own solutions, the agent updated on them before the first iteration,
checkpointed on its own, evaluated by name, and never done twice by a run that crashed after it.
Another run's adapter (``[learn] init_adapter``): loaded, recorded as ``checkpoints/start`` and
served; one of another shape or model refused with what to change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

import spadework.run as run_module  # noqa: E402
from spadework.config import load_config  # noqa: E402
from spadework.errors import ConfigError  # noqa: E402
from spadework.eval.policies import PolicySource, parse_policy_spec  # noqa: E402
from spadework.learn.checkpoint import CHECKPOINTS_DIR, START, WARM_START, checkpoints  # noqa: E402
from spadework.learn.model import load_adapter_weights, tiny_model, with_lora  # noqa: E402
from spadework.learn.trainer import Trainer  # noqa: E402
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


PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj")


@pytest.fixture
def saved_adapter(tmp_path: Path) -> Path:
    """A rank-8 adapter of the tiny model with every weight set (a fresh one's B is zero), saved
    the way a checkpoint holds it."""
    import torch

    model = with_lora(tiny_model(), rank=8, alpha=16.0, dropout=0.0, targets=PROJECTIONS)
    torch.manual_seed(1)
    with torch.no_grad():
        for name, weight in model.named_parameters():
            if "lora_" in name:
                weight.copy_(torch.randn_like(weight) * 0.01)
    folder = tmp_path / "elsewhere" / "checkpoints" / "warm-start"
    model.save_pretrained(str(folder / "adapter"))
    return folder


def adapter_tensors(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "adapter" / "adapter_model.safetensors"))


@pytest.mark.timeout(300)
def test_a_run_starts_from_another_runs_adapter_records_it_and_serves_it(
        tmp_path: Path, pool: Path, saved_adapter: Path, monkeypatch):
    served = []
    publish = Trainer.publish
    monkeypatch.setattr(Trainer, "publish", lambda self, at: served.append(at) or publish(self, at))
    settings = {"learn.warm_start": 0, "learn.init_adapter": str(saved_adapter)}
    run(config(pool, **settings), tmp_path / "run")
    start = tmp_path / "run" / CHECKPOINTS_DIR / START
    assert served[0] == start  # served before the first iteration plays
    given, recorded = adapter_tensors(saved_adapter), adapter_tensors(start)
    assert given.keys() == recorded.keys() and len(given) == 16  # A and B of four projections, two layers
    assert all(recorded[k].equal(given[k]) for k in given)
    assert json.loads((start / "loop.json").read_text()) == {"init_adapter": str(saved_adapter)}
    assert parse_policy_spec(str(start)).checkpoint == start
    shutil.rmtree(saved_adapter)  # a resumed run needs only its own record of where it began
    run(config(pool, **settings, **{"run.iterations": 2}), tmp_path / "run", resume=True)
    assert list(checkpoints(tmp_path / "run"))[-1] == 1


def test_an_adapter_of_another_shape_is_refused_with_the_fields_to_change(saved_adapter: Path):
    model = with_lora(tiny_model(), rank=4, alpha=16.0, dropout=0.0, targets=("q_proj", "v_proj"))
    with pytest.raises(ConfigError, match="rank 8 adapter .* set learn.lora_rank"):
        load_adapter_weights(model, saved_adapter, rank=4, alpha=16.0, targets=("q_proj", "v_proj"))


def test_an_adapter_of_another_model_is_refused(saved_adapter: Path):
    from safetensors.torch import save_file

    tensors = adapter_tensors(saved_adapter)
    key = next(iter(tensors))
    tensors[key] = tensors[key][:, :-1].contiguous()  # another width: another model's projection
    save_file(tensors, str(saved_adapter / "adapter" / "adapter_model.safetensors"))
    model = with_lora(tiny_model(), rank=8, alpha=16.0, dropout=0.0, targets=PROJECTIONS)
    with pytest.raises(ConfigError, match="trained on another model"):
        load_adapter_weights(model, saved_adapter, rank=8, alpha=16.0, targets=PROJECTIONS)


def test_a_missing_start_adapter_stops_the_run_before_it_writes_anything(tmp_path: Path, pool: Path):
    settings = {"learn.warm_start": 0, "learn.init_adapter": str(tmp_path / "nowhere")}
    with pytest.raises(ConfigError, match="holds no adapter_model.safetensors"):
        run(config(pool, **settings), tmp_path / "run")
    assert not (tmp_path / "run").exists()
