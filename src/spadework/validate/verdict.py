"""Verdict records: what the validator found, check by check."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """The outcome of one check."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"   # not run: an earlier check failed
    OFF = "off"           # not run: it does not apply to this design, or its setting is off


@dataclass(frozen=True)
class CheckResult:
    """One check's outcome, with a message that says what is wrong and how long it took."""

    name: str
    outcome: Outcome
    message: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Whether the check ran and passed."""
        return self.outcome is Outcome.PASSED

    @property
    def ok(self) -> bool:
        """Whether the check stands in no design's way: it passed, or it does not apply (``OFF``).

        >>> CheckResult("tool_effort", Outcome.OFF, "not a tool world").ok
        True
        >>> CheckResult("load", Outcome.SKIPPED, "skipped: 'parse' did not pass").ok
        False
        """
        return self.outcome in (Outcome.PASSED, Outcome.OFF)

    def to_json(self) -> dict[str, Any]:
        """The result as JSON (``from_json`` reads it back)."""
        return {
            "name": self.name,
            "passed": self.passed,
            "outcome": self.outcome.value,
            "message": self.message,
            "seconds": round(self.seconds, 6),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        """The result written by ``to_json``."""
        return cls(
            name=data["name"],
            outcome=Outcome(data["outcome"]),
            message=data.get("message", ""),
            seconds=float(data.get("seconds", 0.0)),
        )


@dataclass(frozen=True)
class Verdict:
    """The validator's answer for one environment source.

    Attributes:
        checks: every check in order, including the ones skipped after a failure.
        isolation: how the environment ran: ``namespaces``, ``rlimits`` or ``none`` (in-process fake).
        tolerances: mechanical slips the loader repaired, each in words.
        class_name: the environment class, when the source could be parsed.
        hint: the hint of the first validation seed, when the environment got that far.
        seconds: total wall-clock time of the validation.
        chance: the share of episodes a blind guess wins: the most common solution of the compared
            seeds played on every other one (``checks.blind_share``); None when not measured (an
            invalid environment). The designer's plateau pays only the win rate above it.
        difficulties: the difficulties the controller may play it at, 1 to this: each passed every
            check and is harder than the one below (``validate.levels``); 1 when it declares none
            or they were not validated.
        ladder: why the difficulties stop below what the environment declares, or None.
    """

    checks: tuple[CheckResult, ...]
    isolation: str
    tolerances: tuple[str, ...] = ()
    class_name: str | None = None
    hint: str | None = None
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    chance: float | None = None
    difficulties: int = 1
    ladder: str | None = None

    @property
    def valid(self) -> bool:
        """Whether every check passed or did not apply (and there was one)."""
        return bool(self.checks) and all(c.ok for c in self.checks)

    @property
    def failure(self) -> CheckResult | None:
        """The first failed check, if any."""
        return next((c for c in self.checks if c.outcome is Outcome.FAILED), None)

    @property
    def reason(self) -> str:
        """One line: ``valid`` or ``<check>: <message>`` of the first failure."""
        failed = self.failure
        return "valid" if failed is None else f"{failed.name}: {failed.message}"

    def to_json(self) -> dict[str, Any]:
        """The verdict as JSON (``from_json`` reads it back)."""
        return {
            "valid": self.valid,
            "checks": [c.to_json() for c in self.checks],
            "isolation": self.isolation,
            "tolerances": list(self.tolerances),
            "class_name": self.class_name,
            "hint": self.hint,
            "seconds": round(self.seconds, 6),
            "extra": self.extra,
            "chance": self.chance,
            "difficulties": self.difficulties,
            "ladder": self.ladder,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        """The verdict written by ``to_json``."""
        return cls(
            checks=tuple(CheckResult.from_json(c) for c in data["checks"]),
            isolation=data["isolation"],
            tolerances=tuple(data.get("tolerances", ())),
            class_name=data.get("class_name"),
            hint=data.get("hint"),
            seconds=float(data.get("seconds", 0.0)),
            extra=dict(data.get("extra", {})),
            chance=data.get("chance"),
            difficulties=int(data.get("difficulties", 1)),
            ladder=data.get("ladder"),
        )

    def dumps(self) -> str:
        """The verdict as canonical JSON text (sorted keys)."""
        return json.dumps(self.to_json(), sort_keys=True)
