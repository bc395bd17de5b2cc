"""The learner's model: a transformers causal LM with a PEFT LoRA adapter, and its tokenizer.

Where the weights come from (``LearnerSection.model``):
- ``"policy"``: the same weights the embedded engine serves: the preset's (or the path's) GGUF,
  dequantized by transformers once and cached as a Hugging Face folder next to it, so later
  loads take seconds;
- a ``.gguf`` path or a preset name: the same, for that file;
- a Hugging Face model folder, or a model id where the machine can download it;
- ``"tiny"`` or ``"tiny:SEED"``: a tiny randomly initialised Qwen2-shaped model built from
  a config (no download) with a byte-level tokenizer, for tests and benchmarks.

The plain loading (tiny model, byte tokenizer, Hugging Face folders, the tokenizer adapter)
is the policy layer's (``policy.hf``), shared with the hf backend; its names are re-exported
here. The learner adds the cached dequantized copy of a GGUF model and the LoRA adapter.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from spadework.errors import ConfigError, PolicyError
from spadework.learn.checkpoint import ADAPTER_DIR, ADAPTER_WEIGHTS
from spadework.policy.hf import (
    HF_CACHE,
    SPECIALS,
    TINY,
    ByteTokenizer,
    HFTokenizer,
    LoadedModel,
    hf_folder,
    load_hf,
    tiny_model,
)
from spadework.policy.models import PRESETS, resolve_model
from spadework.rundir import atomic_path

__all__ = ["HF_CACHE", "SPECIALS", "TINY", "ByteTokenizer", "HFTokenizer", "LoadedModel",
           "adapter_weights_file", "hf_copy", "load_adapter_weights", "load_base", "tiny_model", "with_lora"]


def hf_copy(gguf: Path, cache_dir: Path | None = None) -> Path:
    """The Hugging Face folder dequantized from ``gguf``, made once (atomically) and then reused."""
    folder = hf_folder(gguf, cache_dir)
    if (folder / "config.json").exists():
        return folder
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # saving refuses a model that still says it is quantized; torch types a module's attributes as
    # tensors or modules only, transformers' hf_quantizer is neither
    model.hf_quantizer = None  # type: ignore[assignment]
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    with atomic_path(folder) as partial:
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
    return folder


def load_base(
    source: str, policy_model: str, *, dtype: str = "auto", cache_dir: Path | None = None
) -> LoadedModel:
    """The learner's base model and tokenizer for ``source`` (see the module's docstring).

    Loading is ``policy.hf.load_hf``'s; a GGUF model is first dequantized into its cached folder.

    Raises:
        ConfigError: the source names nothing loadable (the message says what is accepted).
    """
    name = policy_model if source == "policy" else source
    if name in PRESETS or name.endswith(".gguf"):
        hf_copy(resolve_model(name, cache_dir), cache_dir)
    elif not (name == TINY or name.startswith(f"{TINY}:") or Path(name).is_dir() or "/" in name):
        raise ConfigError(f"learner model {source!r} is neither 'policy', 'tiny', a preset "
                          f"({', '.join(PRESETS)}), a .gguf file nor a Hugging Face model folder or id")
    try:
        loaded = load_hf(name, dtype=dtype, cache_dir=cache_dir)
    except PolicyError as exc:
        raise ConfigError(f"learner model {source!r}: {exc}") from None
    return replace(loaded, source=source)


def with_lora(model: Any, *, rank: int, alpha: float, dropout: float, targets: tuple[str, ...]) -> Any:
    """``model`` wrapped in a fresh PEFT LoRA adapter on the ``targets`` projections."""
    from peft import LoraConfig, get_peft_model

    # PEFT annotates lora_alpha as int but only divides by it (alpha / rank): a float alpha is kept
    config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout,  # type: ignore[arg-type]
                        target_modules=list(targets), bias="none", task_type="CAUSAL_LM")
    return get_peft_model(model, config)


def adapter_weights_file(folder: Path) -> Path:
    """The PEFT weights file of ``folder``: a checkpoint (its ``adapter/``) or an adapter folder.

    Raises:
        ConfigError: neither holds ``adapter_model.safetensors``.
    """
    for candidate in (folder / ADAPTER_DIR / ADAPTER_WEIGHTS, folder / ADAPTER_WEIGHTS):
        if candidate.is_file():
            return candidate
    raise ConfigError(f"learn.init_adapter {str(folder)!r} holds no {ADAPTER_WEIGHTS} (nor does its "
                      "adapter/): give a checkpoint folder such as results/tool-learning-1.5b/checkpoints/"
                      "warm-start (paths are read from the working directory)")


def load_adapter_weights(model: Any, folder: Path, *, rank: int, alpha: float,
                         targets: tuple[str, ...]) -> None:
    """Start ``model``'s LoRA adapter (from ``with_lora``) from the weights saved in ``folder``
    (``adapter_weights_file``), which must be of the same shape: rank, alpha, projections, base model.

    Raises:
        ConfigError: the saved adapter is of another shape or another model (what to change).
    """
    import json

    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    weights = adapter_weights_file(folder)
    name = f"learn.init_adapter {str(folder)!r}"
    saved = json.loads((weights.parent / "adapter_config.json").read_text(encoding="utf-8"))
    shape = (int(saved.get("r", 0)), float(saved.get("lora_alpha", 0)),
             sorted(saved.get("target_modules") or ()))
    if shape != (rank, float(alpha), sorted(targets)):
        raise ConfigError(f"{name} is a rank {shape[0]} adapter (alpha {shape[1]:g}) on {shape[2]}; set "
                          "learn.lora_rank, learn.lora_alpha and learn.lora_targets to match")
    try:
        result: Any = set_peft_model_state_dict(model, load_file(str(weights)))
    except RuntimeError as exc:
        reason = str(exc).strip().splitlines()[-1].strip()[:200]
        raise ConfigError(f"{name} was trained on another model than the learner's ({reason}); "
                          "start from an adapter of this model") from None
    if result.unexpected_keys:
        raise ConfigError(f"{name} has weights this model lacks ({result.unexpected_keys[0]}, ...): "
                          "it was trained on another model")
