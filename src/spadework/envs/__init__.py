"""The environment contract, the optional base class and adapters."""

from spadework.envs.base import AnswerEnv, AnswerKind, Decimals, InOrder, OneOf, TextEnv, WholeNumber
from spadework.envs.contract import episode_score, is_solved
from spadework.envs.declared import DeclaredWorld
from spadework.envs.tool_calls import call
from spadework.envs.tools import ToolEnv, ToolWorld, tool

__all__ = ["AnswerEnv", "AnswerKind", "Decimals", "DeclaredWorld", "InOrder", "OneOf", "TextEnv", "ToolEnv",
           "ToolWorld", "WholeNumber", "call", "episode_score", "is_solved", "tool"]
