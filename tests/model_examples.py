"""A small valid fit for every registered model, in two versions of the same public shape.

``fit_arguments(name, seed)`` returns ``(constructor keywords, fit arguments, fit keywords)``.
Seeds 0 and 1 give datasets of the same shape (the number of records and features are public)
but different records, with a different number of distinct values: what the privacy record of a
fit may not depend on.
"""

import math

import numpy as np

from privpac.datasets import make_margin_data, make_rectangles, margin_direction
from privpac.sanitizers.points import san_points_plan
from privpac.sanitizers.thresholds import san_thresholds_plan


def one_d(seed: int = 0):
    if seed == 0:
        X = np.arange(200).reshape(-1, 1)
        return X, (X[:, 0] < 80).astype(int)
    X = (np.arange(200) // 4 * 3 % 199).reshape(-1, 1)  # ties, fewer distinct values
    return X, (X[:, 0] >= 120).astype(int)


def _point_counts(alpha, seed):
    m = math.ceil(san_points_plan(alpha, 0.1, 1.0, 1e-3).min_size) + 100
    return [m // 2, m - m // 2] if seed == 0 else [m // 3, m - m // 3]


def fit_arguments(name: str, seed: int = 0):
    """(constructor keywords, fit positional arguments, fit keywords) of a fast valid fit."""
    X, y = one_d(seed)
    values = [7, 100] if seed == 0 else [3, 200]
    if name in ("histogram", "median"):
        return {"domain": (0, 199)}, (X,), {}
    if name in ("point", "threshold"):
        return {"domain": (0, 199)}, (X, y), {}
    if name == "label-private":
        return {"domain": (0, 199), "n_unlabelled": 100}, (X, y), {}
    if name == "san-points":
        kw = {"epsilon": 1.0, "delta": 1e-3, "alpha": 0.5, "domain": (0, 255)}
        return kw, (values,), {"counts": _point_counts(0.5, seed)}
    if name == "k-point":
        kw = {"epsilon": 1.0, "delta": 1e-3, "alpha": 0.9, "k": 2, "domain": (0, 255)}
        return kw, (values,), {"counts": _point_counts(0.45, seed)}
    if name == "san-thresholds":
        m = math.ceil(san_thresholds_plan(0.9, 0.5, 1.0, 1e-3, 256).min_size)
        kw = {"epsilon": 1.0, "delta": 1e-3, "alpha": 0.9, "beta": 0.5, "domain": (0, 255)}
        return kw, (values,), {"counts": [m // 2, m - m // 2] if seed == 0 else [m // 5, m - m // 5]}
    if name == "rectangle":
        ds = make_rectangles(500, 2, 15, rng=1 + seed)
        return {"domain": (0, 15), "method": "composition"}, (ds.X, ds.y), {}
    if name == "halfspace-margin":
        ds = make_margin_data(60, 2, 0.3, w_star=margin_direction(2, 99 + seed), rng=1 + seed)
        return {"domain": 1.0, "margin": 0.3}, (ds.X, ds.y), {}
    if name == "center-point":
        X = np.random.default_rng(3 + seed).integers(-2, 3, size=(40, 2))
        if seed == 1:
            X[:, 1] = X[:, 0]  # collinear: fewer distinct points
        return {"domain": 2}, (X,), {}
    if name == "linear-feasibility":
        gen = np.random.default_rng(5 + seed)
        A = gen.integers(-2, 3, size=(40, 2))
        if seed == 1:
            A[::2] = A[1::2]  # repeated constraints: fewer distinct rows
        b = A @ np.array([1, -1]) - gen.integers(0, 2, size=40)  # feasible at x = (1, -1)
        return {"domain": 2}, (A, np.clip(b, -2, 2)), {}
    if name == "halfspace-feasibility":
        X = np.random.default_rng(7 + seed).integers(-2, 3, size=(40, 1))
        if seed == 1:
            X[::2] = X[1::2]  # repeated points: fewer distinct values
        return {"domain": 2}, (X, (X[:, 0] >= 1).astype(int)), {}
    if name == "halfspace-tukey":
        gen = np.random.default_rng(7 + seed)
        X = gen.integers(-3, 4, size=(60, 1))
        y = (X[:, 0] >= (1 if seed == 0 else -1)).astype(int)
        return {"domain": 3, "n_chunks": 6}, (X, y), {}
    raise AssertionError(f"no test fit for model {name!r}: add one to tests/model_examples.py")
