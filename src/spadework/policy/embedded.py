"""EmbeddedPolicy: a GGUF model served in-process by llama-cpp-python (offline, CPU).

The default backend. Conversations are rendered with the GGUF file's own chat template and
decoded together: ``generate`` hands the whole batch to a continuous-batching scheduler
(``policy.batching``) over one llama.cpp context of ``parallel`` sequences
(``policy.llama_batch``), which reads the weights once per step for every sequence and computes
a prefix shared by several conversations once (a paired play's two arms, a batch of designs with
the same instructions, an episode's earlier turns). States of finished conversations are kept in
their slots and, when a slot is needed, in a prompt cache of ``prompt_cache_mb``, so an episode's
next turn reads only its new tokens. Tools go to the template (Qwen2.5's writes them into its
system block); a file whose template ignores them, or that has none, gets them in the system
message. llama-cpp-python is imported only when a policy is built, so the package imports
without it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spadework.errors import ContextOverflow, PolicyError
from spadework.policy.base import (
    CONTEXT_OVERFLOW,
    Completion,
    Conversation,
    Sampling,
    Tools,
    ToolsPerConversation,
    tools_per_conversation,
)
from spadework.policy.batching import BatchScheduler, Decoder, FinishReason, SequenceRequest, SequenceResult
from spadework.policy.llama_cpu import avoid_amx_repack
from spadework.policy.models import PRESETS, resolve_model
from spadework.policy.toolcalls import PROBE_TOOL, with_tools_in_system

DEFAULT_MODEL = "qwen2.5-coder-1.5b"
DEFAULT_PARALLEL = 16
"""Sequences decoded together (measured on 2 cores: ``benchmarks/batch_bench.py``)."""
TEMPLATE_KEY = "tokenizer.chat_template"
GGUF_TEMPLATE_FORMAT = "chat_template.default"
"""llama-cpp-python's name for the chat format read from the GGUF file's metadata."""
INSTALL_HINT = "pip install 'spadework[embedded]' (llama-cpp-python; it compiles for several minutes)"
TOKENIZER_CTX = 256
"""The loaded ``Llama``'s own context serves tokenizing only (generation has a context of its own)."""
PREFILL_CHUNK = 512


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


def _load_llama(path: Path, n_threads: int, seed: int, verbose: bool) -> Any:
    """A ``llama_cpp.Llama`` for ``path`` that uses the file's own chat template.

    Raises:
        PolicyError: llama-cpp-python is missing, or the model does not load.
    """
    llama_cpp = llama_module()
    avoid_amx_repack()
    try:
        llm = llama_cpp.Llama(model_path=str(path), n_ctx=TOKENIZER_CTX, n_batch=64, n_threads=n_threads,
                              seed=seed, verbose=verbose)
    except (ValueError, RuntimeError, OSError) as exc:
        raise PolicyError(f"llama.cpp could not load {path} ({exc}); check that it is a complete GGUF "
                          "model") from None
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


def plain_prompt(messages: Sequence[dict[str, str]]) -> str:
    """A prompt for a model file without a chat template: one ``role: content`` block a message.

    >>> plain_prompt([{"role": "user", "content": "Hi."}])
    'user: Hi.\\n\\nassistant:'
    """
    return "".join(f"{m['role']}: {m['content']}\n\n" for m in messages) + "assistant:"


def completion(result: SequenceResult) -> Completion:
    """A scheduler result as the protocol's completion (a prompt that did not fit says so)."""
    if result.finish_reason is FinishReason.CONTEXT:
        return Completion(text="", prompt_tokens=result.prompt_tokens, finish_reason=CONTEXT_OVERFLOW)
    return Completion(text=result.text, prompt_tokens=result.prompt_tokens,
                      completion_tokens=result.completion_tokens, seconds=result.seconds,
                      finish_reason=result.finish_reason.value, cached_tokens=result.cached_tokens)


class EmbeddedPolicy:
    """A GGUF model run in this process by llama.cpp, many conversations at a time.

    Args:
        model: a preset name (see ``spadework.policy.models.PRESETS``) or a ``.gguf`` path.
        n_ctx: context window of each conversation in tokens; prompt plus reply must fit.
        n_threads: CPU threads; None uses every core.
        seed: seeds sampling where a ``Sampling`` has no seed.
        cache_dir: where preset models are joined; default ``models.default_cache_dir()``.
        verbose: let llama.cpp print its own log to stderr.
        prompt_cache_mb: memory for saved states of finished conversations (0: only those still in
            a slot), so an episode's next turn reads only its new tokens.
        parallel: conversations decoded together.
        kv_cache_mb: most memory for the KV cache of the ``parallel`` sequences; fewer are decoded
            at a time when ``parallel x n_ctx`` tokens do not fit.

    Raises:
        PolicyError: the model cannot be found, verified or loaded (the message says what to do).
    """

    def __init__(self, model: str = DEFAULT_MODEL, *, n_ctx: int = 4096, n_threads: int | None = None,
                 seed: int = 0, cache_dir: Path | None = None, verbose: bool = False,
                 prompt_cache_mb: int = 1024, parallel: int = DEFAULT_PARALLEL, kv_cache_mb: int = 4096):
        from spadework.policy.llama_batch import LlamaBatchDecoder

        llama_module()  # a missing engine is said before a missing model
        path = resolve_model(model, cache_dir)
        threads = n_threads or os.cpu_count() or 1  # llama.cpp alone may pick one core of two
        llm = _load_llama(path, threads, seed, verbose)
        decoder = LlamaBatchDecoder(llm, n_ctx=n_ctx, parallel=parallel, n_batch=PREFILL_CHUNK,
                                    n_threads=threads, kv_cache_mb=kv_cache_mb)
        self._setup(llm, f"embedded:{model if model in PRESETS else path.stem}", path,
                    decoder, prompt_cache_mb << 20, seed)

    @classmethod
    def from_llama(cls, llm: Any, name: str = "embedded:custom", decoder: Decoder | None = None,
                   prompt_cache_mb: int = 0) -> EmbeddedPolicy:
        """A policy around an already loaded ``llama_cpp.Llama`` (or a fake with its methods), that
        generates through ``decoder`` (None: it only renders, counts and loads adapters)."""
        policy = cls.__new__(cls)
        policy._setup(llm, name, None, decoder, prompt_cache_mb << 20, 0)
        return policy

    def _setup(self, llm: Any, name: str, path: Path | None, decoder: Decoder | None, cache_bytes: int,
               seed: int) -> None:
        self._llm = llm
        self.name = name
        self.path = path
        self._lock = threading.Lock()
        self._format = _formatter(llm)
        self._renders_tools: bool | None = None
        self._adapter: Any = None
        self.adapter_path: Path | None = None
        self.decoder = decoder
        self.scheduler = BatchScheduler(decoder, prefill_chunk=PREFILL_CHUNK, cache_bytes=cache_bytes) \
            if decoder is not None else None
        self._seed = seed

    @property
    def llm(self) -> Any:
        """The loaded ``llama_cpp.Llama`` (its tokenizer, template and weights)."""
        return self._llm

    @property
    def n_ctx(self) -> int:
        """Each conversation's context window in tokens."""
        return int(self.decoder.n_ctx) if self.decoder is not None else int(self._llm.n_ctx())

    @property
    def parallel(self) -> int:
        """Conversations decoded together."""
        return int(self.decoder.slots) if self.decoder is not None else 1

    @property
    def renders_tools(self) -> bool:
        """Whether the model file's chat template shows the tools it is given (checked once)."""
        if self._renders_tools is None:
            probe = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
            tool: dict[str, Any] = PROBE_TOOL  # a JSON schema (its literal infers too narrow to index)
            try:
                shown = self._format is not None and \
                    tool["function"]["name"] in self._format(messages=probe, tools=[tool]).prompt
            except Exception:  # noqa: BLE001 - a template that fails on tools does not render them
                shown = False
            self._renders_tools = shown
        return self._renders_tools

    def _request(self, conversation: Conversation, tools: Tools | None) -> dict[str, Any]:
        """The messages (and tools, when the template shows them) of a chat request."""
        if tools and not self.renders_tools:
            conversation, tools = with_tools_in_system(conversation, tools), None
        request: dict[str, Any] = {"messages": [m.to_json() for m in conversation]}
        if tools:
            request["tools"] = list(tools)
        return request

    def prompt_tokens(self, conversation: Conversation,
                      tools: Tools | None = None) -> tuple[list[int], tuple[str, ...]]:
        """The conversation rendered by the chat template and tokenized, with the template's stop
        strings (without a template: ``plain_prompt``)."""
        request = self._request(conversation, tools)
        if self._format is None:
            text, add_bos, stops = plain_prompt(request["messages"]), True, ("\nuser:",)
        else:
            rendered = self._format(**request)
            stop = rendered.stop or ()
            text, add_bos = rendered.prompt, not rendered.added_special
            stops = (stop,) if isinstance(stop, str) else tuple(stop)
        with self._lock:
            tokens = list(self._llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))
        return tokens, stops

    def generate(
        self, conversations: Sequence[Conversation], sampling: Sampling,
        tools: ToolsPerConversation | None = None,
    ) -> list[Completion]:
        """One completion per conversation, in order, decoded together.

        A conversation whose prompt alone does not fit ``n_ctx`` gets an empty completion whose
        ``finish_reason`` is ``CONTEXT_OVERFLOW``; the others complete.

        Raises:
            PolicyError: llama.cpp failed, or the policy has no decoder.
        """
        if self.scheduler is None:
            raise PolicyError(f"{self.name} was built without a decoder; build it with EmbeddedPolicy(model)")
        per = tools_per_conversation(tools, len(conversations))
        requests = [self._sequence(c, sampling.for_item(i), per[i], i) for i, c in enumerate(conversations)]
        with self._lock:
            results = self.scheduler.run(requests)
        return [completion(result) for result in results]

    def _sequence(self, conversation: Conversation, sampling: Sampling, tools: Tools | None,
                  index: int) -> SequenceRequest:
        tokens, stops = self.prompt_tokens(conversation, tools)
        seed = sampling.seed if sampling.seed is not None else self._seed + index
        return SequenceRequest(prompt=tuple(tokens), max_tokens=sampling.max_tokens,
                               temperature=sampling.temperature, top_p=sampling.top_p, seed=seed,
                               stop=(*sampling.stop, *stops))

    def generate_one(
        self, conversation: Conversation, sampling: Sampling, tools: Tools | None = None
    ) -> Completion:
        """One completion; ``tools``: the tools the conversation may call.

        Raises:
            ContextOverflow: the conversation alone fills the context window.
            PolicyError: llama.cpp failed.
        """
        [answer] = self.generate([conversation], sampling, [tools] if tools else None)
        if answer.finish_reason == CONTEXT_OVERFLOW:
            raise ContextOverflow(f"the conversation ({answer.prompt_tokens} tokens) does not fit the "
                                  f"context window of {self.name} ({self.n_ctx} tokens); shorten it or raise "
                                  "n_ctx")
        return answer

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        """The model's tokens for ``text`` (no beginning-of-sequence token).

        Args:
            special: read special-token text such as ``<|im_end|>`` as those tokens.
        """
        with self._lock:
            return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=special))

    def count_tokens(self, messages: Conversation, tools: Tools | None = None) -> int:
        """Prompt tokens of ``messages`` (and ``tools``) as ``generate`` sends them (chat template
        included)."""
        return len(self.prompt_tokens(messages, tools)[0])

    def load_adapter(self, path: Path | None, scale: float = 1.0) -> None:
        """Serve the base model with the GGUF LoRA adapter at ``path`` from now on (None: none).

        The adapter replaces the previous one in place (the base weights stay loaded), and every
        held or saved state is dropped so no reply mixes old and new weights.

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
            for context in self._contexts():
                if llama_cpp.llama_set_adapters_lora(context, adapters, 1 if new else 0, scales):
                    raise PolicyError(f"llama.cpp could not apply the LoRA adapter {path}")
            if self._adapter:
                llama_cpp.llama_adapter_lora_free(self._adapter)
            self._adapter, self.adapter_path = new, path
            self._llm.reset()
            if self.scheduler is not None:
                self.scheduler.forget_all()  # states computed with the old weights must not be reused

    def _contexts(self) -> list[Any]:
        """The llama.cpp contexts an adapter is set on: the loaded model's, and the decoder's when it
        is llama.cpp's own (a test's fake decoder has none)."""
        from spadework.policy.llama_batch import LlamaBatchDecoder

        decoder = [self.decoder.context] if isinstance(self.decoder, LlamaBatchDecoder) else []
        return [self._llm._ctx.ctx, *decoder]

    def close(self) -> None:
        """Free the model's memory; the policy cannot generate afterwards."""
        with self._lock:
            close_decoder = getattr(self.decoder, "close", None)
            if close_decoder is not None:
                close_decoder()
            close = getattr(self._llm, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> EmbeddedPolicy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
