"""Running untrusted environment code in isolated worker processes."""

from spadework.sandbox.config import Isolation, SandboxConfig
from spadework.sandbox.env import EnvHandle, InProcessEnv, SandboxedEnv, SandboxProtocol
from spadework.sandbox.pool import InProcessSandbox, Sandbox

__all__ = ["EnvHandle", "InProcessEnv", "InProcessSandbox", "Isolation", "Sandbox",
           "SandboxConfig", "SandboxProtocol", "SandboxedEnv"]
