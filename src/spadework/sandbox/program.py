"""Code verdicts no model code can forge: trusted tests in one worker, the model's function in another.

A verdict is decided by a process in which no model-written code has run. The **candidate**
worker runs the model's code (with the problem's prompt, never its tests) and keeps its function;
the **tester** worker runs the trusted tests with a proxy in the function's place. Each call of
the proxy travels, as plain data, from the tester through this process to the candidate, and
only the candidate's result, as the text of a plain literal (``sandbox.plain``), travels back;
the tester reads it without running code. A call that raises, returns something that is not
plain data (an object equal to everything, a function), or forges a reply fails in the tester;
a candidate that hangs, crashes or exits fails the verdict. The tester's reply is the verdict:
it passes when the tests run to their end. The candidate cannot reach the tester: it is another
process under another uid (and another PID namespace under bubblewrap), it never sees the test
source, and its frames hold no caller to read.

What it costs: the function runs apart from the tests, so a test that needs the function itself
(passes it on as a callback, reads its attributes, checks that it mutated an argument) cannot
pass; the function's exceptions reach the tests as one type, ``CallFailed``.

The candidate side alone (``call_in_worker``) answers a caller that judges the results itself:
the validator's second solver sends an answer puzzle's ``solve(observation)`` to a worker where
its environment never ran, and plays what comes back, decoded as plain data, in the environment.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from spadework.errors import EnvError, EnvTimeout
from spadework.sandbox import plain
from spadework.sandbox.env import raised
from spadework.sandbox.process import WorkerProcess
from spadework.sandbox.protocol import Op
from spadework.sandbox.worker import describe_exception


@dataclass(frozen=True)
class TestedCode:
    """A model's function and the trusted tests that judge it.

    Attributes:
        candidate: the model's code (with whatever of the problem it may see); defines ``entry_point``.
        tests: trusted source that defines ``check(candidate)``, which raises when a test fails.
        entry_point: the function's name.
    """

    __test__ = False  # not a test class, whatever its name says

    candidate: str
    tests: str
    entry_point: str


@dataclass(frozen=True)
class ProgramRun:
    """How one verdict went.

    Attributes:
        passed: the tests ran to their end against the function.
        error: why not, when they did not (the failed test and its line, a timeout, a crash).
        seconds: wall time from sending the code to its verdict.
    """

    passed: bool
    error: str | None = None
    seconds: float = 0.0


def check_in_workers(start: Callable[[], WorkerProcess], code: TestedCode, timeout_s: float) -> ProgramRun:
    """The verdict on ``code`` from two fresh workers made by ``start``, within ``timeout_s`` in all;
    both are killed afterwards, with everything they started."""
    began = time.monotonic()

    def left() -> float:
        return _left(began, timeout_s)

    candidate = tester = None
    try:
        candidate = start()
        defined = candidate.request({"op": Op.DEFINE, "source": code.candidate,
                                     "entry_point": code.entry_point}, left(), "define")
        if not defined.get("ok"):
            return ProgramRun(False, _error("define", defined), time.monotonic() - began)
        tester = start()
        reply = tester.request({"op": Op.TEST, "source": code.tests, "entry_point": code.entry_point},
                               left(), "test")
        while reply.get("ok") and "call" in reply:
            answer = candidate.request({"op": Op.CALL, "args": reply["call"]}, left(), "call")
            value = answer.get("value") if answer.get("ok") else None
            tester.send({"value": value} if isinstance(value, str) else {"error": _error("call", answer)},
                        "test")
            reply = tester.receive(left(), "test")
    except EnvTimeout:
        return ProgramRun(False, f"did not answer within {timeout_s} s (the limit of the whole verdict)",
                          time.monotonic() - began)
    except EnvError as exc:  # a crash, a reply that was not one
        return ProgramRun(False, str(exc), time.monotonic() - began)
    finally:
        for worker in (candidate, tester):
            if worker is not None:
                worker.kill()
    if reply.get("ok"):
        return ProgramRun(True, None, time.monotonic() - began)
    return ProgramRun(False, _error("test", reply), time.monotonic() - began)


@dataclass(frozen=True)
class FunctionCalls:
    """A model's function and the arguments to call it with, each call's result wanted back.

    Attributes:
        source: the model's code; defines ``entry_point``.
        entry_point: the function's name.
        calls: each call's positional arguments (plain data).
    """

    source: str
    entry_point: str
    calls: tuple[tuple[object, ...], ...]


@dataclass(frozen=True)
class CallsRun:
    """What the calls returned, in order, as plain data (``sandbox.plain``): all of them, or
    those before the first that failed, with ``error`` saying why (a raise, a value that is not
    plain data, a timeout, a crash)."""

    values: tuple[object, ...]
    error: str | None = None


def call_in_worker(start: Callable[[], WorkerProcess], calls: FunctionCalls, timeout_s: float) -> CallsRun:
    """Each call's result from one fresh worker made by ``start`` that runs ``calls.source`` alone
    (nothing else was loaded there), within ``timeout_s`` in all; the worker is killed afterwards."""
    began = time.monotonic()
    values: list[object] = []
    worker = None
    try:
        worker = start()
        reply = worker.request({"op": Op.DEFINE, "source": calls.source, "entry_point": calls.entry_point},
                               _left(began, timeout_s), "define")
        if not reply.get("ok"):
            return CallsRun((), _error("define", reply))
        for args in calls.calls:
            reply = worker.request({"op": Op.CALL, "args": plain.encode((list(args), {}))},
                                   _left(began, timeout_s), "call")
            if not reply.get("ok") or not isinstance(reply.get("value"), str):
                return CallsRun(tuple(values), _error("call", reply))
            values.append(plain.decode(reply["value"]))
    except EnvTimeout:
        return CallsRun(tuple(values), f"did not answer within {timeout_s} s (the limit of all the calls)")
    except (EnvError, plain.NotPlain) as exc:  # a crash, a reply that was not one, a forged value
        return CallsRun(tuple(values), str(exc))
    finally:
        if worker is not None:
            worker.kill()
    return CallsRun(tuple(values))


def call_in_process(calls: FunctionCalls) -> CallsRun:
    """FAKE for trusted code in fast tests: the calls in this process, with no limit, the results
    still crossing as plain data."""
    values: list[object] = []
    try:
        namespace: dict = {"__name__": "__candidate__"}
        exec(compile(calls.source, "<program>", "exec"), namespace)
        for args in calls.calls:
            values.append(plain.decode(plain.encode(namespace[calls.entry_point](*args))))
    except BaseException as exc:  # noqa: BLE001 - sys.exit and friends are failures of the code
        return CallsRun(tuple(values), str(raised("call", describe_exception(exc))))
    return CallsRun(tuple(values))


def _left(began: float, timeout_s: float) -> float:
    """Seconds left of ``timeout_s`` since ``began`` (``time.monotonic``), never quite none."""
    return max(0.01, timeout_s - (time.monotonic() - began))


def _error(call: str, reply: dict) -> str:
    """What a failed reply says, whatever shape a hostile reply gave its error."""
    error = reply.get("error")
    error = error if isinstance(error, dict) else {"message": error}
    return str(raised(call, {"type": str(error.get("type", "Error"))[:100],
                             "message": str(error.get("message", ""))[:500],
                             "where": str(error.get("where", ""))[:300]}))


def check_in_process(code: TestedCode) -> ProgramRun:
    """FAKE for trusted code in fast tests: both sides in this process, with no limit, the results
    still crossing as plain data."""
    start = time.monotonic()
    try:
        namespace: dict = {"__name__": "__candidate__"}
        exec(compile(code.candidate, "<program>", "exec"), namespace)
        function = namespace[code.entry_point]

        def candidate(*args, **kwargs):
            return plain.decode(plain.encode(function(*plain.decode(plain.encode(list(args))),
                                                      **plain.decode(plain.encode(kwargs)))))

        tests: dict = {"__name__": "__tests__"}
        exec(compile(code.tests, "<tests>", "exec"), tests)
        tests[code.entry_point] = candidate
        tests["check"](candidate)
    except BaseException as exc:  # noqa: BLE001 - sys.exit and friends are failures of the code
        return ProgramRun(False, str(raised("test", describe_exception(exc))), time.monotonic() - start)
    return ProgramRun(True, None, time.monotonic() - start)
