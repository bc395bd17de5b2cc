"""The environment contract: what a designer's module must provide, and how it is scored.

A designer writes one Python module with one class whose name ends in ``Env``:

``max_turns: int``
    The most actions an episode may take. The loop stops the episode there.

``reset(seed: int | None = None) -> tuple[str, dict]``
    Start a new episode and return ``(observation, info)``. All randomness must
    come from ``seed``: the same seed gives the same episode, another seed a
    different one. (The sandbox also seeds the global ``random`` module with the
    episode's seed before calling ``reset``.)

``step(action: str) -> tuple[str, float, bool, bool, dict]``
    Play one action and return ``(observation, reward, terminated, truncated, info)``.
    ``action`` is the plain command text: the agent writes ``\\boxed{command}`` and
    the rollout passes ``command``. ``terminated`` means the episode reached an end
    of its own (solved, or lost for good); ``truncated`` means it was cut short from
    outside its rules (out of turns). The observation is what the agent reads next.

``solution() -> list[str]``
    Actions that solve the current episode from its reset state. The validator
    replays them: they must reach a score of exactly 1.0 within ``max_turns``.

``hint() -> str``
    Privileged help for the current episode. It should make the episode easier
    but must not contain the answer: the validator rejects a hint that contains
    the seed-specific parts of ``solution()``.

The episode's score is the sum of its rewards clipped to ``[0, 1]``, and is 1.0
exactly when the episode is solved. ``TextEnv`` (``spadework.envs.base``) removes
the boilerplate of turn counting and truncation; ``ToolEnv`` and ``ToolWorld``
(``spadework.envs.tools``) make an episode a task done by calling tools, and their
``reset`` gives the tools' schemas in ``info["tools"]``.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable

from spadework import pysyntax

REQUIRED_METHODS = ("reset", "step", "solution", "hint")
"""Methods every environment class must have."""

TEXTENV_METHODS = ("new_episode", "apply", "solution", "hint")
"""Methods a subclass of ``TextEnv`` writes instead."""

ANSWERENV_METHODS = ("new_episode", "hint")
"""Methods a subclass of ``AnswerEnv`` (a puzzle with one answer) writes."""

TOOLENV_METHODS = ("new_episode", "solution", "hint")
"""Methods a subclass of ``ToolEnv`` or ``ToolWorld`` (a task done by calling tools) writes."""

TOOL_BASES = frozenset({"ToolEnv", "ToolWorld", "DeclaredWorld"})
"""The base classes of tool-use environments."""

BASE_CLASS_METHODS = {"TextEnv": TEXTENV_METHODS, "AnswerEnv": ANSWERENV_METHODS,
                      "ToolEnv": TOOLENV_METHODS, "ToolWorld": TOOLENV_METHODS, "DeclaredWorld": ()}
"""The base classes of ``spadework.envs``, and what a subclass of each writes itself."""

ALLOWED_MODULES = frozenset({
    "__future__", "abc", "array", "bisect", "calendar", "collections", "copy", "dataclasses",
    "datetime", "decimal", "difflib", "enum", "fractions", "functools", "hashlib", "heapq",
    "itertools", "json", "math", "numbers", "operator", "random", "re", "statistics", "string",
    "textwrap", "time", "typing", "unicodedata", "spadework",
})
"""Top-level modules environment code may import (the sandbox is the real boundary;
this list is defence in depth, and what the sandbox makes available)."""

COMMON_MODULES = frozenset({
    "collections", "copy", "functools", "heapq", "itertools", "json", "math", "random", "re",
    "statistics", "string", "textwrap",
})
"""Modules the loader supplies when the code uses them without importing them."""

COMMON_NAMES = {
    "Counter": "collections", "OrderedDict": "collections", "defaultdict": "collections",
    "deque": "collections", "namedtuple": "collections", "dataclass": "dataclasses",
    "field": "dataclasses", "Any": "typing", "Dict": "typing", "List": "typing",
    "Optional": "typing", "Set": "typing", "Tuple": "typing", "TextEnv": "spadework.envs",
    "AnswerEnv": "spadework.envs", "ToolEnv": "spadework.envs", "ToolWorld": "spadework.envs",
    "DeclaredWorld": "spadework.envs", "tool": "spadework.envs", "call": "spadework.envs",
    "WholeNumber": "spadework.envs", "Decimals": "spadework.envs", "OneOf": "spadework.envs",
    "InOrder": "spadework.envs",
}
"""Names the loader supplies, from these modules, when the code uses them without importing them."""

DEFAULT_MAX_TURNS = 20
MAX_TURNS_LIMIT = 100
MAX_OBSERVATION_CHARS = 8_000
MAX_HINT_CHARS = 2_000
MAX_ACTION_CHARS = 2_000


def episode_score(rewards: Iterable[float]) -> float:
    """The score of an episode: the sum of its rewards, clipped to [0, 1].

    Non-finite rewards count as 0.

    >>> episode_score([0.25, 0.5])
    0.75
    >>> episode_score([1.0, 1.0])
    1.0
    >>> episode_score([-2.0, 0.5])
    0.0
    >>> episode_score([])
    0.0
    """
    total = sum(r for r in rewards if math.isfinite(r))
    return min(1.0, max(0.0, float(total)))


def is_solved(score: float) -> bool:
    """Whether a score counts as solved (1.0, allowing for float rounding).

    >>> is_solved(1.0), is_solved(0.9999999999), is_solved(0.99)
    (True, True, False)
    """
    return score >= 1.0 - 1e-9


def written_as_game(cls: ast.ClassDef) -> bool:
    """Whether a class that subclasses ``AnswerEnv`` writes its own ``apply()`` and never sets an
    answer: a game written in the answer form, which is read as a ``TextEnv`` game (its moves, not
    one answer, are scored). One that sets ``self.answer`` stays an answer puzzle.

    >>> written_as_game(ast.parse("class DiceEnv(AnswerEnv):\\n    def apply(self, a): pass").body[0])
    True
    >>> written_as_game(ast.parse("class SumEnv(AnswerEnv):\\n    def hint(self): pass").body[0])
    False
    >>> written_as_game(ast.parse("class KeyEnv(AnswerEnv):\\n    def new_episode(self):\\n"
    ...                           "        self.answer = 3\\n    def apply(self, a): pass").body[0])
    False
    """
    bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in cls.bases}
    writes_apply = any(isinstance(n, ast.FunctionDef) and n.name == "apply" for n in cls.body)
    if "AnswerEnv" not in bases or not writes_apply:
        return False
    targets = [t for n in ast.walk(cls) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
               for t in (n.targets if isinstance(n, ast.Assign) else [n.target])]
    named = {t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", "") for t in targets}
    return "answer" not in named


def is_answer_puzzle(source: str) -> bool:
    """Whether a module's environment class subclasses ``AnswerEnv`` (a puzzle with one answer);
    False for source that does not parse.

    >>> is_answer_puzzle("from spadework.envs import AnswerEnv\\nclass SumEnv(AnswerEnv):\\n    pass\\n")
    True
    >>> is_answer_puzzle("class MazeEnv(envs.TextEnv):\\n    pass\\n"), is_answer_puzzle("not python (")
    (False, False)
    """
    try:
        tree = pysyntax.parse(pysyntax.join_continued_strings(source)[0])
    except (SyntaxError, ValueError):
        return False
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.endswith("Env"):
            bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
            if "AnswerEnv" in bases and not written_as_game(node):
                return True
    return False


def is_tool_world(source: str) -> bool:
    """Whether a module's environment class subclasses ``ToolEnv`` or ``ToolWorld`` (directly, or
    through a class of the same module); False for source that does not parse.

    >>> is_tool_world("from spadework.envs import ToolWorld\\nclass ShopEnv(ToolWorld):\\n    pass\\n")
    True
    >>> is_tool_world("class Base(envs.ToolEnv): pass\\nclass ShopEnv(Base): pass\\n")
    True
    >>> is_tool_world("class SumEnv(AnswerEnv):\\n    pass\\n"), is_tool_world("not python (")
    (False, False)
    """
    try:
        tree = pysyntax.parse(pysyntax.join_continued_strings(source)[0])
    except (SyntaxError, ValueError):
        return False
    bases = {node.name: {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
             for node in tree.body if isinstance(node, ast.ClassDef)}
    for name in bases:
        if not name.endswith("Env") or name in TOOL_BASES:
            continue
        todo, seen = [name], set()
        while todo:
            current = todo.pop()
            if current in seen:
                continue
            seen.add(current)
            if bases.get(current, set()) & TOOL_BASES:
                return True
            todo.extend(bases.get(current, set()))
    return False
