"""Near-duplicate rejection: the index of environments a new design must not copy, and the
validator's ``novel`` check.

Sources are compared by MinHash sketches (``spadework.designer.minhash``): the estimated share
of the smaller source's shingles found in the other (the overlap), so renaming, retuning or
padding a copy does not make it new. Exact copies (same content hash) are found by hash. Near
twins are looked up through banded locality-sensitive hashing (``spadework.designer.lsh``): only
the candidates that share a band with the new source are scored, with the same estimate as a full
scan. Their number follows how many archived sources resemble the new one, not the archive's size
(in the benchmark's 100,000 synthetic environments, 2-20% of them; a lookup takes about 8 ms).
``NoveltyIndex.scan`` scores every entry (the reference the tests compare with).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from spadework.archive import EnvRecord, SketchRow, content_hash
from spadework.archive.side import Rows
from spadework.designer.lsh import BandIndex
from spadework.designer.minhash import (  # noqa: F401  (the module's public names, kept here too)
    Sketch,
    overlap,
    overlaps,
    shingles,
    signature,
    similarity,
    sketch,
    tokens,
)
from spadework.designer.prompts import DesignForm, default_example
from spadework.envs.examples import example_paths
from spadework.errors import CheckFailed
from spadework.validate.checks import CHECKS, Check, CheckContext

Key = int | str
_CACHE = 4096
"""Sketches of recent lookups kept by content hash (the loop stores the valid ones' at commit)."""


class NoveltyIndex:
    """The environments seen so far, to find a new source's near-twin among them.

    Args:
        threshold: the least estimated overlap that counts as a twin, in (0, 1].
        num_perm: permutations of the MinHash signature (more is more precise and slower).
        shingle: tokens per shingle.
        parent: an index this one extends (``overlay``): lookups see both, additions stay here.
    """

    def __init__(self, threshold: float = 0.85, num_perm: int = 128, shingle: int = 5,
                 parent: NoveltyIndex | None = None):
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"NoveltyIndex threshold must be in (0, 1], got {threshold}")
        if num_perm < 1 or shingle < 1:
            raise ValueError(f"NoveltyIndex num_perm and shingle must be at least 1, "
                             f"got {num_perm} and {shingle}")
        self.threshold, self.num_perm, self.shingle, self.parent = threshold, num_perm, shingle, parent
        self._keys: list[Key] = []
        self._names: list[str | None] = []
        self._alive = Rows(1, bool)
        self._signatures = Rows(num_perm, np.uint64)
        self._sizes = Rows(1, np.int64)
        self._bands = BandIndex(bands=min(42, num_perm // 3), rows=3) if num_perm >= 3 else None
        self._positions: dict[Key, int] = {}
        self._hashes: dict[str, Key] = {}
        self._sketches: dict[str, Sketch] = {}

    @property
    def scheme(self) -> str:
        """The name under which the archive stores this index's sketches."""
        return f"minhash-{self.num_perm}-{self.shingle}-v1"

    def __len__(self) -> int:
        return len(self._positions) + (len(self.parent) if self.parent is not None else 0)

    def __contains__(self, env_id: object) -> bool:
        return env_id in self._positions or (self.parent is not None and env_id in self.parent)

    def overlay(self) -> NoveltyIndex:
        """An index that sees this one and keeps its own additions (one iteration's designs)."""
        return NoveltyIndex(self.threshold, self.num_perm, self.shingle, parent=self)

    def name(self, env_id: Key) -> str | None:
        """The name given with ``env_id`` when it was added (a class name), if any."""
        if env_id in self._positions:
            return self._names[self._positions[env_id]]
        if self.parent is not None:
            return self.parent.name(env_id)
        raise KeyError(env_id)

    def sketch_of(self, code: str, chash: str | None = None) -> Sketch:
        """``code``'s sketch with this index's settings (remembered for a while by content hash)."""
        chash = chash or content_hash(code)
        found = self._cached(chash)
        if found is None:
            found = sketch(code, num_perm=self.num_perm, shingle=self.shingle)
            if len(self._sketches) >= _CACHE:
                self._sketches.pop(next(iter(self._sketches)))
            self._sketches[chash] = found
        return found

    def _cached(self, chash: str) -> Sketch | None:
        found = self._sketches.get(chash)
        return found if found is not None or self.parent is None else self.parent._cached(chash)

    def signature(self, code: str) -> tuple[int, ...]:
        """``code``'s signature with this index's settings."""
        return self.sketch_of(code).signature

    def size(self, code: str) -> int:
        """How many distinct shingles ``code`` has."""
        return self.sketch_of(code).size

    def add(self, env_id: Key, code: str, name: str | None = None) -> None:
        """Index ``code`` under ``env_id`` (replacing what that id held)."""
        chash = content_hash(code)
        self.add_sketch(env_id, self.sketch_of(code, chash), name, chash)

    def add_sketch(self, env_id: Key, found: Sketch, name: str | None, chash: str) -> None:
        """Index a sketch already made (e.g. stored in the archive) under ``env_id``."""
        self._append([env_id], [name], [chash], np.array([found.signature], dtype=np.uint64),
                     np.array([found.size]))

    def add_rows(self, rows: Iterable[SketchRow]) -> None:
        """Index the archive's stored sketches (``Archive.sketch_rows``) by record id, at once."""
        rows = list(rows)
        if rows:
            signatures = np.frombuffer(b"".join(r.signature for r in rows), dtype="<u8")
            self._append([r.id for r in rows], [r.class_name for r in rows], [r.content_hash for r in rows],
                         signatures.reshape(len(rows), self.num_perm).astype(np.uint64),
                         np.array([r.size for r in rows]))

    def _append(self, keys: list[Key], names: list[str | None], hashes: list[str], signatures: np.ndarray,
                sizes: np.ndarray) -> None:
        for key, chash in zip(keys, hashes, strict=True):
            if key in self._positions:
                self._alive.view[self._positions[key], 0] = False
            self._positions[key] = len(self._keys)
            self._keys.append(key)
            self._hashes.setdefault(chash, key)
        self._alive.append(np.ones(len(keys), dtype=bool))
        self._names += names
        self._signatures.append(signatures)
        self._sizes.append(sizes.reshape(-1, 1))
        if self._bands is not None:
            self._bands.add(signatures)

    def _exact(self, chash: str) -> Key | None:
        if self.parent is not None:
            found = self.parent._exact(chash)
            if found is not None:
                return found
        key = self._hashes.get(chash)
        return key if key is not None and key in self._positions else None

    def _best(self, found: Sketch, everything: bool) -> tuple[Key, float] | None:
        """The best-scoring entry (the earliest of equals): among the band candidates, or all."""
        best = self.parent._best(found, everything) if self.parent is not None else None
        if not self._keys:
            return best
        if everything or self._bands is None:
            positions = np.arange(len(self._keys))
        else:
            positions = self._bands.candidates(np.array(found.signature, dtype=np.uint64))
        positions = positions[self._alive.view[positions, 0]]
        if not len(positions):
            return best
        mine = np.array(found.signature, dtype=np.uint64)
        jaccards = (self._signatures.view[positions] == mine).sum(axis=1) / self.num_perm
        scores = overlaps(jaccards, found.size, self._sizes.view[positions, 0])
        top = int(np.argmax(scores))
        if best is not None and best[1] >= scores[top]:
            return best
        return self._keys[positions[top]], float(scores[top])

    def twin(self, code: str) -> tuple[Key, float] | None:
        """The indexed environment most like ``code``, if it reaches the threshold.

        Returns:
            ``(env_id, similarity)``: similarity 1.0 for an exact copy (same content hash),
            else the estimated overlap with the most similar candidate; ``None`` when nothing
            reaches the threshold.
        """
        return self._lookup(code, everything=False)

    def scan(self, code: str) -> tuple[Key, float] | None:
        """``twin`` by scoring every entry, not only the band candidates (the exact reference)."""
        return self._lookup(code, everything=True)

    def _lookup(self, code: str, everything: bool) -> tuple[Key, float] | None:
        chash = content_hash(code)
        exact = self._exact(chash)
        if exact is not None:
            return exact, 1.0
        best = self._best(self.sketch_of(code, chash), everything)
        return best if best is not None and best[1] >= self.threshold else None

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


def add_examples(index: NoveltyIndex) -> NoveltyIndex:
    """The bundled example environments and the designer prompts' own examples, added to ``index``."""
    for path in example_paths():
        index.add(f"example:{path.stem}", path.read_text(encoding="utf-8"))
    for form in DesignForm:
        index.add(f"example:prompt-{form}", default_example(form))
    return index


def run_index(records: Iterable[EnvRecord], threshold: float = 0.85) -> NoveltyIndex:
    """What a new design must not copy: the valid environments of ``records`` (an archive), the
    bundled example environments and the designer prompts' own examples."""
    return add_examples(NoveltyIndex.from_records(records, threshold=threshold))


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
