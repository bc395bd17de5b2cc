"""Running untrusted environment code, and judging untrusted functions, in isolated worker processes."""

from spadework.sandbox.config import Isolation, SandboxConfig
from spadework.sandbox.env import EnvHandle, InProcessEnv, SandboxedEnv, SandboxProtocol
from spadework.sandbox.pool import InProcessSandbox, Sandbox
from spadework.sandbox.program import ProgramRun, TestedCode

__all__ = ["EnvHandle", "InProcessEnv", "InProcessSandbox", "Isolation", "ProgramRun", "Sandbox",
           "SandboxConfig", "SandboxProtocol", "SandboxedEnv", "TestedCode"]
