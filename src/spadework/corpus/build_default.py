"""Build the bundled default corpus, ``data/default.jsonl``, from text available offline.

Two sources, nothing downloaded:

- the project's own briefs in ``data/briefs/<domain>.txt``: short factual passages, one
  paragraph each, written as seeds for small text puzzles and games;
- docstrings of standard library modules installed with this Python, grouped into domains
  (``STDLIB_DOMAINS``), kept when at least ``MIN_DOC_CHARS`` long and cut to
  ``MAX_DOC_TOKENS``.

Texts are de-duplicated (whitespace-insensitive, first kept). The output is the same on
every run with the same Python minor version; docstrings change between versions.

Run ``python -m spadework.corpus.build_default [--output PATH]``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from spadework.corpus.budget import cut_to_budget
from spadework.corpus.corpus import DEFAULT_CORPUS
from spadework.corpus.records import Document

BRIEFS_DIR = Path(__file__).resolve().parent / "data" / "briefs"
"""One ``<domain>.txt`` a domain; briefs separated by blank lines."""

STDLIB_DOMAINS: dict[str, tuple[str, ...]] = {
    "algorithms": (
        "array",
        "bisect",
        "collections",
        "copy",
        "functools",
        "graphlib",
        "heapq",
        "itertools",
        "operator",
        "queue",
    ),
    "mathematics": ("cmath", "decimal", "fractions", "math", "numbers", "random", "statistics"),
    "language": ("difflib", "html", "locale", "re", "shlex", "string", "textwrap", "unicodedata"),
    "time": ("calendar", "datetime", "sched", "time", "timeit", "zoneinfo"),
}
"""Standard library modules whose docstrings are read, by domain."""

SKIPPED_DOCSTRINGS = frozenset({"collections.Counter.elements", "difflib.SequenceMatcher", "timeit"})
"""Docstrings left out because they credit people by name (the project ships no personal names)."""

MIN_DOC_CHARS = 150
"""Shorter docstrings say too little to ground a puzzle."""

MAX_DOC_TOKENS = 1000
"""Longer docstrings are cut (see ``cut_to_budget``)."""


def read_briefs(folder: Path = BRIEFS_DIR) -> list[Document]:
    """Read every ``<domain>.txt`` in ``folder``, one document per paragraph.

    Lines of a paragraph are joined with spaces. Ids are ``<domain>-<nnn>``, from 001.
    """
    docs = []
    for path in sorted(folder.glob("*.txt")):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")
        texts = [" ".join(p.split()) for p in paragraphs if p.strip()]
        for n, text in enumerate(texts, start=1):
            docs.append(Document(f"{path.stem}-{n:03d}", text, path.stem, f"spadework briefs: {path.stem}"))
    return docs


def _defined_in(obj: object, module: str) -> bool:
    """True when ``obj`` belongs to ``module`` or its private accelerator (``_heapq``, ``_pydecimal``)."""
    owner = getattr(obj, "__module__", None)
    if not isinstance(owner, str):
        return False
    return owner.removeprefix("_").removeprefix("py").split(".")[0] == module


def _is_member_with_doc(value: object) -> bool:
    """True for methods and properties with a docstring; plain class attributes carry their
    type's docstring, not their own, and are skipped."""
    if inspect.isclass(value) or not (inspect.isroutine(value) or inspect.isdatadescriptor(value)):
        return False
    return isinstance(getattr(value, "__doc__", None), str)


def _module_docstrings(name: str) -> Iterator[tuple[str, str]]:
    """Yield ``(qualified name, docstring)`` for a module, its public classes, methods and functions."""
    module = importlib.import_module(name)
    yield name, inspect.getdoc(module) or ""
    for attr, obj in sorted(vars(module).items()):
        if attr.startswith("_") or not (inspect.isclass(obj) or inspect.isroutine(obj)):
            continue
        if not _defined_in(obj, name):
            continue
        yield f"{name}.{attr}", inspect.getdoc(obj) or ""
        if inspect.isclass(obj):
            for member, value in sorted(vars(obj).items()):
                if member.startswith("_") or not _is_member_with_doc(value):
                    continue
                yield f"{name}.{attr}.{member}", inspect.cleandoc(value.__doc__)


def stdlib_documents(domains: dict[str, tuple[str, ...]] = STDLIB_DOMAINS) -> list[Document]:
    """Collect docstrings of the given modules as documents, in domain and name order."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    docs = []
    for domain, modules in sorted(domains.items()):
        for module in modules:
            try:
                items = list(_module_docstrings(module))
            except ImportError:
                continue
            for qualname, text in items:
                if len(text) >= MIN_DOC_CHARS and qualname not in SKIPPED_DOCSTRINGS:
                    source = f"python {version} standard library docstring: {qualname}"
                    docs.append(
                        Document(f"stdlib-{qualname}", cut_to_budget(text, MAX_DOC_TOKENS), domain, source)
                    )
    return docs


def deduplicate(docs: list[Document]) -> list[Document]:
    """Keep the first document of each text, comparing texts with whitespace collapsed.

    Examples:
        >>> a, b = Document("1", "Same  text.", None, "s"), Document("2", "Same text.", None, "s")
        >>> [d.id for d in deduplicate([a, b])]
        ['1']
    """
    seen: set[str] = set()
    kept = []
    for doc in docs:
        key = " ".join(doc.text.split())
        if key not in seen:
            seen.add(key)
            kept.append(doc)
    return kept


def build_documents() -> list[Document]:
    """Return the default corpus: the briefs, then the standard library docstrings, de-duplicated."""
    return deduplicate(read_briefs() + stdlib_documents())


def render_jsonl(docs: list[Document]) -> str:
    """Render documents as JSON Lines with the keys ``id``, ``domain``, ``text``, ``source``."""
    lines = (
        json.dumps({"id": d.id, "domain": d.domain, "text": d.text, "source": d.source}, ensure_ascii=False)
        for d in docs
    )
    return "".join(line + "\n" for line in lines)


def main(argv: list[str] | None = None) -> int:
    """Write the default corpus and print how many documents each domain got."""
    parser = argparse.ArgumentParser(description="Build the bundled default corpus.")
    parser.add_argument("--output", type=Path, default=DEFAULT_CORPUS, help="where to write the JSONL file")
    args = parser.parse_args(argv)
    docs = build_documents()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(render_jsonl(docs), encoding="utf-8", newline="\n")
    counts = Counter(doc.domain for doc in docs)
    print(f"wrote {len(docs)} documents to {args.output}")
    for domain, count in sorted(counts.items()):
        print(f"  {domain}: {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
