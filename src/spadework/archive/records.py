"""Archive records: one validated environment source with its verdict and metrics.

The content hash identifies a source by what it does, not how it is written: comments,
docstrings and formatting are dropped before hashing, so two designs that differ only in
those share a hash.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from spadework import pysyntax
from spadework.archive.results import DesignResult
from spadework.errors import ArchiveError
from spadework.validate.verdict import Verdict

_DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, _DOCSTRING_OWNERS) and node.body and _is_docstring(node.body[0]):
            rest = node.body[1:]
            if not rest and not isinstance(node, ast.Module):
                rest = [ast.Pass()]
            node.body = rest


def _normalise_lines(code: str) -> str:
    kept = []
    for line in code.splitlines():
        stripped = line.rstrip()
        if not stripped or stripped.lstrip().startswith("#"):
            continue
        kept.append(stripped)
    return "\n".join(kept)


def normalise_source(code: str) -> str:
    """Return ``code`` without comments, docstrings or formatting differences.

    Code that parses is rewritten from its syntax tree with docstrings removed (a body left
    empty gets ``pass``). Code that does not parse falls back to a line-wise cleanup: trailing
    whitespace stripped, blank lines and comment-only lines dropped.

    Args:
        code: Python source, possibly invalid.

    Returns:
        The normalised source.

    Examples:
        >>> normalise_source("x  =  1  # one\\n")
        'x = 1'
        >>> normalise_source("def f():\\n    'Doc.'\\n    return (1)\\n")
        'def f():\\n    return 1'
        >>> normalise_source('class C:\\n    "Only a docstring."\\n')
        'class C:\\n    pass'
        >>> normalise_source("def broken(:\\n    # note\\n\\n    pass   \\n")
        'def broken(:\\n    pass'
    """
    try:
        tree = pysyntax.parse(code)
        _strip_docstrings(tree)
        return ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _normalise_lines(code)


def content_hash(code: str) -> str:
    """Return the SHA-256 hex digest of ``normalise_source(code)`` encoded as UTF-8.

    Args:
        code: Python source, possibly invalid.

    Returns:
        64 lowercase hex characters.

    Examples:
        >>> content_hash("x = 1  # a comment") == content_hash("x=1")
        True
        >>> content_hash("x = 1") == content_hash("x = 2")
        False
        >>> len(content_hash("x = 1"))
        64
    """
    normalised = normalise_source(code).encode("utf-8", errors="surrogatepass")
    return hashlib.sha256(normalised).hexdigest()


def utc_now() -> str:
    """Return the current UTC time as ISO-8601, seconds precision: ``2026-11-29T15:40:00Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class EnvRecord:
    """One environment source as stored in the archive.

    Attributes:
        id: row id assigned by the archive; ``None`` before the record is added.
        source: the environment source exactly as validated.
        verdict: what the validator found.
        origin: where the source came from: a file path, or e.g. ``run:iter3:design5``.
        created_at: ISO-8601 UTC time of creation, seconds precision.
        content_hash: ``content_hash(source)``; equal for sources that differ only in
            comments, docstrings or formatting.
        metrics: JSON-serialisable numbers and notes (e.g. regret); a designed attempt's results
            are stored here under stable names and read back typed as ``design``.
    """

    id: int | None
    source: str
    verdict: Verdict
    origin: str
    created_at: str
    content_hash: str
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        """Whether the verdict found it valid."""
        return self.verdict.valid

    @property
    def hint(self) -> str | None:
        """The hint the verdict read from its first seed; None when there was none."""
        return self.verdict.hint

    @property
    def tolerances(self) -> tuple[str, ...]:
        """What the loader tolerated in it (and read another way)."""
        return self.verdict.tolerances

    @property
    def reason(self) -> str:
        """One line: ``valid``, or the first failed check with its message."""
        return self.verdict.reason

    @property
    def class_name(self) -> str | None:
        """The environment's class name, when the verdict found one."""
        return self.verdict.class_name

    @property
    def design(self) -> DesignResult | None:
        """The designed attempt this record holds (its results typed), or None when the record
        is not one (e.g. a file added by ``spadework validate --run-dir``)."""
        return DesignResult.from_metrics(self.metrics)

    @classmethod
    def new(
        cls,
        source: str,
        verdict: Verdict,
        origin: str,
        metrics: dict[str, Any] | None = None,
        design: DesignResult | None = None,
    ) -> EnvRecord:
        """Make a record not yet in the archive, stamped now and hashed.

        Args:
            source: the environment source.
            verdict: the validator's verdict on it.
            origin: where the source came from.
            metrics: initial metrics; copied.
            design: the designed attempt's results; stored in the metrics (its keys win).

        Returns:
            A record with ``id=None``.

        >>> from spadework.validate.verdict import Verdict
        >>> record = EnvRecord.new("x = 1", Verdict((), "none"), "run:i0:d0:a1", {"note": "n"},
        ...                        design=DesignResult(0, "d0", 1, None, None, True))
        >>> record.design.final, record.metrics["note"], record.metrics["design_id"]
        (True, 'n', 'd0')
        >>> EnvRecord.new("x = 1", Verdict((), "none"), "envs/x.py").design is None
        True
        """
        return cls(
            id=None,
            source=source,
            verdict=verdict,
            origin=origin,
            created_at=utc_now(),
            content_hash=content_hash(source),
            metrics={**(metrics or {}), **(design.to_metrics() if design is not None else {})},
        )

    def to_json(self) -> dict[str, Any]:
        """Return a flat JSON-serialisable dict; ``from_json`` reads it back."""
        return {
            "id": self.id,
            "created_at": self.created_at,
            "origin": self.origin,
            "content_hash": self.content_hash,
            "valid": self.valid,
            "class_name": self.class_name,
            "hint": self.hint,
            "reason": self.reason,
            "tolerances": list(self.tolerances),
            "source": self.source,
            "verdict": self.verdict.to_json(),
            "metrics": dict(self.metrics),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EnvRecord:
        """Read a record written by ``to_json``.

        The derived fields (``valid``, ``class_name``, ``hint``, ``reason``, ``tolerances``)
        are ignored: they are recomputed from ``verdict``.

        Raises:
            ArchiveError: a required key is missing.
        """
        try:
            return cls(
                id=data["id"],
                source=data["source"],
                verdict=Verdict.from_json(data["verdict"]),
                origin=data["origin"],
                created_at=data["created_at"],
                content_hash=data["content_hash"],
                metrics=dict(data.get("metrics") or {}),
            )
        except KeyError as exc:
            raise ArchiveError(
                f"record JSON lacks the key {exc.args[0]!r}; pass a dict made by EnvRecord.to_json"
            ) from exc
