"""The sandbox worker: serves one environment (or one side of a code verdict) over the protocol, then dies.

Standard library only; started by the caller as
``python -I -S -B worker.py RUNTIME_DIR CONFIG_JSON``, inside bubblewrap when it can
run. Order matters: take the protocol pipes, pre-import what environments may use,
set resource limits, drop root's privileges, and only then read environment code.
"""

from __future__ import annotations

import builtins
import importlib
import json
import linecache
import os
import resource
import sys
import traceback
from typing import Any, cast

PROGRAM_FILENAME = "<program>"
TESTS_FILENAME = "<tests>"


class CallFailed(Exception):
    """The candidate's call did not return plain data (it raised, or returned something else)."""


def take_protocol_fds() -> tuple[int, int]:
    """Move the protocol off fds 0/1 and point fds 0-2 at /dev/null."""
    rfd, wfd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    return rfd, wfd


def set_limits(config: dict) -> None:
    """Hard resource limits: they cannot be raised again once root's powers are gone."""
    limits = {
        resource.RLIMIT_CPU: (config["cpu_seconds"], config["cpu_seconds"] + 1),
        resource.RLIMIT_AS: (config["memory_bytes"],) * 2,
        resource.RLIMIT_NPROC: (config["max_processes"],) * 2,
        resource.RLIMIT_FSIZE: (config["file_size_bytes"],) * 2,
        resource.RLIMIT_NOFILE: (config["open_files"],) * 2,
        resource.RLIMIT_CORE: (0, 0),
    }
    for which, value in limits.items():
        resource.setrlimit(which, value)


def drop_privileges(uid: int | None) -> None:
    """Become an unprivileged user of our own (a uid no other process uses)."""
    if uid is None or os.geteuid() != 0:
        return
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if os.geteuid() == 0 or os.getuid() == 0:  # pragma: no cover - would be a kernel bug
        os._exit(70)


def die_with_parent(prctl) -> None:
    """Ask the kernel to kill this worker when its parent dies (set after the uid change)."""
    if prctl is not None:
        prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL


class Worker:
    """The request loop. Holds private references to everything it needs, so an
    environment that patches builtins or modules breaks only its own replies."""

    def __init__(self, rfd: int, wfd: int, config: dict):
        from spadework.sandbox import loader, plain, protocol

        self.rfd, self.wfd = rfd, wfd
        self.max_bytes = config["max_message_bytes"]
        self.default_max_turns = config["default_max_turns"]
        self.docstring_hint = config["docstring_hint"]
        self.frame, self.unframe, self.header = protocol.frame, protocol.unframe, protocol.HEADER
        self.op = protocol.Op
        self.load = loader.load
        self.encode, self.decode = plain.encode, plain.decode
        self.candidate: Any = None
        self.read, self.write = os.read, os.write
        self.env: Any = None
        self.reported = 0
        self.builtins = dict(builtins.__dict__)

    def restore_builtins(self) -> None:
        """Put the builtins back as they were at start."""
        # Unconditionally, and without calling any builtin: they may be patched right now.
        current = builtins.__dict__
        current.clear()
        current.update(self.builtins)

    def receive(self):
        """The next request from the caller."""
        header = self.read_exactly(self.header.size)
        (size,) = self.header.unpack(header)
        return self.unframe(self.read_exactly(size))

    def read_exactly(self, size: int) -> bytes:
        """Exactly ``size`` bytes from the caller; exits when the caller is gone."""
        chunks, remaining = [], size
        while remaining:
            chunk = self.read(self.rfd, min(remaining, 1 << 20))
            if not chunk:
                os._exit(0)  # the caller is gone
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def send(self, message: dict) -> None:
        """Send ``message`` (an error in its place when it is over the size limit)."""
        data = self.frame(message)
        if len(data) > self.max_bytes:
            error = {"type": "OutputTooLarge", "where": "",
                     "message": f"reply of {len(data)} bytes is over the {self.max_bytes}-byte limit"}
            data = self.frame({"ok": False, "error": error})
        view = memoryview(data)
        while view:
            view = view[self.write(self.wfd, view):]

    def handle(self, request: dict):
        """What the request asks for: load, reset, redraw, step, solution, hint, turns, or a program's
        part."""
        op, Op = self.op(request["op"]), self.op  # an unknown op is a ValueError
        if op in (Op.DEFINE, Op.CALL, Op.TEST):  # the two sides of a code verdict (``sandbox.program``)
            return getattr(self, op.value)(request)
        if op is Op.LOAD:
            self.env = self.load(request["source"], self.default_max_turns,
                                 docstring_hint=self.docstring_hint, difficulty=request.get("difficulty"))
            return {"class_name": self.env.class_name, "max_turns": self.env.max_turns,
                    "difficulties": self.env.difficulties}
        if self.env is None:
            raise RuntimeError("no environment loaded")
        if op is Op.RESET:
            return self.env.reset(request["seed"])
        if op is Op.REDRAW:
            return self.env.redraw(request["seed"], request["plan"])
        if op is Op.STEP:
            return self.env.step(request["action"])
        if op in (Op.SOLUTION, Op.HINT):
            return getattr(self.env, op.value)()
        return self.env.max_turns  # Op.MAX_TURNS

    def define(self, request: dict) -> str:
        """The candidate side: run the model's code and keep its function (no test source here)."""
        namespace = {"__name__": "__candidate__"}
        exec(compile(cached(request["source"], PROGRAM_FILENAME), PROGRAM_FILENAME, "exec"), namespace)
        function = namespace.get(request["entry_point"])
        if not callable(function):
            raise NameError(f"the code defines no function {request['entry_point']!r}")
        self.candidate = function
        return "defined"

    def call(self, request: dict) -> str:
        """The candidate side: one call of the function, its result written as plain data."""
        if self.candidate is None:
            raise RuntimeError("no function defined")
        args, kwargs = cast("tuple[list[Any], dict[str, Any]]", self.decode(request["args"]))
        return self.encode(self.candidate(*args, **kwargs))

    def test(self, request: dict) -> str:
        """The tester side: run the trusted tests against a proxy of the candidate. Each call goes
        out on the protocol as plain data and only plain data comes back; nothing of the model's
        code runs in this process."""
        namespace: dict[str, Any] = {"__name__": "__tests__"}
        exec(compile(cached(request["source"], TESTS_FILENAME), TESTS_FILENAME, "exec"), namespace)
        send, receive, encode, decode = self.send, self.receive, self.encode, self.decode

        def candidate(*args, **kwargs):
            send({"ok": True, "call": encode((list(args), kwargs))})
            answer = receive()
            if not isinstance(answer.get("value"), str):
                raise CallFailed(str(answer.get("error", "no value"))[:500])
            try:
                return decode(answer["value"])
            except ValueError as exc:
                raise CallFailed(f"the candidate's result: {exc}") from None

        namespace[request["entry_point"]] = candidate
        namespace["check"](candidate)
        return "passed"

    def serve(self) -> None:
        """Answer requests until the caller is gone."""
        self.send({"ok": True, "value": "ready", "pid": os.getpid(), "uid": os.getuid()})
        while True:
            request = self.receive()
            try:
                reply = {"ok": True, "value": self.handle(request)}
            except BaseException as exc:  # noqa: BLE001 - sys.exit and friends are data here
                self.restore_builtins()  # describing the exception calls builtins
                reply = {"ok": False, "error": describe_exception(exc)}
            self.restore_builtins()
            if self.env is not None and len(self.env.tolerances) > self.reported:
                reply["tolerances"] = self.env.tolerances[self.reported:]
                self.reported = len(self.env.tolerances)
            try:
                self.send(reply)
            except BaseException as exc:  # noqa: BLE001 - e.g. an unencodable value
                self.send({"ok": False, "error": describe_exception(exc)})


def cached(source: str, filename: str) -> str:
    """``source``, its lines put where tracebacks look for them."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return source


def describe_exception(exc: BaseException) -> dict:
    """The exception's type, message and the deepest line of environment code it passed."""
    where = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename in ("<environment>", PROGRAM_FILENAME, TESTS_FILENAME):
            where = f"line {frame.lineno}, in {frame.name}: {(frame.line or '').strip()}"
    try:
        message = str(exc)[:500]
    except Exception:  # noqa: BLE001
        message = "<unprintable message>"
    return {"type": type(exc).__name__, "message": message, "where": where}


def main() -> None:
    """Start the worker: take the pipes, pre-import, limit, drop privileges, serve."""
    runtime_dir, config = sys.argv[1], json.loads(sys.argv[2])
    rfd, wfd = take_protocol_fds()
    sys.path.insert(0, runtime_dir)
    for name in config["preimport"]:
        importlib.import_module(name)
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except Exception:  # noqa: BLE001 - best effort; bubblewrap also kills us with the parent
        prctl = None
    os.chdir(config["workdir"])
    set_limits(config)
    drop_privileges(config["uid"])
    die_with_parent(prctl)
    sys.modules.pop("ctypes", None)
    Worker(rfd, wfd, config).serve()


if __name__ == "__main__":
    main()
