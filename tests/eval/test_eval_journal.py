"""A long evaluation survives a kill: items are journaled as they are scored, and ``--resume`` plays
only the missing ones (FAKE policies; the BFCL entries and checker are the real ones)."""

from __future__ import annotations

import argparse
import json

import pytest

pytest.importorskip("reasoning_gym")
pytest.importorskip("textarena")

from eval_fakes import FakeAgent, scripted_config_file  # noqa: E402

from spadework.errors import UsageError  # noqa: E402
from spadework.eval.command import add_parser  # noqa: E402
from spadework.eval.journal import journal_path, open_journal  # noqa: E402
from spadework.eval.runner import ItemResult, evaluate  # noqa: E402
from spadework.eval.tasks import Suite, TaskSpec, select_tasks  # noqa: E402
from spadework.policy.base import Sampling  # noqa: E402
from spadework.rollout.records import RolloutConfig  # noqa: E402

SPELL = TaskSpec(Suite.REASONING_GYM, "spell_backward", 1)
ROLLOUT = RolloutConfig(max_turns_cap=3, context_tokens=20_000, concurrency=4)
SELECTION = ["--task", "spell_backward", "--task", "textarena/GuessTheNumber-v0", "--seed-start", "5"]


class CountingAgent(FakeAgent):
    """FAKE policy: the rote speller that counts the conversations it answers."""

    def __init__(self) -> None:
        super().__init__(spells=True)
        self.answered = 0

    def generate(self, conversations, sampling, tools=None):
        self.answered += len(conversations)
        return super().generate(conversations, sampling, tools)


def run_eval(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", *argv])
    return args.run(args)


def test_items_already_played_are_taken_as_they_are_and_not_played_again():
    planted = ItemResult(Suite.REASONING_GYM, "spell_backward", 1, 0.0, False, 1)  # the speller solves it
    agent, heard = CountingAgent(), []
    result = evaluate(agent, [SPELL], (0, 1, 2), ROLLOUT, on_item=heard.append,
                      done={(SPELL.key, 1): planted, (SPELL.key, 9): planted})  # seed 9 is not asked for
    assert agent.answered == 2 and sorted(i.seed for i in heard) == [0, 2]  # only the new ones are told
    assert [(i.seed, i.solved) for i in result.items] == [(0, True), (1, False), (2, True)]


def test_a_bfcl_category_plays_only_the_entries_it_lacks():
    pytest.importorskip("bfcl_eval")
    from bfcl_single_fakes import Replier, prompting_reply, replies_to

    from spadework.eval.bfcl_single import CallFormat
    from spadework.eval.bfcl_single_play import drawn_single

    [task] = select_tasks(["bfcl"], ["simple_python"])
    policy = Replier(replies_to([e for _, e in drawn_single("simple_python", range(6))], CallFormat.PROMPTING,
                                prompting_reply))
    rollout = RolloutConfig(sampling=Sampling(temperature=0.0), concurrency=6)
    first = evaluate(policy, [task], range(4), rollout)
    done = {(i.key, i.seed): i for i in first.items}
    second = evaluate(policy, [task], range(6), rollout, done=done)
    assert policy.batches == [4, 2]  # four entries, then only the two new ones
    assert [i.seed for i in second.items] == list(range(6)) and second.items[:4] == first.items


def test_a_killed_evaluation_resumes_without_playing_its_items_again(tmp_path):
    out, config = tmp_path / "report.json", scripted_config_file(tmp_path)
    assert run_eval(["--config", str(config), *SELECTION, "--seeds", "2", "--out", str(out)]) == 0
    journal = journal_path(out)
    header, *items = journal.read_text().splitlines()
    assert json.loads(header)["plan"].keys() == {"base"} and len(items) == 4
    planted = json.loads(items[0]) | {"solved": True, "score": 1.0}  # a result no replay would give
    cut = items[1][: len(items[1]) // 2]  # the line a kill cut short: that item is played again
    journal.write_text("\n".join([header, json.dumps(planted), items[2], items[3], cut]))
    assert run_eval(["--config", str(config), *SELECTION, "--seeds", "3", "--out", str(out), "--resume"]) == 0
    lines = [json.loads(line) for line in journal.read_text().splitlines()[1:]]
    assert sorted((x["task"], x["seed"]) for x in lines) == sorted(
        (task, seed) for task in ("spell_backward", "GuessTheNumber-v0") for seed in (5, 6, 7))
    [policy] = json.loads(out.read_text())["policies"]
    assert policy["overall"]["n"] == 6
    kept = next(i for i in policy["items"] if (i["task"], i["seed"]) == (planted["task"], planted["seed"]))
    assert kept["solved"] is True


def test_a_journal_of_other_settings_is_refused_and_left_whole(tmp_path):
    out, config = tmp_path / "report.json", scripted_config_file(tmp_path)
    assert run_eval(["--config", str(config), *SELECTION, "--seeds", "1", "--out", str(out)]) == 0
    before = journal_path(out).read_text()
    with pytest.raises(UsageError, match="other settings"):
        run_eval(["--config", str(config), "--set", "agent.max_turns=3", *SELECTION, "--seeds", "1",
                  "--out", str(out), "--resume"])
    assert journal_path(out).read_text() == before
    with pytest.raises(UsageError, match="give --out"):
        run_eval(["--config", str(config), *SELECTION, "--resume"])


def test_without_resume_a_journal_starts_afresh_and_resume_without_one_starts_one(tmp_path):
    path = tmp_path / "r.items.jsonl"
    path.write_text('{"plan": {"base": "x"}}\n{"policy": "base"}\n')
    journal, done = open_journal(path, {"base": "y"}, resume=False)
    assert done == {} and path.read_text() == '{"plan": {"base": "y"}}\n'
    path.unlink()
    journal, done = open_journal(path, {"base": "y"}, resume=True)
    assert done == {} and json.loads(path.read_text()) == {"plan": {"base": "y"}}


def test_a_setting_that_does_not_touch_play_leaves_the_journal_resumable(tmp_path):
    """A later version adds or changes a designer field: the items were played the same way."""
    out, config = tmp_path / "report.json", scripted_config_file(tmp_path)
    assert run_eval(["--config", str(config), *SELECTION, "--seeds", "1", "--out", str(out)]) == 0
    assert run_eval(["--config", str(config), "--set", "designer.max_chance=0.75", *SELECTION,
                     "--seeds", "2", "--out", str(out), "--resume"]) == 0
    assert len(journal_path(out).read_text().splitlines()) == 1 + 2 * 2  # the plan, then two seeds a task
