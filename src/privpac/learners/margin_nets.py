"""Data-independent nets of the unit sphere for the pure-DP large-margin learner (NUZ Algorithm 2, step 3).

The paper asks for a (gamma/10)-net of the unit ball ``B^m`` and does not construct one. A net of
the unit *sphere* suffices, because the target ``w*_A`` is a unit vector (spec 3.7): every unit
vector is within ``r`` of some net point.

* ``m = 1``: ``{-1, +1}`` (exact).
* ``m = 2``: ``N = ceil(pi / (2 arcsin(r / 2)))`` equally spaced angles; a unit vector is within
  angle ``pi / N`` of one of them, i.e. within chord ``2 sin(pi / (2N)) <= r``.
* ``m >= 3``: the points ``p`` of the cubic grid of spacing ``h = r / sqrt(m)`` with
  ``| ||p|| - 1 | <= r/2``, normalised. For a unit ``u`` the nearest grid point has
  ``||p - u|| <= h sqrt(m) / 2 = r/2`` (so it is kept), and
  ``||p/||p|| - u|| <= | ||p|| - 1 | + ||p - u|| <= 2 ||p - u|| <= r``.

The nets depend on ``m`` and ``r`` only, never on data. Sizes grow like ``(1/r)^(m-1)``; the
learner refuses nets above a public cap (:func:`sphere_net_size` is computed before anything is
built).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InvalidParameterError
from ..validation import check_int, check_real

__all__ = ["sphere_net", "sphere_net_size", "violation_counts"]


def _grid_spacing(m: int, radius: float) -> float:
    return radius / math.sqrt(m)


def sphere_net_size(m: int, radius: float) -> int:
    """Number of points :func:`sphere_net` returns (exact for m <= 2, a volume estimate above).

    For ``m >= 3`` the estimate is the shell volume over the cell volume; it is what the learner
    compares with its cap before enumerating anything.
    """
    m = check_int(m, "m", low=1)
    radius = check_real(radius, "radius", low=0.0, low_open=True)
    if m == 1:
        return 2
    if m == 2:
        return int(math.ceil(math.pi / (2.0 * math.asin(min(radius / 2.0, 1.0)))))
    h = _grid_spacing(m, radius)
    half = radius / 2.0
    unit_ball = math.pi ** (m / 2.0) / math.gamma(m / 2.0 + 1.0)
    shell = unit_ball * ((1.0 + half) ** m - max(1.0 - half, 0.0) ** m)
    estimate = shell / h**m
    return int(min(math.ceil(estimate), 2**62))


def sphere_net(m: int, radius: float) -> np.ndarray:
    """Unit vectors (rows) such that every unit vector of ``R^m`` is within ``radius`` of one of them."""
    m = check_int(m, "m", low=1)
    radius = check_real(radius, "radius", low=0.0, low_open=True)
    if m == 1:
        return np.array([[-1.0], [1.0]])
    if m == 2:
        N = sphere_net_size(2, radius)
        angles = 2.0 * math.pi * np.arange(N) / N
        return np.column_stack([np.cos(angles), np.sin(angles)])
    h = _grid_spacing(m, radius)
    half = radius / 2.0
    K = int(math.ceil((1.0 + half) / h))
    axis = h * np.arange(-K, K + 1)
    lo2, hi2 = max(1.0 - half, 0.0) ** 2, (1.0 + half) ** 2
    pieces = []
    # Enumerate the grid one (m-1)-dimensional slab at a time to bound memory.
    rest = np.array(np.meshgrid(*([axis] * (m - 1)), indexing="ij")).reshape(m - 1, -1).T
    rest_sq = np.einsum("ij,ij->i", rest, rest)
    for first in axis:
        sq = rest_sq + first * first
        keep = (sq >= lo2) & (sq <= hi2)
        if np.any(keep):
            pts = np.column_stack([np.full(int(keep.sum()), first), rest[keep]])
            pieces.append(pts / np.sqrt(sq[keep])[:, None])
    return np.concatenate(pieces, axis=0)


def violation_counts(Z: np.ndarray, y: np.ndarray, W: np.ndarray, threshold: float, chunk: int = 4096) -> np.ndarray:
    """``c(w) = #{j : y_j <w, z_j> < threshold}`` for every row ``w`` of ``W`` (int64).

    Replacing one record changes every count by at most one (the utility's sensitivity).
    """
    Z = np.asarray(Z, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape[1] != Z.shape[1]:
        raise InvalidParameterError(f"W must have shape (k, {Z.shape[1]}), got {W.shape}")
    out = np.empty(W.shape[0], dtype=np.int64)
    for lo in range(0, W.shape[0], chunk):
        Wc = W[lo : lo + chunk]
        # <w, z> summed coordinate by coordinate in a fixed order (not by a BLAS product, whose order
        # may follow the block's shape): a record's margin is the same float wherever its block is
        # cut, so the counts are identical in memory and on every engine partitioning.
        dots = Z[:, :1] * Wc[:, 0]
        for k in range(1, Z.shape[1]):
            dots += Z[:, k : k + 1] * Wc[:, k]
        out[lo : lo + chunk] = np.count_nonzero(dots * y[:, None] < threshold, axis=0)
    return out
