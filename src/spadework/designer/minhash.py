"""MinHash sketches of environment source: pure functions, no I/O.

Source is normalised first (``spadework.archive.normalise_source``: no comments, docstrings
or formatting), then cut into tokens. Library names, keywords, operators and string literals
are kept as they are; every number becomes one placeholder (the same game with other
constants is the same game); the names the module binds itself (its classes, functions, variables,
arguments and ``self`` attributes) all become one placeholder, so renaming a variable or a
constant does not make a copy look new. Overlapping runs of ``shingle`` tokens form a set,
and MinHash estimates the Jaccard similarity of two such sets. Two sources are compared by the
share of the smaller one's shingles found in the other (the overlap, estimated from the Jaccard
estimate and the two set sizes), so a copy padded with unused imports or extra methods is still
a copy.

Hashing is deterministic across processes (blake2b and a fixed affine family modulo a
Mersenne prime; never Python's salted ``hash()``), so sketches stored by one run are read by
another. The minima are computed with numpy in exact 64-bit arithmetic modulo ``2**61 - 1``: the
same numbers as ``(a * h + b) % MERSENNE`` in Python integers, about thirty times faster.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from spadework import pysyntax
from spadework.archive import normalise_source
from spadework.sandbox.loader import bound_names

MERSENNE = (1 << 61) - 1
"""The prime modulus of the permutation family."""

FAMILY_SEED = 20260819
"""Seed of the permutation parameters: fixed, so signatures are comparable across runs."""

PLACEHOLDER = "_v"
"""What every name the module binds itself becomes."""

NUMBER = "_n"
"""What every number literal becomes."""

CONTRACT_NAMES = frozenset({
    "self", "seed", "action", "max_turns", "rng", "turn", "over", "reset", "step", "solution",
    "hint", "new_episode", "apply", "TextEnv",
})
"""Names the contract fixes; they are kept, never replaced by the placeholder."""

TOKEN = re.compile(
    r"""(?P<string>[rbfuRBFU]{0,2}('''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))"""
    r"|(?P<number>\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?j?|\.\d+(?:[eE][+-]?\d+)?j?)"
    r"|(?P<name>[^\W\d]\w*)"
    r"|(?P<op>\*\*=?|//=?|->|:=|[<>=!]=|<<=?|>>=?|[-+*/%&|^@]=|\S)",
    re.DOTALL,
)
FIELD = re.compile(r"\{[^{}]*\}")
"""A replacement field of an f-string, whose names are renamed like code."""
NAME = re.compile(r"[^\W\d]\w*")

_LOW31, _LOW30 = np.uint64((1 << 31) - 1), np.uint64((1 << 30) - 1)
_P = np.uint64(MERSENNE)


def own_names(code: str) -> frozenset[str]:
    """The names a module binds itself (not imports, not the contract's names).

    Code that does not parse binds nothing here.

    >>> sorted(own_names("import random\\nLOW = 1\\nclass AEnv:\\n    def f(self, x):\\n        self.k = x"))
    ['AEnv', 'LOW', 'f', 'k', 'x']
    >>> own_names("def broken(:")
    frozenset()
    """
    try:
        tree = pysyntax.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    imported = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    attributes = {node.attr for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)}
    return frozenset((bound_names(tree) - imported | attributes) - CONTRACT_NAMES)


def tokens(code: str) -> list[str]:
    """The tokens of normalised ``code``: own names become ``_v``, numbers ``_n``.

    >>> tokens("LOW = 10  # the least\\nx = random.randint(LOW, 99)")
    ['_v', '=', '_n', '_v', '=', 'random', '.', 'randint', '(', '_v', ',', '_n', ')']
    >>> tokens("s = 'a b'") == tokens("t = 'a b'") != tokens("t = 'a c'")
    True
    >>> tokens("n = 1\\nm = f'{n} of {len(x)}'")[-1]
    "f'{_v} of {len(x)}'"
    """
    normalised = normalise_source(code)
    own = own_names(normalised)
    out = []
    for match in TOKEN.finditer(normalised):
        text, kind = match.group(0), match.lastgroup
        if kind == "name" and text in own:
            text = PLACEHOLDER
        elif kind == "number":
            text = NUMBER
        elif kind == "string" and "f" in text[:2].lower():
            text = FIELD.sub(lambda field: _rename(field.group(0), own), text)
        out.append(text)
    return out


def _rename(text: str, own: frozenset[str]) -> str:
    return NAME.sub(lambda name: PLACEHOLDER if name.group(0) in own else name.group(0), text)


def shingles(items: list[str], size: int) -> set[str]:
    """The set of runs of ``size`` consecutive tokens (the whole list when it is shorter).

    >>> sorted(shingles(["a", "b", "c"], 2))
    ['a\\x1fb', 'b\\x1fc']
    >>> shingles([], 3)
    {''}
    """
    if len(items) <= size:
        return {"\x1f".join(items)}
    return {"\x1f".join(items[i:i + size]) for i in range(len(items) - size + 1)}


def _base_hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest())


@lru_cache(maxsize=8)
def _family(num_perm: int) -> tuple[tuple[int, int], ...]:
    rng = random.Random(FAMILY_SEED)
    return tuple((rng.randrange(1, MERSENNE), rng.randrange(0, MERSENNE)) for _ in range(num_perm))


@lru_cache(maxsize=8)
def _family_arrays(num_perm: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The family's ``a`` split in 31-bit halves and ``b``, as columns for broadcasting."""
    a = np.array([p[0] for p in _family(num_perm)], dtype=np.uint64)[:, None]
    b = np.array([p[1] for p in _family(num_perm)], dtype=np.uint64)[:, None]
    return a >> np.uint64(31), a & _LOW31, b


def _mod_mersenne(x: np.ndarray) -> np.ndarray:
    """``x mod (2**61 - 1)`` for any uint64 ``x`` (two folds and one subtraction)."""
    x = (x & _P) + (x >> np.uint64(61))
    x = (x & _P) + (x >> np.uint64(61))
    return np.where(x >= _P, x - _P, x)


def minima(hashed: np.ndarray, num_perm: int) -> np.ndarray:
    """``min over h of (a * h + b) mod (2**61 - 1)`` for each of the family's ``(a, b)``, exactly.

    With ``a = a1 2^31 + a0`` and ``h = h1 2^31 + h0`` (h first reduced below the prime), every
    partial product fits in 64 bits, and ``2^61 = 1`` modulo the prime folds the high parts down.

    >>> hashed = [_base_hash(w) for w in ("a", "b", "c")]
    >>> family = _family(4)
    >>> [min((a * h + b) % MERSENNE for h in hashed) for a, b in family] == \\
    ...     minima(np.array(hashed, dtype=np.uint64), 4).tolist()
    True
    """
    a1, a0, b = _family_arrays(num_perm)
    h = _mod_mersenne(np.asarray(hashed, dtype=np.uint64))[None, :]
    h1, h0 = h >> np.uint64(31), h & _LOW31
    middle = a1 * h0 + a0 * h1  # < 2^62
    total = (np.uint64(2) * (a1 * h1) + (middle >> np.uint64(30)) + ((middle & _LOW30) << np.uint64(31))
             + a0 * h0)  # < 2^63
    total = _mod_mersenne(total) + b  # < 2^62
    return _mod_mersenne(total).min(axis=1)


@dataclass(frozen=True)
class Sketch:
    """What near-duplicate search keeps of one source: its MinHash signature and shingle count."""

    signature: tuple[int, ...]
    size: int

    def to_bytes(self) -> bytes:
        """The signature as little-endian unsigned 64-bit numbers (how the archive stores it).

        >>> s = Sketch((1, 2**61 - 2), 5)
        >>> Sketch.from_bytes(s.to_bytes(), 5) == s
        True
        """
        return np.asarray(self.signature, dtype="<u8").tobytes()

    @classmethod
    def from_bytes(cls, data: bytes, size: int) -> Sketch:
        """The sketch of a signature stored by ``to_bytes``, with its shingle count."""
        return cls(tuple(int(v) for v in np.frombuffer(data, dtype="<u8")), size)


def sketch(code: str, *, num_perm: int = 128, shingle: int = 5) -> Sketch:
    """``code``'s signature and its number of distinct shingles, from one tokenisation.

    >>> s = sketch("x = 1\\ny = x + 2", num_perm=8)
    >>> len(s.signature), s.size
    (8, 4)
    """
    found = shingles(tokens(code), shingle)
    hashed = np.fromiter((_base_hash(s) for s in found), dtype=np.uint64, count=len(found))
    return Sketch(tuple(int(v) for v in minima(hashed, num_perm)), len(found))


def signature(code: str, *, num_perm: int = 128, shingle: int = 5) -> tuple[int, ...]:
    """The MinHash signature of ``code``: one minimum per permutation.

    >>> signature("x = 1", num_perm=4) == signature("y  =  1  # renamed", num_perm=4)
    True
    >>> len(signature("x = 1", num_perm=16))
    16
    """
    return sketch(code, num_perm=num_perm, shingle=shingle).signature


def similarity(first: tuple[int, ...], second: tuple[int, ...]) -> float:
    """The estimated Jaccard similarity of two signatures: the share of equal minima.

    >>> similarity((1, 2, 3, 4), (1, 2, 0, 0))
    0.5
    """
    if len(first) != len(second) or not first:
        raise ValueError("signatures differ in length; build both with the same num_perm")
    return sum(a == b for a, b in zip(first, second, strict=True)) / len(first)


def overlap(jaccard: float, size: int, other_size: int) -> float:
    """The share of the smaller set inside the larger, from their Jaccard similarity and sizes.

    ``|A ∩ B| = J (|A| + |B|) / (1 + J)``, divided by ``min(|A|, |B|)`` and capped at 1.

    >>> overlap(0.5, 100, 200)  # A inside B: |A ∩ B| = 100
    1.0
    >>> round(overlap(0.82, 165, 159), 3)  # a copy with a few extra lines
    0.918
    >>> overlap(0.0, 10, 10)
    0.0
    """
    common = jaccard * (size + other_size) / (1.0 + jaccard)
    return min(1.0, common / max(1, min(size, other_size)))


def overlaps(jaccards: np.ndarray, size: int, other_sizes: np.ndarray) -> np.ndarray:
    """``overlap`` of one set with many (element-wise, the same arithmetic).

    >>> overlaps(np.array([0.5, 0.82, 0.0]), 165, np.array([330, 159, 10])).round(3).tolist()
    [1.0, 0.918, 0.0]
    """
    common = jaccards * (size + other_sizes) / (1.0 + jaccards)
    return np.minimum(1.0, common / np.maximum(1, np.minimum(size, other_sizes)))
