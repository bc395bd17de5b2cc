"""The sandbox: a pool of pre-started workers, each serving one environment."""

from __future__ import annotations

import queue
import threading

from spadework.errors import EnvError, SandboxError
from spadework.sandbox.config import Isolation, SandboxConfig
from spadework.sandbox.env import InProcessEnv, SandboxedEnv
from spadework.sandbox.isolation import choose_isolation
from spadework.sandbox.process import WorkerProcess
from spadework.sandbox.program import (
    CallsRun,
    FunctionCalls,
    ProgramRun,
    TestedCode,
    call_in_process,
    call_in_worker,
    check_in_process,
    check_in_workers,
)


class Sandbox:
    """Opens environments in isolated workers. Thread-safe; use as a context manager.

    ``pool_size`` workers are started ahead of time by a background thread, so
    ``open`` rarely waits for a start. A worker serves exactly one environment
    and is killed with it: nothing one environment did can reach the next.

    Example::

        with Sandbox() as sandbox, sandbox.open(source) as env:
            observation, info = env.reset(seed=0)
    """

    def __init__(self, config: SandboxConfig | None = None):
        self.config = config or SandboxConfig()
        self.isolation = choose_isolation(self.config.isolation)
        self._ready: queue.Queue[WorkerProcess] = queue.Queue()
        self._wanted = threading.Semaphore(0)
        self._closed = threading.Event()
        self._filler = None
        if self.config.pool_size:
            for _ in range(self.config.pool_size):
                self._wanted.release()
            self._filler = threading.Thread(target=self._fill, name="sandbox-pool", daemon=True)
            self._filler.start()

    def _fill(self) -> None:
        while True:
            self._wanted.acquire()
            if self._closed.is_set():
                return
            try:
                worker = WorkerProcess(self.config, self.isolation)
            except SandboxError:
                self._closed.wait(0.5)
                self._wanted.release()
                continue
            if self._closed.is_set():
                worker.kill()
                return
            self._ready.put(worker)

    def worker(self) -> WorkerProcess:
        """A started worker: from the pool when one is waiting, else a fresh one."""
        if self._closed.is_set():
            raise SandboxError("this sandbox is closed; create a new Sandbox")
        try:
            worker = self._ready.get_nowait()
            self._wanted.release()
        except queue.Empty:
            worker = WorkerProcess(self.config, self.isolation)
        return worker

    def open(self, source: str, difficulty: int | None = None) -> SandboxedEnv:
        """Load ``source`` in a worker of its own, at ``difficulty`` (None: the environment's own).

        Raises:
            EnvError: the source failed to load (the worker is already gone).
        """
        worker = self.worker()
        try:
            return SandboxedEnv(worker, source, difficulty)
        except EnvError:
            worker.kill()
            raise

    def check(self, code: TestedCode, timeout_s: float | None = None) -> ProgramRun:
        """The verdict of ``code``'s trusted tests on its function, from two workers of their own
        (``sandbox.program``); ``timeout_s`` (for both, in all) defaults to ``call_timeout_s``."""
        return check_in_workers(self.worker, code, timeout_s or self.config.call_timeout_s)

    def call(self, calls: FunctionCalls, timeout_s: float | None = None) -> CallsRun:
        """What a model's function returns for each of ``calls``, from a worker of its own that runs
        that code alone (``sandbox.program``); ``timeout_s`` (in all) defaults to ``call_timeout_s``."""
        return call_in_worker(self.worker, calls, timeout_s or self.config.call_timeout_s)

    def close(self) -> None:
        """Kill every waiting worker. Environments already opened stay theirs to close."""
        self._closed.set()
        self._wanted.release()
        if self._filler is not None:
            self._filler.join(timeout=30)
        while True:
            try:
                self._ready.get_nowait().kill()
            except queue.Empty:
                return

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcessSandbox:
    """FAKE sandbox for fast unit tests and the unisolated baseline (trusted code only)."""

    isolation = Isolation.NONE

    def __init__(self, config: SandboxConfig | None = None):
        self.config = config or SandboxConfig()

    def open(self, source: str, difficulty: int | None = None) -> InProcessEnv:
        """The environment of ``source`` at ``difficulty``, run in this process."""
        return InProcessEnv(source, self.config, difficulty)

    def check(self, code: TestedCode, timeout_s: float | None = None) -> ProgramRun:
        """The verdict in this process: no limit, no timeout (trusted code only)."""
        return check_in_process(code)

    def call(self, calls: FunctionCalls, timeout_s: float | None = None) -> CallsRun:
        """The calls in this process: no limit, no timeout (trusted code only)."""
        return call_in_process(calls)

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> InProcessSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
