"""Tolerant loading of environment source, with every tolerance recorded.

Standard library only: this module runs inside the sandbox worker (and in the
in-process fake used by fast tests). It turns source text into an ``EnvAdapter``
that calls the environment through the contract, repairing the mechanical slips
small models make and saying which repairs it applied.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import linecache
import random
import sys
import types
from typing import Any

from spadework import pysyntax
from spadework.envs.base import TextEnv
from spadework.envs.contract import (
    BASE_CLASS_METHODS,
    COMMON_MODULES,
    COMMON_NAMES,
    DEFAULT_MAX_TURNS,
    written_as_game,
)
from spadework.envs.declared import DeclaredWorld
from spadework.envs.tools import ToolEnv, ToolWorld

ENV_FILENAME = "<environment>"
MODULE_NAME = "environment"
BASE_CLASS_NAMES = frozenset(BASE_CLASS_METHODS)


class LoadError(Exception):
    """The source cannot be turned into an environment instance; the message says why."""


def env_class_names(tree: ast.Module) -> list[str]:
    """Names of the top-level classes whose name ends in ``Env`` (the base class excluded).

    >>> env_class_names(ast.parse("class GuessEnv: pass\\nclass Helper: pass"))
    ['GuessEnv']
    """
    return [
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        and node.name.endswith("Env")
        and node.name not in BASE_CLASS_NAMES
    ]


def bound_names(tree: ast.Module) -> set[str]:
    """Names the module binds anywhere: imports, defs, assignments, arguments, handlers.

    >>> sorted(bound_names(ast.parse("import os.path as p\\ndef f(y): z = y")))
    ['f', 'p', 'y', 'z']
    """
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return bound


def unbound_names(tree: ast.Module) -> set[str]:
    """Names the module reads but never binds, and that are not builtins.

    >>> sorted(unbound_names(ast.parse("x = random.randint(1, 2)\\ndef f(y): return y + z")))
    ['random', 'z']
    """
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded - bound_names(tree) - set(dir(builtins))


def missing_imports(tree: ast.Module) -> dict[str, str]:
    """Unbound names the loader can supply, mapped to the module that provides them.

    >>> missing_imports(ast.parse("n = math.sqrt(4)\\nq = deque()\\nprint(undefined)"))
    {'deque': 'collections', 'math': 'math'}
    """
    supplied = {}
    for name in sorted(unbound_names(tree)):
        if name in COMMON_MODULES:
            supplied[name] = name
        elif name in COMMON_NAMES:
            supplied[name] = COMMON_NAMES[name]
    return supplied


BASE_PACKAGE = "spadework.envs"
BASE_MODULES = frozenset({"spadework.envs.base", "spadework.envs.tools", "spadework.envs.declared",
                          "spadework.envs.declared_tasks"})
"""The submodules that hold the base classes (importing them from there is right too)."""
RELOCATABLE_NAMES = BASE_CLASS_NAMES | {"tool"}
"""Names a misplaced import may bring in: the base classes and the ``tool`` mark."""


def misplaced_base_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """``from spadework.envs.<something> import TextEnv`` lines: a base class from a submodule
    that does not exist (a slip of small models); only the base classes (and ``tool``) may be
    imported that way.

    >>> [n.module for n in misplaced_base_imports(ast.parse("from spadework.envs.texts import TextEnv"))]
    ['spadework.envs.texts']
    >>> [n.module for n in misplaced_base_imports(ast.parse("from spadework.envs.tool import tool"))]
    ['spadework.envs.tool']
    >>> misplaced_base_imports(ast.parse("from spadework.envs.x import TextEnv, helper"))
    []
    >>> misplaced_base_imports(ast.parse("from spadework.envs.tools import ToolWorld, tool"))
    []
    """
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
            and node.module.startswith(BASE_PACKAGE + ".") and node.module not in BASE_MODULES
            and {alias.name for alias in node.names} <= RELOCATABLE_NAMES]


def load(source: str, default_max_turns: int = DEFAULT_MAX_TURNS, *,
         docstring_hint: bool = True, difficulty: int | None = None) -> EnvAdapter:
    """Execute ``source`` as a module and instantiate its environment class (``docstring_hint``: a
    ``hint()`` that is only a docstring gives the docstring, see ``EnvAdapter.hint``), set to
    ``difficulty`` when given (None: the class's own).

    Raises:
        LoadError: the source has no usable environment class, or ``difficulty`` is not one it
            declares. Exceptions raised by the module body or the constructor propagate unchanged.
    """
    source, joined = pysyntax.join_continued_strings(source)
    try:
        tree = pysyntax.parse(source, ENV_FILENAME)
    except SyntaxError as exc:
        raise LoadError(f"syntax error at line {exc.lineno}: {exc.msg}") from None
    names = env_class_names(tree)
    if len(names) != 1:
        found = ", ".join(names) if names else "none"
        raise LoadError(f"expected exactly one class whose name ends in 'Env'; found {found}")
    tolerances = [f"a string was continued on the next line without parentheses ({joined} times); put it in "
                  "parentheses"] if joined else []
    for node in misplaced_base_imports(tree):
        imported = ", ".join(alias.name for alias in node.names)
        tolerances.append(f"{imported} was imported from {node.module}; imported it from {BASE_PACKAGE}")
        node.module = BASE_PACKAGE
    module = types.ModuleType(MODULE_NAME)
    for name, module_name in missing_imports(tree).items():
        provider = importlib.import_module(module_name)
        module.__dict__[name] = provider if name == module_name else getattr(provider, name)
        tolerances.append(f"'{name}' was used without an import; supplied it from {module_name}")
    for statement in tree.body:
        if isinstance(statement, ast.ClassDef) and statement.name == names[0] and written_as_game(statement):
            statement.bases = [ast.copy_location(ast.Name(REBASED, ast.Load()), base)
                               if _base_name(base) == "AnswerEnv" else base for base in statement.bases]
            module.__dict__[REBASED] = TextEnv
            tolerances.append("an AnswerEnv subclass writes apply(): read it as a game, a TextEnv subclass")
    lines = source.splitlines(keepends=True)
    linecache.cache[ENV_FILENAME] = (len(source), None, lines, ENV_FILENAME)
    sys.modules[MODULE_NAME] = module
    exec(compile(tree, ENV_FILENAME, "exec"), module.__dict__)
    cls = module.__dict__[names[0]]
    try:
        inspect.signature(cls).bind()
    except TypeError:
        raise LoadError(f"{names[0]}() must be constructible without arguments") from None
    adapter = EnvAdapter(cls(), names[0], default_max_turns, tolerances, docstring_hint=docstring_hint)
    if difficulty is not None:
        adapter.set_difficulty(difficulty)
    return adapter


MAX_DIFFICULTIES = 10
"""The most difficulties an environment may declare."""
REBASED = "__spadework_TextEnv__"
"""The name a game written in the answer form gets its ``TextEnv`` base by (no clash with the module's)."""


def _base_name(node: ast.expr) -> str:
    """A base class expression's name (``AnswerEnv``, ``envs.AnswerEnv``)."""
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _is_number(value: Any) -> bool:
    """Whether an action is a plain number (a slip for its text).

    >>> _is_number(3), _is_number(2.5), _is_number(True), _is_number("3")
    (True, True, False, False)
    """
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_pair(value: Any) -> bool:
    """Whether ``value`` looks like an ``(observation, info)`` pair.

    >>> _is_pair(("a", {})), _is_pair(["a", {}]), _is_pair(("a", 1, 2))
    (True, True, False)
    """
    return isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[1], dict)


def _only_a_docstring() -> None:
    """The body every function that is only a docstring compiles to."""


def docstring_only(function: Any) -> str | None:
    """The docstring of a function whose body is only that docstring (``pass`` or ``return None``
    beside it change nothing), cleaned as ``inspect`` cleans it; None for any other function (one
    that computes or returns something, or has no docstring).

    >>> def hint(self):
    ...     '''Sort the pages first.'''
    >>> def forgot(self):
    ...     '''A hint.'''
    ...     text = "Sort the pages first."
    >>> def answers(self):
    ...     '''A hint.'''
    ...     return 5
    >>> [docstring_only(f) for f in (hint, forgot, answers, lambda self: None)]
    ['Sort the pages first.', None, None, None]
    """
    code = getattr(function, "__code__", None)
    doc = getattr(function, "__doc__", None)
    if not isinstance(code, types.CodeType) or type(doc) is not str or not doc.strip():
        return None
    reference = _only_a_docstring.__code__
    if (code.co_code, code.co_names, code.co_consts[1:]) != \
            (reference.co_code, reference.co_names, reference.co_consts[1:]):
        return None
    return inspect.cleandoc(doc)


class EnvAdapter:
    """Calls an environment instance through the contract, tolerating known slips.

    Attributes:
        class_name: the environment class.
        tolerances: every repair applied so far, in words, in the order applied.
    """

    def __init__(self, env: Any, class_name: str, default_max_turns: int, tolerances: list[str], *,
                 docstring_hint: bool = True):
        self.env = env
        self.class_name = class_name
        self.tolerances = list(tolerances)
        self.docstring_hint = docstring_hint
        if getattr(env, "max_turns", None) is None:
            env.max_turns = default_max_turns
            self._tolerate(f"max_turns is missing; used the default of {default_max_turns}")
        self.difficulties = self._difficulties_of(env)
        self._reset_mode = self._reset_mode_of(env)
        self._overrides_base_reset = isinstance(env, TextEnv) and \
            type(env).reset not in (TextEnv.reset, ToolEnv.reset)

    @property
    def max_turns(self) -> Any:
        """The environment's turn limit."""
        return self.env.max_turns

    def _tolerate(self, what: str) -> None:
        if what not in self.tolerances:
            self.tolerances.append(what)

    def _difficulties_of(self, env: Any) -> int:
        """How many difficulties the environment declares (``difficulties``; 1: none to choose)."""
        declared = getattr(env, "difficulties", 1)
        if isinstance(declared, int) and not isinstance(declared, bool) and 1 <= declared <= MAX_DIFFICULTIES:
            return declared
        self._tolerate(f"difficulties is {str(declared)[:40]}, not an int from 1 to {MAX_DIFFICULTIES}; "
                       "played it at its own difficulty alone")
        return 1

    def set_difficulty(self, difficulty: int) -> None:
        """Play every later episode at ``difficulty`` (``self.difficulty`` of the instance).

        Raises:
            LoadError: the environment declares no such difficulty.
        """
        if isinstance(difficulty, bool) or not isinstance(difficulty, int) or \
                not 1 <= difficulty <= self.difficulties:
            raise LoadError(f"difficulty {difficulty!r} is not one {self.class_name} declares (1 to "
                            f"{self.difficulties})")
        self.env.difficulty = difficulty

    def _reset_mode_of(self, env: Any) -> str:
        try:
            params = inspect.signature(env.reset).parameters.values()
        except (TypeError, ValueError):
            return "keyword"
        if any(p.name == "seed" or p.kind is p.VAR_KEYWORD for p in params):
            return "keyword"
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if positional:
            return "positional"
        self._tolerate("reset() takes no seed; seeded the global random module instead")
        return "none"

    def reset(self, seed: int | None) -> Any:
        """The environment's ``reset`` on ``seed`` (drawn when None), read as ``(observation, info)``."""
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        random.seed(seed)
        ours = self._prepare_base_state(seed) if self._overrides_base_reset else None
        if self._reset_mode == "keyword":
            result = self.env.reset(seed=seed)
        elif self._reset_mode == "positional":
            result = self.env.reset(seed)
        else:
            result = self.env.reset()
        if ours is not None and getattr(self.env, "rng", None) is ours:
            self._tolerate("reset() overrides TextEnv.reset without making self.rng; made it from the seed")
        if isinstance(result, str):
            self._tolerate("reset() returned only the observation; read it as (observation, {})")
            result = (result, {})
        elif _is_pair(result) and _is_pair(result[0]) and isinstance(result[0][0], str):
            self._tolerate("new_episode() returned (observation, info); used the observation")
            result = (result[0][0], result[1])
        if ours is not None and isinstance(self.env, ToolEnv) and _is_pair(result):
            result = self._with_tools(result)
        if isinstance(self.env, DeclaredWorld):
            for slip in self.env.slips():
                self._tolerate(slip)
        if isinstance(self.env, ToolWorld) and self.env.keeps_own_world():
            self._tolerate("new_episode() set no self.records; the world is its own attributes "
                           f"({', '.join(sorted(self.env.state()))}), without the record tools")
        return result

    def redraw(self, seed: int, plan: dict[str, Any] | None) -> dict[str, Any]:
        """``reset(seed)`` with every value drawn written down, and drawn as ``plan`` says (None: as
        usual; see ``sandbox.draws``): the opening, the draws, and whether the plan's change was made."""
        from spadework.sandbox.draws import drawing

        with drawing(seed, plan) as log:
            opening = self.reset(seed)
        return {"opening": opening, "draws": log.draws, "applied": log.applied}

    def _with_tools(self, result: Any) -> tuple[Any, dict]:
        """A ToolEnv subclass that writes its own reset() gets its tools read and its goal replayed
        after that reset (the world is complete only then), and the tools in its info."""
        observation, info = result
        if "tools" not in info:
            self._tolerate("reset() overrides ToolEnv.reset without calling it; read the tools and "
                           "replayed solution() after it")
        return observation, {**info, **self.env.prepare_episode()}

    def _prepare_base_state(self, seed: int) -> random.Random:
        """A TextEnv subclass that writes its own reset() still gets what TextEnv.reset sets up."""
        self.env.rng = random.Random(seed)
        self.env.turn, self.env.over = 0, False
        return self.env.rng

    def step(self, action: str) -> Any:
        """The environment's ``step``, a four-value result read as five."""
        result = self.env.step(action)
        if isinstance(result, tuple) and len(result) == 4:
            self._tolerate(
                "step() returned (observation, reward, done, info); read done as terminated"
            )
            observation, reward, done, info = result
            return (observation, reward, done, False, info)
        return result

    def solution(self) -> Any:
        """The environment's solution, read as a list of text actions."""
        method = self.env.solution
        if isinstance(method, (list, tuple)):
            self._tolerate("an attribute named solution hid the solution() method; used its value")
            actions = method
        else:
            actions = method()
        if isinstance(actions, str):
            self._tolerate("solution() returned one string; read it as a list of one action")
            return [actions]
        if isinstance(actions, tuple):
            actions = list(actions)
        if isinstance(actions, list) and any(_is_number(a) for a in actions):
            self._tolerate("solution() returned numbers as actions; read them as text")
            actions = [str(a) if _is_number(a) else a for a in actions]
        return actions

    def hint(self) -> Any:
        """The environment's ``hint()``; one that returns nothing and whose body is only a docstring
        gives the docstring (with ``docstring_hint``): the hint was written where it is not returned."""
        method = self.env.hint
        hint = method()
        if hint is None and self.docstring_hint:
            written = docstring_only(getattr(method, "__func__", None))  # the method that ran
            if written is not None:
                self._tolerate("hint() held only a docstring and returned None; "
                               "used the docstring as the hint")
                return written
        return hint
