"""Streaming readers and indexes of each format, fed good and bad input with exact counts."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from spadework.corpus import CorpusFormat, Document, open_corpus
from spadework.corpus import jsonl as jsonl_module
from spadework.corpus.folder import read_folder
from spadework.corpus.jsonl import read_jsonl
from spadework.corpus.parquet import read_parquet
from spadework.corpus.records import CorpusStats, Tally, document_from_record
from spadework.errors import CorpusError

HAVE_DATASETS = importlib.util.find_spec("datasets") is not None

MIXED_LINES = [
    json.dumps({"id": "a", "text": "Alpha.", "domain": "physics"}),  # good 1
    "{not json",  # invalid_json
    json.dumps(["a", "list"]),  # not_object
    json.dumps({"title": "no text here"}),  # missing_text
    json.dumps({"text": 42}),  # text_not_string
    json.dumps({"text": "   "}),  # empty_text
    "",  # blank: skipped, not counted
    json.dumps({"orig_doc": "Beta.", "id": 7}),  # good 2 (orig_doc, integer id)
    json.dumps({"text": "Gamma.", "source": "book", "domain": ""}),  # good 3 (no id, empty domain)
]


def write_mixed_jsonl(path: Path) -> Path:
    data = "\n".join(MIXED_LINES).encode() + b"\n" + b'{"text": "\xff\xfe"}\n'  # not_utf8
    path.write_bytes(data)
    return path


def test_jsonl_counts_every_kind_of_bad_line(tmp_path: Path) -> None:
    corpus = open_corpus(write_mixed_jsonl(tmp_path / "mixed.jsonl"))
    assert corpus.format == CorpusFormat.JSONL
    assert len(corpus) == 3
    assert corpus.stats == CorpusStats(
        documents=3,
        bad={
            "empty_text": 1,
            "invalid_json": 1,
            "missing_text": 1,
            "not_object": 1,
            "not_utf8": 1,
            "text_not_string": 1,
        },
        domains={"physics": 1},
    )
    assert corpus.stats.bad_lines == 6


def test_jsonl_documents_keep_or_derive_id_domain_source(tmp_path: Path) -> None:
    path = write_mixed_jsonl(tmp_path / "mixed.jsonl")
    corpus = open_corpus(path)
    assert corpus.get(0) == Document("a", "Alpha.", "physics", f"{path}:1")
    assert corpus.get(1) == Document("7", "Beta.", None, f"{path}:8")
    assert corpus.get(2) == Document("mixed:9", "Gamma.", None, "book")


def test_jsonl_streaming_reader_matches_index(tmp_path: Path) -> None:
    path = write_mixed_jsonl(tmp_path / "mixed.jsonl")
    tally = Tally()
    streamed = list(read_jsonl(path, tally))
    assert streamed == list(open_corpus(path))
    assert tally.stats().bad_lines == 6


def test_jsonl_too_long_line_is_skipped_and_counted(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(jsonl_module, "MAX_LINE_BYTES", 64)
    path = tmp_path / "long.jsonl"
    lines = [{"text": "short"}, {"text": "x" * 500}, {"text": "after"}]
    path.write_text("\n".join(json.dumps(line) for line in lines))  # no final newline
    corpus = open_corpus(path)
    assert [doc.text for doc in corpus] == ["short", "after"]
    assert corpus.stats.bad == {"too_long": 1}


def test_jsonl_changed_after_indexing_raises(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"text": "one"}\n{"text": "two"}\n')
    corpus = open_corpus(path)
    path.write_text('{"text": "one"}\n{"oops": "two"}\n')
    with pytest.raises(CorpusError, match="changed after it was indexed"):
        corpus.get(1)


def test_record_with_boolean_id_falls_back_to_default() -> None:
    doc = document_from_record({"text": "t", "id": True}, "dflt", "src")
    assert isinstance(doc, Document) and doc.id == "dflt"


def write_parquet(path: Path, rows: list[dict], row_group_size: int) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=row_group_size)
    return path


def test_parquet_reads_rows_across_row_groups(tmp_path: Path) -> None:
    rows = [{"text": f"doc {i}" if i % 5 else None, "domain": f"d{i % 2}", "other": i} for i in range(50)]
    rows[3]["text"] = ""
    path = write_parquet(tmp_path / "c.parquet", rows, row_group_size=7)
    corpus = open_corpus(path)
    assert corpus.format == CorpusFormat.PARQUET
    assert pq.ParquetFile(path).num_row_groups == 8
    expected = [i for i in range(50) if i % 5 and i != 3]
    assert len(corpus) == len(expected)
    assert corpus.stats.bad == {"empty_text": 1, "missing_text": 10}
    assert [doc.text for doc in corpus] == [f"doc {i}" for i in expected]
    last = corpus.get(len(corpus) - 1)
    assert last == Document("c:49", "doc 49", "d1", f"{path}#row=49")
    assert corpus.get(0).text == "doc 1"  # back to the first group after the last
    assert list(read_parquet(path)) == list(corpus)
    corpus.close()


def test_parquet_orig_doc_column_and_ids(tmp_path: Path) -> None:
    rows = [{"orig_doc": "first", "id": "x1"}, {"orig_doc": "second", "id": "x2"}]
    corpus = open_corpus(write_parquet(tmp_path / "o.pq", rows, row_group_size=10))
    assert [(d.id, d.text) for d in corpus] == [("x1", "first"), ("x2", "second")]


def test_parquet_without_text_column_names_its_columns(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "bad.parquet", [{"body": "x", "n": 1}], row_group_size=10)
    with pytest.raises(CorpusError, match=r"no 'text' or 'orig_doc' column \(its columns: body, n\)"):
        open_corpus(path)


def test_parquet_that_is_not_parquet_raises(tmp_path: Path) -> None:
    path = tmp_path / "fake.parquet"
    path.write_text("this is not parquet")
    with pytest.raises(CorpusError, match="cannot read .* as Parquet"):
        open_corpus(path)


def make_folder(root: Path) -> Path:
    (root / "physics" / "deep").mkdir(parents=True)
    (root / "games").mkdir()
    (root / ".hidden").mkdir()
    (root / "top.txt").write_text("At the top.")
    (root / "physics" / "a.md").write_text("# Pendulum\n\nSwings.")
    (root / "physics" / "deep" / "b.TXT").write_text("Deep down.")
    (root / "games" / "nim.txt").write_text("Take stones.")
    (root / "games" / "bad.txt").write_bytes(b"\xff\xfe\xfa")  # not_utf8
    (root / "games" / "blank.md").write_text(" \n\t\n")  # empty_text
    (root / "games" / "image.png").write_bytes(b"\x89PNG")  # not a document file
    (root / ".hidden" / "secret.txt").write_text("skipped")
    (root / ".dotfile.txt").write_text("skipped too")
    return root


def test_folder_reads_text_and_markdown_with_domains(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "corpus")
    corpus = open_corpus(root)
    assert corpus.format == CorpusFormat.FOLDER
    assert [(d.id, d.domain) for d in corpus] == [
        ("top.txt", None),
        ("games/nim.txt", "games"),
        ("physics/a.md", "physics"),
        ("physics/deep/b.TXT", "physics"),
    ]
    assert corpus.stats.bad == {"empty_text": 1, "not_utf8": 1}
    assert corpus.stats.domains == {"games": 1, "physics": 2}
    assert corpus.get(2).text == "# Pendulum\n\nSwings."
    assert corpus.get(0).source == str(root / "top.txt")
    assert list(read_folder(root)) == list(corpus)


def test_folder_file_removed_after_indexing_raises(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "corpus")
    corpus = open_corpus(root)
    (root / "top.txt").unlink()
    with pytest.raises(CorpusError, match="no longer a document"):
        corpus.get(0)


def test_hf_without_datasets_says_how_to_install(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # as if it were not installed
    with pytest.raises(CorpusError, match=r"pip install 'spadework\[hf\]'"):
        open_corpus("someone/some-corpus", format=CorpusFormat.HF)
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "dataset_info.json").write_text("{}")
    with pytest.raises(CorpusError, match=r"pip install 'spadework\[hf\]'"):
        open_corpus(tmp_path / "saved")


@pytest.mark.skipif(not HAVE_DATASETS, reason="datasets is not installed")
def test_hf_saved_dataset_is_read_and_indexed(tmp_path: Path) -> None:
    import datasets

    rows = {"text": ["one", "", "three"], "domain": ["a", "b", "c"]}
    datasets.Dataset.from_dict(rows).save_to_disk(str(tmp_path / "saved"))
    corpus = open_corpus(tmp_path / "saved")
    assert corpus.format == CorpusFormat.HF
    assert [d.text for d in corpus] == ["one", "three"]
    assert corpus.stats.bad == {"empty_text": 1}
