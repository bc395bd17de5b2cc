"""The committed tool-learning adapters load by their folders, as the docs say to evaluate them, and
the coevolution recipe starts from one of its own shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.config import load_config
from spadework.eval.policies import PolicySource, parse_policy_spec

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("model", ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
def test_the_committed_warm_start_adapter_is_what_its_folder_evaluates(model):
    result = ROOT / "results" / f"tool-learning-{model.rsplit('-', 1)[1]}"
    spec = parse_policy_spec(str(result))
    assert spec.source is PolicySource.CHECKPOINT and spec.checkpoint == result / "checkpoints" / "warm-start"
    assert spec.config.policy.model == model
    assert spec.config.agent.tool_prompt.value == "native"
    assert (spec.checkpoint / "adapter.gguf").stat().st_size > 1_000_000
    assert (spec.checkpoint / "adapter" / "adapter_model.safetensors").is_file()


def test_the_coevolution_recipe_starts_from_a_committed_adapter_of_its_shape():
    import json

    recipe = load_config(ROOT / "configs" / "experiments" / "coevolution.toml")
    learn = recipe.learn
    assert learn.init_adapter is not None
    saved = json.loads((ROOT / learn.init_adapter / "adapter" / "adapter_config.json").read_text())
    assert (saved["r"], saved["lora_alpha"]) == (learn.lora_rank, learn.lora_alpha)
    assert sorted(saved["target_modules"]) == sorted(learn.lora_targets)
    assert parse_policy_spec(str(ROOT / learn.init_adapter)).config.policy.model == recipe.policy.model
