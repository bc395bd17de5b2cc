"""Opening corpora: format inference, errors that say what to change, records round-trips."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spadework.corpus import DEFAULT_CORPUS, CorpusFormat, CorpusStats, Document, infer_format, open_corpus
from spadework.errors import CorpusError


def write_jsonl(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    return path


def test_missing_path_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    with pytest.raises(CorpusError, match=f"no corpus at '{missing}': the path does not exist"):
        open_corpus(missing)


def test_unknown_suffix_lists_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "corpus.csv"
    path.write_text("text\nhello\n")
    with pytest.raises(CorpusError, match=r"suffix '\.csv'.*\.jsonl or \.ndjson or \.parquet or \.pq"):
        open_corpus(path)


def test_explicit_format_overrides_the_suffix(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "corpus.txt", ["one", "two"])
    assert len(open_corpus(path, format=CorpusFormat.JSONL)) == 2


def test_format_that_contradicts_the_path_raises(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", ["one"])
    with pytest.raises(CorpusError, match="is a file, not a folder"):
        open_corpus(path, format=CorpusFormat.FOLDER)
    with pytest.raises(CorpusError, match="is a folder, not a jsonl file"):
        open_corpus(tmp_path, format=CorpusFormat.JSONL)


def test_corpus_without_valid_documents_raises_with_counts(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text('{"text": ""}\nnot json\n\n')
    with pytest.raises(CorpusError, match=r"no valid documents \(skipped: 1 empty_text, 1 invalid_json\)"):
        open_corpus(path)
    (tmp_path / "folder").mkdir()
    with pytest.raises(CorpusError, match=r"skipped: nothing\); it needs \*\.txt or \*\.md files"):
        open_corpus(tmp_path / "folder")


def test_get_out_of_range_raises_index_error(tmp_path: Path) -> None:
    corpus = open_corpus(write_jsonl(tmp_path / "c.jsonl", ["a", "b"]))
    assert corpus.get(1).text == "b"
    with pytest.raises(IndexError, match=r"documents 0\.\.1"):
        corpus.get(2)
    with pytest.raises(IndexError):
        corpus.get(-1)


def test_infer_format(tmp_path: Path) -> None:
    assert infer_format(Path("x.JSONL")) == CorpusFormat.JSONL
    assert infer_format(Path("x.parquet")) == CorpusFormat.PARQUET
    assert infer_format(tmp_path) == CorpusFormat.FOLDER
    (tmp_path / "state.json").write_text("{}")
    assert infer_format(tmp_path) == CorpusFormat.HF


def test_default_name_opens_the_bundled_corpus() -> None:
    corpus = open_corpus("default")
    assert corpus.location == str(DEFAULT_CORPUS)
    assert corpus.format == CorpusFormat.JSONL
    assert len(corpus) == corpus.stats.documents and corpus.stats.bad_lines == 0
    assert "default.jsonl" in repr(corpus)


def test_document_round_trip_and_bad_json() -> None:
    doc = Document("id1", "Text.", "maths", "here")
    assert Document.from_json(json.loads(json.dumps(doc.to_json()))) == doc
    with pytest.raises(CorpusError, match="lacks the key 'source'"):
        Document.from_json({"id": "x", "text": "t"})
    with pytest.raises(CorpusError, match="'text' must be a non-empty string"):
        Document.from_json({"id": "x", "text": "", "source": "s"})


def test_stats_round_trip() -> None:
    stats = CorpusStats(documents=3, bad={"invalid_json": 2}, domains={"a": 3}, domains_complete=False)
    data = json.loads(json.dumps(stats.to_json()))
    assert data["bad_lines"] == 2
    assert CorpusStats.from_json(data) == stats
    with pytest.raises(CorpusError, match="lacks the key 'documents'"):
        CorpusStats.from_json({})


def test_domain_counts_stop_at_the_cap(tmp_path: Path, monkeypatch) -> None:
    import spadework.corpus.records as records

    monkeypatch.setattr(records, "MAX_DOMAINS", 2)
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({"text": "t", "domain": d}) + "\n" for d in "abcab"))
    stats = open_corpus(path).stats
    assert stats.domains == {"a": 2, "b": 2}
    assert stats.domains_complete is False
