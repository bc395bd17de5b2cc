"""A trained LoRA adapter reaches llama.cpp: the GGUF file is well formed, and the served
model's log-probability of a trained completion rises after the adapter is loaded."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
gguf = pytest.importorskip("gguf")
pytest.importorskip("peft")

from spadework.learn.gguf_lora import export_adapter  # noqa: E402
from spadework.learn.learner import Learner  # noqa: E402
from spadework.learn.model import load_base, tiny_model, with_lora  # noqa: E402
from spadework.learn.samples import TrainRole, TrainSample  # noqa: E402
from spadework.learn.settings import LearnerSettings  # noqa: E402
from spadework.policy.base import Message, Role  # noqa: E402
from spadework.rollout.tokens import render_text, render_tokens  # noqa: E402

TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj")


def test_the_adapter_file_has_llama_cpp_names_shapes_and_alpha(tmp_path):
    model = with_lora(tiny_model(0), rank=4, alpha=8, dropout=0.0, targets=TARGETS)
    path = export_adapter(model, tmp_path / "adapter.gguf")
    reader = gguf.GGUFReader(str(path))
    fields = {name: reader.fields[name] for name in ("general.type", "adapter.type", "adapter.lora.alpha",
                                                     "general.architecture")}
    text = {k: bytes(f.parts[f.data[0]]).decode() for k, f in fields.items() if k != "adapter.lora.alpha"}
    assert text == {"general.type": "adapter", "adapter.type": "lora", "general.architecture": "qwen2"}
    assert float(fields["adapter.lora.alpha"].parts[-1][0]) == 8.0
    tensors = {t.name: tuple(int(d) for d in reversed(t.shape)) for t in reader.tensors}
    assert len(tensors) == 2 * 2 * len(TARGETS)  # two layers, A and B per projection
    assert tensors["blk.1.attn_q.weight.lora_a"] == (4, 64)  # rank x in, as PEFT holds it
    assert tensors["blk.1.attn_k.weight.lora_b"] == (32, 4)  # out (2 kv heads x 16) x rank
    assert [p.name for p in tmp_path.iterdir()] == ["adapter.gguf"]  # no temporary left behind


PROMPT = [Message(Role.SYSTEM, "You are terse."), Message(Role.USER, "What is the password?")]
ANSWER = "The password is flamingo-42."


def served_logprob(llm, prompt_ids: list[int], answer_ids: list[int]) -> float:
    """Sum of the served model's log-probs of ``answer_ids`` after ``prompt_ids``."""
    llm.reset()
    llm.eval(prompt_ids + answer_ids)
    scores = torch.tensor(llm.scores[: len(prompt_ids) + len(answer_ids)])
    logp = torch.log_softmax(scores, dim=-1)
    return sum(float(logp[len(prompt_ids) - 1 + k, tok]) for k, tok in enumerate(answer_ids))


@pytest.mark.timeout(900)
def test_the_served_model_moves_toward_the_update(tmp_path):
    llama_cpp = pytest.importorskip("llama_cpp")
    from spadework.errors import PolicyError
    from spadework.policy.embedded import EmbeddedPolicy
    from spadework.policy.llama_cpu import avoid_amx_repack
    from spadework.policy.models import resolve_model

    try:
        gguf_path = resolve_model("qwen2.5-coder-0.5b")
    except PolicyError as exc:
        pytest.skip(str(exc))
    base = load_base("policy", "qwen2.5-coder-0.5b", dtype="float32")
    model = with_lora(base.model, rank=8, alpha=16, dropout=0.0, targets=TARGETS)
    rendered = render_tokens([*PROMPT, Message(Role.ASSISTANT, ANSWER)], base.tokenizer)
    sample = TrainSample(TrainRole.AGENT, tuple(rendered.ids), tuple(rendered.mask), 1.0, "password")
    learner = Learner(model, base.tokenizer, LearnerSettings(lr=1e-3))
    for _ in range(4):
        learner.update([sample])
    adapter = export_adapter(learner.peft_model, tmp_path / "adapter.gguf")

    avoid_amx_repack()  # as EmbeddedPolicy does before it loads a model
    llm = llama_cpp.Llama(model_path=str(gguf_path), n_ctx=512, logits_all=True, verbose=False)
    policy = EmbeddedPolicy.from_llama(llm)
    prompt_ids = base.tokenizer.encode(render_text(PROMPT) + "<|im_start|>assistant\n")
    answer_ids = base.tokenizer.encode(ANSWER)
    before = served_logprob(llm, prompt_ids, answer_ids)
    policy.load_adapter(adapter)
    after = served_logprob(llm, prompt_ids, answer_ids)
    policy.load_adapter(None)
    again = served_logprob(llm, prompt_ids, answer_ids)
    policy.close()
    assert after > before + 1.0, f"log-prob of the trained answer: {before:.2f} before, {after:.2f} after"
    assert math.isclose(again, before, abs_tol=0.05), "removing the adapter restores the base model"


@pytest.mark.timeout(600)
def test_llama_cpp_server_serves_each_new_adapter(tmp_path):
    """The real llama.cpp OpenAI-compatible server on loopback: restarted with an adapter, it answers
    differently; closed, it is gone."""
    pytest.importorskip("llama_cpp.server.app")
    import socket

    from spadework.errors import PolicyError
    from spadework.learn.sync import LlamaServerSync
    from spadework.policy.base import Sampling
    from spadework.policy.models import resolve_model
    from spadework.policy.openai import OpenAIPolicy

    try:
        gguf_path = resolve_model("qwen2.5-coder-0.5b")
    except PolicyError as exc:
        pytest.skip(str(exc))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = load_base("policy", "qwen2.5-coder-0.5b", dtype="float32")
    model = with_lora(base.model, rank=8, alpha=16, dropout=0.0, targets=TARGETS)
    torch.manual_seed(0)
    with torch.no_grad():  # a large random update, so the served text must change
        for name, param in model.named_parameters():
            if "lora_B" in name:
                param.normal_(0.0, 0.05)
    checkpoint = tmp_path / "iteration-0000"
    checkpoint.mkdir()
    policy = OpenAIPolicy(f"http://127.0.0.1:{port}/v1", "served", timeout_s=120.0)
    sync = LlamaServerSync(policy, gguf_path, n_ctx=1024, log=tmp_path / "server.log")
    greedy = Sampling(temperature=0.0, max_tokens=12)
    try:
        before = policy.generate([PROMPT], greedy)[0].text
        metrics = sync.publish(checkpoint, model)
        after = policy.generate([PROMPT], greedy)[0].text
        assert (checkpoint / "adapter.gguf").exists() and metrics["learn/sync_s"] > 0
        assert "--lora_path" in sync.process.args
    finally:
        sync.close()
        policy.close()
    assert after != before, f"the served answer did not change: {before!r}"
    assert sync.process is None
