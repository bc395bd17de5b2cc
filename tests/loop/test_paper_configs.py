"""The reference's recipes as configs (configs/paper/): each loads, the tool-use one says what the
reference's released recipe says flag for flag, every field they set is in the translation table of
the docs, and the CPU-sized ones run end to end with the scripted policy and the tiny model."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from spadework.config import load_config

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "configs" / "paper"
TABLE = ROOT / "docs" / "paper-recipes.md"

TOOL_USE = {  # the reference's cmd/tool_use/_train_spade_blend.sh, as REFERENCE.md reads it
    "run.designs": 24, "run.plays": 16, "run.hint_plays": 16, "designer.regenerate_every": 8,
    "designer.hint_writer": True, "designer.hint_temperature": 0.3, "rewards.designer": "blend",
    "rewards.group_by": "skill", "rewards.blend.plateau_weight": 0.6, "rewards.blend.regret_weight": 0.4,
    "rewards.blend.lp_weight": 0.0, "rewards.blend.frontier_weight": 0.0, "rewards.blend.regret_scale": 0.15,
    "rewards.blend.band_low": 0.4, "rewards.blend.band_high": 0.6, "rewards.blend.ramp": 0.25,
    "rewards.blend.mask_negative": True, "agent.max_turns": 25, "agent.sampling.temperature": 0.6,
    "designer.sampling.temperature": 0.6, "learn.kl_coef": 0.005, "learn.clip_low": 0.2,
    "learn.clip_high": 0.28, "learn.lr": 1e-6, "designer.invalid_penalty": 0.0, "designer.max_attempts": 5,
    "designer.skills": ("API_Orchestration", "Data_Retrieval", "State_Modification", "Error_Recovery",
                        "Tool_Selection", "Multi-Step_Workflows"),
}


def value(config, dotted: str):
    target = config
    for part in dotted.split("."):
        target = getattr(target, part)
    return getattr(target, "value", target)


def fields(data: dict, prefix: str = "") -> list[str]:
    return [name for key, item in data.items()
            for name in (fields(item, f"{prefix}{key}.") if isinstance(item, dict) else [f"{prefix}{key}"])]


def test_the_tool_use_recipe_is_the_reference_flag_for_flag():
    config = load_config(PAPER / "tool_use.toml")
    assert {name: value(config, name) for name in TOOL_USE} == TOOL_USE


@pytest.mark.parametrize("path", sorted(PAPER.glob("*.toml")), ids=lambda p: p.stem)
def test_every_field_a_recipe_sets_is_in_the_translation_table(path: Path):
    load_config(path)
    table = TABLE.read_text(encoding="utf-8")
    missing = [name for name in fields(tomllib.loads(path.read_text(encoding="utf-8")))
               if f"`{name}`" not in table]
    assert missing == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", ["tool_use_cpu", "games_cpu"])
def test_the_cpu_recipes_run_end_to_end(name: str, tmp_path: Path):
    pytest.importorskip("torch")
    from spadework.run import run

    config = load_config(PAPER / f"{name}.toml", {
        "policy.kind": "scripted", "run.iterations": 2, "run.designs": 2, "run.plays": 2, "run.hint_plays": 2,
        "designer.regenerate_every": 2, "learn.model": "tiny", "learn.max_sample_tokens": 8192,
        "learn.min_tokens": 0, "sandbox.pool_size": 2, "diversity.embedder": "hashing"})
    summary = run(config, tmp_path / "run")
    assert summary.iterations == 2
    closing = summary.metrics[1]
    assert "reward/blend_mean" in closing and "learn/updates" in closing
