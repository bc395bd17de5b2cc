"""Starting, resuming and finishing a self-play run in its run directory."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spadework.archive import Archive
from spadework.config import CONFIG_FILE, RunConfig, load_config
from spadework.corpus import CorpusSampler, open_corpus
from spadework.designer.pool import PoolMember, load_pool
from spadework.engines import (
    build_engines,
    build_trainer,
    diversity_tracker,
    open_sandbox,
    rollout_config,
    sampling,
)
from spadework.errors import UsageError
from spadework.eval.probe import held_out_tasks
from spadework.learn.checkpoint import drop_uncommitted, require_checkpoint, start_source
from spadework.learn.distributed import is_follower, launched_processes
from spadework.learn.model import adapter_weights_file
from spadework.loop import Loop, LoopState, Reporter, SilentReporter
from spadework.metered import MeteredPolicy
from spadework.outcomes import play_seeds
from spadework.policy.base import Policy
from spadework.rollout.demonstrate import demonstrations
from spadework.rundir import rewrite_metrics, write_atomically
from spadework.sandbox import SandboxProtocol
from spadework.tracking import Trackers, caught_up, open_trackers, replay

if TYPE_CHECKING:  # the learner (and torch) are imported only by runs that train
    from spadework.learn.trainer import Trainer


@dataclass(frozen=True)
class RunSummary:
    """Where a run is and what it found."""

    run_dir: Path
    iterations: int
    environments: int
    valid: int
    metrics: list[dict[str, Any]]


def prepare_run_dir(run_dir: Path, config: RunConfig, resume: bool) -> RunConfig:
    """A new run writes its resolved config; a resumed run reads it back (with overrides)."""
    config_file = run_dir / CONFIG_FILE
    if resume:
        if not config_file.is_file():
            raise UsageError(f"{run_dir}: no {CONFIG_FILE}; is this a run directory?")
        return config
    if config_file.exists():
        raise UsageError(f"{run_dir} already holds a run; continue it with "
                         f"`spadework run --resume {run_dir}` or pick another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(config_file, config.to_toml())
    return config


def resumed_config(run_dir: Path, overrides: dict[str, Any]) -> RunConfig:
    """The run's own config with CLI overrides applied (e.g. more --iterations)."""
    if not (run_dir / CONFIG_FILE).is_file():
        raise UsageError(f"{run_dir}: no {CONFIG_FILE}; is this a run directory?")
    return load_config(run_dir / CONFIG_FILE, overrides)


def open_sampler(config: RunConfig, state: LoopState) -> CorpusSampler | None:
    """The corpus sampler of a run (None when designs are not grounded), resumed from ``state``."""
    if not config.designer.corpus:
        return None
    corpus = open_corpus(config.corpus.path)
    if state.sampler:
        return CorpusSampler.restore(corpus, state.sampler)
    return CorpusSampler(corpus, seed=config.run.seed)


def run(
    config: RunConfig,
    run_dir: Path,
    *,
    resume: bool = False,
    policy: Policy | None = None,
    reporter: Reporter | None = None,
) -> RunSummary:
    """Run (or continue) self-play until ``config.run.iterations`` are committed.

    An interrupted run (Ctrl-C, kill -9) loses only its unfinished iteration, which a
    resumed run does again from the same state. Under ``accelerate launch`` the main process
    runs the loop and the others only train (``follow_run``).
    """
    if is_follower():
        return follow_run(config, run_dir)
    # checked before any write
    held_out = held_out_tasks(config.eval, config.agent.max_turns) if config.eval.every else ()
    if config.learn.enabled and config.learn.init_adapter:
        adapter_weights_file(start_source(run_dir, config.learn.init_adapter))
    config = prepare_run_dir(run_dir, config, resume)
    with Archive.open(run_dir) as archive:
        last = archive.last_iteration()
        start = 0 if last is None else last[0] + 1
        committed = [metrics for _, metrics in archive.iterations()]
        rewrite_metrics(run_dir, committed)
        ended = start >= config.run.iterations and launched_processes() == 1
        if config.learn.enabled and last is not None and not ended:
            require_checkpoint(run_dir, last[0], committed[-1])  # before anything is removed
        drop_uncommitted(run_dir, None if last is None else last[0])
        if ended:
            return read_back(config, run_dir, archive, committed)  # ended: no model, no sandbox
        state = LoopState.from_json(last[1] if last else None)
        sampler = open_sampler(config, state)
        reporter = reporter or SilentReporter()
        with ExitStack() as closing:  # closed in the reverse order of opening, whatever happens
            engine, trainer = build_engines(config, run_dir, policy)
            metered = MeteredPolicy(engine, on_call=lambda _: reporter.advance(1))
            if engine is not policy:  # a policy the caller gave stays the caller's to close
                closing.callback(metered.close)
            if trainer is not None:
                closing.callback(trainer.close)
            diversity = diversity_tracker(config, run_dir)
            closing.callback(diversity.save)
            trackers = closing.enter_context(run_trackers(config, run_dir))
            replay(trackers, committed)  # what the trackers missed (all of it, when newly turned on)
            if trainer is not None and last is not None:
                trainer.restore(last[0])
            elif trainer is not None:
                trainer.start()  # learn.init_adapter's weights, served
            sandbox = closing.enter_context(open_sandbox(config))
            pool = load_pool(config.designer.fixed_pool, sandbox)[0] if config.designer.fixed_pool else ()
            warm = (warm_start(trainer, config, sandbox, pool, reporter)
                    if trainer is not None and last is None and config.learn.warm_start else {})
            loop = Loop(config=config, run_dir=run_dir, policy=metered, sandbox=sandbox, archive=archive,
                        sampler=sampler, reporter=reporter, trainer=trainer, pool=pool, diversity=diversity,
                        held_out=held_out, tracker=trackers, window=state.window, carried=warm)
            for iteration in range(start, config.run.iterations):
                loop.run_iteration(iteration)
        return summary(run_dir, config, archive)


def summary(run_dir: Path, config: RunConfig, archive: Archive) -> RunSummary:
    """What the run in ``run_dir`` has committed to ``archive``."""
    return RunSummary(run_dir, config.run.iterations, len(archive), archive.count(valid=True),
                      [m for _, m in archive.iterations()])


def read_back(config: RunConfig, run_dir: Path, archive: Archive,
              committed: Sequence[dict[str, Any]]) -> RunSummary:
    """An ended run's summary, built without a model or a sandbox. A tracker turned on since its last
    session gets every committed row; trackers that already hold them all are not even opened."""
    if committed and not caught_up(config.tracking, run_dir, committed[-1]["iteration"]):
        with run_trackers(config, run_dir) as trackers:
            replay(trackers, committed)
    return summary(run_dir, config, archive)


def run_trackers(config: RunConfig, run_dir: Path) -> Trackers:
    """The trackers the run's config turns on, named after its directory."""
    return open_trackers(config.tracking, run_dir, config.model_dump(mode="json"), run_dir.resolve().name)


def warm_start(trainer: Trainer, config: RunConfig, sandbox: SandboxProtocol, pool: Sequence[PoolMember],
               reporter: Reporter) -> dict[str, float]:
    """The supervised warm start before the first iteration (``[learn] warm_start``): the tool worlds
    of ``learn.warm_start_worlds`` (else the fixed ``pool``) demonstrated by their own solutions on
    ``learn.warm_start_seeds`` seeds, and the agent updated on the solved ones; a run that crashed
    after it loads its checkpoint instead. Its ``warm_start/...`` and ``learn/...`` metrics."""
    done = trainer.restore_warm_start()
    if done is not None:
        return done
    learn = config.learn
    worlds = load_pool(learn.warm_start_worlds, sandbox)[0] if learn.warm_start_worlds else pool
    seeds = play_seeds(config.run.seed, -1, 0, learn.warm_start_seeds)  # iteration -1: no play's seeds
    reporter.phase(f"warm start: {len(worlds)} worlds demonstrated on {len(seeds)} seeds", None)
    rollout = rollout_config(config.agent, sampling(config.agent.sampling))
    episodes = demonstrations(sandbox, [(m.name, m.code) for m in worlds], seeds, rollout)
    reporter.phase(f"warm start: {learn.warm_start} passes over {sum(e.solved for e in episodes)} "
                   "solved demonstrations", None)
    return trainer.warm_start(episodes, learn.warm_start, learn.warm_start_batch)


def follow_run(config: RunConfig, run_dir: Path) -> RunSummary:
    """A learner process other than the main one: it updates its replica when told, until the end."""
    from spadework.learn.distributed import follow
    from spadework.learn.sync import NoSync

    if not config.learn.enabled:
        raise UsageError("several processes only help training; add --train, or run one process")
    trainer = build_trainer(config, run_dir, NoSync())
    if trainer.channel is None:
        raise UsageError("this process is not one of several learner processes; start it with accelerate "
                         "launch, or run one process")
    follow(trainer.learner, trainer.channel)
    return RunSummary(run_dir, 0, 0, 0, [])
