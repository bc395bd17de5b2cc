"""One iteration's model work reaches the policy as batches: the designs in one call, every play's
turn (all environments, all seeds, both arms) in one call per round."""

from __future__ import annotations

import json
from pathlib import Path

from spadework.config import load_config
from spadework.policy.scripted import ScriptedPolicy
from spadework.run import run


class BatchRecordingPolicy(ScriptedPolicy):
    """FAKE: the scripted policy, recording how many conversations each call carries."""

    def __init__(self, seed: int):
        super().__init__(seed=seed)
        self.batches: list[int] = []

    def generate(self, conversations, sampling, tools=None):
        self.batches.append(len(conversations))
        return super().generate(conversations, sampling, tools)


def test_an_iteration_hands_the_engine_whole_batches(tmp_path: Path):
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 4,
                                "run.plays": 3, "sandbox.pool_size": 2})
    policy = BatchRecordingPolicy(seed=config.run.seed)
    run(config, tmp_path / "run", policy=policy)
    [metrics] = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    valid = round(metrics["design/valid_rate"] * 4)
    episodes = [json.loads(line) for line in (tmp_path / "run" / "episodes" / "iteration-0000.jsonl").open()]
    assert valid >= 2 and len(episodes) == valid * 3 * 2
    assert policy.batches[0] == 4, "the designs of an iteration go in one call"
    plays = policy.batches.index(valid * 3 * 2)  # the first turn of every play goes in one call
    rounds = max(e["turns"] for e in episodes)
    assert plays <= config.designer.max_attempts, "one call per design attempt round"
    assert len(policy.batches) - plays == rounds, "one call a round of play"
