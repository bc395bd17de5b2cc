"""Diversity of generated environments: embeddings, measures, collapse alarm and a 2-D map.

The names below are loaded on first use, so importing ``diversity.settings`` loads nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spadework.lazy import lazy_exports

__getattr__, __dir__ = lazy_exports(__name__, {
    "spadework.diversity.embed": ("EmbedderKind", "FakeEmbedder", "HashingEmbedder", "MiniLMEmbedder",
                                  "make_embedder"),
    "spadework.diversity.incremental": ("IncrementalDiversity", "RunningSums"),
    "spadework.diversity.records": ("DiversitySummary", "MapPoint", "RunDiversity"),
    "spadework.diversity.run": ("DiversityTracker", "run_diversity"),
    "spadework.diversity.settings": ("DiversitySettings",),
})

if TYPE_CHECKING:
    from spadework.diversity.embed import (
        EmbedderKind,
        FakeEmbedder,
        HashingEmbedder,
        MiniLMEmbedder,
        make_embedder,
    )
    from spadework.diversity.incremental import IncrementalDiversity, RunningSums
    from spadework.diversity.records import DiversitySummary, MapPoint, RunDiversity
    from spadework.diversity.run import DiversityTracker, run_diversity
    from spadework.diversity.settings import DiversitySettings

__all__ = [
    "DiversitySettings",
    "DiversitySummary",
    "DiversityTracker",
    "EmbedderKind",
    "FakeEmbedder",
    "HashingEmbedder",
    "IncrementalDiversity",
    "MapPoint",
    "MiniLMEmbedder",
    "RunDiversity",
    "RunningSums",
    "make_embedder",
    "run_diversity",
]
