"""Settings of the sandbox: isolation level and resource limits."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from spadework.envs.contract import DEFAULT_MAX_TURNS


class Isolation(StrEnum):
    """How environment code is isolated from the host.

    NAMESPACES: bubblewrap (no network, read-only system, private /tmp, own PID
        namespace) plus everything RLIMITS does.
    RLIMITS: a separate process with resource limits, a clean environment and,
        when started by root, a uid of its own. Used where bubblewrap cannot run.
    NONE: in the caller's own process; only the in-process fake for tests and baselines.
    """

    NAMESPACES = "namespaces"
    RLIMITS = "rlimits"
    NONE = "none"


@dataclass(frozen=True)
class SandboxConfig:
    """Limits for one environment worker. Every limit applies to one environment instance.

    Attributes:
        isolation: force a level; ``None`` picks namespaces when bubblewrap works here.
        pool_size: workers kept started and waiting, to hide start-up.
        call_timeout_s: wall-clock limit of one call (reset, step, solution, hint).
        load_timeout_s: wall-clock limit of loading the module and building the instance.
        start_timeout_s: wall-clock limit for a worker to start and report ready.
        cpu_seconds: CPU time over the worker's whole life.
        memory_bytes: address space of the worker.
        max_processes: processes and threads the worker's uid may have (1: no fork, no thread).
        file_size_bytes: largest file the worker may write.
        open_files: file descriptors the worker may hold.
        tmp_bytes: size of the worker's private /tmp (namespaces only).
        max_message_bytes: largest reply the caller accepts from the worker.
        default_max_turns: used when an environment forgets ``max_turns``.
        uid_base: first uid handed to workers started by root (one fresh uid per worker).
    """

    isolation: Isolation | None = None
    pool_size: int = 4
    call_timeout_s: float = 5.0
    load_timeout_s: float = 10.0
    start_timeout_s: float = 20.0
    cpu_seconds: int = 60
    memory_bytes: int = 1 << 30
    max_processes: int = 1
    file_size_bytes: int = 1 << 20
    open_files: int = 64
    tmp_bytes: int = 16 << 20
    max_message_bytes: int = 1 << 20
    default_max_turns: int = DEFAULT_MAX_TURNS
    uid_base: int = 1_800_000_000

    def __post_init__(self) -> None:
        for name in ("call_timeout_s", "load_timeout_s", "start_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"SandboxConfig.{name} must be > 0, got {getattr(self, name)}")
        if self.pool_size < 0:
            raise ValueError(f"SandboxConfig.pool_size must be >= 0, got {self.pool_size}")
        if self.max_processes < 1:
            raise ValueError(f"SandboxConfig.max_processes must be >= 1, got {self.max_processes}")
