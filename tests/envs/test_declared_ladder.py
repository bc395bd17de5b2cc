"""The difficulty ladder of declared worlds and of any environment that declares difficulties: each
rung draws the tasks and records it says, the chained rungs' tasks depend on earlier ones and still
solve, and the validator keeps only the levels that pass every check and are each harder."""

from __future__ import annotations

import pytest
from tests.envs.test_declared_world import shop

from spadework.envs.declared_tasks import LADDER
from spadework.sandbox import InProcessSandbox, Sandbox
from spadework.validate import validate
from spadework.validate.checks import ValidatorConfig

SHOP = shop(2)


def play(env, actions) -> float:
    total = 0.0
    for action in actions:
        _, reward, done, truncated, _ = env.step(action)
        total += reward
        if done or truncated:
            break
    return total


@pytest.mark.parametrize("level", range(1, len(LADDER) + 1))
def test_each_rung_draws_its_tasks_on_its_records_and_its_solution_solves(level):
    rung = LADDER[level - 1]
    for seed in range(25):
        env = InProcessSandbox().open(SHOP, difficulty=level)
        task, info = env.reset(seed)
        records = env.adapter.env.records
        assert len(records["spices"]) == len(records["customers"]) == rung.size
        assert len(env.adapter.env._drawn) == rung.steps
        assert len(env.solution()) <= 2 * rung.steps and env.max_turns >= len(env.solution())
        assert play(env, ["list_records(collection='spices')"]) == 0.0
        env.reset(seed)
        assert play(env, env.solution()) == 1.0


def test_the_chained_rungs_draw_tasks_that_touch_what_earlier_ones_changed():
    depends = 0
    for seed in range(30):
        env = InProcessSandbox().open(SHOP, difficulty=5)
        env.reset(seed)
        steps = env.adapter.env._drawn
        seen: set = set()
        for step in steps:
            named = {t for t in step.touches if len(t) == 2}
            depends += bool(named & seen)
            seen |= named
    assert depends >= 15  # on the unchained rungs, never (tests/envs/test_declared_world.py)


def test_without_a_difficulty_a_declared_world_keeps_its_declared_steps_and_size():
    env = InProcessSandbox().open(SHOP)
    env.reset(3)
    assert len(env.adapter.env.records["spices"]) == 4 and len(env.adapter.env._drawn) == 2


@pytest.mark.parametrize(("budget", "levels"), [(12, 5), (6, 3)])
def test_the_validator_keeps_the_rungs_the_agents_turns_can_finish(budget, levels):
    verdict = validate(SHOP, InProcessSandbox(), ValidatorConfig(levels=True, turn_budget=budget))
    assert verdict.valid and verdict.difficulties == levels
    assert (verdict.ladder is None) == (levels == 5)
    if verdict.ladder:
        assert verdict.ladder.startswith(f"difficulty {levels + 1} is invalid: solvable")


COUNTING = '''
import random
from spadework.envs import AnswerEnv


class SumEnv(AnswerEnv):
    """Add the numbers: more of them, and larger, as the difficulty rises."""

    difficulties = 3

    def new_episode(self):
        count, top = [(2, 9), (4, 99), (6, 999)][self.difficulty - 1]
        values = [self.rng.randint(1, top) for _ in range(count)]
        self.answer = sum(values)
        return "Add: " + " + ".join(map(str, values))

    def hint(self):
        return "Add them from left to right."
'''


def test_a_puzzle_whose_levels_draw_more_and_larger_values_keeps_them_all():
    verdict = validate(COUNTING, InProcessSandbox(), ValidatorConfig(levels=True))
    assert verdict.valid and verdict.difficulties == 3 and verdict.ladder is None


def test_levels_that_are_no_harder_are_left_out_saying_why():
    same = COUNTING.replace("[(2, 9), (4, 99), (6, 999)][self.difficulty - 1]", "(3, 50)")
    verdict = validate(same, InProcessSandbox(), ValidatorConfig(levels=True))
    assert verdict.valid and verdict.difficulties == 1
    assert verdict.ladder.startswith("difficulty 2 is no harder than 1")


def test_a_level_that_turns_guessable_or_breaks_is_left_out_and_level_one_stays_valid():
    """A planted attack: the higher levels answer the same for every seed (a constant key a blind
    guess always wins), or raise: the controller may never climb there."""
    constant = COUNTING.replace("        self.answer = sum(values)\n",
                                "        self.answer = sum(values) if self.difficulty == 1 else 7\n"
                                "        values = values if self.difficulty == 1 else [3, 4]\n")
    broken = COUNTING.replace("        count, top =",
                              "        assert self.difficulty < 3\n        count, top =")
    for source, stop in ((constant, 2), (broken, 3)):
        verdict = validate(source, InProcessSandbox(), ValidatorConfig(levels=True))
        assert verdict.valid and verdict.difficulties == stop - 1, verdict.ladder
        assert verdict.ladder.startswith(f"difficulty {stop} is invalid")


def test_difficulties_without_levels_validated_leave_the_verdict_at_one():
    verdict = validate(COUNTING, InProcessSandbox())
    assert verdict.valid and verdict.difficulties == 1


@pytest.mark.timeout(120)
def test_the_real_sandbox_opens_a_declared_world_at_a_rung():
    with Sandbox() as sandbox:
        env = sandbox.open(SHOP, difficulty=4)
        try:
            assert env.difficulties == len(LADDER)
            env.reset(1)
            assert play(env, env.solution()) == 1.0
        finally:
            env.close()
        verdict = validate(COUNTING, sandbox, ValidatorConfig(levels=True))
        assert verdict.difficulties == 3
