"""``spadework calibrate`` end to end: a FAKE agent through the library function, the scripted FAKE
through the command line, a user's own folder, and the report's JSON shape."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

import spadework.cli
from spadework.calibrate import Kind, Reached, Screening, calibrate, calibration_rollout, load_files
from spadework.calibrate.command import print_report
from spadework.calibrate.report import report_json
from spadework.config import CONFIG_FILE, load_config
from spadework.errors import UsageError
from spadework.policy.base import Completion, Conversation, Sampling
from spadework.policy.scripted import agent_view

ENV_KEYS = {"name", "path", "kind", "expected", "screening", "valid", "reason", "failed_check", "scores",
            "env_errors", "chance", "calls", "voided", "difficulties", "in_band", "climb"}
PLAYED_KEYS = ENV_KEYS | {"solve_rate_nohint", "solve_rate_hint", "regret", "regret_low", "regret_high",
                          "estimate", "designer_score"}
SEEDS = (10_000, 10_001, 10_002, 10_003)

PUZZLE = '''
from spadework.envs import AnswerEnv


class {name}Env(AnswerEnv):
    max_turns = 1

    def new_episode(self):
        self.number = self.rng.randint(100, 999)
        self.answer = {answer}
        return f"{question}"

    def hint(self):
        return "{hint}"
'''
USER_ENVS = {
    "easy_echo.py": ("Echo", "self.number + 1", "Echo the number {self.number}, plus one.", "Add one to it."),
    "frontier_tag.py": ("Tag", "3 * self.number + 1", "What is the tag of {self.number}?",
                        "The tag is three times the number, plus one."),
    "impossible_seal.py": ("Seal", "self.number * 7919 % 10007 + 20000", "What is the seal of {self.number}?",
                           "Seals are keyed; no rule gives them."),
    "mine.py": ("Mine", "self.number + 1", "Echo the number {self.number} plus one, once more.", "Add one."),
    "leaking_tag.py": ("Leak", "3 * self.number + 1", "What is the secret tag of {self.number}?",
                       "It is {self.answer}."),
}
"""A user's folder: one environment of each kind, and one without a kind."""


def write_user_envs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for file, (name, answer, question, hint) in USER_ENVS.items():
        hint_code = f'f"{hint}"' if "{" in hint else f'"{hint}"'
        source = PUZZLE.format(name=name, answer=answer, question=question, hint="HINT")
        (folder / file).write_text(source.replace('"HINT"', hint_code), encoding="utf-8")
    return folder


class TagSolver:
    """FAKE agent: echoes what it is asked to echo, plus one; knows the tag rule only from the hint;
    never knows a seal (answers 0)."""

    name = "tag-solver"

    def reply(self, conversation: Conversation) -> str:
        view = agent_view(conversation)
        number = int(re.search(r"\d+", view.first).group(0))
        if view.first.startswith("Echo"):
            return f"\\boxed{{{number + 1}}}"
        if "tag" in view.first and view.hint and "three times" in view.hint:
            return f"\\boxed{{{3 * number + 1}}}"
        return f"\\boxed{{{number if 'tag' in view.first else 0}}}"

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling, tools=None
    ) -> list[Completion]:
        return [Completion(self.reply(c), completion_tokens=3) for c in conversations]

    def close(self) -> None:
        pass


def scripted_config(folder: Path) -> Path:
    path = folder / "scripted.toml"
    path.write_text('[policy]\nkind = "scripted"\n', encoding="utf-8")
    return path


def test_the_library_ranks_a_fake_agents_regrets_right(tmp_path, sandbox, capsys):
    files = load_files([write_user_envs(tmp_path / "envs")])
    assert [(f.path.name, f.kind) for f in files] == [
        ("easy_echo.py", Kind.EASY), ("frontier_tag.py", Kind.FRONTIER),
        ("impossible_seal.py", Kind.IMPOSSIBLE), ("leaking_tag.py", Kind.LEAKING), ("mine.py", Kind.UNRANKED)]
    rollout = calibration_rollout(load_config(None))
    found = calibrate(files, TagSolver(), sandbox, rollout, SEEDS)
    report = report_json(found, ("tag-solver", "fake"), rollout, "2026-11-30T00:00:00+00:00")
    envs = {e["name"]: e for e in report["environments"]}
    assert envs["frontier_tag.py"]["scores"] == {"nohint": [0.0] * 4, "hint": [1.0] * 4}
    assert (envs["frontier_tag.py"]["regret"], envs["frontier_tag.py"]["solve_rate_hint"]) == (1.0, 1.0)
    assert envs["frontier_tag.py"]["env_errors"] == 0
    assert envs["easy_echo.py"]["scores"] == {"nohint": [1.0] * 4, "hint": [1.0] * 4}
    assert envs["impossible_seal.py"]["regret"] == 0.0 and envs["mine.py"]["solve_rate_nohint"] == 1.0
    assert envs["mine.py"]["expected"] is None and envs["mine.py"]["kind"] == "unranked"
    leak = envs["leaking_tag.py"]
    assert (leak["screening"], leak["valid"], leak["scores"]) == ("leak caught", False, None)
    assert leak["failed_check"] == "no_hint_leak" and leak["reason"].startswith("no_hint_leak: ")
    # m = 6, S1 = 4, S2 = 5: centre 2/3, sd sqrt((5/6 - 4/9) / 6) = 0.2546, low 0.168
    assert envs["frontier_tag.py"]["regret_low"] == pytest.approx(2 / 3 - 1.959964 * 0.254588, abs=1e-4)
    assert all(set(e) == PLAYED_KEYS for e in report["environments"] if e["valid"])
    summary = report["summary"]
    assert summary["ranked"] == 3 and summary["spearman"]["rho"] == pytest.approx(1.0)
    # every windowless designer reward is ranked too: the frontier tag (never solved without its hint)
    # is out of the plateau's band, so the plateau pays nothing anywhere and cannot rank them
    assert summary["rewards"]["regret"]["rho"] == pytest.approx(1.0)
    assert summary["rewards"]["plateau"]["rho"] is None and summary["rewards"]["blend"]["rho"] > 0
    assert summary["separation"]["reached"] == Reached.PROJECTED.value and summary["separation"]["k"] == 6
    assert summary["leaks_caught"] == ["leaking_tag.py"] and summary["leaks_missed"] == []
    print_report(found, tmp_path / "r.json")
    printed = capsys.readouterr().out
    assert "Calibration: regret on 4 paired seeds" in printed and "frontier_tag.py" in printed
    assert "Spearman's rho (regret against the expected order, 3 environments): +1.00" in printed
    assert "as it should" in printed and "projected at K = 6" in printed
    assert "Designer rewards against the expected order: regret +1.00" in printed
    assert "Rejected by the validator" in printed and "leak caught" in printed


def test_a_missed_leak_is_played_flagged_and_not_ranked(tmp_path, sandbox, capsys):
    folder = tmp_path / "envs"
    write_user_envs(folder)
    (folder / "leaking_quiet.py").write_text((folder / "easy_echo.py").read_text(), encoding="utf-8")
    files = load_files([folder / "leaking_quiet.py", folder / "frontier_tag.py"])
    found = calibrate(files, TagSolver(), sandbox, calibration_rollout(load_config(None)), SEEDS[:2])
    [missed] = found.with_screening(Screening.LEAK_MISSED)
    assert missed.scores is not None and not missed.ranked
    assert found.summary_json()["leaks_missed"] == ["leaking_quiet.py"]
    print_report(found, tmp_path / "r.json")
    assert "LEAK MISSED: the validator accepted leaking_quiet.py" in capsys.readouterr().out


def test_the_command_on_the_bundled_set_with_the_scripted_policy(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "c.json"
    argv = ["calibrate", "--config", str(scripted_config(tmp_path)), "--plays", "2", "--out", str(out),
            "--json"]
    assert spadework.cli.main(argv) == 0
    report = json.loads(out.read_text())
    assert report == json.loads(capsys.readouterr().out)
    assert set(report) == {"created_at", "policy", "seeds", "plays", "isolation", "rollout", "environments",
                           "summary"}
    assert report["policy"] == {"name": "base", "spec": "base"} and report["seeds"] == [10_000, 10_001]
    assert report["isolation"] in ("namespaces", "rlimits") and report["rollout"]["max_turns_cap"] == 6
    kinds = [e["kind"] for e in report["environments"]]
    assert kinds.count("easy") == 3 and kinds.count("frontier") == 4 and kinds.count("impossible") == 2
    assert kinds.count("leaking") == 4
    for env in report["environments"]:
        assert set(env) == (PLAYED_KEYS if env["valid"] else ENV_KEYS)
        assert env["valid"] == (env["kind"] != "leaking")
        if env["valid"]:
            assert len(env["scores"]["hint"]) == len(env["scores"]["nohint"]) == 2
    summary = report["summary"]
    assert set(summary) == {"ranked", "spearman", "rewards", "separation", "leaks_caught", "leaks_missed",
                            "rejected", "calls", "in_band_share", "plays_to_band"}
    assert summary["plays_to_band"] == []  # no controller: nothing climbed
    assert set(summary["rewards"]) == {"regret", "regret_lcb", "plateau", "blend"}
    assert summary["ranked"] == 9 and summary["rejected"] == [] and summary["leaks_missed"] == []
    assert set(summary["separation"]) == {"reached", "k", "plays", "text", "frontier", "easy"}


def test_the_command_prints_tables_and_writes_under_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = write_user_envs(tmp_path / "envs")
    argv = ["calibrate", str(folder / "easy_echo.py"), str(folder / "mine.py"), "--config",
            str(scripted_config(tmp_path)), "--plays", "1"]
    assert spadework.cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "Calibration: regret on 1 paired seeds" in printed and "unranked" in printed
    assert "Spearman's rho: undefined over 1 ranked environments" in printed
    [path] = (tmp_path / "runs").glob("calibration-*.json")
    assert [e["name"] for e in json.loads(path.read_text())["environments"]] == ["easy_echo.py", "mine.py"]


def test_a_policy_from_a_run_writes_into_the_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_dir = tmp_path / "run-a"
    run_dir.mkdir()
    config = load_config(None, {"policy.kind": "scripted"})
    (run_dir / CONFIG_FILE).write_text(config.to_toml(), encoding="utf-8")
    folder = write_user_envs(tmp_path / "envs")
    argv = ["calibrate", str(folder / "frontier_tag.py"), "--policy", str(run_dir), "--plays", "1", "--json"]
    assert spadework.cli.main(argv) == 0
    [path] = (run_dir / "calibration").glob("calibration-*.json")
    assert json.loads(path.read_text())["policy"]["name"] == "run-a/untrained"
    assert not (tmp_path / "runs").exists()


def test_a_rejected_calibration_file_exits_1(tmp_path, capsys):
    broken = tmp_path / "easy_broken.py"
    broken.write_text("class BrokenEnv:\n    pass\n", encoding="utf-8")
    argv = ["calibrate", str(broken), "--config", str(scripted_config(tmp_path)), "--plays", "1",
            "--out", str(tmp_path / "c.json")]
    assert spadework.cli.main(argv) == 1
    printed = capsys.readouterr().out
    assert "rejected" in printed and "static:" in printed


def test_bad_paths_and_flags_fail_on_one_line(tmp_path, capsys):
    assert spadework.cli.main(["calibrate", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err == f"spadework: {tmp_path / 'nope'}: no such file or folder; give environment files or " \
                  "folders of them\n"
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="a folder with no environment files"):
        load_files([tmp_path / "empty"])
    assert spadework.cli.main(["calibrate", "--plays", "0"]) == 2
    assert "--plays must be at least 1, got 0" in capsys.readouterr().err


def test_a_folder_and_a_file_in_it_give_each_file_once(tmp_path):
    folder = write_user_envs(tmp_path / "envs")
    files = load_files([folder / "mine.py", folder])
    assert [f.path.name for f in files] == ["mine.py", "easy_echo.py", "frontier_tag.py",
                                            "impossible_seal.py", "leaking_tag.py"]
    assert textwrap.dedent(files[0].code).startswith("\nfrom spadework.envs import AnswerEnv")
