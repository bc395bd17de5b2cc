"""The policy-gradient loss, token by token: pure functions of tensors.

The update minimises the PPO-clipped surrogate at token level with GRPO-style advantages
(one advantage per sequence, shared by its trained tokens):

    loss_t = -min(r_t * A, clip(r_t, 1 - clip_low, 1 + clip_high) * A),   r_t = exp(logp_t - old_logp_t)

With one pass over fresh samples ``old_logp`` is ``logp`` detached, so ``r_t = 1`` and the
gradient is the plain policy gradient; behaviour log-probs from the engine, or a second
epoch, make the ratio and the clip matter. An optional KL penalty to the base model uses
the non-negative k3 estimator ``exp(ref - logp) - (ref - logp) - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from spadework.learn.settings import Aggregation

KL_TAIL = 1.0  # a token's k3 above this: the base and the policy disagree by a log-ratio beyond ~1.2-1.8


@dataclass(frozen=True)
class LossParts:
    """The loss of one micro-batch and the sums its statistics are made of."""

    loss: torch.Tensor
    sequence_losses: torch.Tensor
    clipped_tokens: float
    kl_sum: float
    tokens: float
    kl_tail_tokens: float  # trained tokens whose k3 exceeds KL_TAIL
    kl_tail_sum: float  # their part of ``kl_sum``


def token_logprobs(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Log-probability of each next token: ``[B, T, V]`` logits and ``[B, T]`` ids give ``[B, T-1]``.

    >>> logits = torch.tensor([[[0.0, 0.0], [0.0, 10.0]]])
    >>> token_logprobs(logits, torch.tensor([[0, 1]])).exp().round(decimals=2)
    tensor([[0.5000]])
    """
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    return logp.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)


def trained_positions(mask: torch.Tensor) -> torch.Tensor:
    """The positions ``[P]`` whose next token some row of a ``[B, T-1]`` loss mask trains (every
    position when none does): the only ones whose logits an update needs.

    >>> trained_positions(torch.tensor([[0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]]))
    tensor([1, 3])
    >>> trained_positions(torch.zeros(1, 3))
    tensor([0, 1, 2])
    """
    positions = (mask > 0).any(dim=0).nonzero().squeeze(-1)
    return positions if positions.numel() else torch.arange(mask.shape[1], device=mask.device)


def kept_token_logprobs(logits: torch.Tensor, ids: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """``token_logprobs`` from the logits of ``positions`` alone (``[B, P, V]``, as a model given
    ``logits_to_keep=positions`` returns them): ``[B, T-1]``, 0 at every other position. A
    multi-turn sample trains a small share of its tokens, and the vocabulary is large: the rest of
    the logits would cost memory and time for nothing.

    >>> logits = torch.tensor([[[0.0, 0.0], [0.0, 10.0], [5.0, 5.0]]])
    >>> ids = torch.tensor([[0, 1, 1]])
    >>> full = token_logprobs(logits, ids)
    >>> kept = kept_token_logprobs(logits[:, [1]], ids, torch.tensor([1]))
    >>> kept[0, 1] == full[0, 1], kept[0, 0].item()
    (tensor(True), 0.0)
    """
    logp = torch.log_softmax(logits.float(), dim=-1)
    picked = logp.gather(-1, ids[:, positions + 1].unsqueeze(-1)).squeeze(-1)
    return picked.new_zeros(ids.shape[0], ids.shape[1] - 1).index_copy(1, positions, picked)


def clipped_surrogate(
    logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor,
    clip_low: float = 0.2, clip_high: float = 0.2,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-token PPO loss and whether the clip was active, for ``[B, T]`` log-probs and ``[B]`` advantages.

    >>> logp = torch.log(torch.tensor([[0.6, 0.3]])); old = torch.log(torch.tensor([[0.4, 0.3]]))
    >>> loss, clipped = clipped_surrogate(logp, old, torch.tensor([1.0]))
    >>> loss.round(decimals=3), clipped
    (tensor([[-1.2000, -1.0000]]), tensor([[ True, False]]))
    """
    ratio = torch.exp(logp - old_logp)
    adv = advantages.unsqueeze(-1)
    unclipped = ratio * adv
    clipped = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high) * adv
    return -torch.minimum(unclipped, clipped), clipped < unclipped


def truncated_is_weights(old_logp: torch.Tensor, behaviour_logp: torch.Tensor, present: torch.Tensor,
                         cap: float) -> torch.Tensor:
    """Per-token truncated importance weights ``min(exp(old - behaviour), cap)`` for the ``[B, T]``
    log-probs of sequences written by an earlier policy (``present`` [B] says which rows carry
    behaviour log-probs; the others weigh 1). A designer's window is trained when it closes, after
    the agent's updates have moved the shared adapter: the weight corrects for that, and the cap
    keeps one token the policy now likes far more from dominating the update.

    >>> old = torch.log(torch.tensor([[0.5, 0.4], [0.2, 0.2]]))
    >>> then = torch.log(torch.tensor([[0.5, 0.1], [0.4, 0.1]]))
    >>> truncated_is_weights(old, then, torch.tensor([True, False]), cap=2.0)
    tensor([[1., 2.],
            [1., 1.]])
    >>> truncated_is_weights(old, then, torch.tensor([True, True]), cap=5.0)[:, 1]
    tensor([4., 2.])
    """
    ratio = torch.exp(old_logp - behaviour_logp).clamp(max=cap)
    return torch.where(present.unsqueeze(-1), ratio, torch.ones_like(ratio))


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """Per-token k3 estimate of KL(policy || reference); zero where they agree, never negative.

    >>> kl_k3(torch.tensor([-1.0, -2.0]), torch.tensor([-1.0, -1.0])).round(decimals=4)
    tensor([0.0000, 0.7183])
    """
    delta = ref_logp - logp
    return torch.exp(delta) - delta - 1.0


def aggregate(
    values: torch.Tensor, mask: torch.Tensor, aggregation: Aggregation, denominator: float
) -> torch.Tensor:
    """Each sequence's share ``[B]`` of the batch's aggregate of masked ``[B, T]`` values.

    ``denominator`` is the batch's trained tokens (TOKEN_MEAN) or its sequences
    (SEQUENCE_MEAN), so the shares of all micro-batches of one batch add up to its aggregate.

    >>> v = torch.tensor([[1.0, 3.0], [2.0, 0.0]]); m = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    >>> aggregate(v, m, Aggregation.TOKEN_MEAN, 3), aggregate(v, m, Aggregation.SEQUENCE_MEAN, 2)
    (tensor([1.3333, 0.6667]), tensor([1., 1.]))
    """
    per_sequence = (values * mask).sum(-1)
    if aggregation is Aggregation.SEQUENCE_MEAN:
        per_sequence = per_sequence / mask.sum(-1).clamp(min=1.0)
    return per_sequence / denominator


def policy_loss(
    logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, mask: torch.Tensor, *,
    aggregation: Aggregation, denominator: float, clip_low: float = 0.2, clip_high: float = 0.2,
    ref_logp: torch.Tensor | None = None, kl_coef: float = 0.0, weights: torch.Tensor | None = None,
) -> LossParts:
    """The micro-batch's share of the batch loss: clipped surrogate (times the per-token ``weights``
    when given: ``truncated_is_weights``) plus ``kl_coef`` times KL.

    >>> logp = torch.log(torch.tensor([[0.5, 0.5]])); mask = torch.ones(1, 2)
    >>> parts = policy_loss(logp, logp, torch.tensor([2.0]), mask, aggregation=Aggregation.TOKEN_MEAN,
    ...                     denominator=2)
    >>> float(parts.loss), parts.clipped_tokens, parts.tokens
    (-2.0, 0.0, 2.0)
    """
    surrogate, clipped = clipped_surrogate(logp, old_logp, advantages, clip_low, clip_high)
    if weights is not None:  # truncated importance sampling of samples from an earlier policy
        surrogate = surrogate * weights
    shares = aggregate(surrogate, mask, aggregation, denominator)
    loss = shares.sum()
    kl_sum = tail_tokens = tail_sum = 0.0
    if ref_logp is not None:
        kl = kl_k3(logp, ref_logp)
        kl_sum, tail_tokens, tail_sum = kl_tail(kl.detach(), mask)
        if kl_coef:
            loss = loss + kl_coef * aggregate(kl, mask, aggregation, denominator).sum()
    return LossParts(loss, shares.detach(), float((clipped.float() * mask).sum()), kl_sum, float(mask.sum()),
                     tail_tokens, tail_sum)


def kl_tail(kl: torch.Tensor, mask: torch.Tensor) -> tuple[float, float, float]:
    """The masked k3 values' sum, and how many of them and how much of the sum lie above ``KL_TAIL``.

    A mean KL can be made by a handful of tokens (k3 grows exponentially with the log-ratio):
    the tail says whether it is.

    >>> kl_tail(torch.tensor([[0.5, 0.25, 9.0, 5.0]]), torch.tensor([[1.0, 1.0, 1.0, 0.0]]))
    (9.75, 1.0, 9.0)
    """
    masked = kl * mask
    tail = masked > KL_TAIL
    return float(masked.sum()), float(tail.sum()), float(masked[tail].sum())
