"""Validating files from disk: each file's verdict, or why it has none, as one record.

The record is the line ``spadework validate --json`` prints and a row of its table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from spadework.errors import ParseError, UsageError
from spadework.sandbox import SandboxProtocol
from spadework.validate.context import ValidatorConfig
from spadework.validate.parse import extract_code
from spadework.validate.validator import read_source, validate
from spadework.validate.verdict import Verdict


def source_of(text: str, is_reply: bool) -> str:
    """The code to store for a file: the reply's code block when there is one.

    >>> source_of("x = 1", False), source_of("Here:\\n```python\\nx = 1\\n```", True)
    ('x = 1', 'x = 1\\n')
    >>> source_of("no code here", True)
    'no code here'
    """
    if not is_reply:
        return text
    try:
        return extract_code(text)
    except ParseError:
        return text


@dataclass(frozen=True)
class FileVerdict:
    """What validating one file gave.

    Attributes:
        path: the file, as given.
        verdict: the validator's verdict; None when the file could not be read.
        isolation: the sandbox's isolation (a verdict carries its own; this one is shown without).
        error: why there is no verdict ("" when there is one).
        source: the code a verdict is recorded with (a reply's code block; "" without a verdict).
    """

    path: Path
    verdict: Verdict | None
    isolation: str
    error: str = ""
    source: str = ""

    @property
    def valid(self) -> bool:
        """Whether the file holds a valid environment."""
        return self.verdict is not None and self.verdict.valid

    def to_json(self) -> dict[str, Any]:
        """The file's path and its verdict's fields, or an invalid verdict of no checks and the error.

        >>> FileVerdict(Path("gone.py"), None, "namespaces", "gone.py: no such file").to_json()["checks"]
        []
        """
        if self.verdict is None:
            return {"path": str(self.path), "valid": False, "checks": [], "isolation": self.isolation,
                    "seconds": 0.0, "tolerances": [], "error": self.error}
        return {"path": str(self.path), **self.verdict.to_json()}

    def json_line(self) -> str:
        """The line ``spadework validate --json`` prints for the file (keys sorted).

        >>> FileVerdict(Path("gone.py"), None, "namespaces", "gone.py: no such file").json_line()
        '{"checks": [], "error": "gone.py: no such file", "isolation": "namespaces", "path": "gone.py", \
"seconds": 0.0, "tolerances": [], "valid": false}'
        """
        return json.dumps(self.to_json(), sort_keys=True)


def validate_file(path: Path, sandbox: SandboxProtocol, levels: bool = False) -> FileVerdict:
    """Read ``path`` (a module, or a designer reply when not ``.py``) and validate it in ``sandbox``
    (every difficulty it declares, with ``levels``); a file that cannot be read gives a
    ``FileVerdict`` with its error instead of raising."""
    isolation = sandbox.isolation.value
    try:
        text, is_reply = read_source(path)
    except UsageError as exc:
        return FileVerdict(path, None, isolation, error=str(exc))
    verdict = validate(text, sandbox, ValidatorConfig(levels=levels), is_reply=is_reply)
    return FileVerdict(path, verdict, isolation, source=source_of(text, is_reply))


def verdict_table(results: Sequence[FileVerdict], verbose: bool) -> Table:
    """The verdict table ``spadework validate`` prints (every check with ``verbose``)."""
    table = Table(title="Verdicts")
    for column in ("file", "valid", "class", "reason", "tolerances", "seconds"):
        table.add_column(column, overflow="fold")
    for result in results:
        verdict = result.verdict
        if verdict is None:
            table.add_row(str(result.path), "[red]no[/]", "", result.error, "", "")
            continue
        table.add_row(str(result.path), "[green]yes[/]" if verdict.valid else "[red]no[/]",
                      verdict.class_name or "", verdict.reason, str(len(verdict.tolerances)),
                      f"{verdict.seconds:.2f}")
        if verdict.difficulties > 1 or verdict.ladder:
            table.add_row("", "", "  difficulties", f"1 to {verdict.difficulties}"
                          + (f"; {verdict.ladder}" if verdict.ladder else ""), "", "")
        if verbose:
            for check in verdict.checks:
                table.add_row("", "", f"  {check.name}", f"{check.outcome.value} {check.message}",
                              "", f"{check.seconds:.3f}")
    return table
