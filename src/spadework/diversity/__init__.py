"""Diversity of generated environments: embeddings, measures, collapse alarm and a 2-D map."""

from spadework.diversity.embed import (
    EmbedderKind,
    FakeEmbedder,
    HashingEmbedder,
    MiniLMEmbedder,
    make_embedder,
)
from spadework.diversity.incremental import DiversitySettings, IncrementalDiversity, RunningSums
from spadework.diversity.records import DiversitySummary, MapPoint, RunDiversity
from spadework.diversity.run import DiversityTracker, run_diversity

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
