"""Skills (``[designer] skills``): each design request names one, in turn or drawn by weight; the
request says it, the archive keeps it, and designer advantages can be centred per skill. And the
settings that go with them: their checks, and runs written before ``rewards.group_by``."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from spadework.archive import Archive, DesignResult
from spadework.config import load_config
from spadework.errors import ConfigError
from spadework.kinds import AdvantageGroup
from spadework.policy.scripted import ScriptedPolicy
from spadework.run import run

SKILLS = ["API_Orchestration", "Error_Recovery", "Tool_Selection"]


class RecordingPolicy(ScriptedPolicy):
    """FAKE: the scripted policy, keeping the last message of every conversation it is asked."""

    def __init__(self, seed: int = 0):
        super().__init__(seed=seed)
        self.asked: list[str] = []

    def generate(self, conversations, sampling, tools=None):
        self.asked += [c[-1].content for c in conversations]
        return super().generate(conversations, sampling, tools)


@pytest.mark.timeout(240)
def test_each_request_names_its_skill_in_turn_and_the_archive_keeps_it(tmp_path: Path):
    config = load_config(None, {"policy.kind": "scripted", "run.iterations": 2, "run.designs": 2,
                                "run.plays": 2, "sandbox.pool_size": 2, "diversity.embedder": "hashing",
                                "designer.skills": SKILLS, "rewards.group_by": "skill",
                                "designer.max_attempts": 1})
    policy = RecordingPolicy()
    run(config, tmp_path / "run", policy=policy)
    asked = [text for text in policy.asked if "Skill to exercise" in text]
    assert [next(s for s in SKILLS if s.replace("_", " ") in text) for text in asked] == \
        ["API_Orchestration", "Error_Recovery", "Tool_Selection", "API_Orchestration"]  # round robin
    with Archive.open(tmp_path / "run", create=False) as archive:
        finals = [d for r in archive.records() if (d := DesignResult.from_metrics(r.metrics)) and d.final]
    assert [d.skill for d in finals] == ["API_Orchestration", "Error_Recovery", "Tool_Selection",
                                         "API_Orchestration"]
    by_skill: dict[tuple[int, str], list[float]] = defaultdict(list)
    for d in finals:
        by_skill[(d.iteration, d.skill or "")].append(d.designer_advantage or 0.0)
    assert all(sum(values) == pytest.approx(0.0) for values in by_skill.values())  # centred per skill


def test_skill_settings_are_checked():
    with pytest.raises(ConfigError, match="one weight per skill"):
        load_config(None, {"designer.skills": ["a", "b"], "designer.skill_weights": [1.0]})
    with pytest.raises(ConfigError, match="needs designer.skills"):
        load_config(None, {"rewards.group_by": "skill"})
    with pytest.raises(ConfigError, match="distinct"):
        load_config(None, {"designer.skills": ["a", "a"]})


def test_runs_written_with_group_by_domain_still_load(tmp_path: Path):
    old = tmp_path / "config.toml"
    old.write_text("[rewards]\ngroup_by_domain = true\n")
    assert load_config(old).rewards.group_by is AdvantageGroup.DOMAIN
    old.write_text("[rewards]\ngroup_by_domain = false\n")
    assert load_config(old).rewards.group_by is AdvantageGroup.NONE
