"""Inference backends behind one protocol: embedded llama.cpp, OpenAI-compatible HTTP, a scripted fake.

Build one from settings with ``build_policy``; every backend has ``name``,
``generate(conversations, sampling, tools=None) -> list[Completion]`` (in order) and ``close()``.
The names below are loaded on first use, so importing ``policy.settings`` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spadework.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "spadework.policy.base": ("Completion", "Conversation", "Message", "Policy", "Role", "Sampling", "Tools",
                              "ToolSchema", "ToolsPerConversation"),
    "spadework.policy.settings": ("PolicyKind", "PolicySettings", "build_policy"),
})

if TYPE_CHECKING:
    from spadework.policy.base import (
        Completion,
        Conversation,
        Message,
        Policy,
        Role,
        Sampling,
        Tools,
        ToolSchema,
        ToolsPerConversation,
    )
    from spadework.policy.settings import PolicyKind, PolicySettings, build_policy

__all__ = ["Completion", "Conversation", "Message", "Policy", "PolicyKind", "PolicySettings", "Role",
           "Sampling", "ToolSchema", "Tools", "ToolsPerConversation", "build_policy"]
