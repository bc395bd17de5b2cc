"""The agent's samples of a tool world are rendered with the tools it was prompted with."""

from __future__ import annotations

from spadework.learn.samples import agent_samples
from spadework.outcomes import DesignOutcome
from spadework.policy.base import Message, Role
from spadework.policy.hf import ByteTokenizer
from spadework.rollout import Arm, EndReason, Episode

TOOLS = ({"type": "function", "function": {"name": "lend", "description": "Lend a book.",
                                           "parameters": {"type": "object", "properties": {}}}},)


def episode(tools: tuple) -> Episode:
    messages = (Message(Role.SYSTEM, "Call tools."), Message(Role.USER, "Lend Dune to 7."),
                Message(Role.ASSISTANT, "[lend(book_id=1, member_id=7)]"),
                Message(Role.TOOL, "lend(book_id=1, member_id=7) -> {\"ok\": true}"))
    return Episode(env_id="d", seed=0, arm=Arm.NOHINT, messages=messages, rewards=(1.0,), score=1.0,
                   solved=True, turns=1, unboxed=0, hint=None, error=None, completion_tokens=9,
                   seconds=0.1, end=EndReason.TERMINATED, tools=tools)


def test_tool_episodes_are_trained_as_prompted_with_their_tools():
    outcome = DesignOutcome("d", True, (1.0,), (1.0,), 0.0, 0.0, agent_advantages=(0.5,))
    tokenizer = ByteTokenizer()
    with_tools = agent_samples([outcome], [episode(TOOLS)], tokenizer)[0]
    without = agent_samples([outcome], [episode(())], tokenizer)[0]
    text = tokenizer.decode(list(with_tools.ids))
    assert '"name": "lend"' in text and '"name": "lend"' not in tokenizer.decode(list(without.ids))
    trained = tokenizer.decode([i for i, m in zip(with_tools.ids, with_tools.mask, strict=True) if m])
    assert trained == "[lend(book_id=1, member_id=7)]<|im_end|>"  # the reply only, never tools or results
