"""HFPolicy: generation with a transformers model in this process, e.g. the learner's own.

When it wraps the learner's PEFT model it samples from exactly the weights being trained
(on-policy by construction, no sync); it is slow on a CPU. Conversations are rendered with
ChatML (``rollout.tokens``), the template of the Qwen2.5 models and of the tiny test model.
Sampling is seeded per completion without touching the global random state the learner
checkpoints.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from spadework.policy.base import Completion, Conversation, Sampling
from spadework.rollout.tokens import CHATML, ChatTemplate, render_text


def prompt_text(conversation: Conversation, template: ChatTemplate = CHATML) -> str:
    """The conversation rendered, followed by the header of the assistant's reply.

    >>> from spadework.policy.base import Message, Role
    >>> prompt_text([Message(Role.USER, "hi")])
    '<|im_start|>user\\nhi<|im_end|>\\n<|im_start|>assistant\\n'
    """
    return render_text(conversation, template) + template.header.format(role="assistant")


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """``text`` up to the first stop string, and whether one was found.

    >>> cut_at_stop("ab<|im_end|>cd", ["<|im_end|>"])
    ('ab', True)
    """
    positions = [p for p in (text.find(s) for s in stops if s) if p >= 0]
    return (text[: min(positions)], True) if positions else (text, False)


class HFPolicy:
    """A transformers causal LM (optionally with a PEFT adapter) behind the policy protocol.

    Args:
        model: the model; a PEFT model generates with its adapter.
        tokenizer: has ``encode``, ``decode`` and ``eos_token_id`` (``learn.model`` adapters).
        name: for logs.
    """

    def __init__(self, model: Any, tokenizer: Any, name: str = "hf"):
        self.model = model
        self.tokenizer = tokenizer
        self.name = name

    def generate(self, conversations: Sequence[Conversation], sampling: Sampling) -> list[Completion]:
        return [self.generate_one(c, sampling.for_item(i)) for i, c in enumerate(conversations)]

    def generate_one(self, conversation: Conversation, sampling: Sampling) -> Completion:
        import torch

        start = time.perf_counter()
        prompt = self.tokenizer.encode(prompt_text(conversation))
        ids = torch.tensor([prompt], device=next(self.model.parameters()).device)
        was_training = self.model.training
        self.model.eval()
        with torch.random.fork_rng(devices=[]), torch.no_grad():
            torch.manual_seed(sampling.seed if sampling.seed is not None else 0)
            out = self.model.generate(
                input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=sampling.max_tokens,
                do_sample=sampling.temperature > 0, temperature=sampling.temperature or None,
                top_p=sampling.top_p if sampling.temperature > 0 else None,
                eos_token_id=self.tokenizer.eos_token_id, pad_token_id=self.tokenizer.eos_token_id)
        self.model.train(was_training)
        new = out[0, len(prompt):].tolist()
        ended = bool(new) and new[-1] == self.tokenizer.eos_token_id
        text, stopped = cut_at_stop(self.tokenizer.decode(new[:-1] if ended else new), sampling.stop)
        finish = "stop" if ended or stopped else "length"
        return Completion(text, len(prompt), len(new), time.perf_counter() - start, finish)

    def close(self) -> None:
        pass
