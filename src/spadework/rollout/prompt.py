"""The agent's prompt: the system text (a file shipped with the package) and the first message."""

from __future__ import annotations

from functools import cache
from importlib import resources

from spadework.policy.base import Message, Role

SYSTEM_PROMPT_FILE = "prompts/agent_system.txt"


@cache
def agent_system_prompt() -> str:
    """The agent's system prompt, read once from ``prompts/agent_system.txt``."""
    return resources.files("spadework.rollout").joinpath(SYSTEM_PROMPT_FILE).read_text("utf-8").strip()


def first_user_message(observation: str, hint: str | None) -> str:
    """The first user message: the first observation, then a ``Hint:`` line in the hinted arm.

    Args:
        observation: what ``reset`` returned.
        hint: the environment's hint, or None in the arm without it.

    >>> first_user_message("You are in a maze.", None)
    'You are in a maze.'
    >>> print(first_user_message("You are in a maze.", "Keep to the left wall."))
    You are in a maze.
    Hint: Keep to the left wall.
    """
    if hint is None:
        return observation
    return f"{observation}\nHint: {hint}"


def opening_messages(observation: str, hint: str | None) -> list[Message]:
    """The conversation an episode starts from: the system prompt and the first observation."""
    return [
        Message(Role.SYSTEM, agent_system_prompt()),
        Message(Role.USER, first_user_message(observation, hint)),
    ]
