"""Handles on a loaded environment: the sandboxed one, and the in-process fake."""

from __future__ import annotations

from typing import Any, Protocol

from spadework.errors import EnvRaised
from spadework.sandbox.config import Isolation, SandboxConfig
from spadework.sandbox.loader import EnvAdapter, LoadError, load
from spadework.sandbox.process import WorkerProcess
from spadework.sandbox.protocol import Op
from spadework.sandbox.worker import describe_exception


class EnvHandle(Protocol):
    """A loaded environment, whatever runs it. Values come back as plain JSON data.

    Every method may raise ``EnvError``: ``EnvRaised`` when the environment's code
    raised (the environment can still be called), ``EnvTimeout``, ``EnvCrashed`` or
    ``EnvProtocolError`` when the environment has ended for good.
    """

    isolation: Isolation
    class_name: str
    max_turns: Any
    difficulties: int
    """How many difficulties the environment declares (1: none to choose)."""
    tolerances: list[str]

    def reset(self, seed: int | None = None) -> Any:
        """Start the episode of ``seed``: ``(observation, info)``."""

    def step(self, action: str) -> Any:
        """Play one action: ``(observation, reward, terminated, truncated, info)``."""

    def redraw(self, seed: int, plan: dict[str, Any] | None) -> Any:
        """``reset(seed)`` with its drawn values written down and changed as ``plan`` says
        (``sandbox.draws``): ``{"opening", "draws", "applied"}``."""

    def solution(self) -> Any:
        """The actions that solve the current episode."""

    def hint(self) -> Any:
        """The current episode's hint."""

    def close(self) -> None:
        """End the environment (and its worker)."""


class SandboxProtocol(Protocol):
    """What every sandbox offers: ``Sandbox`` (isolated worker processes), ``RaySandbox`` (Ray
    actors) and the ``InProcessSandbox`` FAKE. Use as a context manager; ``close`` ends it."""

    config: SandboxConfig

    @property
    def isolation(self) -> Isolation:
        """How environments are isolated."""

    def open(self, source: str, difficulty: int | None = None) -> EnvHandle:
        """A loaded environment of ``source``, at ``difficulty`` (None: the environment's own)."""

    def check(self, code: Any, timeout_s: float | None = None) -> Any:
        """The verdict of a program's trusted tests on its function (a ``ProgramRun``)."""

    def call(self, calls: Any, timeout_s: float | None = None) -> Any:
        """A model's function's results for each of its calls, run apart from everything else (a
        ``CallsRun`` of a ``FunctionCalls``)."""

    def close(self) -> None:
        """Release the sandbox's workers."""

    def __enter__(self) -> Any: ...
    def __exit__(self, *exc: object) -> None: ...


def raised(call: str, error: dict[str, str]) -> EnvRaised:
    """The error for an exception the environment raised during ``call``.

    >>> str(raised("step", {"type": "KeyError", "message": "'x'", "where": "line 3, in step: a[x]"}))
    "step() raised KeyError: 'x' (line 3, in step: a[x])"
    """
    where = f" ({error['where']})" if error.get("where") else ""
    return EnvRaised(f"{call}() raised {error['type']}: {error['message']}{where}")


class SandboxedEnv:
    """An environment living in its own worker process. Use as a context manager."""

    def __init__(self, worker: WorkerProcess, source: str, difficulty: int | None = None):
        self.worker = worker
        self.isolation = worker.isolation
        self.tolerances: list[str] = []
        info = self._call({"op": Op.LOAD, "source": source, "difficulty": difficulty}, "load")
        self.class_name = info["class_name"]
        self.max_turns = info["max_turns"]
        self.difficulties = int(info.get("difficulties", 1))

    def _call(self, message: dict[str, Any], what: str) -> Any:
        timeout = self.worker.config.load_timeout_s if what == "load" else \
            self.worker.config.call_timeout_s
        reply = self.worker.request(message, timeout, what)
        self.tolerances.extend(t for t in reply.get("tolerances", ()) if isinstance(t, str))
        if reply["ok"]:
            return reply.get("value")
        error = reply.get("error")
        if not isinstance(error, dict):
            error = {"type": "Error", "message": str(error)[:200]}
        if what == "load":
            self.worker.kill(f"load failed: {error.get('message')}")
            if error.get("type") == "LoadError":
                raise EnvRaised(str(error.get("message")))
        raise raised(what, error)

    def reset(self, seed: int | None = None) -> Any:
        """The worker's ``reset(seed)``."""
        return self._call({"op": Op.RESET, "seed": seed}, "reset")

    def step(self, action: str) -> Any:
        """The worker's ``step(action)``."""
        return self._call({"op": Op.STEP, "action": action}, "step")

    def redraw(self, seed: int, plan: dict[str, Any] | None) -> Any:
        """The worker's ``redraw(seed, plan)``."""
        return self._call({"op": Op.REDRAW, "seed": seed, "plan": plan}, "reset")

    def solution(self) -> Any:
        """The worker's ``solution()``."""
        return self._call({"op": Op.SOLUTION}, "solution")

    def hint(self) -> Any:
        """The worker's ``hint()``."""
        return self._call({"op": Op.HINT}, "hint")

    @property
    def alive(self) -> bool:
        """Whether the worker is still running."""
        return self.worker.alive

    def close(self) -> None:
        """Kill the worker."""
        self.worker.kill()

    def __enter__(self) -> SandboxedEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ForwardingEnv:
    """An ``EnvHandle`` whose contract calls all go through ``_call(name, *args)``; subclasses
    say where the call runs (this process, a Ray actor)."""

    def _call(self, what: str, *args: Any) -> Any:
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> Any:
        """The environment's ``reset(seed)``."""
        return self._call("reset", seed)

    def step(self, action: str) -> Any:
        """The environment's ``step(action)``."""
        return self._call("step", action)

    def redraw(self, seed: int, plan: dict[str, Any] | None) -> Any:
        """The environment's ``redraw(seed, plan)``."""
        return self._call("redraw", seed, plan)

    def solution(self) -> Any:
        """The environment's ``solution()``."""
        return self._call("solution")

    def hint(self) -> Any:
        """The environment's ``hint()``."""
        return self._call("hint")

    def close(self) -> None:
        """Nothing to close (the owner closes the environment)."""

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcessEnv(ForwardingEnv):
    """FAKE for fast tests and the unisolated baseline: runs the code in this process.

    Never use it on code nobody reviewed: there is no isolation, no timeout and no limit.
    """

    isolation = Isolation.NONE

    def __init__(self, source: str, config: SandboxConfig | None = None, difficulty: int | None = None):
        config = config or SandboxConfig()
        try:
            self.adapter: EnvAdapter = load(source, config.default_max_turns,
                                            docstring_hint=config.docstring_hint, difficulty=difficulty)
        except LoadError as exc:
            raise EnvRaised(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - the module body raised
            raise raised("load", describe_exception(exc)) from None
        self.class_name = self.adapter.class_name
        self.max_turns = self.adapter.max_turns
        self.difficulties = self.adapter.difficulties
        self.tolerances = self.adapter.tolerances

    def _call(self, what: str, *args: Any) -> Any:
        try:
            return _plain(getattr(self.adapter, what)(*args))
        except Exception as exc:  # noqa: BLE001
            raise raised(what, describe_exception(exc)) from None


def _plain(value: Any) -> Any:
    """Tuples as lists, as they come back from a worker over JSON.

    >>> _plain(("obs", {"a": (1, 2)}))
    ['obs', {'a': [1, 2]}]
    """
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
