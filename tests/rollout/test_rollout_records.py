"""Rollout records survive JSON, and their enums keep their wire values."""

from __future__ import annotations

import json

from spadework.policy.base import Message, Role, Sampling
from spadework.rollout import Arm, EndReason, Episode, PlayJob, RolloutConfig


def test_a_play_job_round_trips():
    job = PlayJob("abc", "class XEnv: ...", 3, Arm.HINT)
    assert PlayJob.from_json(json.loads(json.dumps(job.to_json()))) == job
    assert job.to_json()["arm"] == "hint"


def test_an_episode_round_trips():
    episode = Episode(
        env_id="abc", seed=3, arm=Arm.NOHINT,
        messages=(Message(Role.SYSTEM, "s"), Message(Role.USER, "o"), Message(Role.ASSISTANT, "\\boxed{a}")),
        rewards=(0.25, 0.5), score=0.75, solved=False, turns=2, unboxed=0, hint=None, error=None,
        completion_tokens=9, seconds=0.5, end=EndReason.MAX_TURNS,
    )
    data = json.loads(json.dumps(episode.to_json()))
    assert data["end"] == "max_turns" and data["arm"] == "nohint"
    assert Episode.from_json(data) == episode


def test_a_tool_world_episode_round_trips_with_its_tools_and_tool_messages():
    tools = ({"type": "function", "function": {"name": "find", "parameters": {"type": "object"}}},)
    episode = Episode(
        env_id="t", seed=1, arm=Arm.HINT,
        messages=(Message(Role.ASSISTANT, "[find()]"), Message(Role.TOOL, "[]")),
        rewards=(0.0,), score=0.0, solved=False, turns=1, unboxed=0, hint="h", error=None,
        completion_tokens=3, seconds=0.1, end=EndReason.MAX_TURNS, tools=tools,
    )
    data = json.loads(json.dumps(episode.to_json()))
    assert data["messages"][1] == {"role": "tool", "content": "[]"} and data["tools"] == list(tools)
    assert Episode.from_json(data) == episode
    del data["tools"]  # an episode written before tool worlds
    assert Episode.from_json(data).tools == ()


def test_a_config_round_trips():
    config = RolloutConfig(max_turns_cap=4, sampling=Sampling(temperature=0.0, stop=("</s>",)))
    assert RolloutConfig.from_json(json.loads(json.dumps(config.to_json()))) == config


def test_wire_values():
    assert [a.value for a in Arm] == ["nohint", "hint"]
    assert [e.value for e in EndReason] == ["terminated", "truncated", "max_turns", "context", "env_error"]
