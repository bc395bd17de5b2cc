"""What the held-out adapters share: lazy imports, a private ``random`` state, no hint.

Held-out tasks come from third-party libraries (reasoning-gym, textarena) and are played
through spadework's environment contract (``spadework.envs.contract``), in this process:
they are trusted library code, not designer code, so they skip the sandbox. Those
libraries are imported only when an adapter is built, so spadework imports without them.

Held-out tasks measure the agent; they have no privileged hint, so ``hint()`` raises
``EnvError`` (an evaluation plays them in the arm without the hint only).
"""

from __future__ import annotations

import importlib
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from spadework.errors import EnvError, UsageError

INSTALL_HINT = "pip install 'spadework[eval]'"
PARTIAL_CAP = 0.99
"""The highest score of an episode that is not solved: partial credit never counts as solved."""

_RANDOM_LOCK = threading.Lock()
"""Held while an episode borrows the global ``random`` module (see ``PrivateRandom``)."""


def import_package(module: str, package: str) -> ModuleType:
    """Import ``module`` of the optional ``package``, or say how to install it.

    Raises:
        UsageError: the package is not installed.

    >>> import_package("json", "json").__name__
    'json'
    >>> import_package("no_such_module_here", "no-such-package")
    Traceback (most recent call last):
    ...
    spadework.errors.UsageError: held-out evaluation on no-such-package needs the no-such-package \
package, which is not installed; install it with: pip install 'spadework[eval]'
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(f"held-out evaluation on {package} needs the {package} package, which is not "
                         f"installed; install it with: {INSTALL_HINT}") from None


def graded_score(raw: Any) -> float:
    """A library's grade of an answer or outcome as an episode reward in [0, 1].

    Exactly 1 is solved (1.0): both libraries grade a solved item 1 exactly. Anything else is
    partial credit, clipped to ``[0, PARTIAL_CAP]``, so a grade that float rounding pushed near
    or past 1 is not taken for solved (reasoning-gym's spell_backward, which adds up ``1/len``
    per matching letter, grades some wrong answers 0.9999999999999998 or 1.0000000000000002).
    Non-numbers and non-finite values count as 0.

    >>> graded_score(1), graded_score(0.25), graded_score(-1), graded_score(0.9999999999999998)
    (1.0, 0.25, 0.0, 0.99)
    >>> graded_score(1.0000000000000002), graded_score(None), graded_score(float("nan"))
    (0.99, 0.0, 0.0)
    """
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw != raw:
        return 0.0
    if raw == 1:
        return 1.0
    return min(PARTIAL_CAP, max(0.0, float(raw)))


class PrivateRandom:
    """A ``random`` state of one episode's own, for libraries that draw from the global module.

    textarena seeds and draws from the global ``random`` module. Episodes are reset and
    stepped from several threads at once (``run_plays``), so each adapter runs every library
    call inside ``active()``: under one lock, the global state is swapped for the episode's
    own and swapped back afterwards. An episode is then the same for one seed however the
    calls of other episodes interleave, and code outside sees its global state unchanged.
    """

    def __init__(self) -> None:
        self._state: Any = None

    @contextmanager
    def active(self) -> Iterator[None]:
        """Run the block with this episode's ``random`` state (the current one on first use)."""
        with _RANDOM_LOCK:
            outer = random.getstate()
            if self._state is not None:
                random.setstate(self._state)
            try:
                yield
            finally:
                self._state = random.getstate()
                random.setstate(outer)


class HeldOutEnv:
    """Base of the held-out adapters: no hint, nothing to close, usable as a context manager.

    Subclasses set ``max_turns`` and write ``reset(seed)`` and ``step(action)`` as the
    contract says.
    """

    max_turns: int = 1

    def hint(self) -> str:
        """Held-out tasks have no hint.

        Raises:
            EnvError: always; evaluate held-out tasks in the arm without the hint.
        """
        raise EnvError(f"{type(self).__name__} is a held-out task and has no hint; "
                       "play it in the arm without the hint (Arm.NOHINT)")

    def close(self) -> None:
        """Nothing to release (the library objects are dropped with the adapter)."""

    def __enter__(self) -> HeldOutEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
