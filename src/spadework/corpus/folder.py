"""Folder corpora: every ``*.txt`` and ``*.md`` file under a folder is one document.

Files are visited in sorted order, so the index is the same on every machine. A
document's id is its path relative to the folder (with ``/``); its domain is the first
sub-folder, or None for files at the top. Hidden files and folders (names starting with
``.``) are skipped; so are symbolic links to folders. Files that cannot be read, are not
UTF-8 or hold only whitespace are counted and skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from spadework.corpus.records import BadInput, Document, Tally
from spadework.errors import CorpusError

SUFFIXES = (".txt", ".md")
"""File name endings read as documents (compared without case)."""


def _walk(root: Path) -> Iterator[str]:
    """Yield the relative POSIX paths of document files under ``root``, sorted."""
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel = Path(here).relative_to(root)
        for name in sorted(files):
            if not name.startswith(".") and name.lower().endswith(SUFFIXES):
                yield (rel / name).as_posix()


def load_file(root: Path, rel: str) -> Document | BadInput:
    """Read one file of the folder as a document, or say why it is not one."""
    path = root / rel
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return BadInput.NOT_UTF8
    except OSError:
        return BadInput.UNREADABLE
    if not text.strip():
        return BadInput.EMPTY_TEXT
    parts = PurePosixPath(rel).parts
    return Document(id=rel, text=text, domain=parts[0] if len(parts) > 1 else None, source=str(path))


def scan_folder(root: Path, tally: Tally) -> Iterator[tuple[str, Document]]:
    """Stream ``(relative path, document)`` for each readable document file, counting the rest."""
    for rel in _walk(root):
        result = load_file(root, rel)
        if isinstance(result, BadInput):
            tally.bad(result)
        else:
            tally.good(result)
            yield rel, result


def read_folder(root: Path, tally: Tally | None = None) -> Iterator[Document]:
    """Stream the documents of a folder, counting bad files in ``tally`` if given."""
    for _, doc in scan_folder(Path(root), tally or Tally()):
        yield doc


class FolderIndex:
    """Relative paths of the readable document files of one folder."""

    def __init__(self, root: Path, paths: list[str]) -> None:
        self.path = root
        self._paths = paths

    @classmethod
    def build(cls, root: Path, tally: Tally) -> FolderIndex:
        """Index ``root`` in one pass over its files, counting into ``tally``."""
        return cls(root, [rel for rel, _ in scan_folder(root, tally)])

    def __len__(self) -> int:
        return len(self._paths)

    def read(self, i: int) -> Document:
        """Read document ``i`` from disk.

        Raises:
            CorpusError: the file changed or went away since it was indexed.
        """
        result = load_file(self.path, self._paths[i])
        if isinstance(result, BadInput):
            raise CorpusError(
                f"{str(self.path / self._paths[i])!r} is no longer a document ({result}); "
                "the folder changed after it was indexed: open the corpus again"
            )
        return result
