"""Fakes for the rollout tests: a scripted policy, a counting sandbox, and small environments."""

from __future__ import annotations

import textwrap
import threading
from collections.abc import Callable, Sequence

from spadework.policy.base import Completion, Conversation, Role, Sampling, ToolsPerConversation


class ScriptedFakePolicy:
    """FAKE policy: ``script(conversation)`` gives each reply; every call's batch and tools are recorded."""

    name = "scripted-fake"

    def __init__(self, script: Callable[[Conversation], str]):
        self.script = script
        self.batch_sizes: list[int] = []
        self.tools: list[ToolsPerConversation | None] = []
        self.closed = False

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        self.batch_sizes.append(len(conversations))
        self.tools.append(tools)
        return [Completion(text, completion_tokens=len(text)) for text in map(self.script, conversations)]

    def close(self) -> None:
        self.closed = True


def replies(conversation: Conversation) -> int:
    """How many replies the agent already wrote in ``conversation``."""
    return sum(message.role is Role.ASSISTANT for message in conversation)


class CountingFakeSandbox:
    """FAKE sandbox wrapper: counts environments opened and closed by the wrapped sandbox."""

    def __init__(self, inner):
        self.inner = inner
        self.opened = 0
        self.closed = 0
        self._lock = threading.Lock()

    def open(self, source: str):
        env = self.inner.open(source)
        with self._lock:
            self.opened += 1
        return _CountingEnv(env, self)


class _CountingEnv:
    def __init__(self, env, owner: CountingFakeSandbox):
        self.env, self.owner = env, owner
        self.max_turns = env.max_turns

    def reset(self, seed=None):
        return self.env.reset(seed=seed)

    def step(self, action):
        return self.env.step(action)

    def hint(self):
        return self.env.hint()

    def close(self):
        with self.owner._lock:
            self.owner.closed += 1
        self.env.close()


def counter_env(
    solve_at: int = 0,
    max_turns: int = 20,
    truncate_at: int = 0,
    pad: int = 0,
    fail_at: int = 0,
    step_body: str = "",
) -> str:
    """Source of a small fake environment, ``CounterEnv``.

    It is solved (reward 1) at step ``solve_at`` and truncates at step ``truncate_at`` (0: never);
    every other step earns 0.5 when ``fail_at`` is set, else 0. Step ``fail_at`` raises. Observations
    echo the action and carry ``pad`` extra characters. ``step_body`` replaces the whole step.
    """
    step = step_body or f"""
        self.turn += 1
        if self.turn == {fail_at}:
            raise RuntimeError("boom at turn " + str(self.turn))
        done = self.turn == {solve_at}
        reward = 1.0 if done else (0.5 if {fail_at} else 0.0)
        obs = "turn " + str(self.turn) + " you said " + action + "{'.' * pad}"
        return obs, reward, done, self.turn == {truncate_at}, {{}}
    """
    body = textwrap.indent(textwrap.dedent(step).strip(), " " * 8)
    return (
        "class CounterEnv:\n"
        f"    max_turns = {max_turns}\n\n"
        "    def reset(self, seed=None):\n"
        "        self.turn = 0\n"
        f"        return 'solve at {solve_at}, seed ' + str(seed), {{}}\n\n"
        f"    def step(self, action):\n{body}\n\n"
        "    def solution(self):\n"
        f"        return ['x'] * {solve_at}\n\n"
        "    def hint(self):\n"
        f"        return 'hint for {solve_at}'\n"
    )
