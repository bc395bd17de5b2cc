"""spadework as a library: the verbs, and the README's script run exactly as printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import spadework
from spadework.errors import ConfigError, UsageError

ROOT = Path(__file__).parents[2]
EXAMPLE = (ROOT / "src/spadework/envs/examples/number_guess.py").read_text()


def readme_script() -> str:
    section = (ROOT / "README.md").read_text().split("## Python API", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_script_validates_and_plays_an_environment():
    done = subprocess.run([sys.executable, "-c", readme_script()], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, last = done.stdout.strip().splitlines()[0], done.stdout.strip().splitlines()[-1]
    assert first == "True valid"
    assert last.endswith("1.0 True")  # the solution solves it


def test_import_is_light_and_the_verbs_are_documented():
    code = ("import sys, spadework; "
            "print(sorted(m for m in ('spadework.config', 'torch') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]"
    for verb in ("validate_source", "open_env", "run_self_play", "open_archive", "load_config"):
        assert verb in spadework.__all__ and getattr(spadework, verb).__doc__
    assert (ROOT / "src/spadework/py.typed").is_file()
    with pytest.raises(AttributeError):
        spadework.no_such_verb  # noqa: B018


def test_a_broken_source_gets_a_verdict_and_a_clear_error():
    verdict = spadework.validate_source("class Broken(:\n")
    assert not verdict.valid and "static" in verdict.failure.name
    with pytest.raises(UsageError, match="does not load"), spadework.open_env("raise SystemExit(3)\n"):
        pass


def test_run_self_play_then_open_archive(tmp_path):
    summary = spadework.run_self_play({"policy": {"kind": "scripted"}, "sandbox": {"pool_size": 1},
                                       "diversity": {"embedder": "hashing"}}, tmp_path / "run",
                                      overrides={"run.iterations": 1, "run.designs": 2, "run.plays": 1})
    assert summary.iterations == 1
    with spadework.open_archive(tmp_path / "run") as archive:
        assert len(archive) == summary.environments > 0
    resumed = spadework.run_self_play(None, tmp_path / "run", resume=True, overrides={"run.iterations": 2})
    assert resumed.iterations == 2 and len(resumed.metrics) == 2
    with pytest.raises(ConfigError, match="run.designs"):
        spadework.run_self_play({"run": {"designs": 0}}, tmp_path / "other")
