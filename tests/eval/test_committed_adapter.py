"""The committed tool-learning adapter loads by its folder, as the docs say to evaluate it."""

from __future__ import annotations

from pathlib import Path

from spadework.eval.policies import PolicySource, parse_policy_spec

ROOT = Path(__file__).resolve().parents[2]
RESULT = ROOT / "results" / "tool-learning-0.5b"


def test_the_committed_warm_start_adapter_is_what_its_folder_evaluates():
    spec = parse_policy_spec(str(RESULT))
    assert spec.source is PolicySource.CHECKPOINT and spec.checkpoint == RESULT / "checkpoints" / "warm-start"
    assert spec.config.policy.model == "qwen2.5-coder-0.5b"
    assert spec.config.agent.tool_prompt.value == "native"
    assert (spec.checkpoint / "adapter.gguf").stat().st_size > 1_000_000
    assert (spec.checkpoint / "adapter" / "adapter_model.safetensors").is_file()
