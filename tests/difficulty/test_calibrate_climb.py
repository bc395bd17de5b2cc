"""Calibration with the difficulty controller: a design climbs from the easiest level to the one where
the agent wins about half its plays, and its paired plays are judged there; without the controller
it stays at its own level."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from tests.envs.test_declared_ladder import COUNTING
from tests.rollout.rollout_fakes import ScriptedFakePolicy

from spadework.calibrate.records import Kind
from spadework.calibrate.runner import CalibrationFile, calibrate
from spadework.difficulty import DifficultySettings
from spadework.rewards import REFERENCE_BLEND
from spadework.rollout import RolloutConfig
from spadework.sandbox import InProcessSandbox

SUMS = COUNTING.replace("    difficulties = 3", "    max_turns = 1\n    difficulties = 3")
"""Sums of two, four, then six numbers, each larger; one try."""


def adder(conversation) -> str:
    """FAKE agent: adds two numbers always, four when their sum is even, six never."""
    values = [int(v) for v in re.findall(r"\d+", conversation[-1].content.split("Add:")[1].split("\n")[0])]
    right = len(values) == 2 or (len(values) == 4 and sum(values) % 2 == 0)
    return f"\\boxed{{{sum(values) if right else 0}}}"


def test_the_controller_climbs_to_the_level_in_band_and_the_paired_plays_are_there(tmp_path: Path):
    files = [CalibrationFile(tmp_path / "sums.py", Kind.UNRANKED, SUMS)]
    rule = DifficultySettings(controller="sliding", window=8, raise_at=0.75, lower_at=0.25)
    policy = ScriptedFakePolicy(adder)
    band = replace(REFERENCE_BLEND, band_low=0.25, band_high=0.75)
    found = calibrate(files, policy, InProcessSandbox(), RolloutConfig(max_turns_cap=1),
                      range(10_000, 10_016), band, controller=rule, rounds=3)
    [result] = found.results
    assert result.difficulties == 3 and result.climb is not None
    assert result.climb.standing.path[:2] == (1, 2) and result.climb.rates[0] == 1.0
    assert result.climb.plays_to_band == 16  # the second round, at level 2, won about half
    assert 0.2 < result.scores.solve_rate(hinted=False) < 0.8
    fixed = calibrate(files, ScriptedFakePolicy(adder), InProcessSandbox(), RolloutConfig(max_turns_cap=1),
                      range(10_000, 10_016))
    assert fixed.results[0].climb is None and fixed.results[0].scores.solve_rate(hinted=False) == 1.0
    assert found.summary_json()["plays_to_band"] == [16]
