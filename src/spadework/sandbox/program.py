"""Running one program nobody reviewed, to the end or not, in a worker of its own.

A program (a model's function with its tests, say) is executed as a module in a fresh worker,
under the same limits as an environment: a fresh uid, no fork, capped memory and CPU, a private
``/tmp``. It passes when it ends without an exception; an exception, ``sys.exit``, a timeout,
a crash or a reply the worker could not send is a failure with a message, never an error of the
caller. The worker is killed afterwards, with everything the program started.

What the sandbox contains is what a program can do to this machine, not what it claims: code
running in the worker could write a forged reply on the worker's own pipe. Score a program by
whether it ran to the end, as here, and never by a value it returns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from spadework.errors import EnvError
from spadework.sandbox.env import raised
from spadework.sandbox.process import WorkerProcess
from spadework.sandbox.worker import describe_exception


@dataclass(frozen=True)
class ProgramRun:
    """How one program went.

    Attributes:
        passed: it ran to its end without an exception.
        error: why not, when it did not (the exception and its line, a timeout, a crash).
        seconds: wall time from sending the program to its verdict.
    """

    passed: bool
    error: str | None = None
    seconds: float = 0.0


def run_in_worker(worker: WorkerProcess, source: str, timeout_s: float) -> ProgramRun:
    """Run ``source`` in ``worker`` for at most ``timeout_s`` seconds, then kill the worker."""
    start = time.monotonic()
    try:
        reply = worker.request({"op": "run", "source": source}, timeout_s, "run")
    except EnvError as exc:  # a timeout, a crash, a reply that was not one
        return ProgramRun(False, str(exc), time.monotonic() - start)
    finally:
        worker.kill()
    seconds = time.monotonic() - start
    if reply["ok"]:
        return ProgramRun(True, None, seconds)
    error = reply.get("error")
    if not isinstance(error, dict):
        error = {"type": "Error", "message": str(error)[:200]}
    return ProgramRun(False, str(raised("run", error)), seconds)


def run_in_process(source: str) -> ProgramRun:
    """FAKE for trusted programs in fast tests: ``source`` run in this process, with no limit."""
    start = time.monotonic()
    try:
        exec(compile(source, "<program>", "exec"), {"__name__": "__program__"})
    except BaseException as exc:  # noqa: BLE001 - sys.exit and friends are failures of the program
        return ProgramRun(False, str(raised("run", describe_exception(exc))), time.monotonic() - start)
    return ProgramRun(True, None, time.monotonic() - start)
