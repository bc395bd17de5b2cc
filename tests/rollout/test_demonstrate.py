"""Demonstrations: a tool world's own solution played through the agent's prompt in the way the agent
is asked to call; what the warm start trains on (only the solved), and worlds that try to abuse it."""

from __future__ import annotations

import pytest

from spadework.envs.tool_calls import parse_calls
from spadework.kinds import ToolPrompt
from spadework.learn.samples import demonstration_samples
from spadework.policy.base import Role
from spadework.policy.hf import ByteTokenizer
from spadework.rollout import RolloutConfig
from spadework.rollout.demonstrate import demo_reply, demonstrations

WORLD = '''
from spadework.envs import DeclaredWorld


class ShelfEnv(DeclaredWorld):
    """A shop's shelves."""

    collections = {"items": {"name": ["tea", "rice", "salt", "oats", "figs"], "stock": [1, 4, 9, 12]}}
    tasks = ("update", "transfer")
    steps = 2
    size = 4
'''

QUESTION = '''
from spadework.envs import ToolEnv, tool


class CountEnv(ToolEnv):
    """How many books are lent: ask, then answer."""

    max_turns = 4

    def new_episode(self):
        self.lent = self.rng.randint(2, 9)
        self.asked = False
        self.answer = str(self.lent)
        return "How many books are lent? Ask the desk, then give the number."

    @tool
    def count_lent(self) -> int:
        """The number of books lent now."""
        self.asked = True
        return self.lent

    def state(self):
        return {"asked": self.asked}

    def solution(self):
        return ["count_lent()", str(self.lent)]

    def hint(self):
        return "The desk knows."
'''

NOT_A_LIST = WORLD.replace('tasks = ("update", "transfer")',
                           'tasks = ("update",)\n\n    def solution(self):\n        return 7')

SEEDS = (3, 4, 5)


def _config(way: ToolPrompt, turns: int = 10) -> RolloutConfig:
    return RolloutConfig(max_turns_cap=turns, tool_prompt=way, concurrency=2)


@pytest.mark.parametrize("way", list(ToolPrompt))
def test_a_records_world_is_solved_by_its_demonstration_in_every_way_of_calling(sandbox, way):
    episodes = demonstrations(sandbox, [("shelf", WORLD)], SEEDS, _config(way))
    assert [e.seed for e in episodes] == list(SEEDS)
    for episode in episodes:
        assert episode.solved and episode.hint is None
        assert episode.tool_replies == episode.calls == episode.valid_calls == episode.turns >= 2
        replies = [m.content for m in episode.messages if m.role is Role.ASSISTANT]
        native = way is not ToolPrompt.COMPACT
        assert all(r.startswith('{"name": ') is native and "<tool_call>" not in r for r in replies)
        assert all(len(parse_calls(r)) == 1 for r in replies)  # one call a reply, as the prompts ask
        results = [m.content for m in episode.messages if m.role is Role.TOOL]
        assert "error" not in " ".join(results)
        assert bool(episode.tools) is native  # compact lists its tools under the task instead


def test_a_question_is_answered_in_a_box_after_its_calls(sandbox):
    episode = demonstrations(sandbox, [("count", QUESTION)], [1], _config(ToolPrompt.NATIVE))[0]
    replies = [m.content for m in episode.messages if m.role is Role.ASSISTANT]
    assert episode.solved and replies[0].startswith('{"name": "count_lent"')
    assert replies[1].startswith("\\boxed{") and replies[1][7:-1].isdigit()


def test_a_demonstration_cut_short_by_the_turn_cap_is_played_but_not_trained_on(sandbox):
    episodes = demonstrations(sandbox, [("shelf", WORLD)], SEEDS, _config(ToolPrompt.NATIVE, turns=3))
    assert len(episodes) == 3 and not any(e.solved for e in episodes)  # two tasks take four calls or more
    assert demonstration_samples(episodes, ByteTokenizer()) == []


def test_worlds_of_other_forms_and_worlds_with_no_readable_solution_are_left_out(sandbox, good_source):
    worlds = [("guess", good_source), ("not-a-list", NOT_A_LIST), ("shelf", WORLD)]
    episodes = demonstrations(sandbox, worlds, [1], _config(ToolPrompt.NATIVE))
    assert [e.env_id for e in episodes] == ["shelf"]


def test_the_warm_start_trains_on_the_solutions_calls_alone_with_advantage_one(sandbox):
    episodes = demonstrations(sandbox, [("shelf", WORLD)], SEEDS, _config(ToolPrompt.NATIVE))
    tokenizer = ByteTokenizer()
    samples = demonstration_samples(episodes, tokenizer, max_tokens=100_000)  # bytes, with the tools
    assert [s.source for s in samples] == [f"shelf/seed-{s}/demo" for s in SEEDS]
    for sample, episode in zip(samples, episodes, strict=True):
        assert sample.advantage == 1.0
        trained = tokenizer.decode([i for i, m in zip(sample.ids, sample.mask, strict=True) if m])
        replies = [m.content for m in episode.messages if m.role is Role.ASSISTANT]
        assert trained == "".join(f"{r}<|im_end|>" for r in replies)  # never the task, tools or results
        assert '"name": "find"' in tokenizer.decode(list(sample.ids))  # rendered with the tools it was sent


def test_a_reply_of_a_call_json_cannot_name_is_written_as_python():
    assert demo_reply("move('books', 3, to='archive')", ToolPrompt.NATIVE) == "move('books', 3, to='archive')"
    assert demo_reply("[find(collection='a', field='b', value='c'), get(collection='a', id=1)]",
                      ToolPrompt.COMPACT).splitlines() == ["find(collection='a', field='b', value='c')",
                                                           "get(collection='a', id=1)"]
