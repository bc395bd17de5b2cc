"""A run directory's files: atomic writes, and the metrics file every iteration appends to.

Everything spadework keeps on disk is written through ``atomic_path``: into a temporary
beside its target, flushed to the disk, then renamed over the target. A crash leaves the old
file or the new one, never half of one. This module imports nothing of spadework, so every
part may use it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CONFIG_FILE = "config.toml"
"""The resolved configuration of a run, written when it starts."""
METRICS_FILE = "metrics.jsonl"
"""One JSON object per committed iteration (its ``iteration`` and every metric)."""


def _sync(path: Path) -> None:
    """Flush ``path`` (a file, or a folder and every file in it) to the disk."""
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    for file in files:
        with open(file, "rb") as handle:
            os.fsync(handle.fileno())


def _sync_folder(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (where the platform allows it)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path`` for the block to write (a file, or a folder it creates);
    when the block succeeds it is synced and renamed onto ``path``, else removed.

    A folder replaces an existing folder at ``path`` (removed just before the rename).

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_path(target) as temporary:
    ...     _ = temporary.write_text("new")
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('new', ['out.txt'])
    """
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    _remove(temporary)  # a leftover of a crashed writer with the same pid
    try:
        yield temporary
        _sync(temporary)
        if temporary.is_dir() and path.is_dir():
            shutil.rmtree(path)
        os.replace(temporary, path)
        _sync_folder(path.parent)
    finally:
        _remove(temporary)


def write_atomically(path: Path, content: str | bytes) -> None:
    """Write ``content`` (text as UTF-8) to ``path`` so that a crash leaves the old or the new file.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "a.json"
    >>> write_atomically(target, "{}"); write_atomically(target, b"[]"); target.read_text()
    '[]'
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)


def metrics_line(metrics: dict[str, Any]) -> str:
    """One line of ``metrics.jsonl``.

    >>> metrics_line({"reward/agent_mean": 0.5, "iteration": 0})
    '{"iteration": 0, "reward/agent_mean": 0.5}\\n'
    """
    return json.dumps(metrics, sort_keys=True) + "\n"


def append_metrics(run_dir: Path, metrics: dict[str, Any]) -> None:
    """Add one iteration's metrics to the run's metrics file."""
    with open(Path(run_dir) / METRICS_FILE, "a", encoding="utf-8") as handle:
        handle.write(metrics_line(metrics))
        handle.flush()
        os.fsync(handle.fileno())


def rewrite_metrics(run_dir: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Replace the run's metrics file with ``rows`` (the committed iterations, after an interruption)."""
    write_atomically(Path(run_dir) / METRICS_FILE, "".join(metrics_line(row) for row in rows))


__all__ = ["CONFIG_FILE", "METRICS_FILE", "append_metrics", "atomic_path", "metrics_line",
           "rewrite_metrics", "write_atomically"]
