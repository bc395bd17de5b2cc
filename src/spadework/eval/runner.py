"""Playing held-out tasks and counting what was solved: ``evaluate`` and its records.

Every (task, seed) item is one episode in the arm without a hint, all played together
through ``run_plays`` (one policy call per round serves every episode still going). An
item is solved when its episode's score is 1.0; an environment that fails is an unsolved
item with score 0 (counted in ``EvalResult.errors``), never a crash of the evaluation.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from spadework.config import RunConfig
from spadework.engines import rollout_config
from spadework.envs.contract import MAX_TURNS_LIMIT
from spadework.errors import UsageError
from spadework.eval.bfcl_play import BfclSettings, EntryPlay, drawn, play_entry
from spadework.eval.bfcl_single import SINGLE_TURN_CATEGORIES
from spadework.eval.bfcl_single_play import SinglePlay, drawn_single, play_singles
from spadework.eval.code import MAX_TOKENS as MAX_CODE_TOKENS
from spadework.eval.code import drawn as drawn_problem
from spadework.eval.probe import PROBE_SEED_BASE
from spadework.eval.stats import wilson_interval
from spadework.eval.tasks import Suite, TaskOpener, TaskSpec, require_packages
from spadework.policy.base import Policy, Sampling
from spadework.rollout.play import EnvOpener, run_plays
from spadework.rollout.records import Arm, EndReason, Episode, PlayJob, RolloutConfig

OVERALL = "overall"
DEFAULT_BFCL = BfclSettings()
"""The scope of every item of an evaluation."""


@dataclass(frozen=True)
class ItemResult:
    """How one (task, seed) item went.

    Attributes:
        suite: the task's suite.
        task: the task's name in its suite.
        seed: the item's seed.
        score: the episode's score in [0, 1].
        solved: whether the score is 1.0.
        turns: moves played.
        end: why the episode ended.
        error: the environment's error when ``end`` is ``ENV_ERROR`` (BFCL: the checker's verdict
            on an unsolved entry).
        entry: the benchmark entry an item drew (BFCL: its id), when the seed names one.
        figures: what the item cost and how it went, for suites that count it (BFCL: positional
            calls, prompt tokens, seconds; multi-turn: steps and the entry's own tokens;
            single-turn: ``called`` and ``valid_call``, see ``call_rates``).
    """

    suite: Suite
    task: str
    seed: int
    score: float
    solved: bool
    turns: int
    end: EndReason = EndReason.TERMINATED
    error: str | None = None
    entry: str | None = None
    figures: Mapping[str, float] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """The task's ``<suite>/<task>`` name."""
        return f"{self.suite.value}/{self.task}"

    def to_json(self) -> dict[str, Any]:
        """The item as JSON; with its entry, error and figures when it has an entry."""
        shown: dict[str, Any] = {"suite": self.suite.value, "task": self.task, "seed": self.seed,
                                 "score": self.score, "solved": self.solved, "turns": self.turns}
        if self.entry is not None:
            shown.update(entry=self.entry, error=self.error, **self.figures)
        elif self.figures:
            shown.update(self.figures)
        return shown

    @classmethod
    def of(cls, spec: TaskSpec, episode: Episode) -> ItemResult:
        """The item an episode played; a code item names its problem and, unsolved, why its tests
        failed (the last thing the episode was told)."""
        seed = episode.seed - PROBE_SEED_BASE if spec.suite is Suite.PROBE else episode.seed
        item = cls(spec.suite, spec.task, seed, episode.score, episode.solved, episode.turns,
                   episode.end, episode.error)
        if episode.tool_replies:  # a tool world (a probe's): how its replies called
            item = replace(item, figures={"tool_replies": episode.tool_replies, "calls": episode.calls,
                                          "valid_calls": episode.valid_calls})
        if spec.suite is not Suite.CODE:
            return item
        told = episode.messages[-1].content if episode.messages else None
        why = None if episode.solved else (episode.error or told)
        return replace(item, entry=drawn_problem(seed).task_id, error=why[:300] if why else None)


@dataclass(frozen=True)
class Tally:
    """Counts over a set of items.

    Attributes:
        n: items.
        solved: items solved.
        mean_score: mean episode score (partial credit included); 0.0 when ``n`` is 0.
    """

    n: int
    solved: int
    mean_score: float

    @property
    def accuracy(self) -> float:
        """Share of items solved (0.0 when there are none).

        >>> Tally(4, 1, 0.5).accuracy
        0.25
        """
        return self.solved / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of ``accuracy``."""
        return wilson_interval(self.solved, self.n)

    @classmethod
    def of(cls, items: Sequence[ItemResult]) -> Tally:
        """The tally of ``items``.

        >>> Tally.of([ItemResult(Suite.TEXTARENA, "g", 0, 1.0, True, 3),
        ...           ItemResult(Suite.TEXTARENA, "g", 1, 0.5, False, 9)])
        Tally(n=2, solved=1, mean_score=0.75)
        """
        n = len(items)
        return cls(n, sum(1 for i in items if i.solved), sum(i.score for i in items) / n if n else 0.0)

    def to_json(self) -> dict[str, Any]:
        """The tally as JSON: accuracy with its interval, and the mean score."""
        low, high = self.interval
        return {"n": self.n, "solved": self.solved, "accuracy": self.accuracy, "ci_low": low, "ci_high": high,
                "mean_score": self.mean_score}


@dataclass(frozen=True)
class EvalResult:
    """One policy's evaluation: the tasks and seeds it played and every item's result.

    Scopes name sets of items: a task's ``<suite>/<task>``, a suite's name, or ``OVERALL``.
    """

    tasks: tuple[TaskSpec, ...]
    seeds: tuple[int, ...]
    items: tuple[ItemResult, ...]
    bfcl: BfclSettings | None = None
    """How BFCL entries were played, when any were."""

    def suites(self) -> tuple[Suite, ...]:
        """The suites played, in task order."""
        return tuple(dict.fromkeys(t.suite for t in self.tasks))

    def scopes(self) -> tuple[str, ...]:
        """Every task, then every suite, then ``OVERALL``."""
        return (*(t.key for t in self.tasks), *(s.value for s in self.suites()), OVERALL)

    def items_in(self, scope: str) -> tuple[ItemResult, ...]:
        """The items of a scope, in play order (task, then seed).

        Raises:
            KeyError: ``scope`` is none of ``scopes()``.
        """
        if scope == OVERALL:
            return self.items
        if scope in {s.value for s in self.suites()}:
            return tuple(i for i in self.items if i.suite.value == scope)
        if scope in {t.key for t in self.tasks}:
            return tuple(i for i in self.items if i.key == scope)
        raise KeyError(f"no scope {scope!r} in this evaluation; scopes: {', '.join(self.scopes())}")

    def tally(self, scope: str = OVERALL) -> Tally:
        """The counts of one scope."""
        return Tally.of(self.items_in(scope))

    @property
    def errors(self) -> int:
        """Items whose environment failed (counted as unsolved)."""
        return sum(1 for i in self.items if i.end is EndReason.ENV_ERROR)


def eval_metrics(result: EvalResult) -> dict[str, float]:
    """Accuracies under stable names: ``eval/<suite>/<task>/accuracy``, ``eval/<suite>/accuracy``,
    ``eval/accuracy``; with BFCL single-turn items, ``eval/bfcl/call_rate`` and
    ``eval/bfcl/valid_call_rate`` (``call_rates``).

    >>> items = (ItemResult(Suite.TEXTARENA, "g", 0, 1.0, True, 2),
    ...          ItemResult(Suite.TEXTARENA, "g", 1, 0.0, False, 9))
    >>> eval_metrics(EvalResult((TaskSpec(Suite.TEXTARENA, "g", 9),), (0, 1), items))
    {'eval/textarena/g/accuracy': 0.5, 'eval/textarena/accuracy': 0.5, 'eval/accuracy': 0.5}
    """
    metrics = {f"eval/{t.key}/accuracy": result.tally(t.key).accuracy for t in result.tasks}
    metrics.update({f"eval/{s.value}/accuracy": result.tally(s.value).accuracy for s in result.suites()})
    metrics["eval/accuracy"] = result.tally(OVERALL).accuracy
    for suite in result.suites():
        rates = call_rates(result.items_in(suite.value))
        metrics.update({f"eval/{suite.value}/{name}": rate for name, rate in rates.items()})
    return metrics


def call_rates(items: Sequence[ItemResult]) -> dict[str, float]:
    """``call_rate`` (a reply held a parseable call) and ``valid_call_rate`` (its calls each named a
    listed function or tool, with arguments it takes) over the replies of the items that count them:
    a BFCL single-turn entry's one reply (``called``, ``valid_call``), a tool world's every reply
    (``tool_replies``, ``calls``, ``valid_calls``); ``{}`` if none do.

    >>> calls = [ItemResult(Suite.BFCL, "simple_python", s, 0.0, False, 1,
    ...                     figures={"called": c, "valid_call": v})
    ...          for s, (c, v) in enumerate([(1, 1), (1, 0), (0, 0), (1, 1)])]
    >>> call_rates(calls)
    {'call_rate': 0.75, 'valid_call_rate': 0.5}
    >>> call_rates([ItemResult(Suite.PROBE, "w", 0, 0.0, False, 4,
    ...                        figures={"tool_replies": 4, "calls": 3, "valid_calls": 1})])
    {'call_rate': 0.75, 'valid_call_rate': 0.25}
    """
    replies = calls = valid = 0.0
    for item in items:
        figures = item.figures
        if "called" in figures:
            replies, calls, valid = replies + 1, calls + figures["called"], valid + figures["valid_call"]
        elif "tool_replies" in figures:
            replies += figures["tool_replies"]
            calls, valid = calls + figures["calls"], valid + figures["valid_calls"]
    if not replies:
        return {}
    return {"call_rate": calls / replies, "valid_call_rate": valid / replies}


def eval_rollout(config: RunConfig) -> RolloutConfig:
    """Rollout settings for evaluating with a run's config: its agent's context budget, concurrency
    and reply length, and greedy sampling (temperature 0), so an evaluation repeats.

    The turn cap does not matter: ``evaluate`` gives every task its own (``held_out_rollout``).

    >>> from spadework.config import load_config
    >>> rollout = eval_rollout(load_config(None))
    >>> rollout.sampling.temperature, rollout.context_tokens
    (0.0, 3072)
    """
    greedy = Sampling(temperature=0.0, top_p=1.0, max_tokens=config.agent.sampling.max_tokens,
                      seed=config.run.seed)
    return replace(rollout_config(config.agent, greedy), audit=False)  # held-out tasks have no hint to check


def held_out_rollout(rollout: RolloutConfig, tasks: Sequence[TaskSpec]) -> RolloutConfig:
    """``rollout`` with its turn cap raised to the longest task's ``max_turns``, so each episode gets
    exactly its task's moves (a run's small ``agent.max_turns`` must not make a game unwinnable)."""
    longest = max((t.max_turns for t in tasks), default=1)
    return replace(rollout, max_turns_cap=min(MAX_TURNS_LIMIT, longest))


def evaluate(
    policy: Policy,
    tasks: Sequence[TaskSpec],
    seeds: Iterable[int],
    rollout: RolloutConfig,
    opener: EnvOpener | None = None,
    bfcl: BfclSettings = DEFAULT_BFCL,
    on_item: Callable[[ItemResult], None] | None = None,
    done: Mapping[tuple[str, int], ItemResult] | None = None,
) -> EvalResult:
    """Play every (task, seed) item once, without a hint, and collect the results.

    Args:
        policy: the agent.
        tasks: what to play (``select_tasks`` or ``DEFAULT_TASKS``).
        seeds: the seeds of every task (repeats are dropped); the same seeds give the same items.
        rollout: context budget, concurrency and sampling of the episodes; the turn cap is
            replaced by the tasks' own (``held_out_rollout``).
        opener: builds the environments; default ``TaskOpener(tasks)`` (in this process).
        bfcl: how BFCL entries are played, after the other suites (``bfcl_items``).
        on_item: told each item once it is scored: a BFCL entry at once (entries take minutes on a
            CPU), the other suites' items when their episodes end.
        done: items already played, by task key and seed (a resumed evaluation's): taken as they
            are, not played again.

    Returns:
        The result, with items in task order, then seed order.

    Raises:
        UsageError: no tasks or no seeds, or a suite's library is not installed.
        PolicyError: the policy failed.
    """
    tasks, seeds = tuple(dict.fromkeys(tasks)), tuple(dict.fromkeys(int(s) for s in seeds))
    if not tasks or not seeds:
        raise UsageError(f"nothing to evaluate: {len(tasks)} tasks and {len(seeds)} seeds; give at least one "
                         "of each")
    played = [t for t in tasks if t.suite is not Suite.BFCL]
    if opener is None:
        require_packages(tasks)
        opener = TaskOpener(played)
    order = {t.key: n for n, t in enumerate(tasks)}
    done = {key: item for key, item in (done or {}).items() if key[0] in order and key[1] in seeds}
    code = [t for t in played if t.suite is Suite.CODE]  # replies of their own length
    new = [*play_items(policy, opener, [t for t in played if t not in code], seeds, rollout, done),
           *play_items(policy, opener, code, seeds, code_rollout(rollout), done)]
    for item in new:
        if on_item is not None:
            on_item(item)
    for task in (t for t in tasks if t.suite is Suite.BFCL):
        left = [seed for seed in seeds if (task.key, seed) not in done]
        for item in bfcl_items(policy, task, left, rollout, bfcl) if left else ():
            new.append(item)
            if on_item is not None:
                on_item(item)
    items = [*done.values(), *new]
    played_bfcl = bfcl if any(t.suite is Suite.BFCL for t in tasks) else None
    return EvalResult(tasks, seeds, tuple(sorted(items, key=lambda i: (order[i.key], i.seed))), played_bfcl)


def play_items(policy: Policy, opener: EnvOpener, tasks: Sequence[TaskSpec], seeds: Sequence[int],
               rollout: RolloutConfig, done: Container[tuple[str, int]] = ()) -> list[ItemResult]:
    """Every (task, seed) item of ``tasks`` not ``done`` played together through ``run_plays``,
    without a hint."""
    jobs = [PlayJob(t.key, t.source or t.key, episode_seed(t, seed), Arm.NOHINT, t.form)
            for t in tasks for seed in seeds if (t.key, seed) not in done]
    if not jobs:
        return []
    specs = {t.key: t for t in tasks}
    episodes = run_plays(policy, opener, jobs, held_out_rollout(rollout, tasks))
    return [ItemResult.of(specs[e.env_id], e) for e in episodes]


def code_rollout(rollout: RolloutConfig) -> RolloutConfig:
    """``rollout`` with replies of at least ``code.MAX_TOKENS`` new tokens, for the code suite.

    >>> code_rollout(RolloutConfig(sampling=Sampling(max_tokens=384))).sampling.max_tokens
    768
    """
    if rollout.sampling.max_tokens >= MAX_CODE_TOKENS:
        return rollout
    return replace(rollout, sampling=replace(rollout.sampling, max_tokens=MAX_CODE_TOKENS))


def episode_seed(task: TaskSpec, seed: int) -> int:
    """The seed an item's episode plays: a probe's reserved seed (``PROBE_SEED_BASE + seed``), else
    the item's own.

    >>> from spadework.eval.tasks import Suite
    >>> episode_seed(TaskSpec(Suite.PROBE, "12-QueueEnv", 8, "..."), 3) - PROBE_SEED_BASE
    3
    """
    return PROBE_SEED_BASE + seed if task.suite is Suite.PROBE else seed


def bfcl_items(policy: Policy, task: TaskSpec, seeds: Sequence[int], rollout: RolloutConfig,
               bfcl: BfclSettings = DEFAULT_BFCL) -> Iterator[ItemResult]:
    """The items of one BFCL category, each as soon as it is scored: a multi-turn entry played alone
    (``eval.bfcl_play``), single-turn entries ``rollout.concurrency`` to a policy call
    (``eval.bfcl_single_play``)."""
    if task.task in SINGLE_TURN_CATEGORIES:
        singles = play_singles(policy, drawn_single(task.task, seeds), rollout.sampling, bfcl.call_format,
                               rollout.concurrency)
        yield from (bfcl_item(task, seed, play) for seed, play in singles)
        return
    for seed, entry in drawn(task.task, seeds):
        play = play_entry(policy, entry, rollout.sampling, bfcl.call_format, bfcl.max_steps)
        yield bfcl_item(task, seed, play)


def bfcl_item(task: TaskSpec, seed: int, play: EntryPlay | SinglePlay) -> ItemResult:
    """A played BFCL entry as an item: solved when the leaderboard's checker says valid."""
    error = None if play.score.valid else f"{play.score.error_type}: {play.score.error_message}"[:300]
    return ItemResult(task.suite, task.task, seed, float(play.score.valid), play.score.valid, play.turns,
                      error=error, entry=play.entry_id, figures=play.figures)
