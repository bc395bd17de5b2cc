"""Transcripts as token ids with a loss mask: the learner trains on the agent's replies only.

Each piece of the chat template is encoded on its own and the ids are joined, so the mask
lines up with the pieces exactly. The pieces split where a chat tokenizer splits anyway
(at special tokens and the newline after a role name), so the ids equal those of the whole
rendered text for ChatML tokenizers such as Qwen2.5's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from spadework.policy.base import Message, Role


class Tokenizer(Protocol):
    """Anything that turns text into token ids, adding no special tokens of its own.

    A transformers tokenizer fits through a small adapter whose ``encode`` calls
    ``tokenizer.encode(text, add_special_tokens=False)``.
    """

    def encode(self, text: str) -> list[int]: ...


@dataclass(frozen=True)
class ChatTemplate:
    """How a chat template wraps each message: ``header``, content, ``footer``, ``separator``.

    Attributes:
        name: a label for logs.
        header: opens a message; ``{role}`` is replaced by the role. Never trained on.
        footer: closes a message; trained on after an assistant's content, so the model
            learns to stop.
        separator: follows every footer. Never trained on.
    """

    name: str
    header: str
    footer: str
    separator: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "header": self.header, "footer": self.footer, "separator": self.separator}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> ChatTemplate:
        return cls(data["name"], data["header"], data["footer"], data["separator"])


CHATML = ChatTemplate(name="chatml", header="<|im_start|>{role}\n", footer="<|im_end|>", separator="\n")
"""ChatML, as used by Qwen2.5: ``<|im_start|>{role}\\n{content}<|im_end|>\\n``."""


@dataclass(frozen=True)
class TokenizedTranscript:
    """Token ids of a transcript and, for each, 1 when the learner trains on it, else 0."""

    ids: list[int]
    mask: list[int]

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.mask):
            raise ValueError(f"ids ({len(self.ids)}) and mask ({len(self.mask)}) must have one entry each")

    def to_json(self) -> dict[str, Any]:
        return {"ids": list(self.ids), "mask": list(self.mask)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokenizedTranscript:
        return cls([int(i) for i in data["ids"]], [int(m) for m in data["mask"]])


def render_pieces(
    messages: Sequence[Message], template: ChatTemplate = CHATML, *, last_only: bool = False
) -> list[tuple[str, bool]]:
    """The rendered transcript as pieces of text, each marked True when trained on.

    ``last_only`` trains on the last message alone (a designer's repair reply, whose
    conversation holds its earlier replies as context).

    >>> render_pieces([Message(Role.USER, "hi"), Message(Role.ASSISTANT, "yo")])
    [('<|im_start|>user\\n', False), ('hi', False), ('<|im_end|>', False), ('\\n', False), \
('<|im_start|>assistant\\n', False), ('yo', True), ('<|im_end|>', True), ('\\n', False)]
    """
    pieces = []
    for number, message in enumerate(messages, 1):
        trained = message.role is Role.ASSISTANT and (not last_only or number == len(messages))
        pieces += [
            (template.header.format(role=message.role.value), False),
            (message.content, trained),
            (template.footer, trained),
            (template.separator, False),
        ]
    return pieces


def render_text(messages: Sequence[Message], template: ChatTemplate = CHATML) -> str:
    """The transcript rendered as one text.

    >>> render_text([Message(Role.SYSTEM, "Be brief.")])
    '<|im_start|>system\\nBe brief.<|im_end|>\\n'
    """
    return "".join(text for text, _ in render_pieces(messages, template))


def render_tokens(
    messages: Sequence[Message], tokenizer: Tokenizer, template: ChatTemplate = CHATML, *,
    last_only: bool = False,
) -> TokenizedTranscript:
    """Token ids of the rendered transcript, with mask 1 exactly on the assistant's contents and
    their closing footer, and 0 on system and user messages, role headers and separators.

    Args:
        messages: the transcript (e.g. ``Episode.messages``).
        tokenizer: encodes one piece of text; must not add special tokens of its own.
        template: the chat template the policy was prompted with.
        last_only: train on the last message only (see ``render_pieces``).

    >>> class FakeBytes:
    ...     def encode(self, text):
    ...         return list(text.encode())
    >>> t = render_tokens([Message(Role.USER, "a"), Message(Role.ASSISTANT, "b")], FakeBytes(),
    ...                   ChatTemplate("tiny", "{role}:", "|", ";"))
    >>> print(bytes(t.ids).decode()); print("".join(map(str, t.mask)))
    user:a|;assistant:b|;
    000000000000000000110
    """
    ids: list[int] = []
    mask: list[int] = []
    for text, trained in render_pieces(messages, template, last_only=last_only):
        piece = tokenizer.encode(text) if text else []
        ids += piece
        mask += [int(trained)] * len(piece)
    return TokenizedTranscript(ids, mask)
