"""Exact linear programs in V-form: the range of a coordinate over a slice of a point hull.

Kaplan, Mansour, Stemmer, Tsfadia, "Private learning of halfspaces: simplifying the construction and
reducing the sample complexity" (NeurIPS 2020), spec ``kmst-halfspaces`` 6.2 step 4 and 6.4: the
level interval of FindDeepPoint's quality ``Q_i`` at a prefix ``p`` is the range of ``x_i`` over
``conv(V_k) ∩ {x_(<i) = p}`` for the finite vertex set ``V_k`` of a level. It is an interval end of a
sensitivity-1 quality that feeds a private choice, so it must be the *exact* optimum.

* :func:`hull_slice_range`: one range, ``conv{P_j / q_j} ∩ {x_(<i) = prefix}``;
* :func:`hull_slice_ranges`: the ranges of nested point sets ``P[:c]`` (the levels, up to millions
  of points) by column generation from seed points the caller knows make each slice non-empty;
* :func:`slice_support`: whether a slice is non-empty (an exact feasibility program), with the
  seeds of a feasible basic solution.

With ``v_j = P_j / q_j`` and ``p = s / t`` the substitution ``y_j = t lam_j / q_j`` gives the integer
standard form ``sum_j y_j (P_j,(<i), q_j) = (s, t)``, ``y >= 0``, objective ``sum_j y_j P_j,i / t``,
solved exactly by :mod:`privpac.geometry.standard_lp` (a HiGHS basis certified in rationals, an exact
simplex, column generation certified by exact pricing of every point).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import DataError, InvalidParameterError
from ._exact import INT64_SAFE, as_integer_points, max_abs
from .standard_lp import ColumnGeneration, _float_view, _rationals, _scaled, _standard, minimize_over_columns

__all__ = [
    "hull_slice_range",
    "hull_slice_ranges",
    "slice_support",
]


class _Negated:
    """``-cost`` without a negated copy of every column: a slice is another lazy view, an index or an index
    array gives the negated values (the pricing blocks, the restricted programs' columns)."""

    def __init__(self, cost: np.ndarray):
        self.cost = cost
        self.dtype = cost.dtype
        self.shape = cost.shape

    def __getitem__(self, index):
        if isinstance(index, slice):
            return _Negated(self.cost[index])
        v = self.cost[index]
        return -v if isinstance(v, np.ndarray) else -int(v)

    def __array__(self, dtype=None, copy=None):
        out = -self.cost
        return out if dtype is None else out.astype(dtype)

    def __len__(self) -> int:
        return len(self.cost)


def _slice_form(P, q, prefix):
    p = _rationals(prefix, "prefix")
    i = len(p) + 1
    fast = isinstance(P, np.ndarray) and isinstance(q, np.ndarray) and P.ndim == 2 and P.dtype == np.int64
    if fast and q.dtype == np.int64 and len(q) == P.shape[0] and P.shape[1] >= i and len(q):
        # int64 arrays (FindDeepPoint's levels): bounds read without a converted copy of every point
        bound = max(-int(P[:, :i].min()), int(P[:, :i].max()), int(q.max()))
        if int(q.min()) <= 0:
            raise DataError("every denominator q_j must be positive")
        P_arr, q_arr = P, q
        big = bound >= INT64_SAFE
    else:
        P_arr, _ = as_integer_points(P, "P")
        q_in = q.reshape(-1, 1) if isinstance(q, np.ndarray) and q.dtype.kind in "iu" else np.asarray(q, dtype=object)
        q_arr, _ = as_integer_points(q_in.reshape(-1, 1), "q", d=1)
        q_arr = q_arr[:, 0]
        if len(q_arr) != P_arr.shape[0]:
            raise DataError(f"P has {P_arr.shape[0]} rows but q has {len(q_arr)} entries")
        if np.any(q_arr <= 0):
            raise DataError("every denominator q_j must be positive")
        if P_arr.shape[1] < i:
            raise InvalidParameterError(f"prefix has {len(p)} coordinates; P has only {P_arr.shape[1]} columns")
        big = False
    t, s = _scaled(p)
    M = np.stack([P_arr[:, j] for j in range(i - 1)] + [q_arr], axis=0)
    if big or (M.dtype != object and max_abs(M) >= INT64_SAFE):
        M = M.astype(object)
    obj = P_arr[:, i - 1]
    if big:
        obj = obj.astype(object)
    neg = _Negated(obj) if obj.dtype != object else np.asarray([-int(v) for v in obj], dtype=object)
    return M, s + [t], obj, neg, t


def hull_slice_ranges(P, q, prefix, counts, *, seeds, use_highs: bool = True) -> list[tuple[Fraction, Fraction]]:
    """:func:`hull_slice_range` of the nested point sets ``P[:c]`` for every ``c`` in ``counts``.

    ``counts`` must be increasing (growing sets, shrinking levels read backwards: the KMST levels
    ``V_k`` sorted by depth) and every slice non-empty: ``seeds[pos]`` lists indices ``< counts[pos]``
    whose own slice is already non-empty (e.g. points whose projections span a polygon containing
    ``prefix``), the caller's certificate. Each range is two exact LPs over all ``counts[pos]``
    points by column generation (:func:`~privpac.geometry.standard_lp.minimize_over_columns`) from
    the seeds and the previous count's optimum (spec ``kmst-halfspaces`` 6.2 step 4: "warm-start from
    the previous basis and only add columns"). Every answer is certified by exact pricing of all its
    points.
    """
    counts = [int(c) for c in counts]
    if any(b <= a for a, b in zip(counts, counts[1:])):
        raise InvalidParameterError("counts must be strictly increasing")
    if len(seeds) != len(counts):
        raise InvalidParameterError(f"seeds must hold one index list per count ({len(counts)}), got {len(seeds)}")
    if not counts:
        return []
    M, rhs, obj, neg, t = _slice_form(P, q, prefix)
    ends: list[list[Fraction]] = []
    view = _float_view(M, obj)  # the columns are converted block by block when priced: no float copy
    for cost in (obj, neg):
        state: ColumnGeneration | None = None
        values = []
        for c, seed in zip(counts, seeds):
            state = minimize_over_columns(M, rhs, cost, c, seed, state, view=view, use_highs=use_highs)
            values.append(state.value / t)
        ends.append(values)
    return [(lo, -hi) for lo, hi in zip(*ends)]


def slice_support(P, q, prefix, count: int, *, use_highs: bool = True) -> list[int] | None:
    """Whether ``conv{P_j / q_j : j < count} ∩ {x_(<i) = prefix}`` is non-empty, ``i = len(prefix) + 1``.

    ``None`` when it is empty (decided by the exact phase 1 of
    :func:`~privpac.geometry.standard_lp._standard`, never by a float solve), else the columns of a
    feasible basic solution: indices ``< count`` whose own slice is non-empty, the ``seeds``
    :func:`hull_slice_ranges` needs for every ``count`` at least this one.
    """
    M, rhs, obj, _, _ = _slice_form(P, q, prefix)
    count = int(count)
    if count <= 0:
        return None
    zero = np.zeros(count, dtype=np.int64)
    sf = _standard(M[:, :count], rhs, zero, use_highs)
    if sf.status == "infeasible":
        return None
    if sf.status != "optimal" or sf.y is None:  # pragma: no cover - a zero objective is bounded
        raise RuntimeError("slice_support: a feasibility program was reported unbounded")
    return sorted(int(j) for j in sf.y)


def hull_slice_range(P, q, prefix, *, use_highs: bool = True) -> tuple[Fraction, Fraction] | None:
    """The range of ``x_i``, ``i = len(prefix) + 1``, over ``conv{P_j / q_j} ∩ {x_(<i) = prefix}``.

    Parameters
    ----------
    P : array-like of shape (k, D), D >= i
        Integer numerators of the points (only the first ``i`` columns are read).
    q : array-like of shape (k,)
        Positive integer denominators.
    prefix : sequence of int or Fraction
        The fixed first coordinates.
    use_highs : bool, default=True
        As in :func:`~privpac.geometry.exact_lp.maximize`.

    Returns
    -------
    (Fraction, Fraction) or None
        The closed range (a convex hull of finitely many points is compact), ``None`` when the
        slice is empty or ``P`` has no rows.

    Notes
    -----
    Spec ``kmst-halfspaces`` 6.2 step 4: ``min / max sum_j lam_j v_j,i`` subject to
    ``sum_j lam_j v_j,(<i) = p``, ``sum_j lam_j = 1``, ``lam >= 0``. With ``v_j = P_j / q_j`` and
    ``p = s / t`` the substitution ``y_j = t lam_j / q_j`` gives the integer standard form
    ``sum_j y_j (P_j,(<i), q_j) = (s, t)``, objective ``sum_j y_j P_j,i / t``.
    """
    M, rhs, obj, neg, t = _slice_form(P, q, prefix)
    lo = _standard(M, rhs, obj, use_highs)
    if lo.status == "infeasible":
        return None
    hi = _standard(M, rhs, neg, use_highs)
    if lo.status != "optimal" or hi.status != "optimal":  # pragma: no cover - a polytope is bounded
        raise RuntimeError("hull_slice_range: a bounded program was reported unbounded")
    return lo.value / t, -hi.value / t
