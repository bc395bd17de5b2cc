"""The policy's settings (its ``[policy]`` section, and what a backend reads besides) and a table of
constructors keyed by kind. Light: the backends are imported only when one is built, so reading a
configuration loads none of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import Field, field_validator

from spadework.kinds import PolicyKind as PolicyKind
from spadework.settings_base import Section

if TYPE_CHECKING:
    from spadework.policy.base import Policy


class PolicySection(Section):
    """The inference backend that serves both roles (``[policy]``)."""

    kind: PolicyKind = Field(PolicyKind.EMBEDDED, description="embedded, openai, hf or scripted")
    model: str = Field("qwen2.5-coder-1.5b", description="preset name or GGUF path (embedded); the served "
                       "model's name (openai); a preset, GGUF path, Hugging Face folder or 'tiny' (hf)")
    base_url: str = Field("http://127.0.0.1:8000/v1", description="OpenAI-compatible server")
    api_key_env: str = Field("OPENAI_API_KEY", description="variable holding the API key (the key "
                             "itself never appears in settings, logs or run directories)")
    n_ctx: int = Field(4096, ge=512, description="context window of the embedded model")
    prompt_cache_mb: int = Field(1024, ge=0, description="embedded: memory for the prompt states of the "
                                 "episodes in flight, so each turn reads only its new tokens (0: none)")
    parallel: int = Field(16, ge=1, le=256, description="embedded: conversations decoded together in one "
                          "forward pass (continuous batching; 16 measured best on 2 cores)")
    kv_cache_mb: int = Field(4096, ge=16, description="embedded: most memory for the KV cache of the "
                             "parallel sequences (parallel x n_ctx tokens); fewer are decoded at a time "
                             "when they do not fit")
    concurrency: int = Field(8, ge=1, description="requests in flight (openai)")
    timeout_s: float = Field(300.0, gt=0, description="per request (openai)")

    @field_validator("model")
    @classmethod
    def _named(cls, model: str) -> str:
        if not model.strip():
            raise ValueError("is empty; give a preset name, a GGUF path or a model name")
        return model


class PolicySettings(PolicySection):
    """Everything a backend reads: the ``[policy]`` section, and what a run gives besides (the
    seed) or leaves at its default (threads, retries). Each backend reads the fields it needs.

    >>> PolicySection(kind=PolicyKind.SCRIPTED).into(PolicySettings, seed=3).seed
    3
    """

    n_threads: int | None = Field(None, ge=1, description="embedded: CPU threads (unset: the backend's "
                                  "default)")
    max_retries: int = Field(3, ge=0, description="openai: retries after connection errors, timeouts, "
                             "429 and 5xx")
    seed: int = Field(0, description="the backend's seed (embedded, scripted); a run gives its run.seed")


def _embedded(settings: PolicySettings) -> Policy:
    from spadework.policy.embedded import EmbeddedPolicy

    return EmbeddedPolicy(settings.model, n_ctx=settings.n_ctx, n_threads=settings.n_threads,
                          seed=settings.seed, prompt_cache_mb=settings.prompt_cache_mb,
                          parallel=settings.parallel, kv_cache_mb=settings.kv_cache_mb)


def _openai(settings: PolicySettings) -> Policy:
    from spadework.policy.openai import OpenAIPolicy

    return OpenAIPolicy(settings.base_url, settings.model, api_key_env=settings.api_key_env,
                        timeout_s=settings.timeout_s, max_retries=settings.max_retries,
                        concurrency=settings.concurrency)


def _hf(settings: PolicySettings) -> Policy:
    from spadework.policy.hf import HFPolicy, compute_device, load_hf

    base = load_hf(settings.model)
    return HFPolicy(base.model.to(compute_device()), base.tokenizer, name=f"hf:{settings.model}")


def _scripted(settings: PolicySettings) -> Policy:
    from spadework.policy.scripted import ScriptedPolicy

    return ScriptedPolicy(seed=settings.seed)


BUILDERS: dict[PolicyKind, Callable[[PolicySettings], Policy]] = {
    PolicyKind.EMBEDDED: _embedded,
    PolicyKind.OPENAI: _openai,
    PolicyKind.HF: _hf,
    PolicyKind.SCRIPTED: _scripted,
}
"""One constructor per kind. Backends are imported only when built, so the package imports
without llama-cpp-python or httpx installed."""


def build_policy(settings: PolicySettings) -> Policy:
    """The backend ``settings`` describe.

    >>> build_policy(PolicySettings(kind=PolicyKind.SCRIPTED)).name
    'scripted'

    Raises:
        PolicyError: the backend could not start (a missing model, a missing package).
    """
    return BUILDERS[settings.kind](settings)
