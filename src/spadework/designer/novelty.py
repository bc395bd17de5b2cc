"""Near-duplicate rejection: MinHash over the tokens of normalised environment source.

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
Mersenne prime; never Python's salted ``hash()``), so indexes built in different runs agree.
"""

from __future__ import annotations

import ast
import hashlib
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from spadework.archive import EnvRecord, content_hash, normalise_source
from spadework.designer.prompts import DesignForm, default_example
from spadework.envs.examples import example_paths
from spadework.errors import CheckFailed
from spadework.sandbox.loader import bound_names
from spadework.validate.checks import CHECKS, Check, CheckContext

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


def own_names(code: str) -> frozenset[str]:
    """The names a module binds itself (not imports, not the contract's names).

    Code that does not parse binds nothing here.

    >>> sorted(own_names("import random\\nLOW = 1\\nclass AEnv:\\n    def f(self, x):\\n        self.k = x"))
    ['AEnv', 'LOW', 'f', 'k', 'x']
    >>> own_names("def broken(:")
    frozenset()
    """
    try:
        tree = ast.parse(code)
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


def _family(num_perm: int) -> tuple[tuple[int, int], ...]:
    rng = random.Random(FAMILY_SEED)
    return tuple((rng.randrange(1, MERSENNE), rng.randrange(0, MERSENNE)) for _ in range(num_perm))


def signature(code: str, *, num_perm: int = 128, shingle: int = 5) -> tuple[int, ...]:
    """The MinHash signature of ``code``: one minimum per permutation.

    >>> signature("x = 1", num_perm=4) == signature("y  =  1  # renamed", num_perm=4)
    True
    >>> len(signature("x = 1", num_perm=16))
    16
    """
    hashed = [_base_hash(s) for s in shingles(tokens(code), shingle)]
    return tuple(min((a * h + b) % MERSENNE for h in hashed) for a, b in _family(num_perm))


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


@dataclass(frozen=True)
class _Entry:
    env_id: int | str
    name: str | None
    signature: tuple[int, ...]
    size: int


class NoveltyIndex:
    """The environments seen so far, to find a new source's near-twin among them.

    Lookups scan every entry (a few microseconds each); exact copies (same content hash)
    are found at once.

    Args:
        threshold: the least estimated similarity that counts as a twin, in (0, 1].
        num_perm: permutations of the MinHash signature (more is more precise and slower).
        shingle: tokens per shingle.
    """

    def __init__(self, threshold: float = 0.85, num_perm: int = 128, shingle: int = 5):
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"NoveltyIndex threshold must be in (0, 1], got {threshold}")
        if num_perm < 1 or shingle < 1:
            raise ValueError(f"NoveltyIndex num_perm and shingle must be at least 1, "
                             f"got {num_perm} and {shingle}")
        self.threshold, self.num_perm, self.shingle = threshold, num_perm, shingle
        self._entries: dict[int | str, _Entry] = {}
        self._hashes: dict[str, int | str] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, env_id: object) -> bool:
        return env_id in self._entries

    def name(self, env_id: int | str) -> str | None:
        """The name given with ``env_id`` when it was added (a class name), if any."""
        return self._entries[env_id].name

    def signature(self, code: str) -> tuple[int, ...]:
        """``code``'s signature with this index's settings."""
        return signature(code, num_perm=self.num_perm, shingle=self.shingle)

    def size(self, code: str) -> int:
        """How many distinct shingles ``code`` has."""
        return len(shingles(tokens(code), self.shingle))

    def add(self, env_id: int | str, code: str, name: str | None = None) -> None:
        """Index ``code`` under ``env_id`` (replacing what that id held)."""
        self._entries[env_id] = _Entry(env_id, name, self.signature(code), self.size(code))
        self._hashes.setdefault(content_hash(code), env_id)

    def twin(self, code: str) -> tuple[int | str, float] | None:
        """The indexed environment most like ``code``, if it reaches the threshold.

        Returns:
            ``(env_id, similarity)``: similarity 1.0 for an exact copy (same content hash),
            else the estimated overlap with the most similar entry; ``None`` when nothing
            reaches the threshold.
        """
        exact = self._hashes.get(content_hash(code))
        if exact is not None and exact in self._entries:
            return exact, 1.0
        if not self._entries:
            return None
        mine, size = self.signature(code), self.size(code)
        scores = {e.env_id: overlap(similarity(mine, e.signature), size, e.size)
                  for e in self._entries.values()}
        best = max(scores, key=scores.__getitem__)
        return (best, scores[best]) if scores[best] >= self.threshold else None

    @classmethod
    def from_records(cls, records: Iterable[EnvRecord], threshold: float = 0.85,
                     num_perm: int = 128, shingle: int = 5) -> NoveltyIndex:
        """An index of the valid records (by archive id, else content hash), named by class."""
        index = cls(threshold, num_perm, shingle)
        for record in records:
            if record.valid:
                key = record.id if record.id is not None else record.content_hash
                index.add(key, record.source, record.class_name)
        return index


def run_index(records: Iterable[EnvRecord], threshold: float = 0.85) -> NoveltyIndex:
    """What a new design must not copy: the valid environments of ``records`` (an archive), the
    bundled example environments and the designer prompts' own examples."""
    index = NoveltyIndex.from_records(records, threshold=threshold)
    for path in example_paths():
        index.add(f"example:{path.stem}", path.read_text(encoding="utf-8"))
    for form in DesignForm:
        index.add(f"example:prompt-{form}", default_example(form))
    return index


def novel_check(index: NoveltyIndex) -> Check:
    """A validator check named ``novel``: the code must have no near-twin in ``index``.

    It reads ``ctx.code``, so it belongs after the ``parse`` check (and, for cheapness,
    after ``static``, before anything runs).
    """

    def check_novel(ctx: CheckContext) -> None:
        if ctx.code is None:
            raise CheckFailed("there is no code to compare; run the parse check first")
        found = index.twin(ctx.code)
        if found is None:
            return
        env_id, score = found
        name = index.name(env_id)
        called = f" ({name})" if name else ""
        raise CheckFailed(f"too similar to environment #{env_id}{called} (similarity {score:.2f}); "
                          "design a different game, not a variant of that one")

    return Check("novel", check_novel)


def checks_with_novelty(index: NoveltyIndex) -> tuple[Check, ...]:
    """The validator's checks with ``novel`` inserted right after ``static``."""
    at = next(i for i, check in enumerate(CHECKS) if check.name == "static") + 1
    return (*CHECKS[:at], novel_check(index), *CHECKS[at:])
