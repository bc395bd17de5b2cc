"""render_tokens: ids and loss masks that line up with the chat template exactly."""

from __future__ import annotations

import random

import pytest

from spadework.errors import ConfigError
from spadework.policy.base import Message, Role
from spadework.rollout import CHATML, ChatTemplate, TokenizedTranscript, render_tokens
from spadework.rollout.tokens import mask_from_offsets, render_text, split_at_spans

START, END = 1000, 1001


class FakeCharTokenizer:
    """FAKE tokenizer: one id per character (its code point)."""

    def encode(self, text: str) -> list[int]:
        return [ord(c) for c in text]


class FakeSpecialTokenizer:
    """FAKE tokenizer: ChatML's special tokens are one id each, everything else one id a character."""

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for part in text.replace("<|im_start|>", "\0S\0").replace("<|im_end|>", "\0E\0").split("\0"):
            ids += [START] if part == "S" else [END] if part == "E" else [ord(c) for c in part]
        return ids


def chars(text: str) -> list[int]:
    return [ord(c) for c in text]


def test_ids_and_mask_of_a_short_transcript_checked_by_hand():
    messages = [Message(Role.USER, "hi"), Message(Role.ASSISTANT, "ok")]
    transcript = render_tokens(messages, FakeSpecialTokenizer())
    assert transcript.ids == [START, *chars("user\nhi"), END, *chars("\n"),
                              START, *chars("assistant\nok"), END, *chars("\n")]
    # user header 6 + "hi" 2 + end 1 + "\n" 1 + assistant header 11: 21 zeros; "ok" + end; "\n".
    assert transcript.mask == [0] * 21 + [1, 1, 1] + [0]


def test_only_the_assistants_contents_and_closing_tokens_are_trained_on():
    messages = [Message(Role.SYSTEM, "S"), Message(Role.USER, "U"), Message(Role.ASSISTANT, "AB"),
                Message(Role.USER, "V"), Message(Role.ASSISTANT, "C")]
    transcript = render_tokens(messages, FakeCharTokenizer())
    assert transcript.ids == chars(render_text(messages))
    trained = "".join(chr(i) for i, m in zip(transcript.ids, transcript.mask, strict=True) if m)
    assert trained == "AB<|im_end|>C<|im_end|>"
    assert transcript.mask[-1] == 0


def test_mask_total_equals_the_assistant_pieces_on_random_transcripts():
    rng = random.Random(0)
    alphabet = "ab \n{}<|>\\"
    for _ in range(200):
        messages = [Message(rng.choice(list(Role)), "".join(rng.choices(alphabet, k=rng.randint(0, 12))))
                    for _ in range(rng.randint(0, 6))]
        transcript = render_tokens(messages, FakeCharTokenizer())
        assistant = sum(len(m.content) + len(CHATML.footer) for m in messages if m.role is Role.ASSISTANT)
        assert sum(transcript.mask) == assistant
        assert transcript.ids == chars(render_text(messages))


def test_another_template_changes_the_pieces():
    tiny = ChatTemplate("tiny", "[{role}]", "#", "")
    transcript = render_tokens([Message(Role.ASSISTANT, "x")], FakeCharTokenizer(), tiny)
    assert transcript.ids == chars("[assistant]x#")
    assert transcript.mask == [0] * 11 + [1, 1]
    assert ChatTemplate.from_json(tiny.to_json()) == tiny


def test_a_transcript_round_trips_and_rejects_mismatched_lengths():
    transcript = TokenizedTranscript([5, 6], [0, 1])
    assert TokenizedTranscript.from_json(transcript.to_json()) == transcript
    with pytest.raises(ValueError, match="one entry each"):
        TokenizedTranscript([1, 2], [1])


class FakeTemplatedTokenizer:
    """FAKE tokenizer with a chat template of its own (Gemma-like: ``<t>role:`` opens a turn, ``<e>``
    ends it, a newline separates turns); ids are pairs of characters, so tokens cross the spans' edges."""

    chat_template = "fake"

    def __init__(self, offsets: bool = True):
        self.offsets = offsets

    def render_chat(self, messages, *, add_generation_prompt: bool) -> str:
        text = "".join(f"<t>{m.role.value}:{m.content}<e>\n" for m in messages)
        return text + ("<t>assistant:" if add_generation_prompt else "")

    def encode(self, text: str) -> list[int]:
        return [ord(text[k]) * 1000 + ord(text[k + 1:k + 2] or " ") for k in range(0, len(text), 2)]

    def encode_offsets(self, text: str):
        if not self.offsets:
            return None
        return self.encode(text), [(k, min(k + 2, len(text))) for k in range(0, len(text), 2)]


def test_mask_from_offsets_marks_tokens_that_start_inside_a_span():
    assert mask_from_offsets([(0, 2), (2, 4), (4, 6), (6, 8)], [(3, 6)]) == [0, 0, 1, 0]
    assert mask_from_offsets([(0, 1), (1, 2), (2, 3)], [(0, 1), (2, 3)]) == [1, 0, 1]
    assert mask_from_offsets([], [(0, 4)]) == []


def test_split_at_spans_keeps_every_character_once():
    assert split_at_spans("abcdef", [(0, 2), (4, 5)]) == [("ab", True), ("cd", False), ("e", True),
                                                          ("f", False)]
    assert split_at_spans("abc", []) == [("abc", False)]


def test_a_tokenizer_with_its_own_template_is_rendered_with_it():
    messages = [Message(Role.SYSTEM, "s"), Message(Role.USER, "u"), Message(Role.ASSISTANT, "abcd"),
                Message(Role.USER, "v"), Message(Role.ASSISTANT, "xy")]
    tokenizer = FakeTemplatedTokenizer()
    text = "<t>system:s<e>\n<t>user:u<e>\n<t>assistant:abcd<e>\n<t>user:v<e>\n<t>assistant:xy<e>\n"
    transcript = render_tokens(messages, tokenizer)
    assert transcript.ids == tokenizer.encode(text)
    # the spans are text[41:48] = "abcd<e>" and text[75:80] = "xy<e>"; pairs start at even characters,
    # so ":a" (40) is a header's token, and "bc", "d<", "e>" (42, 44, 46), "y<", "e>" (76, 78) are trained
    assert [k for k, m in enumerate(transcript.mask) if m] == [21, 22, 23, 38, 39]
    assert [k for k, m in enumerate(render_tokens(messages, tokenizer, last_only=True).mask) if m] == [38, 39]
    apart = render_tokens(messages, FakeTemplatedTokenizer(offsets=False))  # spans encoded on their own
    pieces = ["<t>system:s<e>\n<t>user:u<e>\n<t>assistant:", "abcd<e>", "\n<t>user:v<e>\n<t>assistant:",
              "xy<e>", "\n"]
    assert apart.ids == [i for piece in pieces for i in tokenizer.encode(piece)]
    assert apart.mask == [m for n, piece in enumerate(pieces) for m in [n % 2] * len(tokenizer.encode(piece))]


def test_a_template_that_cannot_show_the_replies_is_an_error_not_a_wrong_mask():
    with pytest.raises(ConfigError, match="starts with an assistant message"):
        render_tokens([Message(Role.ASSISTANT, "x")], FakeTemplatedTokenizer())
