"""Depth regions cut by a prefix: the intervals ``I_r`` of the partial-assignment quality ``Q_p``.

Beimel, Moran, Nissim and Stemmer (COLT 2019), Def 3.1 and Lemma 3.4: for a fixed public prefix
``p = (x*_1, ..., x*_{i-1})``,

    Q_p(v) = max over z of td((p, v, z); S),

quasi-concave in ``v`` with sensitivity 1 in ``S``. Spec ``bmns-center-points`` section 4 (A2 [ENG])
computes it as a step function: with ``T(r) = {x : td(x) >= r}`` (Fact 2.20) and ``I_r`` the range of
``x_i`` over ``T(r) ∩ {x_{<i} = p}``, the ``I_r`` are nested closed intervals and
``Q_p(v) = max{r : v in I_r}`` (0 in none). ``T(r)`` has the exact H-representation

    T(r) = {x : u.x <= c_r(u) for all u in U(S ∪ E)},   c_r(u) = r-th largest of {u.y : y in S},

(spec A1: ``td(x) >= r`` iff ``#{y : u.y >= u.x} >= r`` for every ``u``). With a public direction
set ``U`` the same formula, over ``U ∪ -U``, gives the directional depth regions ``T_U(r)``.

Implemented exactly (integers and Fractions), every level of one call at once:

* ``i = d`` (the prefix fixes all but the last coordinate, any ``d``): ``I_r`` is the slice of a
  line, one bound ``a t <= b_r`` per direction. All levels in one pass over ``int64`` arrays when a
  bound checked up front rules out overflow: a float ratio proposes each level's binding rows, an
  exact integer cross-multiplication over every row certifies them (levels that fail, and inputs
  beyond ``int64``, are solved level by level in Python integers).
* ``i < d`` (``d = 2`` and ``d = 3`` for the exact regions, any ``d`` over a public direction set):
  ``I_r`` is the ``x_i``-range of ``T(r) ∩ {x_(<i) = p}``, an exact linear program over the
  H-representation (:func:`~privpac.geometry.exact_lp.nested_coordinate_ranges`: a HiGHS basis
  certified in rationals, re-optimised by the exact simplex as ``c_r`` falls level by level, a pivot
  or two per level).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import InvalidParameterError
from ._exact import (
    INT64_SAFE,
    as_integer_points,
    as_rational_point,
    common_denominator,
    exact_products,
    extreme_ratio,
    max_abs,
    slice_interval,
)
from .directional import as_directions
from .directions import _complete, check_finite_direction_size

__all__ = ["depth_intervals"]

Interval = tuple[Fraction | None, Fraction | None]

#: Below this many constraint rows the LP levels start from the exact phase 1, not a HiGHS basis.
_HIGHS_MIN_ROWS = 64


def depth_intervals(S, prefix=(), directions=None) -> list[Interval]:
    """The nested intervals ``I_1 ⊇ I_2 ⊇ ...`` of the partial-assignment quality ``Q_p``.

    Parameters
    ----------
    S : array-like of shape (n, d)
        Integer data points, counted with multiplicity.
    prefix : sequence of int or fractions.Fraction, default=()
        The fixed coordinates ``p = (x*_1, ..., x*_{i-1})``; the interval is over coordinate
        ``i = len(prefix) + 1``. Supported: ``len(prefix) = d - 1`` (any ``d``), every prefix
        for ``d = 2`` and ``d = 3`` (``d = 1`` is both), and every prefix in any ``d`` when
        ``directions`` is given.
    directions : array-like of shape (k, d), default=None
        ``None``: the exact Tukey depth regions: in ``d = 2`` as exact convex polygons
        (:class:`~privpac.geometry.contours.PlanarDepthRegions`, ``O(n^2 log n)``), in ``d = 3`` through
        ``U(S ∪ E)`` (:func:`~privpac.geometry.complete_directions`). Otherwise a **public** integer direction
        set ``U``: the regions of :func:`~privpac.geometry.directional_depth` over ``U`` (both
        orientations of each direction are used).

    Returns
    -------
    list of (Fraction or None, Fraction or None)
        ``[I_1, ..., I_R]`` with ``I_r = (lo_r, hi_r)`` the closed range of ``x_i`` over
        ``{x in T(r) : x_{<i} = p}``, for ``r = 1 .. R`` where ``R = max_v Q_p(v)`` (empty list when
        ``Q_p`` is 0 everywhere). ``Q_p(v) = max{r : lo_r <= v <= hi_r}``, 0 when ``v`` is in no
        interval. ``None`` stands for an infinite end, which only a ``directions`` set that does not
        bound the region can produce (the exact regions lie in ``conv(S)``).

    Raises
    ------
    privpac.errors.DataError
        Bad ``S``, or ``directions=None``, ``d >= 3`` and ``C(n + d + 1, d) * n`` above
        :data:`privpac.geometry.FINITE_DIRECTION_LIMIT`.
    privpac.errors.InvalidParameterError
        Bad ``prefix`` or ``directions``, or an unsupported ``(d, i)`` (``d >= 4`` with ``i < d`` and
        ``directions=None``).

    Notes
    -----
    Beimel, Moran, Nissim, Stemmer (COLT 2019), Def 2.15, Claims 2.17/2.18, Fact 2.20, Def 3.1 and
    Lemma 3.4; spec ``bmns-center-points`` section 4 (A1, A2 [ENG]) and section 7. Exact: integer
    projections, Fraction bounds; nothing is rounded, so vertices (where the maxima sit: the A2
    "spike" example) are reported exactly. ``d = 2`` without ``directions``: the regions as exact
    polygons, :mod:`privpac.geometry.contours` (the same intervals as ``directions=``
    :func:`~privpac.geometry.complete_directions` ``(S)``, which
    ``tests/papers/bmns_center_points/test_contours.py`` checks).
    Otherwise costs with ``K = |U|`` (``<= 2 C(n + d + 1, d)`` for ``d = 3``): one ``K x n`` product and
    row sort, ``O(K n log n)``; then, over the ``R <= n``
    distinct levels (a level whose ``c_r`` equals the previous level's, from tied projections or
    repeated points, shares its interval; levels stop at the first empty one), ``O(K R)`` ``int64``
    work for ``i = d``, or a warm-started exact simplex for ``i < d`` (``O(K)`` per pivot). The
    former level-by-level computation (Fraction envelopes for ``d = 2, i = 1``) is the reference of
    ``tests/papers/bmns_center_points/test_depth_regions_passes.py``.

    Examples
    --------
    >>> S = [[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]]
    >>> [(int(lo), int(hi)) for lo, hi in depth_intervals(S)]
    [(0, 2), (1, 1), (1, 1)]
    """
    arr, bound = as_integer_points(S, "S")
    n, d = arr.shape
    try:
        length = len(prefix)
    except TypeError as exc:
        raise InvalidParameterError(f"prefix must be a sequence of ints or Fractions, got {prefix!r}") from exc
    p = as_rational_point(prefix, length, "prefix") if length else ()
    i = len(p) + 1
    if i > d:
        raise InvalidParameterError(f"prefix has {len(p)} coordinate(s); with d = {d} it must have at most {d - 1}")
    if not (i == d or d in (2, 3) or directions is not None):
        raise InvalidParameterError(
            f"depth_intervals supports a prefix of length d - 1 (any d), any prefix for d = 2 and d = 3, and any "
            f"prefix over public directions; got d = {d}, prefix of length {len(p)} (the exact Tukey regions in "
            "d >= 4 with a shorter prefix are not implemented)"
        )
    if directions is None and d == 2:  # the exact polygons of the regions (no directions times points)
        from .contours import tukey_intervals_2d

        return tukey_intervals_2d(arr, p)
    if directions is None:
        check_finite_direction_size(n, d, "depth_intervals")
        U = _complete(arr, bound)
    else:
        U = as_directions(directions, d, "directions")
        U = _symmetric_nonzero(U)
    if len(U) == 0:  # only zero directions: no constraint at all
        return [(None, None)] * n
    # c_r(u) for every direction: the r-th largest projection (one sort per direction).
    proj = exact_products(U, arr)
    C = -np.sort(-proj, axis=1)
    if i < d:  # the x_i-range of a polygon or polytope, exact LPs warm-started level by level
        return _lp_intervals(U, C, p)
    return _slice_intervals(U, C, p)


def _distinct_levels(C: np.ndarray) -> list[int]:
    """The levels ``r`` (0-based) whose ``c_r`` differs from the previous level's (ties share intervals)."""
    if C.shape[1] == 0:
        return []
    changed = np.any(C[:, 1:] != C[:, :-1], axis=0)
    return [0] + [int(r) + 1 for r in np.flatnonzero(changed)]


def _expand(intervals: list[Interval], distinct: list[int], n: int) -> list[Interval]:
    """One interval per level from one per distinct level (``intervals`` may stop early: empty levels)."""
    out: list[Interval] = []
    for j, interval in enumerate(intervals):
        upto = distinct[j + 1] if j + 1 < len(distinct) else n
        out.extend([interval] * (upto - distinct[j]))
    return out


def _lp_intervals(U: np.ndarray, C: np.ndarray, p: tuple[Fraction, ...]) -> list[Interval]:
    """``i = len(p) + 1 < d``: ``I_r`` by exact LPs over the H-form of ``T(r) ∩ {x_(<i) = p}``.

    ``i = 1``: ``max / min x_1`` over ``{x : u.x <= c_r(u)}``; ``i > 1``: with ``x_(<i) = P / q``
    substituted, ``{x_(>=i) : q u_(>=i) . x_(>=i) <= q c_r(u) - u_(<i) . P}``, integer rows.
    Levels whose ``c_r`` equals the previous level's share its interval; the others are solved by
    :func:`~privpac.geometry.exact_lp.nested_coordinate_ranges` (one certified basis re-optimised
    level by level), up to the first empty region.
    """
    from .exact_lp import nested_coordinate_ranges

    n = C.shape[1]
    distinct = _distinct_levels(C)
    if len(p) == 0:
        rows = U
        rhs = [C[:, r] for r in distinct]
    else:
        k = len(p)
        q, P = common_denominator(p)
        u_max, c_max = max_abs(U), max_abs(C)
        bound = q * (u_max + c_max) + u_max * k * max(abs(v) for v in P)
        if U.dtype != object and C.dtype != object and bound < INT64_SAFE:
            rows = U[:, k:] * q
            shift = U[:, :k] @ np.asarray(P, dtype=np.int64)
            rhs = [C[:, r] * q - shift for r in distinct]
        else:
            Uo = U.astype(object)
            rows = _shrink_rows(Uo[:, k:] * q)
            shift = Uo[:, :k] @ np.asarray(P, dtype=object)
            rhs = [_shrink_rows(C[:, r].astype(object) * q - shift) for r in distinct]
    # Both starts are certified exactly, so the answer is the same; HiGHS only pays off beyond a few
    # dozen rows (its call costs about a millisecond, the exact phase 1 on a tiny system much less).
    return _expand(nested_coordinate_ranges(rows, rhs, 0, use_highs=len(rows) > _HIGHS_MIN_ROWS), distinct, n)


def _shrink_rows(A: np.ndarray) -> np.ndarray:
    """An object array of Python ints as ``int64`` when every entry is below ``2**62``."""
    if A.size and max_abs(A) >= INT64_SAFE:
        return A
    return A.astype(np.int64)


def _symmetric_nonzero(U: np.ndarray) -> np.ndarray:
    keep = np.array([any(int(v) != 0 for v in row) for row in U], dtype=bool)
    U = U[keep]
    return np.concatenate([U, -U], axis=0)


#: Entries of one block of levels in the all-levels slice pass (bounds its memory to a few arrays of
#: this many 8-byte values).
SLICE_BLOCK = 2_000_000


def _slice_intervals(U: np.ndarray, C: np.ndarray, p: tuple[Fraction, ...]) -> list[Interval]:
    """``i = d``: the slice ``{t : u.(p, t) <= c_r(u) for all u}`` of every level at once.

    With ``p = P / q`` each direction gives ``a t <= b_r`` with ``a = q u_d`` and
    ``b_r = q c_r(u) - u_(<d).P``. When a bound checked up front keeps every cross-product
    ``b_k a_j`` below ``2**62``, all levels (in blocks of :data:`SLICE_BLOCK` entries) are done in
    ``int64`` arrays: a float ratio proposes each level's binding row, and the exact test
    ``b_k a_j - a_k b_j >= 0`` over every row certifies it (a level that fails is redone by the
    exact :func:`extreme_ratio`). Otherwise every level goes through :func:`slice_interval` in
    Python integers. Distinct levels only, up to the first empty slice.
    """
    n = C.shape[1]
    distinct = _distinct_levels(C)
    q, P = common_denominator(p)
    u_max, c_max, p_max = max_abs(U), max_abs(C), max((abs(v) for v in P), default=0)
    b_max = q * c_max + len(P) * u_max * p_max
    out: list[Interval] = []
    if U.dtype == object or C.dtype == object or b_max + q * u_max >= INT64_SAFE or 2 * q * u_max * b_max >= INT64_SAFE:
        for r in distinct:
            interval = slice_interval(U, C[:, r], p)
            if interval is None:
                break
            out.append(interval)
        return _expand(out, distinct, n)
    a = U[:, -1] * q
    shift = U[:, :-1] @ np.asarray(P, dtype=np.int64) if P else np.zeros(len(U), dtype=np.int64)
    zero, up, down = a == 0, a > 0, a < 0
    step = max(1, SLICE_BLOCK // max(len(U), 1))
    for start in range(0, len(distinct), step):
        b = C[:, distinct[start : start + step]] * q - shift[:, None]
        width = b.shape[1]
        empty = np.any(b[zero] < 0, axis=0) if np.any(zero) else np.zeros(width, dtype=bool)
        none: list[Fraction | None] = [None] * width
        hi = _extreme_ratios(b[up], a[up], smallest=True) if np.any(up) else none
        lo = _extreme_ratios(b[down], a[down], smallest=False) if np.any(down) else none
        for k in range(width):
            if empty[k] or (lo[k] is not None and hi[k] is not None and lo[k] > hi[k]):
                return _expand(out, distinct, n)
            out.append((lo[k], hi[k]))
    return _expand(out, distinct, n)


def _extreme_ratios(b: np.ndarray, a: np.ndarray, smallest: bool) -> list[Fraction]:
    """Per column ``k`` of ``b``, ``min`` (or ``max``) over rows of ``b[:, k] / a``, exactly (``a`` of one sign).

    The caller guarantees ``2 max|a| max|b| < 2**62``, so the certificate's products are exact in
    ``int64``. Columns whose float guess fails the certificate are redone by :func:`extreme_ratio`.
    """
    guess = b / a[:, None].astype(float)
    j = np.argmin(guess, axis=0) if smallest else np.argmax(guess, axis=0)
    cols = np.arange(b.shape[1])
    aj, bj = a[j], b[j, cols]
    # b_k / a_k < b_j / a_j  <=>  b_k a_j - b_j a_k < 0  (a_k a_j > 0)
    diff = b * aj[None, :] - a[:, None] * bj[None, :]
    wrong = np.any(diff < 0, axis=0) if smallest else np.any(diff > 0, axis=0)
    out = [Fraction(int(x), int(y)) for x, y in zip(bj, aj)]
    for k in np.flatnonzero(wrong):
        out[k] = extreme_ratio(b[:, k], a, smallest)
    return out
