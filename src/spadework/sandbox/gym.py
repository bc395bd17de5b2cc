"""A Gymnasium view of a sandboxed environment, for tools that speak ``gymnasium.Env``."""

from __future__ import annotations

import string
from typing import Any

import gymnasium
from gymnasium.spaces import Text

from spadework.envs.contract import MAX_ACTION_CHARS, MAX_OBSERVATION_CHARS
from spadework.sandbox.config import SandboxConfig
from spadework.sandbox.env import EnvHandle
from spadework.sandbox.pool import Sandbox

CHARSET = frozenset(string.printable)


def fit(text: Any, max_length: int) -> str:
    """Text inside the space: printable ASCII (others become '?'), cut to ``max_length``.

    >>> fit("café\\n", 10)
    'caf?\\n'
    >>> fit("", 3)
    ' '
    """
    cleaned = "".join(c if c in CHARSET else "?" for c in str(text)[:max_length])
    return cleaned or " "


class GymEnv(gymnasium.Env):
    """``gymnasium.Env`` with ``Text`` observation and action spaces, over a sandboxed env.

    The environment code still runs in its own worker; this object only forwards
    calls. Errors of the environment surface as ``EnvError``.

    Args:
        source: the environment module's source.
        sandbox: where to run it; by default a sandbox of its own, closed with this env.
    """

    metadata = {"render_modes": []}

    def __init__(self, source: str, sandbox: Sandbox | None = None):
        self._own_sandbox = sandbox is None
        self._sandbox = sandbox or Sandbox(SandboxConfig(pool_size=0))
        self._env: EnvHandle | None = self._sandbox.open(source)
        self.observation_space = Text(MAX_OBSERVATION_CHARS, min_length=1, charset=CHARSET)
        self.action_space = Text(MAX_ACTION_CHARS, min_length=0, charset=CHARSET)

    @property
    def handle(self) -> EnvHandle:
        """The open environment; raises ``ClosedEnvironmentError`` once closed."""
        if self._env is None:
            raise gymnasium.error.ClosedEnvironmentError("this environment is closed")
        return self._env

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode on a seed drawn from ``seed``; returns ``(observation, info)``."""
        super().reset(seed=seed)
        episode_seed = int(self.np_random.integers(2**31))
        observation, info = self.handle.reset(episode_seed)
        return fit(observation, MAX_OBSERVATION_CHARS), dict(info)

    def step(self, action: str):
        """Play one action: ``(observation, reward, terminated, truncated, info)``."""
        observation, reward, terminated, truncated, info = self.handle.step(str(action))
        return (fit(observation, MAX_OBSERVATION_CHARS), float(reward), bool(terminated),
                bool(truncated), dict(info))

    def close(self) -> None:
        """Close the environment, and the sandbox when it made its own."""
        if self._env is not None:
            self._env.close()
            self._env = None
        if self._own_sandbox:
            self._sandbox.close()
