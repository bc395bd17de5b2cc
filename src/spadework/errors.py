"""Every error spadework raises, in one place.

Each boundary has one error type. Messages say what to change. Generated code
that misbehaves is data (a verdict with a reason); it never crashes the caller.
"""

from __future__ import annotations


class SpadeworkError(Exception):
    """Base class of every error spadework raises on purpose."""


class UsageError(SpadeworkError):
    """Bad input from a person: a missing file, a bad flag, an unreadable run directory."""


class ParseError(SpadeworkError):
    """A designer reply could not be turned into environment source."""


class SandboxError(SpadeworkError):
    """The sandbox itself could not do its job (no Python to run, a worker that never started)."""


class EnvError(SpadeworkError):
    """An environment misbehaved. The environment ends; the caller goes on.

    Attributes:
        reason: a short machine-readable reason (``raised``, ``timeout``, ``crashed``, ``protocol``).
    """

    reason = "error"


class EnvRaised(EnvError):
    """The environment's code raised an exception; its worker is still alive."""

    reason = "raised"


class EnvTimeout(EnvError):
    """A call into the environment took longer than its wall-clock limit; the worker was killed."""

    reason = "timeout"


class EnvCrashed(EnvError):
    """The worker died (exit, signal, resource limit) or is already closed."""

    reason = "crashed"


class EnvProtocolError(EnvError):
    """The worker sent something that is not a well-formed reply (too large, not JSON)."""

    reason = "protocol"


class ArchiveError(SpadeworkError):
    """The archive could not be opened, read or written."""


class CheckFailed(SpadeworkError):
    """A validation check found a problem; the message says what is wrong and what to change."""


class CheckOff(SpadeworkError):
    """A validation check does not apply to this design, or its setting is off; the message says which."""


class PolicyError(SpadeworkError):
    """An inference backend failed: a missing model, a wrong URL or model name, a server error."""


class ConfigError(SpadeworkError):
    """A run's configuration is invalid; the message names the field."""


class CorpusError(SpadeworkError):
    """A corpus cannot be read at all (missing path, unknown format). Bad lines are only counted."""


class EnvContractError(EnvError):
    """The environment returned a value of the wrong shape or type (e.g. a step that is not
    ``(observation, reward, terminated, truncated, info)``, or a reward that is not a number)."""

    reason = "contract"


class ContextOverflow(PolicyError):
    """A conversation does not fit the model's context window. Only that conversation is at
    fault: callers may treat it as data (end the episode) instead of stopping."""
