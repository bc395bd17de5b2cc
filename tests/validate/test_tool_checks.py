"""The validator on tool worlds (``ToolEnv``/``ToolWorld``): the checks' tool parts, each alone, with
exact messages. The broken and good tool fixtures run through the whole validator in test_checks.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from spadework.errors import CheckFailed, CheckOff
from spadework.sandbox import InProcessSandbox
from spadework.sandbox.env import InProcessEnv
from spadework.validate import CheckContext, validate
from spadework.validate.checks import check_contract, check_no_hint_leak, check_solvable, check_tool_effort

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "envs"
LIBRARY = (FIXTURES / "good" / "tool_library.py").read_text()
SHELF = (FIXTURES / "good" / "tool_shelf_answer.py").read_text()
LIBRARY_HINT = '"Lending takes the book\'s id, not its title: look the book up first."'
NEED_THE_CALLS = "make the goal need the calls of solution()"


def context(code: str, env: InProcessEnv | None = None) -> CheckContext:
    """A context as the load check leaves it."""
    return CheckContext(code, InProcessSandbox(), code=code, env=env or InProcessEnv(code))


def with_method(source: str, method: str) -> str:
    """``source`` with ``method`` (indented source) added at the top of its class body."""
    return source.replace("    max_turns = ", f"{method}\n    max_turns = ", 1)


def with_hint(source: str, hint: str) -> str:
    """``source`` (the library fixture) with ``hint()`` returning ``hint``."""
    assert LIBRARY_HINT in source
    return source.replace(LIBRARY_HINT, repr(hint))


def failure(check, code: str) -> str:
    with pytest.raises(CheckFailed) as raised:
        check(context(code))
    return str(raised.value)


class NoToolsEnv(InProcessEnv):
    """FAKE: a tool world whose reset() gives no tools in its info."""

    def reset(self, seed=None):
        observation, info = super().reset(seed)
        return [observation, {**info, "tools": []}]


def test_contract_needs_the_tools_in_resets_info():
    with pytest.raises(CheckFailed) as raised:
        check_contract(context(LIBRARY, NoToolsEnv(LIBRARY)))
    assert str(raised.value) == "the world has no tools: mark its tool methods with @tool"
    check_contract(context(LIBRARY))


def test_tool_effort_rejects_a_task_done_by_an_action_with_no_call():
    finished = with_method(LIBRARY, '    def apply(self, action):\n'
                                    '        if action == "done":\n'
                                    '            return "Finished.", 1.0, True\n'
                                    '        return super().apply(action)\n')
    assert failure(check_tool_effort, finished) == (
        "seed 0: the task is solved before any tool call: the action 'done', with no call, solves a "
        f"fresh episode; {NEED_THE_CALLS}")


def test_tool_effort_passes_one_repeated_call_when_the_solution_makes_only_that_one():
    # the answer form: one call (find), then the answer; nothing to repeat, and no call solves it
    check_tool_effort(context(SHELF))
    check_tool_effort(context(LIBRARY))


def test_tool_effort_is_off_for_other_environments_and_says_so():
    code = (FIXTURES / "broken" / "not_guessable_yes_wins.py").read_text()
    with pytest.raises(CheckOff, match="^not a tool world: no calls to weigh$"):
        check_tool_effort(context(code))


def test_solvable_names_a_wrong_final_answer():
    wrong = SHELF.replace("str(self.answer)]", "str(self.answer + 1)]")
    assert failure(check_solvable, wrong) == (
        "solution() did not solve seed 0: its answer '36' is not the answer the task asks for; "
        "make solution() return calls that succeed and reach the goal")


def test_solvable_names_the_goals_problem_when_no_call_failed():
    looks_only = LIBRARY.replace(
        'f"lend(book_id={self.book[\'id\']}, member_id={self.member})"',
        'f"get(collection=\'books\', id={self.book[\'id\']})"')
    assert failure(check_solvable, looks_only) == (
        "solution() did not solve seed 0: solution() changes nothing in the world: the task must need "
        "state-changing calls (or set self.answer); make solution() return calls that succeed and reach "
        "the goal")


def test_solvable_names_a_call_that_cannot_be_read():
    unreadable = LIBRARY.replace("lend(book_id={self.book['id']}", "lend(book_id=book.id")
    assert failure(check_solvable, unreadable) == (
        "solution() did not solve seed 0: action 2 'lend(book_id=book.id, member_id=117)' cannot be read as "
        "calls: lend() argument 'book_id' is not a plain value (book.id); write numbers, strings, lists or "
        "dicts, and call one tool at a time; make solution() return calls that succeed and reach the goal")


@pytest.mark.parametrize(("hint", "call"), [
    ("Lend book sixty-one to member one hundred seventeen.", "lend(book_id=61, member_id=117)"),
    ("Call lend(book_id=61, member_id=117).", "lend(book_id=61, member_id=117)"),
    ('<tool_call>{"name": "lend", "arguments": {"book_id": 61, "member_id": 117}}</tool_call>',
     "lend(book_id=61, member_id=117)"),
    ("Use FIND on books, by title, for Solaris.",
     "find(collection='books', field='title', value='Solaris')"),
])
def test_no_hint_leak_rejects_a_hint_that_spells_out_a_call(hint, call):
    assert failure(check_no_hint_leak, with_hint(LIBRARY, hint)) == \
        f"seed 0: the hint spells out the call {call}; say what to look for, not the calls"


def test_no_hint_leak_allows_a_hint_that_says_what_to_look_for():
    fair = "Look 'Solaris' up by its title: lending takes the id; the member is 117."
    check_no_hint_leak(context(with_hint(LIBRARY, fair)))
    check_no_hint_leak(context(SHELF))


def test_no_hint_leak_allows_a_call_that_every_seed_makes():
    same_title = LIBRARY.replace("value='{self.book['title']}'", "value='Solaris'")
    named = "Start with find on books, by title, for Solaris."
    check_no_hint_leak(context(with_hint(same_title, named)))


def test_a_tool_world_with_a_good_hint_is_valid_in_the_real_sandbox(sandbox):
    for source in (LIBRARY, SHELF):
        verdict = validate(source, sandbox)
        assert verdict.valid, verdict.reason
        assert verdict.isolation != "none"
