"""EmbeddedPolicy: a GGUF model served in-process by llama-cpp-python (offline, CPU).

The default backend. Conversations are rendered with the GGUF file's own chat
template and run one after another (one llama.cpp context is not thread-safe). Plays advance in
lockstep, so the next turn of an episode follows the other episodes' turns: a prompt-state cache
(llama-cpp-python's ``LlamaRAMCache``, ``prompt_cache_mb``) keeps each conversation's state after
its reply, and the next turn reads only its new tokens instead of the whole transcript. Tools go
to the template (Qwen2.5's writes them into its system block); a file whose template
ignores them, or that has none, gets them in the system message.
llama-cpp-python is imported only when a policy is built, so the package imports
without it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spadework.errors import ContextOverflow, PolicyError
from spadework.policy.base import (
    Completion,
    Conversation,
    Sampling,
    Tools,
    ToolsPerConversation,
    tools_per_conversation,
)
from spadework.policy.llama_cpu import avoid_amx_repack
from spadework.policy.models import PRESETS, resolve_model
from spadework.policy.toolcalls import PROBE_TOOL, with_native_calls, with_tools_in_system

DEFAULT_MODEL = "qwen2.5-coder-0.5b"
TEMPLATE_KEY = "tokenizer.chat_template"
GGUF_TEMPLATE_FORMAT = "chat_template.default"
"""llama-cpp-python's name for the chat format read from the GGUF file's metadata."""
INSTALL_HINT = "pip install 'spadework[embedded]' (llama-cpp-python; it compiles for several minutes)"


def common_prefix(first: Sequence[int], second: Sequence[int]) -> int:
    """How many tokens two token lists share from their start.

    >>> common_prefix([1, 2, 3, 4], [1, 2, 5]), common_prefix([], [1])
    (2, 0)
    """
    shared = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        shared += 1
    return shared


def llama_module() -> Any:
    """The ``llama_cpp`` module.

    Raises:
        PolicyError: llama-cpp-python is not installed (the message says what to install).
    """
    try:
        import llama_cpp
    except ImportError:
        raise PolicyError(f"the embedded policy needs llama-cpp-python; install it with: {INSTALL_HINT}, "
                          "or choose another policy kind (e.g. --policy openai)") from None
    return llama_cpp


def _load_llama(path: Path, n_ctx: int, n_threads: int | None, seed: int, verbose: bool) -> Any:
    """A ``llama_cpp.Llama`` for ``path`` that uses the file's own chat template.

    Raises:
        PolicyError: llama-cpp-python is missing, or the model does not load.
    """
    llama_cpp = llama_module()
    avoid_amx_repack()
    try:
        threads = n_threads or os.cpu_count() or 1  # llama.cpp alone may pick one core of two
        llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads, seed=seed,
                              verbose=verbose)
    except (ValueError, RuntimeError, OSError) as exc:
        raise PolicyError(f"llama.cpp could not load {path} ({exc}); check that it is a complete GGUF "
                          f"model, or lower n_ctx ({n_ctx}) if memory is short") from None
    if TEMPLATE_KEY in llm.metadata:
        llm.chat_format = GGUF_TEMPLATE_FORMAT
    return llm


def _formatter(llm: Any) -> Any:
    """The chat formatter of the GGUF's template (renders a prompt without running the model),
    or None when the file has no template."""
    template = getattr(llm, "metadata", {}).get(TEMPLATE_KEY)
    if template is None:
        return None
    from llama_cpp import llama_chat_format

    eos, bos = llm.token_eos(), llm.token_bos()

    def text(token: int) -> str:
        return llm.detokenize([token], special=True).decode("utf-8", errors="replace")

    return llama_chat_format.Jinja2ChatFormatter(
        template=template, eos_token=text(eos) if eos != -1 else "",
        bos_token=text(bos) if bos != -1 else "", stop_token_ids=[eos])


def slim_state_cache(capacity_bytes: int) -> Any:
    """llama-cpp-python's ``LlamaRAMCache`` holding each state without its logits.

    A saved state carries a copy of the context's logit rows (up to ``n_batch`` rows of the whole
    vocabulary: 311 MB for Qwen2.5) that the cache does not count against its capacity, and that a
    restored state never uses (llama.cpp decodes the last token again before sampling). The cache
    keeps one row of them (loading broadcasts it) and counts it, so its memory is what it says.
    """
    llama_cpp = llama_module()

    class SlimStateCache(llama_cpp.LlamaRAMCache):
        @property
        def cache_size(self) -> int:
            return sum(s.llama_state_size + s.scores.nbytes for s in self.cache_state.values())

        def __setitem__(self, key: Sequence[int], value: Any) -> None:
            value.scores = value.scores[-1:].copy()
            super().__setitem__(key, value)

    return SlimStateCache(capacity_bytes=capacity_bytes)


class EmbeddedPolicy:
    """A GGUF model run in this process by llama.cpp.

    Args:
        model: a preset name (see ``spadework.policy.models.PRESETS``) or a ``.gguf`` path.
        n_ctx: context window in tokens; prompt plus reply must fit.
        n_threads: CPU threads; None uses every core.
        seed: seeds sampling; a completion whose ``Sampling.seed`` is set repeats exactly.
        cache_dir: where preset models are joined; default ``models.default_cache_dir()``.
        verbose: let llama.cpp print its own log to stderr.
        prompt_cache_mb: memory for the states of conversations in flight (0: none; only the last
            prompt's state is held). It must hold every episode played at once to help: the least
            recently used state is dropped first, and each episode's comes back only a round later.

    Raises:
        PolicyError: the model cannot be found, verified or loaded (the message says what to do).
    """

    def __init__(self, model: str = DEFAULT_MODEL, *, n_ctx: int = 4096, n_threads: int | None = None,
                 seed: int = 0, cache_dir: Path | None = None, verbose: bool = False,
                 prompt_cache_mb: int = 0):
        llama_module()  # a missing engine is said before a missing model
        path = resolve_model(model, cache_dir)
        llm = _load_llama(path, n_ctx, n_threads, seed, verbose)
        self._setup(llm, f"embedded:{model if model in PRESETS else path.stem}", path)
        self._cache_bytes = prompt_cache_mb << 20
        self._new_cache()

    @classmethod
    def from_llama(cls, llm: Any, name: str = "embedded:custom") -> EmbeddedPolicy:
        """A policy around an already loaded ``llama_cpp.Llama`` (or a fake with its methods)."""
        policy = cls.__new__(cls)
        policy._setup(llm, name, None)
        return policy

    def _setup(self, llm: Any, name: str, path: Path | None) -> None:
        self._llm = llm
        self.name = name
        self.path = path
        self._lock = threading.Lock()
        self._format = _formatter(llm)
        self._renders_tools: bool | None = None
        self._adapter: Any = None
        self.adapter_path: Path | None = None
        self._cache_bytes = 0

    def _new_cache(self) -> None:
        """An empty prompt-state cache (none when ``prompt_cache_mb`` is 0)."""
        if self._cache_bytes:
            self._llm.set_cache(slim_state_cache(self._cache_bytes))

    @property
    def llm(self) -> Any:
        """The loaded ``llama_cpp.Llama`` (for benchmarks and adapter loading)."""
        return self._llm

    @property
    def n_ctx(self) -> int:
        """The context window in tokens."""
        return int(self._llm.n_ctx())

    @property
    def renders_tools(self) -> bool:
        """Whether the model file's chat template shows the tools it is given (checked once)."""
        if self._renders_tools is None:
            probe = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
            try:
                shown = self._format is not None and \
                    PROBE_TOOL["function"]["name"] in self._format(messages=probe, tools=[PROBE_TOOL]).prompt
            except Exception:  # noqa: BLE001 - a template that fails on tools does not render them
                shown = False
            self._renders_tools = shown
        return self._renders_tools

    def _request(self, conversation: Conversation, tools: Tools | None) -> dict[str, Any]:
        """The messages (and tools, when the template shows them) of a chat completion request."""
        if tools and not self.renders_tools:
            conversation, tools = with_tools_in_system(conversation, tools), None
        request: dict[str, Any] = {"messages": [m.to_json() for m in conversation]}
        if tools:
            request["tools"] = list(tools)
        return request

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        """One completion per conversation, in order (run one after another)."""
        per = tools_per_conversation(tools, len(conversations))
        return [self.generate_one(c, sampling.for_item(i), per[i]) for i, c in enumerate(conversations)]

    def generate_one(
        self, conversation: Conversation, sampling: Sampling, tools: Tools | None = None
    ) -> Completion:
        """One completion; ``tools``: the tools the conversation may call.

        Raises:
            ContextOverflow: the conversation alone fills the context window.
            PolicyError: llama.cpp failed.
        """
        request = self._request(conversation, tools)
        start = time.perf_counter()
        with self._lock:
            held = [self._held_tokens(), *self._cached_keys()]
            try:
                answer = self._llm.create_chat_completion(
                    **request, temperature=sampling.temperature, top_p=sampling.top_p,
                    max_tokens=sampling.max_tokens, stop=list(sampling.stop), seed=sampling.seed)
            except ValueError as exc:
                if "context window" in str(exc):
                    raise ContextOverflow(f"the conversation does not fit the context window of "
                                          f"{self.name} ({exc}); shorten it or raise n_ctx") from None
                raise PolicyError(f"{self.name} failed to generate: {exc}") from None
            except RuntimeError as exc:
                raise PolicyError(f"{self.name} failed to generate: {exc}") from None
            seconds = time.perf_counter() - start
            usage = answer.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens", 0))
            prompt = self._held_tokens()[:prompt_tokens]
            cached = max(common_prefix(tokens, prompt) for tokens in held)
        choice = answer["choices"][0]
        message = choice["message"]
        return Completion(text=with_native_calls(message.get("content") or "", message.get("tool_calls")),
                          prompt_tokens=prompt_tokens,
                          completion_tokens=int(usage.get("completion_tokens", 0)),
                          seconds=seconds, finish_reason=str(choice.get("finish_reason") or "stop"),
                          cached_tokens=cached)

    def _held_tokens(self) -> list[int]:
        """The tokens whose state llama.cpp holds now: the next prompt reuses their longest common
        prefix with it instead of computing it again."""
        llm = self._llm
        return [int(t) for t in llm.input_ids[: llm.n_tokens]] if hasattr(llm, "input_ids") else []

    def _cached_keys(self) -> list[tuple[int, ...]]:
        """The token lists whose states the prompt-state cache holds (the longest common prefix with
        the next prompt is loaded when it is longer than the held tokens')."""
        cache = getattr(self._llm, "cache", None)
        return list(getattr(cache, "cache_state", {}).keys()) if cache is not None else []

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        """The model's tokens for ``text`` (no beginning-of-sequence token).

        Args:
            special: read special-token text such as ``<|im_end|>`` as those tokens.
        """
        with self._lock:
            return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=special))

    def count_tokens(self, messages: Conversation, tools: Tools | None = None) -> int:
        """Prompt tokens of ``messages`` (and ``tools``) as ``generate`` sends them (chat template
        included).

        Without a template in the model file, the sum of the messages' own tokens.
        """
        request = self._request(messages, tools)
        if self._format is None:
            return sum(len(self.tokenize(m["content"])) for m in request["messages"])
        rendered = self._format(**request)
        with self._lock:
            return len(self._llm.tokenize(rendered.prompt.encode("utf-8"),
                                          add_bos=not rendered.added_special, special=True))

    def load_adapter(self, path: Path | None, scale: float = 1.0) -> None:
        """Serve the base model with the GGUF LoRA adapter at ``path`` from now on (None: none).

        The adapter replaces the previous one in place (the base weights stay loaded), and the
        cached prompt state is dropped so no reply mixes old and new weights.

        Raises:
            PolicyError: llama.cpp cannot read ``path`` as a LoRA adapter of this model.
        """
        import ctypes

        import llama_cpp

        with self._lock:
            new = None
            if path is not None:
                new = llama_cpp.llama_adapter_lora_init(self._llm._model.model, str(path).encode("utf-8"))
                if not new:
                    raise PolicyError(f"llama.cpp could not load the LoRA adapter {path}; it must be a GGUF "
                                      f"adapter written for {self.name}")
            adapters = (llama_cpp.llama_adapter_lora_p_ctypes * 1)(new) if new else None
            scales = (ctypes.c_float * 1)(scale) if new else None
            if llama_cpp.llama_set_adapters_lora(self._llm._ctx.ctx, adapters, 1 if new else 0, scales):
                raise PolicyError(f"llama.cpp could not apply the LoRA adapter {path}")
            if self._adapter:
                llama_cpp.llama_adapter_lora_free(self._adapter)
            self._adapter, self.adapter_path = new, path
            self._llm.reset()
            self._new_cache()  # states computed with the old weights must not be loaded

    def close(self) -> None:
        """Free the model's memory; the policy cannot generate afterwards."""
        with self._lock:
            close = getattr(self._llm, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> EmbeddedPolicy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
