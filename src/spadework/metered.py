"""A policy wrapper that counts generated tokens and generation time (``perf/`` metrics)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from spadework.policy.base import Completion, Conversation, Policy, Sampling, ToolsPerConversation


class MeteredPolicy:
    """Forwards to ``policy``; adds up completion tokens and the seconds spent generating.

    ``on_call`` (optional) is called after every batch, e.g. to advance a progress bar.
    """

    def __init__(self, policy: Policy, on_call: Callable[[int], None] | None = None):
        self.policy = policy
        self.name = policy.name
        self.on_call = on_call
        self.tokens = 0
        self.seconds = 0.0
        self.calls = 0

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        """The wrapped policy's completions (``tools`` passed on only when given)."""
        start = time.perf_counter()
        if tools is None:
            completions = self.policy.generate(conversations, sampling)
        else:
            completions = self.policy.generate(conversations, sampling, tools)
        self.seconds += time.perf_counter() - start
        self.tokens += sum(c.completion_tokens for c in completions)
        self.calls += 1
        if self.on_call is not None:
            self.on_call(len(conversations))
        return completions

    def take(self) -> tuple[int, float]:
        """Tokens and seconds since the last ``take``."""
        counted = (self.tokens, self.seconds)
        self.tokens, self.seconds = 0, 0.0
        return counted

    def close(self) -> None:
        """Close the wrapped policy."""
        self.policy.close()
