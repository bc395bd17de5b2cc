"""The BFCL v4 multi-turn backend against the leaderboard's own package (bfcl-eval).

The oracle plays every entry whose possible answer uses keyword arguments only (the decoder
drops positional ones), as the leaderboard plays a model: turns in order, the answer of a
turn written as the model's reply, decoded, executed, then scored by the leaderboard's checker.
All 800 entries run in a few seconds, so no sample is taken.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import random
import sys

import pytest

from spadework.errors import EnvCrashed, UsageError

needs_bfcl = pytest.mark.skipif(
    importlib.util.find_spec("bfcl_eval") is None,
    reason="bfcl-eval is not installed (pip install --no-deps bfcl-eval==2026.3.23)")

KEYWORD_ONLY = 176
"""Entries per category whose possible answer has no positional argument (of 200)."""


def keyword_only(entry) -> bool:
    return not any(isinstance(node, ast.Call) and node.args for turn in entry.answers for call in turn
                   for node in ast.walk(ast.parse(call, mode="eval")))


@pytest.fixture(scope="module")
def bfcl():
    pytest.importorskip("bfcl_eval")
    return importlib.import_module("spadework.eval.bfcl")


@pytest.fixture(scope="module")
def entries(bfcl):
    return {category: bfcl.load_entries(category) for category in bfcl.CATEGORIES}


def refused(result: str) -> bool:
    return "is not defined" in result or "literal arguments" in result


def play_answers(bfcl, entry) -> list[list[list[str]]]:
    """Each turn's possible answer as the model's one reply in that turn, decoded and executed."""
    played = []
    with bfcl.EntryWorld(entry) as world:
        for turn, answer in enumerate(entry.answers):
            assert entry.messages(turn), f"{entry.id}: turn {turn} opens with no message"
            if not answer:
                played.append([])
                continue
            decoded = bfcl.decode_calls("[" + ", ".join(answer) + "]")
            assert decoded.kind is bfcl.ReplyKind.CALLS and decoded.positional == 0, (entry.id, decoded)
            results = world.execute(decoded.calls)
            assert len(results) == len(decoded.calls) and not any(map(refused, results)), (entry.id, results)
            played.append([list(decoded.calls)])
    return played


@needs_bfcl
@pytest.mark.parametrize("category", ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
                                      "multi_turn_long_context"])
def test_the_oracle_solves_every_keyword_only_entry(bfcl, entries, category):
    qualifying = [entry for entry in entries[category] if keyword_only(entry)]
    assert len(entries[category]) == 200 and len(qualifying) == KEYWORD_ONLY
    failed = {}
    for entry in qualifying:
        score = bfcl.score_entry(entry, play_answers(bfcl, entry))
        if not score.valid:
            failed[entry.id] = (score.error_type, score.error_message)
    assert failed == {}


@needs_bfcl
def test_every_possible_answer_as_written_scores_valid(bfcl, entries):
    """Positional calls included: the screen on executed calls refuses none of the answers'."""
    for rows in entries.values():
        for entry in rows:
            steps = [[list(answer)] if answer else [] for answer in entry.answers]
            assert bfcl.score_entry(entry, steps).valid, entry.id


@needs_bfcl
@pytest.mark.parametrize("category", ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
                                      "multi_turn_long_context"])
def test_the_null_policy_solves_nothing(bfcl, entries, category):
    sample = random.Random(7).sample(entries[category], 25)
    scores = [bfcl.score_entry(entry, [[] for _ in entry.answers]) for entry in sample]
    assert not any(score.valid for score in scores)
    assert {score.error_type for score in scores} == {"multi_turn:empty_turn_model_response"}


@needs_bfcl
def test_fewer_turns_than_the_entry_has_is_a_forced_quit(bfcl, entries):
    entry = entries["multi_turn_base"][0]
    score = bfcl.score_entry(entry, [[list(entry.answers[0])]])
    assert (score.valid, score.error_type) == (False, bfcl.FORCE_TERMINATED)
    assert "1 turns were played of the entry's 4" in score.error_message


@needs_bfcl
def test_worlds_of_one_entry_share_no_state_and_close_removes_their_instances(bfcl, entries):
    entry = entries["multi_turn_base"][0]
    executor = importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils")
    before = {key for key in vars(executor) if key.startswith(bfcl.SESSION_PREFIX)}
    first, second = bfcl.EntryWorld(entry), bfcl.EntryWorld(entry)
    assert first.name != second.name
    first.execute(["cd(folder='document')", "mkdir(dir_name='only_in_first')"])
    [listing] = second.execute(["ls()"])
    assert "only_in_first" not in listing and "document" in listing
    assert "only_in_first" in first.execute(["ls()"])[0]
    assert len(bfcl.session_instances(first.name)) == len(entry.involved_classes)
    first.close()
    first.close()
    assert bfcl.session_instances(first.name) == [] and bfcl.session_instances(second.name) != []
    with pytest.raises(EnvCrashed, match="is closed; open a new EntryWorld"):
        first.execute(["ls()"])
    with second:
        pass
    bfcl.score_entry(entry, [[list(answer)] for answer in entry.answers])
    assert {key for key in vars(executor) if key.startswith(bfcl.SESSION_PREFIX)} == before


@needs_bfcl
def test_the_package_executor_alone_shares_state_under_one_model_name(bfcl, entries):
    """Why every world and every score gets a fresh name: the executor caches by name and id."""
    entry = entries["multi_turn_base"][0]
    executor = importlib.import_module("bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils")
    name = "spadework_trap_demo"

    def cd_document(model_name: str) -> list[str]:
        return executor.execute_multi_turn_func_call(["cd(folder='document')"], dict(entry.initial_config),
                                                     list(entry.involved_classes), model_name, entry.id)[0]

    try:
        first, again, other = cd_document(name), cd_document(name), cd_document(name + "_other")
    finally:
        bfcl._forget(name)
        bfcl._forget(name + "_other")
    assert first == other == ['{"current_working_directory": "document"}']
    assert again == ['{"error": "cd: \'document\': No such file or directory"}']  # already in document


@needs_bfcl
def test_a_positional_argument_is_counted_and_dropped_by_the_decoder(bfcl, entries):
    decoded = bfcl.decode_calls('[cd("Alex")]')
    assert (decoded.kind, decoded.calls, decoded.positional, decoded.ends_turn) == (
        bfcl.ReplyKind.CALLS, ("cd()",), 1, False)
    with bfcl.EntryWorld(entries["multi_turn_base"][0]) as world:
        [result] = world.execute(decoded.calls)
    assert result.startswith(bfcl.ERROR_PREFIX) and "'folder'" in result


@needs_bfcl
@pytest.mark.parametrize(("reply", "kind"), [
    ("", "EMPTY"), ("  \n", "EMPTY"), ("[]", "EMPTY"), ("```\n[]\n```", "EMPTY"),
    ("I cannot do that without the file name.", "UNDECODABLE"),
    ("ls()\nI listed the folder.", "UNDECODABLE"),
    ("<think>list it</think>[ls()]", "UNDECODABLE"),
])
def test_replies_without_calls_end_the_turn(bfcl, reply, kind):
    decoded = bfcl.decode_calls(reply)
    assert decoded.kind is bfcl.ReplyKind[kind] and decoded.ends_turn and decoded.calls == ()
    assert bool(decoded.error) == (kind == "UNDECODABLE")


@needs_bfcl
def test_calls_are_decoded_as_the_leaderboard_writes_them(bfcl):
    reply = "```\n[cd(folder='a'), mv(source='x',destination=\"y\"), add(a=1+2, b=-1.5)]\n```"
    decoded = bfcl.decode_calls(reply)
    assert decoded.calls == ("cd(folder='a')", "mv(source='x', destination='y')", "add(a=3, b=-1.5)")


@needs_bfcl
def test_code_in_a_reply_is_neither_decoded_nor_run(bfcl, entries, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    arithmetic = bfcl.decode_calls("[cd(folder=open('made_by_decoder', 'w').name + 'x')]")
    assert arithmetic.kind is bfcl.ReplyKind.UNDECODABLE and "arithmetic on Attribute" in arithmetic.error
    assert bfcl.decode_calls("[add(a=9**9**9)]").kind is bfcl.ReplyKind.UNDECODABLE
    injected = bfcl.decode_calls("""[cd(folder={"': __import__('os').getpid(), 'k": 1})]""")
    assert injected.kind is bfcl.ReplyKind.UNDECODABLE
    assert "not a call with literal arguments" in injected.error
    with bfcl.EntryWorld(entries["multi_turn_base"][0]) as world:
        results = world.execute(["help()", "open(file='made_by_executor', mode='w')", "os.getcwd()",
                                 "cd(folder=__name__)", "cd(folder=os.environ)", "pwd()"])
    assert results[:5] == [bfcl.ERROR_PREFIX + reason for reason in (
        "name 'help' is not defined", "name 'open' is not defined", "name 'os' is not defined",
        "only calls of the listed functions with literal arguments are run",
        "only calls of the listed functions with literal arguments are run")]
    assert "current_working_directory" in results[5]
    assert list(tmp_path.iterdir()) == []


@needs_bfcl
def test_the_system_prompt_lists_the_functions_and_held_out_ones_come_at_their_turn(bfcl, entries):
    entry = entries["multi_turn_miss_func"][0]
    assert entry.missed.keys() == {3} and entry.turns[3] == ()
    [held_out] = entry.missed[3]
    prompt = bfcl.system_prompt(entry.functions)
    assert all(f'"name": "{doc["name"]}"' in prompt for doc in entry.functions)
    assert f'"name": "{held_out["name"]}"' not in prompt and "[func_name1(params_name1=" in prompt
    [message] = entry.messages(3)
    assert message.role.value == "user" and f"'name': '{held_out['name']}'" in message.content
    assert entry.messages(0) == entry.turns[0]


@needs_bfcl
def test_excluded_functions_stay_listed_as_on_the_leaderboard(entries):
    entry = entries["multi_turn_base"][0]
    assert entry.excluded_function == ("cp",) and "cp" in {doc["name"] for doc in entry.functions}


@needs_bfcl
def test_results_message_and_step_limit_come_from_the_package(bfcl):
    assert bfcl.results_message(["ls()"], ["{}"]) == "[{'role': 'tool', 'name': 'ls()', 'content': '{}'}]"
    assert bfcl.step_limit() == 20


@needs_bfcl
def test_an_unknown_category_names_the_choices(bfcl):
    with pytest.raises(UsageError, match="unknown BFCL category 'multi_turn'; choose from multi_turn_base, "):
        bfcl.load_entries("multi_turn")


def test_the_module_imports_without_the_package_and_says_how_to_install_it(monkeypatch):
    for name in [name for name in sys.modules if name == "bfcl_eval" or name.startswith("bfcl_eval.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "bfcl_eval", None)
    for name in ("spadework.eval.bfcl", "spadework.eval.bfcl_data"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    bfcl = importlib.import_module("spadework.eval.bfcl")
    assert bfcl.count_positional('[cd("Alex")]') == 1
    message = ("BFCL evaluation needs the bfcl-eval package, which is not installed; install it with: "
               "pip install 'spadework[eval]' && pip install --no-deps bfcl-eval==2026.3.23")
    with pytest.raises(UsageError) as caught:
        bfcl.load_entries("multi_turn_base")
    assert str(caught.value) == message
    with pytest.raises(UsageError, match="needs the bfcl-eval package"):
        bfcl.decode_calls("[ls()]")


def test_a_missing_dependency_of_the_package_is_named(monkeypatch):
    from spadework.eval import bfcl_data

    def missing(name):
        raise ModuleNotFoundError("No module named 'tree_sitter'", name="tree_sitter")

    monkeypatch.setattr(bfcl_data, "import_module", missing)
    with pytest.raises(UsageError, match=r"^BFCL evaluation needs tree_sitter \(imported by bfcl-eval\), "):
        bfcl_data.bfcl_module("model_handler.utils")
