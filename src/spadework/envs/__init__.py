"""The environment contract, the optional base class and adapters."""

from spadework.envs.base import TextEnv
from spadework.envs.contract import episode_score, is_solved

__all__ = ["TextEnv", "episode_score", "is_solved"]
