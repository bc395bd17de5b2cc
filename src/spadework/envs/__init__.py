"""The environment contract, the optional base class and adapters."""

from spadework.envs.base import AnswerEnv, TextEnv
from spadework.envs.contract import episode_score, is_solved
from spadework.envs.declared import DeclaredWorld
from spadework.envs.tool_calls import call
from spadework.envs.tools import ToolEnv, ToolWorld, tool

__all__ = ["AnswerEnv", "DeclaredWorld", "TextEnv", "ToolEnv", "ToolWorld", "call", "episode_score",
           "is_solved", "tool"]
