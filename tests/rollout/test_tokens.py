"""render_tokens: ids and loss masks that line up with the chat template exactly."""

from __future__ import annotations

import random

import pytest

from spadework.policy.base import Message, Role
from spadework.rollout import CHATML, ChatTemplate, TokenizedTranscript, render_tokens
from spadework.rollout.tokens import render_text

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
