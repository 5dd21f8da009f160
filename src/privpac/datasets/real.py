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

__all__ = [
    "Dataset",
    "load_breast_cancer_feature",
    "BREAST_CANCER_BOUNDS",
    "BREAST_CANCER_DOCUMENTED_RANGES",
    "WINE_DOCUMENTED_RANGES",
    "documented_range",
]

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


def documented_range(low: str, high: str, *, non_negative: bool = False) -> tuple[float, float]:
    """Public bounds from a printed min and max: widened by one unit of the last printed digit.

    A documentation table prints rounded values (``0.053`` for a minimum of 0.05263), so the range
    it states is widened by one unit of its last digit on each side (``0.052``, and ``0.164`` for a
    printed maximum of ``0.163``); ``non_negative`` keeps a quantity that cannot be negative at 0 or
    above. A function of the printed text only.
    """

    def unit(text: str) -> float:
        return 10.0 ** -len(text.partition(".")[2])

    lo, hi = float(low) - unit(low), float(high) + unit(high)
    return (max(lo, 0.0) if non_negative else lo), hi


# The "Summary Statistics" table of scikit-learn's ``load_breast_cancer().DESCR`` (min, max per
# feature, in the order of ``feature_names``: the 10 means, the 10 standard errors, the 10 "worst"
# values), copied as printed. Every feature is a length, area, ratio, count or deviation: never
# negative. These are the dataset's documented ranges, written here by hand, not read off the data.
_BREAST_CANCER_DESCR = (
    ("6.981", "28.11"), ("9.71", "39.28"), ("43.79", "188.5"), ("143.5", "2501.0"), ("0.053", "0.163"),
    ("0.019", "0.345"), ("0.0", "0.427"), ("0.0", "0.201"), ("0.106", "0.304"), ("0.05", "0.097"),
    ("0.112", "2.873"), ("0.36", "4.885"), ("0.757", "21.98"), ("6.802", "542.2"), ("0.002", "0.031"),
    ("0.002", "0.135"), ("0.0", "0.396"), ("0.0", "0.053"), ("0.008", "0.079"), ("0.001", "0.03"),
    ("7.93", "36.04"), ("12.02", "49.54"), ("50.41", "251.2"), ("185.2", "4254.0"), ("0.071", "0.223"),
    ("0.027", "1.058"), ("0.0", "1.252"), ("0.0", "0.291"), ("0.156", "0.664"), ("0.055", "0.208"),
)  # fmt: skip
#: Public per-feature ``(low, high)`` of the 30 breast-cancer features from their documented ranges
#: (:func:`documented_range` of the DESCR table): ``Grid(*np.array(...).T, 2)`` is a public box domain.
BREAST_CANCER_DOCUMENTED_RANGES = tuple(documented_range(lo, hi, non_negative=True) for lo, hi in _BREAST_CANCER_DESCR)

# The "Summary Statistics" table of scikit-learn's ``load_wine().DESCR`` (min, max per feature, in
# the order of ``feature_names``), copied as printed: concentrations, absorbances and a hue, never negative.
_WINE_DESCR = (
    ("11.0", "14.8"), ("0.74", "5.80"), ("1.36", "3.23"), ("10.6", "30.0"), ("70.0", "162.0"), ("0.98", "3.88"),
    ("0.34", "5.08"), ("0.13", "0.66"), ("0.41", "3.58"), ("1.3", "13.0"), ("0.48", "1.71"), ("1.27", "4.00"),
    ("278", "1680"),
)  # fmt: skip
#: Public per-feature ``(low, high)`` of the 13 wine features from their documented ranges.
WINE_DOCUMENTED_RANGES = tuple(documented_range(lo, hi, non_negative=True) for lo, hi in _WINE_DESCR)


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
