"""Learner overhead: tokens/s of ``Learner.update`` against a bare forward+backward of the same batch.

Both run on the same LoRA-wrapped model and the same padded micro-batches; the bare pass is
a forward, a masked next-token loss and a backward, nothing else. The update adds the
policy-gradient loss, per-role statistics, gradient clipping and the AdamW step. Each is
timed ``--repeats`` times after one warm-up; medians are reported. Target: ratio >= 0.85
(overhead <= 15%). Also printed, not part of the ratio: the update with the KL term on
(one more forward of the base model), and the learning experiment's update (two epochs, the KL
term) side by side with the same update paying what it paid before it kept its first pass's
log-probabilities (a no-grad pass for the old policy's, the base model's forward in every epoch),
and the update computing the logits of every position, as it did before it kept only the trained
ones (``--trained``: the share of each sample's tokens trained; a multi-turn episode trains less
than half).

    python benchmarks/learner_bench.py [--model qwen2.5-coder-0.5b | tiny] [--samples 4] [--tokens 256] \
        [--trained 0.5]

The last line is one JSON object: learner_tokens_per_s, bare_tokens_per_s, ratio,
two_epochs_tokens_per_s, two_epochs_recomputing_tokens_per_s, all_logits_tokens_per_s.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import torch

from spadework.errors import PolicyError
from spadework.learn.learner import Learner, batch_tensors, micro_batches
from spadework.learn.loss import token_logprobs
from spadework.learn.model import load_base, with_lora
from spadework.learn.samples import TrainRole, TrainSample
from spadework.learn.settings import LearnerSettings

TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")


def make_batch(count: int, length: int, vocab: int, trained: float = 0.5, seed: int = 0) -> list[TrainSample]:
    """``count`` samples of ``length`` tokens: a prompt (mask 0), then a reply (mask 1) of
    ``trained`` of the tokens."""
    rng = random.Random(seed)
    samples = []
    reply = max(1, round(length * trained))
    for k in range(count):
        ids = tuple(rng.randrange(vocab) for _ in range(length))
        mask = (0,) * (length - reply) + (1,) * reply
        role = TrainRole.AGENT if k % 2 else TrainRole.DESIGNER
        samples.append(TrainSample(role, ids, mask, 1.0 if k % 3 else -0.5, f"bench-{k}"))
    return samples


def bare_pass(learner: Learner, samples: list[TrainSample]) -> None:
    """Forward, masked mean next-token log-likelihood, backward: the floor an update cannot beat."""
    learner.model.zero_grad(set_to_none=True)
    for group in micro_batches(samples, learner.settings.micro_batch_tokens):
        ids, attention, mask, _ = batch_tensors([samples[i] for i in group], learner.pad_id, learner.device)
        logp = token_logprobs(learner.model(input_ids=ids, attention_mask=attention).logits, ids)
        (-(logp * mask).sum() / mask.sum()).backward()


class RecomputingLearner(Learner):
    """For comparison only: the update's cost before it kept its first pass's log-probabilities.
    Its steps are the same; it adds the forwards the update used to run: a no-grad pass of the
    policy before the first epoch (the old log-probabilities) and the base model's in later ones."""

    def _accumulate(self, samples, mine, fixed, denominator, world):
        later = bool(fixed)
        if (not later and self.settings.epochs > 1) or (later and self.settings.kl_coef > 0):
            with torch.no_grad():
                for group, _ in mine:
                    batch = [samples[i] for i in group]
                    ids, attention, mask, _ = batch_tensors(batch, self.pad_id, self.device)
                    self._logp(ids, attention, mask, base=later)
        return super()._accumulate(samples, mine, fixed, denominator, world)


class AllLogitsLearner(Learner):
    """For comparison only: the update computing the logits of every position (the learner keeps
    the trained positions' alone)."""

    def _logp(self, ids, attention, mask, *, base=False):
        return super()._logp(ids, attention, torch.ones_like(mask), base=base)


def timed(function, repeats: int) -> float:
    function()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b", help="a preset, GGUF, HF folder or 'tiny'")
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=256, help="tokens per sample")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trained", type=float, default=0.5, help="share of each sample's tokens trained")
    args = parser.parse_args()
    torch.manual_seed(0)
    try:
        base = load_base(args.model, args.model, dtype="float32")
    except PolicyError as exc:
        print(f"{args.model} is not available ({exc}); using the tiny model")
        args.model, base = "tiny", load_base("tiny", "tiny")
    model = with_lora(base.model, rank=8, alpha=16, dropout=0.0, targets=TARGETS)
    vocab = int(model.config.vocab_size)
    batch = make_batch(args.samples, args.tokens, min(vocab, 32000), args.trained)
    tokens = args.samples * args.tokens
    settings = LearnerSettings(lr=1e-6, micro_batch_tokens=2 * args.tokens)
    learner = Learner(model, base.tokenizer, settings)
    bare_s = timed(lambda: bare_pass(learner, batch), args.repeats)
    update_s = timed(lambda: learner.update(batch), args.repeats)
    learner.settings = LearnerSettings(lr=1e-6, micro_batch_tokens=2 * args.tokens, kl_coef=0.01)
    kl_s = timed(lambda: learner.update(batch), args.repeats)
    two = LearnerSettings(lr=1e-6, micro_batch_tokens=2 * args.tokens, kl_coef=0.01, epochs=2)
    learner.settings = two
    two_s = timed(lambda: learner.update(batch), args.repeats)
    recomputing = RecomputingLearner(model, base.tokenizer, two)
    recomputing_s = timed(lambda: recomputing.update(batch), args.repeats)
    all_logits = AllLogitsLearner(model, base.tokenizer, two)
    all_logits_s = timed(lambda: all_logits.update(batch), args.repeats)
    threads = torch.get_num_threads()
    print(f"model {args.model}, {args.samples} samples x {args.tokens} tokens ({args.trained:.0%} trained), "
          f"{threads} threads")
    print(f"bare forward+backward: {bare_s:.2f} s ({tokens / bare_s:.1f} tokens/s)")
    print(f"learner update:        {update_s:.2f} s ({tokens / update_s:.1f} tokens/s)")
    print(f"learner update + KL:   {kl_s:.2f} s ({tokens / kl_s:.1f} tokens/s; not in the ratio)")
    print(f"2 epochs + KL:          {two_s:.2f} s ({tokens / two_s:.1f} tokens/s)")
    print(f"  recomputing (before): {recomputing_s:.2f} s ({tokens / recomputing_s:.1f} tokens/s; "
          f"{recomputing_s / two_s:.2f}x the time)")
    print(f"  every position's logits: {all_logits_s:.2f} s ({tokens / all_logits_s:.1f} tokens/s; "
          f"{all_logits_s / two_s:.2f}x the time)")
    print(json.dumps({"learner_tokens_per_s": round(tokens / update_s, 2),
                      "bare_tokens_per_s": round(tokens / bare_s, 2), "ratio": round(bare_s / update_s, 3),
                      "two_epochs_tokens_per_s": round(tokens / two_s, 2),
                      "two_epochs_recomputing_tokens_per_s": round(tokens / recomputing_s, 2),
                      "all_logits_tokens_per_s": round(tokens / all_logits_s, 2)}))


if __name__ == "__main__":
    main()
