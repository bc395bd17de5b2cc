"""Tool-world transcripts as tokens: tool results and tools are rendered as the policy was prompted
(the template's way, else ChatML with the tools in the system message) and never trained on."""

from __future__ import annotations

import pytest

from spadework.policy.base import Message, Role
from spadework.policy.chat import prompt_text, render_text
from spadework.policy.toolcalls import tools_text
from spadework.rollout.tokens import render_tokens

TOOLS = [{"type": "function", "function": {"name": "lend", "description": "Lend a book.", "parameters": {
    "type": "object", "properties": {"book_id": {"type": "integer", "description": "the book's id."}},
    "required": ["book_id"]}}}]
CALL = '<tool_call>\n{"name": "lend", "arguments": {"book_id": 2}}\n</tool_call>'
EPISODE = [Message(Role.SYSTEM, "Call tools."), Message(Role.USER, "Lend 'Emma'."),
           Message(Role.ASSISTANT, "Looking.\n[find(collection='books')]"),
           Message(Role.TOOL, 'find(collection=\'books\') -> [{"id": 2}]'),
           Message(Role.ASSISTANT, CALL), Message(Role.TOOL, 'lend(book_id=2) -> {"ok": true}')]
REPLIES = [m.content for m in EPISODE if m.role is Role.ASSISTANT]

TOOL_CHATML = (  # Qwen2.5's way, shortened: tools in the system block, results as a user's <tool_response>
    "{% if tools %}<|im_start|>system\n{{ messages[0]['content'] }}\n\n# Tools\n<tools>"
    "{% for tool in tools %}\n{{ tool | tojson }}{% endfor %}\n</tools><|im_end|>\n"
    "{% else %}<|im_start|>system\n{{ messages[0]['content'] }}<|im_end|>\n{% endif %}"
    "{% for message in messages[1:] %}{% if message['role'] == 'tool' %}"
    "<|im_start|>user\n<tool_response>\n{{ message['content'] }}\n</tool_response><|im_end|>\n"
    "{% else %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
NO_TOOLS_CHATML = ("{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
                   "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
CORPUS = ["Call tools. Lend a book. <tool_response> lend(book_id=2) find(collection='books') -> [{'id': 2}]",
          "system user assistant tool # Tools <tools> function name description parameters"] * 4


class Bytes:
    """FAKE tokenizer without a chat template: one id per UTF-8 byte."""

    def encode(self, text: str) -> list[int]:
        return list(text.encode())


def trained_runs(text_ids: list[int], mask: list[int], decode) -> list[str]:
    runs, current = [], []
    for token, trained in zip(text_ids, mask, strict=True):
        if trained:
            current.append(token)
        elif current:
            runs.append(decode(current))
            current = []
    return runs + ([decode(current)] if current else [])


def test_chatml_renders_tool_messages_and_the_tools_and_trains_on_the_replies_only():
    transcript = render_tokens(EPISODE, Bytes(), tools=TOOLS)
    text = bytes(transcript.ids).decode()
    assert text == render_text(EPISODE, tools=TOOLS)
    assert "<|im_start|>tool\nfind(collection='books') -> [{\"id\": 2}]<|im_end|>\n" in text
    assert text.startswith(f"<|im_start|>system\nCall tools.\n\n{tools_text(TOOLS)}<|im_end|>\n")
    runs = trained_runs(transcript.ids, transcript.mask, lambda ids: bytes(ids).decode())
    assert runs == [f"{reply}<|im_end|>" for reply in REPLIES]


def test_the_prompt_the_policy_saw_is_where_the_trained_reply_starts():
    transcript = render_tokens(EPISODE, Bytes(), tools=TOOLS)
    text = bytes(transcript.ids).decode()
    for k in (2, 4):
        prompt = prompt_text(EPISODE[:k], Bytes(), TOOLS)
        assert text.startswith(prompt + EPISODE[k].content)
        assert transcript.mask[len(prompt.encode()) - 1] == 0 and transcript.mask[len(prompt.encode())] == 1


@pytest.fixture(scope="module")
def tiny_tokenizer():
    pytest.importorskip("tokenizers")
    pytest.importorskip("transformers")
    from spadework.policy.hf import HFTokenizer, tiny_tokenizer

    def build(template: str) -> HFTokenizer:
        return tiny_tokenizer(template, SPECIALS, CORPUS, bos=SPECIALS[0], eos=SPECIALS[2])

    return build


def test_a_template_with_tool_support_renders_results_its_way_and_the_mask_stays_on_replies(tiny_tokenizer):
    tokenizer = tiny_tokenizer(TOOL_CHATML)
    assert tokenizer.renders_tools
    transcript = render_tokens(EPISODE, tokenizer, tools=TOOLS)
    text = tokenizer.decode(transcript.ids)
    assert '# Tools\n<tools>{"type": "function", "function": {"name": "lend"' in text
    assert "<|im_start|>user\n<tool_response>\nlend(book_id=2) -> {\"ok\": true}\n</tool_response>" in text
    assert trained_runs(transcript.ids, transcript.mask, tokenizer.decode) == \
        [f"{reply}<|im_end|>" for reply in REPLIES]
    assert text.startswith(prompt_text(EPISODE[:4], tokenizer, TOOLS) + CALL)


def test_a_template_that_ignores_tools_gets_them_in_the_system_message(tiny_tokenizer):
    tokenizer = tiny_tokenizer(NO_TOOLS_CHATML)
    assert not tokenizer.renders_tools
    prompt = prompt_text(EPISODE[:2], tokenizer, TOOLS)
    assert prompt == render_text(EPISODE[:2], tools=TOOLS) + "<|im_start|>assistant\n"
    transcript = render_tokens(EPISODE, tokenizer, tools=TOOLS)
    assert trained_runs(transcript.ids, transcript.mask, tokenizer.decode) == \
        [f"{reply}<|im_end|>" for reply in REPLIES]


def test_qwens_own_template_renders_the_tools_and_results_and_trains_on_the_replies_only():
    """The real Qwen2.5 tokenizer (the preset's cached Hugging Face copy, else read from its GGUF)."""
    transformers = pytest.importorskip("transformers")
    from spadework.errors import PolicyError
    from spadework.policy.hf import HFTokenizer, hf_folder
    from spadework.policy.models import resolve_model

    try:
        gguf = resolve_model("qwen2.5-coder-0.5b")
    except PolicyError as exc:
        pytest.skip(str(exc))
    folder = hf_folder(gguf)
    extra = {} if (folder / "config.json").exists() else {"gguf_file": gguf.name}
    tokenizer = HFTokenizer(transformers.AutoTokenizer.from_pretrained(
        str(folder if not extra else gguf.parent), **extra))
    assert tokenizer.renders_tools
    transcript = render_tokens(EPISODE, tokenizer, tools=TOOLS)
    text = tokenizer.decode(transcript.ids)
    assert text.startswith("<|im_start|>system\nCall tools.\n\n# Tools\n")
    assert '"name": "lend"' in text and "<tool_response>\nfind(collection='books')" in text
    assert trained_runs(transcript.ids, transcript.mask, tokenizer.decode) == \
        [f"{reply}<|im_end|>" for reply in REPLIES]
    assert text.startswith(prompt_text(EPISODE[:4], tokenizer, TOOLS) + CALL)
