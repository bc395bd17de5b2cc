"""Diversity of a run's environments: embeddings (cached in the archive), the loop's
per-iteration metrics with the collapse alarm, and the whole-run measurement with its map."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spadework.archive import Archive, EnvRecord, PlayResult
from spadework.diversity.embed import Embedder, EmbedderKind, make_embedder
from spadework.diversity.measure import as_matrix, cluster_labels, collapsed, summarise
from spadework.diversity.project import project_2d
from spadework.diversity.records import DiversitySummary, MapPoint, RunDiversity


@dataclass(frozen=True)
class DiversitySettings:
    """Thresholds of the measures (cosine distances) and the collapse window.

    The defaults suit all-MiniLM-L6-v2: there, the same game re-themed lies 0.06-0.14 apart,
    different games 0.25-0.65 (measured on the scripted families and the bundled examples).
    """

    near_duplicate: float = 0.1
    cluster_distance: float = 0.25
    collapse_window: int = 6


def measured(record: EnvRecord) -> bool:
    """Whether a record is one of the run's environments: a valid final design, or a valid
    file recorded by ``spadework validate --run-dir`` (a record without a design).

    >>> from spadework.archive import DesignResult
    >>> from spadework.validate.verdict import CheckResult, Outcome, Verdict
    >>> ok = Verdict((CheckResult("load", Outcome.PASSED),), "none")
    >>> def attempt(final): return DesignResult(0, "d", 1, None, None, final)
    >>> [measured(EnvRecord.new("x = 1", ok, "run", design=attempt(f))) for f in (True, False)]
    [True, False]
    >>> measured(EnvRecord.new("x = 1", ok, "envs/x.py"))
    True
    """
    design = record.design
    return record.valid and (design is None or design.final)


def texts_of(record: EnvRecord) -> tuple[str, str]:
    """What is embedded: the environment as a player meets it (its first observation, or its
    class and hint when it was never played) and its code."""
    play = _play(record)
    description = play.description if play is not None else ""
    return description or f"{record.class_name or ''}: {record.hint or ''}", record.source


def _play(record: EnvRecord) -> PlayResult | None:
    design = record.design
    return design.play if design is not None else None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def embed_texts(texts: Sequence[str], embedder: Embedder, archive: Archive | None) -> np.ndarray:
    """One row per text, from the archive's cache where present; the rest embedded and cached."""
    digests = [_digest(t) for t in texts]
    cached = archive.cached_vectors(embedder.name, sorted(set(digests))) if archive is not None else {}
    missing = sorted({d: t for d, t in zip(digests, texts, strict=True) if d not in cached}.items())
    if missing:
        rows = embedder.embed([t for _, t in missing]).astype(np.float32)
        fresh = {d: row.tobytes() for (d, _), row in zip(missing, rows, strict=True)}
        if archive is not None:
            archive.cache_vectors(embedder.name, fresh)
        cached = {**cached, **fresh}
    return np.stack([np.frombuffer(cached[d], dtype=np.float32) for d in digests]).astype(np.float64) \
        if digests else np.zeros((0, 0))


def embed_records(records: Sequence[EnvRecord], embedder: Embedder, archive: Archive | None) -> np.ndarray:
    """An environment's vector: the unit mean of its description's and its code's embeddings."""
    if not records:
        return np.zeros((0, 0))
    pairs = [texts_of(r) for r in records]
    rows = embed_texts([p[0] for p in pairs] + [p[1] for p in pairs], embedder, archive)
    return as_matrix(rows[:len(records)] + rows[len(records):])


def loop_metrics(vectors_so_far: np.ndarray, new_count: int, settings: DiversitySettings) -> dict[str, float]:
    """The loop's ``diversity/...`` metrics after an iteration added ``new_count`` environments
    (the last rows of ``vectors_so_far``, every environment of the run in archive order).

    >>> m = loop_metrics(np.array([[1.0, 0], [0, 1.0], [0, 1.0]]), 2, DiversitySettings(collapse_window=2))
    >>> m["diversity/environments"], m["diversity/clusters"], m["diversity/iteration_score"]
    (3.0, 2.0, 0.0)
    >>> m["diversity/collapse"], m["diversity/near_duplicate_rate"]
    (1.0, 0.6666666666666666)
    """
    run = summarise(vectors_so_far, near_duplicate=settings.near_duplicate,
                    cluster_distance=settings.cluster_distance)
    this = summarise(vectors_so_far[len(vectors_so_far) - new_count:], near_duplicate=settings.near_duplicate,
                     cluster_distance=settings.cluster_distance)
    alarm = collapsed(vectors_so_far, window=settings.collapse_window,
                      cluster_distance=settings.cluster_distance)
    return {
        "diversity/environments": float(run.count), "diversity/score": run.score,
        "diversity/near_duplicate_rate": run.near_duplicate_rate, "diversity/clusters": float(run.clusters),
        "diversity/iteration_score": this.score, "diversity/collapse": 1.0 if alarm else 0.0,
    }


class DiversityTracker:
    """The loop's measurement: embeds each iteration's new environments (cached in the archive)
    and scores them together with every earlier one."""

    def __init__(self, embedder: Embedder, settings: DiversitySettings):
        self.embedder = embedder
        self.settings = settings

    def measure(self, archive: Archive, new_records: Sequence[EnvRecord]) -> dict[str, float]:
        earlier = [r for r in archive.records() if measured(r)]
        new = [r for r in new_records if measured(r)]
        vectors = embed_records(earlier + new, self.embedder, archive)
        if len(vectors) == 0:
            vectors = np.zeros((0, 1))
        return loop_metrics(vectors, len(new), self.settings)


def _iteration(record: EnvRecord) -> int | None:
    design = record.design
    return design.iteration if design is not None else None


def run_diversity(
    run_dir: Path, embedder: Embedder | None = None, settings: DiversitySettings | None = None,
) -> RunDiversity:
    """Measure a run: the summary over all its environments, the summary after each iteration
    (cumulative), the iterations that raised the collapse alarm, and the 2-D map.

    Args:
        embedder: embeds the environments; default: the best one this install has.
        settings: the thresholds; default: ``DiversitySettings()``. (``spadework.engines``'s
            ``measure_run`` measures with the settings in the run's own config.)
    """
    embedder = embedder or make_embedder(EmbedderKind.AUTO)
    settings = settings or DiversitySettings()
    with Archive.open(run_dir, create=False) as archive:
        records = [r for r in archive.records() if measured(r)]
        vectors = embed_records(records, embedder, archive)
    iterations = sorted({i for i in map(_iteration, records) if i is not None})
    per_iteration: dict[int, DiversitySummary] = {}
    alarms = []
    for iteration in iterations:
        upto = vectors[[k for k, r in enumerate(records) if (_iteration(r) or 0) <= iteration]]
        per_iteration[iteration] = summarise(upto, near_duplicate=settings.near_duplicate,
                                             cluster_distance=settings.cluster_distance)
        if collapsed(upto, window=settings.collapse_window, cluster_distance=settings.cluster_distance):
            alarms.append(iteration)
    overall = summarise(vectors, near_duplicate=settings.near_duplicate,
                        cluster_distance=settings.cluster_distance)
    coords, method = project_2d(vectors) if records else (np.zeros((0, 2)), "none")
    labels = cluster_labels(vectors, settings.cluster_distance) if records else []
    return RunDiversity(overall, per_iteration, map_points(records, coords, labels), tuple(alarms), method)


def map_points(records: Sequence[EnvRecord], coords: np.ndarray,
               labels: Sequence[int]) -> tuple[MapPoint, ...]:
    """One point per environment, with what the map colours by."""
    points = []
    for r, (x, y), label in zip(records, coords, labels, strict=True):
        design, play = r.design, _play(r)
        points.append(MapPoint(record_id=r.id or 0, x=float(x), y=float(y), iteration=_iteration(r),
                               domain=design.domain if design is not None else None,
                               regret=play.regret if play is not None else None, cluster=label,
                               class_name=r.class_name))
    return tuple(points)
