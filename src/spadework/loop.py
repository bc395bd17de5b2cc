"""Self-play, one iteration at a time, read top to bottom like a recipe.

An iteration: sample documents → the designer writes environments (with repair
turns) → the validator judges them in the sandbox → the agent plays each valid one
on K paired seeds, without and with the hint, and (with ``[replay]``) archived
environments drawn by priority on fresh seeds → regret and rewards → the iteration's
environments, metrics, the replayed environments' pooled regret and the loop state are
committed to the archive in one transaction.

Its bookkeeping costs what the iteration's designs cost, not what the archive holds: the memory
digest and the replay candidates are queries of the archive's summaries, the near-duplicate index
(``RunNovelty``) and the diversity state (``DiversityTracker``) are kept from one iteration to the
next, and what they need to start again (sketches, vectors) is committed with each iteration.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from spadework.archive import Archive, DesignResult, EnvRecord, PlayResult
from spadework.config import RunConfig
from spadework.corpus import CorpusSampler, Document, cut_to_budget
from spadework.designer import Design, DesignRequest, DesignSettings, MemoryDigest, build_digest, design_batch
from spadework.designer.forms import allocate_forms
from spadework.designer.memory import DEFAULT_BAND
from spadework.designer.pool import PoolMember, draw_designs
from spadework.designer.run_novelty import RunNovelty
from spadework.diversity import DiversityTracker
from spadework.engines import rollout_config, sampling
from spadework.eval.tasks import TaskSpec
from spadework.metered import MeteredPolicy
from spadework.outcomes import (
    DesignOutcome,
    design_id,
    iteration_metrics,
    outcome_of,
    play_seeds,
    validation_seeds,
    with_designer_advantages,
)
from spadework.replay import ReplayPlan, ReplayScore, plan_replay, replay_candidates
from spadework.rewards import solve_rate
from spadework.rollout import Arm, Episode, PlayJob, run_plays
from spadework.rundir import append_metrics, write_atomically
from spadework.sandbox import SandboxProtocol
from spadework.tracking import Trackers
from spadework.validate.checks import ValidatorConfig

if TYPE_CHECKING:  # the learner (and torch) are imported only by runs that train
    from spadework.learn.trainer import Trainer

NO_DOCUMENT = "(No document this time: choose any topic you like.)"
EPISODES_DIR = "episodes"


class Reporter(Protocol):
    """Where the loop says what it is doing (a progress display, or nothing)."""

    def phase(self, name: str, total: int | None) -> None: ...
    def advance(self, amount: int = 1) -> None: ...
    def iteration_done(self, iteration: int, metrics: dict[str, float]) -> None: ...


class SilentReporter:
    """Reports nothing (tests, library use)."""

    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, amount: int = 1) -> None:
        pass

    def iteration_done(self, iteration: int, metrics: dict[str, float]) -> None:
        pass


@dataclass(frozen=True)
class LoopState:
    """What a resumed run needs besides the archive, committed with every iteration.

    >>> LoopState.from_json(LoopState({"position": 3}).to_json())
    LoopState(sampler={'position': 3})
    >>> LoopState.from_json(None)
    LoopState(sampler=None)
    """

    sampler: dict[str, Any] | None = None
    """Where the corpus sampler stands (``CorpusSampler.state``); None: no corpus."""

    def to_json(self) -> dict[str, Any]:
        return {"sampler": self.sampler}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> LoopState:
        return cls(sampler=(data or {}).get("sampler"))


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

    def run_iteration(self, iteration: int) -> dict[str, float]:
        """One iteration, committed whole; returns its metrics."""
        start = time.perf_counter()
        documents = self.draw_documents()
        designs = self.design(iteration, documents)
        design_tokens, design_s = self.policy.take()
        replays = self.draw_replays(iteration)
        episodes = self.play(iteration, designs, replays.jobs())
        play_tokens, play_s = self.policy.take()
        outcomes, designer_flat = self.score(designs, episodes)
        replayed = replays.result(episodes, self.config.rewards.confidence)
        metrics = iteration_metrics(designs, outcomes, replays.others(episodes), designer_flat,
                                    self.config.agent.arms)
        metrics.update(replayed.metrics(len(episodes)))
        update_start = time.perf_counter()
        if self.trainer is not None:
            metrics.update(self.trainer.train(designs, outcomes, episodes, designer=not self.pool,
                                              replayed=replayed.outcomes))
        update_s = time.perf_counter() - update_start
        generated, seconds = design_tokens + play_tokens, design_s + play_s
        metrics.update({
            "perf/generated_tokens": float(generated),
            "perf/tokens_per_s": generated / seconds if seconds else 0.0,
            "perf/design_s": design_s, "perf/play_s": play_s,
            "corpus/documents_used": float(len(documents)) if self.sampler and not self.pool else 0.0,
        })
        self.save_episodes(iteration, episodes)
        records = archive_records(iteration, designs, outcomes, episodes)
        if self.diversity is not None:
            metrics.update(self.diversity.measure(self.archive, records, iteration))
        state = LoopState(self.sampler.state() if self.sampler else None)
        if self.trainer is not None:  # checkpoint first: a committed iteration always has one
            publish_start = time.perf_counter()
            metrics.update(self.trainer.publish(self.trainer.checkpoint(iteration, state.to_json())))
            update_s += time.perf_counter() - publish_start
        metrics["perf/update_s"] = update_s
        metrics.update(self.evaluate_held_out(iteration))
        metrics["perf/iteration_s"] = time.perf_counter() - start  # design, play, update, eval and the rest
        row = {"iteration": iteration, **metrics}
        self.commit(iteration, records, row, state.to_json(), replayed.updates())
        append_metrics(self.run_dir, row)
        self.tracker.log(iteration, metrics)
        self.reporter.iteration_done(iteration, metrics)
        return metrics

    def draw_documents(self) -> list[Document]:
        """The document of each design, cut to the prompt's budget; or no document at all."""
        budget = self.config.corpus.max_doc_tokens
        if self.sampler is None or self.pool:  # no grounding, or nothing is designed
            return [Document(f"none-{i}", NO_DOCUMENT, None, "") for i in range(self.config.run.designs)]
        drawn = [self.sampler.sample() for _ in range(self.config.run.designs)]
        return [replace(d, text=cut_to_budget(d.text, budget)) for d in drawn]

    def design(self, iteration: int, documents: list[Document]) -> list[Design]:
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
        self.reporter.phase(f"iteration {iteration}: designing", designer.max_attempts)
        requests = [DesignRequest(i, d, f) for i, d, f in zip(ids, documents, forms, strict=True)]
        settings = DesignSettings(
            sampling=sampling(designer.sampling, self.iteration_seed(iteration)),
            max_attempts=designer.max_attempts, novelty=novelty,
            validator=ValidatorConfig(seeds=validation_seeds(self.config.run.seed, iteration)),
            temperature_step=designer.repair_temperature_step, retry=designer.retry,
            hint_call=designer.hint_writer)
        return design_batch(self.policy, self.sandbox, requests, digest, settings)

    def draw_replays(self, iteration: int) -> ReplayPlan:
        """The archived environments this iteration plays again (none when ``replay.count`` is 0)."""
        run, settings = self.config.run, self.config.replay.settings()
        rows = self.archive.replay_rows(iteration, settings.score is ReplayScore.ADVANTAGE) \
            if settings.count else []  # a few numbers per candidate, from an index
        return plan_replay(replay_candidates(rows, iteration), self.archive.get, iteration, settings,
                           run_seed=run.seed, plays=run.plays, draw_seed=self.iteration_seed(iteration))

    def commit(self, iteration: int, records: list[EnvRecord], row: dict[str, Any], state: dict[str, Any],
               updates: dict[int, dict[str, Any]]) -> None:
        """The iteration and the rows the next ones need (the new sources' near-duplicate sketches, the
        diversity vectors) in one transaction; then the kept indexes learn the new ids."""
        stored = self.archive.commit_iteration(
            iteration, records, row, state, updates, sketches=self.near_duplicates.sketches(records),
            vectors=self.diversity.update() if self.diversity is not None else None)
        self.near_duplicates.committed(stored)
        if self.diversity is not None:
            self.diversity.committed(stored)

    def play(self, iteration: int, designs: Sequence[Design],
             replays: Sequence[PlayJob] = ()) -> list[Episode]:
        """Every valid design on its paired seeds in the arms played (both, unless ``agent.arms`` says
        otherwise), and the replays' jobs, in one batch."""
        jobs = [
            PlayJob(design.design_id, design.final.code or "", seed, arm)
            for index, design in enumerate(designs) if design.valid
            for seed in play_seeds(self.config.run.seed, iteration, index, self.config.run.plays)
            for arm in self.config.agent.arms.played
        ] + list(replays)
        agent = self.config.agent
        self.reporter.phase(f"iteration {iteration}: playing {len(jobs)} episodes", agent.max_turns)
        rollout = rollout_config(agent, sampling(agent.sampling, self.iteration_seed(iteration)))
        return run_plays(self.policy, self.sandbox, jobs, rollout) if jobs else []

    def score(self, designs: Sequence[Design], episodes: Sequence[Episode]):
        penalty = self.config.designer.invalid_penalty
        partial = self.config.designer.partial_credit
        rewards = self.config.rewards
        outcomes = [outcome_of(d, [e for e in episodes if e.env_id == d.design_id], penalty, partial,
                               designer=rewards.designer, confidence=rewards.confidence)
                    for d in designs]
        groups = [d.domain or "none" for d in designs] if self.config.rewards.group_by_domain else None
        return with_designer_advantages(outcomes, groups)

    def evaluate_held_out(self, iteration: int) -> dict[str, float]:
        """``eval/...`` accuracies of the policy as it now is, every ``eval.every`` iterations."""
        every = self.config.eval.every
        if not self.held_out or not every or (iteration + 1) % every:
            return {}
        from spadework.eval.bfcl_play import BfclSettings
        from spadework.eval.probe import ProbeOpener
        from spadework.eval.runner import eval_metrics, eval_rollout, evaluate

        self.reporter.phase(f"iteration {iteration}: held-out evaluation", None)
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


def first_observation(episode: Episode | None) -> str:
    """The first observation of a no-hint episode (its first user message), shortened."""
    if episode is None:
        return ""
    users = [m.content for m in episode.messages if m.role.value == "user"]
    return users[0][:300] if users else ""


def sample_transcript(episode: Episode) -> dict[str, Any]:
    """An episode as stored with its environment: everything but its timing."""
    data = episode.to_json()
    data.pop("seconds", None)
    return data


def archive_records(
    iteration: int, designs: Sequence[Design], outcomes: Sequence[DesignOutcome],
    episodes: Sequence[Episode],
) -> list[EnvRecord]:
    """One record per attempt of every design; the final valid attempt carries the results."""
    records = []
    for design, outcome in zip(designs, outcomes, strict=True):
        play = play_result(outcome, [e for e in episodes if e.env_id == design.design_id]) \
            if design.valid else None
        for attempt in design.attempts:
            final = attempt is design.final
            result = DesignResult(
                iteration=iteration, design_id=design.design_id, attempt=attempt.attempt,
                document_id=design.document_id, domain=design.domain, final=final,
                designer_reward=outcome.reward if final else None,
                designer_advantage=outcome.advantage if final else None,
                play=play if final else None, form=None if design.form is None else design.form.value,
            )
            source = attempt.code if attempt.code is not None else attempt.reply
            records.append(EnvRecord.new(source, attempt.verdict,
                                         f"run:i{iteration}:{design.design_id}:a{attempt.attempt}",
                                         design=result))
    return records


def play_result(outcome: DesignOutcome, episodes: Sequence[Episode]) -> PlayResult:
    """What the plays of a valid design showed, as archived with its final attempt: scores, solve
    rates, regret with its interval, its first no-hint observation and one transcript per arm. Not
    played with the hint (``agent.arms = "nohint"``), its hinted solve rate and regret are NaN:
    not measured (the archive keeps NaN; the report shows it as unknown)."""
    samples = {arm.value: next((sample_transcript(e) for e in episodes if e.arm is arm), None)
               for arm in Arm}
    hinted = bool(outcome.scores_hint)
    return PlayResult(
        description=first_observation(next((e for e in episodes if e.arm is Arm.NOHINT), None)),
        scores_nohint=outcome.scores_nohint, scores_hint=outcome.scores_hint,
        solve_rate_nohint=solve_rate(outcome.scores_nohint),
        solve_rate_hint=solve_rate(outcome.scores_hint) if hinted else math.nan,
        regret=outcome.regret if hinted else math.nan, transcripts=samples, estimate=outcome.estimate,
        voided=outcome.voided,
    )
