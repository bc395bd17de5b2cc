"""The environment contract, the optional base class and adapters."""

from spadework.envs.base import AnswerEnv, TextEnv
from spadework.envs.contract import episode_score, is_solved

__all__ = ["AnswerEnv", "TextEnv", "episode_score", "is_solved"]
