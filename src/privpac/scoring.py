"""How well a fitted model does on data the data holder has (``privpac score``).

:func:`model_scores` gives a classifier's accuracy (scikit-learn's ``score``) on labelled data, and
for the statistics the fit statistic the algorithm aims at: the rank error of a median, the Tukey
depth of a center point, the fraction of constraints a feasible point satisfies, the count error of
a histogram.

These numbers are **not** private releases: they are computed from the records given (a test set,
or the training data) for the data holder's own eyes, as scikit-learn's ``score`` is. Publishing
one is a release of that data.
"""

from __future__ import annotations

from fractions import Fraction
from math import lcm

import numpy as np

from .errors import DataError, InvalidParameterError
from .validation import as_numpy

__all__ = ["model_scores"]


def model_scores(est, X, y=None) -> list[tuple[str, float]]:
    """``[(name, value), ...]``: how fitted ``est`` does on ``X`` (and labels ``y`` for a classifier).

    Parameters
    ----------
    est : a fitted privpac estimator
        A classifier (accuracy), ``PrivateMedian`` (rank error), ``PrivateCenterPoint`` (depth),
        ``PrivateLinearFeasibility`` (constraints satisfied; ``X`` is ``A``, ``y`` is ``b``) or
        ``PrivateHistogram`` (count error).
    X : array-like
        The records, in the estimator's units and feature order.
    y : array-like, default=None
        True labels (classifiers) or right-hand sides ``b`` (linear feasibility).

    Raises
    ------
    privpac.errors.InvalidParameterError
        A model with no score or statistic (the sanitizers: query them with ``privpac query``).
    privpac.errors.DataError
        Missing labels, labels outside the model's public labels, empty data.
    """
    est._check_fitted()
    X = as_numpy(X, "X")  # a DataFrame is read as fit reads it
    y = None if y is None else as_numpy(y, "y", labels=True)
    if hasattr(est, "predict") and hasattr(est, "classes_"):
        return _classifier(est, X, y)
    statistic = _STATISTICS.get(type(est).__name__)
    if statistic is None:
        raise InvalidParameterError(
            f"{type(est).__name__} is not a classifier and has no fit statistic"
            + ("; ask it counting queries with privpac query" if hasattr(est, "answer") else "")
        )
    return statistic(est, X, y)


def _classifier(est, X, y) -> list[tuple[str, float]]:
    if y is None:
        raise DataError(f"{type(est).__name__} is a classifier: its score needs the true labels (--label)")
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0:
        raise DataError(f"the labels must be one non-empty column, got shape {y.shape}")
    known = np.asarray(est.classes_)
    outside = np.unique(y[~np.isin(y, known)])
    if outside.size:
        shown = ", ".join(str(v) for v in outside[:5].tolist()) + (", ..." if outside.size > 5 else "")
        raise DataError(
            f"labels {shown} are not among the model's public labels {tuple(known.tolist())} "
            "(map them first, or fit with --set labels=[...])"
        )
    return [("accuracy", float(est.score(X, y)))]


def _median(est, X, y) -> list[tuple[str, float]]:
    from .estimators._one_d import one_d_values

    x = one_d_values(X, "X")
    n = x.size
    if n == 0:
        raise DataError("X is empty: a rank error needs records")
    m = est.median_
    below, above = int(np.count_nonzero(x <= m)), int(np.count_nonzero(x >= m))
    # the median's quality min(#{x <= m}, #{x >= m}) (private_median's q) against its best, n/2
    return [
        ("rank error (1/2 - min(#{x <= m}, #{x >= m})/n, 0 at a true median)", max(0.0, 0.5 - min(below, above) / n)),
        ("records at or below the median", below),
        ("records at or above the median", above),
    ]


def _center_point(est, X, y) -> list[tuple[str, float]]:
    from .geometry import tukey_depth
    from .geometry.directional import directional_depth
    from .learners.center_point import net_directions

    X = np.asarray(X)
    X = X.reshape(-1, 1) if X.ndim == 1 else X
    n, d = X.shape
    if n == 0:
        raise DataError("X is empty: a depth needs records")
    if est.depth == "directional":
        depth, what = directional_depth(est.center_, X, net_directions(d)), "directional depth (the fit's net)"
    else:
        depth, what = tukey_depth(est.center_, X), "Tukey depth"
    return [
        (what, depth),
        (f"{what} / n (a true center point reaches 1/(d+1) = {1 / (d + 1):.3g})", depth / n),
    ]


def _linear_feasibility(est, A, b) -> list[tuple[str, float]]:
    from .geometry._exact import as_integer_points

    if b is None:
        raise DataError("the constraints <a, x> >= b need their right-hand sides b (--label)")
    A, _ = as_integer_points(A, "A")
    b, _ = as_integer_points(np.asarray(b).reshape(-1, 1), "b")
    if b.shape[0] != A.shape[0]:
        raise DataError(f"A has {A.shape[0]} rows and b has {b.shape[0]}")
    x = [Fraction(v) for v in est.solution_]
    q = lcm(*(v.denominator for v in x))
    p = np.array([int(v * q) for v in x], dtype=object)
    satisfied = int(np.count_nonzero(A.astype(object) @ p >= b[:, 0].astype(object) * q))  # exact
    return [("constraints satisfied", satisfied), ("fraction satisfied", satisfied / A.shape[0])]


def _histogram(est, X, y) -> list[tuple[str, float]]:
    from .estimators._one_d import one_d_values
    from .estimators.histogram import bin_starts

    idx = est.domain_.to_index(one_d_values(X, "X"), "X")
    if idx.size == 0:
        raise DataError("X is empty: count errors need records")
    starts = bin_starts(est._size(est.domain_), len(est.counts_))
    true = np.bincount(np.searchsorted(starts, idx, side="right") - 1, minlength=len(est.counts_))
    error = np.abs(est.consistent_counts_ * (idx.size / est.n_samples_) - true)
    return [
        ("largest count error (consistent counts, scaled to these records)", float(error.max())),
        ("total variation distance of the frequencies", float(error.sum() / (2 * idx.size))),
    ]


_STATISTICS = {
    "PrivateMedian": _median,
    "PrivateCenterPoint": _center_point,
    "PrivateLinearFeasibility": _linear_feasibility,
    "PrivateHistogram": _histogram,
}
