"""One tiny self-play run with the real embedded model (the 0.5B preset), end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.archive import Archive
from spadework.config import load_config
from spadework.errors import PolicyError
from spadework.run import run


@pytest.mark.timeout(600)
def test_tiny_run_with_the_embedded_model(tmp_path: Path):
    pytest.importorskip("llama_cpp")
    from spadework.policy.models import resolve_model

    try:
        resolve_model("qwen2.5-coder-0.5b")
    except PolicyError as exc:  # the Makefile installs the model packages; say what is missing
        pytest.skip(str(exc))
    config = load_config(None, {
        "policy.model": "qwen2.5-coder-0.5b", "policy.n_ctx": 4096, "run.iterations": 1,
        "run.designs": 1, "run.plays": 1, "designer.max_attempts": 1,
        "designer.sampling.max_tokens": 700, "agent.max_turns": 2, "agent.sampling.max_tokens": 48,
    })
    summary = run(config, tmp_path / "run")
    (metrics,) = summary.metrics
    assert metrics["perf/generated_tokens"] > 0 and metrics["perf/tokens_per_s"] > 0
    assert metrics["design/count"] == 1.0
    with Archive.open(tmp_path / "run", create=False) as archive:
        (record,) = list(archive.records())
    assert record.origin == "run:i0:i0-d0:a1"
    assert [c.name for c in record.verdict.checks][:3] == ["parse", "static", "novel"]
    assert record.valid == (metrics["design/valid_rate"] == 1.0)
    if record.valid:  # then both arms played it
        assert len(record.metrics["scores_nohint"]) == len(record.metrics["scores_hint"]) == 1


@pytest.mark.timeout(900)
def test_one_short_training_iteration_with_the_embedded_model(tmp_path: Path):
    """Both roles of the real 0.5B model: the pool's environments are played (so the agent has
    episodes), the update runs on the HF copy, and the served model gets the new adapter."""
    pytest.importorskip("llama_cpp")
    pytest.importorskip("peft")
    from spadework.learn.checkpoint import checkpoints
    from spadework.policy.embedded import EmbeddedPolicy
    from spadework.policy.models import resolve_model

    try:
        resolve_model("qwen2.5-coder-0.5b")
    except PolicyError as exc:
        pytest.skip(str(exc))
    config = load_config(None, {
        "policy.model": "qwen2.5-coder-0.5b", "policy.n_ctx": 2048, "run.iterations": 1, "run.designs": 2,
        "run.plays": 2, "designer.fixed_pool": "examples", "agent.max_turns": 2, "agent.context_tokens": 1536,
        "agent.sampling.max_tokens": 32, "agent.sampling.temperature": 1.0, "learn.enabled": True,
        "learn.max_sample_tokens": 768, "learn.micro_batch_tokens": 1536, "sandbox.pool_size": 2,
    })
    policy = EmbeddedPolicy("qwen2.5-coder-0.5b", n_ctx=2048)
    try:
        summary = run(config, tmp_path / "run", policy=policy)
        (metrics,) = summary.metrics
        (checkpoint,) = checkpoints(tmp_path / "run").values()
        assert policy.adapter_path == checkpoint / "adapter.gguf"  # the served model has the update
        assert policy.generate([_hello()], _short())[0].completion_tokens > 0
    finally:
        policy.close()
    for key in ("learn/loss", "learn/grad_norm", "learn/update_s", "learn/sync_s", "learn/agent_samples"):
        assert key in metrics
    assert metrics["learn/samples"] == metrics["learn/agent_samples"]  # nothing was designed
    assert (metrics["learn/grad_norm"] > 0) == (metrics["learn/samples"] > 0)


def _short():
    from spadework.policy.base import Sampling

    return Sampling(temperature=0.0, max_tokens=4)


def _hello():
    from spadework.policy.base import Message, Role

    return [Message(Role.USER, "Say hello.")]
