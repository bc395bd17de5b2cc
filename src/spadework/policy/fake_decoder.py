"""FakeDecoder: a FAKE ``batching.Decoder`` for tests of the scheduler and the embedded policy.

It checks every batch as llama.cpp would see it (entries in slot order, each position right after
what its slot holds) and counts passes over the weights the way llama.cpp groups a non-unified
cache's sequences (one per run of consecutive slots).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spadework.policy.batching import SequenceRequest

END = 0
TOP = 100


class FakeDecoder:
    """FAKE decoder: a "model" that counts up from the last token it holds (greedy), or by two
    for an odd seed at temperature > 0, and ends at ``TOP``. Its states are token lists."""

    def __init__(self, slots: int = 4, n_ctx: int = 512, interrupt_at: int | None = None):
        self.slots, self.n_ctx = slots, n_ctx
        self.held: list[list[int]] = [[] for _ in range(slots)]
        self.batches: list[list[tuple[int, int, int, bool]]] = []
        self.passes = 0
        self.interrupt_at = interrupt_at
        self.live_samplers = 0
        self.requests: list[SequenceRequest] = []

    def decode(self, entries: Sequence[tuple[int, int, int, bool]]) -> None:
        """Record the batch and hold its tokens (``KeyboardInterrupt`` at ``interrupt_at``)."""
        if self.interrupt_at is not None and len(self.batches) == self.interrupt_at:
            self.interrupt_at = None
            raise KeyboardInterrupt
        slots = [slot for slot, *_ in entries]
        assert slots == sorted(slots), "entries come in slot order"
        runs = sorted(set(slots))
        self.passes += 1 + sum(b != a + 1 for a, b in zip(runs, runs[1:], strict=False))
        for slot, token, position, _ in entries:
            assert position == len(self.held[slot]), f"slot {slot}: position {position} after " \
                f"{len(self.held[slot])}"
            self.held[slot].append(token)
        self.batches.append(list(entries))

    def new_sampler(self, request: SequenceRequest) -> dict[str, Any]:
        """A scripted sampler: a step of 2 for sampled odd seeds, else 1."""
        self.live_samplers += 1
        self.requests.append(request)
        return {"step": 2 if request.temperature > 0 and request.seed % 2 else 1}

    def free_sampler(self, sampler):
        """Count the sampler as freed."""
        self.live_samplers -= 1

    def sample(self, sampler, index):
        """The entry's last token plus the sampler's step, or the end token at the top."""
        slot = self.batches[-1][index][0]
        token = self.held[slot][-1] + sampler["step"]
        return END if token >= TOP else token

    def is_end(self, token):
        """Whether the token is the end token."""
        return token == END

    def piece(self, token):
        """The token's number and a space, as bytes."""
        return f"{token} ".encode()

    def forget(self, slot, start):
        """Drop the slot's tokens from ``start`` on."""
        del self.held[slot][start:]

    def save(self, slot):
        """A copy of the slot's tokens."""
        return list(self.held[slot])

    def restore(self, slot, state):
        """Make the slot hold the saved tokens (an empty state leaves it as it is)."""
        if state:  # as llama.cpp: an empty state leaves what the slot held
            self.held[slot] = list(state)

    def state_size(self, state):
        """Eight bytes per saved token."""
        return 8 * len(state)


