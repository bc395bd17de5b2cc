"""The command line, end to end: verdicts, archive, play, and bad input without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spadework.archive import Archive
from spadework.cli import main

GOOD = '''
from spadework.envs import TextEnv

class EchoEnv(TextEnv):
    max_turns = 4

    def new_episode(self):
        self.word = self.rng.choice(["apple", "river", "stone", "cloud", "ember"])
        return f"Spell this word backwards: {self.word}"

    def apply(self, action):
        if action == self.word[::-1]:
            return "Right.", 1.0, True
        return "Not quite.", 0.0, False

    def solution(self):
        return [self.word[::-1]]

    def hint(self):
        return "Read the letters from the last one to the first."
'''

UNSOLVABLE = GOOD.replace("return [self.word[::-1]]", "return [self.word]")


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"good": tmp_path / "good.py", "bad": tmp_path / "bad.py",
             "reply": tmp_path / "reply.md", "notpython": tmp_path / "notes.py",
             "noenv": tmp_path / "noenv.py"}
    paths["good"].write_text(GOOD)
    paths["bad"].write_text(UNSOLVABLE)
    paths["reply"].write_text(f"Here is my environment.\n```python\n{GOOD}\n```\nEnjoy!")
    paths["notpython"].write_text("this is not python (\n")
    paths["noenv"].write_text("class Helper:\n    pass\n")
    return paths


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spadework.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_validate_json_lines(files, capsys):
    code = main(["validate", "--json", str(files["good"]), str(files["bad"]), str(files["reply"])])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert [line["valid"] for line in lines] == [True, False, True]
    assert [line["path"] for line in lines] == [str(files[k]) for k in ("good", "bad", "reply")]
    for line in lines:
        assert line["isolation"] == "namespaces"
        assert line["seconds"] > 0
        assert [c["name"] for c in line["checks"]][:3] == ["parse", "static", "load"]
        assert all(set(c) >= {"name", "passed", "message"} for c in line["checks"])
    failed = next(c for c in lines[1]["checks"] if not c["passed"])
    assert failed["name"] == "solvable"
    assert failed["message"].startswith("seed 0: replaying solution() (1 actions) scored 0")


def test_validate_table_and_archive(files, tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert main(["validate", "--run-dir", str(run_dir), str(files["good"])]) == 0
    printed = capsys.readouterr().out
    assert "EchoEnv" in printed and "1 of 1 valid; isolation: namespaces" in printed
    with Archive.open(run_dir, create=False) as archive:
        (record,) = archive.records()
    assert record.valid and record.class_name == "EchoEnv" and record.origin == str(files["good"])
    assert record.hint == "Read the letters from the last one to the first."

    assert main(["archive", "ls", str(run_dir)]) == 0
    assert "EchoEnv" in capsys.readouterr().out
    assert main(["archive", "show", str(run_dir), str(record.id)]) == 0
    shown = capsys.readouterr().out
    assert "no_hint_leak" in shown and "class EchoEnv(TextEnv)" in shown
    assert main(["archive", "export", str(run_dir), "--format", "jsonl"]) == 0
    exported = (run_dir / "archive.jsonl").read_text().splitlines()
    assert len(exported) == 1 and json.loads(exported[0])["class_name"] == "EchoEnv"
    assert main(["archive", "export", str(run_dir), "--format", "parquet"]) == 0
    assert (run_dir / "archive.parquet").stat().st_size > 0


def test_validate_reports_missing_file_and_invalid_source(files, tmp_path, capsys):
    missing = tmp_path / "missing.py"
    code = main(["validate", str(missing), str(files["notpython"]), str(files["noenv"])])
    captured = capsys.readouterr()
    assert code == 1
    assert f"spadework: {missing}: no such file" in captured.err
    assert "syntax error at line 1" in captured.out
    assert "no class whose name ends in 'Env'" in captured.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["archive", "ls", "{tmp}/nowhere"], "no archive.sqlite in {tmp}/nowhere"),
        (["archive", "show", "{tmp}/nowhere", "1"], "no archive.sqlite in {tmp}/nowhere"),
        (["play", "{tmp}/missing.py"], "{tmp}/missing.py: no such file"),
        (["play", "{notpython}"], "{notpython}: syntax error at line 1"),
        (["play", "{noenv}"], "{noenv}: no class whose name ends in 'Env'"),
        (["play", "{notpython}", "--difficulty", "2"], "{notpython}: syntax error at line 1"),
    ],
)
def test_bad_input_gets_one_line_and_no_traceback(files, tmp_path, args, message):
    fill = {"tmp": str(tmp_path), "notpython": str(files["notpython"]),
            "noenv": str(files["noenv"])}
    done = run_cli(*(a.format(**fill) for a in args))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith(f"spadework: {message.format(**fill)}")


def test_archive_show_unknown_id(files, tmp_path, capsys):
    run_dir = tmp_path / "run"
    main(["validate", "--json", "--run-dir", str(run_dir), str(files["good"])])
    capsys.readouterr()
    assert main(["archive", "show", str(run_dir), "99"]) == 2
    assert "no environment with id 99" in capsys.readouterr().err


def test_play_in_terminal(files):
    word_line = run_cli("play", str(files["good"]), "--seed", "5", stdin=":quit\n").stdout
    word = word_line.split("backwards: ")[1].split()[0]
    done = run_cli("play", str(files["good"]), "--seed", "5",
                   stdin=f"wrong\n:hint\n{word[::-1]}\n")
    assert done.returncode == 0, done.stderr
    assert "Not quite." in done.stdout
    assert "Read the letters from the last one" in done.stdout
    assert "score 1 after 2 turns - solved!" in done.stdout


def test_play_at_a_difficulty_the_environment_declares_and_one_it_does_not(files):
    from tests.envs.test_declared_ladder import SHOP

    path = files["good"].parent / "shop.py"
    path.write_text(SHOP, encoding="utf-8")
    done = run_cli("play", str(path), "--difficulty", "5", stdin=":quit\n")
    assert done.returncode == 0, done.stderr
    assert "Do these in order:" in done.stdout and "5. " in done.stdout
    refused = run_cli("play", str(files["good"]), "--difficulty", "2", stdin=":quit\n")
    assert refused.returncode == 2 and "difficulty 2 is not one" in refused.stderr


def test_validate_with_levels_reports_the_difficulties_kept(tmp_path):
    from tests.envs.test_declared_ladder import COUNTING

    path = tmp_path / "sums.py"
    path.write_text(COUNTING, encoding="utf-8")
    done = run_cli("validate", "--levels", "--json", str(path))
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["difficulties"] == 3 and verdict["ladder"] is None
    plain = json.loads(run_cli("validate", "--json", str(path)).stdout)
    assert plain["difficulties"] == 1
