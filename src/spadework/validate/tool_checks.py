"""What the validator checks of a tool world (a ``ToolEnv`` or ``ToolWorld``) beyond any environment:
that reset gives tools, why a solution that does not solve fails, that the calls do the work, and
that the hint does not spell them out.

The checks here take the validator's ``CheckContext`` and are no-ops for other environments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spadework.envs.base import INVALID_ACTION as INVALID
from spadework.envs.contract import is_solved
from spadework.envs.tools import CALL_ERROR, NO_CALL, WRONG_ANSWER
from spadework.errors import CheckFailed, CheckOff
from spadework.validate.context import CheckContext, Episode
from spadework.validate.tool_leaks import call_leaks, solution_calls

NOTHING_DONE = {
    "done": "the action 'done', with no call,",
    "no_such_tool()": "a call that changes nothing ('no_such_tool()')",
}
"""Actions that do nothing (an action with no call; a call of a tool no world has), and how the
message names them: on a fresh reset none may solve the task."""
MAKE_IT_SOLVE = "make solution() return calls that succeed and reach the goal"


def tools_problem(info: Any) -> str | None:
    """What is wrong with the tools a tool world's ``reset()`` gives in its info, or None.

    >>> tools_problem({"tools": [{"type": "function", "function": {"name": "lend"}}]}) is None
    True
    >>> tools_problem({"tools": []})
    'the world has no tools: mark its tool methods with @tool'
    >>> tools_problem({})
    "reset() returned info without a 'tools' list; return the info ToolEnv.reset() gives"
    """
    tools = info.get("tools") if isinstance(info, dict) else None
    if not isinstance(tools, list):
        return "reset() returned info without a 'tools' list; return the info ToolEnv.reset() gives"
    if not tools:
        return "the world has no tools: mark its tool methods with @tool"
    return None


def unsolved_reason(actions: Sequence[str], observations: Sequence[str], goal_problem: str | None) -> str:
    """Why replaying a tool world's solution did not solve it: the first failed call as the agent
    read it, else an action that was no call, else the goal's problem, else a wrong answer.

    Args:
        actions: the solution's actions.
        observations: what each played action was answered (as many as were played).
        goal_problem: the goal's problem that reset's info gave, if any.

    >>> unsolved_reason(["find(collection='books')", "lend(book_id=9, member_id=7)"],
    ...                 ["find(collection='books') -> [...]",
    ...                  "lend(book_id=9, member_id=7) -> error: lend() failed: no book with id 9"],
    ...                 "solution() call 2 lend(book_id=9, member_id=7) failed: no book with id 9")
    'lend(book_id=9, member_id=7) -> error: lend() failed: no book with id 9'
    >>> unsolved_reason(["find(collection='books')", "lend book 1"], ["find(...) -> []", NO_CALL], None)
    "action 2 'lend book 1' is no tool call"
    >>> unsolved_reason(["get(collection='books', id=1)"], ["get(collection='books', id=1) -> {...}"],
    ...                 "solution() changes nothing in the world")
    'solution() changes nothing in the world'
    """
    for observation in observations:
        failed = next((line for line in observation.splitlines() if CALL_ERROR in line), None)
        if failed is not None:
            return failed
    for number, (action, observation) in enumerate(zip(actions, observations, strict=False), start=1):
        if observation.startswith(INVALID):
            return f"action {number} {action!r} cannot be read as calls: {observation.removeprefix(INVALID)}"
        if observation.startswith(NO_CALL):
            return f"action {number} {action!r} is no tool call"
    if goal_problem:
        return goal_problem
    for action, observation in zip(actions, observations, strict=False):
        if observation == WRONG_ANSWER:
            return f"its answer {action!r} is not the answer the task asks for"
    return f"its {len(observations)} actions ran without an error, but the goal was not reached"


def check_unsolved(ctx: CheckContext, seed: int, actions: Sequence[str]) -> None:
    """Fail with why a tool world's solution did not solve ``seed`` (the solvable check's message)."""
    trace = ctx.play(seed, actions)
    if is_solved(trace.score):
        return
    problem = trace.info.get("goal_problem")
    reason = unsolved_reason(actions, [str(step[0]) for step in trace.steps],
                             problem if isinstance(problem, str) else None)
    raise CheckFailed(f"solution() did not solve seed {seed}: {reason}; {MAKE_IT_SOLVE}")


def check_tool_effort(ctx: CheckContext) -> None:
    """The calls do the work: on a fresh reset neither an action with no call nor a call that changes
    nothing solves the task, and repeating the solution's first call as often as the solution calls
    does not either (when the solution makes two or more different calls). Off for other worlds."""
    if not ctx.tool_world:
        raise CheckOff("not a tool world: no calls to weigh")
    for seed in ctx.config.seeds:
        for action, named in NOTHING_DONE.items():
            if is_solved(ctx.play(seed, [action]).score):
                raise CheckFailed(f"seed {seed}: the task is solved before any tool call: {named} "
                                  "solves a fresh episode; make the goal need the calls of solution()")
        calls = solution_calls(ctx.episode(seed).solution)
        if len({str(call) for call in calls}) < 2:
            continue
        first = str(calls[0])
        if is_solved(ctx.play(seed, [first] * len(calls)).score):
            raise CheckFailed(f"seed {seed}: repeating {first} {len(calls)} times solves the task: make "
                              "it need every call of the solution")


def check_hint_calls(episodes: Sequence[Episode]) -> None:
    """No hint of a tool world spells out a call of its episode's solution."""
    calls = {e.seed: solution_calls(e.solution) for e in episodes}
    for episode in episodes:
        others = [calls[e.seed] for e in episodes if e.seed != episode.seed]
        found = call_leaks(episode.hint, calls[episode.seed], others)
        if found:
            raise CheckFailed(f"seed {episode.seed}: {found[0].describe()}; say what to look for, "
                              "not the calls")
