r"""Demonstrations: a tool world's own ``solution()`` played through the agent's prompt, one action a
turn, written the way the agent is asked to call (``ToolPrompt``).

Every valid tool world carries the calls that solve it, so a demonstration costs no model: the
``Demonstrator`` replies with them, the world answers as it answers the agent, and the episode's
transcript is exactly what the agent would have seen had it made those calls. The learner's warm
start trains on the solved ones (``learn.samples.demonstration_samples``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from spadework.envs.tool_calls import ToolCall, ToolCallError, parse_calls
from spadework.errors import EnvError, EnvProtocolError
from spadework.kinds import ToolPrompt
from spadework.policy.base import Completion, Conversation, Role, Sampling, ToolsPerConversation
from spadework.rollout.play import EnvOpener, run_plays
from spadework.rollout.prompt import AgentForm, form_of_source
from spadework.rollout.records import Arm, Episode, PlayJob, RolloutConfig


def call_text(call: ToolCall, way: ToolPrompt) -> str:
    """One call as the agent is asked to write it: the template's JSON object (``native``,
    ``mixed``), Python on one line (``compact``, or a call with positional arguments, which JSON
    cannot name).

    The JSON goes without the template's ``<tool_call>`` tags: they are special tokens, which the
    embedded models do not write themselves (their replies are the bare object, which the world
    reads as a call) and whose embeddings are nearly alike, so a demonstration that teaches one
    teaches whichever special token the engine's numerics then pick (measured: the 0.5B trained
    on tagged demonstrations opened its calls with ``<|im_start|>`` and stray tokens in llama.cpp).

    >>> call_text(ToolCall("find", {"collection": "books", "value": "Dune"}), ToolPrompt.NATIVE)
    '{"name": "find", "arguments": {"collection": "books", "value": "Dune"}}'
    >>> call_text(ToolCall("get", {"collection": "books", "id": 2}), ToolPrompt.COMPACT)
    "get(collection='books', id=2)"
    """
    if way is ToolPrompt.COMPACT or call.positional:
        return str(call)
    return json.dumps({"name": call.name, "arguments": call.arguments})


def demo_reply(action: str, way: ToolPrompt) -> str:
    r"""A solution's action as the agent's reply: its calls one a line, or the answer boxed when it
    is no call (a task that asks a question ends with its answer).

    >>> demo_reply("update(collection='books', id=4, field='title', value='Dune')", ToolPrompt.COMPACT)
    "update(collection='books', id=4, field='title', value='Dune')"
    >>> demo_reply("42", ToolPrompt.NATIVE)
    '\\boxed{42}'
    """
    try:
        calls = parse_calls(action)
    except ToolCallError:
        calls = []
    if not calls:
        return f"\\boxed{{{action}}}"
    return "\n".join(call_text(c, way) for c in calls)


class Demonstrator:
    """A policy that is no model: each turn it replies with the next action of one episode's
    solution (``demo_reply``), and with nothing once they are spent.

    Args:
        actions: the solution's actions, in order.
        way: how the agent is asked to call.
    """

    name = "demonstrator"

    def __init__(self, actions: Sequence[str], way: ToolPrompt):
        self.actions = list(actions)
        self.way = way

    def reply(self, conversation: Conversation) -> str:
        """The action of the turn the conversation is at (its replies so far), as a reply.

        >>> from spadework.policy.base import Message
        >>> d = Demonstrator(["find(collection='a', field='n', value='x')", "7"], ToolPrompt.COMPACT)
        >>> d.reply([Message(Role.USER, "task"), Message(Role.ASSISTANT, "..."), Message(Role.TOOL, "...")])
        '\\\\boxed{7}'
        """
        turn = sum(m.role is Role.ASSISTANT for m in conversation)
        return demo_reply(self.actions[turn], self.way) if turn < len(self.actions) else ""

    def generate(self, conversations: Sequence[Conversation], sampling: Sampling,
                 tools: ToolsPerConversation | None = None) -> list[Completion]:
        """One reply per conversation, in order (sampling and tools change nothing)."""
        return [Completion(self.reply(c)) for c in conversations]

    def close(self) -> None:
        """Nothing to release."""


def solution_of(sandbox: EnvOpener, job: PlayJob) -> list[str]:
    """The actions of the job's world's ``solution()`` on the job's seed.

    Raises:
        EnvError: the world failed to reset or to give its solution, or gave no list of actions.
    """
    handle = sandbox.open(job.source)
    try:
        handle.reset(job.seed)
        actions = handle.solution()
    finally:
        handle.close()
    if not isinstance(actions, (list, tuple)) or not all(isinstance(a, str) for a in actions):
        kind = type(actions).__name__
        raise EnvProtocolError(f"{job.env_id}: solution() gave {kind}, not a list of action texts")
    return list(actions)


def demonstrations(sandbox: EnvOpener, worlds: Sequence[tuple[str, str]], seeds: Sequence[int],
                   config: RolloutConfig) -> list[Episode]:
    """Every tool world of ``worlds`` (``(env_id, source)``; other forms are left out) played on each
    seed by its own solution, without the hint, under ``config`` (the turn cap and the way to call
    included). Episodes that did not end solved are returned too (the caller keeps the solved); a
    world whose solution cannot be read is left out.
    """
    jobs = [PlayJob(env_id, source, seed, Arm.NOHINT) for env_id, source in worlds
            if form_of_source(source) is AgentForm.TOOL for seed in seeds]
    episodes = []
    for job in jobs:
        try:
            actions = solution_of(sandbox, job)
        except EnvError:
            continue
        episodes.extend(run_plays(Demonstrator(actions, config.tool_prompt), sandbox, [job], config))
    return episodes
