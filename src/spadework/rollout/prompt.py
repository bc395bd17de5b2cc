"""The agent's prompt: a system text that fits the environment's form (text files shipped with the
package), and the first message, which carries the hint in the hinted arm."""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from importlib import resources

from spadework.envs.contract import is_answer_puzzle
from spadework.policy.base import Message, Role


class AgentForm(StrEnum):
    """What kind of environment the agent plays, which decides its instructions.

    ``answer``: a puzzle with one answer (read, reason briefly, box the answer);
    ``game``: one move per turn over several turns.
    """

    ANSWER = "answer"
    GAME = "game"


class HintStyle(StrEnum):
    """How the hinted arm shows the hint under the first observation.

    ``line``: a plain ``Hint:`` line; ``advice``: framed as a tip that may help, with a reminder
    to still answer in the box (a small model given a bare hint often answers in prose).
    """

    LINE = "line"
    ADVICE = "advice"


@cache
def agent_system_prompt(form: AgentForm = AgentForm.GAME) -> str:
    """The agent's system prompt for ``form``, read once from ``prompts/agent_<form>.txt``."""
    path = f"prompts/agent_{form.value}.txt"
    return resources.files("spadework.rollout").joinpath(path).read_text("utf-8").strip()


def form_of_source(source: str) -> AgentForm:
    """The form of an environment from its source: an ``AnswerEnv`` subclass is an answer puzzle,
    anything else (or source that does not parse) a game.

    >>> form_of_source("from spadework.envs import AnswerEnv\\nclass SumEnv(AnswerEnv):\\n    pass\\n")
    <AgentForm.ANSWER: 'answer'>
    >>> form_of_source("class MazeEnv:\\n    pass\\n"), form_of_source("reasoning-gym/gcd")
    (<AgentForm.GAME: 'game'>, <AgentForm.GAME: 'game'>)
    """
    return AgentForm.ANSWER if is_answer_puzzle(source) else AgentForm.GAME


def first_user_message(observation: str, hint: str | None, style: HintStyle = HintStyle.LINE) -> str:
    r"""The first user message: the first observation, then the hint in the hinted arm.

    Args:
        observation: what ``reset`` returned.
        hint: the environment's hint, or None in the arm without it.
        style: how the hint is shown.

    >>> first_user_message("You are in a maze.", None)
    'You are in a maze.'
    >>> print(first_user_message("You are in a maze.", "Keep to the left wall."))
    You are in a maze.
    Hint: Keep to the left wall.
    >>> print(first_user_message("What is 3 + 9?", "Count on from 9.", HintStyle.ADVICE))
    What is 3 + 9?
    <BLANKLINE>
    A tip that may help: Count on from 9.
    Use it if it helps, and still write your reply as asked, ending with \boxed{}.
    """
    if hint is None:
        return observation
    if style is HintStyle.ADVICE:
        return (f"{observation}\n\nA tip that may help: {hint}\n"
                "Use it if it helps, and still write your reply as asked, ending with \\boxed{}.")
    return f"{observation}\nHint: {hint}"


def opening_messages(observation: str, hint: str | None, form: AgentForm = AgentForm.GAME,
                     style: HintStyle = HintStyle.LINE) -> list[Message]:
    """The conversation an episode starts from: the form's system prompt and the first observation."""
    return [
        Message(Role.SYSTEM, agent_system_prompt(form)),
        Message(Role.USER, first_user_message(observation, hint, style)),
    ]
