"""The learner: one policy-gradient update of the LoRA adapter per iteration, on both roles' samples.

An update packs the samples into micro-batches of at most ``micro_batch_tokens`` (padded)
tokens, accumulates the gradient of the whole batch's loss over them, clips the gradient
norm and takes one AdamW step (per epoch). Under ``accelerate`` each process takes every
n-th micro-batch and the gradient is summed across processes, so the loss and the step are
those of one process on the whole batch.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from spadework.learn.checkpoint import ADAPTER_DIR, ADAPTER_WEIGHTS
from spadework.learn.loss import kept_token_logprobs, policy_loss, trained_positions, truncated_is_weights
from spadework.learn.samples import TrainRole, TrainSample
from spadework.learn.settings import Aggregation, LearnerSettings
from spadework.policy.hf import compute_device

STATE_FILE = "learner.json"
OPTIMIZER_FILE = "optimizer.pt"
RNG_FILE = "rng.pt"
SHARDED_DIR = "sharded"
"""Under FSDP or DeepSpeed: every process's shard of the model and optimizer (accelerate's format)."""
SHARDED = frozenset({"FSDP", "DEEPSPEED"})
SUMS = ("loss", "clipped", "kl", "tokens", "designer_loss", "agent_loss", "kl_tail_tokens", "kl_tail",
        "tis_tokens", "tis_weight", "tis_truncated", "logp", "mismatched")
"""What an update adds up over micro-batches (and processes)."""


def micro_batches(samples: Sequence[TrainSample], max_tokens: int) -> list[list[int]]:
    """Indices of ``samples`` grouped so each group's padded size (count × longest) stays within
    ``max_tokens``; longest first, so padding is small. A longer sample goes alone.

    >>> from spadework.learn.samples import TrainRole, TrainSample
    >>> s = [TrainSample(TrainRole.AGENT, (0,) * n, (1,) * n, 1.0, "") for n in (3, 5, 2, 9)]
    >>> micro_batches(s, 10)
    [[3], [1, 0], [2]]
    """
    order = sorted(range(len(samples)), key=lambda i: -len(samples[i].ids))
    groups: list[list[int]] = []
    for index in order:
        if groups and (len(groups[-1]) + 1) * len(samples[groups[-1][0]].ids) <= max_tokens:
            groups[-1].append(index)
        else:
            groups.append([index])
    return groups


def behaviour_tensors(samples: Sequence[TrainSample], device: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """The samples' behaviour log-probs, right-padded to ``[B, T-1]``, and which rows carry them."""
    width = max(len(s.ids) for s in samples) - 1
    logp = torch.zeros((len(samples), max(width, 0)), dtype=torch.float32)
    for row, sample in enumerate(samples):
        logp[row, :len(sample.behaviour)] = torch.tensor(sample.behaviour, dtype=torch.float32)
    present = torch.tensor([bool(s.behaviour) for s in samples])
    return logp.to(device), present.to(device)


def batch_tensors(samples: Sequence[TrainSample], pad_id: int, device: Any) -> tuple[torch.Tensor, ...]:
    """Right-padded ids, attention mask, loss mask (shifted to the predicted tokens) and advantages."""
    width = max(len(s.ids) for s in samples)
    ids = torch.full((len(samples), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(samples), width), dtype=torch.long)
    loss_mask = torch.zeros((len(samples), width), dtype=torch.float32)
    for row, sample in enumerate(samples):
        n = len(sample.ids)
        ids[row, :n] = torch.tensor(sample.ids)
        attention[row, :n] = 1
        loss_mask[row, :n] = torch.tensor(sample.mask, dtype=torch.float32)
    advantages = torch.tensor([s.advantage for s in samples], dtype=torch.float32)
    return ids.to(device), attention.to(device), loss_mask[:, 1:].to(device), advantages.to(device)


@dataclass(frozen=True)
class Fixed:
    """One micro-batch's log-probabilities that hold through an update's passes: the policy's
    before the first step (``old``, the ratio's anchor) and the base model's (``base``, for the
    KL term; None without one)."""

    old: torch.Tensor
    base: torch.Tensor | None


class Learner:
    """Owns the LoRA-wrapped model and its optimizer; ``update`` trains, ``save``/``load`` checkpoint.

    Args:
        model: a PEFT model (``learn.model.with_lora``).
        tokenizer: the model's tokenizer (for its end-of-message id, used as padding).
        settings: the update's settings.
        accelerator: an ``accelerate.Accelerator`` for several processes, or None for one.
    """

    def __init__(self, model: Any, tokenizer: Any, settings: LearnerSettings, accelerator: Any = None):
        torch.manual_seed(settings.seed)
        self.settings = settings
        self.tokenizer = tokenizer
        self.pad_id = int(getattr(tokenizer, "eos_token_id", 0) or 0)
        self.updates = 0
        if accelerator is None:  # one process: the GPU when there is one (accelerate places it otherwise)
            model = model.to(compute_device())
        params = [p for p in model.parameters() if p.requires_grad]
        optimizer = torch.optim.AdamW(params, lr=settings.lr, weight_decay=settings.weight_decay)
        self.accelerator = accelerator
        if accelerator is not None:
            model, optimizer = accelerator.prepare(model, optimizer)
        self.model, self.optimizer = model, optimizer
        self.device = next(model.parameters()).device

    @property
    def peft_model(self) -> Any:
        """The PEFT model itself (unwrapped from any distributed wrapper)."""
        return self.accelerator.unwrap_model(self.model) if self.accelerator else self.model

    def _share(self, groups: list[list[int]]) -> tuple[list[tuple[list[int], float]], int]:
        """This process's micro-batches, each with its weight, and the number of processes.

        Every process runs the same number of forward/backward passes (DDP and FSDP need
        that): a process with fewer micro-batches repeats its first with weight 0.
        """
        if self.accelerator is None:
            return [(g, 1.0) for g in groups], 1
        n, rank = self.accelerator.num_processes, self.accelerator.process_index
        own = [(g, 1.0) for g in groups[rank::n]]
        rounds = -(-len(groups) // n)
        filler = own[0][0] if own else groups[0]
        return own + [(filler, 0.0)] * (rounds - len(own)), n

    def _logp(self, ids: torch.Tensor, attention: torch.Tensor, mask: torch.Tensor, *,
              base: bool = False) -> torch.Tensor:
        """Next-token log-probabilities ``[B, T-1]`` at the positions some row of ``mask`` trains (0
        where none does: every use multiplies by the mask), by the adapted model or the ``base``."""
        positions = trained_positions(mask)
        with (torch.no_grad() if base else nullcontext()), \
                (self.peft_model.disable_adapter() if base else nullcontext()):
            logits = self.model(input_ids=ids, attention_mask=attention, logits_to_keep=positions).logits
        return kept_token_logprobs(logits, ids, positions)

    def logprobs(self, samples: Sequence[TrainSample]) -> list[tuple[float, ...]]:
        """Each sample's next-token log-probabilities (``len(ids) - 1``; 0 where no sample of its
        micro-batch trains a token) under the policy as it is now: the behaviour log-probs of
        samples trained later (``TrainSample.behaviour``)."""
        out: list[tuple[float, ...]] = [() for _ in samples]
        self.model.eval()
        with torch.no_grad():
            for group in micro_batches(samples, self.settings.micro_batch_tokens):
                batch = [samples[i] for i in group]
                ids, attention, mask, _ = batch_tensors(batch, self.pad_id, self.device)
                logp = self._logp(ids, attention, mask).float().cpu()
                for row, index in enumerate(group):
                    out[index] = tuple(logp[row, :len(samples[index].ids) - 1].tolist())
        return out

    def update(self, samples: Sequence[TrainSample], *, epochs: int | None = None,
               min_tokens: int | None = None, max_mismatch_share: float | None = None) -> dict[str, float]:
        """One update on ``samples``; returns its metrics (``learn/...``). No samples, or fewer
        trained tokens than ``min_tokens`` (``learn/skipped``): no step. A first pass that finds more
        than ``max_mismatch_share`` of the trained tokens near-impossible for the learner
        (``mismatch_logp``): no step either (``learn/refused``; the engine did not sample this
        policy). The keyword arguments replace the settings' for this update (the warm start's
        small steps on demonstrations, which no engine sampled)."""
        start = time.perf_counter()
        s = self.settings
        epochs = s.epochs if epochs is None else epochs
        limit = s.max_mismatch_share if max_mismatch_share is None else max_mismatch_share
        tokens = float(sum(x.trained_tokens for x in samples))
        if not samples or tokens < (s.min_tokens if min_tokens is None else min_tokens):  # e.g. no variance
            return self._metrics(samples, dict.fromkeys(SUMS, 0.0), tokens, 0.0, 0.0, skipped=bool(samples))
        mine, world = self._share(micro_batches(samples, s.micro_batch_tokens))
        denominator = tokens if s.aggregation is Aggregation.TOKEN_MEAN else float(len(samples))
        self.model.train()
        fixed: list[Fixed] = []  # the first pass's log-probabilities, the later passes' old and reference
        for _ in range(epochs):
            self.optimizer.zero_grad(set_to_none=True)
            sums = self._accumulate(samples, mine, fixed, denominator, world)
            if sums["tokens"] and sums["mismatched"] / sums["tokens"] > limit:
                self.optimizer.zero_grad(set_to_none=True)
                return self._metrics(samples, sums, tokens, 0.0, time.perf_counter() - start, skipped=True,
                                     refused=True)
            trainable = [p for p in self.model.parameters() if p.requires_grad]
            clip = self.accelerator.clip_grad_norm_ if self.accelerator else torch.nn.utils.clip_grad_norm_
            norm = clip(trainable, s.max_grad_norm)  # DeepSpeed clips itself and returns None
            grad_norm = float(norm) if norm is not None else float("nan")
            self.optimizer.step()
        self.updates += 1
        return self._metrics(samples, sums, tokens, grad_norm, time.perf_counter() - start)

    def _accumulate(self, samples: Sequence[TrainSample], mine: list[tuple[list[int], float]],
                    fixed: list[Fixed], denominator: float, world: int) -> dict[str, float]:
        """Backward over this process's micro-batches; returns summed statistics (all processes).

        The first pass keeps each micro-batch's log-probabilities (``fixed``, filled here): they
        are the old policy's for every later pass, whose ratio they anchor, and the base model's
        do not change, so a later pass runs one forward and one backward, nothing more.
        """
        s = self.settings
        sums = torch.zeros(len(SUMS), dtype=torch.float64)
        for k, (group, weight) in enumerate(mine):
            batch = [samples[i] for i in group]
            ids, attention, mask, advantages = batch_tensors(batch, self.pad_id, self.device)
            logp = self._logp(ids, attention, mask)
            if k == len(fixed):
                base = self._logp(ids, attention, mask, base=True) if s.kl_coef > 0 else None
                fixed.append(Fixed(logp.detach(), base))
            weights, tis = self._tis(batch, fixed[k].old, mask)
            parts = policy_loss(logp, fixed[k].old, advantages, mask,
                                aggregation=s.aggregation, denominator=denominator, clip_low=s.clip_low,
                                clip_high=s.clip_high, ref_logp=fixed[k].base, kl_coef=s.kl_coef,
                                weights=weights)
            # the processes' gradients are averaged, and the batch loss is their sum
            loss = parts.loss * (world * weight)
            (self.accelerator.backward(loss) if self.accelerator else loss.backward())
            per_role = _role_losses(batch, parts.sequence_losses)
            figures = [float(parts.loss.detach()), parts.clipped_tokens, parts.kl_sum, parts.tokens,
                       per_role[TrainRole.DESIGNER], per_role[TrainRole.AGENT], parts.kl_tail_tokens,
                       parts.kl_tail_sum, *tis, float((fixed[k].old * mask).sum()),
                       float(((fixed[k].old < -s.mismatch_logp) * mask).sum())]
            sums += weight * torch.tensor(figures, dtype=torch.float64)
        if self.accelerator is not None:
            sums = self.accelerator.reduce(sums.to(self.device), reduction="sum").cpu()
        return dict(zip(SUMS, sums.tolist(), strict=True))

    def _tis(self, batch: Sequence[TrainSample], old: torch.Tensor,
             mask: torch.Tensor) -> tuple[torch.Tensor | None, tuple[float, float, float]]:
        """Truncated importance weights of a micro-batch's samples from an earlier policy (None when
        it has none, or ``tis_cap`` is 0), and their sums: tokens, weight, truncated tokens."""
        cap = self.settings.tis_cap
        if not cap or not any(s.behaviour for s in batch):
            return None, (0.0, 0.0, 0.0)
        behaviour, present = behaviour_tensors(batch, self.device)
        weights = truncated_is_weights(old, behaviour, present, cap)
        counted = mask * present.unsqueeze(-1).float()
        truncated = (torch.exp(old - behaviour) > cap).float() * counted
        return weights, (float(counted.sum()), float((weights * counted).sum()), float(truncated.sum()))

    def _metrics(self, samples: Sequence[TrainSample], sums: dict[str, float], tokens: float,
                 grad_norm: float, seconds: float, *, skipped: bool = False,
                 refused: bool = False) -> dict[str, float]:
        metrics = {
            "learn/loss": sums["loss"], "learn/grad_norm": grad_norm, "learn/update_s": seconds,
            "learn/samples": float(len(samples)), "learn/tokens": tokens, "learn/skipped": float(skipped),
            "learn/tokens_per_s": tokens / seconds if seconds else 0.0,
            "learn/clip_fraction": sums["clipped"] / sums["tokens"] if sums["tokens"] else 0.0,
            "learn/token_logp": sums["logp"] / sums["tokens"] if sums["tokens"] else 0.0,
            "learn/mismatch_share": sums["mismatched"] / sums["tokens"] if sums["tokens"] else 0.0,
            "learn/refused": float(refused),
            "learn/updates": float(self.updates),
            "learn/tis_weight_mean": sums["tis_weight"] / sums["tis_tokens"] if sums["tis_tokens"] else 0.0,
            "learn/tis_truncated_fraction": (sums["tis_truncated"] / sums["tis_tokens"]
                                             if sums["tis_tokens"] else 0.0),
        }
        if self.settings.kl_coef > 0:
            measured = sums["tokens"]  # the tokens the KL was measured on (none when no step)
            metrics["learn/kl"] = sums["kl"] / measured if measured else 0.0
            metrics["learn/kl_tail_fraction"] = sums["kl_tail_tokens"] / measured if measured else 0.0
            metrics["learn/kl_tail_share"] = sums["kl_tail"] / sums["kl"] if sums["kl"] else 0.0
        for role in TrainRole:
            own = [x for x in samples if x.role is role]
            metrics[f"learn/{role.value}_samples"] = float(len(own))
            metrics[f"learn/{role.value}_loss"] = sums[f"{role.value}_loss"]
            metrics[f"learn/{role.value}_adv_mean"] = sum(x.advantage for x in own) / len(own) if own else 0.0
            metrics[f"learn/{role.value}_adv_abs_mean"] = (sum(abs(x.advantage) for x in own) / len(own)
                                                           if own else 0.0)
        return metrics

    @property
    def sharded(self) -> bool:
        """Whether parameters or optimizer state are split across processes (FSDP, DeepSpeed)."""
        kind = getattr(self.accelerator, "distributed_type", None)
        return kind is not None and kind.value in SHARDED

    def save(self, folder: Path) -> None:
        """Adapter, optimizer, RNG states and update count into ``folder`` (which must exist).

        With several processes every process calls this (gathering shards is collective);
        the main process writes the adapter and the small files.
        """
        main = self.accelerator is None or self.accelerator.is_main_process
        weights = self.accelerator.get_state_dict(self.model) if self.accelerator else None
        if main:
            self.peft_model.save_pretrained(str(folder / ADAPTER_DIR), state_dict=weights)
        if self.sharded:
            self.accelerator.save_state(str(folder / SHARDED_DIR))
        elif main:
            torch.save(self.optimizer.state_dict(), folder / OPTIMIZER_FILE)
        if main:
            rng = {"torch": torch.get_rng_state(), "python": random.getstate()}
            if torch.cuda.is_available():
                rng["cuda"] = torch.cuda.get_rng_state_all()
            torch.save(rng, folder / RNG_FILE)
            (folder / STATE_FILE).write_text(json.dumps({"updates": self.updates}), encoding="utf-8")

    def load(self, folder: Path) -> None:
        """Restore what ``save`` wrote: the adapter weights, optimizer, RNG states and update count."""
        from peft import set_peft_model_state_dict
        from safetensors.torch import load_file

        if self.sharded:
            self.accelerator.load_state(str(folder / SHARDED_DIR))
        else:
            weights = load_file(str(folder / ADAPTER_DIR / ADAPTER_WEIGHTS))
            set_peft_model_state_dict(self.peft_model, weights)
            self.optimizer.load_state_dict(torch.load(folder / OPTIMIZER_FILE, weights_only=True))
        rng = torch.load(folder / RNG_FILE, weights_only=False)
        torch.set_rng_state(rng["torch"])
        if "cuda" in rng and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(rng["cuda"])
        random.setstate(rng["python"])
        self.updates = int(json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))["updates"])


def _role_losses(batch: Sequence[TrainSample], sequence_losses: torch.Tensor) -> dict[TrainRole, float]:
    """Each role's share of the micro-batch's loss."""
    shares = {role: 0.0 for role in TrainRole}
    for sample, value in zip(batch, sequence_losses.tolist(), strict=True):
        shares[sample.role] += value
    return shares
