"""The one protocol every inference backend speaks, and its records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol


class Role(StrEnum):
    """Who speaks in a conversation.

    ``TOOL``: a tool world's answer to the assistant's tool calls (the results, one line a call).
    """

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: Role
    content: str

    def to_json(self) -> dict[str, str]:
        """The message as JSON: its role and content."""
        return {"role": self.role.value, "content": self.content}

    @classmethod
    def from_json(cls, data: dict[str, str]) -> Message:
        """The message written by ``to_json``."""
        return cls(Role(data["role"]), data["content"])


Conversation = Sequence[Message]

ToolSchema = dict[str, Any]
"""One tool as an OpenAI function schema: ``{"type": "function", "function": {"name", "description",
"parameters"}}``."""

Tools = Sequence[ToolSchema]
"""The tools a conversation may call."""

ToolsPerConversation = Sequence[Tools | None]
"""``generate``'s ``tools``: one entry per conversation, None where it has no tools."""


def tools_per_conversation(tools: ToolsPerConversation | None, count: int) -> list[Tools | None]:
    """``generate``'s ``tools`` argument as one entry per conversation (None: that one has no tools).

    >>> tools_per_conversation(None, 2), tools_per_conversation([None, [{"type": "function"}]], 2)
    ([None, None], [None, [{'type': 'function'}]])

    Raises:
        ValueError: ``tools`` is not parallel to the conversations.
    """
    if tools is None:
        return [None] * count
    if len(tools) != count:
        raise ValueError(f"tools has {len(tools)} entries for {count} conversations; give one list of "
                         "tool schemas (or None) per conversation")
    return [list(entry) if entry else None for entry in tools]


@dataclass(frozen=True)
class Sampling:
    """Sampling settings for one call (one set per role in the config).

    Attributes:
        temperature: 0 means greedy.
        top_p: nucleus sampling mass.
        max_tokens: most new tokens per completion.
        seed: makes sampling repeatable where the backend supports it; in a batch, the
            i-th conversation uses ``seed + i`` (see ``for_item``), so equal prompts differ.
        stop: strings that end a completion.
    """

    temperature: float = 0.7
    top_p: float = 0.95
    max_tokens: int = 512
    seed: int | None = None
    stop: tuple[str, ...] = field(default_factory=tuple)

    def for_item(self, index: int) -> Sampling:
        """The settings for the ``index``-th conversation of a batch.

        >>> Sampling(seed=10).for_item(2).seed, Sampling().for_item(2).seed
        (12, None)
        """
        return self if self.seed is None else replace(self, seed=self.seed + index)


CONTEXT_OVERFLOW = "context"
"""A completion's ``finish_reason`` when its conversation alone does not fit the model's context
(it was not run, its text is empty); the other conversations of the batch complete."""


@dataclass(frozen=True)
class Completion:
    """One generated reply, with what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    finish_reason: str = "stop"
    cached_tokens: int = 0
    """Prompt tokens the engine took from its cache instead of computing them (0: none, or not said)."""


class Policy(Protocol):
    """An inference backend. ``generate`` returns one completion per conversation, in order.

    ``tools`` is None or parallel to ``conversations``: each entry None or the tool schemas that
    conversation may call. A backend renders them the way its model expects (the chat template's
    tool support, the server's ``tools`` field, else the schemas in the system message), and a
    tool call the server returns natively comes back as ``<tool_call>{...}</tool_call>`` text
    in the completion (``policy.toolcalls``).

    Backends may run the conversations concurrently. A failure of the backend itself (server
    down, model missing) raises ``PolicyError`` with a message saying what to fix.
    """

    name: str

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        """One completion per conversation, in order."""
        ...

    def close(self) -> None:
        """Release the backend's resources."""
        ...
