"""A probe of designed environments: a fixed set played on seeds no training or validation uses.

``spadework eval --suite probe --probe PATH`` plays every environment of PATH, without the hint,
as a held-out task named ``probe/<name>``: PATH is a run directory (its archive's valid
environments, named ``<record id>-<class>``) or a folder of environment files (named by file;
give files you know are valid, e.g. checked with ``spadework validate``: one that fails to play
counts as unsolved and as an environment error). Item ``k`` plays seed ``PROBE_SEED_BASE + k``:
self-play seeds are below 2**31 (``outcomes.play_seeds``) and the validator's are small, so an
agent never trained on a probe seed. The environments run in the sandbox, like any designed code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadework.archive import ARCHIVE_FILE, Archive
from spadework.errors import ArchiveError, EnvError, UsageError
from spadework.eval.tasks import Suite, TaskOpener, TaskSpec, configured_tasks

if TYPE_CHECKING:
    from spadework.config import EvalSection

PROBE_SEED_BASE = 2**31
"""Item k of a probe environment plays this seed plus k: above every self-play seed (hashes below
2**31) and every validation seed (small numbers)."""


@dataclass(frozen=True)
class ProbeEnv:
    """One environment of a probe: its name in results and its source."""

    name: str
    source: str


def load_probe(path: Path) -> tuple[ProbeEnv, ...]:
    """The environments of a probe: a run's valid archived environments, or a folder's ``*.py`` files.

    Raises:
        UsageError: ``path`` is neither a run directory nor a folder with environment files, or
            holds no environment.
    """
    path = Path(path)
    if (path / ARCHIVE_FILE).is_file():
        try:
            with Archive.open(path, create=False) as archive:
                envs = tuple(ProbeEnv(f"{record.id}-{record.class_name}", record.source)
                             for record in archive.records(valid=True))
        except ArchiveError as exc:
            raise UsageError(f"--probe {path}: {exc}") from None
        what = "valid environments in its archive"
    elif path.is_dir():
        envs = tuple(ProbeEnv(f.stem, f.read_text(encoding="utf-8")) for f in sorted(path.glob("*.py"))
                     if f.name != "__init__.py")
        what = "environment files (*.py)"
    else:
        raise UsageError(f"--probe {path}: no such run directory or folder; give a run directory or a "
                         "folder of environment files")
    if not envs:
        raise UsageError(f"--probe {path} has no {what}; a probe needs at least one environment")
    return envs


def probe_tasks(envs: Sequence[ProbeEnv], max_turns: int) -> tuple[TaskSpec, ...]:
    """The probe's environments as held-out tasks (``probe/<name>``), each carrying its source."""
    return tuple(TaskSpec(Suite.PROBE, env.name, max_turns, env.source) for env in envs)


def held_out_tasks(section: EvalSection, max_turns: int) -> tuple[TaskSpec, ...]:
    """The tasks a config's ``[eval]`` section plays: its suites' and tasks', and the probe's
    environments when ``probe`` names some (a section of ``suites = ["probe"]`` alone plays only those).

    Raises:
        UsageError: an unknown suite or task, a library that is not installed, or a probe path that
            holds no environment.
    """
    tasks = configured_tasks(section)
    if section.probe:
        tasks += probe_tasks(load_probe(Path(section.probe)), max_turns)
    return tasks


class ProbeOpener:
    """Opens held-out tasks in this process and probe environments (their sources) in a sandbox.

    Args:
        tasks: the held-out tasks the ``TaskOpener`` may open.
        sandbox: where probe sources and a code task's programs run (``Sandbox`` or a fake with
            ``open(source)`` and ``run(source, timeout_s)``).
    """

    def __init__(self, tasks: Sequence[TaskSpec], sandbox: Any):
        self.held_out = TaskOpener([t for t in tasks if t.suite is not Suite.PROBE], sandbox)
        self.sandbox = sandbox

    def open(self, source: str) -> Any:
        """A held-out task's environment, or a probe's source opened in the sandbox."""
        if source in self.held_out.tasks:
            return self.held_out.open(source)
        if self.sandbox is None:
            raise EnvError("a probe environment needs a sandbox to run in; give evaluate() one")
        return self.sandbox.open(source)
