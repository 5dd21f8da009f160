"""Hypotheses of the classes POINT and THRESH over integer indices ``0 .. size - 1``.

Beimel, Nissim, Stemmer, Definitions 3.1 and 3.4: ``c_j(x) = 1`` iff ``x = j`` (points) and
``c_j(x) = 1`` iff ``x < j`` for ``0 <= j <= size`` (thresholds; ``c_0`` is all-zero and
``c_size`` all-one). Indices may be Python ints of any size (object arrays).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["PointHypothesis", "ThresholdHypothesis"]


def _as_indices(x) -> np.ndarray:
    if isinstance(x, np.ndarray):
        return x
    arr = np.asarray(x)
    if arr.dtype == object or np.issubdtype(arr.dtype, np.integer):
        return arr
    out = np.empty(len(x), dtype=object)
    out[:] = [int(v) for v in x]
    return out


@dataclass(frozen=True)
class PointHypothesis:
    """``c_point`` (1 exactly at ``point``), or the all-zero hypothesis when ``point is None``
    (Remark 3.3's addition to the class)."""

    point: int | None

    def predict(self, x) -> np.ndarray:
        idx = _as_indices(x)
        if self.point is None:
            return np.zeros(idx.shape, dtype=np.int8)
        return (idx == self.point).astype(np.int8)


@dataclass(frozen=True)
class ThresholdHypothesis:
    """``c_j``: label 1 exactly on indices ``x < threshold``."""

    threshold: int

    def predict(self, x) -> np.ndarray:
        idx = _as_indices(x)
        return (idx < self.threshold).astype(np.int8)
