"""The one place where config sections become the settings of the parts, and the engines a
run is built from: the policy it samples from, the sandbox, the diversity tracker and, when it
trains, the trainer that updates the policy. The parts below this module never read the config
(the layering test holds them to it); the commands above it (``run``, ``eval``, ``calibrate``)
compose from it.

Which sync the trainer uses follows from the policy: the embedded engine swaps in a GGUF
adapter, an OpenAI-compatible server hot-loads the adapter folder (``learn.sync_server``),
the ``hf`` policy *is* the learner's model, and a fake needs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from spadework.config import (
    CONFIG_FILE,
    AgentSection,
    DiversitySection,
    Executor,
    LearnSection,
    RunConfig,
    SamplingConfig,
    load_config,
)
from spadework.diversity import DiversitySettings, DiversityTracker, RunDiversity, run_diversity
from spadework.diversity.embed import Embedder, make_embedder
from spadework.diversity.run import INDEX_DIR
from spadework.errors import ConfigError
from spadework.learn.settings import LearnerSettings, TrainerSettings
from spadework.policy import PolicySettings, build_policy
from spadework.policy.base import Policy, Sampling
from spadework.policy.settings import PolicyKind
from spadework.rollout import RolloutConfig
from spadework.sandbox import Sandbox, SandboxConfig, SandboxProtocol
from spadework.tracking import TrackingSettings

if TYPE_CHECKING:  # the learner (and torch) are imported only by runs that train
    from spadework.learn.sync import WeightSync
    from spadework.learn.trainer import Trainer


def policy_settings(config: RunConfig) -> PolicySettings:
    """The policy backend's settings from the run configuration."""
    p = config.policy
    return PolicySettings(kind=p.kind, model=p.model, base_url=p.base_url, api_key_env=p.api_key_env,
                          n_ctx=p.n_ctx, prompt_cache_mb=p.prompt_cache_mb, parallel=p.parallel,
                          kv_cache_mb=p.kv_cache_mb, concurrency=p.concurrency,
                          timeout_s=p.timeout_s, seed=config.run.seed)


def sampling(section: SamplingConfig, seed: int | None = None) -> Sampling:
    """A role's ``[...sampling]`` section as the policy's sampling, seeded with ``seed``.

    >>> sampling(SamplingConfig(temperature=0.2), seed=7)
    Sampling(temperature=0.2, top_p=0.95, max_tokens=512, seed=7, stop=())
    """
    return Sampling(temperature=section.temperature, top_p=section.top_p, max_tokens=section.max_tokens,
                    seed=seed)


def rollout_config(agent: AgentSection, sampling: Sampling) -> RolloutConfig:
    """The agent's rollout settings, as the loop plays designed environments (every played
    episode audited: ``rollout.audit``), with ``sampling``.

    >>> rollout = rollout_config(AgentSection(), Sampling(temperature=0.0))
    >>> rollout.max_turns_cap, rollout.audit
    (6, True)
    """
    return RolloutConfig(max_turns_cap=agent.max_turns, context_tokens=agent.context_tokens,
                         concurrency=agent.concurrency, hint_style=agent.hint_style, sampling=sampling,
                         audit=True)


def sandbox_settings(config: RunConfig) -> SandboxConfig:
    """The sandbox's settings from the run configuration."""
    box = config.sandbox
    return SandboxConfig(pool_size=box.pool_size, call_timeout_s=box.call_timeout_s,
                         load_timeout_s=box.load_timeout_s)


def open_sandbox(config: RunConfig) -> SandboxProtocol:
    """The local sandbox, or one whose environments run on Ray actors (``--executor ray``)."""
    if config.sandbox.executor is Executor.RAY:
        from spadework.sandbox.ray_pool import RaySandbox

        return RaySandbox(sandbox_settings(config), address=config.sandbox.ray_address,
                          cpus_per_env=config.sandbox.ray_cpus_per_env)
    return Sandbox(sandbox_settings(config))


def diversity_parts(section: DiversitySection) -> tuple[Embedder, DiversitySettings]:
    """The embedder and thresholds of a ``[diversity]`` section."""
    return make_embedder(section.embedder), DiversitySettings(
        near_duplicate=section.near_duplicate, cluster_distance=section.cluster_distance,
        collapse_window=section.collapse_window, cluster_window=section.cluster_window)


def diversity_tracker(config: RunConfig, run_dir: Path | None = None) -> DiversityTracker:
    """The loop's diversity measurement; with ``run_dir``, its nearest-neighbour index is saved in
    ``RUN_DIR/index`` between sessions."""
    return DiversityTracker(*diversity_parts(config.diversity),
                            index_dir=None if run_dir is None else Path(run_dir) / INDEX_DIR)


def measure_run(run_dir: Path, *, every_design: bool = False) -> RunDiversity:
    """A run's diversity, measured with the settings of its own config (the defaults without one);
    ``every_design``: of every design the designer wrote, valid or not (``run_diversity``)."""
    path = Path(run_dir) / CONFIG_FILE
    return run_diversity(run_dir, *diversity_parts(load_config(path if path.is_file() else None).diversity),
                         use_logged=True, every_design=every_design)


def tracking_settings(config: RunConfig) -> TrackingSettings:
    """What the run's trackers need, from its ``[tracking]`` section."""
    t = config.tracking
    return TrackingSettings(tensorboard=t.tensorboard, wandb=t.wandb, project=t.wandb_project,
                            entity=t.wandb_entity)


def weight_sync(policy: Policy, config: RunConfig, run_dir: Path) -> WeightSync:
    """How updates reach ``policy``'s engine.

    Raises:
        ConfigError: an OpenAI-compatible server with no ``learn.sync_server`` to call.
    """
    from spadework.learn.settings import ServerKind
    from spadework.learn.sync import EmbeddedSync, LlamaServerSync, NoSync, ServerSync
    from spadework.policy.embedded import EmbeddedPolicy
    from spadework.policy.models import resolve_model
    from spadework.policy.openai import OpenAIPolicy

    if isinstance(policy, EmbeddedPolicy):
        return EmbeddedSync(policy)
    if isinstance(policy, OpenAIPolicy):
        server = config.learn.sync_server
        if server is None:
            raise ConfigError("training with policy.kind = 'openai' needs learn.sync_server = 'vllm', "
                              "'sglang' or 'llama-cpp', so each update reaches the server")
        if server is ServerKind.LLAMA_CPP:  # the model name is a preset or GGUF path the server loads
            return LlamaServerSync(policy, resolve_model(config.policy.model), n_ctx=config.policy.n_ctx,
                                   log=run_dir / "llama-server.log")
        return ServerSync(policy, server, config.policy.model)
    return NoSync()


def trainer_settings(section: LearnSection, seed: int) -> TrainerSettings:
    """The trainer's settings from the ``[learn]`` section; ``seed`` seeds the adapter's start.

    >>> trainer_settings(LearnSection(lr=0.01, lora_rank=4), seed=3).learner.lr
    0.01
    """
    learner = LearnerSettings(lr=section.lr, weight_decay=section.weight_decay, clip_low=section.clip_low,
                              clip_high=section.clip_high, aggregation=section.aggregation,
                              kl_coef=section.kl_coef, max_grad_norm=section.max_grad_norm,
                              micro_batch_tokens=section.micro_batch_tokens, epochs=section.epochs,
                              min_tokens=section.min_tokens, seed=seed, tis_cap=section.tis_cap)
    return TrainerSettings(learner=learner, lora_rank=section.lora_rank, lora_alpha=section.lora_alpha,
                           lora_dropout=section.lora_dropout, lora_targets=tuple(section.lora_targets),
                           designer=section.designer, designer_attempt=section.designer_attempt,
                           max_sample_tokens=section.max_sample_tokens,
                           keep_checkpoints=section.keep_checkpoints)


def build_trainer(config: RunConfig, run_dir: Path, sync: WeightSync) -> Trainer:
    """The run's ``learn.Trainer``; under ``accelerate launch`` its learner spans every process."""
    from spadework.learn.distributed import launched_processes
    from spadework.learn.model import load_base
    from spadework.learn.trainer import Trainer

    source = config.policy.model if config.policy.kind is PolicyKind.HF else config.learn.model
    base = load_base(source, config.policy.model, dtype=config.learn.dtype)
    accelerator = None
    if launched_processes() > 1:
        import torch
        from accelerate import Accelerator

        accelerator = Accelerator(cpu=not torch.cuda.is_available())  # CPU processes talk over gloo
    return Trainer.build(base, trainer_settings(config.learn, config.run.seed), sync, run_dir, accelerator)


def build_engines(config: RunConfig, run_dir: Path,
                  policy: Policy | None = None) -> tuple[Policy, Trainer | None]:
    """``(policy, trainer)``; the trainer is None when the run does not train.

    Args:
        policy: a ready policy (tests, library use) instead of the one the config describes.
    """
    if not config.learn.enabled:
        return policy or build_policy(policy_settings(config)), None
    from spadework.learn.sync import NoSync
    from spadework.policy.hf import HFPolicy

    if policy is None and config.policy.kind is PolicyKind.HF:  # the learner's own model generates
        trainer = build_trainer(config, run_dir, NoSync())
        policy = HFPolicy(trainer.learner.peft_model, trainer.tokenizer, name=f"hf:{config.policy.model}")
        return policy, trainer
    policy = policy or build_policy(policy_settings(config))
    sync = weight_sync(policy, config, run_dir)
    try:
        return policy, build_trainer(config, run_dir, sync)
    except BaseException:
        getattr(sync, "close", lambda: None)()  # e.g. a llama.cpp server it started
        raise
