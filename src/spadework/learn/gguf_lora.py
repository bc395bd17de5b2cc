"""A PEFT LoRA adapter written as a GGUF LoRA adapter, which llama.cpp applies to an unchanged base.

The file says ``general.type = adapter``, ``adapter.type = lora`` and ``adapter.lora.alpha``
(llama.cpp scales by alpha / rank, as PEFT does), and holds one float32 pair per adapted
projection: ``blk.<layer>.<tensor>.weight.lora_a`` (rank × in) and ``.lora_b`` (out × rank),
PEFT's A and B as they are. A saved adapter folder converts without the base model
(``export_adapter_folder``), so a committed checkpoint needs only its PEFT adapter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from spadework.errors import ConfigError
from spadework.learn.checkpoint import ADAPTER_WEIGHTS
from spadework.rundir import atomic_path

GGUF_TENSOR = {
    "q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v", "o_proj": "attn_output",
    "gate_proj": "ffn_gate", "up_proj": "ffn_up", "down_proj": "ffn_down",
}
"""llama.cpp's tensor name for each projection of a Llama/Qwen2-style layer."""

PEFT_NAME = re.compile(
    r"layers\.(?P<layer>\d+)\.(?:self_attn|mlp)\.(?P<proj>\w+)\.lora_(?P<ab>[AB])(?:\.\w+)?\.weight$")
"""A LoRA weight as the model names it (``...lora_A.default.weight``) or as PEFT saves it
(``...lora_A.weight``)."""


def gguf_tensor_name(peft_name: str) -> str:
    """The GGUF adapter's name for one PEFT LoRA weight.

    >>> gguf_tensor_name("base_model.model.model.layers.3.self_attn.q_proj.lora_A.default.weight")
    'blk.3.attn_q.weight.lora_a'
    >>> gguf_tensor_name("base_model.model.model.layers.0.mlp.down_proj.lora_B.default.weight")
    'blk.0.ffn_down.weight.lora_b'
    >>> gguf_tensor_name("base_model.model.model.layers.12.self_attn.v_proj.lora_A.weight")
    'blk.12.attn_v.weight.lora_a'
    """
    match = PEFT_NAME.search(peft_name)
    if match is None or match["proj"] not in GGUF_TENSOR:
        raise ConfigError(f"LoRA weight {peft_name!r} has no llama.cpp name; adapt only "
                          f"{', '.join(GGUF_TENSOR)} to serve the adapter with llama.cpp")
    return f"blk.{match['layer']}.{GGUF_TENSOR[match['proj']]}.weight.lora_{match['ab'].lower()}"


def lora_tensors(peft_model: Any) -> Iterator[tuple[str, Any]]:
    """(GGUF name, float32 numpy array) for every LoRA weight of the active adapter."""
    for name, param in peft_model.named_parameters():
        if ".lora_A." in name or ".lora_B." in name:
            yield gguf_tensor_name(name), param.detach().float().cpu().numpy()


def write_gguf_lora(
    tensors: Iterable[tuple[str, Any]], alpha: float, path: Path, architecture: str = "qwen2"
) -> Path:
    """Write the tensors as a GGUF LoRA adapter at ``path`` (atomically: a reader never sees half)."""
    import gguf

    with atomic_path(path) as partial:
        writer = gguf.GGUFWriter(str(partial), arch=architecture)
        writer.add_string("general.type", "adapter")
        writer.add_string("adapter.type", "lora")
        writer.add_float32("adapter.lora.alpha", float(alpha))
        for name, array in tensors:
            writer.add_tensor(name, array)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
    return path


def export_adapter(peft_model: Any, path: Path) -> Path:
    """The PEFT model's active LoRA adapter as a GGUF adapter file at ``path``."""
    config = peft_model.peft_config[peft_model.active_adapter]
    architecture = getattr(peft_model.config, "model_type", "qwen2")
    return write_gguf_lora(lora_tensors(peft_model), config.lora_alpha, path, architecture)


def model_order(peft_name: str) -> tuple[int, int, str]:
    """Where a saved LoRA weight comes in the model's own parameter order (layer, projection, A/B),
    so a folder converts to the same file as the model it was saved from.

    >>> sorted(["layers.1.self_attn.q_proj.lora_A.weight", "layers.0.mlp.up_proj.lora_B.weight",
    ...         "layers.0.self_attn.v_proj.lora_A.weight"], key=model_order)[0]
    'layers.0.self_attn.v_proj.lora_A.weight'
    """
    gguf_tensor_name(peft_name)  # raises, saying what to change, for a weight llama.cpp cannot name
    match = PEFT_NAME.search(peft_name)
    assert match is not None
    return int(match["layer"]), list(GGUF_TENSOR).index(match["proj"]), match["ab"]


UNSUPPORTED = ("alpha_pattern", "rank_pattern", "use_rslora", "use_dora")
"""Adapter settings a GGUF LoRA file (one alpha, plain LoRA) cannot carry."""


def export_adapter_folder(folder: Path, path: Path, architecture: str = "qwen2") -> Path:
    """A saved PEFT adapter folder (``adapter_config.json``, ``adapter_model.safetensors``) as a GGUF
    adapter file at ``path``; reads no base model and needs neither torch nor peft.

    Raises:
        ConfigError: the folder is not a plain LoRA adapter llama.cpp can apply.
    """
    from safetensors.numpy import load_file

    config = json.loads((folder / "adapter_config.json").read_text(encoding="utf-8"))
    if config.get("peft_type", "LORA") != "LORA" or any(config.get(key) for key in UNSUPPORTED):
        raise ConfigError(f"{folder}: only a plain LoRA adapter (one alpha and rank for every module, no "
                          f"{', '.join(UNSUPPORTED)}) can be written as a GGUF adapter for llama.cpp")
    weights = load_file(str(folder / ADAPTER_WEIGHTS))
    tensors = ((gguf_tensor_name(name), weights[name].astype("float32"))
               for name in sorted(weights, key=model_order))
    return write_gguf_lora(tensors, config["lora_alpha"], path, architecture)
