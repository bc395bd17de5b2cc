"""Continuous batching over a decoder that advances many sequences per call, with shared prefixes.

The embedded engine's scheduler, written against a small ``Decoder`` protocol so it runs the same
over llama.cpp (``policy.llama_batch``) and over the FAKE decoder of the tests.

Slots. The decoder holds ``slots`` sequences at once, each in a KV store of its own of ``n_ctx``
positions. A request waits until a slot is free; a sequence that ends (an end-of-turn token, a
stop string, ``max_tokens``, a full context) frees its slot at once and the next waiting request
takes it.

A step. Each step is one ``Decoder.decode`` call carrying, in slot order, the last sampled token of
every generating sequence and a chunk of the prompt of every sequence still reading its prompt (at
most ``prefill_chunk`` prompt tokens a step in all). The busy slots are kept consecutive, because
llama.cpp groups consecutive sequences into one pass over the weights (a sequence that ends while
nothing waits hands its slot to the last busy sequence, moved by a state copy).

Shared prefixes. Each slot remembers the tokens its KV holds. A new request starts from the longest
prefix it shares with any slot (busy or free) or with a state saved in the prompt cache: that state
is copied into the request's slot and cut after the shared part, so only the rest is computed. A
request whose prefix another request is still reading waits for it (the two arms of a paired play,
a batch of designs with the same instructions), instead of computing the same prefix beside it.
A free slot's state goes to the prompt cache (least recently used dropped first, ``cache_bytes``)
before another sequence takes the slot, so every episode's next turn finds its transcript.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

MIN_SHARED = 16
"""A shared prefix shorter than this is computed again rather than copied."""
MIN_SAVED = 16
"""A slot's state shorter than this is not worth a place in the prompt cache."""
WAIT_GAIN = 32
"""A request waits for another's prompt only when that saves at least this many tokens."""


def common_prefix(first: Sequence[int], second: Sequence[int]) -> int:
    """How many tokens two token lists share from their start (slices compared in C, halving).

    >>> common_prefix([1, 2, 3, 4], [1, 2, 5]), common_prefix([], [1]), common_prefix((7, 8), [7, 8, 9])
    (2, 0, 2)
    """
    first, second = list(first), list(second)
    low, high = 0, min(len(first), len(second))
    if first[:high] == second[:high]:
        return high
    while low + 1 < high:  # first[:low] == second[:low] and first[:high] != second[:high]
        middle = (low + high) // 2
        if first[:middle] == second[:middle]:
            low = middle
        else:
            high = middle
    return low


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """``text`` up to the first stop string in it, and whether one was found.

    >>> cut_at_stop("a = 1\\nEND here", ("END",)), cut_at_stop("abc", ("x", ""))
    (('a = 1\\n', True), ('abc', False))
    """
    ends = [at for at in (text.find(stop) for stop in stops if stop) if at >= 0]
    return (text[:min(ends)], True) if ends else (text, False)


class FinishReason(StrEnum):
    """Why a sequence ended. ``CONTEXT``: its prompt alone does not fit a sequence's context (it
    was not run; the text is empty)."""

    STOP = "stop"
    LENGTH = "length"
    CONTEXT = "context"


@dataclass(frozen=True)
class SequenceRequest:
    """One sequence to generate: its prompt tokens and its own sampling.

    Attributes:
        prompt: the rendered prompt's tokens.
        max_tokens: most new tokens.
        temperature: 0 is greedy.
        top_p: nucleus mass.
        seed: this sequence's sampling seed (its samples do not depend on what shares the batch).
        stop: strings that end the reply (the text ends before the first of them).
    """

    prompt: tuple[int, ...]
    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    stop: tuple[str, ...] = ()


@dataclass(frozen=True)
class SequenceResult:
    """One finished sequence. ``cached_tokens``: prompt tokens taken from a held or saved state."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    finish_reason: FinishReason
    seconds: float


@dataclass
class BatchStats:
    """What the scheduler did, summed over its life (for benchmarks and tests)."""

    steps: int = 0
    prompt_tokens: int = 0
    prefilled_tokens: int = 0
    generated_tokens: int = 0
    copies: int = 0
    moves: int = 0
    largest_batch: int = 0


class Decoder(Protocol):
    """What the scheduler needs of an engine (``LlamaBatchDecoder``, or the tests' FAKE).

    ``decode`` runs one batch: entries ``(slot, token, position, wants_logits)`` in slot order;
    ``sample`` draws from the logits of the ``index``-th entry of the last batch.
    """

    slots: int
    n_ctx: int

    def decode(self, entries: Sequence[tuple[int, int, int, bool]]) -> None:
        """Decode one batch of ``(slot, token, position, wants_logits)`` entries."""

    def new_sampler(self, request: SequenceRequest) -> Any:
        """A sampler of the request's own (its temperature and seed)."""

    def free_sampler(self, sampler: Any) -> None:
        """Free a sampler made by ``new_sampler``."""

    def sample(self, sampler: Any, index: int) -> int:
        """A token drawn from the logits of the ``index``-th entry of the last batch."""

    def is_end(self, token: int) -> bool:
        """Whether the token ends generation."""

    def piece(self, token: int) -> bytes:
        """The token's text bytes."""

    def forget(self, slot: int, start: int) -> None:
        """Drop the slot's cells from position ``start`` on."""

    def save(self, slot: int) -> Any:
        """A copy of the slot's state."""

    def restore(self, slot: int, state: Any) -> None:
        """Make the slot hold a saved state."""

    def state_size(self, state: Any) -> int:
        """The size of a saved state in bytes."""


@dataclass
class _Job:
    number: int
    request: SequenceRequest
    sampler: Any
    started: float
    cached: int
    generated: list[int] = field(default_factory=list)
    text: bytearray = field(default_factory=bytearray)
    pending: int | None = None
    """The sampled token not yet decoded (None while the prompt is being read)."""


@dataclass
class _Slot:
    index: int
    tokens: list[int] = field(default_factory=list)
    """The tokens whose KV the slot holds, at positions 0, 1, ..."""
    job: _Job | None = None


class BatchScheduler:
    """Runs requests through a ``Decoder`` with continuous batching and shared prefixes.

    Args:
        decoder: the engine.
        prefill_chunk: most prompt tokens read in one step (in all sequences together).
        cache_bytes: memory for saved sequence states (0: none; free slots still keep theirs).
    """

    def __init__(self, decoder: Decoder, *, prefill_chunk: int = 512, cache_bytes: int = 0):
        self.decoder = decoder
        self.prefill_chunk = prefill_chunk
        self.cache_bytes = cache_bytes
        self.slots = [_Slot(i) for i in range(decoder.slots)]
        self.cache: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self.cache_used = 0
        self.stats = BatchStats()

    def run(self, requests: Sequence[SequenceRequest]) -> list[SequenceResult]:
        """One result per request, in order. An interruption (Ctrl-C, an engine failure) leaves
        the scheduler usable: unfinished sequences are dropped, every slot's record stays true."""
        results: list[SequenceResult | None] = [None] * len(requests)
        waiting = deque(range(len(requests)))
        try:
            while waiting or self._busy():
                self._admit(requests, waiting, results)
                self._compact()
                if self._busy():
                    self._step(results)
        finally:
            self._abandon()
        assert all(result is not None for result in results)
        return results  # type: ignore[return-value]

    def forget_all(self) -> None:
        """Drop every held and saved state (the weights changed)."""
        for slot in self.slots:
            self.decoder.forget(slot.index, 0)
            slot.tokens = []
        self.cache.clear()
        self.cache_used = 0

    # -- admission ---------------------------------------------------------------------------

    def _busy(self) -> list[_Slot]:
        return [slot for slot in self.slots if slot.job is not None]

    def _admit(self, requests: Sequence[SequenceRequest], waiting: deque[int],
               results: list[SequenceResult | None]) -> None:
        """Give free slots to waiting requests, in order; one whose prefix another is still
        reading waits for it."""
        deferred: list[int] = []
        while waiting and any(slot.job is None for slot in self.slots):
            number = waiting.popleft()
            request = requests[number]
            if not request.prompt or len(request.prompt) + 1 > self.decoder.n_ctx:
                reason = FinishReason.CONTEXT if request.prompt else FinishReason.STOP  # nothing to continue
                results[number] = SequenceResult("", len(request.prompt), 0, 0, reason, 0.0)
                continue
            source, shared = self._best_source(request.prompt)
            if self._reading_longer(request.prompt) > shared + WAIT_GAIN:
                deferred.append(number)
                continue
            self._start(number, request, source, shared)
        waiting.extendleft(reversed(deferred))

    def _best_source(self, prompt: tuple[int, ...]) -> tuple[_Slot | tuple[int, ...] | None, int]:
        """The slot or saved state sharing the longest prefix with ``prompt``, and that length
        (capped one short of the prompt: its last token is decoded again for its logits)."""
        best: _Slot | tuple[int, ...] | None = None
        length = 0
        for slot in self.slots:
            shared = common_prefix(slot.tokens, prompt)
            if shared > length or (shared == length and shared and slot.job is None):
                best, length = slot, shared
        for key in self.cache:
            shared = common_prefix(key, prompt)
            if shared > length:
                best, length = key, shared
        length = min(length, len(prompt) - 1)
        return (best, length) if length >= MIN_SHARED else (None, 0)

    def _reading_longer(self, prompt: tuple[int, ...]) -> int:
        """The longest prefix ``prompt`` shares with a prompt that is still being read."""
        return max((common_prefix(slot.job.request.prompt, prompt) for slot in self.slots
                    if slot.job is not None and slot.job.pending is None), default=0)

    def _start(self, number: int, request: SequenceRequest, source: _Slot | tuple[int, ...] | None,
               shared: int) -> None:
        """Put ``request`` in a free slot holding its first ``shared`` tokens."""
        if isinstance(source, _Slot) and source.job is None:
            slot = source
            if len(slot.tokens) - shared >= MIN_SAVED:  # what it held beyond the shared part is kept
                self._keep(slot)
        else:
            slot = next(s for s in self.slots if s.job is None)
            copied = self._fetch(source) if source is not None else (None, [])  # before _keep drops it
            self._keep(slot)
            self._load(slot, *copied)
            self.stats.copies += bool(copied[1])
        self.decoder.forget(slot.index, shared)
        slot.tokens = slot.tokens[:shared]
        slot.job = _Job(number, request, self.decoder.new_sampler(request), time.perf_counter(), shared)
        self.stats.prompt_tokens += len(request.prompt)

    def _fetch(self, source: _Slot | tuple[int, ...]) -> tuple[Any, list[int]]:
        """A copy of a slot's state, or a saved one (now the most recently used), with its tokens."""
        if isinstance(source, _Slot):
            return self.decoder.save(source.index), list(source.tokens)
        self.cache.move_to_end(source)
        return self.cache[source], list(source)

    def _load(self, slot: _Slot, state: Any, tokens: list[int]) -> None:
        """Make the slot hold ``state`` (whose tokens are ``tokens``; none: an empty slot)."""
        self.decoder.forget(slot.index, 0)  # loading an empty state leaves the old cells in llama.cpp
        if tokens:
            self.decoder.restore(slot.index, state)
        slot.tokens = tokens

    def _keep(self, slot: _Slot) -> None:
        """Save a free slot's state to the prompt cache before another sequence takes the slot."""
        key = tuple(slot.tokens)
        if not self.cache_bytes or len(key) < MIN_SAVED or key in self.cache:
            return
        state = self.decoder.save(slot.index)
        size = self.decoder.state_size(state)
        if size > self.cache_bytes:
            return
        while self.cache_used + size > self.cache_bytes:
            _, dropped = self.cache.popitem(last=False)
            self.cache_used -= self.decoder.state_size(dropped)
        self.cache[key] = state
        self.cache_used += size

    def _compact(self) -> None:
        """Move the last busy sequence into the first free slot below it until the busy slots are
        consecutive (llama.cpp decodes a run of consecutive sequences in one pass)."""
        while True:
            busy = self._busy()
            if not busy or busy[-1].index - busy[0].index + 1 == len(busy):
                return
            last = busy[-1]
            hole = next(s for s in self.slots[busy[0].index:last.index] if s.job is None)
            self._keep(hole)
            self._load(hole, *self._fetch(last))
            hole.job, last.job = last.job, None
            self.stats.moves += 1

    # -- a step ------------------------------------------------------------------------------

    def _step(self, results: list[SequenceResult | None]) -> None:
        """One decode call for every busy slot, then a sample for each sequence that needs one."""
        entries: list[tuple[int, int, int, bool]] = []
        budget = self.prefill_chunk
        for slot in self._busy():
            job = slot.job
            assert job is not None
            at = len(slot.tokens)
            if job.pending is not None:
                entries.append((slot.index, job.pending, at, True))
                continue
            prompt = job.request.prompt
            take = min(len(prompt) - at, budget)
            budget -= take
            entries.extend((slot.index, prompt[at + k], at + k, at + k == len(prompt) - 1)
                           for k in range(take))
        self.decoder.decode(entries)
        self.stats.steps += 1
        self.stats.largest_batch = max(self.stats.largest_batch, len(entries))
        for index, (slot_index, token, _, wants_logits) in enumerate(entries):
            slot = self.slots[slot_index]
            slot.tokens.append(token)
            job = slot.job
            assert job is not None
            if job.pending is None:
                self.stats.prefilled_tokens += 1
            if wants_logits:
                self._next_token(slot, job, index, results)

    def _next_token(self, slot: _Slot, job: _Job, index: int, results: list[SequenceResult | None]) -> None:
        """Sample the sequence's next token; end it when it is done."""
        token = self.decoder.sample(job.sampler, index)
        if self.decoder.is_end(token):
            self._finish(slot, FinishReason.STOP, results)
            return
        job.generated.append(token)
        job.text += self.decoder.piece(token)
        self.stats.generated_tokens += 1
        if job.request.stop and cut_at_stop(job.text.decode("utf-8", "ignore"), job.request.stop)[1]:
            self._finish(slot, FinishReason.STOP, results)
        elif len(job.generated) >= job.request.max_tokens or len(slot.tokens) + 1 >= self.decoder.n_ctx:
            self._finish(slot, FinishReason.LENGTH, results)
        else:
            job.pending = token

    def _finish(self, slot: _Slot, reason: FinishReason, results: list[SequenceResult | None]) -> None:
        job = slot.job
        assert job is not None
        text, _ = cut_at_stop(job.text.decode("utf-8", "replace"), job.request.stop)
        results[job.number] = SequenceResult(text, len(job.request.prompt), len(job.generated), job.cached,
                                             reason, time.perf_counter() - job.started)
        self.decoder.free_sampler(job.sampler)
        slot.job = None

    def _abandon(self) -> None:
        """Drop unfinished sequences (after an interruption); their slots keep what was decoded."""
        for slot in self._busy():
            assert slot.job is not None
            self.decoder.free_sampler(slot.job.sampler)
            slot.job = None
