"""Keyed pseudo-random permutations of ``range(n)`` in constant memory.

A balanced Feistel network over the smallest even number of bits that covers ``n``,
with a keyed hash as round function; values that land outside ``range(n)`` are mapped
again until they land inside ("cycle walking"), which keeps it a bijection of ``range(n)``.
Both directions cost a few hashes, whatever ``n`` is, so a sampler can walk a shuffled
order of a billion documents without storing it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

ROUNDS = 6
"""Feistel rounds; six mix well enough for sampling (this is not cryptography)."""


def _half_bits(n: int) -> int:
    bits = max(2, (n - 1).bit_length())
    return (bits + 1) // 2


@dataclass(frozen=True)
class Permutation:
    """A bijection of ``range(n)`` chosen by ``key``.

    Attributes:
        n: the size of the domain, at least 1.
        key: any bytes; different keys give unrelated permutations.

    Examples:
        >>> p = Permutation(10, b"epoch-0")
        >>> sorted(p(i) for i in range(10)) == list(range(10))
        True
        >>> all(p.inverse(p(i)) == i for i in range(10))
        True
        >>> [p(i) for i in range(10)] == [Permutation(10, b"epoch-1")(i) for i in range(10)]
        False
    """

    n: int
    key: bytes

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"a permutation needs n >= 1, got {self.n}")

    def _round(self, r: int, value: int, mask: int) -> int:
        data = value.to_bytes(8, "big") + bytes([r])
        digest = hashlib.blake2b(data, key=self.key[:64], digest_size=8).digest()
        return int.from_bytes(digest, "big") & mask

    def _forward(self, x: int) -> int:
        half = _half_bits(self.n)
        mask = (1 << half) - 1
        left, right = x >> half, x & mask
        for r in range(ROUNDS):
            left, right = right, left ^ self._round(r, right, mask)
        return (left << half) | right

    def _backward(self, y: int) -> int:
        half = _half_bits(self.n)
        mask = (1 << half) - 1
        left, right = y >> half, y & mask
        for r in reversed(range(ROUNDS)):
            left, right = right ^ self._round(r, left, mask), left
        return (left << half) | right

    def __call__(self, i: int) -> int:
        """Return the image of ``i`` (``0 <= i < n``)."""
        if not 0 <= i < self.n:
            raise IndexError(f"{i} is outside range({self.n})")
        y = self._forward(i)
        while y >= self.n:
            y = self._forward(y)
        return y

    def inverse(self, j: int) -> int:
        """Return the ``i`` with ``self(i) == j``."""
        if not 0 <= j < self.n:
            raise IndexError(f"{j} is outside range({self.n})")
        x = self._backward(j)
        while x >= self.n:
            x = self._backward(x)
        return x
