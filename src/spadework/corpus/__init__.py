"""Corpus grounding: streaming readers, a compact index, a resumable sampler, the default corpus.

>>> from spadework.corpus import CorpusSampler, open_corpus
>>> sampler = CorpusSampler(open_corpus("default"), seed=0)
>>> sampler.sample().text != ""
True
"""

from spadework.corpus.budget import approx_tokens, cut_to_budget
from spadework.corpus.corpus import DEFAULT_CORPUS, Corpus, infer_format, open_corpus
from spadework.corpus.records import BadInput, CorpusFormat, CorpusStats, Document
from spadework.corpus.sampler import CorpusSampler

__all__ = [
    "DEFAULT_CORPUS",
    "BadInput",
    "Corpus",
    "CorpusFormat",
    "CorpusSampler",
    "CorpusStats",
    "Document",
    "approx_tokens",
    "cut_to_budget",
    "infer_format",
    "open_corpus",
]
