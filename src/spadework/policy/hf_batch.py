"""Padded batch decoding for the hf backend: many prompts through one forward pass a step.

Prompts are padded on the left (attention mask and position ids skip the padding) and decoded
together with the model's KV cache. Each row samples with a ``torch.Generator`` of its own,
seeded with its own seed, so a row's sample does not depend on what else is in the batch (up to
the last bits of batched matrix products) and the global random state the learner checkpoints is
never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spadework.policy.base import Sampling


def pick(logits: Any, sampling: Sampling, generator: Any) -> int:
    """The next token from one row of logits: greedy at temperature 0, else nucleus sampling.

    >>> import torch
    >>> pick(torch.tensor([0.1, 3.0, 0.2]), Sampling(temperature=0.0), None)
    1
    >>> pick(torch.tensor([0.0, 9.0, 0.0]), Sampling(temperature=1.0, top_p=0.5), torch.Generator())
    1
    """
    import torch

    if sampling.temperature <= 0:
        return int(torch.argmax(logits))
    probs = torch.softmax(logits.float() / sampling.temperature, dim=-1)
    ordered, order = torch.sort(probs, descending=True)
    keep = torch.cumsum(ordered, dim=-1) - ordered < sampling.top_p  # the smallest set reaching top_p
    kept = torch.where(keep, ordered, torch.zeros_like(ordered))
    choice = torch.multinomial(kept / kept.sum(), 1, generator=generator)
    return int(order[choice])


def cache_argument(model: Any) -> str:
    """The keyword the model's forward takes its KV cache by: ``cache`` in recent transformers,
    ``past_key_values`` before (a PEFT model is asked about the model it wraps)."""
    import inspect

    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return "cache" if "cache" in inspect.signature(base.forward).parameters else "past_key_values"


def decode_padded(model: Any, prompts: Sequence[Sequence[int]], samplings: Sequence[Sampling],
                  eos_id: int) -> list[list[int]]:
    """Each prompt's new tokens (ending with ``eos_id`` where the model ended), decoded together.

    Args:
        model: a causal LM (``past_key_values`` cache), in eval mode.
        prompts: token ids, one list per row.
        samplings: each row's sampling (``max_tokens``, ``temperature``, ``top_p``, ``seed``).
        eos_id: ends a row, and pads.
    """
    import torch

    device = next(model.parameters()).device
    rows, width = len(prompts), max(len(p) for p in prompts)
    ids = torch.full((rows, width), eos_id, dtype=torch.long, device=device)
    mask = torch.zeros((rows, width), dtype=torch.long, device=device)
    for row, prompt in enumerate(prompts):
        ids[row, width - len(prompt):] = torch.tensor(list(prompt), dtype=torch.long)
        mask[row, width - len(prompt):] = 1
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    generators = [torch.Generator(device=device).manual_seed(s.seed if s.seed is not None else 0)
                  for s in samplings]
    new: list[list[int]] = [[] for _ in prompts]
    done = [s.max_tokens <= 0 for s in samplings]
    name = cache_argument(model)
    past = None
    while not all(done):
        out = model(input_ids=ids, attention_mask=mask, position_ids=positions, use_cache=True,
                    **{name: past})
        past, logits = getattr(out, name, None) or out.past_key_values, out.logits[:, -1, :]
        tokens = [pick(logits[row], samplings[row], generators[row]) for row in range(rows)]
        for row, token in enumerate(tokens):
            if not done[row]:
                new[row].append(token)
                done[row] = token == eos_id or len(new[row]) >= samplings[row].max_tokens
        ids = torch.tensor(tokens, dtype=torch.long, device=device)[:, None]
        mask = torch.cat([mask, torch.ones((rows, 1), dtype=torch.long, device=device)], dim=1)
        positions = positions[:, -1:] + 1
    return new
