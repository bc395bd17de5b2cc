"""Open a corpus: one streaming pass builds a compact index, documents are read back by position.

The index holds where each valid document starts (byte offsets, row numbers, file paths),
never the texts, so a corpus far larger than memory can be sampled.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from spadework.corpus.folder import FolderIndex
from spadework.corpus.hf import HfIndex
from spadework.corpus.jsonl import JsonlIndex
from spadework.corpus.records import CorpusFormat, CorpusStats, Document, Tally
from spadework.errors import CorpusError

DEFAULT_NAME = "default"
"""The name ``open_corpus`` reads as the bundled default corpus."""

DEFAULT_CORPUS = Path(__file__).resolve().parent / "data" / "default.jsonl"
"""The bundled default corpus (see ``build_default``)."""

SUFFIX_FORMATS = {
    ".jsonl": CorpusFormat.JSONL,
    ".ndjson": CorpusFormat.JSONL,
    ".parquet": CorpusFormat.PARQUET,
    ".pq": CorpusFormat.PARQUET,
}
"""File name endings and the format they imply."""

HF_MARKERS = ("dataset_info.json", "dataset_dict.json", "state.json")
"""Files that mark a folder written by ``datasets``' ``save_to_disk``."""


class _Index(Protocol):
    @property
    def path(self) -> Path | str: ...

    def __len__(self) -> int: ...

    def read(self, i: int) -> Document: ...


def _build_jsonl(location: str, tally: Tally) -> _Index:
    return JsonlIndex.build(Path(location), tally)


def _build_parquet(location: str, tally: Tally) -> _Index:
    from spadework.corpus.parquet import ParquetIndex  # pyarrow is imported only when needed

    return ParquetIndex.build(Path(location), tally)


def _build_folder(location: str, tally: Tally) -> _Index:
    return FolderIndex.build(Path(location), tally)


_BUILDERS: dict[CorpusFormat, Callable[[str, Tally], _Index]] = {
    CorpusFormat.JSONL: _build_jsonl,
    CorpusFormat.PARQUET: _build_parquet,
    CorpusFormat.FOLDER: _build_folder,
    CorpusFormat.HF: HfIndex.build,
}


def infer_format(path: Path) -> CorpusFormat:
    """Say which format an existing path is in, from its suffix or, for a folder, its files.

    Raises:
        CorpusError: a file whose suffix is not one of ``SUFFIX_FORMATS``.
    """
    if path.is_dir():
        if any((path / marker).is_file() for marker in HF_MARKERS):
            return CorpusFormat.HF
        return CorpusFormat.FOLDER
    fmt = SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        formats = ", ".join(f.value for f in CorpusFormat)
        raise CorpusError(
            f"cannot tell the format of {str(path)!r} from its suffix {path.suffix!r}; name the file "
            f"{' or '.join(SUFFIX_FORMATS)}, or pass format= one of {formats}"
        )
    return fmt


class Corpus:
    """An indexed corpus: ``len(corpus)`` documents, read one at a time with ``get``.

    Attributes:
        location: the path (or dataset name) it was opened from.
        format: how it is stored.
        stats: what the indexing pass found (documents, skipped input by reason, domains).
    """

    def __init__(self, location: str, format: CorpusFormat, index: _Index, stats: CorpusStats) -> None:
        self.location = location
        self.format = format
        self.stats = stats
        self._index = index

    def __len__(self) -> int:
        return len(self._index)

    def __repr__(self) -> str:
        return f"Corpus({self.location!r}, format={self.format.value}, documents={len(self)})"

    def get(self, i: int) -> Document:
        """Read document ``i`` (``0 <= i < len(self)``) from its storage.

        Raises:
            IndexError: ``i`` is out of range.
            CorpusError: the storage changed since the corpus was opened.
        """
        if not 0 <= i < len(self):
            raise IndexError(f"document {i} is out of range; this corpus has documents 0..{len(self) - 1}")
        return self._index.read(i)

    def __iter__(self) -> Iterator[Document]:
        for i in range(len(self)):
            yield self.get(i)

    def index_bytes(self) -> int | None:
        """Bytes held by the index's position arrays, where the format keeps them in arrays."""
        nbytes = getattr(self._index, "nbytes", None)
        return nbytes() if nbytes is not None else None

    def close(self) -> None:
        """Release open files (Parquet); the corpus cannot be read afterwards."""
        close = getattr(self._index, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> Corpus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _resolve(path_or_name: str | os.PathLike[str], format: CorpusFormat | None) -> tuple[str, CorpusFormat]:
    if str(path_or_name) == DEFAULT_NAME and format in (None, CorpusFormat.JSONL):
        return str(DEFAULT_CORPUS), CorpusFormat.JSONL
    path = Path(path_or_name).expanduser()
    if format == CorpusFormat.HF and not path.exists():
        return str(path_or_name), CorpusFormat.HF
    if not path.exists():
        raise CorpusError(
            f"no corpus at {str(path)!r}: the path does not exist; pass an existing file or folder, "
            f"{DEFAULT_NAME!r} for the bundled corpus, or format='hf' for a dataset name"
        )
    fmt = format or infer_format(path)
    if fmt == CorpusFormat.FOLDER and not path.is_dir():
        raise CorpusError(f"{str(path)!r} is a file, not a folder; drop format='folder' or pass its folder")
    if fmt in (CorpusFormat.JSONL, CorpusFormat.PARQUET) and path.is_dir():
        raise CorpusError(
            f"{str(path)!r} is a folder, not a {fmt.value} file; pass the file or format='folder'"
        )
    return str(path), fmt


def _empty_message(location: str, fmt: CorpusFormat, stats: CorpusStats) -> str:
    skipped = ", ".join(f"{count} {reason}" for reason, count in stats.bad.items()) or "nothing"
    what = "*.txt or *.md files" if fmt == CorpusFormat.FOLDER else "rows with a non-empty 'text' string"
    return f"the corpus {location!r} has no valid documents (skipped: {skipped}); it needs {what}"


def open_corpus(path_or_name: str | os.PathLike[str], *, format: CorpusFormat | None = None) -> Corpus:
    """Open and index a corpus in one streaming pass.

    Args:
        path_or_name: a ``.jsonl``/``.parquet`` file, a folder of text files, a folder
            written by ``datasets``' ``save_to_disk``, ``"default"`` for the bundled corpus,
            or (with ``format=CorpusFormat.HF``) a dataset name such as ``owner/name:train``.
        format: the storage format; inferred from the suffix or folder contents when None.

    Returns:
        The indexed corpus.

    Raises:
        CorpusError: the path does not exist, the format cannot be told or read, or the
            corpus holds no valid document.

    Examples:
        >>> corpus = open_corpus("default")
        >>> len(corpus) >= 300 and corpus.get(0).text != ""
        True
    """
    location, fmt = _resolve(path_or_name, format)
    tally = Tally()
    index = _BUILDERS[CorpusFormat(fmt)](location, tally)
    stats = tally.stats()
    corpus = Corpus(location, CorpusFormat(fmt), index, stats)
    if len(corpus) == 0:
        corpus.close()
        raise CorpusError(_empty_message(location, CorpusFormat(fmt), stats))
    return corpus
