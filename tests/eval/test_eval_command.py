"""``spadework eval`` end to end with the scripted FAKE policy: the JSON report and its shape."""

from __future__ import annotations

import argparse
import json

import pytest

pytest.importorskip("reasoning_gym")
pytest.importorskip("textarena")

from eval_fakes import make_run, scripted_config_file  # noqa: E402

import spadework.cli  # noqa: E402
from spadework.errors import UsageError  # noqa: E402
from spadework.eval.command import add_parser  # noqa: E402

TALLY_KEYS = {"n", "solved", "accuracy", "ci_low", "ci_high", "mean_score"}
ITEM_KEYS = {"suite", "task", "seed", "score", "solved", "turns"}
PAIRED_KEYS = {"a", "b", "scope", "n", "diff", "ci_low", "ci_high", "wins", "losses", "ties"}
SELECTION = ["--task", "spell_backward", "--task", "textarena/GuessTheNumber-v0", "--seeds", "2",
             "--seed-start", "5"]


def run_eval(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", *argv])
    return args.run(args)


def check_tally(tally: dict) -> None:
    assert set(tally) == TALLY_KEYS
    assert tally["accuracy"] == (tally["solved"] / tally["n"])
    assert 0.0 <= tally["ci_low"] <= tally["accuracy"] <= tally["ci_high"] <= 1.0


def test_one_policy_writes_the_report_in_its_exact_shape(tmp_path, capsys):
    out = tmp_path / "report.json"
    config = scripted_config_file(tmp_path)
    assert run_eval(["--config", str(config), *SELECTION, "--out", str(out), "--json"]) == 0
    report = json.loads(out.read_text())
    assert report == json.loads(capsys.readouterr().out)
    assert set(report) == {"created_at", "seeds", "tasks", "policies", "paired"}
    assert report["seeds"] == [5, 6] and report["paired"] == []
    assert report["tasks"] == [{"suite": "reasoning-gym", "task": "spell_backward"},
                               {"suite": "textarena", "task": "GuessTheNumber-v0"}]
    [policy] = report["policies"]
    assert set(policy) == {"name", "spec", "tasks", "suites", "overall", "items"}
    assert (policy["name"], policy["spec"]) == ("base", "base")
    assert set(policy["tasks"]) == {"reasoning-gym/spell_backward", "textarena/GuessTheNumber-v0"}
    assert set(policy["suites"]) == {"reasoning-gym", "textarena"}
    for tally in [*policy["tasks"].values(), *policy["suites"].values(), policy["overall"]]:
        check_tally(tally)
    assert policy["overall"]["n"] == 4
    assert [(i["task"], i["seed"]) for i in policy["items"]] == [
        ("spell_backward", 5), ("spell_backward", 6), ("GuessTheNumber-v0", 5), ("GuessTheNumber-v0", 6)]
    assert all(set(item) == ITEM_KEYS for item in policy["items"])


def test_two_policies_are_compared_and_the_report_goes_into_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = make_run(tmp_path / "run-x", [1, 2])
    config = scripted_config_file(tmp_path)
    assert run_eval(["--policy", "base", "--policy", str(run), "--config", str(config), *SELECTION]) == 0
    printed = capsys.readouterr().out
    assert "Held-out accuracy" in printed and "run-x/iteration-0002 minus base" in printed
    [path] = (run / "eval").glob("eval-*.json")
    report = json.loads(path.read_text())
    assert [p["name"] for p in report["policies"]] == ["base", "run-x/iteration-0002"]
    assert [p["spec"] for p in report["policies"]] == ["base", str(run)]
    scopes = [row["scope"] for row in report["paired"]]
    assert scopes == ["reasoning-gym/spell_backward", "textarena/GuessTheNumber-v0", "reasoning-gym",
                      "textarena", "overall"]
    for row in report["paired"]:
        assert set(row) == PAIRED_KEYS and (row["a"], row["b"]) == ("base", "run-x/iteration-0002")
        assert row["wins"] + row["losses"] + row["ties"] == row["n"]
    # the scripted policy is the same with and without a checkpoint: every item ties
    overall = report["paired"][-1]
    assert (overall["n"], overall["ties"], overall["diff"]) == (4, 4, 0.0)
    assert not (tmp_path / "runs").exists()


def test_base_alone_writes_under_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_eval(["--config", str(scripted_config_file(tmp_path)), "--task", "gcd", "--seeds", "1"]) == 0
    assert len(list((tmp_path / "runs").glob("eval-*.json"))) == 1


def test_a_missing_checkpoint_is_a_clear_usage_error(tmp_path):
    run = make_run(tmp_path / "run-y", [])
    with pytest.raises(UsageError, match="run-y has no checkpoint"):
        run_eval(["--policy", str(run / "checkpoints" / "latest"), "--task", "gcd"])
    with pytest.raises(UsageError, match="iteration-0003: no such checkpoint"):
        run_eval(["--policy", str(run / "checkpoints" / "iteration-0003")])


def test_bad_flags_are_usage_errors_before_anything_plays(tmp_path):
    with pytest.raises(UsageError, match="--policy given 3 times"):
        run_eval(["--policy", "base", "--policy", "base", "--policy", "base"])
    with pytest.raises(UsageError, match="--seeds must be at least 1"):
        run_eval(["--seeds", "0"])
    with pytest.raises(UsageError, match="no task 'nope'"):
        run_eval(["--task", "nope"])


def test_the_cli_reports_a_missing_checkpoint_on_one_line(tmp_path, capsys):
    run = make_run(tmp_path / "run-z", [])
    assert spadework.cli.main(["eval", "--policy", str(run / "checkpoints" / "latest")]) == 2
    assert "run-z has no checkpoint" in capsys.readouterr().err
