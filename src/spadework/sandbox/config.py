"""Settings of the sandbox: the ``[sandbox]`` section, the isolation level and the other resource limits."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from spadework.envs.contract import DEFAULT_MAX_TURNS
from spadework.sandbox.settings import SandboxSection


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


class SandboxConfig(SandboxSection):
    """Limits for one environment worker: the ``[sandbox]`` section's, and those a configuration
    leaves at their defaults. Every limit applies to one environment instance.

    >>> SandboxSection(pool_size=0).into(SandboxConfig, max_processes=8).pool_size
    0
    """

    isolation: Isolation | None = Field(None, description="force a level; unset picks namespaces when "
                                        "bubblewrap works here")
    start_timeout_s: float = Field(20.0, gt=0, description="wall-clock limit for a worker to start and "
                                   "report ready")
    cpu_seconds: int = Field(60, description="CPU time over the worker's whole life")
    memory_bytes: int = Field(1 << 30, description="address space of the worker")
    max_processes: int = Field(1, ge=1, description="processes and threads the worker's uid may have "
                               "(1: no fork, no thread)")
    file_size_bytes: int = Field(1 << 20, description="largest file the worker may write")
    open_files: int = Field(64, description="file descriptors the worker may hold")
    tmp_bytes: int = Field(16 << 20, description="size of the worker's private /tmp (namespaces only)")
    max_message_bytes: int = Field(1 << 20, description="largest reply the caller accepts from the worker")
    default_max_turns: int = Field(DEFAULT_MAX_TURNS, description="used when an environment forgets "
                                   "max_turns")
    uid_base: int = Field(1_800_000_000, description="first uid handed to workers started by root (one "
                          "fresh uid per worker)")
