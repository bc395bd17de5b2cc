"""cut_to_budget, and the bundled default corpus with its build script."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from spadework.corpus import DEFAULT_CORPUS, approx_tokens, cut_to_budget, open_corpus
from spadework.corpus.build_default import build_documents, main, read_briefs, render_jsonl

PARAGRAPHS = "One two three four.\n\nFive six seven eight. Nine ten eleven twelve.\n\nThirteen."


def words(text: str) -> int:
    return len(text.split())


def test_text_within_budget_is_unchanged() -> None:
    assert cut_to_budget(PARAGRAPHS, approx_tokens(PARAGRAPHS)) == PARAGRAPHS
    assert cut_to_budget(PARAGRAPHS, 13, count=words) == PARAGRAPHS


@pytest.mark.parametrize(
    ("budget", "expected"),
    [
        (12, "One two three four.\n\nFive six seven eight. Nine ten eleven twelve."),
        (9, "One two three four.\n\nFive six seven eight."),  # sentence: paragraph keeps < half
        (6, "One two three four."),  # paragraph break keeps >= half
        (3, "One two three"),  # no paragraph or sentence end: last space
    ],
)
def test_cut_prefers_paragraph_then_sentence_then_word(budget: int, expected: str) -> None:
    assert cut_to_budget(PARAGRAPHS, budget, count=words) == expected


def test_cut_result_always_fits_the_default_counter() -> None:
    text = "Lorem ipsum dolor sit amet. " * 200
    for budget in (1, 2, 7, 50, 333):
        cut = cut_to_budget(text, budget)
        assert approx_tokens(cut) <= budget
        assert text.startswith(cut)
        assert len(cut) >= budget * 4 * 0.5 - 4  # keeps at least about half of what fits


def test_cut_without_any_boundary_is_a_hard_cut() -> None:
    assert cut_to_budget("x" * 100, 5) == "x" * 20


def test_budget_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_tokens must be at least 1"):
        cut_to_budget("text", 0)


def test_default_corpus_size_and_domains() -> None:
    corpus = open_corpus("default")
    assert len(corpus) >= 300
    domains = corpus.stats.domains
    assert sum(count >= 25 for count in domains.values()) >= 6
    for domain in ("physics", "finance", "biology", "games", "logistics"):
        assert domains[domain] >= 25
    assert DEFAULT_CORPUS.stat().st_size < 1_500_000


def test_default_corpus_records_are_complete_and_unique() -> None:
    records = [json.loads(line) for line in DEFAULT_CORPUS.read_text(encoding="utf-8").splitlines()]
    assert all(list(r) == ["id", "domain", "text", "source"] for r in records)
    assert len({r["id"] for r in records}) == len(records)
    assert len({" ".join(r["text"].split()) for r in records}) == len(records)
    assert all(len(r["text"]) >= 150 for r in records)


def test_briefs_are_two_to_six_sentences_and_shipped() -> None:
    briefs = read_briefs()
    per_domain = Counter(doc.domain for doc in briefs)
    assert min(per_domain.values()) >= 25 and len(per_domain) == 5
    for doc in briefs:
        sentences = doc.text.count(". ") + 1
        assert 2 <= sentences <= 7, doc.id
    shipped = {r.id: r for r in open_corpus("default")}
    assert all(shipped[doc.id].text == doc.text for doc in briefs)


def test_build_is_deterministic_and_matches_the_shipped_file(tmp_path: Path) -> None:
    first = render_jsonl(build_documents())
    assert render_jsonl(build_documents()) == first
    out = tmp_path / "default.jsonl"
    assert main(["--output", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == first
    # The docstrings part depends on the Python version; this checkout ships a 3.11 build.
    shipped = DEFAULT_CORPUS.read_text(encoding="utf-8")
    if '"source": "python 3.11 ' in first:
        assert shipped == first
