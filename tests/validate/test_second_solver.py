"""The second solver: an answer puzzle's key checked against its text by ``solve(observation)``, run
apart from the class, in the real sandbox; the wrong key the run paid most, and planted attacks on
the check (a key smuggled through the module, a value that is not data, a solver that hangs)."""

from __future__ import annotations

import json
import sys

import pytest

from spadework.sandbox import FunctionCalls, InProcessSandbox
from spadework.validate import ValidatorConfig, Verdict, validate
from spadework.validate.checks import CHECKS

ON = ValidatorConfig(second_solver=True)

SUM = '''
from spadework.envs import AnswerEnv


class TimesEnv(AnswerEnv):
    """The total time of two runs."""

    max_turns = 2

    def new_episode(self):
        self.first = self.rng.randint(100, 999) / 100
        self.second = self.rng.randint(100, 999) / 100
        self.answer = round(self.first + self.second, 2)
        return f"Two runs took {self.first:.2f} s and {self.second:.2f} s. Total seconds, two decimals?"

    def hint(self):
        return "Add the two times."

SOLVER
'''

HONEST = '''
import re


def solve(observation):
    first, second = (float(x) for x in re.findall(r"\\d+\\.\\d+", observation)[:2])
    return f"{first + second:.2f}"
'''


def checked(verdict: Verdict, name: str) -> tuple[str, str]:
    """The outcome and message of one of the verdict's checks."""
    found = next(c for c in verdict.checks if c.name == name)
    return found.outcome.value, found.message


def puzzle(solver: str = HONEST, key: str = "round(self.first + self.second, 2)") -> str:
    return SUM.replace("round(self.first + self.second, 2)", key).replace("SOLVER", solver)


def test_a_fair_puzzle_with_its_solver_passes_in_the_real_sandbox(sandbox):
    verdict = validate(puzzle(), sandbox, ON)
    assert verdict.valid, verdict.reason


def test_the_wrong_key_the_run_paid_most_fails_where_the_text_and_the_key_part(sandbox):
    # the run's TimeExecutionEnv (archive id 10 of the fifth start): the text shows two decimals, the
    # key has more, so the text's own sum is refused
    wrong = puzzle(key="round(self.first + self.second + self.rng.randint(6, 9) / 1000, 3)")
    gate = validate(wrong, sandbox)  # the admission gate sees the hidden thousandths, with no model
    assert gate.failure.name == "key_from_text" and "self.rng.randint(6, 9)" in gate.reason
    without_gate = tuple(check for check in CHECKS if check.name != "key_from_text")
    assert validate(wrong, sandbox, checks=without_gate).valid  # the validator without either takes it
    verdict = validate(wrong, sandbox, ON, checks=without_gate)
    assert not verdict.valid and verdict.failure.name == "second_solver"
    assert "solve(observation), reading the text alone, answers" in verdict.reason
    assert "the answer does not follow from the text" in verdict.reason


def test_a_puzzle_without_a_solver_is_told_to_write_one_and_a_class_method_is_not_one():
    inside = puzzle(solver="").replace("    def hint(self):",
                                       "    def solve(self, observation):\n        return self.answer\n\n"
                                       "    def hint(self):")
    for source in (puzzle(solver=""), inside):
        verdict = validate(source, InProcessSandbox(), ON)
        assert not verdict.valid and "define solve(observation: str) -> str at the module's top level" \
            in verdict.reason
    off = validate(puzzle(solver=""), InProcessSandbox())  # off: nothing asked, and recorded so
    assert off.valid and checked(off, "second_solver") == (
        "off", "not asked for: designer.second_solver (ValidatorConfig.second_solver) is off")


def test_a_key_smuggled_through_the_module_does_not_reach_the_solver(sandbox):
    # the attack: new_episode() leaves the key in a module global and solve() returns it; the solver
    # runs where no episode was ever reset, so it reads the global's first value
    smuggled = puzzle(solver="LAST = ['0']\n\n\ndef solve(observation):\n    return LAST[0]\n").replace(
        "        return f\"Two runs", "        LAST[0] = str(self.answer)\n        return f\"Two runs")
    verdict = validate(smuggled, sandbox, ON)
    assert not verdict.valid and "answers '0' but the episode's answer is" in verdict.reason


@pytest.mark.timeout(30)
@pytest.mark.parametrize("solver, says", [
    ("def solve(observation):\n    while True:\n        pass\n", "failed: did not answer within"),
    ("class Any:\n    def __eq__(self, other):\n        return True\n\n    def __str__(self):\n"
     "        return self\n\n\ndef solve(observation):\n    return Any()\n", "raised TypeError"),
    ("class Any:\n    def __eq__(self, other):\n        return True\n\n\n"
     "def solve(observation):\n    return Any()\n", "Any object at"),  # compared as the text it prints
    ("def solve(observation):\n    return lambda: 0\n", "answers '<function"),
    ("def solve(observation):\n    raise SystemExit(0)\n", "failed: call() raised SystemExit"),
])
def test_a_hostile_solver_fails_the_check_with_what_went_wrong(sandbox, solver, says):
    verdict = validate(puzzle(solver=solver), sandbox, ON)
    assert not verdict.valid and verdict.failure.name == "second_solver" and says in verdict.reason


def test_an_answer_of_any_type_is_sent_as_the_text_a_player_would_write(sandbox):
    decimal = HONEST.replace("import re", "import re\nfrom decimal import Decimal").replace(
        'return f"{first + second:.2f}"', 'return Decimal(f"{first + second:.2f}")')
    listed = HONEST.replace('return f"{first + second:.2f}"', 'return [round(first + second, 2)]')
    for solver in (decimal, listed):
        verdict = validate(puzzle(solver=solver), sandbox, ON)
        assert verdict.valid, verdict.reason


def test_the_calls_come_back_as_plain_data_from_a_worker_and_from_the_fake(sandbox):
    calls = FunctionCalls("def f(x):\n    return [x, x * 2, {'k': (x,)}]\n", "f", ((1,), ("a",)))
    expected = ([1, 2, {"k": (1,)}], ["a", "aa", {"k": ("a",)}])
    assert sandbox.call(calls).values == expected == InProcessSandbox().call(calls).values
    partial = sandbox.call(FunctionCalls("def f(x):\n    return 1 / x\n", "f", ((1,), (0,), (2,))))
    assert partial.values == (1.0,) and "ZeroDivisionError" in (partial.error or "")


def test_the_check_leaves_tool_worlds_and_games_alone():
    from tests.envs.test_declared_world import shop

    verdict = validate(shop(1), InProcessSandbox(), ON)
    assert verdict.valid and checked(verdict, "second_solver") == (
        "off", "not an answer puzzle: the second solver answers puzzles only")


@pytest.mark.timeout(120)
def test_the_bench_reads_designs_from_files_and_judges_a_persons_solvers_and_a_policys(
        benchmark_script, monkeypatch, capsys, tmp_path):

    wrong, fair = tmp_path / "wrong.py", tmp_path / "fair.py"
    wrong.write_text(puzzle(solver="", key="round(self.first + self.second + 0.007, 3)"))
    fair.write_text(puzzle(solver=""))
    solvers = tmp_path / "person"
    solvers.mkdir()
    for name in ("wrong", "fair"):
        (solvers / f"{name}.py").write_text(HONEST)
    bench = benchmark_script("second_solver")
    monkeypatch.setattr(sys, "argv", ["second_solver.py", str(wrong), str(fair),
                                      "--classes", "wrong=wrong key", "--solvers", str(solvers)])
    bench.main()
    rows = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["designs"]
    assert [(r["design"], r["class"], r["check"]) for r in rows] == [
        ("wrong", "wrong key", "second_solver"), ("fair", "-", "valid")]
    # a policy is asked for the solver: the scripted fake writes none, and the check asks for it
    for blind in ([], ["--blind"]):  # shown the source, or three openings read in the sandbox
        monkeypatch.setattr(sys, "argv", ["second_solver.py", str(fair), "--set", "policy.kind=scripted",
                                          "--replies", str(tmp_path / "replies"), *blind])
        bench.main()
        row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["designs"][0]
        assert row["check"] == "second_solver" and row["message"].startswith("define solve(observation: str)")
        assert (tmp_path / "replies" / "fair.md").is_file()


def test_the_blind_request_shows_the_openings_and_never_the_source(benchmark_script, sandbox):
    bench = benchmark_script("second_solver")

    class RecordingPolicy:
        """FAKE policy: records each conversation and answers with a solver inside a rewritten class."""

        def __init__(self):
            self.asked: list[str] = []

        def generate(self, conversations, sampling, tools=None):
            from spadework.policy.base import Completion

            self.asked.append(conversations[0][-1].content)
            return [Completion("```python\nclass TimesEnv:\n    pass\n\n\ndef solve(o):\n    return 1\n```")]

    policy, source = RecordingPolicy(), puzzle(solver="")
    shown = bench.openings(sandbox, source)
    assert len(shown) == 3 and all(text.startswith("Two runs took") for text in shown)
    solver = bench.solver_of("fair", source, policy, None, None, shown)
    assert all(text in policy.asked[0] for text in shown) and "class TimesEnv" not in policy.asked[0]
    assert solver == "def solve(o):\n    return 1"  # the reply's class is never taken
    bench.solver_of("fair", source, policy, None, None)
    shown_source = policy.asked[1]
    assert "class TimesEnv(AnswerEnv)" in shown_source and "Also write `solve(observation)`" in shown_source
