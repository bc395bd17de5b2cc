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


def test_a_config_round_trips():
    config = RolloutConfig(max_turns_cap=4, sampling=Sampling(temperature=0.0, stop=("</s>",)))
    assert RolloutConfig.from_json(json.loads(json.dumps(config.to_json()))) == config


def test_wire_values():
    assert [a.value for a in Arm] == ["nohint", "hint"]
    assert [e.value for e in EndReason] == ["terminated", "truncated", "max_turns", "context", "env_error"]
