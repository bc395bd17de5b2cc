r"""reasoning-gym tasks as single-turn spadework environments (held-out evaluation).

One seed is one item: ``reset(seed)`` builds the task's dataset with that seed and size 1
and shows its question; the agent answers once (``\boxed{answer}``), and the reward is
reasoning-gym's own ``score_answer`` of that answer, as ``graded_score`` maps it: 1.0 is a
correct answer, partial credit (which some tasks give for near misses) stays below 1.
A question has one answer, so the episode is single-turn: there is nothing to learn from
feedback that a second attempt could use without guessing.

reasoning-gym is imported when the first adapter is built (``pip install 'spadework[eval]'``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from spadework.envs.heldout import HeldOutEnv, PrivateRandom, graded_score, import_package
from spadework.errors import EnvError, EnvRaised

PACKAGE = "reasoning-gym"
ANSWER_NOTE = "Give only your final answer, inside \\boxed{...}."

TASKS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "basic_arithmetic": MappingProxyType({"min_terms": 2, "max_terms": 4, "min_digits": 1, "max_digits": 2}),
    "gcd": MappingProxyType({}),
    "leg_counting": MappingProxyType({}),
    "letter_counting": MappingProxyType({}),
    "spell_backward": MappingProxyType({}),
    "word_sorting": MappingProxyType({"min_words": 3, "max_words": 6}),
})
"""The default reasoning-gym tasks and the dataset options each is built with (others use the
library's defaults). Chosen to be quick to generate and scored exactly by ``score_answer``;
``basic_arithmetic`` and ``word_sorting`` are made smaller than the library's defaults (up to
4 terms of 2 digits; up to 6 words) so that a small model is not at zero."""


def task_names() -> tuple[str, ...]:
    """Every task reasoning-gym registers (imports reasoning-gym).

    Raises:
        UsageError: reasoning-gym is not installed.
    """
    factory = import_package("reasoning_gym.factory", PACKAGE)
    return tuple(sorted(factory.DATASETS))


class ReasoningGymEnv(HeldOutEnv):
    """One reasoning-gym task; each seed is one question, answered in one turn.

    Args:
        task: a reasoning-gym dataset name, e.g. ``basic_arithmetic``.
        options: dataset options; default ``TASKS[task]`` (or none for other tasks).

    Raises:
        UsageError: reasoning-gym is not installed.
    """

    max_turns = 1

    def __init__(self, task: str, options: Mapping[str, Any] | None = None):
        self._library = import_package("reasoning_gym", PACKAGE)
        self.task = task
        self.options = dict(TASKS.get(task, {}) if options is None else options)
        self._dataset: Any = None
        self._entry: dict[str, Any] | None = None
        self._random = PrivateRandom()

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        """Draw the question of ``seed`` (0 when None).

        Raises:
            EnvRaised: reasoning-gym could not build the item (unknown task, bad options).
        """
        seed = 0 if seed is None else int(seed)
        try:
            with self._random.active():  # a few tasks draw from the global module
                self._dataset = self._library.create_dataset(self.task, seed=seed, size=1, **self.options)
                self._entry = self._dataset[0]
        except Exception as exc:  # noqa: BLE001 - a library failure ends this episode only
            raise EnvRaised(f"reasoning-gym could not build task {self.task!r} seed {seed}: "
                            f"{type(exc).__name__}: {exc}") from None
        return f"{self._entry['question']}\n\n{ANSWER_NOTE}", {"task": self.task, "seed": seed}

    def _current(self) -> dict[str, Any]:
        if self._entry is None:
            raise EnvError(f"reasoning-gym task {self.task!r}: call reset() before step() or solution()")
        return self._entry

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Grade the answer with ``score_answer``; the episode ends after it.

        Raises:
            EnvError: called before ``reset``.
        """
        entry = self._current()
        try:
            raw = self._dataset.score_answer(str(action).strip(), entry)
        except Exception:  # noqa: BLE001 - a grader that chokes on an answer scores it 0
            raw = 0.0
        reward = graded_score(raw)
        verdict = "Correct." if reward == 1.0 else f"Not correct (score {reward:.2f})."
        return verdict, reward, True, False, {"raw_score": raw}

    def solution(self) -> list[str]:
        """The item's reference answer, as the one action that solves it (for checks and tests)."""
        return [str(self._current()["answer"])]
