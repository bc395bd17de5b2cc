"""Paths the user gives: a file where a folder is needed, and operating-system errors said in one
line that names the path and what to do."""

from __future__ import annotations

import errno
from pathlib import Path

from spadework.errors import UsageError


def need_folder(path: Path, option: str, hint: str = "a folder (it is created when missing)") -> Path:
    """``path`` unless it names a file where a folder is needed, or lies under one.

    Raises:
        UsageError: ``path`` is a file, or a file is in the way of it.
    """
    blocker = file_in_the_way(path)
    if blocker == path:
        raise UsageError(f"{path}: is a file, not a folder; give {option} {hint}")
    if blocker is not None:
        raise UsageError(f"{path}: {blocker} is a file, not a folder; give {option} another path")
    return path


def file_in_the_way(path: Path) -> Path | None:
    """The first of ``path`` and its parents, from the top, that exists and is not a folder."""
    for candidate in (*reversed(path.parents), path):
        if candidate.exists() and not candidate.is_dir():
            return candidate
    return None


OS_REASONS = {
    errno.ENOSPC: "no space left on the device; free some space and {again}",
    errno.EDQUOT: "over the disk quota; free some space and {again}",
    errno.EACCES: "permission denied; fix its permissions or give another path",
    errno.EPERM: "not permitted; fix its permissions or give another path",
    errno.EROFS: "on a read-only file system; give a path on a writable one",
    errno.EISDIR: "is a folder where a file is needed; give a file",
    errno.ENOENT: "no such file or folder",
    errno.EEXIST: "already exists; move it away or give another path",
    errno.ENAMETOOLONG: "the name is too long; give a shorter path",
    errno.EMFILE: "too many open files; raise the limit (ulimit -n) and {again}",
}


DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
NOT_A_FOLDER = (errno.ENOTDIR, errno.EEXIST)  # EEXIST: mkdir(exist_ok=True) on a file


def describe_os_error(exc: OSError, resume: str | None = None, where: Path | None = None) -> str:
    """One line for an operating-system error: the path, what went wrong, what to do.

    Args:
        exc: the error.
        resume: the command that continues the work (said after a full disk); None: try again.
        where: the path to name after a full disk when the error names none (a write names none).

    >>> print(describe_os_error(OSError(errno.ENOSPC, "No space left on device", "r/m.jsonl"),
    ...                         resume="spadework run --resume r"))
    r/m.jsonl: no space left on the device; free some space and resume with: spadework run --resume r
    >>> describe_os_error(IsADirectoryError(errno.EISDIR, "Is a directory", "out"))
    'out: is a folder where a file is needed; give a file'
    >>> describe_os_error(OSError(errno.ENOSPC, "No space left on device"), where=Path("r"))
    'r: no space left on the device; free some space and try again'
    """
    again = f"resume with: {resume}" if resume else "try again"
    path = exc.filename2 if exc.filename2 is not None else exc.filename  # a rename: its target
    if path is None and exc.errno in DISK_FULL:
        path = where
    blocker = file_in_the_way(Path(path)) if path is not None and exc.errno in NOT_A_FOLDER else None
    if blocker is not None:  # name the file where a folder goes, not a path under it
        path, reason = blocker, "is a file where a folder is needed; move it away or give another path"
    elif exc.errno in OS_REASONS:
        reason = OS_REASONS[exc.errno].format(again=again)
    else:
        reason = (exc.strerror or str(exc) or type(exc).__name__).lower()
    return f"{path}: {reason}" if path is not None else reason
