"""Shared fixtures, and a bound on the whole test run.

Sandbox tests run deliberately hostile code (fork bombs, memory bombs). The run is
put in a pids cgroup and given an address-space limit, so a sandbox bug fails a
test instead of taking the machine down.
"""

from __future__ import annotations

import atexit
import os
import resource
import textwrap
from pathlib import Path

import pytest

from spadework.policy.scripted import ScriptedPolicy
from spadework.sandbox import Sandbox, SandboxConfig

MAX_PIDS = 2048
MAX_ADDRESS_SPACE = 16 << 30


def bound_test_run(pid: int) -> Path | None:
    """Best effort: put ``pid`` in a pids cgroup of its own, capped at ``MAX_PIDS``, and
    lower its address-space soft limit to ``MAX_ADDRESS_SPACE`` when it is unlimited.

    Returns:
        The cgroup directory used, or None when no pids cgroup is writable here.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_AS, (MAX_ADDRESS_SPACE, hard))
    root = _pids_cgroup_root()
    if root is None:
        return None
    group = root / f"spadework-tests-{pid}"
    try:
        group.mkdir(exist_ok=True)
        (group / "pids.max").write_text(f"{MAX_PIDS}\n")
        (group / "cgroup.procs").write_text(f"{pid}\n")
    except OSError:
        _leave_cgroup(group, pid)
        return None
    atexit.register(_leave_cgroup, group, pid)
    return group


def _pids_cgroup_root() -> Path | None:
    """The pids hierarchy: cgroup v1's own mount, or v2 where it delegates pids."""
    v1 = Path("/sys/fs/cgroup/pids")
    if (v1 / "cgroup.procs").exists():
        return v1
    v2 = Path("/sys/fs/cgroup")
    try:
        return v2 if "pids" in (v2 / "cgroup.subtree_control").read_text().split() else None
    except OSError:
        return None


def _leave_cgroup(group: Path, pid: int) -> None:
    try:
        (group.parent / "cgroup.procs").write_text(f"{pid}\n")
    except OSError:
        pass
    try:
        group.rmdir()
    except OSError:
        pass


def pytest_configure(config: pytest.Config) -> None:
    bound_test_run(os.getpid())


GOOD_SOURCE = '''
from spadework.envs import TextEnv


class GuessEnv(TextEnv):
    """Guess a number from 1 to 10; the hint says whether it is even."""

    max_turns = 5

    def new_episode(self):
        self.secret = self.rng.randint(1, 10)
        return "Guess a number from 1 to 10."

    def apply(self, action):
        if action == str(self.secret):
            return "Right.", 1.0, True
        return "Wrong.", 0.0, False

    def solution(self):
        return [str(self.secret)]

    def hint(self):
        return "even" if self.secret % 2 == 0 else "odd"
'''
"""A small, well-behaved environment: the control every hostile test ends with."""


def make_env_source(
    *,
    prelude: str = "",
    reset: str = 'return "start", {}',
    step: str = 'return "ok", 0.0, False, False, {}',
    solution: str = "return []",
    hint: str = 'return "none"',
) -> str:
    """Source of an environment class ``SnippetEnv`` built from snippets.

    ``prelude`` is module-level code (imports, code that runs at import); the other
    arguments are method bodies (``reset(self, seed=None)``, ``step(self, action)``, ...).

    >>> "def step(self, action):\\n        return 1" in make_env_source(step="return 1")
    True
    """

    def body(code: str) -> str:
        return textwrap.indent(textwrap.dedent(code).strip("\n"), " " * 8)

    return (
        f"{textwrap.dedent(prelude).strip()}\n\n\n"
        "class SnippetEnv:\n"
        "    max_turns = 5\n\n"
        f"    def reset(self, seed=None):\n{body(reset)}\n\n"
        f"    def step(self, action):\n{body(step)}\n\n"
        f"    def solution(self):\n{body(solution)}\n\n"
        f"    def hint(self):\n{body(hint)}\n"
    )


@pytest.fixture
def make_env():
    """The ``make_env_source`` builder."""
    return make_env_source


def check_plays_correctly(sandbox: Sandbox) -> None:
    """Open ``GOOD_SOURCE`` in ``sandbox`` and play one episode: a wrong guess, then the
    solution. Seed 7 draws the secret 6 (``random.Random(7).randint(1, 10)``)."""
    with sandbox.open(GOOD_SOURCE) as env:
        assert env.reset(seed=7) == ["Guess a number from 1 to 10.", {}]
        assert env.solution() == ["6"]
        assert env.hint() == "even"
        assert env.step("1") == ["Wrong.", 0.0, False, False, {"turn": 1}]
        assert env.step(" 6 ") == ["Right.", 1.0, True, False, {"turn": 2}]


@pytest.fixture
def good_source() -> str:
    """Source of a small, well-behaved ``TextEnv`` subclass (``GuessEnv``)."""
    return GOOD_SOURCE


@pytest.fixture
def plays_correctly():
    """``check_plays_correctly``: asserts that a sandbox still plays a good environment."""
    return check_plays_correctly


@pytest.fixture(scope="session")
def sandbox():
    """One real sandbox for the session, with short timeouts."""
    box = Sandbox(SandboxConfig(call_timeout_s=2.0, load_timeout_s=3.0))
    yield box
    box.close()


class CrashingPolicy(ScriptedPolicy):
    """FAKE: the scripted policy, dying after a number of generate calls (a crash mid-iteration)."""

    def __init__(self, calls: int, seed: int = 0):
        super().__init__(seed=seed)
        self.left = calls

    def generate(self, conversations, sampling, tools=None):
        self.left -= 1
        if self.left < 0:
            raise KeyboardInterrupt
        return super().generate(conversations, sampling, tools)


@pytest.fixture
def crashing_policy():
    """``CrashingPolicy``: ``crashing_policy(calls=N, seed=S)`` dies on its N+1-th generate call
    (``seed``: the run's seed, which the scripted policy a run builds would get)."""
    return CrashingPolicy


@pytest.fixture(scope="session")
def benchmark_script():
    """Import a script of ``benchmarks/`` by name (they are scripts, not a package)."""
    import importlib.util
    import sys

    def load(name: str):
        path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module

    return load
