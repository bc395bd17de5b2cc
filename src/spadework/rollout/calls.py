r"""What an agent's reply in a tool world holds: a call of a listed tool with arguments it takes, a
call the world will refuse, something written as a call that cannot be read, a boxed answer, or
prose. Pure functions of the reply and the tool schemas the agent was shown; the rollout counts
them per episode (``Episode.calls``, ``Episode.valid_calls``) and the metrics
``rollout/call_rate`` and ``rollout/valid_call_rate`` read them.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from spadework.envs.tool_calls import ToolCall, ToolCallError, parse_calls
from spadework.rollout.boxed import extract_command
from spadework.rollout.records import Arm, Episode


class ReplyShape(StrEnum):
    """The shape of one reply in a tool world.

    ``valid_call``: one or more calls, each of a listed tool, with every required argument and no
    argument the tool does not take; ``invalid_call``: calls that read, one of them of a tool not
    listed or with missing or unknown arguments; ``unreadable``: written as a call that cannot be
    read (the world answers with how to write it); ``answer``: a boxed answer and no call;
    ``prose``: neither.
    """

    VALID_CALL = "valid_call"
    INVALID_CALL = "invalid_call"
    UNREADABLE = "unreadable"
    ANSWER = "answer"
    PROSE = "prose"

    @property
    def calls(self) -> bool:
        """Whether the reply held a call that reads (valid or not)."""
        return self in (ReplyShape.VALID_CALL, ReplyShape.INVALID_CALL)


def call_problem(call: ToolCall, tools: Sequence[dict[str, Any]]) -> str | None:
    """Why the world would refuse ``call`` by its shape alone (its values are the world's to judge),
    or None: a tool not listed, a required argument missing, an argument the tool does not take.

    >>> lend = {"type": "function", "function": {"name": "lend", "parameters": {"type": "object",
    ...         "properties": {"book_id": {"type": "integer"}, "member_id": {"type": "integer"}},
    ...         "required": ["book_id", "member_id"]}}}
    >>> call_problem(ToolCall("lend", {"book_id": 1, "member_id": 2}), [lend])
    >>> call_problem(ToolCall("lend", {}, (1, 2)), [lend])
    >>> call_problem(ToolCall("borrow", {"book_id": 1}), [lend])
    'no tool borrow'
    >>> call_problem(ToolCall("lend", {"book_id": 1}), [lend])
    'lend() lacks member_id'
    >>> call_problem(ToolCall("lend", {"book_id": 1, "member_id": 2, "days": 3}), [lend])
    'lend() takes no days'
    """
    schema = next((tool.get("function") or {} for tool in tools
                   if (tool.get("function") or {}).get("name") == call.name), None)
    if schema is None:
        return f"no tool {call.name}"
    parameters = schema.get("parameters") or {}
    names = list((parameters.get("properties") or {}).keys())
    given = set(call.arguments) | set(names[:len(call.positional)])
    unknown = [name for name in call.arguments if name not in names]
    if unknown or len(call.positional) > len(names):
        return f"{call.name}() takes no {unknown[0] if unknown else 'more positional arguments'}"
    missing = [name for name in parameters.get("required") or () if name not in given]
    return f"{call.name}() lacks {', '.join(missing)}" if missing else None


def reply_shape(reply: str, tools: Sequence[dict[str, Any]]) -> ReplyShape:
    r"""The shape of a tool-world reply, given the tools the agent was shown.

    >>> look = [{"type": "function", "function": {"name": "look", "parameters": {"type": "object",
    ...          "properties": {"room": {"type": "string"}}, "required": ["room"]}}}]
    >>> [reply_shape(text, look).value for text in (
    ...     "I look.\n<tool_call>{\"name\": \"look\", \"arguments\": {\"room\": \"hall\"}}</tool_call>",
    ...     "look(place='hall')", "os.system('ls')", "Done: \\boxed{7}",
    ...     "I will call the look tool with the room.", "When it asks, answer inside \\boxed{}.")]
    ['valid_call', 'invalid_call', 'unreadable', 'answer', 'prose', 'prose']
    """
    try:
        calls = parse_calls(reply)
    except ToolCallError:
        return ReplyShape.UNREADABLE
    if calls:
        if any(call_problem(call, tools) for call in calls):
            return ReplyShape.INVALID_CALL
        return ReplyShape.VALID_CALL
    return ReplyShape.ANSWER if extract_command(reply) else ReplyShape.PROSE  # an empty box answers nothing


def call_metrics(episodes: Sequence[Episode]) -> dict[str, float]:
    """The share of tool-world replies that held a call that reads (``rollout/call_rate``) and a
    call of a listed tool with the arguments it takes (``rollout/valid_call_rate``), over all tool
    worlds' episodes and per arm; ``{}`` when no tool world was played (left out, not 0).

    >>> from spadework.policy.base import Message, Role
    >>> from spadework.rollout.records import EndReason
    >>> def episode(arm, calls, valid, replies=4):
    ...     messages = tuple(Message(Role.ASSISTANT, "") for _ in range(replies))
    ...     return Episode("w", 0, arm, messages, (), 0.0, False, replies, 0, None, None, 0, 0.0,
    ...                    EndReason.MAX_TURNS, tool_replies=replies, calls=calls, valid_calls=valid)
    >>> metrics = call_metrics([episode(Arm.NOHINT, 3, 1), episode(Arm.HINT, 4, 4)])
    >>> [(name, metrics[name]) for name in sorted(metrics)]  # doctest: +NORMALIZE_WHITESPACE
    [('rollout/call_rate', 0.875), ('rollout/call_rate_hint', 1.0), ('rollout/call_rate_nohint', 0.75),
     ('rollout/valid_call_rate', 0.625), ('rollout/valid_call_rate_hint', 1.0),
     ('rollout/valid_call_rate_nohint', 0.25)]
    >>> call_metrics([])
    {}
    """
    metrics: dict[str, float] = {}
    groups = {"": list(episodes), **{f"_{arm.value}": [e for e in episodes if e.arm is arm] for arm in Arm}}
    for suffix, group in groups.items():
        replies = sum(e.tool_replies for e in group)
        if replies:
            metrics[f"rollout/call_rate{suffix}"] = sum(e.calls for e in group) / replies
            metrics[f"rollout/valid_call_rate{suffix}"] = sum(e.valid_calls for e in group) / replies
    return metrics
