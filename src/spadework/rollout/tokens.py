"""Transcripts as token ids with a loss mask: the learner trains on the agent's replies only.

A tokenizer with a chat template of its own (``policy.hf.HFTokenizer``) renders the transcript
with that template; each trained assistant reply is the span of characters the template adds
for it (``policy.chat.assistant_spans``: the reply and the end-of-turn marker, no role header,
no separator). The whole text is tokenized once, and a token is trained on when its first
character lies in a span (a slow tokenizer, without offsets, encodes spans and the text between
them separately).

A tokenizer without a template (the tiny model's byte tokenizer, fakes in tests) gets ChatML,
piece by piece: each piece is encoded on its own and the ids are joined, so the mask lines up
with the pieces exactly. The pieces split where a ChatML tokenizer splits anyway (at special
tokens and the newline after a role name), so both ways give Qwen2.5's tokenizer the same ids.

A tool world's transcript holds ``Role.TOOL`` messages (the tools' results), rendered as the
template renders them and never trained on; its tools are rendered as the policy saw them
(``tools``: in the template's own way, or in the system message).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from spadework.policy.base import Message, Tools
from spadework.policy.chat import (
    CHATML,
    ChatTemplate,
    Tokenizer,
    assistant_spans,
    own_template,
    render_pieces,
    render_text,
    renderer,
)

__all__ = ["CHATML", "ChatTemplate", "TokenizedTranscript", "Tokenizer", "mask_from_offsets", "render_pieces",
           "render_text", "render_tokens", "split_at_spans"]


@dataclass(frozen=True)
class TokenizedTranscript:
    """Token ids of a transcript and, for each, 1 when the learner trains on it, else 0."""

    ids: list[int]
    mask: list[int]

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.mask):
            raise ValueError(f"ids ({len(self.ids)}) and mask ({len(self.mask)}) must have one entry each")

    def to_json(self) -> dict[str, Any]:
        """The transcript as JSON (``from_json`` reads it back)."""
        return {"ids": list(self.ids), "mask": list(self.mask)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokenizedTranscript:
        """The transcript written by ``to_json``."""
        return cls([int(i) for i in data["ids"]], [int(m) for m in data["mask"]])


def mask_from_offsets(offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]) -> list[int]:
    """1 for each token whose first character lies inside one of ``spans`` (``(start, end)``), else 0.

    >>> mask_from_offsets([(0, 2), (2, 3), (3, 5), (5, 6)], [(2, 5)])
    [0, 1, 1, 0]
    """
    return [int(any(low <= start < high for low, high in spans)) for start, _ in offsets]


def split_at_spans(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[str, bool]]:
    """``text`` cut at the edges of ``spans`` (in order, not overlapping), each piece marked True
    when it is a span.

    >>> split_at_spans("abcde", [(1, 3)])
    [('a', False), ('bc', True), ('de', False)]
    """
    pieces, done = [], 0
    for start, end in spans:
        pieces += [(text[done:start], False), (text[start:end], True)]
        done = end
    pieces.append((text[done:], False))
    return [(piece, trained) for piece, trained in pieces if piece]


def _encode_pieces(pieces: Sequence[tuple[str, bool]], tokenizer: Tokenizer) -> TokenizedTranscript:
    ids: list[int] = []
    mask: list[int] = []
    for text, trained in pieces:
        piece = tokenizer.encode(text) if text else []
        ids += piece
        mask += [int(trained)] * len(piece)
    return TokenizedTranscript(ids, mask)


def render_tokens(
    messages: Sequence[Message], tokenizer: Tokenizer, template: ChatTemplate = CHATML, *,
    last_only: bool = False, tools: Tools | None = None,
) -> TokenizedTranscript:
    """Token ids of the rendered transcript, with mask 1 exactly on the assistant's replies and
    the end-of-turn marker closing each, and 0 on system, user and tool messages, role headers
    and separators.

    Args:
        messages: the transcript (e.g. ``Episode.messages``).
        tokenizer: must not add special tokens of its own; when it has a chat template
            (``policy.chat.TemplatedTokenizer``), the transcript is rendered with it.
        template: for a tokenizer without a chat template only: the template the policy was
            prompted with.
        last_only: train on the last message only (a designer's repair reply, whose
            conversation holds its earlier replies as context).
        tools: the tool schemas the conversation was prompted with (``Episode.tools``).

    Raises:
        ConfigError: the tokenizer's chat template cannot show where the replies are (see
            ``policy.chat.assistant_spans``).

    >>> from spadework.policy.base import Role
    >>> class FakeBytes:
    ...     def encode(self, text):
    ...         return list(text.encode())
    >>> t = render_tokens([Message(Role.USER, "a"), Message(Role.ASSISTANT, "b")], FakeBytes(),
    ...                   ChatTemplate("tiny", "{role}:", "|", ";"))
    >>> print(bytes(t.ids).decode()); print("".join(map(str, t.mask)))
    user:a|;assistant:b|;
    000000000000000000110
    """
    templated = own_template(tokenizer)
    if templated is None:
        return _encode_pieces(render_pieces(messages, template, last_only=last_only, tools=tools), tokenizer)
    text, spans = assistant_spans(messages, renderer(templated, tools), last_only=last_only)
    encoded = templated.encode_offsets(text)
    if encoded is None:
        return _encode_pieces(split_at_spans(text, spans), templated)
    ids, offsets = encoded
    return TokenizedTranscript(ids, mask_from_offsets(offsets, spans))
