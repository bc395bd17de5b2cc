"""The agent's prompt: a system text that fits the environment's form (text files shipped with the
package), and the first message, which carries the hint in the hinted arm."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any

from spadework.envs.contract import is_answer_puzzle, is_tool_world
from spadework.envs.tool_schema import signature_lines
from spadework.kinds import HintStyle as HintStyle
from spadework.kinds import ToolPrompt as ToolPrompt
from spadework.policy.base import Message, Role


class AgentForm(StrEnum):
    """What kind of environment the agent plays, which decides its instructions.

    ``answer``: a puzzle with one answer (read, reason briefly, box the answer);
    ``game``: one move per turn over several turns;
    ``tool``: a tool world (call its tools, read the results and errors, call again; box the
    answer when the task asks a question). Its tools reach the policy with the conversation and
    the world's replies are ``Role.TOOL`` messages;
    ``code``: a function to write (the whole reply is played: the task finds the code in it).
    """

    ANSWER = "answer"
    GAME = "game"
    TOOL = "tool"
    CODE = "code"


@cache
def agent_system_prompt(form: AgentForm = AgentForm.GAME, tools: ToolPrompt = ToolPrompt.NATIVE) -> str:
    """The agent's system prompt for ``form``, read once from ``prompts/agent_<form>.txt`` (a tool
    world's from ``agent_tool_<tools>.txt`` unless ``tools`` is ``mixed``)."""
    return _prompt(_prompt_name(form, tools))


@cache
def reply_instruction(form: AgentForm = AgentForm.GAME, tools: ToolPrompt = ToolPrompt.NATIVE) -> str:
    """How to reply, closing the first message (``prompts/agent_<form>_reply.txt``): a small model
    follows an instruction at the end of the message it answers far better than one in the system
    prompt (measured: the 1.5B answered puzzles in a few unboxed words with the system prompt alone)."""
    return _prompt(f"{_prompt_name(form, tools)}_reply")


def _prompt_name(form: AgentForm, tools: ToolPrompt) -> str:
    if form is AgentForm.TOOL and tools is not ToolPrompt.MIXED:
        return f"agent_tool_{tools.value}"
    return f"agent_{form.value}"


def _prompt(name: str) -> str:
    return resources.files("spadework.rollout").joinpath(f"prompts/{name}.txt").read_text("utf-8").strip()


def form_of_source(source: str) -> AgentForm:
    """The form of an environment from its source: a ``ToolEnv`` or ``ToolWorld`` subclass is a tool
    world, an ``AnswerEnv`` subclass an answer puzzle, anything else (or source that does not
    parse) a game.

    >>> form_of_source("from spadework.envs import AnswerEnv\\nclass SumEnv(AnswerEnv):\\n    pass\\n")
    <AgentForm.ANSWER: 'answer'>
    >>> form_of_source("from spadework.envs import ToolWorld\\nclass ShopEnv(ToolWorld):\\n    pass\\n")
    <AgentForm.TOOL: 'tool'>
    >>> form_of_source("class MazeEnv:\\n    pass\\n"), form_of_source("reasoning-gym/gcd")
    (<AgentForm.GAME: 'game'>, <AgentForm.GAME: 'game'>)
    """
    if is_tool_world(source):
        return AgentForm.TOOL
    return AgentForm.ANSWER if is_answer_puzzle(source) else AgentForm.GAME


def first_user_message(observation: str, hint: str | None, form: AgentForm = AgentForm.GAME,
                       style: HintStyle = HintStyle.LINE, tools: ToolPrompt = ToolPrompt.NATIVE,
                       listed: Sequence[Any] = ()) -> str:
    r"""The first user message: the first observation, the tools when they are listed here
    (``compact``), the hint in the hinted arm, then how to reply.

    Args:
        observation: what ``reset`` returned.
        hint: the environment's hint, or None in the arm without it.
        form: the environment's form (its reply instruction).
        style: how the hint is shown.
        tools: how a tool world's tools are shown.
        listed: a tool world's tool schemas, listed one a line under the task under ``compact``.

    >>> print(first_user_message("You are in a maze.", None))
    You are in a maze.
    <BLANKLINE>
    Say in a sentence what you have learned so far, then write your one move inside \boxed{}.
    >>> print(first_user_message("What is 3 + 9?", "Count on from 9.", AgentForm.ANSWER))
    What is 3 + 9?
    Hint: Count on from 9.
    <BLANKLINE>
    Work it out step by step in a few short lines, then write only the final answer inside \boxed{}.
    >>> print(first_user_message("What is 3 + 9?", "Count on from 9.", AgentForm.ANSWER, HintStyle.ADVICE))
    What is 3 + 9?
    <BLANKLINE>
    A tip that may help: Count on from 9.
    <BLANKLINE>
    Work it out step by step in a few short lines, then write only the final answer inside \boxed{}.
    >>> look = {"type": "function", "function": {"name": "look", "description": "Look around.",
    ...         "parameters": {"properties": {"room": {"type": "string"}}}}}
    >>> print(first_user_message("Find the key.", None, AgentForm.TOOL, tools=ToolPrompt.COMPACT,
    ...                          listed=[look]))  # doctest: +ELLIPSIS
    Find the key.
    <BLANKLINE>
    Tools:
    look(room: string) - Look around.
    <BLANKLINE>
    Reply with the first call only, on one line.
    """
    shown = observation
    if form is AgentForm.TOOL and tools is ToolPrompt.COMPACT and listed:
        shown += "\n\nTools:\n" + "\n".join(signature_lines(list(listed)))
    if hint is not None:
        shown += f"\n\nA tip that may help: {hint}" if style is HintStyle.ADVICE else f"\nHint: {hint}"
    return f"{shown}\n\n{reply_instruction(form, tools)}"


def opening_messages(observation: str, hint: str | None, form: AgentForm = AgentForm.GAME,
                     style: HintStyle = HintStyle.LINE, tools: ToolPrompt = ToolPrompt.NATIVE,
                     listed: Sequence[Any] = ()) -> list[Message]:
    """The conversation an episode starts from: the form's system prompt and the first observation."""
    return [
        Message(Role.SYSTEM, agent_system_prompt(form, tools)),
        Message(Role.USER, first_user_message(observation, hint, form, style, tools, listed)),
    ]
