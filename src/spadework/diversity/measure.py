"""Pure diversity measures over unit-length embedding vectors (rows of a matrix).

The distance between two environments is the cosine distance of their embeddings,
``1 - cos(a, b)``: 0 for the same direction, 1 for unrelated (orthogonal) ones.

- **diversity score**: the mean cosine distance over all unordered pairs.
- **near-duplicate rate**: the share of environments whose nearest other environment lies
  closer than a near-duplicate distance.
- **clusters**: the groups left by average-linkage agglomerative clustering, merging while
  the average distance between two groups is at most the cluster distance.
- **collapse**: the most recent environments (a full window of them) all fall into one cluster.

Intervals (95%) say how far a score rests on which environments happened to be designed: the
diversity score's is the jackknife's normal interval (the score is a mean over pairs, a
U-statistic, and leaving one environment out at a time gives its standard error); the
near-duplicate rate's is Wilson's interval on the count of near-duplicates.
"""

from __future__ import annotations

import numpy as np

from spadework.diversity.records import DiversitySummary
from spadework.rewards.interval import Z95


def as_matrix(vectors) -> np.ndarray:
    """Rows as a float64 matrix, each scaled to unit length (a zero row stays zero).

    >>> as_matrix([[3.0, 4.0], [0.0, 0.0]]).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    matrix = np.asarray(vectors, dtype=np.float64).reshape(len(vectors), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


def cosine_distances(vectors) -> np.ndarray:
    """The matrix of pairwise cosine distances, clipped to [0, 2], with a zero diagonal.

    >>> cosine_distances([[1, 0], [0, 1], [1, 1]]).round(3).tolist()
    [[0.0, 1.0, 0.293], [1.0, 0.0, 0.293], [0.293, 0.293, 0.0]]
    """
    matrix = as_matrix(vectors)
    distances = np.clip(1.0 - matrix @ matrix.T, 0.0, 2.0)
    np.fill_diagonal(distances, 0.0)
    return distances


def diversity_score(vectors) -> float:
    """Mean cosine distance over all unordered pairs; 0.0 for fewer than two vectors.

    >>> diversity_score([[1, 0], [0, 1]])
    1.0
    >>> round(diversity_score([[1, 0], [0, 1], [1, 1]]), 4)  # (1 + 0.2929 + 0.2929) / 3
    0.5286
    >>> diversity_score([[1, 0], [2, 0]]), diversity_score([[1, 0]])
    (0.0, 0.0)
    """
    count = len(vectors)
    if count < 2:
        return 0.0
    upper = np.triu_indices(count, k=1)
    return float(cosine_distances(vectors)[upper].mean())


def score_interval(vectors, z: float = Z95) -> tuple[float, float]:
    """The diversity score's interval (95% by default): the score plus and minus ``z`` jackknife
    standard errors, clipped to [0, 2]; ``(0.0, 2.0)`` for fewer than three vectors (nothing is
    known).

    Leaving vector ``i`` out removes its row of distances: with ``T`` the sum over pairs and
    ``r_i`` the row sum, the score without it is ``(T - r_i) / C(n - 1, 2)``, and the jackknife
    variance is ``(n - 1) / n`` times the sum of squared deviations of those n scores.

    >>> low, high = score_interval([[1, 0], [0, 1], [1, 1], [1, 0.2]])
    >>> round(diversity_score([[1, 0], [0, 1], [1, 1], [1, 0.2]]), 3), round(low, 3), round(high, 3)
    (0.43, 0.0, 1.003)
    >>> score_interval([[1, 0], [0, 1], [1, 0], [0, 1], [1, 0], [0, 1]])  # two kinds, half each
    (0.6, 0.6)
    >>> score_interval([[1, 0], [0, 1]])
    (0.0, 2.0)
    """
    count = len(vectors)
    if count < 3:
        return 0.0, 2.0
    distances = cosine_distances(vectors)
    rows = distances.sum(axis=1)
    total = rows.sum() / 2
    left_out = (total - rows) / ((count - 1) * (count - 2) / 2)
    error = float(np.sqrt((count - 1) / count * ((left_out - left_out.mean()) ** 2).sum()))
    score = total / (count * (count - 1) / 2)
    return max(0.0, float(score - z * error)), min(2.0, float(score + z * error))


def near_duplicate_rate(vectors, distance: float) -> float:
    """Share of vectors whose nearest other vector is closer than ``distance``.

    >>> near_duplicate_rate([[1, 0], [1, 0.01], [0, 1]], 0.05)  # the first two are twins
    0.6666666666666666
    >>> near_duplicate_rate([[1, 0]], 0.05)
    0.0
    """
    count = len(vectors)
    if count < 2:
        return 0.0
    distances = cosine_distances(vectors)
    np.fill_diagonal(distances, np.inf)
    return float((distances.min(axis=1) < distance).mean())


def cluster_labels(vectors, distance: float) -> list[int]:
    """Average-linkage clusters cut at ``distance``, labelled 0, 1, ... in order of first member.

    >>> cluster_labels([[1, 0], [1, 0.1], [0, 1], [0.1, 1]], 0.3)
    [0, 0, 1, 1]
    >>> cluster_labels([[1, 0], [0, 1]], 1.0)  # merged: their distance is exactly 1.0
    [0, 0]
    >>> cluster_labels([], 0.3), cluster_labels([[1, 0]], 0.3)
    ([], [0])
    """
    count = len(vectors)
    if count < 2:
        return [0] * count
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    condensed = squareform(cosine_distances(vectors), checks=False)
    raw = fcluster(linkage(condensed, method="average"), t=distance + 1e-12, criterion="distance")
    first_seen: dict[int, int] = {}
    return [first_seen.setdefault(int(label), len(first_seen)) for label in raw]


def summarise(vectors, *, near_duplicate: float, cluster_distance: float) -> DiversitySummary:
    """Count, score, near-duplicate rate and clusters of one set of vectors.

    >>> s = summarise([[1, 0], [1, 0.01], [0, 1]], near_duplicate=0.05, cluster_distance=0.3)
    >>> s.count, round(s.score, 3), round(s.near_duplicate_rate, 3), s.clusters
    (3, 0.663, 0.667, 2)
    """
    return DiversitySummary(
        count=len(vectors),
        score=diversity_score(vectors),
        near_duplicate_rate=near_duplicate_rate(vectors, near_duplicate),
        clusters=len(set(cluster_labels(vectors, cluster_distance))),
    )


def collapsed(recent, *, window: int, cluster_distance: float) -> bool:
    """Whether the last ``window`` vectors all fall into one cluster (needs a full window).

    >>> collapsed([[1, 0], [1, 0.05], [1, 0.1]], window=3, cluster_distance=0.3)
    True
    >>> collapsed([[0, 1], [1, 0.05], [1, 0.1]], window=2, cluster_distance=0.3)
    True
    >>> collapsed([[0, 1], [1, 0.05], [1, 0.1]], window=3, cluster_distance=0.3)
    False
    >>> collapsed([[1, 0]], window=3, cluster_distance=0.3)  # too few to tell
    False
    """
    if len(recent) < max(window, 2):
        return False
    return len(set(cluster_labels(list(recent)[-window:], cluster_distance))) == 1
