"""The policy a run samples from and, when it trains, the trainer that updates it.

Which sync the trainer uses follows from the policy: the embedded engine swaps in a GGUF
adapter, an OpenAI-compatible server hot-loads the adapter folder (``learn.sync_server``),
the ``hf`` policy *is* the learner's model, and a fake needs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spadework.config import RunConfig
from spadework.errors import ConfigError
from spadework.policy import PolicySettings, build_policy
from spadework.policy.base import Policy
from spadework.policy.settings import PolicyKind


def policy_settings(config: RunConfig) -> PolicySettings:
    p = config.policy
    return PolicySettings(kind=p.kind, model=p.model, base_url=p.base_url, api_key_env=p.api_key_env,
                          n_ctx=p.n_ctx, concurrency=p.concurrency, timeout_s=p.timeout_s,
                          seed=config.run.seed)


def weight_sync(policy: Any, config: RunConfig, run_dir: Path) -> Any:
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


def build_trainer(config: RunConfig, run_dir: Path, sync: Any) -> Any:
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
    return Trainer.build(base, config.learn, sync, run_dir, config.run.seed, accelerator)


def build_engines(config: RunConfig, run_dir: Path, policy: Policy | None = None) -> tuple[Policy, Any]:
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
