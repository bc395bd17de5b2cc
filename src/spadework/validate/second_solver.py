"""The second solver: an answer puzzle's key checked against its text by a route that cannot read it.

``solvable`` replays ``solution()``, which hands back the key the environment stored, so a key
that does not follow from the puzzle's text (the sum of unrounded times where the text shows two
decimals, an inverted rule) passes it. With ``ValidatorConfig.second_solver`` the module also
defines ``solve(observation)`` at its top level, and the validator runs it in a worker of its own
with the module's imports, functions and helpers but **not its environment class**: no episode was
ever reset there, so nothing the environment stored can reach it. Its answer must win each of
``SOLVER_SEEDS`` seeds.

What it cannot catch: a solver that repeats the key's mistake (a greedy "optimum" in both), or one
that rebuilds the environment's drawing to recover the seed; the check is against a key that
disagrees with the text, not against a designer that writes the same wrong method twice.
"""

from __future__ import annotations

import ast

from spadework.envs.contract import is_answer_puzzle, is_solved
from spadework.errors import CheckFailed, CheckOff
from spadework.sandbox.program import FunctionCalls
from spadework.validate.context import CheckContext

SOLVER = "solve"
"""The name of the module-level function that answers from the text alone."""

SOLVER_SEEDS = 16
"""Seeds the solver answers: a key wrong only where two roundings do not cancel (the run's
``TimeExecutionEnv``) is wrong on about one seed in four, so eight seeds miss it one time in ten,
sixteen one time in a hundred."""

AS_TEXT = "_second_solver_text"
AS_TEXT_SOURCE = f"""

def {AS_TEXT}(observation):
    from spadework.envs.base import answer_text
    return answer_text({SOLVER}(observation))
"""
"""Appended to the solver's source and called in its place: the answer written as a player sends it
(``answer_text``), in the solver's worker, so an answer of any type (a ``Decimal``, a fraction)
comes back as text, and an object that claims to equal everything comes back as what it prints."""

KEPT = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)
"""The top-level statements the solver runs with: imports, functions, helper classes and constants."""


def solver_source(tree: ast.Module) -> str | None:
    """The module without its environment class (the class whose name ends in ``Env``): imports,
    functions, helper classes, assignments; None when it defines no top-level ``solve``.

    >>> tree = ast.parse("import math\\nclass SumEnv:\\n    x = 1\\ndef solve(text):\\n    return 2\\n")
    >>> print(solver_source(tree))
    import math
    <BLANKLINE>
    def solve(text):
        return 2
    >>> solver_source(ast.parse("class SumEnv:\\n    def solve(self, text):\\n        return 2\\n")) is None
    True
    """
    if not any(isinstance(node, ast.FunctionDef) and node.name == SOLVER for node in tree.body):
        return None
    kept: list[ast.stmt] = [node for node in tree.body if isinstance(node, KEPT)
            and not (isinstance(node, ast.ClassDef) and node.name.endswith("Env"))]
    return ast.unparse(ast.Module(kept, type_ignores=[]))


def check_second_solver(ctx: CheckContext) -> None:
    """With ``second_solver`` on, an answer puzzle's ``solve(observation)``, run apart from its
    class, answers every validation seed as the episode accepts (see the module)."""
    if not ctx.config.second_solver:
        raise CheckOff("not asked for: designer.second_solver (ValidatorConfig.second_solver) is off")
    if ctx.tool_world or not is_answer_puzzle(ctx.code or ""):
        raise CheckOff("not an answer puzzle: the second solver answers puzzles only")
    source = solver_source(ctx.tree) if ctx.tree is not None else None
    if source is None:
        raise CheckFailed(f"define {SOLVER}(observation: str) -> str at the module's top level, outside the "
                          "class: it reads the puzzle's text and returns the answer, without the class or "
                          "anything it stores")
    seeds = ctx.config.compared_seeds(SOLVER_SEEDS)
    observations = tuple((ctx.episode(seed).observation,) for seed in seeds)
    run = ctx.sandbox.call(FunctionCalls(source + AS_TEXT_SOURCE, AS_TEXT, observations))
    if run.error is not None:
        raise CheckFailed(f"{SOLVER}(observation) failed: {run.error}; it runs alone, with the module's "
                          "imports, functions and helpers but not its environment class")
    for seed, answer in zip(seeds, run.values, strict=True):
        text = str(answer)  # the worker's answer_text
        if not is_solved(ctx.play(seed, [text]).score):
            key = ctx.episode(seed).solution[0]
            raise CheckFailed(f"seed {seed}: {SOLVER}(observation), reading the text alone, answers "
                              f"{text[:60]!r} but the episode's answer is {key[:60]!r}: the answer does not "
                              "follow from the text; compute self.answer from exactly what the puzzle says")
