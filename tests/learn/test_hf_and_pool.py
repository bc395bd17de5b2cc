"""The hf policy (the learner's own model generates), the fixed-environment baseline, checkpoints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

from spadework.archive import Archive  # noqa: E402
from spadework.config import load_config  # noqa: E402
from spadework.errors import ConfigError  # noqa: E402
from spadework.learn.checkpoint import checkpoints, drop_uncommitted, write_checkpoint  # noqa: E402
from spadework.learn.model import ByteTokenizer, tiny_model  # noqa: E402
from spadework.policy.base import Message, Role, Sampling  # noqa: E402
from spadework.policy.hf import HFPolicy  # noqa: E402
from spadework.run import run  # noqa: E402

HELLO = [Message(Role.USER, "hello")]


def test_hf_policy_generates_repeatably_and_leaves_the_global_rng_alone():
    import torch

    policy = HFPolicy(tiny_model(0), ByteTokenizer())
    torch.manual_seed(123)
    state = torch.get_rng_state()
    first = policy.generate([HELLO, HELLO], Sampling(temperature=1.0, max_tokens=12, seed=5))
    assert torch.equal(torch.get_rng_state(), state)
    again = policy.generate([HELLO], Sampling(temperature=1.0, max_tokens=12, seed=5))
    assert first[0].text == again[0].text
    assert first[0].completion_tokens <= 12 and first[0].prompt_tokens == len(ByteTokenizer().encode(
        "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"))
    assert first[0].text != first[1].text  # the second conversation gets the next seed


@pytest.mark.timeout(300)
def test_training_with_the_hf_policy_samples_from_the_trained_weights(tmp_path: Path):
    config = load_config(None, {"policy.kind": "hf", "policy.model": "tiny", "run.iterations": 1,
                                "run.designs": 1, "run.plays": 2, "designer.max_attempts": 1,
                                "designer.sampling.max_tokens": 24, "agent.sampling.max_tokens": 8,
                                "agent.max_turns": 2, "corpus.max_doc_tokens": 16, "learn.enabled": True,
                                "learn.max_sample_tokens": 8192, "learn.micro_batch_tokens": 8192,
                                "sandbox.pool_size": 1})
    summary = run(config, tmp_path / "run")
    assert summary.iterations == 1
    line = json.loads((tmp_path / "run" / "metrics.jsonl").read_text())
    assert "learn/loss" in line and "learn/sync_s" not in line  # nothing to sync: it is the same model
    with Archive.open(tmp_path / "run", create=False) as archive:
        assert archive.count() == 1  # a random model's reply is archived with its verdict


def test_fixed_pool_baseline_plays_only_pool_environments(tmp_path: Path):
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 3,
                                "run.plays": 1, "designer.fixed_pool": "examples", "sandbox.pool_size": 1})
    run(config, tmp_path / "run")
    with Archive.open(tmp_path / "run", create=False) as archive:
        records = list(archive.records())
    assert len(records) == 6 and all(r.valid for r in records)
    from spadework.envs.examples import example_paths

    sources = {p.read_text(encoding="utf-8") for p in example_paths()}
    assert all(r.source in sources for r in records)
    lines = [json.loads(x) for x in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert all(m["corpus/documents_used"] == 0 and m["design/valid_rate"] == 1.0 for m in lines)


def test_a_pool_that_names_nothing_is_refused(tmp_path: Path):
    config = load_config(None, {"policy.kind": "scripted", "designer.fixed_pool": str(tmp_path / "nope")})
    with pytest.raises(ConfigError, match="fixed_pool"):
        run(config, tmp_path / "run")


def test_checkpoints_are_atomic_pruned_and_dropped_when_uncommitted(tmp_path: Path):
    def save(folder: Path) -> None:
        (folder / "weights").write_text("w")

    for iteration in range(4):
        write_checkpoint(tmp_path, iteration, save, {"iteration": iteration}, keep=2)
    assert list(checkpoints(tmp_path)) == [2, 3]
    (tmp_path / "checkpoints" / "iteration-0004.partial").mkdir()  # a crash while writing
    assert drop_uncommitted(tmp_path, 2) == [3]
    assert list(checkpoints(tmp_path)) == [2]
    assert not (tmp_path / "checkpoints" / "iteration-0004.partial").exists()
    assert (tmp_path / "checkpoints" / "latest").read_text().strip() == "iteration-0002"
    state = tmp_path / "checkpoints" / "iteration-0002" / "loop.json"
    assert json.loads(state.read_text()) == {"iteration": 2}


def test_a_learner_model_that_names_nothing_is_refused(tmp_path: Path):
    from spadework.learn.model import load_base

    with pytest.raises(ConfigError, match="neither 'policy', 'tiny', a preset"):
        load_base("no-such-model", "x")
    with pytest.raises(ConfigError, match="could not be loaded"):
        load_base(str(tmp_path / "missing" / "model"), "x")


def test_hf_policy_decodes_padded_batches_and_each_row_keeps_its_own_seed():
    """Prompts of different lengths in one padded batch give what each gives alone (greedy), and a
    sampled row gives what it gives alone with the same seed, whatever shares its batch."""
    import torch

    policy = HFPolicy(tiny_model(0), ByteTokenizer(), batch_size=3)
    prompts = [[Message(Role.USER, text)] for text in ("hi", "a much longer question here", "ok?", "x")]
    greedy = Sampling(temperature=0.0, max_tokens=10)
    alone = [policy.generate([p], greedy)[0] for p in prompts]
    together = policy.generate(prompts, greedy)
    assert [c.text for c in together] == [c.text for c in alone]
    assert [c.prompt_tokens for c in together] == [c.prompt_tokens for c in alone]
    hot = Sampling(temperature=1.0, max_tokens=10, seed=9)
    [solo] = policy.generate([prompts[2]], Sampling(temperature=1.0, max_tokens=10, seed=11))
    assert policy.generate(prompts, hot)[2].text == solo.text  # the third conversation's seed is 9 + 2
    calls = []
    policy.model.register_forward_pre_hook(lambda _, args, kwargs: calls.append(kwargs["input_ids"].shape[0]),
                                           with_kwargs=True)
    policy.generate(prompts, greedy)
    assert set(calls) == {3, 1} and torch.is_grad_enabled()
