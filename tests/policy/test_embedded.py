"""EmbeddedPolicy: its wiring around a FAKE llama, its errors, and one real tiny generation."""

from __future__ import annotations

import subprocess
import sys

import pytest

from spadework.errors import ContextOverflow, PolicyError
from spadework.policy import Message, Role, Sampling
from spadework.policy.embedded import EmbeddedPolicy
from spadework.policy.models import PRESETS, part_files

HELLO = [Message(Role.SYSTEM, "Answer in one short sentence."), Message(Role.USER, "Say hello.")]


class FakeLlama:
    """FAKE ``llama_cpp.Llama``: echoes the last message, records calls, overflows on request."""

    metadata: dict[str, str] = {}

    def __init__(self):
        self.calls: list[dict] = []
        self.closed = False

    def create_chat_completion(self, **kwargs):
        self.calls.append(kwargs)
        last = kwargs["messages"][-1]["content"]
        if last == "overflow":
            raise ValueError("Requested tokens (5000) exceed context window of 4096")
        if last == "crash":
            raise RuntimeError("llama_decode returned -1")
        return {"choices": [{"message": {"role": "assistant", "content": last.upper()},
                             "finish_reason": "length"}],
                "usage": {"prompt_tokens": len(last), "completion_tokens": 3}}

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return list(text)

    def n_ctx(self) -> int:
        return 4096

    def close(self) -> None:
        self.closed = True


def test_generate_passes_sampling_and_keeps_order():
    fake = FakeLlama()
    policy = EmbeddedPolicy.from_llama(fake, "embedded:fake")
    sampling = Sampling(temperature=0.3, top_p=0.8, max_tokens=9, seed=4, stop=("END",))
    completions = policy.generate([[Message(Role.USER, w)] for w in ("ab", "cde")], sampling)
    assert [c.text for c in completions] == ["AB", "CDE"]
    assert [(c.prompt_tokens, c.completion_tokens, c.finish_reason) for c in completions] == \
        [(2, 3, "length"), (3, 3, "length")]
    assert fake.calls[0] == {"messages": [{"role": "user", "content": "ab"}], "temperature": 0.3,
                             "top_p": 0.8, "max_tokens": 9, "stop": ["END"], "seed": 4}
    assert all(c.seconds >= 0 for c in completions)


def test_llama_failures_become_policy_errors():
    policy = EmbeddedPolicy.from_llama(FakeLlama(), "embedded:fake")
    with pytest.raises(ContextOverflow, match=r"exceed context window of 4096\); shorten it or raise n_ctx"):
        policy.generate_one([Message(Role.USER, "overflow")], Sampling())
    with pytest.raises(PolicyError, match="embedded:fake failed to generate: llama_decode returned -1"):
        policy.generate_one([Message(Role.USER, "crash")], Sampling())


def test_count_tokens_without_a_template_sums_the_messages():
    policy = EmbeddedPolicy.from_llama(FakeLlama())
    assert policy.count_tokens([Message(Role.USER, "abc"), Message(Role.ASSISTANT, "de")]) == 5
    assert policy.tokenize("hi") == [104, 105]


def test_close_frees_the_model():
    fake = FakeLlama()
    with EmbeddedPolicy.from_llama(fake):
        pass
    assert fake.closed


TOOLS = [{"type": "function", "function": {"name": "lend_book", "description": "Lend a book.", "parameters": {
    "type": "object", "properties": {"book_id": {"type": "integer"}}, "required": ["book_id"]}}}]
TOOL_TEMPLATE = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
                 "{% if loop.first and tools %}\n<tools>{% for tool in tools %}{{ tool | tojson }}"
                 "{% endfor %}</tools>{% endif %}<|im_end|>\n{% endfor %}"
                 "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
TOOL_CONVERSATION = [Message(Role.SYSTEM, "Call tools."), Message(Role.USER, "Lend book 2."),
                     Message(Role.ASSISTANT, "[lend_book(book_id=2)]"),
                     Message(Role.TOOL, "lend_book(...) -> ok")]


class TemplatedFakeLlama(FakeLlama):
    """FAKE ``llama_cpp.Llama`` whose GGUF metadata holds a chat template (tools shown or not)."""

    def __init__(self, template: str = TOOL_TEMPLATE, tool_calls=None):
        super().__init__()
        self.metadata = {"tokenizer.chat_template": template}
        self.tool_calls = tool_calls

    def create_chat_completion(self, **kwargs):
        answer = super().create_chat_completion(**kwargs)
        answer["choices"][0]["message"]["tool_calls"] = self.tool_calls
        return answer

    def token_eos(self) -> int:
        return 2

    def token_bos(self) -> int:
        return -1

    def detokenize(self, tokens, special=False) -> bytes:
        return b"<|im_end|>"


def test_tools_go_to_a_template_that_shows_them():
    fake = TemplatedFakeLlama()
    policy = EmbeddedPolicy.from_llama(fake)
    assert policy.renders_tools
    [completion] = policy.generate([TOOL_CONVERSATION], Sampling(), tools=[TOOLS])
    assert fake.calls[0]["tools"] == TOOLS
    assert fake.calls[0]["messages"] == [m.to_json() for m in TOOL_CONVERSATION]
    assert fake.calls[0]["messages"][-1] == {"role": "tool", "content": "lend_book(...) -> ok"}
    assert policy.count_tokens(TOOL_CONVERSATION, TOOLS) > policy.count_tokens(TOOL_CONVERSATION)
    policy.generate([TOOL_CONVERSATION], Sampling())
    assert "tools" not in fake.calls[1]


def test_tools_go_to_the_system_message_when_the_template_ignores_them_or_there_is_none():
    from spadework.policy.toolcalls import with_tools_in_system

    expected = [m.to_json() for m in with_tools_in_system(TOOL_CONVERSATION, TOOLS)]
    for fake in (TemplatedFakeLlama(TOOL_TEMPLATE.replace("tools", "nothing")), FakeLlama()):
        policy = EmbeddedPolicy.from_llama(fake)
        assert not policy.renders_tools
        policy.generate([TOOL_CONVERSATION], Sampling(), tools=[TOOLS])
        assert "tools" not in fake.calls[0] and fake.calls[0]["messages"] == expected
        assert '"name": "lend_book"' in expected[0]["content"]


def test_native_tool_calls_in_an_answer_become_tool_call_text():
    calls = [{"id": "c", "type": "function",
              "function": {"name": "lend_book", "arguments": '{"book_id": 2}'}}]
    policy = EmbeddedPolicy.from_llama(TemplatedFakeLlama(tool_calls=calls))
    [completion] = policy.generate([[Message(Role.USER, "ok")]], Sampling(), tools=[TOOLS])
    assert completion.text == \
        'OK\n<tool_call>\n{"name": "lend_book", "arguments": {"book_id": 2}}\n</tool_call>'


def test_unknown_models_and_files_are_refused_before_loading(tmp_path):
    with pytest.raises(PolicyError, match="unknown model 'tiny'; use a preset"):
        EmbeddedPolicy("tiny")
    bad = tmp_path / "model.gguf"
    bad.write_text("not a model")
    with pytest.raises(PolicyError, match="is not a GGUF file"):
        EmbeddedPolicy(str(bad))


def test_the_package_imports_without_the_backends_loaded():
    code = ("import sys, spadework.policy; "
            "print(sorted(m for m in ('llama_cpp', 'httpx') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def real_policy():
    """The real default model (Qwen2.5-Coder-0.5B Q4_K_M) with a small context."""
    pytest.importorskip("llama_cpp")
    try:
        part_files(PRESETS["qwen2.5-coder-0.5b"])
    except PolicyError as exc:
        pytest.skip(str(exc))
    policy = EmbeddedPolicy("qwen2.5-coder-0.5b", n_ctx=1024)
    yield policy
    policy.close()


def test_real_model_generates_and_counts_tokens(real_policy):
    completion = real_policy.generate([HELLO], Sampling(temperature=0.0, max_tokens=12))[0]
    assert completion.text.strip()
    assert 0 < completion.completion_tokens <= 12
    assert completion.prompt_tokens == real_policy.count_tokens(HELLO)
    assert completion.finish_reason in ("stop", "length")
    assert real_policy.tokenize("hello world") and real_policy.n_ctx == 1024


def test_real_models_template_shows_the_tools_in_the_prompt(real_policy):
    """Qwen2.5's template renders tools into its system block (no generation: the prompt is counted)."""
    assert real_policy.renders_tools
    without = real_policy.count_tokens(TOOL_CONVERSATION)
    assert real_policy.count_tokens(TOOL_CONVERSATION, TOOLS) > without + 30


def test_real_model_repeats_a_seeded_sample(real_policy):
    sampling = Sampling(temperature=1.0, max_tokens=8, seed=11)
    first, second = real_policy.generate([HELLO, HELLO], sampling)
    assert first.text == second.text


def test_real_model_reports_a_prompt_that_does_not_fit(real_policy):
    with pytest.raises(ContextOverflow):
        real_policy.generate_one([Message(Role.USER, "word " * 1100)], Sampling(max_tokens=4))


def test_on_an_amx_cpu_llama_loads_its_weights_into_plain_buffers(tmp_path, monkeypatch):
    """llama.cpp's AMX repacking crashed the process at the first decode on AMX machines."""
    import types

    import llama_cpp.llama_cpp as bindings

    from spadework.policy.llama_cpu import avoid_amx_repack

    monkeypatch.setattr(bindings, "llama_model_default_params",
                        lambda: types.SimpleNamespace(use_extra_bufts=True, n_gpu_layers=0))
    plain, amx = tmp_path / "plain", tmp_path / "amx"
    plain.write_text("processor : 0\nflags : fpu sse avx2 avx512f\n")
    amx.write_text("processor : 0\nflags : fpu sse avx2 avx512f amx_bf16 amx_tile amx_int8\n")
    assert not avoid_amx_repack(plain)
    assert bindings.llama_model_default_params().use_extra_bufts is True
    assert avoid_amx_repack(amx) and avoid_amx_repack(amx)
    params = bindings.llama_model_default_params()
    assert (params.use_extra_bufts, params.n_gpu_layers) == (False, 0)
    assert not avoid_amx_repack(tmp_path / "missing")


def test_real_model_with_a_prompt_cache_reads_only_each_turns_new_tokens():
    """Two conversations in lockstep: without the cache the second one's state evicts the first's,
    so each next turn computes its whole transcript; with it, only the tokens after the last reply."""
    pytest.importorskip("llama_cpp")
    try:
        part_files(PRESETS["qwen2.5-coder-0.5b"])
    except PolicyError as exc:
        pytest.skip(str(exc))
    sampling = Sampling(temperature=0.0, max_tokens=24)
    starts = [[Message(Role.SYSTEM, "Answer in one short sentence."), Message(Role.USER, question)]
              for question in ("Name a colour of the sky.", "Name an animal that lives in the sea.")]

    def second_turns(policy: EmbeddedPolicy) -> list:
        firsts = policy.generate(starts, sampling)
        nexts = [[*start, Message(Role.ASSISTANT, first.text), Message(Role.USER, "And another one?")]
                 for start, first in zip(starts, firsts, strict=True)]
        return [(policy.count_tokens(start), first, second) for start, first, second
                in zip(starts, firsts, policy.generate(nexts, sampling), strict=True)]

    for cache_mb in (0, 64):
        policy = EmbeddedPolicy("qwen2.5-coder-0.5b", n_ctx=1024, prompt_cache_mb=cache_mb)
        try:
            turns = second_turns(policy)
            if cache_mb:  # four states kept, each without the context's logit rows (311 MB here)
                states = policy.llm.cache.cache_state.values()
                assert len(states) == 4 and all(state.scores.shape[0] == 1 for state in states)
                assert policy.llm.cache.cache_size < 32 << 20
                policy.load_adapter(None)  # new weights: no state computed with the old ones is kept
                assert not policy.llm.cache.cache_state
        finally:
            policy.close()
        held = [first_prompt + first.completion_tokens for first_prompt, first, _ in turns]
        if cache_mb:  # the whole first turn, prompt and reply, is read from the cache
            assert all(second.cached_tokens >= h - 4 for h, (_, _, second) in zip(held, turns, strict=True))
        else:  # the other conversation's turn came between: only the shared system block is held
            assert all(second.cached_tokens < h - 8 for h, (_, _, second) in zip(held, turns, strict=True))
