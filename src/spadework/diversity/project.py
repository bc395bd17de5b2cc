"""A 2-D map of embeddings: t-SNE when there are enough points, PCA for a handful."""

from __future__ import annotations

import numpy as np

TSNE_MIN_POINTS = 8
"""Below this t-SNE has too few neighbours to mean anything; the map falls back to PCA."""


def pca_2d(matrix: np.ndarray) -> np.ndarray:
    """The first two principal components (columns padded with zeros when there are fewer).

    Each component's sign is fixed so that its largest loading is positive (scikit-learn's rule),
    so the map points the same way whatever sign the decomposition returned; mirrored data gives
    a mirrored map.

    >>> pca_2d(np.array([[0.0, 0.0], [2.0, 0.0], [4.0, 0.0]])).round(3).tolist()
    [[-2.0, 0.0], [0.0, 0.0], [2.0, 0.0]]
    >>> pca_2d(np.array([[0.0, 0.0], [-2.0, 0.0], [-4.0, 0.0]])).round(3).tolist()
    [[2.0, 0.0], [0.0, 0.0], [-2.0, 0.0]]
    """
    centred = matrix - matrix.mean(axis=0, keepdims=True)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    components = components[:2]
    largest = components[np.arange(len(components)), np.abs(components).argmax(axis=1)]
    coords = centred @ (components * np.where(largest < 0, -1.0, 1.0)[:, None]).T
    if coords.shape[1] < 2:
        coords = np.hstack([coords, np.zeros((len(matrix), 2 - coords.shape[1]))])
    return coords + 0.0  # no negative zeros


def project_2d(vectors: np.ndarray, seed: int = 0) -> tuple[np.ndarray, str]:
    """Coordinates (one row per vector) and the method used: "t-SNE", "PCA" or "none".

    >>> coords, method = project_2d(np.eye(3))
    >>> coords.shape, method
    ((3, 2), 'PCA')
    >>> project_2d(np.ones((1, 4)))[1]
    'none'
    """
    count = len(vectors)
    if count < 3:
        return np.zeros((count, 2)), "none"
    if count < TSNE_MIN_POINTS:
        return pca_2d(np.asarray(vectors, dtype=np.float64)), "PCA"
    from sklearn.manifold import TSNE

    tsne = TSNE(n_components=2, perplexity=min(30.0, (count - 1) / 3), metric="cosine", init="pca",
                random_state=seed)
    return tsne.fit_transform(np.asarray(vectors, dtype=np.float64)), "t-SNE"
