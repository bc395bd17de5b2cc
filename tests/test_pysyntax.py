"""Parsing from several threads at once: CPython 3.11's tree builder shares its depth counter
between threads, and a garbage collection that runs Python code mid-build lets two parses
interleave (``SystemError: AST constructor recursion depth mismatch``, seen in a run's rollout
threads). The package's parse takes turns; the bare one is tried first to show the load can
provoke the race on this interpreter."""

from __future__ import annotations

import ast
import gc
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from spadework import pysyntax

SOURCE = "def f(x):\n    return [(a, (b, (c, d))) for a in x if a]\n" * 30


class _Finalised:
    """A cycle of these makes each collection run Python code (``__del__``), where the
    interpreter may hand the GIL to another thread."""

    def __del__(self) -> None:
        time.sleep(0)


@pytest.fixture
def thread_churn() -> Iterator[None]:
    interval, thresholds = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)
    gc.set_threshold(10)
    yield
    sys.setswitchinterval(interval)
    gc.set_threshold(*thresholds)


def _failures(parse: Callable[[str], object], threads: int = 4, rounds: int = 300) -> int:
    def work(_: int) -> int:
        failed = 0
        for _ in range(rounds):
            garbage = _Finalised()
            garbage.cycle = garbage  # type: ignore[attr-defined]
            del garbage
            try:
                parse(SOURCE)
            except SystemError:
                failed += 1
        return failed

    with ThreadPoolExecutor(threads) as pool:
        return sum(pool.map(work, range(threads)))


@pytest.mark.usefixtures("thread_churn")
def test_parses_from_many_threads_never_trip_the_shared_depth_counter() -> None:
    if not any(_failures(ast.parse) for _ in range(3)):
        pytest.skip(f"bare ast.parse did not race on Python {sys.version.split()[0]} under this load")
    assert _failures(pysyntax.parse) == 0


def test_parse_keeps_ast_parse_errors_and_modes() -> None:
    with pytest.raises(SyntaxError):
        pysyntax.parse("def (")
    assert isinstance(pysyntax.parse("x + 1", mode="eval"), ast.Expression)
    assert pysyntax.parse("x = 1", "env.py").body[0].lineno == 1
