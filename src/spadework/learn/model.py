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

__all__ = ["HF_CACHE", "SPECIALS", "TINY", "ByteTokenizer", "HFTokenizer", "LoadedModel", "hf_copy",
           "load_base", "tiny_model", "with_lora"]


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
