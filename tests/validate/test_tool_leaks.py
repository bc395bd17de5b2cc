"""Pure detection of a tool world's hint that spells out a solution call, with hand-made cases."""

from __future__ import annotations

import pytest

from spadework.envs.tool_calls import ToolCall
from spadework.validate.tool_checks import tools_problem, unsolved_reason
from spadework.validate.tool_leaks import CallLeak, answer_actions, call_leaks, solution_calls

LEND = ToolCall("lend", {"book_id": 12, "member_id": 7})
FIND = ToolCall("find", {"collection": "books", "field": "title", "value": "Dune"})
LISTING = ToolCall("list_records", {"collection": "books"})


def leaked(hint: str, calls=(LEND,), others=()) -> list[str]:
    return [leak.call for leak in call_leaks(hint, list(calls), [list(o) for o in others])]


@pytest.mark.parametrize("hint", [
    "Lend book 12 to member 7.",
    "LEND: member 7, book 12",
    "lend book twelve to member seven",
    "Call lend(book_id=12, member_id=7) and you are done.",
    "lend(12, 7)",
    '<tool_call>{"name": "lend", "arguments": {"book_id": 12, "member_id": 7}}</tool_call>',
])
def test_a_hint_naming_the_tool_and_all_its_values_leaks_the_call(hint):
    assert leaked(hint) == ["lend(book_id=12, member_id=7)"]


@pytest.mark.parametrize("hint", [
    "Lend the book to member 7; find its id first.",   # one value missing
    "Book 12 goes to member 7.",                        # the tool is not named
    "Blend 12 and 7.",                                  # 'blend' is not 'lend'
    "Lend book 112 to member 77.",                      # other numbers
])
def test_a_hint_that_leaves_something_to_find_does_not_leak(hint):
    assert leaked(hint) == []


def test_the_value_one_may_be_written_as_the_word_one():
    assert leaked("lend book one to member seven", [ToolCall("lend", {"book_id": 1, "member_id": 7})]) \
        == ["lend(book_id=1, member_id=7)"]


def test_a_call_every_other_seed_makes_is_no_secret():
    assert leaked("Use list_records on books.", [LISTING], [[LISTING], [LISTING, LEND]]) == []
    assert leaked("Use list_records on books.", [LISTING], [[LISTING], [LEND]]) == \
        ["list_records(collection='books')"]


def test_a_call_without_values_leaks_only_as_its_text():
    look = ToolCall("look")
    assert leaked("Start with a look around.", [look]) == []
    assert leaked("Start with look().", [look]) == ["look()"]


def test_values_inside_lists_and_dicts_count_one_by_one():
    create = ToolCall("create", {"collection": "loans", "fields": {"book": 12, "member": 7}})
    assert leaked("create in loans: book 12, member 7", [create]) == \
        ["create(collection='loans', fields={'book': 12, 'member': 7})"]
    assert leaked("create a loan for book 12", [create]) == []


def test_each_call_leaks_once_in_solution_order():
    found = call_leaks("find books by title Dune, then lend 12 to 7; lend 12 to 7", [FIND, LEND, LEND], [])
    assert found == [CallLeak(str(FIND), "find, books, title, Dune"),
                     CallLeak(str(LEND), "lend, 12, 7")]


def test_solution_calls_and_answer_actions():
    actions = ["find(collection='books', field='title', value='Dune')",
               "[get(collection='books', id=12), lend(book_id=12, member_id=7)]", "Frank Herbert",
               "lend(book_id=x.y)"]
    assert [c.name for c in solution_calls(actions)] == ["find", "get", "lend"]
    assert answer_actions(actions) == ["Frank Herbert", "lend(book_id=x.y)"]


def test_tools_problem():
    assert tools_problem({"tools": [{"type": "function"}]}) is None
    assert tools_problem({"tools": []}) == "the world has no tools: mark its tool methods with @tool"
    assert tools_problem([]) == tools_problem({"tools": "lend"}) == \
        "reset() returned info without a 'tools' list; return the info ToolEnv.reset() gives"


def test_unsolved_reason_prefers_the_first_failed_call():
    observations = ["find(...) -> []\nget(collection='books', id=3) -> error: no record with id 3 in books",
                    "lend(book_id=3, member_id=7) -> error: lend() failed: no record with id 3 in books"]
    assert unsolved_reason(["a", "b"], observations, "the goal's problem") == \
        "get(collection='books', id=3) -> error: no record with id 3 in books"
    assert unsolved_reason(["a"], ["a() -> 1"], None) == \
        "its 1 actions ran without an error, but the goal was not reached"
    assert unsolved_reason(["a(x=1)", "7"], ["a(x=1) -> 1", "Not the answer the task asks for."], None) == \
        "its answer '7' is not the answer the task asks for"
