"""What only a GPU shows of the learner: its bf16 CUDA path and an FSDP update, with the tiny model.

    python benchmarks/gpu_check.py single --out DIR        # one process: bf16 on the GPU
    accelerate launch --config_file configs/accelerate/fsdp.yaml --num_processes 1 \\
        benchmarks/gpu_check.py sharded --out DIR            # the same under accelerate (FSDP)

Each mode loads the tiny model as the learner does (``dtype = "auto"``: bfloat16 on a GPU),
wraps it in LoRA, takes two updates on the fixed batch of ``learn.distributed``, checkpoints,
takes a third, restores the checkpoint and takes the third again: the gradient norms must agree; ``single``
also generates with the trained adapter on the GPU, twice with one seed. It writes
DIR/<mode>.json and prints it: devices and dtypes, losses, gradient norms, update times, and
whether the restored learner matches. It needs torch, transformers, peft and accelerate only.
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from spadework.learn.distributed import fixed_batch
from spadework.learn.learner import Learner
from spadework.learn.model import with_lora
from spadework.learn.settings import LearnerSettings
from spadework.policy.base import Message, Role, Sampling
from spadework.policy.hf import HFPolicy, load_hf


def fresh_learner(accelerator: Any = None) -> Learner:
    """The tiny model as the learner loads it (dtype auto), LoRA-wrapped, with the CPU test's settings."""
    base = load_hf("tiny", dtype="auto")
    model = with_lora(base.model, rank=4, alpha=8, dropout=0.0, targets=("q_proj", "v_proj"))
    settings = LearnerSettings(lr=1e-2, micro_batch_tokens=300, seed=0)
    return Learner(model, base.tokenizer, settings, accelerator)


def dtypes(learner: Learner) -> dict[str, list[str]]:
    """The dtypes of the adapter's and the base model's parameters, as the learner holds them."""
    found: dict[str, set[str]] = {"adapter": set(), "base": set()}
    for name, parameter in learner.model.named_parameters():
        found["adapter" if "lora_" in name else "base"].add(str(parameter.dtype))
    return {kind: sorted(values) for kind, values in found.items()}


def adapter_weights(learner: Learner) -> dict[str, torch.Tensor]:
    from peft import get_peft_model_state_dict

    state = learner.accelerator.get_state_dict(learner.model) if learner.accelerator else None
    weights = get_peft_model_state_dict(learner.peft_model, state)
    return {name: value.detach().float().cpu() for name, value in weights.items()}


def check(accelerator: Any = None) -> tuple[dict[str, Any], Learner]:
    """Two updates, a checkpoint, a third update, a restore of the checkpoint and the third update
    again, which must give the same gradient norm; the figures and the trained learner."""
    batch = fixed_batch()
    learner = fresh_learner(accelerator)
    figures: dict[str, Any] = {"device": str(learner.device), "dtypes": dtypes(learner),
                               "cuda": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    updates = []
    for _ in range(2):
        start = time.perf_counter()
        metrics = learner.update(batch)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        updates.append({"loss": metrics["learn/loss"], "grad_norm": metrics["learn/grad_norm"],
                        "seconds": round(time.perf_counter() - start, 3)})
    figures["updates"] = updates
    figures["finite"] = all(math.isfinite(u["loss"]) and math.isfinite(u["grad_norm"]) for u in updates)
    folder = Path(tempfile.mkdtemp(prefix="gpu-check-"))
    if accelerator is not None:  # every process must agree on one folder
        from accelerate.utils import broadcast_object_list

        shared = [str(folder)]
        broadcast_object_list(shared, from_process=0)
        folder = Path(shared[0])
    learner.save(folder)
    saved = adapter_weights(learner)
    next_norm = learner.update(batch)["learn/grad_norm"]
    learner.load(folder)  # back to the checkpoint, as a resumed run starts (one model per accelerator)
    restored = adapter_weights(learner)
    figures["restored_max_abs_diff"] = max(float((saved[k] - restored[k]).abs().max()) for k in saved)
    restored_norm = learner.update(batch)["learn/grad_norm"]
    figures["third_update_grad_norm"] = {"trained": next_norm, "restored": restored_norm}
    figures["restore_matches"] = figures["restored_max_abs_diff"] == 0.0 and next_norm == restored_norm
    if torch.cuda.is_available():
        figures["peak_memory_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    return figures, learner


def generation(learner: Learner) -> dict[str, Any]:
    """The trained adapter generates on the learner's device; one seed gives one text."""
    policy = HFPolicy(learner.peft_model, learner.tokenizer, name="hf:tiny")
    conversation = [Message(Role.USER, "task 3 task 3")]
    sampling = Sampling(temperature=0.8, max_tokens=24, seed=7)
    first, second = (policy.generate([conversation], sampling)[0] for _ in range(2))
    return {"tokens": first.completion_tokens, "same_text_same_seed": first.text == second.text,
            "finish": first.finish_reason}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["single", "sharded"])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    accelerator = None
    if args.mode == "sharded":
        from accelerate import Accelerator

        accelerator = Accelerator(cpu=not torch.cuda.is_available())
    figures, learner = check(accelerator)
    figures["mode"] = args.mode
    if accelerator is None:
        figures["generation"] = generation(learner)
    else:
        figures["distributed_type"] = str(accelerator.distributed_type)
        figures["mixed_precision"] = accelerator.mixed_precision
    if accelerator is None or accelerator.is_main_process:
        args.out.mkdir(parents=True, exist_ok=True)
        text = json.dumps(figures, indent=1)
        (args.out / f"{args.mode}.json").write_text(text, encoding="utf-8")
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
