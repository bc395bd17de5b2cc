"""Self-play, one iteration at a time, read top to bottom like a recipe.

An iteration: when a window opens (every ``designer.regenerate_every`` iterations; every one by
default), sample documents → the designer writes environments (with repair turns) → the validator
judges them in the sandbox. Then the agent plays the window's valid environments on fresh seeds
without the hint (and, at the window's first step, with it), and (with ``[replay]``) archived
environments drawn by priority → the agent's advantages; when the window closes, the designer's
rewards from all its plays → one update → the iteration's environments, metrics, the window, the
replayed environments' pooled regret and the loop state are committed to the archive in one
transaction.

Its bookkeeping costs what the iteration's designs cost, not what the archive holds: the memory
digest and the replay candidates are queries of the archive's summaries, the near-duplicate index
(``RunNovelty``) and the diversity state (``DiversityTracker``) are kept from one iteration to the
next, and what they need to start again (sketches, vectors) is committed with each iteration.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from spadework.archive import Archive, EnvRecord, RecordUpdate
from spadework.config import RunConfig
from spadework.corpus import CorpusSampler, Document, cut_to_budget
from spadework.designer import Design, DesignRequest, DesignSettings, MemoryDigest, build_digest, design_batch
from spadework.designer.forms import allocate_forms, allocate_skills
from spadework.designer.memory import DEFAULT_BAND
from spadework.designer.pool import PoolMember, draw_designs
from spadework.designer.run_novelty import RunNovelty
from spadework.diversity import DiversityTracker
from spadework.engines import rollout_config, sampling, validator_settings
from spadework.errors import UsageError
from spadework.eval.tasks import TaskSpec
from spadework.kinds import AdvantageGroup, Arms
from spadework.learn.samples import TrainSample, with_advantages
from spadework.metered import MeteredPolicy
from spadework.outcomes import (
    ORIGIN,
    DesignOutcome,
    Payment,
    archive_records,
    design_id,
    iteration_metrics,
    play_seeds,
    with_designer_advantages,
)
from spadework.replay import ReplayPlan, ReplayScore, plan_replay, replay_candidates
from spadework.rollout import Arm, Episode, PlayJob, run_plays
from spadework.rundir import append_metrics, write_atomically
from spadework.sandbox import SandboxProtocol
from spadework.tracking import Trackers
from spadework.window import Window, difficulty_metrics, settled, window_metrics

if TYPE_CHECKING:  # the learner (and torch) are imported only by runs that train
    from spadework.learn.trainer import Trainer

NO_DOCUMENT = "(No document this time: choose any topic you like.)"
EPISODES_DIR = "episodes"
WINDOWS_DIR = "windows"
"""Where a window that closes after the iteration that opened it keeps its designer samples."""


class Reporter(Protocol):
    """Where the loop says what it is doing (a progress display, or nothing)."""

    def phase(self, name: str, total: int | None) -> None:
        """Start a phase of ``total`` steps (None: unknown)."""

    def advance(self, amount: int = 1) -> None:
        """Count ``amount`` steps of the phase as done."""

    def iteration_done(self, iteration: int, metrics: dict[str, float]) -> None:
        """Show an iteration's metrics once it is committed."""


class SilentReporter:
    """Reports nothing (tests, library use)."""

    def phase(self, name: str, total: int | None) -> None:
        """Show nothing."""

    def advance(self, amount: int = 1) -> None:
        """Show nothing."""

    def iteration_done(self, iteration: int, metrics: dict[str, float]) -> None:
        """Show nothing."""


@dataclass(frozen=True)
class LoopState:
    """What a resumed run needs besides the archive, committed with every iteration.

    >>> LoopState.from_json(LoopState({"position": 3}).to_json())
    LoopState(sampler={'position': 3}, window=None)
    >>> LoopState.from_json(None)
    LoopState(sampler=None, window=None)
    """

    sampler: dict[str, Any] | None = None
    """Where the corpus sampler stands (``CorpusSampler.state``); None: no corpus."""
    window: Window | None = None
    """The environment set in play and its plays so far (``Window``); None before the first."""

    def to_json(self) -> dict[str, Any]:
        """The state as JSON (``from_json`` reads it back)."""
        return {"sampler": self.sampler, "window": None if self.window is None else self.window.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> LoopState:
        """The state written by ``to_json``; an empty one for None (a run's start)."""
        data = data or {}
        return cls(sampler=data.get("sampler"), window=Window.from_json(data.get("window")))


@dataclass(frozen=True)
class Scored:
    """One iteration's plays of its window, scored (``Loop.score``).

    Attributes:
        window: the window with this iteration's plays recorded.
        step: the agent's side of each live design's plays (scores, advantages).
        closed: when the window closed now, every design's pay with its advantage; else empty.
        designer_flat: the designer's groups without variance when it closed; None while it is open.
        outcomes: at the window's first and last steps one per design of the window (the step's
            plays and, once closed, the pay); in between the step's alone.
        closing: whether the window closed this iteration.
        arms: the arms played this iteration (the hinted one at the window's first step only).
    """

    window: Window
    step: list[DesignOutcome]
    closed: list[DesignOutcome]
    designer_flat: list[str] | None
    outcomes: list[DesignOutcome]
    closing: bool
    arms: Arms


@dataclass
class Loop:
    """The edges one run needs; built once by ``spadework.run`` and used by every iteration."""

    config: RunConfig
    run_dir: Path
    policy: MeteredPolicy
    sandbox: SandboxProtocol
    archive: Archive
    sampler: CorpusSampler | None
    reporter: Reporter
    trainer: Trainer | None = None
    """Updates the policy when the run trains; None: it does not."""
    pool: Sequence[PoolMember] = ()
    """The fixed-environment baseline's environments; empty when the designer designs."""
    diversity: DiversityTracker | None = None
    """Measures the environments after every iteration; None: not measured."""
    held_out: Sequence[TaskSpec] = ()
    """Held-out tasks played every ``eval.every`` iterations; empty: none."""
    tracker: Trackers = field(default_factory=Trackers)
    """Where each committed iteration's metrics also go (TensorBoard, W&B); by default nowhere."""
    novelty: RunNovelty | None = None
    """The run's near-duplicate index, kept across iterations; made from the archive when None."""
    window: Window | None = None
    """The environment set in play (a resumed run's, from its loop state); None: the next opens one."""
    carried: dict[str, float] = field(default_factory=dict)
    """Metrics measured before the first iteration (the warm start's), committed with the next one."""

    def __post_init__(self) -> None:
        if self.novelty is None:
            self.novelty = RunNovelty(self.archive, self.config.designer.novelty_threshold)

    @property
    def near_duplicates(self) -> RunNovelty:
        """The run's near-duplicate index (made in ``__post_init__``)."""
        assert self.novelty is not None
        return self.novelty

    def iteration_seed(self, iteration: int) -> int:
        """The seed of an iteration's random choices, from the run seed (repeatable runs)."""
        return self.config.run.seed * 100_003 + iteration

    @property
    def payment(self) -> Payment:
        """How designs are paid (``[designer]`` penalty and credit, ``[rewards]``)."""
        designer, rewards = self.config.designer, self.config.rewards
        return Payment(designer.invalid_penalty, designer.partial_credit, rewards.designer,
                       rewards.confidence, rewards.blend.settings())

    def run_iteration(self, iteration: int) -> dict[str, float]:
        """One iteration, committed whole; returns its metrics."""
        start = time.perf_counter()
        opening = self.window is None or not self.window.covers(iteration)
        documents = self.draw_documents() if opening else []
        designs = self.design(iteration, documents) if opening else []
        design_tokens, design_s = self.policy.take()
        update_start = time.perf_counter()
        if opening:
            self.open_window(iteration, designs)
        update_s = time.perf_counter() - update_start
        replays = self.draw_replays(iteration)
        episodes = self.play(iteration, replays.jobs())
        play_tokens, play_s = self.policy.take()
        self.phase(iteration, f"scoring {len(episodes)} episodes")
        scored = self.score(iteration, replays.others(episodes))
        window = self.window = scored.window
        replayed = replays.result(episodes, self.config.rewards.confidence)
        metrics = iteration_metrics(designs, scored.outcomes, replays.others(episodes), scored.designer_flat,
                                    scored.arms)
        metrics.update(difficulty_metrics(window, iteration) if self.config.difficulty.on else {})
        metrics.update(replayed.metrics(len(episodes)))
        if scored.closing:
            metrics.update(window_metrics(scored.closed, self.payment))
        update_start = time.perf_counter()
        if self.trainer is not None:
            self.phase(iteration, "learner update")
            designer = self.designer_samples(window, designs, scored.closed) if scored.closing else []
            metrics.update(self.trainer.train(designer, scored.step, episodes, replayed=replayed.outcomes))
        update_s += time.perf_counter() - update_start
        generated, seconds = design_tokens + play_tokens, design_s + play_s
        metrics.update({
            "perf/generated_tokens": float(generated),
            "perf/tokens_per_s": generated / seconds if seconds else 0.0,
            "perf/design_s": design_s, "perf/play_s": play_s,
            "corpus/documents_used": float(len(documents)) if self.sampler and not self.pool else 0.0,
        })
        self.save_episodes(iteration, episodes)
        records = archive_records(iteration, designs, scored.outcomes if opening else [], episodes,
                                  paid=scored.closing, standings=window.standings)
        updates = {**replayed.updates(), **(self.window_updates(window, scored.closed)
                                            if scored.closing and not opening else {})}
        if self.diversity is not None:
            self.phase(iteration, "measuring diversity")
            metrics.update(self.diversity.measure(self.archive, records, iteration))
        state = LoopState(self.sampler.state() if self.sampler else None, window)
        if self.trainer is not None:  # checkpoint first: a committed iteration always has one
            self.phase(iteration, "checkpoint and adapter sync")
            publish_start = time.perf_counter()
            metrics.update(self.trainer.publish(self.trainer.checkpoint(iteration, state.to_json())))
            update_s += time.perf_counter() - publish_start
        metrics["perf/update_s"] = update_s
        metrics.update(self.evaluate_held_out(iteration))
        metrics.update(self.carried)
        self.carried = {}
        metrics["perf/iteration_s"] = time.perf_counter() - start  # design, play, update, eval and the rest
        row = {"iteration": iteration, **metrics}
        self.phase(iteration, "committing")
        self.commit(iteration, records, row, state.to_json(), updates)
        append_metrics(self.run_dir, row)
        self.tracker.log(iteration, metrics)
        self.reporter.iteration_done(iteration, metrics)
        return metrics

    def phase(self, iteration: int, name: str) -> None:
        """Say which step of the iteration is under way (one with no count of its own)."""
        self.reporter.phase(f"iteration {iteration}: {name}", None)

    def draw_documents(self) -> list[Document]:
        """The document of each design, cut to the prompt's budget; or no document at all."""
        budget = self.config.corpus.max_doc_tokens
        if self.sampler is None or self.pool:  # no grounding, or nothing is designed
            return [Document(f"none-{i}", NO_DOCUMENT, None, "") for i in range(self.config.run.designs)]
        drawn = [self.sampler.sample() for _ in range(self.config.run.designs)]
        return [replace(d, text=cut_to_budget(d.text, budget)) for d in drawn]

    def design(self, iteration: int, documents: list[Document]) -> list[Design]:
        """The iteration's designs: drawn from the fixed pool, or written for ``documents``."""
        ids = [design_id(iteration, k) for k in range(len(documents))]
        if self.pool:
            return draw_designs(self.pool, len(documents), self.iteration_seed(iteration), ids)
        designer = self.config.designer
        digest = MemoryDigest()
        if designer.memory:  # the few archived environments it names, not the whole archive
            digest = build_digest(self.archive.digest_rows(references=2, recent=5, band=DEFAULT_BAND))
        novelty = self.near_duplicates.batch()
        forms = allocate_forms(designer.forms or {designer.form: 1.0}, len(documents),
                               self.iteration_seed(iteration))
        skills = allocate_skills(designer.skills, designer.skill_weights, len(documents),
                                 self.iteration_seed(iteration), start=iteration * len(documents))
        self.reporter.phase(f"iteration {iteration}: designing", designer.max_attempts)
        requests = [DesignRequest(i, d, f, s)
                    for i, d, f, s in zip(ids, documents, forms, skills, strict=True)]
        settings = DesignSettings(
            sampling=sampling(designer.sampling, self.iteration_seed(iteration)),
            max_attempts=designer.max_attempts, novelty=novelty,
            validator=validator_settings(self.config, iteration),
            temperature_step=designer.repair_temperature_step, retry=designer.retry,
            hint_call=designer.hint_writer, hint_temperature=designer.hint_temperature)
        return design_batch(self.policy, self.sandbox, requests, digest, settings)

    def draw_replays(self, iteration: int) -> ReplayPlan:
        """The archived environments this iteration plays again (none when ``replay.count`` is 0):
        designs of earlier windows, never the window in play's own (it is played anyway, and its
        record is paid when it closes)."""
        run, settings = self.config.run, self.config.replay
        before = self.current_window.start  # = iteration at a window's first step
        rows = self.archive.replay_rows(before, settings.score is ReplayScore.ADVANTAGE) \
            if settings.count else []  # a few numbers per candidate, from an index
        return plan_replay(replay_candidates(rows, iteration), self.archive.get, iteration, settings,
                           run_seed=run.seed, plays=run.plays, draw_seed=self.iteration_seed(iteration))

    def commit(self, iteration: int, records: list[EnvRecord], row: dict[str, Any], state: dict[str, Any],
               updates: Mapping[int, RecordUpdate]) -> None:
        """The iteration and the rows the next ones need (the new sources' near-duplicate sketches, the
        diversity vectors) in one transaction; then the kept indexes learn the new ids."""
        stored = self.archive.commit_iteration(
            iteration, records, row, state, updates, sketches=self.near_duplicates.sketches(records),
            vectors=self.diversity.update() if self.diversity is not None else None)
        self.near_duplicates.committed(stored)
        if self.diversity is not None:
            self.diversity.committed(stored)

    @property
    def current_window(self) -> Window:
        """The window in play (``open_window`` made it)."""
        assert self.window is not None, "a window opens before anything is played"
        return self.window

    def open_window(self, iteration: int, designs: Sequence[Design]) -> None:
        """A new window of ``designs``; when it may close after this iteration and the designer is
        trained, the designer's samples it is paid on then, kept in ``windows/`` (``designer_samples``)."""
        length = self.config.designer.regenerate_every
        self.window = Window.open(iteration, length, designs, self.payment, self.config.difficulty)
        if self.trainer is None or self.pool or length == 1:
            return
        samples = self.trainer.remember(designs)
        folder = self.run_dir / WINDOWS_DIR
        folder.mkdir(exist_ok=True)
        write_atomically(folder / f"designer-{iteration:04d}.jsonl",
                         "".join(json.dumps(s.to_json()) + "\n" for s in samples))

    def score(self, iteration: int, episodes: Sequence[Episode]) -> Scored:
        """The window's plays of this iteration (``episodes``: the replays' left out) recorded, and the
        window closed when this is its last iteration."""
        window = self.current_window
        step = window.step_outcomes(episodes, self.payment)
        window = window.with_step(iteration, step, self.config.difficulty)
        closing = window.closes(iteration)
        closed, flat = self.close(window) if closing else ([], None)
        opening = window.opens(iteration)  # between the first and the last step: this step's plays alone
        outcomes = settled(step, closed if closing else window.close(self.payment)) if opening or closing \
            else step
        arms = self.config.agent.arms if opening else Arms.NOHINT
        return Scored(window, step, closed, flat, outcomes, closing, arms)

    def close(self, window: Window) -> tuple[list[DesignOutcome], list[str]]:
        """The window's designs paid from all their plays, their advantages centred (per domain or
        skill with ``rewards.group_by``), and the groups that had no variance."""
        group_by = self.config.rewards.group_by
        groups = None if group_by is AdvantageGroup.NONE else [
            (d.domain if group_by is AdvantageGroup.DOMAIN else d.skill) or "none" for d in window.designs]
        return with_designer_advantages(window.close(self.payment), groups)

    def designer_samples(self, window: Window, designs: Sequence[Design],
                         closed: Sequence[DesignOutcome]) -> list[TrainSample]:
        """The closing window's designer samples, paid (none for a fixed pool): a window of one
        iteration's designs rendered now, a longer one's as ``open_window`` kept them."""
        assert self.trainer is not None
        if self.pool:
            return []
        if window.length == 1:
            return self.trainer.designer_samples(designs, closed)
        path = self.run_dir / WINDOWS_DIR / f"designer-{window.start:04d}.jsonl"
        if not path.exists():
            raise UsageError(f"{path} is missing: the designer's samples of the window opened at "
                             f"iteration {window.start} cannot be trained; restore the file, or start "
                             "a new run")
        kept = [TrainSample.from_json(json.loads(line))
                for line in path.read_text(encoding="utf-8").splitlines() if line]
        return with_advantages(kept, closed)

    def window_updates(self, window: Window, closed: Sequence[DesignOutcome]) -> dict[int, RecordUpdate]:
        """What the closing window's pay changes in its designs' archived final attempts."""
        ids = self.archive.final_ids(f"{ORIGIN}:i{window.start}:")
        standings = window.standings
        return {ids[o.design_id]: RecordUpdate(designer_reward=o.reward, designer_advantage=o.advantage,
                                               score=o.score, difficulty=standings.get(o.design_id))
                for o in closed if o.design_id in ids}

    def window_jobs(self, iteration: int) -> list[PlayJob]:
        """The window's live designs on this iteration's seeds: ``run.plays`` without the hint, and at
        the window's first step ``run.hint_plays`` (as many, unless set) with it, the first seeds alike."""
        run, window = self.config.run, self.current_window
        hint_plays = (run.hint_plays or run.plays) if window.opens(iteration) else 0
        counts = {Arm.NOHINT: run.plays, Arm.HINT: hint_plays}
        return [PlayJob(design.design_id, design.code, seed, arm, difficulty=design.difficulty)
                for design in window.live
                for k, seed in enumerate(play_seeds(run.seed, iteration, design.index, max(counts.values())))
                for arm in self.config.agent.arms.played if k < counts[arm]]

    def play(self, iteration: int, replays: Sequence[PlayJob] = ()) -> list[Episode]:
        """The window's jobs (``window_jobs``) and the replays' jobs, in one batch."""
        jobs = self.window_jobs(iteration) + list(replays)
        agent = self.config.agent
        self.reporter.phase(f"iteration {iteration}: playing {len(jobs)} episodes", agent.max_turns)
        rollout = rollout_config(agent, sampling(agent.sampling, self.iteration_seed(iteration)))
        return run_plays(self.policy, self.sandbox, jobs, rollout,
                         announce=lambda step: self.phase(iteration, step)) if jobs else []

    def evaluate_held_out(self, iteration: int) -> dict[str, float]:
        """``eval/...`` accuracies of the policy as it now is, every ``eval.every`` iterations."""
        every = self.config.eval.every
        if not self.held_out or not every or (iteration + 1) % every:
            return {}
        from spadework.eval.bfcl_play import BfclSettings
        from spadework.eval.probe import ProbeOpener
        from spadework.eval.runner import eval_metrics, eval_rollout, evaluate

        self.phase(iteration, "held-out evaluation")
        start = time.perf_counter()
        seeds = range(self.config.eval.seeds)
        section = self.config.eval
        result = evaluate(self.policy, self.held_out, seeds, eval_rollout(self.config),
                          ProbeOpener(self.held_out, self.sandbox),
                          bfcl=BfclSettings(section.bfcl_format, section.bfcl_max_steps))
        self.policy.take()  # not self-play generation
        return {**eval_metrics(result), "perf/eval_s": time.perf_counter() - start}

    def save_episodes(self, iteration: int, episodes: Sequence[Episode]) -> None:
        """Every episode of the iteration as JSONL (for the learner and the report)."""
        folder = self.run_dir / EPISODES_DIR
        folder.mkdir(exist_ok=True)
        lines = "".join(json.dumps(e.to_json(), sort_keys=True) + "\n" for e in episodes)
        write_atomically(folder / f"iteration-{iteration:04d}.jsonl", lines)
