"""LlamaBatchDecoder: the ``batching.Decoder`` over llama.cpp's low-level API.

KV cache layout: one llama.cpp context of ``slots`` sequences, each with a KV stream of its own of
``n_ctx`` cells (llama.cpp's non-unified cache: a token attends to its own sequence's cells only,
so attention costs what one sequence costs, not the whole batch's). Its memory is
``slots × n_ctx × kv_bytes_per_token`` (28 KiB a token for the 1.5B in f16: 1.75 GiB for 16
sequences of 4,096); when that exceeds ``kv_cache_mb`` the decoder holds fewer sequences (a
smaller batch, said once on stderr), never fewer than one. Each step is one ``llama_decode``.

Sampling is per sequence: a sampler chain of its own, seeded with the sequence's seed, with the
settings of llama-cpp-python's chat completion (repeat penalty 1.1 over the last 64 tokens,
top-k 40, top-p, min-p 0.05, temperature; greedy at temperature 0), so a sequence's samples do not
depend on what else shares the batch, up to the last bits of the batched matrix products.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Sequence
from typing import Any

from spadework.errors import PolicyError
from spadework.policy.batching import SequenceRequest

REPEAT_PENALTY = 1.1
REPEAT_LAST_N = 64
TOP_K = 40
MIN_P = 0.05
PIECE_BYTES = 256


def kv_bytes_per_token(n_layer: int, n_embd: int, n_head: int, n_head_kv: int, element_bytes: int = 2) -> int:
    """Bytes of K and V cache one token takes in every layer (f16 elements by default).

    >>> kv_bytes_per_token(28, 1536, 12, 2)  # Qwen2.5-1.5B: 28 KiB
    28672
    """
    return 2 * n_layer * (n_embd // n_head) * n_head_kv * element_bytes


def slots_that_fit(parallel: int, n_ctx: int, per_token: int, budget_bytes: int) -> int:
    """How many sequences of ``n_ctx`` tokens the KV budget holds, at most ``parallel``, at least one.

    >>> slots_that_fit(16, 4096, 28672, 4 << 30), slots_that_fit(16, 32768, 28672, 4 << 30)
    (16, 4)
    """
    return max(1, min(parallel, budget_bytes // max(1, n_ctx * per_token)))


class LlamaBatchDecoder:
    """Many sequences of a loaded ``llama_cpp.Llama``'s model in one context of their own.

    Args:
        llm: the loaded model (its weights are shared, its own context is not used).
        n_ctx: tokens per sequence, prompt and reply.
        parallel: sequences decoded together.
        n_batch: most tokens in one decode call (prompt chunks and generated tokens together).
        n_threads: CPU threads.
        kv_cache_mb: most memory for the KV cache; fewer sequences are held when they do not fit.

    Raises:
        PolicyError: llama.cpp could not make the context (the message says what to lower).
    """

    def __init__(self, llm: Any, *, n_ctx: int, parallel: int, n_batch: int, n_threads: int,
                 kv_cache_mb: int):
        import llama_cpp

        self._lib = llama_cpp
        model = llm._model.model
        per_token = kv_bytes_per_token(
            llama_cpp.llama_model_n_layer(model), llama_cpp.llama_model_n_embd(model),
            llama_cpp.llama_model_n_head(model), llama_cpp.llama_model_n_head_kv(model))
        self.slots = slots_that_fit(parallel, n_ctx, per_token, kv_cache_mb << 20)
        if self.slots < parallel:
            print(f"spadework: {parallel} sequences of {n_ctx} tokens need "
                  f"{parallel * n_ctx * per_token >> 20} MB of KV cache, more than policy.kv_cache_mb "
                  f"({kv_cache_mb}); decoding {self.slots} at a time", file=sys.stderr)
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx * self.slots
        params.n_batch = params.n_ubatch = n_batch + self.slots
        params.n_seq_max = self.slots
        params.n_outputs_max = self.slots
        params.n_threads = params.n_threads_batch = n_threads
        params.kv_unified = False
        params.no_perf = True
        self._ctx = llama_cpp.llama_init_from_model(model, params)
        if not self._ctx:
            raise PolicyError(f"llama.cpp could not make a context of {self.slots} sequences x {n_ctx} "
                              "tokens; lower policy.parallel or policy.n_ctx")
        self.n_ctx = int(llama_cpp.llama_n_ctx_seq(self._ctx))
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self._vocab = llama_cpp.llama_model_get_vocab(model)
        self._n_vocab = llama_cpp.llama_vocab_n_tokens(self._vocab)
        self._capacity = n_batch + self.slots
        self._batch = llama_cpp.llama_batch_init(self._capacity, 0, 1)
        self._piece = ctypes.create_string_buffer(PIECE_BYTES)

    @property
    def context(self) -> Any:
        """The llama.cpp context (adapters are set on it)."""
        return self._ctx

    def decode(self, entries: Sequence[tuple[int, int, int, bool]]) -> None:
        """One ``llama_decode`` of ``(slot, token, position, wants_logits)`` entries.

        Raises:
            PolicyError: llama.cpp refused the batch.
        """
        if len(entries) > self._capacity:
            raise PolicyError(f"a batch of {len(entries)} tokens exceeds the decoder's {self._capacity}")
        batch = self._batch
        for i, (slot, token, position, wants_logits) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = position
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = slot
            batch.logits[i] = wants_logits
        batch.n_tokens = len(entries)
        code = self._lib.llama_decode(self._ctx, batch)
        if code != 0:
            raise PolicyError(f"llama_decode returned {code} for a batch of {len(entries)} tokens; lower "
                              "policy.parallel or policy.n_ctx if memory is short")

    def new_sampler(self, request: SequenceRequest) -> Any:
        """A sampler chain of the request's own, seeded with its seed."""
        lib = self._lib
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        add = lib.llama_sampler_chain_add
        add(chain, lib.llama_sampler_init_penalties(self._n_vocab, REPEAT_LAST_N, REPEAT_PENALTY, 0.0, 0.0))
        if request.temperature <= 0:
            add(chain, lib.llama_sampler_init_greedy())
            return chain
        add(chain, lib.llama_sampler_init_top_k(TOP_K))
        add(chain, lib.llama_sampler_init_top_p(request.top_p, 1))
        add(chain, lib.llama_sampler_init_min_p(MIN_P, 1))
        add(chain, lib.llama_sampler_init_temp(request.temperature))
        add(chain, lib.llama_sampler_init_dist(request.seed & 0xFFFFFFFF))
        return chain

    def free_sampler(self, sampler: Any) -> None:
        """Free a sampler chain made by ``new_sampler``."""
        self._lib.llama_sampler_free(sampler)

    def sample(self, sampler: Any, index: int) -> int:
        """A token from the logits of the ``index``-th entry of the last batch (the sampler keeps it)."""
        return int(self._lib.llama_sampler_sample(sampler, self._ctx, index))

    def is_end(self, token: int) -> bool:
        """Whether the token ends generation (the model's end-of-generation tokens)."""
        return bool(self._lib.llama_vocab_is_eog(self._vocab, token))

    def piece(self, token: int) -> bytes:
        """The token's text bytes (special tokens as nothing)."""
        size = self._lib.llama_token_to_piece(self._vocab, token, self._piece, PIECE_BYTES, 0, False)
        return self._piece.raw[:max(0, size)]

    def forget(self, slot: int, start: int) -> None:
        """Drop the slot's cells from position ``start`` on."""
        self._lib.llama_memory_seq_rm(self._memory, slot, start, -1)

    def save(self, slot: int) -> Any:
        """A copy of the slot's sequence state (its cells only)."""
        size = self._lib.llama_state_seq_get_size(self._ctx, slot)
        state = (ctypes.c_uint8 * size)()
        if self._lib.llama_state_seq_get_data(self._ctx, state, size, slot) != size:
            raise PolicyError(f"llama.cpp could not copy the state of sequence {slot}")
        return state

    def restore(self, slot: int, state: Any) -> None:
        """Make the slot hold a saved state (what it held before is dropped)."""
        if not self._lib.llama_state_seq_set_data(self._ctx, state, len(state), slot):
            raise PolicyError(f"llama.cpp could not load a saved state into sequence {slot}")

    def state_size(self, state: Any) -> int:
        """The size of a saved state in bytes."""
        return len(state)

    def close(self) -> None:
        """Free the context and the batch (safe to call twice)."""
        if self._ctx:
            self._lib.llama_batch_free(self._batch)
            self._lib.llama_free(self._ctx)
            self._ctx = None
