"""The ways of showing a tool world's tools reach the policy as they say, in the same world: mixed and
native through the chat template, compact as one line a tool under the task with no tools sent; the
episode counts its replies' calls (``rollout/call_rate``'s figures) whatever the way."""

from __future__ import annotations

import pytest
from rollout_fakes import ScriptedFakePolicy, replies
from test_tool_play import LIBRARY

from spadework.kinds import ToolPrompt
from spadework.outcomes import iteration_metrics
from spadework.rollout import Arm, PlayJob, RolloutConfig, run_plays
from spadework.rollout.prompt import AgentForm
from spadework.sandbox import InProcessSandbox

NATIVE = ['I look the book up.\n<tool_call>{"name": "find", "arguments": {"collection": "books", "field": '
          '"title", "value": "Emma"}}</tool_call>',
          'Now I lend it.\n<tool_call>{"name": "lend", "arguments": {"book_id": 2, "member_id": 7}}'
          '</tool_call>']
PYTHON = ["I look the book up.\nfind(collection='books', field='title', value='Emma')",
          "Now I lend it.\nlend(book_id=2, member_id=7)"]


def play(prompt: ToolPrompt, script: list[str]) -> tuple[ScriptedFakePolicy, list]:
    policy = ScriptedFakePolicy(lambda conversation: script[min(replies(conversation), len(script) - 1)])
    jobs = [PlayJob("lib", LIBRARY, 0, Arm.NOHINT, AgentForm.TOOL)]
    return policy, run_plays(policy, InProcessSandbox(), jobs, RolloutConfig(tool_prompt=prompt))


@pytest.mark.parametrize(("prompt", "script"), [(ToolPrompt.MIXED, NATIVE), (ToolPrompt.NATIVE, NATIVE),
                                                (ToolPrompt.MIXED, PYTHON), (ToolPrompt.COMPACT, PYTHON)])
def test_each_way_solves_the_same_world_and_counts_its_calls(prompt, script):
    policy, [episode] = play(prompt, script)
    assert episode.solved and (episode.tool_replies, episode.calls, episode.valid_calls) == (2, 2, 2)
    sent = policy.tools[0]
    system, first = episode.messages[0].content, episode.messages[1].content
    if prompt is ToolPrompt.COMPACT:
        assert sent is None and episode.tools == ()  # the learner renders what the policy saw: no tools
        assert "Tools:\nlist_records(collection: string) - " in first
        assert "lend(book_id: integer, member_id: integer) - Lend a book to a member." in first
        assert "set_alarm(hour=7, label='gym')" in system and "<tool_call>" not in system
    else:
        assert [tool["function"]["name"] for tool in sent[0]][-1] == "lend" and len(episode.tools) == 8
        assert "Tools:" not in first
        assert ("exactly one tool call" in system) == (prompt is ToolPrompt.NATIVE)


def test_replies_that_do_not_call_lower_the_call_rates():
    script = ["I would look up the book called Emma and then lend it to member 7.",
              "lend(book=2, member=7)", 'Now I lend it.\nlend(book_id=2, member_id=7)']
    policy, episodes = play(ToolPrompt.MIXED, script)
    [episode] = episodes
    assert (episode.tool_replies, episode.calls, episode.valid_calls) == (3, 2, 1)
    metrics = iteration_metrics([], [], episodes)
    assert metrics["rollout/call_rate"] == pytest.approx(2 / 3)
    assert metrics["rollout/valid_call_rate_nohint"] == pytest.approx(1 / 3)
    assert "rollout/call_rate_hint" not in metrics  # the hinted arm did not play: left out, not 0
