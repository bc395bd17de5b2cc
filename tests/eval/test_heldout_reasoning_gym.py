"""The reasoning-gym adapter against the real package: oracle answers solve, wrong ones do not."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("reasoning_gym")

from spadework.envs.reasoning_gym_env import ANSWER_NOTE, TASKS, ReasoningGymEnv  # noqa: E402
from spadework.errors import EnvError, EnvRaised  # noqa: E402

SEEDS = (0, 1, 2)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_the_reference_answer_solves_every_default_task_and_a_wrong_one_does_not(task):
    env = ReasoningGymEnv(task)
    for seed in SEEDS:
        observation, info = env.reset(seed)
        assert observation.endswith(ANSWER_NOTE) and info == {"task": task, "seed": seed}
        [answer] = env.solution()
        assert env.step(answer)[1:4] == (1.0, True, False)
        env.reset(seed)
        _, reward, terminated, truncated, _ = env.step("zzz not it")
        assert (reward < 1.0, terminated, truncated) == (True, True, False)


def test_one_seed_is_one_item_and_seeds_differ():
    env = ReasoningGymEnv("leg_counting")
    first = [env.reset(seed)[0] for seed in range(4)]
    assert first == [env.reset(seed)[0] for seed in range(4)]
    assert len(set(first)) == 4


def test_the_item_does_not_depend_on_or_change_the_global_random_state():
    env = ReasoningGymEnv("basic_arithmetic")
    random.seed(1)
    state = random.getstate()
    question = env.reset(5)[0]
    assert random.getstate() == state
    random.seed(99)
    assert env.reset(5)[0] == question


def test_the_answer_is_graded_with_score_answer_and_surrounding_space_ignored():
    options = {"min_terms": 2, "max_terms": 2, "min_digits": 1, "max_digits": 1, "operators": ("+",)}
    env = ReasoningGymEnv("basic_arithmetic", options)
    env.reset(3)
    [answer] = env.solution()
    assert env.step(f"  {answer}\n")[:2] == ("Correct.", 1.0)


def test_a_wrong_answer_graded_near_one_by_float_rounding_is_not_solved():
    # spell_backward adds 1/len per matching letter: the word plus one letter sums to
    # 1.0000000000000002 for seed 0 (9 letters) and 0.9999999999999998 for seed 1 (7 letters).
    env = ReasoningGymEnv("spell_backward")
    for seed in (0, 1):
        env.reset(seed)
        [answer] = env.solution()
        _, reward, _, _, info = env.step(answer + "x")
        assert info["raw_score"] != 1.0 and abs(info["raw_score"] - 1.0) < 1e-9
        assert reward == 0.99


def test_hint_raises_and_step_needs_a_reset():
    env = ReasoningGymEnv("gcd")
    with pytest.raises(EnvError, match="call reset"):
        env.step("1")
    env.reset(0)
    with pytest.raises(EnvError, match="has no hint"):
        env.hint()


def test_an_unknown_task_fails_its_episode_not_the_caller():
    env = ReasoningGymEnv("no_such_task")
    with pytest.raises(EnvRaised, match="could not build task 'no_such_task'"):
        env.reset(0)
