"""Every played episode of a designed environment is checked, not only the validator's seeds.

Validation looks at a few seeds; rewards come from the seeds that are played. An environment
that is fair on the first and hands the answer over on the second would earn regret for nothing,
so the play path checks each played episode itself (``RolloutConfig.audit``):

1. At the start, in both arms alike, the environment is reset to the episode's seed and asked
   for its hint and its solution (``read_opening``); the hinted arm shows the hint, the other
   does not, but the environment cannot tell: it sees the same calls in the same order.
2. After the episode, in the same worker, another seed is reset (an episode in between), then
   the played seed again: its observation, solution and hint must be those of the start (state
   carried across episodes, a counter of episodes, a switch after some seeds all show here), and
   the solution must still solve it, and the hint's own text played as an action must not
   (``audit_seed``). Then the admission gate's re-draw on the played seed: drawn again with one
   drawn value changed at a time, an episode whose text stays the same must keep its key
   (``validate.redraw``; a tool world's tool results count as what the player read).
3. Over one environment's episodes (``void_reason``): the two arms of a seed must have opened
   alike; an answer puzzle's text must not rule out its key's form nor state its own answer on
   every played seed (``validate.answers``); and no shown hint may give away its own episode's
   answer, by the validator's disguise detectors, against the other played seeds' answers and the
   seeds reset in between.

Any failure voids the environment's regret with the reason (``outcomes.outcome_of``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from spadework.envs.contract import MAX_HINT_CHARS, MAX_OBSERVATION_CHARS, episode_score, is_solved
from spadework.errors import CheckFailed, EnvContractError, EnvError
from spadework.rollout.reading import read_reset, read_step, text
from spadework.validate.answers import STATED, form_problem, states_its_answer
from spadework.validate.checks import Episode as SeedOpening
from spadework.validate.checks import find_hint_leaks
from spadework.validate.redraw import Reading, redraw_seed, refusal

CONTRAST_OFFSET = 1_000_003
"""The seed reset between the episode and its replay: the played seed plus this, modulo 2**31."""

AUDIT_REDRAWS = 16
"""Re-draws of a played seed (the validator tries up to 40 on each of two seeds)."""


@dataclass(frozen=True)
class PlayCheck:
    """What one played episode's environment showed, and whether it held up.

    Attributes:
        observation: the first observation of the seed, as read at the start.
        solution: ``solution()`` at the start.
        hint: ``hint()`` at the start (read in both arms; shown in the hinted one only).
        contrast: the solution of the seed reset in between (what is shared is no secret).
        problem: why the episode does not count (None: it held up; also None before the replay).
        puzzle: the environment is an answer puzzle (``Reading.ANSWER``): its played openings are
            held to the answer checks (``answer_problem``), which a game's or a tool world's are not.
    """

    observation: str
    solution: tuple[str, ...]
    hint: str
    contrast: tuple[str, ...] = ()
    problem: str | None = None
    puzzle: bool = False

    def to_json(self) -> dict[str, Any]:
        """The check as JSON (``from_json`` reads it back)."""
        return {"observation": self.observation, "solution": list(self.solution), "hint": self.hint,
                "contrast": list(self.contrast), "problem": self.problem, "puzzle": self.puzzle}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayCheck:
        """The check written by ``to_json``."""
        return cls(str(data["observation"]), tuple(data["solution"]), str(data["hint"]),
                   tuple(data.get("contrast") or ()), data.get("problem"), bool(data.get("puzzle", False)))


def read_opening(env: Any, seed: int) -> tuple[Any, PlayCheck]:
    """Reset ``env`` to ``seed``, then read its hint and its solution: the same calls in both arms.

    Returns:
        ``reset``'s value, and what the seed showed.

    Raises:
        EnvError: the environment failed, or broke its contract.
    """
    reset = read_reset(env.reset(seed=seed))
    hint, solution = env.hint(), env.solution()
    if not isinstance(hint, str) or not isinstance(solution, (list, tuple)) \
            or not all(isinstance(a, str) for a in solution):
        raise EnvContractError("hint() must return a str and solution() a list of str")
    return reset, PlayCheck(text(reset[0], MAX_OBSERVATION_CHARS), tuple(solution), hint[:MAX_HINT_CHARS])


def audit_seed(env: Any, seed: int, opening: PlayCheck, max_turns: int,
               redraw: Reading | None = None) -> PlayCheck:
    """Replay ``seed`` in ``env`` after another seed, and check it against its ``opening``; then,
    unless ``redraw`` is None, draw it again a value changed at a time, judged as ``redraw`` says
    (``validate.redraw.Reading``).

    Raises:
        EnvError: the environment failed during the replay, or broke its contract (a reward
            that is not a number, say).
    """
    other = (seed + CONTRAST_OFFSET) % 2**31
    _, between = read_opening(env, other)
    contrast = between.solution
    _, again = read_opening(env, seed)
    changed = [name for name in ("observation", "solution", "hint")
               if getattr(again, name) != getattr(opening, name)]
    checked = replace(opening, contrast=contrast, puzzle=redraw is Reading.ANSWER)
    if changed:
        return replace(checked, problem=f"seed {seed} did not replay identically after seed {other} in the "
                       f"same worker (its {', '.join(changed)} changed); an environment must depend on its "
                       "seed only")
    rewards = []
    for action in opening.solution[:max_turns]:
        _, reward, terminated, truncated = read_step(env.step(action))
        rewards.append(reward)
        if terminated or truncated:
            break
    score = episode_score(rewards)
    problem = None if is_solved(score) else (
        f"seed {seed}: solution() scored {score:g} on the played seed, so its answer cannot be checked "
        "against the hint; the solution must solve every seed")
    if problem is None and _hint_solves(env, seed, opening.hint):
        problem = (f"seed {seed}: the hint itself, played as the first action, solves the episode; a hint "
                   "may point at the method, not be the key")
    if problem is None and redraw is not None and hasattr(env, "redraw"):
        problem = refusal([redraw_seed(env, seed, redraw, AUDIT_REDRAWS)], redraw)
    return replace(checked, problem=problem)


def _hint_solves(env: Any, seed: int, hint: str) -> bool:
    """Whether playing the hint's text as the first action of ``seed`` solves it (a hint that is a
    password the environment pays for, whatever the answer). An environment that fails on such
    an action has not been paid by it."""
    if not hint.strip():
        return False
    try:
        env.reset(seed=seed)
        return is_solved(episode_score([read_step(env.step(hint))[1]]))
    except EnvError:  # a refusal, a failure or a broken contract: not paid
        return False


def answer_problem(seeds: Sequence[SeedOpening], puzzle: bool) -> str | None:
    """What an answer puzzle's played openings say against their keys: a key in a form its text rules
    out, or a text that states its own answer on every played seed (``validate.answers``); None for
    a game or a tool world (``puzzle`` False), which the validator does not hold to them either.
    """
    if not puzzle or not seeds:
        return None
    for seed in seeds:
        problem = form_problem(seed.observation, seed.solution)
        if problem is not None:
            return f"seed {seed.seed}: {problem}"
    if all(states_its_answer(s.observation, s.solution) for s in seeds):
        return f"{STATED} on every played seed (seed {seeds[0].seed}: {seeds[0].solution[0]!r})"
    return None


def void_reason(episodes: Sequence[Any]) -> str | None:
    """Why one environment's episodes cannot pay regret, or None when every check held up.

    ``episodes`` are ``rollout.Episode`` records of one environment, both arms; those without a
    ``check`` (not audited, or failed before it) are skipped.
    """
    checked = [e for e in episodes if e.check is not None]
    for episode in checked:
        if episode.check.problem:
            return f"{episode.arm.value} arm: {episode.check.problem}"
    by_seed: dict[int, set[tuple]] = {}
    for episode in checked:
        c = episode.check
        by_seed.setdefault(episode.seed, set()).add((c.observation, c.solution, c.hint))
    for seed, openings in by_seed.items():
        if len(openings) > 1:
            return (f"seed {seed}: the two arms opened differently (observation, solution or hint), so "
                    "the environment told them apart or does not depend on its seed only")
    seeds = [SeedOpening(seed, observation, list(solution), hint)
             for seed, ((observation, solution, hint),) in sorted(by_seed.items())]
    problem = answer_problem(seeds, puzzle=all(e.check.puzzle for e in checked))
    if problem is not None:
        return problem
    contrasts = [e.check.contrast for e in checked if e.check.contrast]
    try:
        find_hint_leaks(seeds, tool_world=any(e.tools for e in checked), contrasts=contrasts)
    except CheckFailed as exc:
        return f"a played episode's hint leaks its answer: {exc}"
    return None
