"""Conversations rendered with the tokenizer's own chat template: tiny fast tokenizers built here
(offline) with Llama-3-style, Gemma-style and ChatML templates; the mask covers exactly the
assistant's replies and their end-of-turn marker; the hf policy prompts with the template."""

from __future__ import annotations

import pytest

pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

from spadework.designer import Design  # noqa: E402
from spadework.designer.design import DesignAttempt  # noqa: E402
from spadework.errors import ConfigError  # noqa: E402
from spadework.learn.samples import AttemptChoice, agent_samples, designer_samples  # noqa: E402
from spadework.outcomes import DesignOutcome  # noqa: E402
from spadework.policy import hf  # noqa: E402
from spadework.policy.base import Message, Role, Sampling  # noqa: E402
from spadework.policy.chat import prompt_text  # noqa: E402
from spadework.policy.hf import HFPolicy, HFTokenizer  # noqa: E402
from spadework.rollout import Arm, EndReason, Episode  # noqa: E402
from spadework.rollout.tokens import TokenizedTranscript, render_tokens  # noqa: E402
from spadework.validate.verdict import Verdict  # noqa: E402

LLAMA3 = ("{{ bos_token }}{% for message in messages %}<|start_header_id|>{{ message['role'] }}"
          "<|end_header_id|>\n\n{{ message['content'] | trim }}<|eot_id|>{% endfor %}"
          "{% if add_generation_prompt %}<|start_header_id|>assistant<|end_header_id|>\n\n{% endif %}")
LLAMA3_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
                   "<|eot_id|>")

GEMMA = ("{{ bos_token }}{% if messages[0]['role'] == 'system' %}"
         "{% set first = messages[0]['content'] + '\n\n' %}{% set rest = messages[1:] %}"
         "{% else %}{% set first = '' %}{% set rest = messages %}{% endif %}"
         "{% for message in rest %}"
         "{% set role = 'model' if message['role'] == 'assistant' else message['role'] %}"
         "<start_of_turn>{{ role }}\n{{ (first if loop.first else '') + message['content'] | trim }}"
         "<end_of_turn>\n{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}")
GEMMA_SPECIALS = ("<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>")

CHATML_TEMPLATE = ("{% for message in messages %}"
                   "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
                   "{% endfor %}{% if add_generation_prompt %}"
                   "{{ '<|im_start|>assistant\n' }}{% endif %}")
CHATML_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")

CORPUS = ["You are terse. What is the password? The password is flamingo-42.",
          "system user assistant model: the answer is \\boxed{42} and the user asks again"] * 4

CONVERSATION = [Message(Role.SYSTEM, "You are terse."), Message(Role.USER, "What is the password?"),
                Message(Role.ASSISTANT, "The password is flamingo-42."), Message(Role.USER, "Again?"),
                Message(Role.ASSISTANT, "\\boxed{42}\n")]


def tiny_tokenizer(template: str, specials: tuple[str, ...]) -> HFTokenizer:
    """A tiny local tokenizer with ``template``; the first special token is BOS, the second EOS."""
    return hf.tiny_tokenizer(template, specials, CORPUS, bos=specials[0], eos=specials[1])


def trained_text(tokenizer: HFTokenizer, transcript: TokenizedTranscript) -> list[str]:
    """The text of each run of trained tokens, read from the tokens' own character offsets."""
    text = tokenizer.decode(transcript.ids)
    ids, offsets = tokenizer.encode_offsets(text)
    assert ids == transcript.ids  # the ids are the whole rendered text's, tokenized once
    runs: list[str] = []
    for k, ((start, end), trained) in enumerate(zip(offsets, transcript.mask, strict=True)):
        if trained and (k == 0 or not transcript.mask[k - 1]):
            runs.append("")
        if trained:
            runs[-1] += text[start:end] if k == 0 or offsets[k - 1] != (start, end) else ""
    return runs


def test_llama3_mask_covers_each_reply_and_its_end_of_turn_only():
    tokenizer = tiny_tokenizer(LLAMA3, LLAMA3_SPECIALS)
    transcript = render_tokens(CONVERSATION, tokenizer)
    assert tokenizer.decode(transcript.ids) == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nWhat is the password?<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\nThe password is flamingo-42.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nAgain?<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n\\boxed{42}<|eot_id|>")
    assert trained_text(tokenizer, transcript) == ["The password is flamingo-42.<|eot_id|>",
                                                   "\\boxed{42}<|eot_id|>"]
    assert transcript.mask[-1] == 1 and transcript.mask[0] == 0


def test_gemma_mask_leaves_out_headers_separators_and_the_folded_system_message():
    tokenizer = tiny_tokenizer(GEMMA, GEMMA_SPECIALS)
    transcript = render_tokens(CONVERSATION, tokenizer)
    text = tokenizer.decode(transcript.ids)
    assert text.startswith("<bos><start_of_turn>user\nYou are terse.\n\nWhat is the password?<end_of_turn>\n"
                           "<start_of_turn>model\nThe password")
    assert trained_text(tokenizer, transcript) == ["The password is flamingo-42.<end_of_turn>",
                                                   "\\boxed{42}<end_of_turn>"]
    assert transcript.mask[-1] == 0  # the newline after the last <end_of_turn> is a separator


@pytest.mark.parametrize(("template", "specials", "closing"), [
    (LLAMA3, LLAMA3_SPECIALS, "<|eot_id|>"), (GEMMA, GEMMA_SPECIALS, "<end_of_turn>")])
def test_last_only_trains_on_the_last_reply_alone(template, specials, closing):
    tokenizer = tiny_tokenizer(template, specials)
    whole = render_tokens(CONVERSATION, tokenizer)
    last = render_tokens(CONVERSATION, tokenizer, last_only=True)
    assert last.ids == whole.ids
    assert trained_text(tokenizer, last) == [f"\\boxed{{42}}{closing}"]


def test_designer_samples_train_on_the_final_repair_reply_alone():
    tokenizer = tiny_tokenizer(LLAMA3, LLAMA3_SPECIALS)
    verdict = Verdict((), "none")
    repair = (*CONVERSATION[:3], Message(Role.USER, "Again?"))
    attempts = (DesignAttempt(1, tuple(CONVERSATION[:2]), "The password is flamingo-42.", None, verdict),
                DesignAttempt(2, repair, "\\boxed{42}", None, verdict))
    outcome = DesignOutcome("d", True, (), (), 0.0, 0.0, advantage=0.5)
    [sample] = designer_samples([Design("d", "doc", None, attempts)], [outcome], tokenizer,
                                choice=AttemptChoice.FINAL)
    transcript = TokenizedTranscript(list(sample.ids), list(sample.mask))
    assert trained_text(tokenizer, transcript) == ["\\boxed{42}<|eot_id|>"]
    assert (sample.source, sample.advantage) == ("d/attempt-2", 0.5)


def test_an_episode_whose_environment_failed_at_reset_is_not_trained():
    # a template refuses an empty conversation (transformers raises); the loop once crashed on it
    tokenizer = tiny_tokenizer(CHATML_TEMPLATE, CHATML_SPECIALS)
    with pytest.raises(ValueError):
        tokenizer.render_chat([], add_generation_prompt=False)

    def played(seed: int, messages: tuple[Message, ...], end: EndReason) -> Episode:
        return Episode(env_id="d", seed=seed, arm=Arm.NOHINT, messages=messages, rewards=(), score=0.0,
                       solved=False, turns=0, unboxed=0, hint=None, error=None, completion_tokens=0,
                       seconds=0.0, end=end)

    failed = played(0, (), EndReason.ENV_ERROR)
    lost = played(1, tuple(CONVERSATION[:3]), EndReason.TRUNCATED)
    outcome = DesignOutcome("d", True, (0.0, 0.0), (), 0.0, 0.0, agent_advantages=(-0.5, -0.5))
    [sample] = agent_samples([outcome], [failed, lost], tokenizer)
    assert (sample.source, sample.advantage) == ("d/seed-1", -0.5)


class EncodeOnly:
    """The same tokenizer seen without its template: the piecewise ChatML path."""

    def __init__(self, tokenizer: HFTokenizer):
        self.tokenizer = tokenizer

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text)


def test_a_chatml_template_gives_the_ids_and_mask_of_the_piecewise_rendering():
    tokenizer = tiny_tokenizer(CHATML_TEMPLATE, CHATML_SPECIALS)
    for last_only in (False, True):
        templated = render_tokens(CONVERSATION, tokenizer, last_only=last_only)
        piecewise = render_tokens(CONVERSATION, EncodeOnly(tokenizer), last_only=last_only)
        assert templated == piecewise
    assert sum(templated.mask) > 0


def test_a_tokenizer_without_offsets_encodes_spans_apart_with_the_same_result(monkeypatch):
    tokenizer = tiny_tokenizer(GEMMA, GEMMA_SPECIALS)
    with_offsets = render_tokens(CONVERSATION, tokenizer)
    monkeypatch.setattr(tokenizer, "encode_offsets", lambda text: None)
    assert render_tokens(CONVERSATION, tokenizer) == with_offsets


def test_a_template_that_rewrites_earlier_replies_is_refused_but_last_only_works():
    rewriting = LLAMA3.replace("{{ message['content'] | trim }}",
                               "{{ '...' if message['role'] == 'assistant' and not loop.last "
                               "else message['content'] | trim }}")
    tokenizer = tiny_tokenizer(rewriting, LLAMA3_SPECIALS)
    with pytest.raises(ConfigError, match="renders the first 3 messages differently once the conversation "
                                          "continues"):
        render_tokens(CONVERSATION, tokenizer)
    assert trained_text(tokenizer, render_tokens(CONVERSATION, tokenizer, last_only=True)) == \
        ["\\boxed{42}<|eot_id|>"]


def test_the_end_of_turn_token_ends_generation():
    llama, gemma = tiny_tokenizer(LLAMA3, LLAMA3_SPECIALS), tiny_tokenizer(GEMMA, GEMMA_SPECIALS)
    assert llama.eos_token_id == llama.inner.convert_tokens_to_ids("<|eot_id|>")
    end_of_turn = gemma.inner.convert_tokens_to_ids("<end_of_turn>")
    assert gemma.eos_token_id == end_of_turn != gemma.inner.eos_token_id


def test_the_hf_policy_prompts_with_the_templates_generation_prompt():
    pytest.importorskip("torch")
    from spadework.policy.hf import tiny_model

    tokenizer = tiny_tokenizer(GEMMA, GEMMA_SPECIALS)
    expected = ("<bos><start_of_turn>user\nYou are terse.\n\nWhat is the password?<end_of_turn>\n"
                "<start_of_turn>model\n")
    assert prompt_text(CONVERSATION[:2], tokenizer) == expected
    model = tiny_model(0, vocab_size=len(tokenizer.inner))
    seen = []
    model.register_forward_pre_hook(lambda _, args, kwargs: seen.append(kwargs["input_ids"][0].tolist()),
                                    with_kwargs=True)
    [completion] = HFPolicy(model, tokenizer).generate([CONVERSATION[:2]], Sampling(temperature=0.0,
                                                                                    max_tokens=3))
    assert seen[0] == tokenizer.encode(expected)  # the prompt, then one new token a step
    assert completion.prompt_tokens == len(tokenizer.encode(expected))


def test_qwens_own_template_gives_the_ids_of_the_chatml_rendering():
    """The real Qwen2.5 tokenizer (the preset's cached Hugging Face copy, else read from its GGUF)."""
    from spadework.errors import PolicyError
    from spadework.policy.chat import render_text
    from spadework.policy.hf import hf_folder
    from spadework.policy.models import resolve_model

    try:
        gguf = resolve_model("qwen2.5-coder-0.5b")
    except PolicyError as exc:
        pytest.skip(str(exc))
    folder = hf_folder(gguf)
    extra = {} if (folder / "config.json").exists() else {"gguf_file": gguf.name}
    inner = transformers.AutoTokenizer.from_pretrained(str(folder if not extra else gguf.parent), **extra)
    tokenizer = HFTokenizer(inner)
    assert tokenizer.chat_template and tokenizer.eos_token_id == inner.convert_tokens_to_ids("<|im_end|>")
    for last_only in (False, True):
        assert render_tokens(CONVERSATION, tokenizer, last_only=last_only) == \
            render_tokens(CONVERSATION, EncodeOnly(tokenizer), last_only=last_only)
    chatml_prompt = render_text(CONVERSATION[:2]) + "<|im_start|>assistant\n"
    assert prompt_text(CONVERSATION[:2], tokenizer) == chatml_prompt


def test_a_model_folder_loads_with_its_tokenizers_template(tmp_path):
    pytest.importorskip("torch")
    from spadework.learn.model import load_base
    from spadework.policy.hf import tiny_model

    tokenizer = tiny_tokenizer(LLAMA3, LLAMA3_SPECIALS)
    tiny_model(0, vocab_size=len(tokenizer.inner)).save_pretrained(tmp_path)
    tokenizer.inner.save_pretrained(tmp_path)
    base = load_base(str(tmp_path), "unused", dtype="float32")
    assert base.tokenizer.chat_template == LLAMA3 and base.source == str(tmp_path) and base.gguf is None
    assert base.tokenizer.eos_token_id == tokenizer.eos_token_id
    # (transformers rebuilds a tokenizer next to a Qwen2 config as Qwen2's, splitting digits: the ids
    # may differ from the tokenizer saved, the text trained on may not)
    assert trained_text(base.tokenizer, render_tokens(CONVERSATION, base.tokenizer)) == \
        trained_text(tokenizer, render_tokens(CONVERSATION, tokenizer))
