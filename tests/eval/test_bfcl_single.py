"""BFCL v4 single-turn (``eval.bfcl_single``, ``eval.bfcl_single_play``) against the leaderboard's own
package: its data, possible answers, prompting decoder and AST checker.

The policies are FAKES (``bfcl_single_fakes``): an oracle that replies with an entry's possible
answer, in the prompting format or as ``<tool_call>`` JSON; one that never calls; one that calls
a function the entry does not list.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

import pytest

pytest.importorskip("bfcl_eval")

from bfcl_single_fakes import Replier, native_reply, prompting_reply, replies_to  # noqa: E402

from spadework.errors import ContextOverflow, UsageError  # noqa: E402
from spadework.eval.bfcl import ReplyKind  # noqa: E402
from spadework.eval.bfcl_play import BfclSettings, End, in_fixed_order  # noqa: E402
from spadework.eval.bfcl_single import (  # noqa: E402
    CATEGORY_GROUPS,
    LIVE_CATEGORIES,
    NON_LIVE_CATEGORIES,
    SINGLE_TURN_CATEGORIES,
    Check,
    decode_reply,
    load_single_entries,
    score_reply,
)
from spadework.eval.bfcl_single_play import drawn_single, judged, play_singles, single_prompt  # noqa: E402
from spadework.eval.command import add_parser  # noqa: E402
from spadework.eval.report import PolicyEval, bfcl_summary, report_json  # noqa: E402
from spadework.eval.runner import eval_metrics, evaluate  # noqa: E402
from spadework.eval.tasks import BFCL_CATEGORIES, select_tasks  # noqa: E402
from spadework.policy.base import Completion, Role, Sampling  # noqa: E402
from spadework.policy.toolcalls import CallFormat  # noqa: E402
from spadework.rollout.records import RolloutConfig  # noqa: E402

GREEDY = Sampling(temperature=0.0, max_tokens=256)
SIZES = {"simple_python": 400, "simple_java": 100, "simple_javascript": 50, "multiple": 200, "parallel": 200,
         "parallel_multiple": 200, "irrelevance": 240, "live_simple": 258, "live_multiple": 1053,
         "live_parallel": 16, "live_parallel_multiple": 24, "live_irrelevance": 884, "live_relevance": 16}
AST = [c for c in SINGLE_TURN_CATEGORIES if "relevance" not in c]
NO_ANSWER = {  # the possible answer contradicts the function's doc, or the checker reads no reply as it
    "parallel_multiple_12", "parallel_multiple_26",  # a parameter the function does not have, required
    "live_simple_106-63-0", "live_simple_112-68-0", "live_multiple_507-149-4",  # a required one left out
    "live_multiple_964-207-0", "live_multiple_862-181-3",
    "simple_java_36", "simple_java_65",  # mixed ArrayList: the converter keeps every element a string
}
NO_ANSWER_BY_FORMAT = {
    CallFormat.NATIVE: NO_ANSWER | {"simple_java_64"},  # a nested answer written as a string, not a list
    CallFormat.PROMPTING: NO_ANSWER | {
        "simple_java_1", "simple_java_67", "simple_java_68",  # the Java decoder drops a HashMap's entries
        "simple_java_35", "simple_java_85",  # an array of bare words: not Java the decoder parses
    },
}
"""Entries whose possible answer no reply in that format passes (the oracle's reply included)."""
WRITERS = {CallFormat.PROMPTING: prompting_reply, CallFormat.NATIVE: native_reply}
NEVER_CALLS = "I cannot help with that: none of these functions does what you ask."


def oracle(entries, call_format: CallFormat) -> Replier:
    return Replier(replies_to(entries, call_format, WRITERS[call_format]))


def always(entries, call_format: CallFormat, text: str) -> Replier:
    return Replier(replies_to(entries, call_format, text))


def test_the_categories_load_offline_from_the_wheel_with_their_possible_answers():
    categories = importlib.import_module("bfcl_eval.constants.category_mapping")
    assert list(NON_LIVE_CATEGORIES) == categories.NON_LIVE_CATEGORY
    assert list(LIVE_CATEGORIES) == categories.LIVE_CATEGORY
    for group in ("single_turn", "live", "non_live", "multi_turn"):
        assert list(CATEGORY_GROUPS[group]) == categories.TEST_COLLECTION_MAPPING[group]
    for category, size in SIZES.items():
        entries = load_single_entries(category)
        assert len(entries) == size and len({e.id for e in entries}) == size, category
        assert all(e.messages[-1].role is Role.USER for e in entries), category
        assert sum(not e.functions for e in entries) == (4 if category == "live_irrelevance" else 0), category
        assert all(bool(e.answer) == (e.check is Check.AST) for e in entries), category
    java = load_single_entries("simple_java")[0]
    hint = "Note that the provided function is in Java 8 SDK syntax."
    assert java.functions[0]["description"].endswith(hint)
    assert java.checked[0]["parameters"]["properties"]["controller"]["type"] == "any"  # as the data has it
    with pytest.raises(UsageError, match="unknown BFCL single-turn category 'simple'; choose from simple_"):
        load_single_entries("simple")


@pytest.mark.parametrize("call_format", list(CallFormat))
def test_the_checker_passes_the_possible_answer_of_every_entry_that_has_one(call_format):
    """All 2,501 entries with a possible answer, through the format's decoder and the AST checker."""
    failed = {entry.id for category in AST for entry in load_single_entries(category)
              if not score_reply(entry, decode_reply(WRITERS[call_format](entry), entry, call_format),
                                 call_format).valid}
    assert failed == NO_ANSWER_BY_FORMAT[call_format]


@pytest.mark.parametrize("call_format", list(CallFormat))
@pytest.mark.parametrize("category", SINGLE_TURN_CATEGORIES)
def test_the_oracle_passes_and_a_policy_that_never_calls_fails(category, call_format):
    """Irrelevance the other way round: never calling passes, the oracle's calls of a listed function fail."""
    sample = drawn_single(category, range(12))
    entries = [entry for _, entry in sample]
    if category == "live_relevance" or "irrelevance" in category:
        first = entries[0].functions[0]["name"]
        calling = Replier(replies_to(entries, call_format, lambda entry: _a_call(entry, call_format)))
        expected = Check.CALL if category == "live_relevance" else Check.NO_CALL
        played = [play for _, play in play_singles(calling, sample, GREEDY, call_format)]
        assert all(play.called and play.score.valid == (expected is Check.CALL) for play in played), first
    else:
        played = [play for _, play in play_singles(oracle(entries, call_format), sample, GREEDY, call_format)]
        expected_valid = [entry.id not in NO_ANSWER_BY_FORMAT[call_format] for entry in entries]
        assert [play.score.valid for play in played] == expected_valid
        assert all(play.called and play.valid_call and play.end is End.DONE for play in played)
    silent = [play for _, play in play_singles(always(entries, call_format, NEVER_CALLS), sample, GREEDY,
                                               call_format)]
    assert all(play.score.valid == ("irrelevance" in category) for play in silent)
    assert not any(play.called or play.valid_call for play in silent)


def _a_call(entry, call_format: CallFormat) -> str:
    """A call of the entry's first function without arguments, in the format."""
    name = entry.functions[0]["name"]
    if call_format is CallFormat.NATIVE:
        return f'<tool_call>\n{{"name": "{name.replace(".", "_")}", "arguments": {{}}}}\n</tool_call>'
    return f"[{name}()]"


def test_replies_are_decoded_as_the_leaderboard_decodes_prompting_replies():
    entry = load_single_entries("simple_python")[0]
    name = entry.functions[0]["name"]
    fenced = decode_reply(f"```\n[{name}(base=10, height=5)]\n```", entry, CallFormat.PROMPTING)
    bare = decode_reply(f"{name}(base=10, height=5)", entry, CallFormat.PROMPTING)
    assert fenced == bare and fenced.calls == ({name: {"base": 10, "height": 5}},)
    assert fenced.known(entry.names(CallFormat.PROMPTING))
    positional = decode_reply(f"[{name}(10, height=5)]", entry, CallFormat.PROMPTING)
    assert positional.positional == 1 and positional.calls == ({name: {"height": 5}},)
    for text, kind in [("", ReplyKind.EMPTY), ("[]", ReplyKind.EMPTY), (NEVER_CALLS, ReplyKind.UNDECODABLE),
                       ("<think>area</think>[f(a=1)]", ReplyKind.UNDECODABLE)]:
        reply = decode_reply(text, entry, CallFormat.PROMPTING)
        assert reply.kind is kind and not reply.called
        assert bool(reply.error) == (kind is ReplyKind.UNDECODABLE)
    unknown = decode_reply("[area_of_circle(radius=2)]", entry, CallFormat.PROMPTING)
    assert unknown.called and not unknown.known(entry.names(CallFormat.PROMPTING))
    assert not score_reply(entry, unknown, CallFormat.PROMPTING).valid


def test_arithmetic_the_decoder_would_eval_is_refused_unless_it_is_on_numbers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    entry = load_single_entries("simple_python")[0]
    numbers = decode_reply("[f(a=2*3+1)]", entry, CallFormat.PROMPTING)
    assert numbers.calls == ({"f": {"a": 7}},)
    code = decode_reply("[f(a=open('made_by_decoder', 'w').name + 'x')]", entry, CallFormat.PROMPTING)
    assert code.kind is ReplyKind.UNDECODABLE and "arithmetic on Attribute" in code.error
    assert list(tmp_path.iterdir()) == []


def test_java_and_javascript_values_are_read_as_source():
    java = load_single_entries("simple_java")[0]
    text = '[GeometryPresentation.createPresentation(controller=mapController, parent="mapArea")]'
    reply = decode_reply(text, java, CallFormat.PROMPTING)
    assert reply.calls == ({"GeometryPresentation.createPresentation": {"controller": "mapController",
                                                                        "parent": "mapArea"}},)
    assert score_reply(java, reply, CallFormat.PROMPTING).valid
    script = load_single_entries("simple_javascript")[0]
    reply = decode_reply('[validateUserInput(inputField="userInputField", isComplete=true)]', script,
                         CallFormat.PROMPTING)
    assert reply.calls == ({"validateUserInput": {"inputField": "userInputField", "isComplete": "true"}},)
    assert score_reply(script, reply, CallFormat.PROMPTING).valid


def test_native_replies_are_tool_calls_with_dots_in_names_as_underscores():
    entry = next(e for e in load_single_entries("live_simple") if e.id == "live_simple_2-2-0")  # uber.ride
    arguments = {"loc": "2020 Addison Street, Berkeley, CA, USA", "type": "comfort", "time": 600}
    call = json.dumps({"name": "uber_ride", "arguments": arguments})
    text = f"Booking it.\n<tool_call>\n{call}\n</tool_call>"
    reply = decode_reply(text, entry, CallFormat.NATIVE)
    assert reply.calls == ({"uber_ride": arguments},) and reply.known(entry.names(CallFormat.NATIVE))
    assert score_reply(entry, reply, CallFormat.NATIVE).valid
    dotted = decode_reply(f"[uber.ride(loc={arguments['loc']!r}, type='comfort', time=600)]", entry,
                          CallFormat.PROMPTING)
    assert score_reply(entry, dotted, CallFormat.PROMPTING).valid  # prompting keeps the dot
    assert not score_reply(entry, reply, CallFormat.PROMPTING).valid
    assert decode_reply("No call needed.", entry, CallFormat.NATIVE).kind is ReplyKind.EMPTY
    broken = decode_reply("<tool_call>\nnot json\n</tool_call>", entry, CallFormat.NATIVE)
    assert broken.kind is ReplyKind.UNDECODABLE and "is not a call" in broken.error


def test_prompts_put_the_leaderboard_system_prompt_before_the_entry_own():
    entry = next(e for e in load_single_entries("live_simple") if e.messages[0].role is Role.SYSTEM)
    messages, tools = single_prompt(entry, CallFormat.PROMPTING)
    assert tools is None and [m.role for m in messages] == [m.role for m in entry.messages]
    assert messages[0].content.endswith("\n\n" + entry.messages[0].content)
    assert f'"name": "{entry.functions[0]["name"]}"' in messages[0].content
    assert "name=value" in messages[0].content  # the note asking for named arguments
    native, tools = single_prompt(entry, CallFormat.NATIVE)
    assert native == list(entry.messages) and [t["function"]["name"] for t in tools] == [
        doc["name"].replace(".", "_") for doc in entry.functions]


def test_the_checker_imports_without_vendor_sdks_and_leaves_the_model_table_alone():
    from spadework.eval.bfcl_single import ast_checker

    assert ast_checker().ast_checker.__module__ == "bfcl_eval.eval_checker.ast_eval.ast_checker"
    assert "bfcl_eval.constants.model_config" not in sys.modules


def test_batches_follow_concurrency_and_an_overflow_ends_only_its_entry():
    sample = drawn_single("simple_python", range(5))
    policy = oracle([e for _, e in sample], CallFormat.PROMPTING)
    played = list(play_singles(policy, sample, GREEDY, batch=2))
    assert policy.batches == [2, 2, 1] and [seed for seed, _ in played] == [0, 1, 2, 3, 4]

    class Overflows(Replier):
        def generate(self, conversations, sampling, tools=None):
            if len(conversations) > 1 or conversations[0][-1].content == sample[1][1].messages[-1].content:
                raise ContextOverflow("does not fit")
            return super().generate(conversations, sampling, tools)

    overflowing = Overflows(policy.replies)
    played = [play for _, play in play_singles(overflowing, sample[:3], GREEDY, batch=3)]
    assert [play.end for play in played] == [End.DONE, End.CONTEXT, End.DONE]
    assert [play.score.valid for play in played] == [True, False, True] and played[1].turns == 0
    overflow = judged(sample[0][1], Completion("", finish_reason="context"), CallFormat.PROMPTING)
    assert overflow.score.error_type == "context" and not overflow.score.valid


def test_evaluate_reports_categories_with_intervals_and_call_rates():
    tasks = select_tasks(["bfcl"], ["simple_python", "irrelevance", "live_parallel"])
    drawn = {t.task: drawn_single(t.task, range(20)) for t in tasks}
    assert len(drawn["live_parallel"]) == 16  # a smaller category is played whole, once
    def entries(category):
        return [entry for _, entry in drawn[category]]

    replies = replies_to(entries("simple_python"), CallFormat.PROMPTING, prompting_reply)
    replies.update(replies_to(entries("irrelevance"), CallFormat.PROMPTING, NEVER_CALLS))
    replies.update(replies_to(entries("live_parallel"), CallFormat.PROMPTING, "[no_such_function(a=1)]"))
    heard = []
    result = evaluate(Replier(replies), tasks, range(20), RolloutConfig(sampling=GREEDY, concurrency=4),
                      bfcl=BfclSettings(CallFormat.PROMPTING), on_item=heard.append)
    assert len(result.items) == len(heard) == 56 and result.tally("bfcl").solved == 40
    metrics = eval_metrics(result)
    assert metrics["eval/bfcl/simple_python/accuracy"] == metrics["eval/bfcl/irrelevance/accuracy"] == 1.0
    assert metrics["eval/bfcl/call_rate"] == 36 / 56 and metrics["eval/bfcl/valid_call_rate"] == 20 / 56
    summary = bfcl_summary(result)
    assert summary["format"] == "prompting" and summary["overall"] == 2 / 3
    parallel = summary["categories"]["live_parallel"]
    assert [parallel[k] for k in ("n", "accuracy", "call_rate", "valid_call_rate")] == [16, 0, 1, 0]
    assert parallel["ci_low"] == 0.0 and 0.15 < parallel["ci_high"] < 0.25
    [shown] = report_json([PolicyEval("fake", "fake", result)], "now")["policies"]
    assert {"called", "valid_call", "prompt_tokens", "entry"} <= set(shown["items"][0])


def test_the_bfcl_suite_plays_every_category_and_groups_name_several():
    assert [t.task for t in select_tasks(["bfcl"])] == list(BFCL_CATEGORIES)
    assert len(BFCL_CATEGORIES) == 17
    assert [t.task for t in select_tasks(["bfcl"], ["live"])] == list(LIVE_CATEGORIES)
    assert [t.task for t in select_tasks([], ["bfcl/single_turn", "base"])] == [*SINGLE_TURN_CATEGORIES,
                                                                              "multi_turn_base"]
    with pytest.raises(UsageError, match="or a group of them \\(single_turn, non_live, live, multi_turn\\)"):
        select_tasks(["bfcl"], ["simple"])


def test_in_fixed_order_names_each_entry_once():
    assert sorted(entry for _, entry in in_fixed_order("abcde", range(9))) == list("abcde")


def test_spadework_eval_plays_single_turn_categories_with_limit(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('[policy]\nkind = "scripted"\n[eval]\nbfcl_format = "native"\n')
    out = tmp_path / "report.json"
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["eval", "--config", str(config), "--suite", "bfcl", "--task", "live_relevance",
                              "--task", "simple_javascript", "--limit", "20", "--out", str(out)])
    assert args.run(args) == 0
    said = capsys.readouterr()
    assert "bfcl/live_relevance item 0 (live_relevance_" in said.err and "with a call" in said.out
    [policy] = json.loads(out.read_text())["policies"]
    assert [policy["tasks"][f"bfcl/{c}"]["n"] for c in ("live_relevance", "simple_javascript")] == [16, 20]
    assert policy["bfcl"]["format"] == "native" and set(policy["bfcl"]["categories"]) == {
        "live_relevance", "simple_javascript"}
    assert 0.0 <= policy["bfcl"]["valid_call_rate"] <= policy["bfcl"]["call_rate"] <= 1.0
