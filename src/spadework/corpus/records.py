"""Corpus records: a document, the formats a corpus comes in, and what a scan found.

A corpus is read, never trusted: a line that is not a document is counted under a
``BadInput`` reason and skipped. Only a corpus that cannot be read at all raises.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from spadework.errors import CorpusError

TEXT_KEYS = ("text", "orig_doc")
"""Keys (JSON) or columns (Parquet, datasets) that hold a document's text, in order of preference."""

MAX_DOMAINS = 1000
"""Distinct domains counted in ``CorpusStats.domains``; more are not counted (``domains_complete``)."""


class CorpusFormat(StrEnum):
    """How a corpus is stored.

    ``JSONL``: one JSON object a line. ``PARQUET``: a Parquet file. ``FOLDER``: a folder of
    ``*.txt`` and ``*.md`` files. ``HF``: a dataset of the ``datasets`` library (a folder
    written by ``save_to_disk`` or a dataset name).
    """

    JSONL = "jsonl"
    PARQUET = "parquet"
    FOLDER = "folder"
    HF = "hf"


class BadInput(StrEnum):
    """Why a line, row or file was skipped."""

    INVALID_JSON = "invalid_json"
    NOT_OBJECT = "not_object"
    MISSING_TEXT = "missing_text"
    TEXT_NOT_STRING = "text_not_string"
    EMPTY_TEXT = "empty_text"
    NOT_UTF8 = "not_utf8"
    TOO_LONG = "too_long"
    UNREADABLE = "unreadable"


@dataclass(frozen=True)
class Document:
    """One document of a corpus.

    Attributes:
        id: an identifier, unique within its corpus when the corpus gives one; otherwise
            derived from the document's position (e.g. ``name:12`` for line 12).
        text: the document's text, never empty.
        domain: a topic label such as ``physics``, or None when the corpus has none.
        source: where the text came from: a file and line, a URL, a module name.
    """

    id: str
    text: str
    domain: str | None
    source: str

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict; ``from_json`` reads it back.

        Examples:
            >>> Document("a", "Some text.", None, "here").to_json()
            {'id': 'a', 'text': 'Some text.', 'domain': None, 'source': 'here'}
        """
        return {"id": self.id, "text": self.text, "domain": self.domain, "source": self.source}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Document:
        """Read a document written by ``to_json``.

        Raises:
            CorpusError: a required key is missing or ``text`` is not a non-empty string.
        """
        try:
            doc = cls(id=str(data["id"]), text=data["text"], domain=data.get("domain"), source=data["source"])
        except KeyError as exc:
            raise CorpusError(
                f"document JSON lacks the key {exc.args[0]!r}; pass a dict made by Document.to_json"
            ) from exc
        if not isinstance(doc.text, str) or not doc.text.strip():
            raise CorpusError("document JSON has no text; 'text' must be a non-empty string")
        return doc


def document_from_record(record: Any, default_id: str, default_source: str) -> Document | BadInput:
    """Turn one parsed record (a JSON object, a table row) into a document, or say why not.

    The text is the first of ``TEXT_KEYS`` present and not None. ``id`` (a string or an
    integer) and ``source`` (a string) are optional and fall back to the defaults given;
    ``domain`` is kept when it is a non-empty string.

    Args:
        record: the parsed record.
        default_id: the id to use when the record has none.
        default_source: the source to use when the record has none.

    Returns:
        The document, or the reason the record is not one.

    Examples:
        >>> document_from_record({"orig_doc": "Hi.", "domain": "x"}, "f:1", "f")
        Document(id='f:1', text='Hi.', domain='x', source='f')
        >>> document_from_record({"text": "  "}, "f:2", "f")
        <BadInput.EMPTY_TEXT: 'empty_text'>
        >>> document_from_record([1, 2], "f:3", "f")
        <BadInput.NOT_OBJECT: 'not_object'>
    """
    if not isinstance(record, dict):
        return BadInput.NOT_OBJECT
    text = next((record[key] for key in TEXT_KEYS if record.get(key) is not None), None)
    if text is None:
        return BadInput.MISSING_TEXT
    if not isinstance(text, str):
        return BadInput.TEXT_NOT_STRING
    if not text.strip():
        return BadInput.EMPTY_TEXT
    raw_id = record.get("id")
    doc_id = str(raw_id) if isinstance(raw_id, str | int) and not isinstance(raw_id, bool) else default_id
    domain = record.get("domain")
    source = record.get("source")
    return Document(
        id=doc_id or default_id,
        text=text,
        domain=domain if isinstance(domain, str) and domain else None,
        source=source if isinstance(source, str) and source else default_source,
    )


@dataclass(frozen=True)
class CorpusStats:
    """What one pass over a corpus found.

    Attributes:
        documents: valid documents.
        bad: skipped lines, rows or files, counted by ``BadInput`` reason (only reasons seen).
        domains: valid documents counted by domain (``None`` domains are not counted).
        domains_complete: False when more than ``MAX_DOMAINS`` distinct domains were seen, so
            ``domains`` holds only the first ones.
    """

    documents: int
    bad: dict[str, int] = field(default_factory=dict)
    domains: dict[str, int] = field(default_factory=dict)
    domains_complete: bool = True

    @property
    def bad_lines(self) -> int:
        """All skipped lines, rows or files together."""
        return sum(self.bad.values())

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict; ``from_json`` reads it back."""
        return {
            "documents": self.documents,
            "bad_lines": self.bad_lines,
            "bad": dict(self.bad),
            "domains": dict(self.domains),
            "domains_complete": self.domains_complete,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CorpusStats:
        """Read stats written by ``to_json`` (``bad_lines`` is recomputed)."""
        try:
            return cls(
                documents=int(data["documents"]),
                bad=dict(data.get("bad") or {}),
                domains=dict(data.get("domains") or {}),
                domains_complete=bool(data.get("domains_complete", True)),
            )
        except KeyError as exc:
            raise CorpusError(
                f"stats JSON lacks the key {exc.args[0]!r}; pass a dict made by CorpusStats.to_json"
            ) from exc


class Tally:
    """Counts documents, bad input and domains during one streaming pass (mutable; not a record).

    Examples:
        >>> tally = Tally()
        >>> tally.good(Document("1", "t", "maths", "s"))
        >>> tally.bad(BadInput.INVALID_JSON)
        >>> tally.stats()
        CorpusStats(documents=1, bad={'invalid_json': 1}, domains={'maths': 1}, domains_complete=True)
    """

    def __init__(self) -> None:
        self.documents = 0
        self._bad: Counter[str] = Counter()
        self._domains: Counter[str] = Counter()
        self._domains_complete = True

    def good(self, doc: Document) -> None:
        """Count one valid document and its domain."""
        self.documents += 1
        if doc.domain is None:
            return
        if doc.domain in self._domains or len(self._domains) < MAX_DOMAINS:
            self._domains[doc.domain] += 1
        else:
            self._domains_complete = False

    def bad(self, reason: BadInput) -> None:
        """Count one skipped line, row or file."""
        self._bad[str(reason)] += 1

    def stats(self) -> CorpusStats:
        """Return what was counted so far, with reasons and domains in sorted order."""
        return CorpusStats(
            documents=self.documents,
            bad=dict(sorted(self._bad.items())),
            domains=dict(sorted(self._domains.items())),
            domains_complete=self._domains_complete,
        )
