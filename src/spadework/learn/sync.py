"""Weight sync: after every update the inference engine samples from the new policy.

- ``EmbeddedSync`` (llama.cpp in this process): the adapter is written as a GGUF LoRA adapter
  into the checkpoint and swapped in; the base weights stay loaded.
- ``ServerSync`` (an OpenAI-compatible server): the adapter folder (PEFT format) is loaded
  through the server's hot-load endpoint under a new name per update, the previous one is
  unloaded, and the policy's requests name the new adapter. vLLM (started with
  ``--enable-lora`` and ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``) and SGLang (``--enable-lora``)
  take the same request body at different paths; the adapter path must be readable by the server.
- ``LlamaServerSync`` (llama.cpp's OpenAI-compatible server, which loads adapter files only at
  start): spadework runs the server on loopback itself and restarts it with each new adapter.
- ``NoSync``: nothing to send (the scripted fake; the ``hf`` policy generates with the
  learner's own model, so it is on-policy by construction).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from spadework.errors import PolicyError
from spadework.learn.checkpoint import ADAPTER_DIR, GGUF_ADAPTER
from spadework.learn.settings import ServerKind


def gguf_adapter(checkpoint: Path, peft_model: Any) -> Path:
    """The checkpoint's adapter as a GGUF LoRA file, written on first use (a resumed run reuses it)."""
    from spadework.learn.gguf_lora import export_adapter

    path = checkpoint / GGUF_ADAPTER
    return path if path.exists() else export_adapter(peft_model, path)


class WeightSync(Protocol):
    """Makes the engine serve the adapter saved in a checkpoint folder."""

    def publish(self, checkpoint: Path, peft_model: Any) -> dict[str, float]:
        """Make the engine serve the adapter of ``checkpoint``; returns ``learn/...`` timing metrics."""


class NoSync:
    """Nothing to send: the engine is a fake, or it is the learner's own model."""

    def publish(self, checkpoint: Path, peft_model: Any) -> dict[str, float]:
        """Nothing to publish (the engine is the trained model); no metrics."""
        return {}


class EmbeddedSync:
    """Swaps the checkpoint's adapter into an ``EmbeddedPolicy`` (written as GGUF when missing)."""

    def __init__(self, policy: Any):
        self.policy = policy

    def publish(self, checkpoint: Path, peft_model: Any) -> dict[str, float]:
        """Load the checkpoint's adapter, converted to GGUF, into the embedded engine; returns its time."""
        start = time.perf_counter()
        self.policy.load_adapter(gguf_adapter(checkpoint, peft_model))
        return {"learn/sync_s": time.perf_counter() - start}


ENDPOINTS: dict[ServerKind, tuple[str, str]] = {
    ServerKind.VLLM: ("/v1/load_lora_adapter", "/v1/unload_lora_adapter"),
    ServerKind.SGLANG: ("/load_lora_adapter", "/unload_lora_adapter"),
}
"""(load, unload) paths under the server's root (the base URL without ``/v1``)."""


def server_root(base_url: str) -> str:
    """The server's root: its OpenAI base URL without ``/v1``.

    >>> server_root("http://gpu-0:8000/v1/")
    'http://gpu-0:8000'
    """
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def adapter_model_name(kind: ServerKind, base_model: str, adapter: str) -> str:
    """The ``model`` field that selects ``adapter`` on that server.

    >>> adapter_model_name(ServerKind.VLLM, "Qwen/Qwen2.5-7B", "spadework-3")
    'spadework-3'
    >>> adapter_model_name(ServerKind.SGLANG, "Qwen/Qwen2.5-7B", "spadework-3")
    'Qwen/Qwen2.5-7B:spadework-3'
    """
    return adapter if kind is ServerKind.VLLM else f"{base_model}:{adapter}"


class ServerSync:
    """Hot-loads each checkpoint's adapter into a vLLM or SGLang server.

    Args:
        policy: the ``OpenAIPolicy`` whose requests should use the new adapter.
        kind: the server.
        base_model: the server's base model name (the policy's model before any adapter).
        prefix: adapters are named ``<prefix>-<checkpoint folder>-<n>`` (n counts this sync's loads).
        transport: an ``httpx`` transport (``MockTransport`` in tests).
    """

    def __init__(self, policy: Any, kind: ServerKind, base_model: str, *, prefix: str = "spadework",
                 timeout_s: float = 120.0, transport: httpx.BaseTransport | None = None):
        self.policy, self.kind, self.base_model, self.prefix = policy, kind, base_model, prefix
        self.root = server_root(policy.base_url)
        self.loaded: str | None = None
        self.count = 0
        self._client = httpx.Client(timeout=timeout_s, transport=transport)

    def _post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        try:
            return self._client.post(self.root + path, json=body)
        except httpx.HTTPError as exc:
            raise PolicyError(f"could not reach {self.root}{path} to sync the adapter ({exc}); "
                              "check that the server is up") from None

    def publish(self, checkpoint: Path, peft_model: Any) -> dict[str, float]:
        """Load the adapter into the server under a new name and unload the last; returns its time."""
        start = time.perf_counter()
        load, unload = ENDPOINTS[self.kind]  # LLAMA_CPP has its own class
        self.count += 1
        name = f"{self.prefix}-{checkpoint.name}-{self.count}"
        path = str((checkpoint / ADAPTER_DIR).resolve())
        response = self._post(load, {"lora_name": name, "lora_path": path})
        if response.status_code >= 400:
            raise PolicyError(f"{self.kind.value} refused to load adapter {name} (HTTP "
                              f"{response.status_code}: {response.text[:300]}); start it with --enable-lora"
                              + (" and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True" if self.kind is ServerKind.VLLM
                                 else "") + ", and make the run directory readable by the server")
        if self.loaded is not None:
            self._post(unload, {"lora_name": self.loaded})  # a failed unload only costs server memory
        self.loaded = name
        self.policy.use_model(adapter_model_name(self.kind, self.base_model, name))
        return {"learn/sync_s": time.perf_counter() - start}


class LlamaServerSync:
    """Runs llama.cpp's server on loopback for an ``OpenAIPolicy`` and restarts it per adapter.

    Args:
        policy: the policy; its ``base_url`` (a loopback address) says where the server listens
            and its ``model`` is the name the server answers to.
        model_path: the GGUF base model the server serves.
        n_ctx: the server's context window.
        log: where the server's output goes.
        start_timeout_s: how long a (re)start may take.
    """

    def __init__(self, policy: Any, model_path: Path, *, n_ctx: int = 4096, log: Path | None = None,
                 start_timeout_s: float = 180.0):
        from spadework.policy.llama_server import LlamaServer

        address = urlsplit(policy.base_url)
        if address.hostname not in ("127.0.0.1", "localhost") or address.port is None:
            raise PolicyError(f"learn.sync_server = 'llama-cpp' runs the server itself on loopback; set "
                              f"policy.base_url to http://127.0.0.1:PORT/v1 (it is {policy.base_url})")
        self.server = LlamaServer(model_path, address.port, policy.model, n_ctx=n_ctx, log=log,
                                  start_timeout_s=start_timeout_s)
        self.server.start()

    @property
    def process(self) -> Any:
        """The running server process, or None once closed."""
        return self.server.process

    def publish(self, checkpoint: Path, peft_model: Any) -> dict[str, float]:
        """Restart the llama.cpp server with the checkpoint's adapter, converted to GGUF; returns its time."""
        start = time.perf_counter()
        self.server.start(gguf_adapter(checkpoint, peft_model))
        return {"learn/sync_s": time.perf_counter() - start}

    def close(self) -> None:
        """Stop the server."""
        self.server.close()
