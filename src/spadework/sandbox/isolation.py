"""Building the command that starts a worker, at the isolation level this host allows."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

from spadework.envs.contract import ALLOWED_MODULES
from spadework.errors import SandboxError
from spadework.sandbox.config import Isolation, SandboxConfig

PACKAGE_DIR = Path(__file__).resolve().parent.parent
RUNTIME_FILES = ("pysyntax.py", "envs/base.py", "envs/contract.py", "envs/declared.py",
                 "envs/declared_tasks.py", "envs/tool_calls.py", "envs/tool_records.py",
                 "envs/tool_schema.py", "envs/tools.py", "sandbox/draws.py", "sandbox/loader.py",
                 "sandbox/plain.py", "sandbox/protocol.py", "sandbox/worker.py")
"""Modules copied into the sandbox. Each uses the standard library only."""

RUNTIME_INITS = {
    "__init__.py": "",
    "envs/__init__.py": ("from spadework.envs.base import AnswerEnv, Decimals, InOrder, OneOf, TextEnv, "
                         "WholeNumber\n"
                         "from spadework.envs.tool_calls import call\n"
                         "from spadework.envs.tools import ToolEnv, ToolWorld, tool\n"
                         "from spadework.envs.declared import DeclaredWorld\n"),
    "sandbox/__init__.py": "",
}
PREIMPORT = sorted(
    (ALLOWED_MODULES - {"__future__", "spadework"})
    | {"spadework.envs", "spadework.sandbox.draws", "spadework.sandbox.loader", "spadework.sandbox.plain",
       "spadework.sandbox.protocol", "_strptime"}
)
"""Imported before privileges drop: afterwards the worker may not be able to read the stdlib."""

SANDBOX_ROOT = "/sandbox"
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")


class IsolationWarning(UserWarning):
    """Environments run with resource limits only, because bubblewrap cannot run here."""


@functools.cache
def runtime_dir() -> Path:
    """A private, world-readable copy of the modules the worker needs (made once per process)."""
    root = Path(tempfile.mkdtemp(prefix="spadework-runtime-"))
    atexit.register(shutil.rmtree, root, True)
    for relative in RUNTIME_FILES:
        (root / "spadework" / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PACKAGE_DIR / relative, root / "spadework" / relative)
    for relative, text in RUNTIME_INITS.items():
        (root / "spadework" / relative).write_text(text)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


@dataclass(frozen=True)
class Interpreter:
    """The base Python installation (no virtual environment: the worker needs the stdlib only)."""

    prefix: Path
    executable: Path

    @classmethod
    def current(cls) -> Interpreter:
        """The base Python of the running interpreter (outside any virtual environment)."""
        executable = Path(os.path.realpath(sys.executable))
        prefix = Path(sys.base_prefix).resolve()
        if not executable.is_relative_to(prefix):
            candidate = prefix / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
            if not candidate.exists():
                raise SandboxError(f"cannot find the base Python under {prefix}")
            executable = candidate
        return cls(prefix, executable)

    def inside(self) -> tuple[list[str], Path]:
        """Bind arguments that make this Python visible in the sandbox, and its path there."""
        if self.prefix.is_relative_to("/usr"):
            return [], self.executable
        mounted = Path(SANDBOX_ROOT) / "python"
        return ["--ro-bind", str(self.prefix), str(mounted)], mounted / self.executable.relative_to(
            self.prefix
        )


def bwrap_args(config: SandboxConfig, interpreter: Interpreter) -> tuple[list[str], Path, Path]:
    """The bubblewrap prefix, and where the interpreter and runtime appear inside."""
    args = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv"]
    if os.geteuid() == 0:  # keep only what the worker needs to drop to its own uid
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in SYSTEM_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(config.tmp_bytes), "--tmpfs", "/tmp",
             "--perms", "0755", "--dir", SANDBOX_ROOT]
    python_binds, python = interpreter.inside()
    runtime = Path(SANDBOX_ROOT) / "runtime"
    args += python_binds + ["--ro-bind", str(runtime_dir()), str(runtime), "--chdir", "/tmp"]
    return args, python, runtime


def worker_command(
    config: SandboxConfig, isolation: Isolation, uid: int | None, workdir: str
) -> list[str]:
    """The full command line that starts one worker."""
    interpreter = Interpreter.current()
    if isolation is Isolation.NAMESPACES:
        prefix, python, runtime = bwrap_args(config, interpreter)
        workdir = "/tmp"
    else:
        prefix, python, runtime = [], interpreter.executable, runtime_dir()
    settings = {
        "uid": uid, "workdir": workdir, "preimport": PREIMPORT,
        "cpu_seconds": config.cpu_seconds, "memory_bytes": config.memory_bytes,
        "max_processes": config.max_processes, "file_size_bytes": config.file_size_bytes,
        "open_files": config.open_files, "max_message_bytes": config.max_message_bytes,
        "default_max_turns": config.default_max_turns, "docstring_hint": config.docstring_hint,
    }
    worker = runtime / "spadework" / "sandbox" / "worker.py"
    # -B: the worker starts as root; it must not write bytecode into the shared runtime
    # (with isolation 'rlimits' that is a host directory every later worker imports from).
    return [*prefix, str(python), "-I", "-S", "-B", str(worker), str(runtime),
            json.dumps(settings)]


@functools.cache
def bwrap_problem() -> str | None:
    """Why bubblewrap cannot run here, or None when it can (checked once per process)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; on Debian: apt-get install bubblewrap"
    args, python, _ = bwrap_args(SandboxConfig(), Interpreter.current())
    try:
        done = subprocess.run([*args, str(python), "-I", "-S", "-c", "pass"],
                              capture_output=True, timeout=30, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap failed to start: {exc}"
    if done.returncode != 0:
        return f"bubblewrap failed: {done.stderr.decode(errors='replace').strip()[:300]}"
    return None


@functools.cache
def _warn_once(problem: str) -> None:
    warnings.warn(
        f"environments run with resource limits only (isolation='rlimits'): {problem}",
        IsolationWarning,
        stacklevel=3,
    )


def choose_isolation(requested: Isolation | None) -> Isolation:
    """The level to use: the requested one, or namespaces when bubblewrap works here."""
    if requested is Isolation.NONE:
        raise SandboxError("isolation 'none' is only for the in-process fake; use InProcessSandbox")
    problem = bwrap_problem() if requested in (None, Isolation.NAMESPACES) else None
    if problem is None:
        return requested or Isolation.NAMESPACES
    if requested is Isolation.NAMESPACES:
        raise SandboxError(f"isolation 'namespaces' was asked for, but {problem}")
    _warn_once(problem)
    return Isolation.RLIMITS
