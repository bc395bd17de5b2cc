"""Replies the embedded 1.5B wrote in tool worlds (``benchmarks/tool_calls.py``), each read by hand:
the shape the rollout counts and what the world would read from it. Fixtures in
``tests/fixtures/replies/``; ``was`` is the shape before the reader skipped empty boxes and
undoubled braces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spadework.envs.tool_calls import ToolCallError, parse_calls
from spadework.rollout.calls import ReplyShape, reply_shape

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "replies"
REPLIES = [json.loads(line) for path in sorted(FIXTURES.glob("*.jsonl"))
           for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("case", REPLIES, ids=[case["why"][:40] for case in REPLIES])
def test_each_real_reply_has_the_shape_read_by_hand(case):
    shape = reply_shape(case["reply"], case["tools"])
    assert shape is ReplyShape(case["shape"])
    if shape is ReplyShape.UNREADABLE:
        with pytest.raises(ToolCallError):
            parse_calls(case["reply"])
    else:
        assert bool(parse_calls(case["reply"])) == shape.calls


def test_every_shape_but_a_boxed_answer_has_a_real_reply():
    assert {case["shape"] for case in REPLIES} >= {s.value for s in ReplyShape} - {ReplyShape.ANSWER.value}
