"""Diversity of a run's environments: embeddings (cached in the archive), the loop's
per-iteration metrics with the collapse alarm, and the whole-run measurement with its map.

The loop's tracker keeps the run's vectors, running sums and near-duplicate flags from one
iteration to the next (``spadework.diversity.incremental``): an iteration embeds and measures only
its new environments. Their vectors and flags are committed with the iteration (the archive's
``vectors`` table), so a resumed run starts from exactly the state the last commit left.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from spadework.archive import Archive, EnvRecord, EnvSummary, PlayResult, VectorUpdate
from spadework.archive.side import MEASURED
from spadework.diversity.embed import Embedder, EmbedderKind, make_embedder
from spadework.diversity.incremental import BatchResult, IncrementalDiversity, quantise
from spadework.diversity.measure import as_matrix, cluster_labels, score_interval
from spadework.diversity.project import project_2d
from spadework.diversity.records import DiversitySummary, MapPoint, RunDiversity
from spadework.diversity.settings import DiversitySettings
from spadework.rewards.interval import wilson_interval

__all__ = ["DiversitySettings", "DiversityTracker", "measured", "run_diversity"]

MAP_POINTS = 2000
"""The most environments the map shows: all of a smaller run; else an evenly spaced sample."""
BACKFILL_CHUNK = 500
INDEX_DIR = "index"


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


class DiversityTracker:
    """The loop's measurement: embeds each iteration's new environments (cached in the archive),
    measures them against the run so far, and keeps what it needs for the next iteration.

    Args:
        embedder: embeds the environments.
        settings: the thresholds and windows.
        warn: where notes go (a missing or stale index rebuilt from the archive).
        index_dir: where the approximate nearest-neighbour index is saved between sessions
            (``RUN_DIR/index``); None: never saved, rebuilt from the archive's vectors when needed.
    """

    def __init__(self, embedder: Embedder, settings: DiversitySettings, warn: Callable[[str], None] = print,
                 index_dir: Path | None = None):
        self.embedder, self.settings, self.warn, self.index_dir = embedder, settings, warn, index_dir
        self.state: IncrementalDiversity | None = None
        self._pending: tuple[BatchResult, list[int]] | None = None
        self._saved = 0
        self._seen = 0

    @property
    def index_path(self) -> Path | None:
        """Where the nearest-neighbour index of this embedder is saved; None when it is never saved."""
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.embedder.name)
        return None if self.index_dir is None else self.index_dir / f"vectors-{name}.usearch"

    def measure(self, archive: Archive, new_records: Sequence[EnvRecord],
                iteration: int = 0) -> dict[str, float]:
        """The ``diversity/...`` metrics with ``new_records`` added (only valid final designs and
        valid records not designed by the loop count); their vectors wait for ``update``."""
        state = self._open(archive, iteration)
        positions = [k for k, r in enumerate(new_records) if measured(r)]
        vectors = embed_records([new_records[k] for k in positions], self.embedder, archive)
        batch = state.preview(vectors)
        self._pending = (batch, positions)
        return batch.metrics

    def update(self) -> VectorUpdate | None:
        """The measured batch as the archive stores it with the iteration's commit."""
        if self._pending is None or self.state is None:
            return None
        batch, positions = self._pending
        return _update(self.embedder.name, batch, positions, self.state)

    def committed(self, stored: Sequence[EnvRecord]) -> None:
        """The batch is in the archive: its environments join the state under their ids."""
        if self._pending is None or self.state is None:
            return
        batch, positions = self._pending
        self.state.apply(batch, [stored[k].id or 0 for k in positions])
        self._pending = None
        path = self.index_path
        if path is not None and len(self.state) >= 1.1 * max(self._saved, 1) and self.state.near.has_ann:
            self.save()

    def save(self) -> None:
        """Write the approximate index beside the archive (when there is one)."""
        path = self.index_path
        if path is not None and self.state is not None and self.state.near.has_ann:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.state.near.save(path)
            self._saved = len(self.state)

    def _open(self, archive: Archive, iteration: int) -> IncrementalDiversity:
        if self.state is None:
            self.state = IncrementalDiversity(self.settings)
            stored = archive.stored_vectors(self.embedder.name)
            self.state.load(stored.ids, stored.vectors, stored.near)
            if len(self.state) > self.state.exact_below:
                self.state.near.build(self.index_path, self.warn)
                self._saved = len(self.state)
        latest = archive.last_id()  # records added since the last look: ids above it
        missing = archive.unvectored(self.embedder.name, self._seen) if latest > self._seen else []
        self._seen = latest
        if missing:
            self.warn(f"note: measuring {len(missing)} archived environments for diversity once "
                      f"({self.embedder.name}; their vectors are stored in the archive)")
            for start in range(0, len(missing), BACKFILL_CHUNK):
                ids = missing[start:start + BACKFILL_CHUNK]
                records = [archive.get(i) for i in ids]
                batch = self.state.preview(embed_records(records, self.embedder, archive))
                archive.put_vectors(_update(self.embedder.name, batch, ids, self.state))
                self.state.apply(batch, ids)
        return self.state


def _update(embedder: str, batch: BatchResult, keys: Sequence[int],
            state: IncrementalDiversity) -> VectorUpdate:
    """A batch as stored: each vector (float32 holds the quantised values exactly) with its flag."""
    ids = state.near.ids
    return VectorUpdate(embedder, tuple(
        (key, vector.astype(np.float32).tobytes(), flag)
        for key, vector, flag in zip(keys, batch.vectors, batch.flags, strict=True)),
        tuple(int(ids[p]) for p in batch.earlier))


def _summary(metrics: dict[str, float]) -> DiversitySummary:
    return DiversitySummary(count=int(metrics["diversity/environments"]), score=metrics["diversity/score"],
                            near_duplicate_rate=metrics["diversity/near_duplicate_rate"],
                            clusters=int(metrics["diversity/clusters"]))


def run_vectors(archive: Archive, rows: Sequence[EnvSummary],
                embedder: Embedder) -> tuple[np.ndarray, np.ndarray | None]:
    """The environments' vectors (quantised) and, when the loop stored every one with this embedder,
    its near-duplicate flags; else vectors embedded now (from the embedding cache where it can)."""
    stored = archive.stored_vectors(embedder.name)
    if len(stored.ids) and np.array_equal(stored.ids, np.array([r.id for r in rows])):
        return stored.vectors.astype(np.float64), stored.near
    records = [archive.get(r.id) for r in rows]
    return (quantise(embed_records(records, embedder, archive)) if records else np.zeros((0, 0))), None


def logged(archive: Archive) -> dict[int, dict[str, float]] | None:
    """The loop's ``diversity/...`` metrics of every committed iteration, or None when one lacks them."""
    keys = ("diversity/environments", "diversity/score", "diversity/near_duplicate_rate",
            "diversity/clusters", "diversity/collapse")
    found = {i: m for i, m in archive.iterations()}
    return found if found and all(all(k in m for k in keys) for m in found.values()) else None


EVERY_DESIGN = "iteration >= 0 AND final = 1 AND class_name IS NOT NULL"
"""The designs ``run_diversity(every_design=True)`` measures: each design's final attempt whose code
names an environment class, valid or not (a reply without code has nothing to measure)."""


def run_diversity(
    run_dir: Path, embedder: Embedder | None = None, settings: DiversitySettings | None = None, *,
    use_logged: bool = False, every_design: bool = False,
) -> RunDiversity:
    """Measure a run: the summary over all its environments, the summary after each iteration
    (cumulative, the same incremental measures as the loop's), the iterations that raised the
    collapse alarm, and the 2-D map (of at most ``MAP_POINTS`` environments, evenly spaced).

    Args:
        embedder: embeds the environments; default: the best one this install has.
        settings: the thresholds; default: ``DiversitySettings()``. (``spadework.engines``'s
            ``measure_run`` measures with the settings in the run's own config.)
        use_logged: take the per-iteration summaries and alarms from the loop's logged metrics when
            every iteration has them and the loop stored every vector with this embedder (they were
            measured with the run's settings, so only ``measure_run`` asks for this); else they are
            measured again, iteration by iteration.
        every_design: measure what the designer wrote rather than the run's environments: every
            design's final attempt, valid or not (``EVERY_DESIGN``; never from the logged figures,
            which count valid environments only).
    """
    embedder = embedder or make_embedder(EmbedderKind.AUTO)
    settings = settings or DiversitySettings()
    with Archive.open(run_dir, create=False) as archive:
        rows = archive.summaries(EVERY_DESIGN if every_design else MEASURED)
        vectors, flags = run_vectors(archive, rows, embedder)
        history = logged(archive) if use_logged and flags is not None and not every_design else None
    if history is not None and flags is not None:
        state = IncrementalDiversity(settings)
        state.load(np.array([r.id for r in rows], dtype=np.int64), vectors, flags)
        per_iteration = {i: _summary(m) for i, m in sorted(history.items())}
        alarms = tuple(i for i, m in sorted(history.items()) if m["diversity/collapse"])
        overall = _summary(state.preview(np.zeros((0, vectors.shape[1]))).metrics)
    else:
        overall, per_iteration, alarms = _measure_by_iteration(rows, vectors, settings)
    points, projection = map_of(rows, vectors, settings)
    near = wilson_interval(round(overall.near_duplicate_rate * overall.count), overall.count)
    return RunDiversity(overall, per_iteration, points, alarms, projection,
                        score_interval(vectors[map_sample(len(rows))]) if rows else (0.0, 2.0), near)


def _measure_by_iteration(rows: Sequence[EnvSummary], vectors: np.ndarray, settings: DiversitySettings):
    """Overall and per-iteration summaries and alarms, adding each iteration's environments in turn
    (records not designed by the loop count from iteration 0 on)."""
    keys = np.array([max(r.iteration, 0) for r in rows], dtype=np.int64)
    state = IncrementalDiversity(settings)
    per_iteration: dict[int, DiversitySummary] = {}
    alarms, metrics = [], {}
    for key in sorted(set(keys.tolist())):
        chosen = np.flatnonzero(keys == key)
        members: list[int] = chosen.tolist()
        batch = state.preview(vectors[chosen])
        state.apply(batch, [rows[k].id for k in members])
        metrics = batch.metrics
        if any(rows[k].designed for k in members) or key > 0:
            per_iteration[key] = _summary(metrics)
            if metrics["diversity/collapse"]:
                alarms.append(key)
    overall = _summary(metrics) if rows else DiversitySummary(0, 0.0, 0.0, 0)
    return overall, per_iteration, tuple(alarms)


def map_sample(count: int) -> np.ndarray:
    """Which of ``count`` environments the map shows: all, or ``MAP_POINTS`` evenly spaced.

    >>> map_sample(3).tolist(), len(map_sample(10 * MAP_POINTS))
    ([0, 1, 2], 2000)
    """
    return np.unique(np.linspace(0, count - 1, min(count, MAP_POINTS)).round().astype(int))


def map_of(rows: Sequence[EnvSummary], vectors: np.ndarray,
           settings: DiversitySettings) -> tuple[tuple[MapPoint, ...], str]:
    """The map's points (an evenly spaced sample of at most ``MAP_POINTS``) and its projection."""
    if not rows:
        return (), "none"
    chosen = map_sample(len(rows))
    coords, method = project_2d(vectors[chosen])
    labels = cluster_labels(vectors[chosen], settings.cluster_distance)
    return map_points([rows[k] for k in chosen], coords, labels), method


def map_points(rows: Sequence[EnvSummary], coords: np.ndarray,
               labels: Sequence[int]) -> tuple[MapPoint, ...]:
    """One point per environment, with what the map colours by."""
    return tuple(MapPoint(record_id=r.id, x=float(x), y=float(y),
                          iteration=r.iteration if r.designed else None,
                          domain=r.domain, regret=r.regret, cluster=label, class_name=r.class_name)
                 for r, (x, y), label in zip(rows, coords, labels, strict=True))
