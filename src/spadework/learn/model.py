"""The learner's model: a transformers causal LM with a PEFT LoRA adapter, and its tokenizer.

Where the weights come from (``LearnerSection.model``):
- ``"policy"``: the same weights the embedded engine serves: the preset's (or the path's) GGUF,
  dequantized by transformers once and cached as a Hugging Face folder next to it, so later
  loads take seconds;
- a ``.gguf`` path or a preset name: the same, for that file;
- a Hugging Face model folder, or a model id where the machine can download it;
- ``"tiny"`` or ``"tiny:SEED"``: a tiny randomly initialised Qwen2-shaped model built here from
  a config (no download) with a byte-level tokenizer, for tests and benchmarks.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spadework.errors import ConfigError
from spadework.policy.models import PRESETS, default_cache_dir, resolve_model

TINY = "tiny"
SPECIALS = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")
"""The byte tokenizer's special tokens (ChatML's), after the 256 byte values."""
HF_CACHE = "hf"
"""Folder under the model cache where dequantized copies of GGUF models are kept."""


class ByteTokenizer:
    """A real, trivial tokenizer: one id per UTF-8 byte, plus ChatML's special tokens.

    >>> t = ByteTokenizer()
    >>> t.encode("<|im_start|>hi")
    [256, 104, 105]
    >>> t.decode(t.encode("<|im_end|>é"))
    '<|im_end|>é'
    """

    vocab_size = 256 + len(SPECIALS)
    eos_token_id = 256 + SPECIALS.index("<|im_end|>")
    _split = re.compile("(" + "|".join(re.escape(s) for s in SPECIALS) + ")")

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for part in self._split.split(text):
            ids += [256 + SPECIALS.index(part)] if part in SPECIALS else list(part.encode("utf-8"))
        return ids

    def decode(self, ids: list[int]) -> str:
        out, pending = [], bytearray()
        for i in ids:
            if i < 256:
                pending.append(i)
                continue
            out.append(pending.decode("utf-8", errors="replace"))
            pending = bytearray()
            out.append(SPECIALS[i - 256])
        return "".join(out) + pending.decode("utf-8", errors="replace")


class HFTokenizer:
    """A transformers tokenizer behind the ``encode``/``decode`` of ``rollout.tokens.Tokenizer``."""

    def __init__(self, tokenizer: Any):
        self.inner = tokenizer
        self.eos_token_id = tokenizer.convert_tokens_to_ids("<|im_end|>") or tokenizer.eos_token_id

    def encode(self, text: str) -> list[int]:
        return list(self.inner.encode(text, add_special_tokens=False))

    def decode(self, ids: list[int]) -> str:
        return str(self.inner.decode(ids))


@dataclass(frozen=True)
class LoadedModel:
    """A base model, its tokenizer, and where it came from (``gguf`` set when it has a GGUF twin)."""

    model: Any
    tokenizer: Any
    source: str
    gguf: Path | None = None


def tiny_model(seed: int = 0, vocab_size: int = ByteTokenizer.vocab_size) -> Any:
    """A tiny Qwen2-shaped causal LM with random weights (two layers, width 64)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32768,
                         tie_word_embeddings=True, eos_token_id=ByteTokenizer.eos_token_id)
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(config).float()


def _dtype(name: str) -> Any:
    import torch

    if name == "auto":
        return torch.bfloat16 if torch.cuda.is_available() else torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16}[name]


def hf_copy(gguf: Path, cache_dir: Path | None = None) -> Path:
    """The Hugging Face folder dequantized from ``gguf``, made once (atomically) and then reused."""
    folder = (cache_dir or default_cache_dir()) / HF_CACHE / f"{gguf.stem}-{gguf.stat().st_size}"
    if (folder / "config.json").exists():
        return folder
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    model.hf_quantizer = None  # saving refuses a model that still says it is quantized
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    partial = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    os.replace(partial, folder)
    return folder


def load_base(
    source: str, policy_model: str, *, dtype: str = "auto", cache_dir: Path | None = None
) -> LoadedModel:
    """The learner's base model and tokenizer for ``source`` (see the module's docstring).

    Raises:
        ConfigError: the source names nothing loadable (the message says what is accepted).
    """
    if source == TINY or source.startswith(f"{TINY}:"):
        seed = int(source.partition(":")[2] or 0)
        return LoadedModel(tiny_model(seed), ByteTokenizer(), source)
    name = policy_model if source == "policy" else source
    if name in PRESETS or name.endswith(".gguf"):
        gguf = resolve_model(name, cache_dir)
        folder, twin = hf_copy(gguf, cache_dir), gguf
    elif Path(name).is_dir() or "/" in name:  # a folder, or a Hugging Face model id (on a cluster)
        folder, twin = Path(name), None
    else:
        raise ConfigError(f"learner model {source!r} is neither 'policy', 'tiny', a preset "
                          f"({', '.join(PRESETS)}), a .gguf file nor a Hugging Face model folder or id")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        model = AutoModelForCausalLM.from_pretrained(str(folder), dtype=_dtype(dtype))
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    except OSError as exc:
        raise ConfigError(f"learner model {source!r} could not be loaded ({str(exc)[:300]}); give a Hugging "
                          "Face folder that exists here, or an id the machine can download") from None
    return LoadedModel(model, HFTokenizer(tokenizer), source, twin)


def with_lora(model: Any, *, rank: int, alpha: float, dropout: float, targets: tuple[str, ...]) -> Any:
    """``model`` wrapped in a fresh PEFT LoRA adapter on the ``targets`` projections."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=dropout, target_modules=list(targets),
                        bias="none", task_type="CAUSAL_LM")
    return get_peft_model(model, config)
