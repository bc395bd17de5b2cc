"""One worker process, seen from the caller: start it, talk to it with deadlines, kill it."""

from __future__ import annotations

import itertools
import os
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any

from spadework.errors import EnvCrashed, EnvError, EnvProtocolError, EnvTimeout, SandboxError
from spadework.sandbox.config import Isolation, SandboxConfig
from spadework.sandbox.isolation import worker_command
from spadework.sandbox.protocol import HEADER, frame, unframe

_uids = itertools.count()
_uid_lock = threading.Lock()


def next_uid(config: SandboxConfig) -> int | None:
    """A fresh uid for a worker when we are root (so workers cannot signal each other and
    the process limit counts one worker only); None otherwise."""
    if os.geteuid() != 0:
        return None
    with _uid_lock:
        slot = next(_uids) % 4096
    return config.uid_base + (os.getpid() % 65536) * 4096 + slot


def processes_of(uid: int) -> list[int]:
    """Pids of the processes owned by ``uid`` (from /proc)."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    pids.append(int(name))
            except OSError:
                continue
    return pids


def is_running(pid: int) -> bool:
    """Whether any thread of ``pid`` still runs. A zombie does not: it only waits to be
    reaped by its parent (by init, for a detached child, which may take a while). A thread
    that vanishes while it is looked at has exited; the others are still looked at."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as stat:
                if stat.read().rsplit(b")", 1)[1].split()[0] != b"Z":
                    return True
        except (OSError, IndexError):
            continue
    return False


def kill_uid(uid: int, deadline_s: float = 2.0) -> None:
    """SIGKILL every process of ``uid`` until none of them runs (or the deadline passes)."""
    end = time.monotonic() + deadline_s
    while (pids := processes_of(uid)) and time.monotonic() < end:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if not any(is_running(pid) for pid in processes_of(uid)):
            return
        time.sleep(0.005)


class WorkerProcess:
    """A started worker. ``request`` sends one message and waits for one reply; any
    timeout, death or malformed reply kills the worker and everything it started."""

    def __init__(self, config: SandboxConfig, isolation: Isolation):
        self.config = config
        self.isolation = isolation
        self.uid = next_uid(config)
        self.workdir = None
        if isolation is Isolation.RLIMITS:
            self.workdir = tempfile.mkdtemp(prefix="spadework-worker-")
            if self.uid is not None:
                os.chown(self.workdir, self.uid, self.uid)
        command = worker_command(config, isolation, self.uid, self.workdir or "/tmp")
        try:
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env={}, close_fds=True, start_new_session=True,
            )
        except OSError as exc:
            self._cleanup()
            raise SandboxError(f"cannot start a sandbox worker ({command[0]}): {exc}") from exc
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both are pipes
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.dead: str | None = None
        try:
            ready = self.receive(config.start_timeout_s, "start")
        except EnvError:  # the sandbox failed, not an environment: no environment ran yet
            raise SandboxError(f"sandbox worker did not start: {self.dead}") from None
        if ready.get("value") != "ready":
            self.kill(f"worker sent {ready!r} instead of ready")
            raise SandboxError(f"sandbox worker did not start: {self.dead}")

    @property
    def alive(self) -> bool:
        """Whether the worker is still running."""
        return self.dead is None

    def request(self, message: dict[str, Any], timeout_s: float, what: str) -> dict[str, Any]:
        """Send ``message``; return the worker's reply. ``what`` names the call in errors."""
        self.send(message, what)
        return self.receive(timeout_s, what)

    def send(self, message: dict[str, Any], what: str = "a call") -> None:
        """Send ``message`` without waiting for a reply."""
        if self.dead is not None:
            raise EnvCrashed(f"environment already ended: {self.dead}")
        try:
            self.stdin.write(frame(message))
            self.stdin.flush()
        except (BrokenPipeError, OSError):
            self.kill(f"worker exited before {what} ({self._exit_status()})")
            raise EnvCrashed(self.dead) from None

    def receive(self, timeout_s: float, what: str) -> dict[str, Any]:
        """The worker's next reply within ``timeout_s``; a late, oversized or malformed one kills it."""
        deadline = time.monotonic() + timeout_s
        header = self._read(HEADER.size, deadline, what, timeout_s)
        (size,) = HEADER.unpack(header)
        if size > self.config.max_message_bytes:
            self.kill(f"{what} sent a reply of {size} bytes, over the "
                      f"{self.config.max_message_bytes}-byte limit")
            raise EnvProtocolError(self.dead)
        payload = self._read(size, deadline, what, timeout_s)
        try:
            reply = unframe(payload)
        except ValueError:
            self.kill(f"{what} sent a reply that is not JSON")
            raise EnvProtocolError(self.dead) from None
        if not isinstance(reply, dict) or "ok" not in reply:
            self.kill(f"{what} sent a malformed reply")
            raise EnvProtocolError(self.dead)
        return reply

    def _read(self, size: int, deadline: float, what: str, timeout_s: float) -> bytes:
        fd = self.stdout.fileno()
        chunks, remaining = [], size
        while remaining:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.kill(f"{what} did not answer within {timeout_s} s")
                raise EnvTimeout(self.dead)
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                status = self._exit_status()
                self.kill(f"worker exited during {what} ({status})")
                raise EnvCrashed(self.dead)
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def _exit_status(self) -> str:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "still running"
        if code < 0:
            return f"killed by {signal.Signals(-code).name}"
        if code > 128 and code - 128 in signal.Signals._value2member_map_:
            return f"killed by {signal.Signals(code - 128).name}"
        return f"exit status {code}"

    def kill(self, reason: str = "closed") -> None:
        """Kill the worker and everything it started; idempotent."""
        if self.dead is None:
            self.dead = reason
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
        self.proc.wait()
        for stream in (self.stdin, self.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self._cleanup()

    def _cleanup(self) -> None:
        if self.uid is not None:
            kill_uid(self.uid)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
