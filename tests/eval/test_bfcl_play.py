"""Playing BFCL entries with a policy (``eval.bfcl_play``), the bfcl suite of ``evaluate`` and of
``spadework eval``, against the leaderboard's own executor and checker.

The policies are FAKES: an oracle that replies with the entry's possible answer, turn by turn,
in the prompting format or as native ``<tool_call>`` JSON; one that never calls; one that calls
forever; one whose context overflows.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
from collections.abc import Sequence

import pytest

pytest.importorskip("bfcl_eval")

from spadework.errors import ContextOverflow  # noqa: E402
from spadework.eval import bfcl_play  # noqa: E402
from spadework.eval.bfcl_data import CATEGORIES, load_entries  # noqa: E402
from spadework.eval.bfcl_play import BfclSettings, End, drawn, play_entry  # noqa: E402
from spadework.eval.command import add_parser  # noqa: E402
from spadework.eval.runner import evaluate  # noqa: E402
from spadework.eval.tasks import Suite, TaskSpec, select_tasks  # noqa: E402
from spadework.policy.base import Completion, Conversation, Role, Sampling  # noqa: E402
from spadework.policy.toolcalls import CallFormat  # noqa: E402
from spadework.rollout.records import RolloutConfig  # noqa: E402

GREEDY = Sampling(temperature=0.0, max_tokens=256)


class AnswerReplayer:
    """FAKE policy: replies with the possible answer of the turn it is in (one step per turn),
    then ends the turn with an empty reply; ``native`` writes the calls as ``<tool_call>`` JSON."""

    def __init__(self, entries: dict[str, object], native: bool = False):
        self.entries = entries
        self.native = native
        self.prompts: list[int] = []
        self.tools_seen: list[int] = []

    def _entry(self, conversation: Conversation):
        first = next(m.content for m in conversation if m.role is Role.USER)
        return next(e for e in self.entries.values() if e.turns[0][0].content == first)

    def generate(self, conversations: Sequence[Conversation], sampling: Sampling,
                 tools=None) -> list[Completion]:
        [conversation] = conversations
        self.tools_seen.append(len(tools[0]) if tools else 0)
        entry = self._entry(conversation)
        turn = sum(m.role is Role.USER and not _is_results(m.content) for m in conversation) - 1
        after_calls = conversation[-1].role is not Role.USER or _is_results(conversation[-1].content)
        calls = entry.answers[turn] if turn < len(entry.answers) else ()
        text = "" if after_calls or not calls else self._write(calls)
        self.prompts.append(len(conversation))
        return [Completion(text, prompt_tokens=100 * len(conversation), completion_tokens=10,
                           cached_tokens=100 * (len(conversation) - 1))]

    def _write(self, calls: Sequence[str]) -> str:
        if not self.native:
            return f"[{', '.join(calls)}]"
        blocks = []
        for call in calls:
            node = ast.parse(call, mode="eval").body
            arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            call_json = json.dumps({"name": node.func.id, "arguments": arguments})
            blocks.append(f"<tool_call>\n{call_json}\n</tool_call>")
        return "\n".join(blocks)

    def close(self) -> None:
        pass


def _is_results(text: str) -> bool:
    return text.lstrip().startswith("[{'role': 'tool'") or text.lstrip().startswith('[{"role": "tool"')


def keyword_only(entry) -> bool:
    return not any(isinstance(node, ast.Call) and node.args for turn in entry.answers for call in turn
                   for node in ast.walk(ast.parse(call, mode="eval")))


class Scripted:
    """FAKE policy: the same reply every time (or an overflow)."""

    def __init__(self, text: str | None):
        self.text = text
        self.calls = 0

    def generate(self, conversations, sampling, tools=None):
        self.calls += 1
        if self.text is None:
            raise ContextOverflow("the conversation does not fit")
        return [Completion(self.text, prompt_tokens=50, completion_tokens=5)]

    def close(self) -> None:
        pass


def sample(category: str, k: int = 6) -> list:
    entries = [e for e in load_entries(category) if keyword_only(e)]
    return random.Random(1).sample(entries, k)


@pytest.mark.parametrize("category", CATEGORIES)
def test_replaying_the_possible_answers_scores_every_entry_valid(category):
    entries = sample(category)
    policy = AnswerReplayer({e.id: e for e in entries})
    for entry in entries:
        play = play_entry(policy, entry, GREEDY)
        assert play.score.valid, (entry.id, play.score)
        assert play.end is End.DONE and play.turns == len(entry.turns)
        assert play.steps == sum(1 for turn in entry.answers if turn)
        assert (play.positional_calls, play.undecodable) == (0, 0)
        assert play.processed_tokens < play.prompt_tokens  # the fake's cache counts


def test_the_native_format_passes_tools_and_reads_tool_call_json():
    entries = sample("multi_turn_miss_func", 3)
    policy = AnswerReplayer({e.id: e for e in entries}, native=True)
    for entry in entries:
        policy.tools_seen.clear()
        play = play_entry(policy, entry, GREEDY, CallFormat.NATIVE)
        assert play.score.valid, (entry.id, play.score)
        held_out = sum(len(docs) for docs in entry.missed.values())
        assert policy.tools_seen[0] == len(entry.functions)
        assert policy.tools_seen[-1] == len(entry.functions) + held_out  # added at their turn


def test_a_policy_that_never_calls_scores_zero_and_ends_every_turn():
    entry = sample("multi_turn_base", 1)[0]
    policy = Scripted("I cannot help with that.")
    play = play_entry(policy, entry, GREEDY)
    assert not play.score.valid and play.end is End.DONE
    assert policy.calls == len(entry.turns) == play.turns and play.undecodable == len(entry.turns)


def test_a_turn_past_the_step_limit_forces_the_entry_to_quit():
    entry = sample("multi_turn_base", 1)[0]
    policy = Scripted("[ls()]")
    play = play_entry(policy, entry, GREEDY, max_steps=3)
    assert play.end is End.STEP_LIMIT and play.steps == 3 and policy.calls == 4
    assert not play.score.valid and play.score.error_type == "multi_turn:force_terminated"


def test_positional_calls_are_counted_and_a_context_overflow_ends_only_the_entry():
    entry = sample("multi_turn_base", 1)[0]
    play = play_entry(Scripted("[cd('Alex')]"), entry, GREEDY, max_steps=1)
    assert play.positional_calls == 2  # the first step and the one that went past the limit
    overflow = play_entry(Scripted(None), entry, GREEDY)
    assert overflow.end is End.CONTEXT and not overflow.score.valid and overflow.turns == 0


def test_seeds_draw_the_same_entries_and_more_seeds_extend_fewer():
    few = [e.id for _, e in drawn("multi_turn_base", range(3))]
    more = [e.id for _, e in drawn("multi_turn_base", range(6))]
    assert few == more[:3] and len(set(more)) == 6
    assert few == ["multi_turn_base_131", "multi_turn_base_181", "multi_turn_base_22"]  # the order stays
    assert len(drawn("multi_turn_base", range(250))) == 200  # past the last entry, no more: each once


def test_evaluate_plays_bfcl_items_with_their_entries_and_figures():
    tasks = select_tasks(["bfcl"], ["base", "multi_turn_miss_param"])
    assert [t.key for t in tasks] == ["bfcl/multi_turn_base", "bfcl/multi_turn_miss_param"]
    rollout = RolloutConfig(sampling=GREEDY)
    result = evaluate(Scripted(""), tasks, [0, 1], rollout, bfcl=BfclSettings(CallFormat.PROMPTING))
    assert [(i.task, i.seed) for i in result.items] == [(t.task, s) for t in tasks for s in (0, 1)]
    assert [i.entry for i in result.items] == [e.id for t in tasks for _, e in drawn(t.task, [0, 1])]
    assert result.tally("bfcl").accuracy == 0.0 and all(i.error for i in result.items)
    base = tasks[:1]
    entries = {e.id: e for _, e in drawn("multi_turn_base", range(3))}
    solved = evaluate(AnswerReplayer(entries), base, range(3), rollout)
    assert solved.tally("bfcl/multi_turn_base").accuracy == 1.0
    item = solved.items[0].to_json()
    assert {"entry", "steps", "positional_calls", "prompt_tokens", "processed_tokens", "seconds"} <= set(item)


def test_the_bfcl_suite_is_asked_for_by_name_only():
    assert Suite.BFCL not in {t.suite for t in select_tasks()}
    multi_turn = [t.task for t in select_tasks(["bfcl"])][-len(CATEGORIES):]  # after the single-turn ones
    assert multi_turn == list(CATEGORIES)
    assert select_tasks(["bfcl"], ["long_context"]) == (TaskSpec(Suite.BFCL, "multi_turn_long_context", 1),)


def test_spadework_eval_scores_bfcl_with_limit(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bfcl_play, "step_limit", lambda: 2)  # the scripted fake never stops calling
    config = tmp_path / "config.toml"
    config.write_text('[policy]\nkind = "scripted"\n')
    out = tmp_path / "report.json"
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", "--config", str(config), "--suite", "bfcl", "--task", "base",
                              "--limit", "2", "--out", str(out)])
    assert args.run(args) == 0
    said = capsys.readouterr().err
    assert "bfcl/multi_turn_base item 0 (multi_turn_base_" in said and "item 1" in said
    [policy] = json.loads(out.read_text())["policies"]
    assert policy["tasks"]["bfcl/multi_turn_base"]["n"] == 2
    assert [i["entry"] for i in policy["items"]] == [e.id for _, e in drawn("multi_turn_base", [0, 1])]


@pytest.mark.timeout(600)  # a 4k-token prompt read twice: 112 s on a busy 2-core machine, 120+ on a slow one
def test_the_real_embedded_model_plays_a_short_entry_reading_its_docs_once():
    """The 0.5B model on a two-turn entry: the leaderboard's system prompt (4k tokens), its replies
    decoded and executed, the checker's verdict; the engine's prompt cache keeps the tokens it
    computes within 1.2x of the entry's own."""
    pytest.importorskip("llama_cpp")
    from spadework.policy.embedded import EmbeddedPolicy

    entry = next(e for e in load_entries("multi_turn_base") if e.id == "multi_turn_base_38")
    with EmbeddedPolicy("qwen2.5-coder-0.5b", n_ctx=8192) as policy:
        play = play_entry(policy, entry, Sampling(temperature=0.0, max_tokens=96), max_steps=2)
    assert play.turns >= 1 and play.end in (End.DONE, End.STEP_LIMIT)
    assert play.entry_tokens > 4000 and play.prompt_tokens >= play.entry_tokens
    assert play.processed_tokens <= 1.2 * play.entry_tokens, play.figures
    assert play.score.valid or play.score.error_type


def test_a_run_that_evaluates_bfcl_needs_the_context_its_entries_take():
    from spadework.config import load_config
    from spadework.errors import ConfigError

    with pytest.raises(ConfigError, match="set policy.n_ctx = 32768"):
        load_config(None, {"eval.every": 1, "eval.suites": ["bfcl"]})
    assert load_config(None, {"eval.every": 1, "eval.tasks": ["bfcl/multi_turn_base"],
                              "policy.n_ctx": 32768}).policy.n_ctx == 32768
