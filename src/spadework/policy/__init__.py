"""Inference backends behind one protocol: embedded llama.cpp, OpenAI-compatible HTTP, a scripted fake.

Build one from settings with ``build_policy``; every backend has ``name``,
``generate(conversations, sampling, tools=None) -> list[Completion]`` (in order) and ``close()``.
"""

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
