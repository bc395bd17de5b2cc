"""The sandbox's ``[sandbox]`` section: limits a run sets and where environments run. Light:
reading a configuration loads no sandbox (``sandbox.config.SandboxConfig`` adds the limits a
configuration leaves at their defaults)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from spadework.settings_base import Section


class Executor(StrEnum):
    """Where environments run: this machine's sandbox, or actors on a Ray cluster."""

    LOCAL = "local"
    RAY = "ray"


class SandboxSection(Section):
    """The sandbox environments run in: limits, pool, executor (``[sandbox]``)."""

    call_timeout_s: float = Field(5.0, gt=0, description="wall-clock limit of one environment call (reset, "
                                  "step, solution, hint)")
    load_timeout_s: float = Field(10.0, gt=0, description="wall-clock limit of loading a module and "
                                  "building the instance")
    pool_size: int = Field(4, ge=0, description="sandbox workers started ahead of time, to hide start-up")
    executor: Executor = Field(Executor.LOCAL, description="local, or ray: environments run on Ray actors")
    ray_address: str | None = Field(None, description="a Ray cluster ('auto', 'ray://host:10001'); "
                                    "unset starts a local Ray")
    ray_cpus_per_env: float = Field(0.0, ge=0, description="CPU share each environment actor reserves "
                                    "(0: never blocks a rollout, which keeps all its environments open)")
    docstring_hint: bool = Field(True, description="a hint() whose body is only a docstring gives its "
                                 "docstring as the hint (a slip the 1.5B makes in about one design "
                                 "attempt in seven); false refuses such a design, as a hint() returning None")
