"""policy.chat: the assistant's spans read off a chat template, and the prompt the hf policy sends."""

from __future__ import annotations

import pytest

from spadework.errors import ConfigError
from spadework.policy.base import Message, Role
from spadework.policy.chat import (
    CHATML,
    assistant_spans,
    end_of_turn,
    own_template,
    prompt_text,
    render_text,
)

S, U, A, V, B = (Message(Role.SYSTEM, "S"), Message(Role.USER, "U"), Message(Role.ASSISTANT, "AB "),
                 Message(Role.USER, "V"), Message(Role.ASSISTANT, "C"))


def turns(messages, prompt: bool) -> str:
    """FAKE Llama-3-like template: ``[role]`` header, trimmed content, ``$`` ends a turn, no separator."""
    text = "".join(f"[{m.role.value}]{m.content.strip()}$" for m in messages)
    return text + ("[assistant]" if prompt else "")


def test_spans_are_each_reply_and_its_end_marker_without_headers():
    text, spans = assistant_spans([S, U, A, V, B], turns)
    assert text == "[system]S$[user]U$[assistant]AB$[user]V$[assistant]C$"
    assert [text[s:e] for s, e in spans] == ["AB$", "C$"]


def test_chatml_spans_leave_out_the_separator_and_last_only_keeps_the_last_reply():
    chatml = lambda ms, prompt: render_text(ms) + ("<|im_start|>assistant\n" if prompt else "")  # noqa: E731
    text, spans = assistant_spans([S, U, A, V, B], chatml, last_only=True)
    assert [text[s:e] for s, e in spans] == ["C<|im_end|>"]
    assert text.endswith("C<|im_end|>\n")
    assert assistant_spans([S, U, A, V], chatml, last_only=True)[1] == []  # the last message is the user's


def test_a_template_that_rewrites_earlier_messages_is_refused_with_what_to_change():
    def forgetful(messages, prompt: bool) -> str:  # FAKE: earlier replies lose their content (Qwen3-like)
        last = len(messages) - 1
        return "".join(f"[{m.role.value}]{'' if m.role is Role.ASSISTANT and k < last else m.content}$"
                       for k, m in enumerate(messages)) + ("[assistant]" if prompt else "")

    with pytest.raises(ConfigError) as caught:
        assistant_spans([S, U, A, V, B], forgetful)
    assert str(caught.value) == (
        "the model's chat template renders the first 3 messages differently once the conversation "
        "continues (the shorter rendering is not a prefix of the longer), so the assistant's replies "
        "cannot be told apart from the rest of the rendered conversation; use a model (learn.model, "
        "policy.model) whose tokenizer's chat_template renders every message the same whatever follows "
        "it, or set a chat_template on the tokenizer that does")
    text, spans = assistant_spans([S, U, A, V, B], forgetful, last_only=True)
    assert [text[s:e] for s, e in spans] == ["C$"]


def test_a_template_without_a_generation_prompt_or_a_reply_first_is_refused():
    with pytest.raises(ConfigError, match="adds no header for the assistant's reply"):
        assistant_spans([U, A], lambda ms, prompt: turns(ms, False))
    with pytest.raises(ConfigError, match="starts with an assistant message; put the system or user message"):
        assistant_spans([A, U], turns)


def test_end_of_turn_is_what_closes_a_reply():
    assert end_of_turn(turns) == "$"
    assert end_of_turn(lambda ms, prompt: turns(ms, prompt).replace("$", "")) == ""


class FakeTemplated:
    """FAKE tokenizer with its own template (``turns``), one id per character."""

    chat_template = "turns"

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def render_chat(self, messages, *, add_generation_prompt: bool) -> str:
        return turns(messages, add_generation_prompt)

    def encode_offsets(self, text: str):
        return self.encode(text), [(k, k + 1) for k in range(len(text))]


def test_the_prompt_is_the_tokenizers_own_template_else_chatml():
    assert prompt_text([S, U], FakeTemplated()) == "[system]S$[user]U$[assistant]"
    assert prompt_text([S, U]) == render_text([S, U]) + CHATML.header.format(role="assistant")
    untemplated = FakeTemplated()
    untemplated.chat_template = None
    assert own_template(untemplated) is None and own_template(FakeTemplated()) is not None
    assert prompt_text([U], untemplated) == "<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"


def test_the_hf_policy_prompts_with_the_tools_of_each_conversation():
    pytest.importorskip("torch")
    from spadework.policy.base import Sampling
    from spadework.policy.hf import ByteTokenizer, HFPolicy, tiny_model

    tools = [{"type": "function", "function": {"name": "look", "parameters": {"type": "object"}}}]
    tokenizer = ByteTokenizer()
    with_tools, without = HFPolicy(tiny_model(0), tokenizer).generate(
        [[S, U], [S, U]], Sampling(temperature=0.0, max_tokens=1), tools=[tools, None])
    assert with_tools.prompt_tokens == len(tokenizer.encode(prompt_text([S, U], tokenizer, tools)))
    assert without.prompt_tokens == len(tokenizer.encode(prompt_text([S, U], tokenizer)))
    assert '{"name": "look"' in prompt_text([S, U], tokenizer, tools)
