"""The committed adapters load by their folders, as the docs say to evaluate them; each PEFT adapter
under results/ becomes, without its base model, the very GGUF file its run wrote (their SHA-256 were
recorded before those copies left the tree); an arm's start is the warm start its config names; and
the coevolution recipe starts from an adapter of its own shape."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from spadework.config import load_config
from spadework.eval.policies import PolicySource, checkpoint_adapter, parse_policy_spec

ROOT = Path(__file__).resolve().parents[2]
WRITTEN = {  # the adapter.gguf each run wrote (sha256sum, 2026-12-07, commit 37214ec)
    "coevolution-ablate/full/checkpoints/iteration-0019":
        "957bbff172ff976cff37655a6fa9be293b3a8f8d906e932c980576c1c057f5cd",
    "coevolution-ablate/frozen-designer/checkpoints/iteration-0019":
        "d53d66eddd69b49350c1a772d8caa62e9b78a07713ffa9a3c9ca768be7b29b52",
    "coevolution-ablate/fixed-pool/checkpoints/iteration-0019":
        "35315c1683216062aa613a2943ec5e15fba33394fc7e349bb4ef5ceb07267c68",
    "coevolution-ablate/no-corpus/checkpoints/iteration-0019":
        "652efdb320252f806fd6384557f00f6b14f1f1d98f6f299f6ad31d2a89061115",
    "coevolution-ablate/plain-regret/checkpoints/iteration-0019":
        "eb16e4f532ebd222c33ea1602ca4d3c37f5acbe3906f92822d4b2badfcd82f68",
    "tool-learning-1.5b/checkpoints/warm-start":
        "369c035eabecbe18d1776e8287198175a873d33a24fb5edaeec1a8b9699fb141",
    "tool-learning-0.5b/checkpoints/warm-start":
        "7dc4ad5ed5187f52c1eb892f46e63f4680d8a7619d5d8888b938cc3a7c7e170e",
}


@pytest.mark.parametrize("model", ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
def test_the_committed_warm_start_adapter_is_what_its_folder_evaluates(model):
    result = ROOT / "results" / f"tool-learning-{model.rsplit('-', 1)[1]}"
    spec = parse_policy_spec(str(result))
    assert spec.source is PolicySource.CHECKPOINT and spec.checkpoint == result / "checkpoints" / "warm-start"
    assert spec.config.policy.model == model
    assert spec.config.agent.tool_prompt.value == "native"
    assert (spec.checkpoint / "adapter" / "adapter_model.safetensors").stat().st_size > 1_000_000


def test_the_coevolution_recipe_starts_from_a_committed_adapter_of_its_shape():
    import json

    recipe = load_config(ROOT / "configs" / "experiments" / "coevolution.toml")
    learn = recipe.learn
    assert learn.init_adapter is not None
    saved = json.loads((ROOT / learn.init_adapter / "adapter" / "adapter_config.json").read_text())
    assert (saved["r"], saved["lora_alpha"]) == (learn.lora_rank, learn.lora_alpha)
    assert sorted(saved["target_modules"]) == sorted(learn.lora_targets)
    assert parse_policy_spec(str(ROOT / learn.init_adapter)).config.policy.model == recipe.policy.model


@pytest.mark.parametrize("checkpoint", sorted(WRITTEN))
def test_each_committed_peft_adapter_becomes_the_gguf_file_its_run_wrote(checkpoint, tmp_path):
    pytest.importorskip("gguf")
    pytest.importorskip("safetensors")
    copy = tmp_path / "checkpoint"
    shutil.copytree(ROOT / "results" / checkpoint / "adapter", copy / "adapter")
    written = checkpoint_adapter(copy)
    assert hashlib.sha256(written.read_bytes()).hexdigest() == WRITTEN[checkpoint]


def test_every_committed_checkpoint_is_one_of_those():
    found = {str(p.parent.relative_to(ROOT / "results"))
             for p in (ROOT / "results").glob("**/checkpoints/*/adapter")}
    assert found == set(WRITTEN)


def test_an_arms_start_is_the_warm_start_its_config_names(monkeypatch):
    monkeypatch.chdir(ROOT)
    spec = parse_policy_spec("results/coevolution-ablate/full/checkpoints/start")
    assert spec.name == "full/start"
    assert spec.checkpoint == Path("results/tool-learning-1.5b/checkpoints/warm-start")


def test_a_committed_adapter_reaches_the_embedded_model_by_its_folder(tmp_path):
    """End to end: the 0.5B warm start's run folder, as committed (PEFT adapter and config only), is
    evaluated as `--policy` loads it, and the model then says something else than without it."""
    pytest.importorskip("llama_cpp")
    from spadework.errors import PolicyError
    from spadework.eval.policies import load_eval_policy
    from spadework.policy import Message, Role, Sampling
    from spadework.policy.models import PRESETS, part_files

    try:
        part_files(PRESETS["qwen2.5-coder-0.5b"])
    except PolicyError as exc:
        pytest.skip(str(exc))
    run = tmp_path / "tool-learning-0.5b"
    shutil.copytree(ROOT / "results" / run.name / "checkpoints" / "warm-start" / "adapter",
                    run / "checkpoints" / "warm-start" / "adapter")
    shutil.copy(ROOT / "results" / run.name / "config.toml", run / "config.toml")
    policy = load_eval_policy(parse_policy_spec(str(run)))
    ask = [[Message(Role.USER, "You manage a small library's records. Find the record of the book 'Dune' "
                               "and set its status to 'lent'. Which tool do you call first?")]]
    greedy = Sampling(temperature=0.0, max_tokens=48)
    try:
        trained = policy.generate(ask, greedy)[0].text
        policy.load_adapter(None)
        plain = policy.generate(ask, greedy)[0].text
    finally:
        policy.close()
    assert (run / "checkpoints" / "warm-start" / "adapter.gguf").is_file()
    assert trained.strip() and trained != plain
