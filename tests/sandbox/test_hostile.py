"""Hostile environments against the real sandbox.

Each test runs one misbehaviour and asserts four things: the caller gets the right
``EnvError`` naming the cause; nothing of the worker survives ``close()``; no host file
outside the worker's private space changed; and the same sandbox still plays a good
environment afterwards. The environment code imports ``os``, ``sys`` and friends
directly: the import allowlist is the validator's static check, so these tests
exercise the real boundary.
"""

from __future__ import annotations

import os
import random
import re
import socket
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from spadework.errors import EnvCrashed, EnvProtocolError, EnvRaised, EnvTimeout
from spadework.sandbox import Isolation, Sandbox, SandboxConfig, SandboxedEnv
from spadework.sandbox.isolation import runtime_dir
from spadework.sandbox.process import WorkerProcess, is_running, processes_of
from spadework.sandbox.protocol import frame

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="workers get uids of their own as root")

CHECKOUT = Path(__file__).resolve().parents[2]
WATCHED_DIRS = ("/", "/tmp", "/var/tmp", "/dev/shm", "/root", str(CHECKOUT), str(CHECKOUT / "src"))
"""Host directories a worker could try to leave files in (its uid would own them)."""

OK = ["ok", 0.0, False, False, {}]
"""What ``make_env``'s default step, and ``only_on`` for other actions, return."""
SLACK_S = 1.5
"""Allowed lateness of a timeout: the worker is killed within this much of its deadline."""


def runtime_files() -> dict[str, bytes]:
    """The runtime copied into (and shared by) every worker, file by file."""
    root = runtime_dir()
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


RUNTIME_AT_START = runtime_files()


def host_files_of(uid: int) -> list[str]:
    """Entries of the watched host directories owned by ``uid``."""
    found = []
    for directory in WATCHED_DIRS:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    found.append(entry.path)
            except OSError:
                continue
    return found


def only_on(action: str, code: str) -> str:
    """A step body that runs ``code`` for ``action`` and otherwise answers ``OK``."""
    code = textwrap.indent(textwrap.dedent(code).strip(), "    ")
    return f"if action == {action!r}:\n{code}\nreturn 'ok', 0.0, False, False, {{}}"


def threads_of(pid: int) -> int:
    """How many threads process ``pid`` runs."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^Threads:\s+(\d+)$", status, re.M).group(1))


def assert_no_survivors(worker: WorkerProcess) -> None:
    """No process of the worker runs; with namespaces, none is left at all within a moment
    (zombies are reaped by the namespace's dying init; with rlimits a detached child's
    zombie waits for the host's init, which may take a while)."""
    assert [pid for pid in processes_of(worker.uid) if is_running(pid)] == []
    if worker.isolation is Isolation.NAMESPACES:
        deadline = time.monotonic() + 1.0
        while processes_of(worker.uid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert processes_of(worker.uid) == []


def step_error(env: SandboxedEnv, error: type[Exception], action: str = "go") -> str:
    """The message of the ``error`` that ``env.step(action)`` raises."""
    with pytest.raises(error) as caught:
        env.step(action)
    return str(caught.value)


def test_a_thread_that_exits_while_looked_at_does_not_hide_the_running_ones(monkeypatch):
    """A killed process's threads vanish from /proc one by one: a thread gone between the
    listing and the read must not make the process look dead while its other threads run
    (the race behind a spinning worker seen alive after ``close()``)."""
    listdir = os.listdir

    def with_a_vanished_thread(path):
        entries = listdir(path)
        return ["999999999", *entries] if str(path).endswith("/task") else entries

    monkeypatch.setattr(os, "listdir", with_a_vanished_thread)
    assert is_running(os.getpid())


@pytest.fixture
def opened(monkeypatch) -> list[WorkerProcess]:
    """Every worker an environment is loaded into during the test, failed loads included."""
    workers: list[WorkerProcess] = []
    original = SandboxedEnv.__init__

    def recording(self, worker, source, difficulty=None):
        workers.append(worker)
        original(self, worker, source, difficulty)

    monkeypatch.setattr(SandboxedEnv, "__init__", recording)
    return workers


@pytest.fixture
def contained(opened, plays_correctly):
    """Asserts the aftermath, once the test closed its environments: no process and no host
    file of any worker it used, the shared runtime intact, and ``sandbox`` still plays."""

    def check(sandbox: Sandbox) -> None:
        workers = list(opened)
        assert workers, "the test loaded no environment"
        for worker in workers:
            assert not worker.alive, "close every environment before checking the aftermath"
            assert_no_survivors(worker)
            assert host_files_of(worker.uid) == []
        assert runtime_files() == RUNTIME_AT_START
        plays_correctly(sandbox)

    return check


@pytest.fixture
def make_sandbox():
    """Sandboxes with their own config (short timeouts, no pool), closed after the test."""
    made: list[Sandbox] = []

    def make(**fields) -> Sandbox:
        config = {"call_timeout_s": 2.0, "load_timeout_s": 3.0, "pool_size": 0, **fields}
        made.append(Sandbox(SandboxConfig(**config)))
        return made[-1]

    yield make
    for box in made:
        box.close()


def timed(call, error: type[Exception]) -> tuple[str, float]:
    """The message of the ``error`` that ``call()`` raises, and how long it took."""
    start = time.monotonic()
    with pytest.raises(error) as caught:
        call()
    return str(caught.value), time.monotonic() - start


@pytest.mark.timeout(30)
def test_default_sandbox_uses_namespaces(sandbox, make_env, contained):
    assert sandbox.isolation is Isolation.NAMESPACES
    env = sandbox.open(make_env())
    assert env.isolation is Isolation.NAMESPACES
    env.close()
    contained(sandbox)


# --- time ------------------------------------------------------------------------------


@pytest.mark.timeout(30)
def test_infinite_loop_at_import_times_out(sandbox, make_env, contained):
    message, took = timed(lambda: sandbox.open(make_env(prelude="while True: pass")), EnvTimeout)
    assert message == "load did not answer within 3.0 s"
    assert 3.0 <= took < 3.0 + SLACK_S
    contained(sandbox)


@pytest.mark.timeout(30)
def test_infinite_loop_in_reset_times_out(sandbox, make_env, contained):
    env = sandbox.open(make_env(reset="while True: pass"))
    message, took = timed(lambda: env.reset(seed=0), EnvTimeout)
    assert message == "reset did not answer within 2.0 s"
    assert 2.0 <= took < 2.0 + SLACK_S
    assert not env.alive
    with pytest.raises(EnvCrashed, match="environment already ended: reset did not answer"):
        env.step("go")
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_infinite_loop_in_step_times_out(sandbox, make_env, contained):
    env = sandbox.open(make_env(step="while True: pass"))
    assert env.reset(seed=0) == ["start", {}]
    message, took = timed(lambda: env.step("go"), EnvTimeout)
    assert message == "step did not answer within 2.0 s"
    assert 2.0 <= took < 2.0 + SLACK_S
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_ignoring_sigterm_and_sleeping_forever_times_out(sandbox, make_env, contained):
    step = """
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            time.sleep(1)
    """
    env = sandbox.open(make_env(prelude="import signal, time", step=step))
    message, took = timed(lambda: env.step("go"), EnvTimeout)
    assert message == "step did not answer within 2.0 s"
    assert took < 2.0 + SLACK_S
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_long_sleep_times_out(sandbox, make_env, contained):
    env = sandbox.open(make_env(prelude="import time", step="time.sleep(10**6)"))
    message, took = timed(lambda: env.step("go"), EnvTimeout)
    assert message == "step did not answer within 2.0 s"
    assert took < 2.0 + SLACK_S
    env.close()
    contained(sandbox)


# --- processes and threads ---------------------------------------------------------------


@pytest.mark.timeout(30)
def test_fork_bomb_cannot_fork(sandbox, make_env, contained):
    bomb = only_on("bomb", """
        while True:
            os.fork()
    """)
    env = sandbox.open(make_env(prelude="import os", step=bomb))
    message = step_error(env, EnvRaised, "bomb")
    assert message == ("step() raised BlockingIOError: [Errno 11] Resource temporarily "
                       "unavailable (line 13, in step: os.fork())")
    assert len(processes_of(env.worker.uid)) == 1
    assert env.step("look") == OK
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_threads_cannot_start(sandbox, make_env, contained):
    spin = "threading.Thread(target=lambda: None, daemon=True).start()"
    env = sandbox.open(make_env(prelude="import threading", step=only_on("spin", spin)))
    message = step_error(env, EnvRaised, "spin")
    assert message.startswith("step() raised RuntimeError: can't start new thread (line 12,")
    assert env.step("look") == OK
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_spinning_threads_die_with_close(make_sandbox, make_env, contained):
    box = make_sandbox(max_processes=8)
    spin = """
        def spin():
            while True:
                pass
        for _ in range(4):
            threading.Thread(target=spin, daemon=True).start()
        return "spinning", 0.0, False, False, {}
    """
    env = box.open(make_env(prelude="import threading", step=spin))
    assert env.step("spin") == ["spinning", 0.0, False, False, {}]
    (pid,) = processes_of(env.worker.uid)
    assert threads_of(pid) == 5
    env.close()
    contained(box)


DETACH = """
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(1)
        os._exit(0)
    os.waitpid(child, 0)
    return "detached", 0.0, False, False, {}
"""
"""Step body: double fork and a new session, leaving a grandchild that sleeps forever."""


@pytest.mark.timeout(30)
def test_detached_child_cannot_fork(sandbox, make_env, contained):
    env = sandbox.open(make_env(prelude="import os, time", step=DETACH))
    message = step_error(env, EnvRaised)
    assert message == ("step() raised BlockingIOError: [Errno 11] Resource temporarily "
                       "unavailable (line 11, in step: child = os.fork())")
    assert len(processes_of(env.worker.uid)) == 1
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("isolation", [Isolation.NAMESPACES, Isolation.RLIMITS])
def test_detached_child_does_not_outlive_close(isolation, make_sandbox, make_env, contained):
    box = make_sandbox(isolation=isolation, max_processes=8)
    env = box.open(make_env(prelude="import os, time", step=DETACH))
    assert env.step("go") == ["detached", 0.0, False, False, {}]
    assert len(processes_of(env.worker.uid)) == 2  # the worker and its detached grandchild
    start = time.monotonic()
    env.close()
    assert time.monotonic() - start < 1.0  # no waiting for init to reap the grandchild
    contained(box)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("target, error", [
    ("os.getppid()", "PermissionError"),  # bubblewrap's init, running as root
    (str(os.getpid()), "ProcessLookupError"),  # pytest: not in the worker's pid namespace
], ids=["parent", "pytest"])
def test_killing_the_parent_fails(target, error, sandbox, make_env, contained):
    env = sandbox.open(make_env(prelude="import os", step=only_on("kill", f"os.kill({target}, 9)")))
    message = step_error(env, EnvRaised, "kill")
    assert message.startswith(f"step() raised {error}: ")
    assert env.step("look") == OK
    os.kill(os.getpid(), 0)  # pytest is alive (a signal 0 to itself succeeds)
    env.close()
    contained(sandbox)


# --- exits and crashes ----------------------------------------------------------------------


@pytest.mark.timeout(30)
def test_sys_exit_in_step_is_an_exception_and_the_worker_survives(sandbox, make_env, contained):
    env = sandbox.open(make_env(prelude="import sys", step=only_on("exit", "sys.exit()")))
    message = step_error(env, EnvRaised, "exit")
    assert message == "step() raised SystemExit:  (line 12, in step: sys.exit())"
    assert env.alive
    assert env.step("look") == OK
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_os_exit_in_step_is_a_crash(sandbox, make_env, contained):
    env = sandbox.open(make_env(prelude="import os", step="os._exit(3)"))
    assert step_error(env, EnvCrashed) == "worker exited during step (exit status 3)"
    assert not env.alive
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_infinite_recursion_raises_recursion_error(sandbox, make_env, contained):
    step = only_on("recurse", """
        def deeper(n):
            return deeper(n + 1)
        deeper(0)
    """)
    env = sandbox.open(make_env(step=step))
    message = step_error(env, EnvRaised, "recurse")
    assert message == ("step() raised RecursionError: maximum recursion depth exceeded "
                       "(line 13, in deeper: return deeper(n + 1))")
    assert env.step("look") == OK
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_deep_recursion_past_the_c_stack_crashes_with_a_signal(sandbox, make_env, contained):
    step = """
        sys.setrecursionlimit(10**6)
        def deeper(n):
            return list(map(deeper, [n + 1]))  # through C: each level uses the C stack
        deeper(0)
    """
    env = sandbox.open(make_env(prelude="import sys", step=step))
    message, took = timed(lambda: env.step("go"), EnvCrashed)
    assert re.fullmatch(r"worker exited during step \(killed by SIG(SEGV|BUS)\)", message)
    assert took < 2.0
    env.close()
    contained(sandbox)


# --- memory and output ------------------------------------------------------------------------


@pytest.mark.timeout(30)
def test_memory_bomb_hits_the_address_space_limit(sandbox, make_env, contained):
    bomb = """
        hoard = []
        while True:
            hoard.append(bytes(1 << 24))
    """
    env = sandbox.open(make_env(step=only_on("bomb", bomb)))
    message = step_error(env, EnvRaised, "bomb")
    assert message == "step() raised MemoryError:  (line 14, in step: hoard.append(bytes(1 << 24)))"
    assert env.step("look") == OK
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_memory_bomb_that_touches_its_pages_is_stopped(make_sandbox, make_env, contained):
    box = make_sandbox(memory_bytes=128 << 20, call_timeout_s=10.0)
    bomb = """
        hoard = []
        while True:
            hoard.append(bytearray(1 << 22))
    """
    env = box.open(make_env(step=only_on("bomb", bomb)))
    message = step_error(env, EnvRaised, "bomb")
    assert message == (
        "step() raised MemoryError:  (line 14, in step: hoard.append(bytearray(1 << 22)))"
    )
    assert env.step("look") == OK
    env.close()
    contained(box)


@pytest.mark.timeout(30)
def test_megabytes_on_stdout_and_stderr_are_discarded(sandbox, make_env, contained):
    step = """
        print("x" * 50_000_000)
        sys.stderr.write("y" * 50_000_000)
        os.write(1, b"z" * 50_000_000)
        return "quiet", 1.0, True, False, {}
    """
    env = sandbox.open(make_env(prelude="import os, sys", step=step))
    start = time.monotonic()
    assert env.step("go") == ["quiet", 1.0, True, False, {}]
    assert time.monotonic() - start < sandbox.config.call_timeout_s
    env.close()
    contained(sandbox)


FORGED_OK = frame({"ok": True, "value": "forged"})
"""A well-framed reply the worker did not send."""


@pytest.mark.timeout(30)
def test_forged_replies_on_stdout_have_no_effect(sandbox, make_env, contained):
    step = f"""
        os.write(1, {FORGED_OK!r})
        sys.stdout.buffer.write({FORGED_OK!r})
        sys.stdout.flush()
        os.write(2, {FORGED_OK!r})
        return "real", 0.0, False, False, {{}}
    """
    env = sandbox.open(make_env(prelude="import os, sys", step=step))
    assert env.step("one") == ["real", 0.0, False, False, {}]
    assert env.step("two") == ["real", 0.0, False, False, {}]  # nothing stale queued
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("forged, error", [
    (b"\x00\x00\x00\x09not json!", "step sent a reply that is not JSON"),
    (b"\x00\x00\x00\x02[]", "step sent a malformed reply"),
    (b"\x7f\xff\xff\xff", "step sent a reply of 2147483647 bytes, over the 1048576-byte limit"),
], ids=["not-json", "malformed", "oversized"])
def test_forged_frame_on_the_protocol_fd_breaks_only_its_own_env(
    forged, error, sandbox, make_env, contained
):
    step = f"""
        for fd in range(3, 64):  # the protocol pipes are private fds: try them all
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    os.write(fd, {forged!r})
            except OSError:
                pass
        return "real", 0.0, False, False, {{}}
    """
    neighbour = sandbox.open(make_env())
    env = sandbox.open(make_env(prelude="import os, stat", step=step))
    assert step_error(env, EnvProtocolError) == error
    assert not env.alive
    assert neighbour.step("look") == OK
    env.close()
    neighbour.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_huge_observation_is_refused_by_the_worker(sandbox, make_env, contained):
    step = only_on("big", 'return "x" * 10_000_000, 0.0, False, False, {}')
    env = sandbox.open(make_env(step=step))
    message = step_error(env, EnvRaised, "big")
    # The worker refuses it itself (the 4-byte header counted), and stays usable.
    assert message == (
        "step() raised OutputTooLarge: reply of 10000054 bytes is over the 1048576-byte limit"
    )
    assert env.step("look") == OK
    env.close()
    contained(sandbox)


# --- the worker's own Python --------------------------------------------------------------


PATCH = """
builtins.len = None
builtins.isinstance = lambda *a: False
json.dumps = None
"""


@pytest.mark.timeout(30)
def test_patched_builtins_do_not_break_the_reply(sandbox, make_env, contained):
    reset = PATCH + "\nreturn 'patched', {'n': 1}"
    step = """
        observed = [len(action), isinstance(action, str), json.dumps is None]
        builtins.len = None
        raise ValueError(observed)
    """
    env = sandbox.open(make_env(prelude="import builtins, json", reset=reset, step=step))
    assert env.reset(seed=0) == ["patched", {"n": 1}]
    # builtins are restored after each call; the env's own module patch stays its own.
    message = step_error(env, EnvRaised, "abc")
    assert message == (
        "step() raised ValueError: [3, True, True] (line 17, in step: raise ValueError(observed))"
    )
    env.close()
    contained(sandbox)


@pytest.mark.timeout(30)
def test_random_seed_in_one_env_does_not_affect_another(sandbox, make_env, contained):
    draw = "return random.random(), 0.0, False, False, {}"
    reseeding = sandbox.open(make_env(prelude="import random", step="random.seed(0)\n" + draw))
    drawing = sandbox.open(make_env(prelude="import random", step=draw))
    reseeding.reset(seed=1)
    drawing.reset(seed=5)  # the sandbox seeds the global random module with the episode seed
    expected = random.Random(5)
    for _ in range(3):
        assert reseeding.step("draw")[0] == random.Random(0).random()
        assert drawing.step("draw")[0] == expected.random()
    reseeding.close()
    drawing.close()
    contained(sandbox)


# --- the host ---------------------------------------------------------------------------------


@pytest.mark.timeout(30)
def test_writing_files_never_reaches_the_host(sandbox, make_env, contained):
    name = f"spadework-hostile-{uuid.uuid4().hex}"
    paths = [f"/tmp/{name}", str(CHECKOUT / name), f"/root/{name}", f"/{name}"]
    step = f"""
        outcomes = {{}}
        for path in {paths!r}:
            try:
                with open(path, "w") as f:
                    f.write("was here")
                outcomes[path] = "written"
            except OSError as exc:
                outcomes[path] = type(exc).__name__
        return outcomes, 0.0, False, False, {{}}
    """
    try:
        env = sandbox.open(make_env(step=step))
        outcomes = env.step("write")[0]
        env.close()
        assert outcomes[paths[0]] == "written"  # the worker's private /tmp
        assert all(outcomes[p] in ("PermissionError", "FileNotFoundError") for p in paths[1:])
        assert [p for p in paths if os.path.lexists(p)] == []
    finally:
        for path in paths:
            if os.path.lexists(path):
                os.remove(path)
    contained(sandbox)


@pytest.mark.timeout(30)
def test_sockets_cannot_reach_the_host(sandbox, make_env, contained):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        step = f"""
            try:
                socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
                return "connected", 0.0, False, False, {{}}
            except OSError as exc:
                return type(exc).__name__, 0.0, False, False, {{}}
        """
        env = sandbox.open(make_env(prelude="import socket", step=step))
        assert env.step("connect")[0] == "ConnectionRefusedError"
        env.close()
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()
    contained(sandbox)


ENVIRON_STEP = "return dict(os.environ), 0.0, False, False, {}"


@pytest.mark.timeout(30)
def test_environment_variables_are_not_visible(monkeypatch, make_sandbox, make_env, contained):
    monkeypatch.setenv("SPADEWORK_SECRET_KEY", "s3cret")
    box = make_sandbox(pool_size=1)
    env = box.open(make_env(prelude="import os", step=ENVIRON_STEP))
    environ = env.step("look")[0]
    env.close()
    assert set(environ) <= {"PWD", "LC_CTYPE"}  # bubblewrap's and Python's own
    assert "s3cret" not in str(environ)
    contained(box)


@pytest.mark.timeout(30)
def test_host_files_cannot_be_read(sandbox, make_env, contained):
    secret_dir = Path(tempfile.mkdtemp(prefix="spadework-hostile-"))
    try:
        secret_dir.chmod(0o755)
        secret = secret_dir / "secret.txt"
        secret.write_text("the host's secret")
        secret.chmod(0o644)
        paths = [str(secret), str(CHECKOUT / "pyproject.toml"), "/root/.bashrc", "/etc/shadow"]
        step = f"""
            outcomes = {{}}
            for path in {paths!r}:
                try:
                    with open(path) as f:
                        outcomes[path] = f.read()
                except OSError as exc:
                    outcomes[path] = type(exc).__name__
            return outcomes, 0.0, False, False, {{}}
        """
        env = sandbox.open(make_env(step=step))
        outcomes = env.step("read")[0]
        env.close()
    finally:
        for path in secret_dir.iterdir():
            path.unlink()
        secret_dir.rmdir()
    assert sorted(outcomes) == sorted(paths)
    assert all(o in ("FileNotFoundError", "PermissionError") for o in outcomes.values()), outcomes
    contained(sandbox)


# --- resource limits only ------------------------------------------------------------------------


class TestRlimitsOnly:
    """Isolation.RLIMITS, used where bubblewrap cannot run: limits, uid and environment only
    (host files and the network stay reachable there; that is what namespaces add)."""

    @pytest.fixture
    def box(self, make_sandbox):
        box = make_sandbox(isolation=Isolation.RLIMITS)
        assert box.isolation is Isolation.RLIMITS
        return box

    @pytest.mark.timeout(30)
    def test_infinite_loop_times_out(self, box, make_env, contained):
        env = box.open(make_env(step="while True: pass"))
        message, took = timed(lambda: env.step("go"), EnvTimeout)
        assert message == "step did not answer within 2.0 s"
        assert 2.0 <= took < 2.0 + SLACK_S
        env.close()
        contained(box)

    @pytest.mark.timeout(30)
    def test_fork_bomb_cannot_fork(self, box, make_env, contained):
        env = box.open(make_env(prelude="import os", step="while True:\n    os.fork()"))
        message = step_error(env, EnvRaised)
        assert message.startswith("step() raised BlockingIOError: [Errno 11]")
        assert len(processes_of(env.worker.uid)) == 1
        env.close()
        contained(box)

    @pytest.mark.timeout(30)
    def test_environment_variables_are_not_visible(self, monkeypatch, make_sandbox, make_env,
                                                   contained):
        monkeypatch.setenv("SPADEWORK_SECRET_KEY", "s3cret")
        box = make_sandbox(isolation=Isolation.RLIMITS, pool_size=1)
        env = box.open(make_env(prelude="import os", step=ENVIRON_STEP))
        environ = env.step("look")[0]
        env.close()
        assert set(environ) <= {"LC_CTYPE"}
        assert "s3cret" not in str(environ)
        contained(box)

    @pytest.mark.timeout(30)
    def test_killing_the_parent_fails(self, box, make_env, contained):
        kill = only_on("kill", "os.kill(os.getppid(), 9)")  # the parent is pytest itself
        env = box.open(make_env(prelude="import os", step=kill))
        assert step_error(env, EnvRaised, "kill").startswith("step() raised PermissionError: ")
        assert env.step("look") == OK
        env.close()
        contained(box)
