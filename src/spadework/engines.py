"""The one place where the run configuration meets the parts, and the engines a run is built
from: the policy it samples from, the sandbox, the diversity tracker and, when it trains, the
trainer that updates the policy. Each part defines its own settings (``<part>/settings.py``),
which ``RunConfig`` composes as its sections; here a section is handed to its part as it is, or
with what the run gives besides (the seed). The parts below this module never read the config
(the layering test holds them to it); the commands above it (``run``, ``eval``, ``calibrate``)
compose from it.

Which sync the trainer uses follows from the policy: the embedded engine swaps in a GGUF
adapter, an OpenAI-compatible server hot-loads the adapter folder (``learn.sync_server``),
the ``hf`` policy *is* the learner's model, and a fake needs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from spadework.config import CONFIG_FILE, AgentSection, RunConfig, SamplingConfig, load_config
from spadework.diversity import DiversitySettings, DiversityTracker, RunDiversity, run_diversity
from spadework.diversity.embed import Embedder, make_embedder
from spadework.diversity.run import INDEX_DIR
from spadework.errors import ConfigError
from spadework.outcomes import validation_seeds
from spadework.policy import PolicySettings, build_policy
from spadework.policy.base import Policy, Sampling
from spadework.policy.settings import PolicyKind
from spadework.rollout import RolloutConfig
from spadework.sandbox import Sandbox, SandboxConfig, SandboxProtocol
from spadework.sandbox.settings import Executor
from spadework.validate.checks import ValidatorConfig

if TYPE_CHECKING:  # the learner (and torch) are imported only by runs that train
    from spadework.learn.sync import WeightSync
    from spadework.learn.trainer import Trainer


def policy_settings(config: RunConfig) -> PolicySettings:
    """The policy backend's settings: the ``[policy]`` section, seeded with ``run.seed``."""
    return config.policy.into(PolicySettings, seed=config.run.seed)


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
                         audit=True, tool_prompt=agent.tool_prompt)


def validator_settings(config: RunConfig, iteration: int) -> ValidatorConfig:
    """How the run validates an iteration's designs: on seeds of the iteration's own
    (``validation_seeds``), within the agent's turns, with the second solver when the designer is
    asked for one.

    >>> settings = validator_settings(RunConfig(), 3)
    >>> settings.seeds == validation_seeds(0, 3), settings.turn_budget, settings.second_solver
    (True, 6, False)
    """
    return ValidatorConfig(seeds=validation_seeds(config.run.seed, iteration),
                           turn_budget=config.agent.max_turns, second_solver=config.designer.second_solver,
                           max_chance=config.designer.max_chance, levels=config.difficulty.on)


def sandbox_settings(config: RunConfig) -> SandboxConfig:
    """The sandbox's settings: the ``[sandbox]`` section, other limits at their defaults."""
    return config.sandbox.into(SandboxConfig)


def open_sandbox(config: RunConfig) -> SandboxProtocol:
    """The local sandbox, or one whose environments run on Ray actors (``--executor ray``)."""
    settings = sandbox_settings(config)
    if settings.executor is Executor.RAY:
        from spadework.sandbox.ray_pool import RaySandbox

        return RaySandbox(settings)
    return Sandbox(settings)


def diversity_parts(settings: DiversitySettings) -> tuple[Embedder, DiversitySettings]:
    """The embedder a ``[diversity]`` section names, and the section (the measures' thresholds)."""
    return make_embedder(settings.embedder), settings


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
    return Trainer.build(base, config.learn.trainer_settings(config.run.seed), sync, run_dir, accelerator)


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
