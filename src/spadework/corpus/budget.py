"""Cut a document to a token budget, at a paragraph or sentence boundary when one is near.

The default counter is ``approx_tokens``: one token per four characters, rounded up. It
needs no tokenizer, is the same on every machine, and grows with every character added,
which the cut relies on (it searches for the longest prefix that fits). Subword
tokenizers give about four characters a token on English prose and fewer on code or
other languages; pass the real tokenizer's counter as ``count`` when the budget is tight.
"""

from __future__ import annotations

import re
from collections.abc import Callable

CHARS_PER_TOKEN = 4
"""Characters counted as one token by ``approx_tokens``."""

MIN_KEEP = 0.5
"""A boundary is used only if cutting there keeps at least this share of what would fit."""

_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)")
_SPACE = re.compile(r"\s+")


def approx_tokens(text: str) -> int:
    """Estimate the tokens of ``text``: one per ``CHARS_PER_TOKEN`` characters, rounded up.

    Examples:
        >>> approx_tokens(""), approx_tokens("abcd"), approx_tokens("abcde")
        (0, 1, 2)
    """
    return -(-len(text) // CHARS_PER_TOKEN)


def _longest_fitting(text: str, max_tokens: int, count: Callable[[str], int]) -> int:
    """Return the largest ``k`` with ``count(text[:k]) <= max_tokens`` (``count`` monotone)."""
    low, high = 0, min(len(text), max(1, max_tokens * CHARS_PER_TOKEN))
    while high < len(text) and count(text[:high]) <= max_tokens:
        low, high = high, min(len(text), high * 2)
    if count(text[:high]) <= max_tokens:
        return high
    while high - low > 1:
        mid = (low + high) // 2
        if count(text[:mid]) <= max_tokens:
            low = mid
        else:
            high = mid
    return low


def _boundary(text: str, fit: int) -> int:
    """Return where to cut ``text`` so that at most ``fit`` characters stay: the last paragraph
    end, else sentence end, else word end that keeps ``MIN_KEEP`` of ``fit``; else ``fit``."""
    window = text[: fit + 1]
    floor = fit * MIN_KEEP
    paragraphs = [m.start() for m in _PARAGRAPH.finditer(window) if m.start() <= fit]
    sentences = [m.end() for m in _SENTENCE.finditer(window) if m.end() <= fit]
    words = [m.start() for m in _SPACE.finditer(window) if m.start() <= fit]
    for candidates in (paragraphs, sentences, words):
        if candidates and candidates[-1] >= floor and candidates[-1] > 0:
            return candidates[-1]
    return fit


def cut_to_budget(text: str, max_tokens: int, count: Callable[[str], int] = approx_tokens) -> str:
    """Return ``text`` cut to at most ``max_tokens`` tokens, at a natural boundary if possible.

    A text within budget comes back unchanged. Otherwise the longest prefix that fits is
    found, and cut back to its last paragraph break, else its last sentence end, else its
    last space, as long as that keeps at least half of it; trailing whitespace is removed.

    Args:
        text: the document.
        max_tokens: the budget, at least 1.
        count: counts the tokens of a string; must not shrink when characters are added.

    Returns:
        A prefix of ``text`` with ``count(result) <= max_tokens``.

    Raises:
        ValueError: ``max_tokens`` is below 1.

    Examples:
        >>> text = "First paragraph here.\\n\\nSecond one is longer. It has two sentences."
        >>> cut_to_budget(text, 100) == text
        True
        >>> cut_to_budget(text, 12)
        'First paragraph here.\\n\\nSecond one is longer.'
        >>> cut_to_budget(text, 8)
        'First paragraph here.'
        >>> cut_to_budget(text, 9, count=lambda s: len(s.split()))
        'First paragraph here.\\n\\nSecond one is longer.'
        >>> cut_to_budget("abcdefghij", 2)
        'abcdefgh'
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    if count(text) <= max_tokens:
        return text
    fit = _longest_fitting(text, max_tokens, count)
    return text[: _boundary(text, fit)].rstrip()
