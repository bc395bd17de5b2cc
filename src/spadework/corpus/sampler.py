"""Seeded, resumable uniform sampling of corpus documents, without replacement per epoch.

Draw ``d`` of a sampler over ``n`` documents is position ``P_e(d mod n)``, where ``e = d // n``
is the epoch and ``P_e`` a permutation of ``range(n)`` keyed by the seed and the epoch. So
every document is drawn once before any is drawn twice, each epoch in a new order, and the
whole state is ``(seed, draws)``: which documents were used, and how often, follows from it.
"""

from __future__ import annotations

import hashlib
from typing import Any

from spadework.corpus.corpus import Corpus
from spadework.corpus.permutation import Permutation
from spadework.corpus.records import Document
from spadework.errors import CorpusError

STATE_VERSION = 1
"""Version of the dict ``CorpusSampler.state`` returns."""


def epoch_key(seed: int, epoch: int) -> bytes:
    """Return the permutation key of one epoch of one seed.

    Examples:
        >>> epoch_key(1, 0) == epoch_key(1, 0), epoch_key(1, 0) == epoch_key(1, 1)
        (True, False)
    """
    return hashlib.blake2b(f"corpus-sampler:{seed}:{epoch}".encode(), digest_size=16).digest()


class CorpusSampler:
    """Draws documents of a corpus uniformly, each once per epoch, in a seeded order.

    Two samplers with the same corpus and seed draw the same sequence; one restored from
    ``state()`` goes on exactly where the saved one stopped.

    Attributes:
        corpus: the corpus drawn from.
        seed: the seed.
    """

    def __init__(self, corpus: Corpus, seed: int, *, draws: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise CorpusError(f"the sampler seed must be an int, got {seed!r}")
        if isinstance(draws, bool) or not isinstance(draws, int) or draws < 0:
            raise CorpusError(f"draws must be an int >= 0, got {draws!r}")
        self.corpus = corpus
        self.seed = seed
        self._n = len(corpus)
        self._draws = draws
        self._perm = Permutation(self._n, epoch_key(seed, self.epoch))

    @property
    def draws(self) -> int:
        """Documents drawn so far."""
        return self._draws

    @property
    def epoch(self) -> int:
        """Completed passes over the corpus (0 during the first)."""
        return self._draws // self._n

    def _permutation(self) -> Permutation:
        key = epoch_key(self.seed, self.epoch)
        if self._perm.key != key:
            self._perm = Permutation(self._n, key)
        return self._perm

    def peek_position(self) -> int:
        """Return the position the next ``sample`` will read, without drawing it."""
        return self._permutation()(self._draws % self._n)

    def sample_position(self) -> int:
        """Draw the next position (without reading the document)."""
        position = self.peek_position()
        self._draws += 1
        return position

    def sample(self) -> Document:
        """Draw and read the next document.

        Raises:
            CorpusError: the corpus changed on disk; the draw is not counted then.
        """
        doc = self.corpus.get(self.peek_position())
        self._draws += 1
        return doc

    def times_used(self, position: int) -> int:
        """How many times the document at ``position`` has been drawn."""
        if not 0 <= position < self._n:
            raise IndexError(f"position {position} is out of range; the corpus has {self._n} documents")
        drawn_this_epoch = self._permutation().inverse(position) < self._draws % self._n
        return self.epoch + int(drawn_this_epoch)

    def state(self) -> dict[str, Any]:
        """Return the JSON-serialisable state; ``restore`` continues from it.

        ``seed`` and ``draws`` determine everything; ``epoch`` and ``epoch_draws`` (documents
        used in the current epoch: the first ``epoch_draws`` of its order) are for people, and
        ``documents`` guards against restoring over a different corpus.
        """
        return {
            "version": STATE_VERSION,
            "seed": self.seed,
            "draws": self._draws,
            "documents": self._n,
            "epoch": self.epoch,
            "epoch_draws": self._draws % self._n,
            "corpus": self.corpus.location,
        }

    @classmethod
    def restore(cls, corpus: Corpus, state: dict[str, Any]) -> CorpusSampler:
        """Make a sampler that continues exactly where the one that wrote ``state`` stopped.

        Raises:
            CorpusError: the state is malformed, of another version, or was saved over a
                corpus of a different size.
        """
        if not isinstance(state, dict):
            raise CorpusError(
                f"sampler state must be a dict made by CorpusSampler.state, got {type(state).__name__}"
            )
        try:
            version, seed, draws, documents = (state[k] for k in ("version", "seed", "draws", "documents"))
        except KeyError as exc:
            raise CorpusError(
                f"sampler state lacks {exc.args[0]!r}; pass a dict made by CorpusSampler.state"
            ) from exc
        if version != STATE_VERSION:
            raise CorpusError(
                f"sampler state version {version!r} is not {STATE_VERSION}; start a new sampler"
            )
        if documents != len(corpus):
            raise CorpusError(
                f"sampler state was saved over {documents} documents but {corpus.location!r} has "
                f"{len(corpus)}; open the same corpus, or start a new sampler"
            )
        return cls(corpus, seed, draws=draws)
