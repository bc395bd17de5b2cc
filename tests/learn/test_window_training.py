"""A designer window trained when it closes, with the tiny model: its samples are kept with the
log-probs of the policy that wrote them, the agent trains in between, and the closing update
weighs the designer's tokens by truncated importance sampling (hand-computed on a fixed batch)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("peft")

from spadework.config import load_config  # noqa: E402
from spadework.learn.learner import Learner  # noqa: E402
from spadework.learn.loss import policy_loss, token_logprobs, truncated_is_weights  # noqa: E402
from spadework.learn.model import ByteTokenizer, tiny_model, with_lora  # noqa: E402
from spadework.learn.samples import TrainRole, TrainSample  # noqa: E402
from spadework.learn.settings import Aggregation, LearnerSettings  # noqa: E402
from spadework.loop import WINDOWS_DIR  # noqa: E402
from spadework.run import run  # noqa: E402

WINDOW = {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 3, "run.plays": 2, "run.seed": 0,
          "sandbox.pool_size": 2, "corpus.max_doc_tokens": 32, "learn.enabled": True, "learn.model": "tiny",
          "learn.max_sample_tokens": 8192, "learn.micro_batch_tokens": 8192, "learn.lr": 1e-2,
          "designer.regenerate_every": 2, "rewards.designer": "blend", "learn.tis_cap": 2.0}


def test_the_truncated_weights_on_a_hand_computed_batch():
    # two tokens of one designer sample: now 0.5 and 0.4, then 0.5 and 0.1 -> ratios 1 and 4 (cut to 2)
    old = torch.log(torch.tensor([[0.5, 0.4]]))
    behaviour = torch.log(torch.tensor([[0.5, 0.1]]))
    weights = truncated_is_weights(old, behaviour, torch.tensor([True]), cap=2.0)
    assert weights[0].tolist() == pytest.approx([1.0, 2.0])
    # one pass (ratio to old = 1), advantage 0.5, token mean over 2: loss = -(1 * 0.5 + 2 * 0.5) / 2
    parts = policy_loss(old, old, torch.tensor([0.5]), torch.ones(1, 2), aggregation=Aggregation.TOKEN_MEAN,
                        denominator=2, weights=weights)
    assert float(parts.loss) == pytest.approx(-0.75)


def test_the_learner_weighs_samples_from_an_earlier_policy():
    model = with_lora(tiny_model(0), rank=4, alpha=8, dropout=0.0, targets=("q_proj", "v_proj"))
    frozen = LearnerSettings(seed=0, tis_cap=2.0).model_copy(update={"lr": 0.0})  # (a config refuses lr 0)
    learner = Learner(model, ByteTokenizer(), frozen)
    ids = tuple(range(40, 56))
    plain = TrainSample(TrainRole.DESIGNER, ids, (0,) * 4 + (1,) * 12, 1.0, "d0/attempt-1")
    now = learner.logprobs([plain])[0]
    assert len(now) == len(ids) - 1
    with torch.no_grad():
        direct = token_logprobs(learner.model(input_ids=torch.tensor([ids])).logits, torch.tensor([ids]))
    trained = [bool(m) for m in plain.mask[1:]]
    assert [x for x, t in zip(now, trained, strict=True) if t] == pytest.approx(
        [x for x, t in zip(direct[0].tolist(), trained, strict=True) if t], abs=1e-5)
    assert all(x == 0.0 for x, t in zip(now, trained, strict=True) if not t)  # logits only where trained
    same = learner.update([replace(plain, behaviour=now)])
    assert same["learn/tis_weight_mean"] == pytest.approx(1.0, abs=1e-4)
    stale = [x - math.log(4) for x in now]  # the behaviour policy gave every token a quarter of today's
    cut = learner.update([replace(plain, behaviour=tuple(stale))])
    assert cut["learn/tis_weight_mean"] == pytest.approx(2.0) and cut["learn/tis_truncated_fraction"] == 1.0
    assert cut["learn/loss"] == pytest.approx(2 * same["learn/loss"], rel=1e-4)
    fresh = learner.update([plain])
    assert fresh["learn/tis_weight_mean"] == 0.0 and fresh["learn/loss"] == pytest.approx(same["learn/loss"],
                                                                                          rel=1e-4)


@pytest.mark.timeout(300)
def test_a_window_keeps_its_designer_samples_with_behaviour_and_trains_them_when_it_closes(tmp_path: Path):
    run_dir = tmp_path / "run"
    run(load_config(None, WINDOW), run_dir)
    kept_file = run_dir / WINDOWS_DIR / "designer-0000.jsonl"
    kept = [json.loads(line) for line in kept_file.read_text().splitlines()]
    assert kept and all(len(s["behaviour"]) == len(s["ids"]) - 1 for s in kept)
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert rows[0]["learn/designer_samples"] == 0.0  # the window is still open: the agent alone
    assert "reward/blend_mean" in rows[1]
    if rows[1]["learn/designer_samples"]:  # paid with variance: trained, weighed against the behaviour
        assert rows[1]["learn/tis_weight_mean"] > 0
