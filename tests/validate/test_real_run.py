"""The designs that were valid in a real ``make run`` before ``determined`` and the disguised-leak
checks existed (the embedded 1.5B, seed 0; ``tests/fixtures/envs/real_run``): the fair ones stay
valid, and those whose answer their text does not decide are now rejected (the time-taken puzzle,
once counted fair here, keys a float it never shows: the admission gate names its line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.validate import read_source, validate

REAL_RUN = Path(__file__).resolve().parent.parent / "fixtures" / "envs" / "real_run"

STILL_VALID = ("i0_d2_queueitemenv.py", "i0_d4_demographicmedianenv.py")

NOW_REJECTED = {
    # "Generate all possible combinations of the numbers 1 to 9." on every seed of one branch, with a
    # random pair as the answer: irreducible regret.
    "i0_d3_combinatoricenv.py": (
        "determined: seeds 1 and 3 show the same text but need different answers ('1 2 5' and '3 8 9'), "
        "so no player can tell which; put what decides the answer into the text the agent reads"),
    # The answer is a time drawn out of sight; only the hint talks about it.
    "i0_d5_timeexecutionenv.py": (
        "key_from_text: seed 0: the answer reads a value the text never shows: the value drawn at line 17 "
        "(`self.time_taken = self.rng.uniform(0.1, 10.0)  # seconds`), changed from 2.6632758279003372 "
        "to 2.6632768179 leaves the text as it was, yet the answer '2.6632758279003372' no longer wins; "
        "show it in the text, or leave it out of the answer"),
}


def test_every_design_of_the_real_run_is_judged_here():
    assert sorted(p.name for p in REAL_RUN.glob("*.py")) == sorted([*STILL_VALID, *NOW_REJECTED])


@pytest.mark.parametrize("name", STILL_VALID)
def test_a_fair_design_of_a_real_run_stays_valid(name, sandbox):
    text, is_reply = read_source(REAL_RUN / name)
    verdict = validate(text, sandbox, is_reply=is_reply)
    assert verdict.valid, verdict.reason


@pytest.mark.parametrize("name", sorted(NOW_REJECTED))
def test_an_irreducible_design_of_a_real_run_is_now_rejected(name, sandbox):
    text, is_reply = read_source(REAL_RUN / name)
    assert validate(text, sandbox, is_reply=is_reply).reason == NOW_REJECTED[name]
