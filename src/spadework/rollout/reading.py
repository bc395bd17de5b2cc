"""Reading what an environment returned, as the play path and its audit both do: the contract of
``reset`` and ``step`` checked once, here, and text cut to its limit."""

from __future__ import annotations

from typing import Any

from spadework.envs.contract import MAX_OBSERVATION_CHARS
from spadework.errors import EnvContractError


def text(value: Any, limit: int) -> str:
    """``value`` as text, at most ``limit`` characters.

    >>> text(12345, 3), text("abcdef", 4)
    ('123', 'abcd')
    """
    return (value if isinstance(value, str) else str(value))[:limit]


def read_reset(value: Any) -> tuple[Any, Any]:
    """Observation and info from what ``reset`` returned.

    Raises:
        EnvContractError: ``value`` is not a pair.

    >>> read_reset(("Go.", {}))
    ('Go.', {})
    >>> read_reset("Go.")
    Traceback (most recent call last):
    ...
    spadework.errors.EnvContractError: reset() returned 'Go.'; return (observation, info)
    """
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise EnvContractError(f"reset() returned {str(value)[:100]!r}; return (observation, info)")
    return value[0], value[1]


def read_step(result: Any) -> tuple[str, float, bool, bool]:
    """Observation, reward, terminated and truncated from what ``step`` returned.

    Raises:
        EnvContractError: ``result`` is not a 5-item sequence or its reward is not a number.

    >>> read_step(["Right.", 1, True, False, {}])
    ('Right.', 1.0, True, False)
    >>> read_step(["Right.", "one", True, False, {}])
    Traceback (most recent call last):
    ...
    spadework.errors.EnvContractError: step() returned reward 'one'; return a number (int or float)
    """
    if not isinstance(result, (list, tuple)) or len(result) != 5:
        raise EnvContractError(f"step() returned {str(result)[:100]!r}; return a 5-tuple "
                               "(observation, reward, terminated, truncated, info)")
    observation, reward, terminated, truncated, _info = result
    if isinstance(reward, bool) or not isinstance(reward, (int, float)):
        raise EnvContractError(f"step() returned reward {str(reward)[:50]!r}; return a number (int or float)")
    return text(observation, MAX_OBSERVATION_CHARS), float(reward), bool(terminated), bool(truncated)
