"""The learner on a tiny random model built here: finite loss, every LoRA weight moves, the loss falls."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from spadework.learn.learner import Learner, batch_tensors, micro_batches  # noqa: E402
from spadework.learn.loss import policy_loss, token_logprobs  # noqa: E402
from spadework.learn.model import ByteTokenizer, tiny_model, with_lora  # noqa: E402
from spadework.learn.samples import TrainRole, TrainSample  # noqa: E402
from spadework.learn.settings import Aggregation, LearnerSettings  # noqa: E402
from spadework.policy.base import Message, Role  # noqa: E402
from spadework.rollout.tokens import render_tokens  # noqa: E402

TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")


def sample(role: TrainRole, prompt: str, reply: str, advantage: float) -> TrainSample:
    rendered = render_tokens([Message(Role.USER, prompt), Message(Role.ASSISTANT, reply)], ByteTokenizer())
    return TrainSample(role, tuple(rendered.ids), tuple(rendered.mask), advantage, prompt)


def batch() -> list[TrainSample]:
    return [sample(TrainRole.AGENT, "guess", "\\boxed{42}", 1.0),
            sample(TrainRole.AGENT, "guess", "\\boxed{7}", -1.0),
            sample(TrainRole.DESIGNER, "design", "class AEnv: pass", 0.5)]


def make_learner(**settings) -> Learner:
    model = with_lora(tiny_model(0), rank=4, alpha=8, dropout=0.0, targets=TARGETS)
    return Learner(model, ByteTokenizer(), LearnerSettings(**{"lr": 5e-3, "seed": 0, **settings}))


def mean_logp(learner: Learner, item: TrainSample) -> float:
    ids = torch.tensor([item.ids])
    with torch.no_grad():
        logp = token_logprobs(learner.model(input_ids=ids).logits, ids)[0]
    mask = torch.tensor(item.mask[1:], dtype=torch.float32)
    return float((logp * mask).sum() / mask.sum())


def lora_weights(learner: Learner) -> dict[str, torch.Tensor]:
    return {n: p.detach().clone() for n, p in learner.model.named_parameters() if "lora_" in n}


def unchanged(before: dict[str, torch.Tensor], after: dict[str, torch.Tensor], kind: str) -> list[str]:
    return [n for n in before if f"lora_{kind}" in n and torch.equal(before[n], after[n])]


def test_updates_are_finite_and_move_every_lora_weight():
    learner = make_learner()
    before = lora_weights(learner)
    metrics = learner.update(batch())
    assert torch.isfinite(torch.tensor(metrics["learn/loss"]))
    assert metrics["learn/grad_norm"] > 0
    assert metrics["learn/agent_samples"] == 2 and metrics["learn/designer_samples"] == 1
    assert not unchanged(before, lora_weights(learner), "B"), "every B must move in the first update"
    # B starts at zero (the adapter starts as the base model), so A's gradient is zero until B moves
    learner.update(batch())
    after = lora_weights(learner)
    assert not unchanged(before, after, "A") and not unchanged(before, after, "B")
    frozen = [n for n, p in learner.model.named_parameters() if "lora_" not in n and p.requires_grad]
    assert not frozen


def surrogate(learner: Learner, items: list[TrainSample], old: list | None) -> tuple[float, list]:
    """The policy-gradient loss of ``items`` against ``old`` log-probs (itself when None), unclipped."""
    total, logps = 0.0, []
    tokens = sum(x.trained_tokens for x in items)
    for k, item in enumerate(items):
        ids = torch.tensor([item.ids])
        with torch.no_grad():
            logp = token_logprobs(learner.model(input_ids=ids).logits, ids)
        mask = torch.tensor([item.mask[1:]], dtype=torch.float32)
        parts = policy_loss(logp, logp if old is None else old[k], torch.tensor([item.advantage]), mask,
                            aggregation=Aggregation.TOKEN_MEAN, denominator=tokens,
                            clip_low=1.0, clip_high=100.0)
        total += float(parts.loss)
        logps.append(logp)
    return total, logps


def test_the_batch_loss_falls_and_the_rewarded_reply_gains_probability():
    learner = make_learner()
    good, bad = batch()[0], batch()[1]
    good_before, bad_before = mean_logp(learner, good), mean_logp(learner, bad)
    start, old = surrogate(learner, batch(), None)
    for _ in range(6):
        learner.update(batch())
    end, _ = surrogate(learner, batch(), old)
    assert end < start
    assert mean_logp(learner, good) > good_before
    assert mean_logp(learner, bad) < bad_before


def test_per_role_losses_add_up_to_the_loss():
    metrics = make_learner().update(batch())
    roles = metrics["learn/designer_loss"] + metrics["learn/agent_loss"]
    assert roles == pytest.approx(metrics["learn/loss"])


def test_kl_to_the_base_is_zero_before_training_and_positive_after():
    learner = make_learner(kl_coef=0.1)
    first = learner.update(batch())
    assert first["learn/kl"] == pytest.approx(0.0, abs=1e-6)  # a fresh adapter is the base model
    for _ in range(3):
        last = learner.update(batch())
    assert last["learn/kl"] > 0
    assert first["learn/kl_tail_fraction"] == 0 and 0 <= last["learn/kl_tail_share"] <= 1


def test_the_kl_tail_says_when_one_token_makes_the_mean():
    logp = torch.full((1, 6), -1.0)
    ref = logp.clone()
    ref[0, 2] = 4.0 - 1.0  # the base is e^4 times surer of this one token than the policy

    def loss(ref_logp: torch.Tensor):
        return policy_loss(logp, logp, torch.tensor([1.0]), torch.ones(1, 6),
                           aggregation=Aggregation.TOKEN_MEAN, denominator=6, ref_logp=ref_logp)

    parts = loss(ref)
    assert parts.kl_tail_tokens == 1
    assert parts.kl_tail_sum == pytest.approx(parts.kl_sum) == pytest.approx(math.exp(4) - 5)
    spread = loss(logp + 0.5)  # the same small disagreement everywhere
    assert spread.kl_sum > 0 and spread.kl_tail_tokens == 0 and spread.kl_tail_sum == 0


def test_no_samples_no_step():
    learner = make_learner()
    before = lora_weights(learner)
    assert learner.update([])["learn/samples"] == 0
    assert all(torch.equal(before[n], p) for n, p in lora_weights(learner).items())


def test_a_batch_below_min_tokens_takes_no_step_and_says_so():
    tokens = sum(x.trained_tokens for x in batch())
    short = make_learner(min_tokens=tokens + 1)
    before = lora_weights(short)
    metrics = short.update(batch())
    assert metrics["learn/skipped"] == 1 and metrics["learn/tokens"] == tokens
    assert metrics["learn/updates"] == 0
    assert all(torch.equal(before[n], p) for n, p in lora_weights(short).items())
    enough = make_learner(min_tokens=tokens)
    assert enough.update(batch())["learn/skipped"] == 0 and enough.updates == 1


def test_a_batch_the_learner_finds_near_impossible_is_refused_unless_it_is_demonstrations():
    """The engine sampled tokens this policy would not (measured once: an adapter trained on special
    tokens the engine rendered otherwise, KL 6,634 and a broken adapter after the step). Planted
    here by a floor between the batch's own token log-probs: half its trained tokens fall below."""
    probe = make_learner()
    trained = sorted(lp for item, logps in zip(batch(), probe.logprobs(batch()), strict=True)
                     for lp, m in zip(logps, item.mask[1:], strict=True) if m)
    median, lowest = trained[len(trained) // 2], trained[0]
    engine = make_learner(mismatch_logp=-median)
    before = lora_weights(engine)
    metrics = engine.update(batch())
    assert metrics["learn/refused"] == 1 and metrics["learn/skipped"] == 1 and engine.updates == 0
    assert 0.4 < metrics["learn/mismatch_share"] <= 0.5
    assert all(torch.equal(before[n], p) for n, p in lora_weights(engine).items())
    assert make_learner(mismatch_logp=-lowest + 0.5).update(batch())["learn/refused"] == 0
    demonstrated = make_learner(mismatch_logp=-median).update(batch(), max_mismatch_share=1.0)
    assert demonstrated["learn/refused"] == 0 and demonstrated["learn/updates"] == 1


def test_save_and_load_restore_the_adapter_optimizer_and_rng(tmp_path):
    first = make_learner()
    first.update(batch())
    first.save(tmp_path)
    expected_next = first.update(batch())["learn/loss"]
    second = make_learner()
    second.load(tmp_path)
    assert second.updates == 1
    assert second.update(batch())["learn/loss"] == pytest.approx(expected_next, rel=1e-5)


def test_later_epochs_measure_the_ratio_against_the_first_and_clip_it():
    learner = make_learner()
    learner.settings = LearnerSettings(lr=5e-2, seed=0, epochs=4, clip_low=0.05, clip_high=0.05)
    metrics = learner.update(batch())
    assert metrics["learn/updates"] == 1.0  # one update, four optimizer steps on the same batch
    assert 0.0 < metrics["learn/clip_fraction"] <= 1.0
    single = make_learner().update(batch())
    assert single["learn/clip_fraction"] == 0.0  # one pass on fresh samples: the ratio is exactly 1


def forwards_per_update(learner: Learner) -> int:
    calls = []
    handle = learner.peft_model.base_model.model.register_forward_hook(lambda *_: calls.append(1))
    try:
        learner.update(batch())
    finally:
        handle.remove()
    return len(calls)


def test_a_later_epoch_runs_the_policy_once_and_reuses_the_old_and_base_log_probabilities():
    """Three epochs with the KL term: the first runs the policy and the base, each later one the
    policy only (recomputing the old policy's and the base's log-probabilities would be 7)."""
    learner = make_learner(epochs=3, kl_coef=0.1)
    micro = len(micro_batches(batch(), learner.settings.micro_batch_tokens))
    assert forwards_per_update(learner) == micro * (3 + 1)
    assert forwards_per_update(make_learner()) == micro  # one epoch, no KL: the policy's forward only


def test_epochs_against_first_pass_log_probabilities_match_recomputing_them():
    """The update's later passes, anchored on the first pass's log-probabilities, step exactly as
    passes that compute the old policy's and the base's log-probabilities afresh, as written out here."""
    settings = {"epochs": 3, "kl_coef": 0.1, "clip_low": 0.05, "clip_high": 0.05, "lr": 5e-2}
    learner = make_learner(**settings)
    learner.update(batch())
    reference = make_learner(**settings)
    s = reference.settings
    ids, attention, mask, advantages = batch_tensors(batch(), reference.pad_id, reference.device)
    tokens = float(sum(x.trained_tokens for x in batch()))
    with torch.no_grad():
        old = token_logprobs(reference.model(input_ids=ids, attention_mask=attention).logits, ids)
        with reference.peft_model.disable_adapter():
            base = token_logprobs(reference.model(input_ids=ids, attention_mask=attention).logits, ids)
    for _ in range(s.epochs):
        reference.optimizer.zero_grad(set_to_none=True)
        logp = token_logprobs(reference.model(input_ids=ids, attention_mask=attention).logits, ids)
        parts = policy_loss(logp, old, advantages, mask, aggregation=s.aggregation, denominator=tokens,
                            clip_low=s.clip_low, clip_high=s.clip_high, ref_logp=base, kl_coef=s.kl_coef)
        parts.loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in reference.model.parameters() if p.requires_grad],
                                       s.max_grad_norm)
        reference.optimizer.step()
    mine, theirs = lora_weights(learner), lora_weights(reference)
    # float noise (Adam divides tiny gradients by their own size) is ~2e-5; a ratio left at 1 or a
    # KL term lost is ~0.1
    assert all(torch.allclose(mine[n], theirs[n], atol=1e-4) for n in mine)
    fresh = lora_weights(make_learner())
    assert not all(torch.equal(mine[n], fresh[n]) for n in mine)  # it moved


def test_logits_are_computed_only_where_a_token_is_trained_and_give_the_full_log_probabilities():
    """The vocabulary projection runs on the trained positions alone (a multi-turn sample trains a
    small share of its tokens); there the log-probabilities are those of the full logits."""
    learner = make_learner()
    samples = batch()
    rows: list[int] = []
    hook = learner.peft_model.get_output_embeddings().register_forward_hook(
        lambda module, args, out: rows.append(args[0].shape[1]))
    kept = learner.logprobs(samples)
    hook.remove()
    assert sum(rows) < sum(len(s.ids) - 1 for s in samples)  # not every position
    for item, logp in zip(samples, kept, strict=True):
        ids = torch.tensor([item.ids])
        with torch.no_grad():
            full = token_logprobs(learner.model(input_ids=ids).logits, ids)[0]
        trained = torch.tensor(item.mask[1:], dtype=torch.bool)
        assert len(logp) == len(item.ids) - 1
        assert torch.allclose(torch.tensor(logp)[trained], full[trained], atol=1e-5)


def test_a_bf16_learner_keeps_base_weights_in_bf16_trains_the_adapter_in_fp32_and_restores(tmp_path):
    """The GPU's path (dtype auto gives bfloat16 there), forced on the CPU: the tiny model takes
    the dtype asked for, PEFT keeps the adapter in float32, the gradient stays within 1% of the
    float32 learner's, and a checkpoint restores the next step exactly."""
    from spadework.policy.hf import load_hf

    base = load_hf("tiny", dtype="bfloat16")
    model = with_lora(base.model, rank=4, alpha=8, dropout=0.0, targets=TARGETS)
    learner = Learner(model, base.tokenizer, LearnerSettings(lr=5e-3, seed=0))
    kinds = {("adapter" if "lora_" in n else "base", p.dtype) for n, p in learner.model.named_parameters()}
    assert kinds == {("adapter", torch.float32), ("base", torch.bfloat16)}
    bf16 = learner.update(batch())["learn/grad_norm"]
    fp32 = make_learner().update(batch())["learn/grad_norm"]
    assert abs(bf16 - fp32) / fp32 < 0.01, (bf16, fp32)
    learner.save(tmp_path)
    following = learner.update(batch())["learn/grad_norm"]
    learner.load(tmp_path)
    assert learner.update(batch())["learn/grad_norm"] == following
