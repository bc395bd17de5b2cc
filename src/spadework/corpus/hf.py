"""Corpora of the optional ``datasets`` library: a folder written by ``save_to_disk`` or a name.

``datasets`` is imported only when such a corpus is opened. Its datasets are memory-mapped
Arrow tables, so rows are read on demand; rows are turned into documents like JSONL lines.
A name may end with ``:split`` (default ``train``).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from spadework.corpus.records import BadInput, Document, Tally, document_from_record
from spadework.errors import CorpusError

DEFAULT_SPLIT = "train"


def _datasets() -> Any:
    try:
        import datasets
    except ImportError as exc:
        raise CorpusError(
            "reading a 'hf' corpus needs the datasets library, which is not installed; "
            "run `pip install 'spadework[hf]'`, or export the corpus to JSONL or Parquet"
        ) from exc
    return datasets


def _pick_split(loaded: Any, split: str, where: str) -> Any:
    if not hasattr(loaded, "keys"):
        return loaded
    if split in loaded:
        return loaded[split]
    raise CorpusError(f"{where!r} has no split {split!r} (it has: {', '.join(loaded.keys())}); name one")


def load_hf(location: str) -> Any:
    """Load a dataset from a ``save_to_disk`` folder or by name, one split of it.

    Raises:
        CorpusError: ``datasets`` is missing, or the dataset cannot be loaded.
    """
    datasets = _datasets()
    name, _, split = location.partition(":") if not Path(location).exists() else (location, "", "")
    split = split or DEFAULT_SPLIT
    try:
        if Path(name).is_dir():
            loaded = datasets.load_from_disk(name)
        else:
            loaded = datasets.load_dataset(name, split=split)
    except Exception as exc:  # the library raises many unrelated types
        raise CorpusError(f"cannot load the dataset {location!r}: {exc}; check the path or name") from exc
    return _pick_split(loaded, split, location)


def scan_hf(dataset: Any, name: str, tally: Tally) -> Iterator[tuple[int, Document]]:
    """Stream ``(row number, document)`` for each valid row, counting bad rows."""
    for row, record in enumerate(dataset):
        result = document_from_record(record, f"{name}:{row}", f"{name}#row={row}")
        if isinstance(result, BadInput):
            tally.bad(result)
        else:
            tally.good(result)
            yield row, result


class HfIndex:
    """Row numbers of the valid rows of one loaded dataset (8 bytes a document)."""

    def __init__(self, location: str, dataset: Any, rows: array) -> None:
        self.path = location
        self._dataset = dataset
        self._rows = rows

    @classmethod
    def build(cls, location: str, tally: Tally) -> HfIndex:
        """Load ``location`` and index it in one pass, counting into ``tally``."""
        dataset = load_hf(location)
        rows = array("Q", (row for row, _ in scan_hf(dataset, location, tally)))
        return cls(location, dataset, rows)

    def __len__(self) -> int:
        return len(self._rows)

    def read(self, i: int) -> Document:
        """Read document ``i`` from the dataset."""
        row = self._rows[i]
        result = document_from_record(self._dataset[row], f"{self.path}:{row}", f"{self.path}#row={row}")
        if isinstance(result, BadInput):
            raise CorpusError(f"row {row} of {self.path!r} changed after it was indexed; open it again")
        return result
