"""What the diversity measurement of a run produces: summaries per iteration and a 2-D map."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DiversitySummary:
    """Diversity of one set of environments.

    Attributes:
        count: environments measured.
        score: mean pairwise cosine distance of their embeddings (0: all identical; about 1:
            unrelated); 0.0 when fewer than two.
        near_duplicate_rate: share of environments whose nearest other one is closer than the
            near-duplicate distance.
        clusters: groups left by average-linkage clustering cut at the cluster distance.
    """

    count: int
    score: float
    near_duplicate_rate: float
    clusters: int


@dataclass(frozen=True)
class MapPoint:
    """One valid environment on the 2-D map."""

    record_id: int
    x: float
    y: float
    iteration: int | None
    domain: str | None
    regret: float | None
    cluster: int
    class_name: str | None


@dataclass(frozen=True)
class RunDiversity:
    """A run's diversity: over all its valid environments, per iteration, and the map.

    Attributes:
        overall: the summary over every valid environment.
        per_iteration: iteration -> summary of the valid environments of iterations up to it.
        points: the map: one point per valid environment, or an evenly spaced sample of them in a
            large run (``spadework.diversity.run.MAP_POINTS``).
        alarms: iterations whose recent designs fell into one cluster (a collapse alarm).
        projection: how the map was made ("t-SNE", "PCA", or "none" for fewer than 3 points).
        score_ci: the 95% interval of ``overall.score`` (jackknife; measured on the map's
            environments, all of them up to ``MAP_POINTS``); (0, 2) for fewer than three.
        near_duplicate_ci: the 95% interval of ``overall.near_duplicate_rate`` (Wilson's).
    """

    overall: DiversitySummary
    per_iteration: dict[int, DiversitySummary]
    points: tuple[MapPoint, ...]
    alarms: tuple[int, ...]
    projection: str
    score_ci: tuple[float, float] = (0.0, 2.0)
    near_duplicate_ci: tuple[float, float] = (0.0, 1.0)
