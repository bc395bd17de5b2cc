"""``benchmarks/stated_answers.py``: the answer puzzles whose text states their own answer on every
played seed, found in a run's episodes and archive (a run written by hand here)."""

from __future__ import annotations

import json
import sys

from spadework.archive import Archive, EnvRecord
from spadework.archive.results import DesignResult
from spadework.validate.verdict import CheckResult, Outcome, Verdict

STATED = "Find the record whose code is record{}. Change its value to {}."
SUM = "Two numbers are chosen: {} and {}. What is their sum?"


def _play(env_id: str, observation: str, key: str, *, tools: list | None = None) -> str:
    check = {"observation": observation, "solution": [key], "hint": "", "contrast": [], "problem": None}
    return json.dumps({"env_id": env_id, "arm": "nohint", "tools": tools or [], "check": check}) + "\n"


def _run(tmp_path):
    """Four valid designs of iteration 3 (paid 0.4, 0.2, 0.3, 0.1) and their plays; the first is
    replayed at iteration 4 as ``i4-r1``."""
    with Archive.open(tmp_path) as archive:
        for n, pay in enumerate((0.4, 0.2, 0.3, 0.1)):
            design = DesignResult(3, f"i3-d{n}", 1, None, None, True, pay, 0.0)
            verdict = Verdict((CheckResult("parse", Outcome.PASSED, ""),), "none", class_name=f"Env{n}")
            archive.add(EnvRecord.new(f"x = {n}", verdict, f"run:i3:i3-d{n}:a1", design=design))
    (tmp_path / "episodes").mkdir()
    (tmp_path / "episodes" / "iteration-0003.jsonl").write_text(
        _play("i3-d0", STATED.format(1, 76), "76") + _play("i3-d0", STATED.format(2, 5), "5")
        + _play("i3-d1", SUM.format(8, 15), "23")
        + _play("i3-d2", STATED.format(1, 7), "7") + _play("i3-d2", "Which is larger, 7 or 9?", "9")
        + _play("i3-d3", STATED.format(1, 7), "7", tools=[{"name": "find"}]))
    (tmp_path / "episodes" / "iteration-0004.jsonl").write_text(_play("i4-r1", STATED.format(3, 40), "40"))
    return tmp_path


def test_only_a_design_that_states_its_key_on_every_played_seed_is_flagged(tmp_path, benchmark_script):
    stated = benchmark_script("stated_answers")
    played, found, pay = stated.flagged(_run(tmp_path))
    assert played == 3  # the tool world's play is not an answer puzzle
    assert {d.record_id: plays for d, plays in found.items()} == {1: 3}  # its replay counted too
    assert round(pay, 2) == 1.0


def test_the_script_prints_the_flagged_designs_and_their_share_of_the_pay(tmp_path, benchmark_script,
                                                                         monkeypatch, capsys):
    stated = benchmark_script("stated_answers")
    monkeypatch.setattr(sys, "argv", ["stated_answers.py", str(_run(tmp_path))])
    stated.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(": 3 answer-form designs played, 1 state their answer")
    assert lines[1].startswith("  1 Env0 (iteration 3): all 3 plays;") and lines[1].endswith("paid 0.40")
    assert lines[2] == "  pay to them 0.40 of the run's 1.00"


def test_a_choice_among_shown_numbers_is_not_a_stated_answer(benchmark_script):
    stated = benchmark_script("stated_answers")
    assert stated.states_its_answer(STATED.format(1, 76), ["76"])
    assert stated.states_its_answer("Set the balance to -3.5.", ["-3.5"])
    assert not stated.states_its_answer("Which is larger, 7 or 9?", ["9"])
    assert not stated.states_its_answer(STATED.format(1, 76), ["76", "77"])  # more than one key
    assert not stated.states_its_answer("Record 76 is open.", ["7"])  # a digit inside a number
