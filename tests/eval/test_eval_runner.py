"""``evaluate`` with FAKE policies on the real adapters: hand-checked accuracies and a paired comparison."""

from __future__ import annotations

import pytest

pytest.importorskip("reasoning_gym")
pytest.importorskip("textarena")

from eval_fakes import FakeAgent  # noqa: E402

from spadework.errors import EnvError, UsageError  # noqa: E402
from spadework.eval.report import PolicyEval, paired_rows  # noqa: E402
from spadework.eval.runner import OVERALL, eval_metrics, evaluate, held_out_rollout  # noqa: E402
from spadework.eval.stats import Z95  # noqa: E402
from spadework.eval.tasks import Suite, TaskOpener, TaskSpec  # noqa: E402
from spadework.rollout.play import run_plays  # noqa: E402
from spadework.rollout.records import Arm, EndReason, PlayJob, RolloutConfig  # noqa: E402

TASKS = (TaskSpec(Suite.REASONING_GYM, "spell_backward", 1), TaskSpec(Suite.REASONING_GYM, "gcd", 1),
         TaskSpec(Suite.TEXTARENA, "TowerOfHanoi-v0", 14))
SEEDS = (0, 1, 2, 3)
ROLLOUT = RolloutConfig(max_turns_cap=3, context_tokens=20_000, concurrency=4)


@pytest.fixture(scope="module")
def speller():
    return evaluate(FakeAgent(spells=True), TASKS, SEEDS, ROLLOUT)


@pytest.fixture(scope="module")
def rote():
    return evaluate(FakeAgent(spells=False), TASKS, SEEDS, ROLLOUT)


def test_accuracies_per_task_suite_and_overall(speller):
    # spell_backward: all 4 right; gcd: "0" is never a gcd; Hanoi: the 7 moves solve every seed
    expected = [("reasoning-gym/spell_backward", s) for s in SEEDS] + [("reasoning-gym/gcd", 0)]
    assert [(i.key, i.seed) for i in speller.items[:5]] == expected
    tallies = {scope: (speller.tally(scope).n, speller.tally(scope).solved) for scope in speller.scopes()}
    assert tallies == {"reasoning-gym/spell_backward": (4, 4), "reasoning-gym/gcd": (4, 0),
                       "textarena/TowerOfHanoi-v0": (4, 4), "reasoning-gym": (8, 4), "textarena": (4, 4),
                       OVERALL: (12, 8)}
    assert speller.tally("textarena/TowerOfHanoi-v0").mean_score == 1.0
    assert {i.turns for i in speller.items if i.suite is Suite.TEXTARENA} == {7}
    assert speller.errors == 0


def test_the_turn_cap_of_the_rollout_does_not_cut_the_tasks_own_turns():
    # ROLLOUT caps at 3 turns, but Tower of Hanoi needs 7: evaluate gives each task its own
    assert held_out_rollout(ROLLOUT, TASKS).max_turns_cap == 14
    assert held_out_rollout(ROLLOUT, TASKS[:2]).max_turns_cap == 1


def test_eval_metrics_have_stable_names(speller):
    assert eval_metrics(speller) == {
        "eval/reasoning-gym/spell_backward/accuracy": 1.0, "eval/reasoning-gym/gcd/accuracy": 0.0,
        "eval/textarena/TowerOfHanoi-v0/accuracy": 1.0, "eval/reasoning-gym/accuracy": 0.5,
        "eval/textarena/accuracy": 1.0, "eval/accuracy": pytest.approx(8 / 12)}


def test_paired_comparison_of_two_fakes_on_the_same_items(speller, rote):
    a, b = PolicyEval("rote", "r", rote), PolicyEval("speller", "s", speller)
    rows = {row.scope: row for row in paired_rows(a, b)}
    spell = rows["reasoning-gym/spell_backward"].stats
    assert (spell.n, spell.diff, spell.wins, spell.losses, spell.ties) == (4, 1.0, 4, 0, 0)
    overall = rows[OVERALL].stats
    assert (overall.n, overall.wins, overall.losses, overall.ties) == (12, 4, 0, 8)
    assert overall.diff == pytest.approx(4 / 12)
    # half an item per cell: w = 4.5, l = 0.5, m = 14; centre 4/14, variance (5 - 16/14) / 196
    half = Z95 * ((5 - 16 / 14) / 196) ** 0.5
    assert (overall.ci_low, overall.ci_high) == pytest.approx((4 / 14 - half, 4 / 14 + half))
    assert rows["textarena/TowerOfHanoi-v0"].stats.ties == 4


class FakeBrokenOpener:
    """FAKE opener: every environment fails to reset."""

    def open(self, source):
        return FakeBrokenEnv()


class FakeBrokenEnv:
    max_turns = 3

    def reset(self, seed=None):
        raise EnvError("broken on purpose")

    def close(self):
        pass


def test_a_failing_environment_is_an_unsolved_item_not_a_crash():
    result = evaluate(FakeAgent(spells=True), TASKS[:1], (0, 1), ROLLOUT, opener=FakeBrokenOpener())
    assert [(i.solved, i.score, i.end, i.error) for i in result.items] == [
        (False, 0.0, EndReason.ENV_ERROR, "broken on purpose")] * 2
    assert result.errors == 2 and result.tally().accuracy == 0.0


def test_nothing_to_evaluate_is_a_usage_error():
    with pytest.raises(UsageError, match="nothing to evaluate: 0 tasks and 2 seeds"):
        evaluate(FakeAgent(spells=True), (), (0, 1), ROLLOUT)


def test_the_hinted_arm_of_a_held_out_task_ends_with_a_clear_error():
    task = TASKS[1]
    job = PlayJob(task.key, task.key, 0, Arm.HINT)
    [episode] = run_plays(FakeAgent(spells=True), TaskOpener([task]), [job], ROLLOUT)
    assert episode.end is EndReason.ENV_ERROR and "has no hint" in episode.error
