"""BFCL v4 multi-turn entries and prompts, read through the leaderboard's own package.

The Berkeley Function Calling Leaderboard's package (``bfcl-eval``) ships the multi-turn data,
the function docs of its API classes, the prompting-format system prompt, the decoder, the
executable backends and the checker. This module loads entries and builds prompts;
``spadework.eval.bfcl`` decodes, executes and scores. Every ``bfcl_eval`` import goes through
``bfcl_module``, so spadework imports without the package.

bfcl-eval declares about thirty dependencies (vendor SDKs, embedding models) that the
multi-turn parts never import; it is installed without them (``INSTALL_HINT``), and the
``eval`` extra lists the few its multi-turn modules need.

The package writes result, score and lock folders under ``$BFCL_PROJECT_ROOT`` when it is
imported (by default next to the installed package); unless that variable is set, it is
pointed at ``bfcl`` in spadework's cache folder (``$SPADEWORK_CACHE``, else ``~/.cache/spadework``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

from spadework.errors import UsageError
from spadework.policy.base import Message, Role

PACKAGE = "bfcl-eval"
VERSION = "2026.3.23"
INSTALL_HINT = f"pip install 'spadework[eval]' && pip install --no-deps {PACKAGE}=={VERSION}"
ROOT_ENV = "BFCL_PROJECT_ROOT"
"""The package's own variable for the folder it writes results, scores and lock files into."""

CATEGORIES: tuple[str, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
"""The multi-turn categories of BFCL v4, 200 entries each."""

FunctionDoc = dict[str, Any]
"""One function as the leaderboard documents it: ``{"name", "description", "parameters", "response"}``."""


def bfcl_module(name: str) -> ModuleType:
    """``bfcl_eval.<name>``, imported on first use (e.g. ``bfcl_module("utils")``).

    Raises:
        UsageError: the package, or a module it imports, is not installed; or the folder it
            writes into cannot be created.
    """
    os.environ.setdefault(ROOT_ENV, str(_scratch_root()))
    try:
        return import_module(f"bfcl_eval.{name}")
    except ImportError as exc:
        missing = (exc.name or "bfcl_eval").split(".")[0]
        what = f"the {PACKAGE} package" if missing == "bfcl_eval" else f"{missing} (imported by {PACKAGE})"
        raise UsageError(f"BFCL evaluation needs {what}, which is not installed; install it with: "
                         f"{INSTALL_HINT}") from None
    except OSError as exc:
        raise UsageError(f"{PACKAGE} could not create its folders under {os.environ[ROOT_ENV]} ({exc}); "
                         f"set {ROOT_ENV} to a writable folder") from None


def _scratch_root() -> Path:
    from spadework.policy.models import default_cache_dir

    return default_cache_dir().parent / "bfcl"


@dataclass(frozen=True)
class BfclEntry:
    """One multi-turn entry: the user's turns, the functions, the backends' start, the answers.

    Attributes:
        id: the entry's id, e.g. ``multi_turn_base_0``.
        category: one of ``CATEGORIES``.
        turns: the user's messages, one tuple per turn. A turn where held-out functions arrive
            (``missed``) is empty in the data; ``messages`` says what the leaderboard sends then.
        functions: the function docs the model sees from the start: every function of the
            involved classes, less the held-out ones. ``excluded_function`` is not removed:
            the leaderboard never reads that field, so those functions stay listed and callable.
        missed: the held-out function docs, by the turn at which they are added (miss_func only).
        involved_classes: the API classes the entry uses (``GorillaFileSystem``, ``MathAPI``...).
        initial_config: each class's starting state.
        excluded_function: the data's ``excluded_function`` field, kept for reference.
        answers: the possible answer: per turn, the call strings of one correct solution; an
            empty turn is one where the model cannot act (a held-out function or a missing
            parameter), which the checker does not check.
    """

    id: str
    category: str
    turns: tuple[tuple[Message, ...], ...]
    functions: tuple[FunctionDoc, ...]
    missed: Mapping[int, tuple[FunctionDoc, ...]]
    involved_classes: tuple[str, ...]
    initial_config: Mapping[str, Any]
    excluded_function: tuple[str, ...]
    answers: tuple[tuple[str, ...], ...]

    @property
    def long_context(self) -> bool:
        """Whether the backends start with their long-context data (as the leaderboard decides it)."""
        return "long_context" in self.category

    def messages(self, turn: int) -> tuple[Message, ...]:
        """The user's messages that open ``turn``: the data's, or at a held-out turn, the
        leaderboard's prompting-format message that lists the functions added then."""
        if turn not in self.missed:
            return self.turns[turn]
        prompts = bfcl_module("constants.default_prompts")
        listed = [dict(doc) for doc in self.missed[turn]]
        return (Message(Role.USER, prompts.DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING.format(
            functions=listed)),)

    def checker_entry(self) -> dict[str, Any]:
        """The fields of the data entry that the leaderboard's checker reads."""
        return {"id": self.id, "initial_config": self.initial_config,
                "involved_classes": list(self.involved_classes)}


def load_entries(category: str) -> list[BfclEntry]:
    """Every entry of ``category`` with its possible answer, in the data's order.

    Loaded as the leaderboard's evaluation loads them (function docs of the involved classes,
    held-out ones moved to ``missed``).

    Raises:
        UsageError: ``category`` is not a multi-turn category, or the package is missing.
    """
    if category not in CATEGORIES:
        raise UsageError(f"unknown BFCL category {category!r}; choose from {', '.join(CATEGORIES)}")
    utils = bfcl_module("utils")
    data = utils.load_dataset_entry(category, include_prereq=False, include_language_specific_hint=False)
    answers = {row["id"]: row["ground_truth"] for row in utils.load_ground_truth_entry(category)}
    return [_entry(raw, category, answers[raw["id"]]) for raw in data]


def _entry(raw: Mapping[str, Any], category: str, answer: Sequence[Sequence[str]]) -> BfclEntry:
    return BfclEntry(
        id=raw["id"],
        category=category,
        turns=tuple(tuple(Message(Role(m["role"]), m["content"]) for m in turn) for turn in raw["question"]),
        functions=tuple(raw["function"]),
        missed={int(turn): tuple(docs) for turn, docs in raw.get("missed_function", {}).items()},
        involved_classes=tuple(raw["involved_classes"]),
        initial_config=raw.get("initial_config", {}),
        excluded_function=tuple(raw.get("excluded_function", ())),
        answers=tuple(tuple(turn) for turn in answer),
    )


def system_prompt(functions: Sequence[FunctionDoc]) -> str:
    """The leaderboard's default prompting-format system prompt listing ``functions``.

    It asks for calls as one Python list, ``[f(a=1), g(b='x')]``, and documents the functions
    as JSON; the leaderboard puts it before the first turn's messages.
    """
    handler_utils = bfcl_module("model_handler.utils")
    prompts = bfcl_module("constants.default_prompts")
    docs = [dict(doc) for doc in functions]
    return handler_utils.formulate_system_prompt(prompts.DEFAULT_SYSTEM_PROMPT_FORMAT, docs)


def results_message(calls: Sequence[str], results: Sequence[str]) -> str:
    """The results of one step's calls as one user message, as the leaderboard's prompting
    handlers of chat APIs send them back (a list of ``{"role": "tool", "name", "content"}``)."""
    handler_utils = bfcl_module("model_handler.utils")
    step = {"model_responses_decoded": list(calls)}
    return handler_utils.format_execution_results_prompting({}, list(results), step)


def step_limit() -> int:
    """The leaderboard's limit on steps with calls in one turn: once a turn has had more, the
    model is forced to quit and the entry ends there, scored invalid."""
    return int(bfcl_module("constants.default_prompts").MAXIMUM_STEP_LIMIT)
