"""Running untrusted environment code, and judging untrusted functions, in isolated worker processes.

The names below are loaded on first use, so importing ``sandbox.settings`` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spadework.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "spadework.sandbox.config": ("Isolation", "SandboxConfig"),
    "spadework.sandbox.env": ("EnvHandle", "InProcessEnv", "SandboxedEnv", "SandboxProtocol"),
    "spadework.sandbox.pool": ("InProcessSandbox", "Sandbox"),
    "spadework.sandbox.program": ("CallsRun", "FunctionCalls", "ProgramRun", "TestedCode"),
})

if TYPE_CHECKING:
    from spadework.sandbox.config import Isolation, SandboxConfig
    from spadework.sandbox.env import EnvHandle, InProcessEnv, SandboxedEnv, SandboxProtocol
    from spadework.sandbox.pool import InProcessSandbox, Sandbox
    from spadework.sandbox.program import CallsRun, FunctionCalls, ProgramRun, TestedCode

__all__ = ["CallsRun", "EnvHandle", "FunctionCalls", "InProcessEnv", "InProcessSandbox", "Isolation",
           "ProgramRun", "Sandbox", "SandboxConfig", "SandboxProtocol", "SandboxedEnv", "TestedCode"]
