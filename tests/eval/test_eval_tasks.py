"""Choosing held-out tasks, opening them, and the clear errors of missing packages."""

from __future__ import annotations

import sys

import pytest

from spadework.envs import reasoning_gym_env, textarena_env
from spadework.errors import EnvError, UsageError
from spadework.eval import tasks as tasks_module
from spadework.eval.tasks import DEFAULT_TASKS, Suite, TaskOpener, TaskSpec, require_packages, select_tasks


def keys(tasks) -> list[str]:
    return [t.key for t in tasks]


def test_the_defaults_are_six_reasoning_gym_tasks_and_four_games():
    assert select_tasks() == tuple(t for t in DEFAULT_TASKS if t.suite not in (Suite.BFCL, Suite.CODE))
    assert keys(select_tasks(["textarena"])) == ["textarena/GuessTheNumber-v0", "textarena/TowerOfHanoi-v0",
                                                 "textarena/FrozenLake-v0", "textarena/Mastermind-v0"]
    assert [t.max_turns for t in select_tasks(["reasoning-gym"])] == [1] * 6


def test_names_are_found_in_the_chosen_suites_or_by_suite_slash_name():
    chosen = select_tasks([], ["basic_arithmetic", "textarena/LightsOut-v0", "basic_arithmetic"])
    assert keys(chosen) == ["reasoning-gym/basic_arithmetic", "textarena/LightsOut-v0"]
    assert chosen[1].max_turns == textarena_env.GAMES["LightsOut-v0"]


def test_max_turns_applies_to_multi_turn_tasks_only():
    chosen = select_tasks([], ["gcd", "FrozenLake-v0"], max_turns=30)
    assert [(t.key, t.max_turns) for t in chosen] == [("reasoning-gym/gcd", 1),
                                                      ("textarena/FrozenLake-v0", 30)]
    with pytest.raises(UsageError, match="--max-turns must be at least 1"):
        select_tasks([], ["FrozenLake-v0"], max_turns=0)


def test_unknown_suites_and_tasks_say_what_there_is():
    with pytest.raises(UsageError, match="unknown suite 'gem'; choose from reasoning-gym, textarena"):
        select_tasks(["gem"])
    with pytest.raises(UsageError, match="no task 'basic_arithmetic' in textarena; .*TowerOfHanoi-v0"):
        select_tasks(["textarena"], ["basic_arithmetic"])
    with pytest.raises(UsageError, match="no task 'Wordle-v0'"):
        select_tasks([], ["Wordle-v0"])


def test_any_reasoning_gym_dataset_is_accepted_beyond_the_defaults():
    pytest.importorskip("reasoning_gym")
    assert "count_bits" not in reasoning_gym_env.TASKS
    assert keys(select_tasks([], ["count_bits"])) == ["reasoning-gym/count_bits"]


def test_the_opener_builds_a_fresh_adapter_per_open_and_refuses_unknown_sources():
    pytest.importorskip("reasoning_gym")
    pytest.importorskip("textarena")
    game = TaskSpec(Suite.TEXTARENA, "TowerOfHanoi-v0", 9)
    opener = TaskOpener([TaskSpec(Suite.REASONING_GYM, "gcd", 1), game])
    first, second = opener.open(game.key), opener.open(game.key)
    assert first is not second and first.max_turns == 9
    assert type(opener.open("reasoning-gym/gcd")).__name__ == "ReasoningGymEnv"
    with pytest.raises(EnvError, match="no held-out task 'textarena/Chess-v0'"):
        opener.open("textarena/Chess-v0")


def test_a_missing_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "textarena", None)  # importing it now raises ImportError
    with pytest.raises(UsageError, match=r"needs the textarena package.*pip install 'spadework\[eval\]'"):
        textarena_env.TextArenaEnv("TowerOfHanoi-v0")
    with pytest.raises(UsageError, match="needs the textarena package"):
        require_packages(select_tasks(["textarena"]))
    monkeypatch.setitem(tasks_module.PACKAGES, Suite.REASONING_GYM, ("no_such_module_here", "reasoning-gym"))
    with pytest.raises(UsageError, match="needs the reasoning-gym package"):
        require_packages(select_tasks(["reasoning-gym"]))


def test_spadework_imports_without_the_eval_packages():
    import subprocess

    code = ("import sys; sys.modules['textarena'] = sys.modules['reasoning_gym'] = None\n"
            "import spadework.eval, spadework.eval.command, spadework.envs.textarena_env\n"
            "import spadework.envs.reasoning_gym_env\n"
            "print(len(spadework.eval.select_tasks()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "10"), done.stderr
