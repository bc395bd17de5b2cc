"""A run's near-duplicate index, kept across iterations instead of rebuilt from the archive.

The index is built once when the loop starts: from the sketches the archive stores (written with
each iteration's commit, so they survive a crash exactly as the records do), the bundled examples
and, once and with a note, from the sources of valid records that have no sketch yet (an archive
from an older spadework). Each iteration designs against an overlay of it; after the commit, the
iteration's valid environments join it under their archive ids. Records another process added
meanwhile (``spadework validate --run-dir``) join it at the next iteration: only records with ids
above the last one seen are looked at, so that check costs nothing on a large archive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spadework.archive import Archive, EnvRecord, StoredSketch
from spadework.designer.novelty import NoveltyIndex, add_examples

PAGE = 10_000
"""Stored sketches read at a time when the index is built."""


class RunNovelty:
    """The loop's near-duplicate index over its archive.

    Args:
        archive: the run's archive.
        threshold: ``designer.novelty_threshold``.
        warn: where notes go.
    """

    def __init__(self, archive: Archive, threshold: float = 0.85, warn: Callable[[str], None] = print):
        self.archive = archive
        self.index = NoveltyIndex(threshold)
        self.warn = warn
        self.current: NoveltyIndex | None = None
        """The overlay of the iteration being designed (its lookups' sketches are reused at commit)."""
        self._loaded = False
        self._seen = 0

    def load(self) -> NoveltyIndex:
        """The index, built on first use from the archive's stored sketches, with the records added
        since the last call."""
        latest = self.archive.last_id()
        if latest > self._seen or not self._loaded:
            self.fill_missing(self._seen)
            while page := self.archive.sketch_rows(self.index.scheme, self._seen, PAGE):
                self.index.add_rows(r for r in page if r.id not in self.index)
                self._seen = page[-1].id
            self._seen = latest
        if not self._loaded:
            add_examples(self.index)
            self._loaded = True
        return self.index

    def fill_missing(self, after: int = 0) -> int:
        """Sketch and store the valid records (ids above ``after``) that have none, with a note."""
        missing = self.archive.unsketched(self.index.scheme, after)
        if missing:
            self.warn(f"note: indexing {len(missing)} archived environments for near-duplicate search "
                      "once (their sketches are stored in the archive)")
            found = {chash: self.index.sketch_of(source, chash) for _, chash, source in missing}
            self.archive.put_sketches(self.index.scheme, [StoredSketch(h, s.to_bytes(), s.size)
                                                          for h, s in found.items()])
        return len(missing)

    def batch(self) -> NoveltyIndex:
        """An overlay for one iteration's designs: they are checked against the run and each other."""
        self.current = self.load().overlay()
        return self.current

    def sketches(self, records: Sequence[EnvRecord]) -> tuple[str, list[StoredSketch]]:
        """The scheme and the sketches of the valid ``records``, to store with their commit (none
        when the index is not in use, e.g. the fixed-pool baseline: the next load fills them)."""
        if self.current is None:
            return self.index.scheme, []
        found = {r.content_hash: self.current.sketch_of(r.source, r.content_hash) for r in records if r.valid}
        return self.index.scheme, [StoredSketch(h, s.to_bytes(), s.size) for h, s in found.items()]

    def committed(self, stored: Sequence[EnvRecord]) -> None:
        """The iteration's valid environments, now stored, join the index under their ids."""
        if self.current is None:
            return
        for record in stored:
            if record.valid and record.id is not None:
                found = self.current.sketch_of(record.source, record.content_hash)
                self.index.add_sketch(record.id, found, record.class_name, record.content_hash)
        self.current = None
