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
