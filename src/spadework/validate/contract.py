"""Pure checks of the values an environment returns (types, sizes, finiteness)."""

from __future__ import annotations

import math
from typing import Any

from spadework.envs.contract import (
    MAX_ACTION_CHARS,
    MAX_HINT_CHARS,
    MAX_OBSERVATION_CHARS,
    MAX_TURNS_LIMIT,
)


def type_name(value: Any) -> str:
    """The name of a value's type as it came back from the worker.

    >>> type_name(1.5), type_name({"$unserializable": "set", "repr": "{1}"}), type_name(None)
    ('float', 'set', 'None')
    """
    if isinstance(value, dict) and "$unserializable" in value:
        return str(value["$unserializable"])
    return "None" if value is None else type(value).__name__


def observation_problem(value: Any, where: str) -> str | None:
    """What is wrong with an observation, or None.

    >>> observation_problem("", "reset()")
    'reset() returned an empty observation; describe the situation to the agent'
    >>> observation_problem(3, "step()")
    'step() returned an observation of type int; return a str'
    """
    if not isinstance(value, str):
        return f"{where} returned an observation of type {type_name(value)}; return a str"
    if not value.strip():
        return f"{where} returned an empty observation; describe the situation to the agent"
    if len(value) > MAX_OBSERVATION_CHARS:
        return (f"{where} returned an observation of {len(value)} characters; "
                f"keep it under {MAX_OBSERVATION_CHARS}")
    return None


def max_turns_problem(value: Any) -> str | None:
    """What is wrong with ``max_turns``, or None.

    >>> max_turns_problem(10) is None, max_turns_problem(0), max_turns_problem("5")
    (True, 'max_turns is 0; use an int from 1 to 100', 'max_turns is a str; use an int from 1 to 100')
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return f"max_turns is a {type_name(value)}; use an int from 1 to {MAX_TURNS_LIMIT}"
    if not 1 <= value <= MAX_TURNS_LIMIT:
        return f"max_turns is {value}; use an int from 1 to {MAX_TURNS_LIMIT}"
    return None


def reset_problem(value: Any) -> str | None:
    """What is wrong with what ``reset()`` returned, or None.

    >>> reset_problem(["Go north.", {}]) is None
    True
    >>> reset_problem(["Go north."])
    'reset() must return (observation, info); it returned a list of 1'
    """
    if not isinstance(value, list) or len(value) != 2:
        size = f" of {len(value)}" if isinstance(value, list) else ""
        return f"reset() must return (observation, info); it returned a {type_name(value)}{size}"
    if not isinstance(value[1], dict) or "$unserializable" in value[1]:
        return f"reset() returned info of type {type_name(value[1])}; return a dict"
    return observation_problem(value[0], "reset()")


def step_problem(value: Any) -> str | None:
    """What is wrong with what ``step()`` returned, or None.

    >>> step_problem(["ok", 0.5, False, False, {}]) is None
    True
    >>> step_problem(["ok", float("nan"), False, False, {}])
    'step() returned a reward of nan; rewards must be finite numbers'
    >>> step_problem(["ok", 1, "yes", False, {}])
    'step() returned terminated of type str; return a bool'
    """
    if not isinstance(value, list) or len(value) != 5:
        size = f" of {len(value)}" if isinstance(value, list) else ""
        return ("step() must return (observation, reward, terminated, truncated, info); "
                f"it returned a {type_name(value)}{size}")
    observation, reward, terminated, truncated, info = value
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        return f"step() returned a reward of type {type_name(reward)}; return a float"
    if not math.isfinite(reward):
        return f"step() returned a reward of {reward}; rewards must be finite numbers"
    for name, flag in (("terminated", terminated), ("truncated", truncated)):
        if not isinstance(flag, bool):
            return f"step() returned {name} of type {type_name(flag)}; return a bool"
    if not isinstance(info, dict) or "$unserializable" in info:
        return f"step() returned info of type {type_name(info)}; return a dict"
    return observation_problem(observation, "step()")


def solution_problem(value: Any) -> str | None:
    """What is wrong with what ``solution()`` returned, or None.

    >>> solution_problem(["up", "left"]) is None
    True
    >>> solution_problem([])
    'solution() returned no actions; return the actions that solve the episode'
    >>> solution_problem(["up", 3])
    'solution() returned an action of type int; actions are str'
    """
    if not isinstance(value, list):
        return f"solution() returned a {type_name(value)}; return a list of str actions"
    if not value:
        return "solution() returned no actions; return the actions that solve the episode"
    for action in value:
        if not isinstance(action, str):
            return f"solution() returned an action of type {type_name(action)}; actions are str"
        if len(action) > MAX_ACTION_CHARS:
            return f"solution() returned an action of {len(action)} characters; keep actions short"
    return None


def hint_problem(value: Any) -> str | None:
    """What is wrong with what ``hint()`` returned, or None.

    >>> hint_problem("Try the corners first.") is None, hint_problem("  ")
    (True, 'hint() returned an empty hint; give privileged help for this episode')
    """
    if not isinstance(value, str):
        return f"hint() returned a {type_name(value)}; return a str"
    if not value.strip():
        return "hint() returned an empty hint; give privileged help for this episode"
    if len(value) > MAX_HINT_CHARS:
        return f"hint() returned {len(value)} characters; keep it under {MAX_HINT_CHARS}"
    return None
