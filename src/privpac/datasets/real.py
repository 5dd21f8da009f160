"""Bundled real data and synthetic realizable distributions.

Real data comes from scikit-learn's bundled copies (no download). Each loader returns the data
together with a *public* domain whose bounds were fixed a priori from what the feature measures,
not from the data: a private algorithm may only ever see bounds chosen this way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.datasets import load_breast_cancer as _sk_breast_cancer

from ..domains import Grid
from ..errors import InvalidParameterError
from ..random import as_random_source, uniform_array

__all__ = ["Dataset", "load_breast_cancer_feature", "BREAST_CANCER_BOUNDS"]

# Wisconsin Diagnostic Breast Cancer: cell-nucleus measurements from digitised images.
# Round bounds wider than any plausible value of the measurement, fixed without looking at the
# data (radius and perimeter in image units, area in squared units, the rest unitless).
BREAST_CANCER_BOUNDS = {
    "mean radius": (0.0, 40.0),
    "mean texture": (0.0, 50.0),
    "mean perimeter": (0.0, 250.0),
    "mean area": (0.0, 3000.0),
    "mean smoothness": (0.0, 0.25),
    "mean compactness": (0.0, 0.5),
    "mean concavity": (0.0, 0.5),
    "mean concave points": (0.0, 0.25),
    "worst radius": (0.0, 50.0),
    "worst perimeter": (0.0, 300.0),
    "worst area": (0.0, 5000.0),
    "worst concave points": (0.0, 0.5),
}


@dataclass
class Dataset:
    """Features, labels, a public domain and a description."""

    X: np.ndarray
    y: np.ndarray
    domain: object
    feature_names: list[str]
    description: str

    def split(self, test_fraction: float = 0.25, rng=0):
        """A random train/test split (the permutation uses ``rng``, seeded by default)."""
        n = len(self.y)
        order = np.argsort(uniform_array(n, as_random_source(rng)))
        n_test = int(round(test_fraction * n))
        test, train = order[:n_test], order[n_test:]
        return self.X[train], self.X[test], self.y[train], self.y[test]


def load_breast_cancer_feature(
    feature: str = "mean radius", n_points: int = 4001, positive: str = "malignant"
) -> Dataset:
    """One feature of scikit-learn's breast-cancer data on a public grid.

    Parameters
    ----------
    feature : str
        A feature with a public bound in :data:`BREAST_CANCER_BOUNDS`.
    n_points : int
        Grid resolution (public).
    positive : {"malignant", "benign"}
        Which diagnosis is label 1.
    """
    if feature not in BREAST_CANCER_BOUNDS:
        raise InvalidParameterError(
            f"feature must be one of {sorted(BREAST_CANCER_BOUNDS)} (features with public bounds), got {feature!r}"
        )
    if positive not in ("malignant", "benign"):
        raise InvalidParameterError(f"positive must be 'malignant' or 'benign', got {positive!r}")
    raw = _sk_breast_cancer()
    col = list(raw.feature_names).index(feature)
    X = raw.data[:, col].astype(float)
    # scikit-learn codes malignant as 0 and benign as 1.
    y = (raw.target == 0).astype(np.int64) if positive == "malignant" else raw.target.astype(np.int64)
    low, high = BREAST_CANCER_BOUNDS[feature]
    return Dataset(
        X=X,
        y=y,
        domain=Grid(low, high, n_points),
        feature_names=[feature],
        description=(
            f"Wisconsin Diagnostic Breast Cancer (scikit-learn bundled copy), feature '{feature}', "
            f"label 1 = {positive}; public grid [{low}, {high}] with {n_points} points"
        ),
    )


def load_breast_cancer_features(features=None, n_points: int = 4001, positive: str = "malignant") -> Dataset:
    """Several features of scikit-learn's breast-cancer data on a public grid (one axis each).

    ``features=None`` takes every feature with a public bound (:data:`BREAST_CANCER_BOUNDS`).
    """
    features = list(BREAST_CANCER_BOUNDS) if features is None else list(features)
    if not features:
        raise InvalidParameterError("features must name at least one feature")
    columns = [load_breast_cancer_feature(f, n_points, positive) for f in features]
    low = [c.domain.low[0] for c in columns]
    high = [c.domain.high[0] for c in columns]
    return Dataset(
        X=np.column_stack([c.X for c in columns]),
        y=columns[0].y,
        domain=Grid(low, high, n_points),
        feature_names=features,
        description=(
            f"Wisconsin Diagnostic Breast Cancer (scikit-learn bundled copy), {len(features)} features with "
            f"public bounds, label 1 = {positive}"
        ),
    )
