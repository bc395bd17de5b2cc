"""Choosing a backend: the policy's settings and a table of constructors keyed by kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from spadework.errors import ConfigError
from spadework.kinds import PolicyKind as PolicyKind
from spadework.policy.base import Policy


@dataclass(frozen=True)
class PolicySettings:
    """Settings of the policy backend; each backend reads the fields it needs.

    Attributes:
        kind: which backend.
        model: a preset name or GGUF path (embedded), the served model's name (openai), a
            preset, GGUF path, Hugging Face folder or ``tiny`` (hf).
        base_url: the OpenAI-compatible server, up to and including ``/v1`` (openai).
        api_key_env: the environment variable holding the API key (openai); the key itself
            never appears in settings, logs or run directories.
        n_ctx: context window in tokens (embedded).
        n_threads: CPU threads, None for the backend's default (embedded).
        prompt_cache_mb: memory for the saved states of finished conversations, 0 for none
            (embedded).
        parallel: conversations decoded together (embedded).
        kv_cache_mb: most memory for the KV cache of the ``parallel`` sequences; fewer are decoded
            at a time when they do not fit (embedded).
        concurrency: requests in flight at once (openai).
        timeout_s: per request (openai).
        max_retries: retries after connection errors, timeouts, 429 and 5xx (openai).
        seed: the backend's seed (embedded, scripted).
    """

    kind: PolicyKind = PolicyKind.EMBEDDED
    model: str = "qwen2.5-coder-1.5b"
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key_env: str = "OPENAI_API_KEY"
    n_ctx: int = 4096
    n_threads: int | None = None
    prompt_cache_mb: int = 1024
    parallel: int = 16
    kv_cache_mb: int = 4096
    concurrency: int = 8
    timeout_s: float = 300.0
    max_retries: int = 3
    seed: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.kind, PolicyKind):
            raise ConfigError(f"policy field 'kind' is {self.kind!r}; use one of "
                              f"{', '.join(k.value for k in PolicyKind)}")
        problems = [(name, rule) for name, ok, rule in self._rules() if not ok]
        if problems:
            name, rule = problems[0]
            raise ConfigError(f"policy field '{name}' is {getattr(self, name)!r}; it must be {rule}")

    def _rules(self) -> list[tuple[str, bool, str]]:
        return [
            ("model", bool(self.model.strip()), "a preset name, a GGUF path or a model name"),
            ("n_ctx", self.n_ctx >= 256, "at least 256"),
            ("n_threads", self.n_threads is None or self.n_threads >= 1, "None or at least 1"),
            ("prompt_cache_mb", self.prompt_cache_mb >= 0, "0 or more"),
            ("parallel", 1 <= self.parallel <= 256, "between 1 and 256"),
            ("kv_cache_mb", self.kv_cache_mb >= 16, "at least 16"),
            ("concurrency", self.concurrency >= 1, "at least 1"),
            ("timeout_s", self.timeout_s > 0, "positive"),
            ("max_retries", self.max_retries >= 0, "0 or more"),
        ]

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON, with the kind's name."""
        return {**asdict(self), "kind": self.kind.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PolicySettings:
        """Settings from ``to_json`` output; unknown keys and kinds raise ``ConfigError``.

        >>> PolicySettings.from_json({"kind": "scripted", "seed": 3}).kind
        <PolicyKind.SCRIPTED: 'scripted'>
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"policy settings have unknown field(s) {', '.join(unknown)}; "
                              f"known: {', '.join(sorted(known))}")
        values = dict(data)
        if "kind" in values:
            try:
                values["kind"] = PolicyKind(values["kind"])
            except ValueError:
                raise ConfigError(f"policy field 'kind' is {values['kind']!r}; use one of "
                                  f"{', '.join(k.value for k in PolicyKind)}") from None
        return cls(**values)


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
