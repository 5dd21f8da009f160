"""Exact depth and convexified depth of an integer linear system ``A x >= b``.

Kaplan, Mansour, Stemmer, Tsfadia, "Private learning of halfspaces: simplifying the construction and
reducing the sample complexity" (NeurIPS 2020); spec ``kmst-halfspaces`` sections 0, 2.1, 2.3, 3.7
(item 4) and 6.2. A linear-constraint dataset is ``S = ((a_l, w_l))_{l=1..m}``; here the rows of
``A`` are the ``a_l`` and ``b`` holds the ``w_l``.

* :func:`depth`: ``depth_S(x) = #{l : <a_l, x> >= w_l}`` (spec section 0). Points on a hyperplane
  satisfy its constraint; a row ``a_l = 0`` counts iff ``w_l <= 0``.
* :func:`cdepth`: the convexified depth of Def 3.1 (spec 2.1),
  ``cdepth_S(x) = max{k : x in conv({z : depth_S(z) >= k})}``. Exact for ``D = 1`` as the
  definition states it (unbounded superlevel sets included), and for ``D = 2`` for the boxed score
  ``f_B(x) = depth_S(x) 1[x in B]``, ``B = [-R, R]^2`` (spec 3.7 item 4, the score the algorithm
  actually convexifies); see :func:`convex_superlevel_set` for when the boxed and unboxed values
  provably agree.
* :func:`convex_superlevel_set`: ``C_S(k)`` itself, an interval (``D = 1``) or a convex polygon
  (``D = 2``), exactly.
* :func:`bounding_box_radius`: the spec's box radius ``R = ceil(D^(D/2)) X^D``.

Claim 4.1 of the paper (``depth >= (D + 1) cdepth - D m``, spec 2.3) holds for both scores and is
tested in ``tests/test_feasibility.py``.

Every count is an exact integer sign: data are integers, query points rationals (Fractions),
vertices are kept as integer homogeneous coordinates ``P / q`` (``q > 0``). Products are taken in
float64 only when a bound checked up front keeps every partial sum an integer below ``2**53`` (exact
in any order), in ``int64`` when it stays below ``2**62`` (as in :mod:`privpac.geometry._exact`),
with Python integers otherwise. Elsewhere floats only propose (an extreme point, a hull seed) or
filter signs whose doubtful cases are recomputed in integers: no rounded float decides a count.

* :func:`convex_levels`: every boxed level at once (one incremental hull pass), the public
  per-level form for ``D <= 2``.

* :func:`arrangement_levels_2d`, :func:`arrangement_levels_3d`: the same levels for ``D = 2`` and
  ``D = 3`` (spec 6.2 steps 1 to 4), from which :mod:`privpac.learners.linear_feasibility` reads
  the nested level intervals of its per-coordinate quality ``Q_i`` (FindDeepPoint): the
  arrangement's vertices with their depths by line sweeps (:mod:`privpac.geometry.arrangement`),
  answered per prefix by :class:`PointLevels`: prefix extrema (``i = 1``), exact 2-D hulls of the
  projections (``i = 2``) and certified exact LPs by column generation (``i = 3``,
  :mod:`privpac.geometry.exact_lp`).

* :func:`candidate_depths`, :func:`candidate_levels`: the same levels for a public finite candidate
  set in any dimension (spec 6.5 option 1), answered by the same :class:`PointLevels`.

Not here: the arrangement of ``D >= 4``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import DataError, InvalidParameterError
from ..validation import check_int
from ._exact import (
    FLOAT64_EXACT,
    INT64_SAFE,
    as_integer_points,
    as_rational_point,
    common_denominator,
    exact_products,
    exact_signs,
    max_abs,
)
from .arrangement import arrangement_vertices

__all__ = [
    "PointLevels",
    "candidate_depths",
    "candidate_levels",
    "ConvexLevel",
    "arrangement_levels_2d",
    "arrangement_levels_3d",
    "bounding_box_radius",
    "cdepth",
    "convex_levels",
    "convex_superlevel_set",
    "depth",
]

Point = tuple[Fraction, ...]


# ---------------------------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------------------------


def _system(A, b) -> tuple[np.ndarray, int, np.ndarray, int]:
    """``(A, max|A|, b, max|b|)`` exactly; ``A`` of shape ``(m, D)``, ``b`` of shape ``(m,)``."""
    A_arr, a_bound = as_integer_points(A, "A")
    m = A_arr.shape[0]
    if isinstance(b, np.ndarray):
        col = b.reshape(-1, 1) if b.ndim == 1 else b
    else:
        try:
            items = list(b)
        except TypeError as exc:
            raise DataError(f"b must be a sequence of {m} integers, got {b!r}") from exc
        col = np.empty((len(items), 1), dtype=object)
        for j, v in enumerate(items):
            col[j, 0] = v
    b_arr, b_bound = as_integer_points(col, "b", d=1)
    if b_arr.shape[0] != m:
        raise DataError(f"A has {m} row(s) but b has {b_arr.shape[0]} entries: one right-hand side per constraint")
    return A_arr, a_bound, b_arr[:, 0], b_bound


#: Entries of one float64 depth product (``chunk x m``), about 32 MB.
_DEPTH_BLOCK = 4_000_000


def _depth_path(A: np.ndarray, b: np.ndarray, b_bound: int, P: np.ndarray, q: np.ndarray) -> str:
    """``"float64"``, ``"int64"`` or ``"object"``: the arithmetic :func:`_depths` may use, from the maxima.

    ``bound = D max|A| max|P| + max|b| max|q|`` bounds the sum of the absolute terms of every
    ``<a_l, P> - b_l q``: below ``2**53`` float64 is exact, below ``2**62`` int64 is.
    """
    ints = A.dtype != object and b.dtype != object and P.dtype != object and q.dtype != object
    bound = P.shape[1] * max_abs(A) * max_abs(P) + b_bound * max_abs(q) if P.shape[0] else 0
    if ints and bound < FLOAT64_EXACT:
        return "float64"
    return "int64" if ints and bound < INT64_SAFE else "object"


def _depths(A: np.ndarray, b: np.ndarray, b_bound: int, P: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``depth`` at each point ``P[j] / q[j]`` (``q[j] > 0``): ``#{l : <a_l, P[j]> >= b_l q[j]}``.

    ``P`` is an ``(n, D)`` and ``q`` an ``(n,)`` integer array (int64 or Python-int object arrays).
    With ``bound = D max|A| max|P| + max|b| max|q|`` (from the arrays' maxima, before any product):

    * ``bound < 2**53``: one float64 BLAS product ``[P, q] @ [A, -b]^T`` per block of points, and
      the sign of each entry. Exact: every term and every partial sum is an integer below ``2**53``,
      which float64 holds exactly in any summation order;
    * ``bound < 2**62``: the same product in ``int64``;
    * otherwise Python integers.
    """
    n = P.shape[0]
    path = _depth_path(A, b, b_bound, P, q)
    step = max(1, _DEPTH_BLOCK // max(1, A.shape[0]))
    if path == "float64":
        H = np.concatenate([A, -b[:, None]], axis=1).astype(np.float64).T  # (D + 1, m)
        Z = np.concatenate([P, q[:, None]], axis=1).astype(np.float64)  # (n, D + 1)
        out = np.empty(n, dtype=np.int64)
        for s in range(0, n, step):
            out[s : s + step] = np.count_nonzero(Z[s : s + step] @ H >= 0, axis=1)
        return out
    if n > step:
        return np.concatenate([_depths(A, b, b_bound, P[s : s + step], q[s : s + step]) for s in range(0, n, step)])
    lhs = exact_products(A, P)  # (m, n), exact (int64 only when safe)
    if path == "int64":
        rhs = b.astype(np.int64)[:, None] * q.astype(np.int64)[None, :]
        return np.count_nonzero(lhs.astype(np.int64) >= rhs, axis=0)
    rhs = b.astype(object)[:, None] * q.astype(object)[None, :]
    return np.count_nonzero((lhs.astype(object) >= rhs).astype(bool), axis=0).astype(np.int64)


def depth(x, A, b) -> int:
    """``depth_S(x)``: how many constraints ``<a_l, x> >= w_l`` the rational point ``x`` satisfies.

    Parameters
    ----------
    x : sequence of int or fractions.Fraction, length D
        The query point (exact rationals; floats with a fractional part are refused).
    A : array-like of shape (m, D)
        Integer constraint rows ``a_l``.
    b : array-like of shape (m,)
        Integer right-hand sides ``w_l``.

    Returns
    -------
    int
        ``#{l : <a_l, x> >= w_l}``. A point on a hyperplane satisfies its constraint; a row with
        ``a_l = 0`` counts iff ``w_l <= 0``; duplicate rows count with multiplicity.

    Notes
    -----
    Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), section 4 (``depth_S``, rendered ``0pt`` in
    the extracted text); spec ``kmst-halfspaces`` section 0. Sensitivity 1 under replace-one
    neighbours. With ``x = P / q``: ``<a_l, P> >= w_l q``, one integer product per row, in ``int64``
    when ``D max|A| max|P| + max|b| q < 2**62`` (checked before multiplying), Python ints otherwise.

    Examples
    --------
    >>> from fractions import Fraction
    >>> depth([Fraction(1, 2)], [[2], [-1], [0]], [1, 0, 1])
    1
    """
    A_arr, _, b_arr, b_bound = _system(A, b)
    D = A_arr.shape[1]
    point = as_rational_point(x, D, "x")
    q, P = common_denominator(point)
    P_arr = _int_array([P])
    q_arr = _int_array([[q]]).ravel()
    return int(_depths(A_arr, b_arr, b_bound, P_arr, q_arr)[0])


def _int_array(rows) -> np.ndarray:
    """Nested lists of Python ints as ``int64`` when every entry is below ``2**62``, else object."""
    obj = np.empty((len(rows), len(rows[0]) if rows else 0), dtype=object)
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            obj[i, j] = int(v)
    if obj.size == 0 or max(abs(v) for v in obj.ravel()) < INT64_SAFE:
        return obj.astype(np.int64)
    return obj


def bounding_box_radius(D: int, X: int) -> int:
    """``R = ceil(D^(D/2)) X^D``, the spec's box (``kmst-halfspaces`` 3.7 item 4), exactly.

    A feasible system with entries in ``[[-X, X]]`` has a feasible point in ``[-R, R]^D`` (a basic
    solution of a minimal face; Hadamard's bound with Cramer's rule), and every vertex of the
    arrangement lies in the box.
    """
    D = check_int(D, "D", low=1)
    X = check_int(X, "X", low=1)
    DD = D**D
    root = math.isqrt(DD)
    ceil_sqrt = root if root * root == DD else root + 1
    return ceil_sqrt * X**D


# ---------------------------------------------------------------------------------------------
# Convexified depth
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConvexLevel:
    """``C_S(k) = conv{z : f(S, z) >= k}`` for one level ``k`` (Def 3.1), exactly.

    Attributes
    ----------
    level : int
        ``k``.
    dimension : int
        ``D`` (1 or 2).
    interval : tuple or None
        ``D = 1``: ``(lo, hi)``, Fractions, ``None`` for an infinite end; ``None`` when the set is
        empty (and always for ``D = 2``).
    polygon : tuple of points
        ``D = 2``: the hull's vertices in counter-clockwise order (one point, two for a segment,
        ``()`` when empty). Empty for ``D = 1``.
    box : int or None
        The box radius ``R`` of the score ``f_B`` (``None``: the unboxed ``depth``).
    touches_box : bool
        Some point of depth ``>= k`` lies on the box boundary. When False (and ``R`` is at least
        :func:`bounding_box_radius`, so every arrangement vertex is in the box), the superlevel
        set of ``depth`` is bounded and inside the box, so this hull is also the hull of the
        unboxed definition. May be True conservatively when an arrangement vertex lies exactly on
        the boundary.
    """

    level: int
    dimension: int
    interval: tuple[Fraction | None, Fraction | None] | None
    polygon: tuple[Point, ...]
    box: int | None
    touches_box: bool

    @property
    def empty(self) -> bool:
        return self.interval is None and not self.polygon

    def contains(self, x) -> bool:
        """Whether the rational point ``x`` lies in the (closed) hull."""
        p = as_rational_point(x, self.dimension, "x")
        if self.dimension == 1:
            if self.interval is None:
                return False
            lo, hi = self.interval
            return (lo is None or lo <= p[0]) and (hi is None or p[0] <= hi)
        return _in_polygon(self.polygon, p)

    def slice(self, x1) -> tuple[Fraction, Fraction] | None:
        """``D = 2``: the range of ``x_2`` over the hull on the line ``x_1 = x1`` (or None).

        This is the level interval ``I_k`` of ``Q_2`` at the prefix ``x*_1 = x1`` when ``D = 2``
        (spec 2.2: with ``i = D`` there is nothing to maximise over, so ``Q_2(t) = cdepth(x1, t)``).
        """
        if self.dimension != 2:
            raise InvalidParameterError("slice needs a level of a 2-dimensional system")
        (t,) = as_rational_point([x1], 1, "x1")
        ys: list[Fraction] = []
        poly = self.polygon
        n = len(poly)
        for j in range(n):
            p, r = poly[j], poly[(j + 1) % n]
            if p[0] == t:
                ys.append(p[1])
            if (p[0] - t) * (r[0] - t) < 0:
                ys.append(p[1] + (t - p[0]) * (r[1] - p[1]) / (r[0] - p[0]))
        if not ys:
            return None
        return min(ys), max(ys)


def _cross(o: Point, a: Point, c: Point) -> Fraction:
    return (a[0] - o[0]) * (c[1] - o[1]) - (a[1] - o[1]) * (c[0] - o[0])


def _homogeneous(p: Point) -> tuple[int, int, int]:
    """``(X, Y, W)`` with ``p = (X / W, Y / W)``, ``W > 0``."""
    x, y = p
    w = x.denominator * y.denominator // math.gcd(x.denominator, y.denominator)
    return x.numerator * (w // x.denominator), y.numerator * (w // y.denominator), w


def _orient(o: tuple[int, int, int], a: tuple[int, int, int], c: tuple[int, int, int]) -> int:
    """``det[[o], [a], [c]]`` of homogeneous points (positive weights): the sign of :func:`_cross`."""
    return o[0] * (a[1] * c[2] - a[2] * c[1]) - o[1] * (a[0] * c[2] - a[2] * c[0]) + o[2] * (a[0] * c[1] - a[1] * c[0])


def _hull(points: list[Point]) -> tuple[Point, ...]:
    """Andrew's monotone chain on exact points: counter-clockwise hull, collinear points dropped.

    Orientation tests in integer homogeneous coordinates (the sign of :func:`_cross`, without
    Fraction arithmetic).
    """
    pts = sorted(set(points))
    if len(pts) <= 2:
        return tuple(pts)
    hom = [_homogeneous(p) for p in pts]
    lower: list[int] = []
    for j in range(len(pts)):
        while len(lower) >= 2 and _orient(hom[lower[-2]], hom[lower[-1]], hom[j]) <= 0:
            lower.pop()
        lower.append(j)
    upper: list[int] = []
    for j in range(len(pts) - 1, -1, -1):
        while len(upper) >= 2 and _orient(hom[upper[-2]], hom[upper[-1]], hom[j]) <= 0:
            upper.pop()
        upper.append(j)
    hull = [pts[j] for j in lower[:-1] + upper[:-1]]
    return tuple(hull) if len(hull) >= 2 else (pts[0], pts[-1])


def _in_polygon(poly: tuple[Point, ...], p: Point) -> bool:
    if not poly:
        return False
    if len(poly) == 1:
        return poly[0] == p
    if len(poly) == 2:
        a, c = poly
        if _cross(a, c, p) != 0:
            return False
        return min(a[0], c[0]) <= p[0] <= max(a[0], c[0]) and min(a[1], c[1]) <= p[1] <= max(a[1], c[1])
    n = len(poly)
    return all(_cross(poly[j], poly[(j + 1) % n], p) >= 0 for j in range(n))


def _check_box(box, D: int) -> int | None:
    if box is None:
        if D == 2:
            raise InvalidParameterError(
                "cdepth for D = 2 is computed for the boxed score f_B (spec 3.7 item 4): pass box=R, "
                "e.g. box=bounding_box_radius(2, X) with X the largest absolute entry"
            )
        return None
    return check_int(box, "box", low=1)


def _levels_1d(A: np.ndarray, b: np.ndarray, b_bound: int, R: int | None) -> list[tuple[int, Fraction | None]]:
    """Candidate points of a 1-D system with their depths: breakpoints, and ``+-inf`` or ``+-R``."""
    cand: set[Fraction] = set()
    for a, w in zip(A[:, 0], b):
        a, w = int(a), int(w)
        if a != 0:
            t = Fraction(w, a)
            if R is None or -R <= t <= R:
                cand.add(t)
    pts: list[Fraction | None] = sorted(cand)
    if R is not None:
        pts = sorted(set(pts) | {Fraction(-R), Fraction(R)})
    out: list[tuple[int, Fraction | None]] = []
    if pts:
        q = [t.denominator for t in pts]
        P = [[t.numerator] for t in pts]
        d = _depths(A, b, b_bound, _int_array(P), _int_array([q]).ravel())
        out = [(int(k), t) for k, t in zip(d, pts)]
    if R is None:  # depth at -inf (only a_l < 0 rows, and a_l = 0 rows with w_l <= 0) and at +inf
        a_col = [int(v) for v in A[:, 0]]
        w_col = [int(v) for v in b]
        zero = sum(1 for a, w in zip(a_col, w_col) if a == 0 and w <= 0)
        out.append((zero + sum(1 for a in a_col if a < 0), None))  # -inf, marked by position below
        out.append((zero + sum(1 for a in a_col if a > 0), None))
    return out


def _level_1d(A, b, b_bound, R, k) -> ConvexLevel:
    cands = _levels_1d(A, b, b_bound, R)
    if R is None:  # the last two entries are the depths at -inf and +inf
        finite, minus_inf_good, plus_inf_good = cands[:-2], cands[-2][0] >= k, cands[-1][0] >= k
    else:
        finite, minus_inf_good, plus_inf_good = cands, False, False
    good = [t for kk, t in finite if kk >= k]
    if not good and not (minus_inf_good or plus_inf_good):
        return ConvexLevel(k, 1, None, (), R, False)
    # A good infinite end with no good breakpoint means there is no breakpoint at all (depth just
    # beyond the last breakpoint is at most the depth at it), so both ends are then infinite.
    lo = None if minus_inf_good or not good else min(good)
    hi = None if plus_inf_good or not good else max(good)
    touches = R is not None and (lo == -R or hi == R)
    return ConvexLevel(k, 1, (lo, hi), (), R, touches)


def _vertices_2d(A: np.ndarray, b: np.ndarray, R: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertices ``P / q`` of the arrangement of the nonzero rows and the box facets ``+-x_j >= -R``.

    Every pair of non-parallel lines is solved by Cramer's rule; points outside the box are
    dropped and duplicates removed (reduced homogeneous coordinates).
    """
    rows = [(int(a1), int(a2), int(w)) for (a1, a2), w in zip(A, b) if (int(a1), int(a2)) != (0, 0)]
    rows = sorted(set(rows)) + [(1, 0, -R), (-1, 0, -R), (0, 1, -R), (0, -1, -R)]
    L = np.array(rows, dtype=object)
    i, j = np.triu_indices(len(rows), k=1)
    a1, a2, w = L[i, 0], L[i, 1], L[i, 2]
    c1, c2, v = L[j, 0], L[j, 1], L[j, 2]
    det = a1 * c2 - a2 * c1
    keep = det != 0
    det, a1, a2, w, c1, c2, v = (arr[keep] for arr in (det, a1, a2, w, c1, c2, v))
    x = w * c2 - a2 * v
    y = a1 * v - w * c1
    sign = np.where(det > 0, 1, -1).astype(object)
    det, x, y = det * sign, x * sign, y * sign
    inside = (abs(x) <= R * det) & (abs(y) <= R * det)
    seen: set[tuple[int, int, int]] = set()
    P: list[list[int]] = []
    q: list[int] = []
    for xx, yy, dd in zip(x[inside], y[inside], det[inside]):
        g = math.gcd(math.gcd(int(xx), int(yy)), int(dd))
        key = (int(xx) // g, int(yy) // g, int(dd) // g)
        if key not in seen:
            seen.add(key)
            P.append([key[0], key[1]])
            q.append(key[2])
    return _int_array(P), _int_array([q]).ravel()


def _level_2d_data(A, b, b_bound, R):
    P, q = _vertices_2d(A, b, R)
    d = _depths(A, b, b_bound, P, q)
    pts = [(Fraction(int(px), int(qq)), Fraction(int(py), int(qq))) for (px, py), qq in zip(P, q)]
    on_box = [abs(p[0]) == R or abs(p[1]) == R for p in pts]
    return pts, d, on_box


def _level_2d(pts, d, on_box, R, k) -> ConvexLevel:
    good = [p for p, kk in zip(pts, d) if kk >= k]
    touches = any(ob for ob, kk in zip(on_box, d) if kk >= k)
    return ConvexLevel(k, 2, None, _hull(good), R, touches)


def convex_superlevel_set(A, b, k: int, *, box: int | None = None) -> ConvexLevel:
    """``C_S(k) = conv{z : f(S, z) >= k}`` (Def 3.1; spec 2.1), exactly, for ``D = 1`` or ``2``.

    Parameters
    ----------
    A : array-like of shape (m, D)
        Integer constraint rows; ``D`` must be 1 or 2.
    b : array-like of shape (m,)
        Integer right-hand sides.
    k : int
        The level (``k <= 0`` is the whole space, which is not representable: refused).
    box : int, optional
        ``None`` (``D = 1`` only): ``f = depth``, unbounded sets included (an infinite end is
        ``None``). An integer ``R``: ``f_B = depth * 1[x in [-R, R]^D]`` (spec 3.7 item 4); required
        for ``D = 2``. Use :func:`bounding_box_radius` for the spec's ``R``.

    Notes
    -----
    ``D = 1``: a superlevel set is a finite union of closed intervals and rays whose ends are
    breakpoints ``w_l / a_l``; depth at a breakpoint is at least the depth just left and right of it
    (the constraints are closed), so the hull is ``[min, max]`` over breakpoints of depth ``>= k``,
    with an infinite end when the depth at that infinity (rows ``a_l < 0``, resp. ``> 0``, plus rows
    ``0 >= w_l``) is ``>= k``.

    ``D = 2`` (spec 6.2 steps 1 to 4): ``conv(D_k ∩ B) = conv(V_k)`` with ``V_k`` the vertices of the
    arrangement of the constraint lines and the box facets that have depth ``>= k`` (every face of
    the arrangement is a closed polygon whose vertices are arrangement vertices). Vertices by
    Cramer's rule in integers, depths by :func:`depth`'s exact counts, then an exact monotone-chain
    hull. ``O(m^2)`` vertices, ``O(m^3)`` integer work.
    """
    A_arr, _, b_arr, b_bound = _system(A, b)
    D = A_arr.shape[1]
    k = check_int(k, "k", low=1)
    if D not in (1, 2):
        raise InvalidParameterError(f"convex superlevel sets are implemented for D = 1 and D = 2, got D = {D}")
    R = _check_box(box, D)
    if D == 1:
        return _level_1d(A_arr, b_arr, b_bound, R, k)
    assert R is not None
    pts, d, on_box = _level_2d_data(A_arr, b_arr, b_bound, R)
    return _level_2d(pts, d, on_box, R, k)


def cdepth(x, A, b, *, box: int | None = None) -> int:
    """The convexified depth ``cdepth_S(x) = max{k : x in C_S(k)}`` (Def 3.1; spec 2.1), exactly.

    Parameters
    ----------
    x : sequence of int or fractions.Fraction, length D
        The query point.
    A, b
        The system ``A x >= b`` (integers), ``D = A.shape[1]`` in ``{1, 2}``.
    box : int, optional
        As in :func:`convex_superlevel_set`: ``None`` is the unboxed definition (``D = 1`` only);
        ``R`` convexifies ``f_B = depth * 1[x in [-R, R]^D]`` (spec 3.7 item 4; required for
        ``D = 2``).

    Returns
    -------
    int
        ``max{k >= 0 : x in C_S(k)}`` (``C_S(0)`` is the whole space, so at least 0). Always
        ``>= f(S, x)`` and ``<= max_z f(S, z)``; Claim 4.1 gives
        ``f(S, x) >= (D + 1) cdepth_S(x) - D m``.

    Notes
    -----
    Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Def 3.1 and Claim 4.1; spec
    ``kmst-halfspaces`` 2.1, 2.3, 3.7 item 4, 6.2. For ``D = 2`` the boxed value equals the unboxed
    one whenever ``C_S(cdepth + 1)`` does not touch the box (:attr:`ConvexLevel.touches_box`).
    The levels are nested, so the first level from the top that contains ``x`` is the answer.

    Examples
    --------
    >>> cdepth([0], [[1], [-1]], [1, 1])  # x >= 1 and x <= -1: each ray has depth 1, their hull is R
    1
    """
    A_arr, _, b_arr, b_bound = _system(A, b)
    D = A_arr.shape[1]
    if D not in (1, 2):
        raise InvalidParameterError(
            f"cdepth is implemented for D = 1 and D = 2, got D = {D} "
            "(for D = 3: arrangement_levels_3d(A, b, box=R).cdepth(x))"
        )
    R = _check_box(box, D)
    p = as_rational_point(x, D, "x")
    m = A_arr.shape[0]
    if D == 1:
        for k in range(m, 0, -1):
            if _level_1d(A_arr, b_arr, b_bound, R, k).contains(p):
                return k
        return 0
    assert R is not None
    pts, d, on_box = _level_2d_data(A_arr, b_arr, b_bound, R)
    for k in sorted({int(v) for v in d if v > 0}, reverse=True):
        if _level_2d(pts, d, on_box, R, k).contains(p):
            return k
    return 0


def convex_levels(A, b, *, box: int) -> list[ConvexLevel]:
    """Every boxed level ``C_S(k)``, ``k = 1 .. m``, exactly, for ``D = 1`` or ``2`` (list index ``k - 1``).

    The same sets as :func:`convex_superlevel_set` with ``box=R`` (spec 6.2 steps 1 to 4), computed
    in one pass: the arrangement's vertices and their depths once, then, from the top level down,
    ``conv(V_k) = conv(conv(V_(k+1)) ∪ {v : depth(v) = k})``. ``O(m^2 log m)`` exact operations for
    ``D = 2`` instead of ``O(m^3)`` for ``m`` separate calls. Levels above the largest depth are
    empty. This is what the per-coordinate quality of FindDeepPoint reads its nested level
    intervals from (:mod:`privpac.learners.linear_feasibility`).
    """
    A_arr, _, b_arr, b_bound = _system(A, b)
    D = A_arr.shape[1]
    if D not in (1, 2):
        raise InvalidParameterError(f"convex superlevel sets are implemented for D = 1 and D = 2, got D = {D}")
    R = check_int(box, "box", low=1)
    m = A_arr.shape[0]
    out: list[ConvexLevel] = []
    if D == 1:
        cands = _levels_1d(A_arr, b_arr, b_bound, R)
        lo: Fraction | None = None
        hi: Fraction | None = None
        ordered = sorted(cands, key=lambda c: -c[0])
        j = 0
        for k in range(m, 0, -1):
            while j < len(ordered) and ordered[j][0] >= k:
                t = ordered[j][1]
                lo = t if lo is None or t < lo else lo
                hi = t if hi is None or t > hi else hi
                j += 1
            if lo is None:
                out.append(ConvexLevel(k, 1, None, (), R, False))
            else:
                out.append(ConvexLevel(k, 1, (lo, hi), (), R, lo == -R or hi == R))
        return out[::-1]
    pts, d, on_box = _level_2d_data(A_arr, b_arr, b_bound, R)
    by_level: dict[int, list[int]] = {}
    for idx, kk in enumerate(d):
        by_level.setdefault(int(kk), []).append(idx)
    hull: tuple[Point, ...] = ()
    touches = False
    for k in range(m, 0, -1):
        new = by_level.get(k, [])
        if new:
            hull = _hull(list(hull) + [pts[j] for j in new])
            touches = touches or any(on_box[j] for j in new)
        out.append(ConvexLevel(k, 2, None, hull, R, touches))
    return out[::-1]


# ---------------------------------------------------------------------------------------------
# D = 3: the arrangement's vertices once, level intervals per prefix (2-D hulls and exact LPs)
# ---------------------------------------------------------------------------------------------


def _lex_order(X: list[int], Y: list[int], W: list[int]) -> list[int]:
    """The positions of the points ``(X, Y) / W`` (``W > 0``) sorted by ``(x, y)``, exact duplicates dropped.

    Floats propose the order (a rounded quotient never reverses a strict order, it can only tie), and
    every adjacent pair is then compared exactly in integers; an unsorted proposal (a float tie that
    hid a strict order, or values beyond floats) is sorted again with Fraction keys.
    """
    n = len(W)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        wf = np.asarray(W, dtype=float)
        xf = np.asarray(X, dtype=float) / wf
        yf = np.asarray(Y, dtype=float) / wf
    order = np.lexsort((yf, xf)).tolist() if np.all(np.isfinite(xf)) and np.all(np.isfinite(yf)) else None
    if order is not None:
        out = [order[0]] if n else []
        for j in order[1:]:
            i = out[-1]
            c = X[j] * W[i] - X[i] * W[j]
            if c == 0:
                c = Y[j] * W[i] - Y[i] * W[j]
                if c == 0:  # the same point again
                    continue
            if c < 0:
                order = None
                break
            out.append(j)
        if order is not None:
            return out
    keyed = sorted(range(n), key=lambda j: (Fraction(X[j], W[j]), Fraction(Y[j], W[j])))
    out = keyed[:1]
    for j in keyed[1:]:
        i = out[-1]
        if X[j] * W[i] != X[i] * W[j] or Y[j] * W[i] != Y[i] * W[j]:
            out.append(j)
    return out


def _chain(hom: list[tuple[int, int, int]], steps) -> list[int]:
    """One monotone chain over the homogeneous points in the order ``steps``: :func:`_orient` inlined."""
    out: list[int] = []
    for j in steps:
        c0, c1, c2 = hom[j]
        while len(out) >= 2:
            o0, o1, o2 = hom[out[-2]]
            a0, a1, a2 = hom[out[-1]]
            if o0 * (a1 * c2 - a2 * c1) - o1 * (a0 * c2 - a2 * c0) + o2 * (a0 * c1 - a1 * c0) > 0:
                break
            out.pop()
        out.append(j)
    return out


def _hull_indices(P: np.ndarray, q: np.ndarray, idx) -> list[int]:
    """:func:`_hull` of the points ``P[idx, :2] / q[idx]``, as indices: Andrew's monotone chain in integers.

    The same polygon as :func:`_hull` (counter-clockwise from the smallest point, collinear points
    dropped, one point or a segment's two ends when degenerate), without a Fraction per point: exact
    lexicographic order (:func:`_lex_order`) and integer homogeneous orientations (:func:`_orient`).
    """
    idx = [int(j) for j in idx]
    X, Y, W = P[idx, 0].tolist(), P[idx, 1].tolist(), q[idx].tolist()
    X, Y, W = [int(v) for v in X], [int(v) for v in Y], [int(v) for v in W]
    order = _lex_order(X, Y, W)
    if len(order) <= 2:
        return [idx[j] for j in order]
    hom = [(X[j], Y[j], W[j]) for j in order]
    lower = _chain(hom, range(len(hom)))
    upper = _chain(hom, range(len(hom) - 1, -1, -1))
    chain = lower[:-1] + upper[:-1]
    if len(chain) < 2:
        chain = [0, len(hom) - 1]
    return [idx[order[j]] for j in chain]


#: Directions in which :func:`_extremes` picks a level's roughly extreme points.
_DIRECTIONS = np.stack([np.cos(np.arange(32) * np.pi / 16), np.sin(np.arange(32) * np.pi / 16)])


def _extremes(P: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Indices of points ``P[:, :2] / q`` roughly extreme in 32 directions (floats: any choice is safe,
    they are only points of the set); none when the values exceed floats."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        qf = np.asarray(q, dtype=float)
        xy = np.stack([np.asarray(P[:, 0], dtype=float) / qf, np.asarray(P[:, 1], dtype=float) / qf], axis=1)
    if not np.all(np.isfinite(xy)):
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.argmax(xy @ _DIRECTIONS, axis=0))


#: Relative float error under which :func:`_inside_polygon` trusts a sign (three products of rounded
#: entries and their sum err by far less than ``10 * 2**-53`` of the sum of the absolute terms).
_SLACK = 1e-12


def _edges(H: list[tuple[int, int, int]]) -> np.ndarray | None:
    """The edges ``u x v`` of the polygon ``H`` (homogeneous integers), each divided by the sum of its
    absolute entries, as a ``(3, edges)`` float array; None when an entry exceeds floats."""
    pairs = zip(H, H[1:] + H[:1])
    C = [(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]) for u, v in pairs]
    try:
        Cf = np.asarray(C, dtype=float)
    except OverflowError:
        return None
    norm = np.sum(np.abs(Cf), axis=1)
    if not (np.all(np.isfinite(norm)) and np.all(norm > 0)):
        return None
    return (Cf / norm[:, None]).T


def _inside_polygon(P: np.ndarray, q: np.ndarray, H: list[tuple[int, int, int]]) -> np.ndarray:
    """Mask of the points ``P[:, :2] / q`` *certainly strictly inside* the counter-clockwise polygon ``H``
    (homogeneous integer vertices ``(X, Y, W)``, ``W > 0``, at least three).

    A point strictly inside the hull of some points of a set is not a vertex of the set's hull, so
    dropping it leaves the hull as it is. Per edge ``(u, v)`` the orientation ``<(x, y, w), u x v>`` of the
    homogeneous point, the edges scaled to unit 1-norm, all edges in one float product: a point counts as
    inside only when every orientation exceeds ``_SLACK`` times ``max(|x|, |y|, |w|)``, a bound on its
    sum of absolute terms that rounding (about ``10 * 2**-53`` of that sum) cannot reach; ties, near-ties
    and values beyond floats stay (NaN and infinities compare false), decided exactly by
    :func:`_hull_indices`. Most points are settled first against every eighth vertex's polygon (inside
    it is inside ``H``), the rest against every edge.
    """
    n = len(q)
    C = _edges(H)
    if C is None:
        return np.zeros(n, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):
        Z = np.stack([np.asarray(v, dtype=float) for v in (P[:, 0], P[:, 1], q)], axis=1)
        scale = _SLACK * np.max(np.abs(Z), axis=1)
        sub = _edges(H[:: len(H) // 8]) if len(H) >= 24 else None
        if sub is None:
            return (Z @ C).min(axis=1) > scale
        inside = (Z @ sub).min(axis=1) > scale
        rest = np.flatnonzero(~inside)
        inside[rest] = (Z[rest] @ C).min(axis=1) > scale[rest]
    return inside


def _argmin_ratio(num: np.ndarray, den: np.ndarray) -> int:
    """An index of the smallest ``num[j] / den[j]`` (``den > 0``), exactly.

    Floats propose (the float argmin), exact integer signs decide: the proposal is accepted when no
    ``num_i den_j - num_j den_i`` is negative (:func:`~privpac.geometry._exact.exact_signs`), else
    the best float among the exactly smaller entries is proposed next (strictly smaller each time).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        f = np.asarray(num, dtype=float) / np.asarray(den, dtype=float)
    finite = bool(np.all(np.isfinite(f)))
    j = int(np.argmin(f)) if finite else 0
    while True:
        smaller = np.flatnonzero(exact_signs([num, den], [int(den[j]), -int(num[j])]) < 0)
        if len(smaller) == 0:
            return j
        j = int(smaller[np.argmin(f[smaller])]) if finite else int(smaller[0])


def _point2(P: np.ndarray, q) -> Point:
    return Fraction(int(P[0]), int(q)), Fraction(int(P[1]), int(q))



class PointLevels:
    """The levels ``conv(V_k)`` of a finite point set ``V`` with integer depths, answered per prefix (spec 6.2).

    ``V_k`` are the points of depth ``>= k``: the vertices of the arrangement of the constraint
    planes and the box facets ``+-x_j >= -R`` (:func:`arrangement_levels_3d`, the exact oracle), or
    a public candidate set (:func:`candidate_levels`, spec 6.5 option 1). The nested level intervals
    of FindDeepPoint's ``Q_i`` (spec 6.2 step 4) are, with ``p`` the prefix of length ``i - 1``:

    * ``i = 1``: ``[min, max]`` of ``v_1`` over ``V_k``: per group of points of one depth the
      exact extreme (floats propose, integer cross products decide, :func:`_argmin_ratio`), then
      prefix extrema over the at most ``m`` groups;
    * ``i = 2``: the slice at ``x_1 = p_1`` of the exact 2-D hull of the projections ``(v_1, v_2)``
      (incremental monotone-chain hulls from the top level down, computed once: the points certainly
      strictly inside the previous level's hull are dropped by a float filter that rounding cannot
      fool, :func:`_inside_polygon`, the rest hulled in integers, :func:`_hull_indices`);
    * ``i >= 3``: the range of ``x_i`` over ``conv(π_(<=i) V_k) ∩ {x_(<i) = p}`` per distinct depth
      value, by exact LPs over all of ``V_k`` (column generation, certified by exact pricing of every
      point, :func:`~privpac.geometry.exact_lp.hull_slice_ranges`). Which slices are non-empty: for
      ``i = 3`` ``p`` lies in the level's 2-D hull; for ``i >= 4`` an exact feasibility LP
      (:func:`~privpac.geometry.exact_lp.slice_support`), by binary search over the nested levels.

    Every value is exact (integer points and depths, Fraction hulls, certified LP optima).
    """

    def __init__(self, P: np.ndarray, q: np.ndarray, depths: np.ndarray, R: int, m: int):
        d = np.asarray(depths)
        if d.dtype.kind not in "iu":
            d = d.astype(np.int64)
        if len(d) > 1 and np.any(d[1:] > d[:-1]):  # falling depth; a stable sort of small non-negative keys
            order = np.argsort((m - d.astype(np.int64)).astype(np.uint16 if m < 2**16 else np.int64), kind="stable")
            P, q, d = P[order], q[order], d[order]
        # already falling (arrangement_vertices sorts its output): the arrays are shared, not copied
        self.P = P
        self.q = q
        self.depths = d
        self.R = R
        self.m = m
        self.dimension = int(P.shape[1])
        # count[k] = #{v : depth(v) >= k}, k = 0 .. m + 1
        per = np.bincount(d, minlength=m + 2)[: m + 2].astype(np.int64)
        self._count = np.cumsum(per[::-1])[::-1]
        self._levels = [int(k) for k in np.flatnonzero(per[1:]) + 1]
        self._x1: list[tuple[Fraction, Fraction]] | None = None
        self._hulls: dict[int, list[int]] | None = None

    @property
    def top(self) -> int:
        """The largest vertex depth (levels above it are empty)."""
        return int(self.depths[0]) if len(self.depths) else 0

    def _distinct_levels(self) -> list[int]:
        return list(self._levels)

    def _x1_intervals(self) -> list[tuple[Fraction, Fraction]]:
        if self._x1 is None:
            out: list[tuple[Fraction, Fraction]] = []
            lo = hi = None
            for k in range(self.top, 0, -1):
                s, e = int(self._count[k + 1]), int(self._count[k])
                if e > s:
                    num, den = self.P[s:e, 0], self.q[s:e]
                    j = s + _argmin_ratio(num, den)
                    v = Fraction(int(self.P[j, 0]), int(self.q[j]))
                    lo = v if lo is None or v < lo else lo
                    j = s + _argmin_ratio(-num, den)
                    v = Fraction(int(self.P[j, 0]), int(self.q[j]))
                    hi = v if hi is None or v > hi else hi
                out.append((lo, hi))
            self._x1 = out[::-1]
        return self._x1

    def _projected_hulls(self) -> dict[int, list[int]]:
        """``{k: indices of the vertices of the 2-D hull of the projections of V_k}``, every level ``1 .. top``.

        From the top level down: the new points certainly strictly inside the hull of the previous
        level's hull and the level's own rough extremes (points of ``V_k`` in either case) are dropped
        (:func:`_inside_polygon`), the rest hulled exactly with those vertices (:func:`_hull_indices`).
        Levels without points share the previous list.
        """
        if self._hulls is None:
            hulls: dict[int, list[int]] = {}
            hull: list[int] = []
            for k in range(self.top, 0, -1):
                s, e = int(self._count[k + 1]), int(self._count[k])
                if e > s:
                    cand = np.arange(s, e)
                    base = _hull_indices(self.P, self.q, hull + (s + _extremes(self.P[s:e], self.q[s:e])).tolist())
                    if len(base) >= 3:  # a point strictly inside base is no vertex of the level's hull
                        H = [(int(self.P[j, 0]), int(self.P[j, 1]), int(self.q[j])) for j in base]
                        cand = cand[~_inside_polygon(self.P[s:e], self.q[s:e], H)]
                    hull = _hull_indices(self.P, self.q, base + cand.tolist()) if len(cand) else base
                hulls[k] = hull
            self._hulls = hulls
        return self._hulls

    def _polygon(self, level: int) -> tuple[Point, ...]:
        """The hull of level ``level``'s projections as Fraction points (counter-clockwise)."""
        return tuple(_point2(self.P[j], self.q[j]) for j in self._projected_hulls()[level])

    def _slice(self, level: int, t: Fraction, side: dict[int, int]) -> tuple[Fraction, Fraction] | None:
        """:meth:`ConvexLevel.slice` of the level's hull at ``x_1 = t``; ``side`` caches ``sign(x_j - t)``."""
        hull = self._projected_hulls()[level]
        missing = [j for j in hull if j not in side]
        if missing:
            signs = exact_signs([self.P[missing, 0], self.q[missing]], [t.denominator, -t.numerator])
            side.update(zip(missing, signs.tolist()))
        ys: list[Fraction] = []
        n = len(hull)
        for a in range(n):
            j, r = hull[a], hull[(a + 1) % n]
            if side[j] == 0:
                ys.append(Fraction(int(self.P[j, 1]), int(self.q[j])))
            if side[j] * side[r] < 0:
                (x0, y0), (x1, y1) = _point2(self.P[j], self.q[j]), _point2(self.P[r], self.q[r])
                ys.append(y0 + (t - x0) * (y1 - y0) / (x1 - x0))
        if not ys:
            return None
        return min(ys), max(ys)

    def intervals(self, prefix, floor: int = 0) -> list[tuple[Fraction, Fraction]]:
        """``[I_1, I_2, ...]`` of ``Q_i``, ``i = len(prefix) + 1``, up to the first empty level.

        ``floor``: only the levels above it are needed (RecConcave's truncation ``max(Q, tau)``,
        spec 3.7 item 3, with the public ``tau``): for ``i >= 3`` no LP is solved at a level
        ``<= floor``, whose entry is then the first level above it (any nested value gives the same
        truncated quality), and ``[]`` when no level above ``floor`` is non-empty.
        """
        p = tuple(Fraction(v) for v in prefix)
        if len(p) == 0:
            return list(self._x1_intervals())
        if len(p) == 1:
            out: list[tuple[Fraction, Fraction]] = []
            side: dict[int, int] = {}
            previous = 0
            for level in self._distinct_levels():  # V_k only changes at a depth some point has
                sl = self._slice(level, p[0], side)
                if sl is None:
                    break
                out.extend([sl] * (level - previous))
                previous = level
            return out
        if len(p) >= self.dimension:
            raise InvalidParameterError(
                f"a prefix of a {self.dimension}-dimensional system has at most {self.dimension - 1} coordinates, "
                f"got {len(p)}"
            )
        from .exact_lp import hull_slice_ranges, slice_support

        hulls = self._projected_hulls()
        # the slice of conv(V_k) is non-empty only if p[:2] is in its projection; the sets shrink with
        # the level (nested), so the levels that pass are a prefix of the rising distinct levels
        distinct = [level for level in self._distinct_levels() if level > floor]
        lo, hi = 0, len(distinct)
        while lo < hi:
            mid = (lo + hi) // 2
            if _in_polygon(self._polygon(distinct[mid]), p[:2]):
                lo = mid + 1
            else:
                hi = mid
        feasible = distinct[:lo]
        if len(p) >= 3 and feasible:  # the projection to the first i - 1 coordinates: exact LPs
            lo, hi, support = 0, len(feasible), None  # feasible[:lo] certified, feasible[hi:] not
            while lo < hi:
                mid = (lo + hi) // 2
                cols = slice_support(self.P, self.q, p, int(self._count[feasible[mid]]))
                if cols is None:
                    hi = mid
                else:
                    lo, support = mid + 1, cols
            feasible = feasible[:lo]  # the last success was feasible[lo - 1]: `support` is its solution
        if not feasible:
            return []
        falling = feasible[::-1]  # growing sets
        counts = [int(self._count[level]) for level in falling]
        if len(p) == 2:
            seeds = [list(hulls[level]) for level in falling]
        else:  # the top feasible level's basic columns come first in the order: feasible for every lower level
            seeds = [list(support)] * len(falling)
        ranges = hull_slice_ranges(self.P, self.q, p, counts, seeds=seeds)[::-1]
        out = []
        previous = 0
        for level, rng in zip(feasible, ranges):
            out.extend([rng] * (level - previous))
            previous = level
        return out

    def cdepth(self, x) -> int:
        """``max{k : x in conv(V_k)}`` (0 in none): the boxed convexified depth of the rational point ``x``."""
        x = as_rational_point(x, self.dimension, "x")
        best = 0
        for k, (lo, hi) in enumerate(self.intervals(x[:-1]), start=1):
            if lo <= x[-1] <= hi:
                best = k
        return best


def _arrangement_levels(A, b, box: int, D: int, name: str) -> PointLevels:
    A_arr, _, b_arr, _ = _system(A, b)
    if A_arr.shape[1] != D:
        raise InvalidParameterError(f"{name} needs a {D}-column system, got {A_arr.shape[1]} columns")
    R = check_int(box, "box", low=1)
    P, q, depths = arrangement_vertices(A_arr, b_arr, R, prune=True)
    return PointLevels(P, q, depths, R, A_arr.shape[0])


def arrangement_levels_2d(A, b, *, box: int) -> PointLevels:
    """The levels of a 2-dimensional system ``A x >= b`` in the box ``[-R, R]^2`` (spec 6.2 steps 1-3).

    The vertices of the arrangement of the constraint lines and the box facets with their depths,
    each once, by a line sweep (:func:`~privpac.geometry.arrangement.arrangement_vertices`:
    ``O(m^2 log m)`` exact integer work); ``conv(D_k ∩ B) = conv(V_k)`` (the constraints are closed),
    so :class:`PointLevels` answers the level intervals of ``Q_1`` (prefix extrema) and ``Q_2``
    (slices of the exact hulls). The same sets as :func:`convex_levels` (checked in
    ``tests/test_arrangement_sweep.py``), computed without a Fraction per vertex.
    """
    return _arrangement_levels(A, b, box, 2, "arrangement_levels_2d")


def arrangement_levels_3d(A, b, *, box: int) -> PointLevels:
    """The levels of a 3-dimensional system ``A x >= b`` in the box ``[-R, R]^3`` (spec 6.2 steps 1-3).

    The vertices of the arrangement of the constraint planes and the box facets with their depths,
    each once, by a sweep of every line of two planes
    (:func:`~privpac.geometry.arrangement.arrangement_vertices`: ``O(m^3 log m)`` exact integer work,
    only the vertices and their depths kept). ``conv(D_k ∩ B) = conv(V_k)`` (the constraints are
    closed), so the level sets are the hulls of the vertex sets ``V_k``; :class:`PointLevels`
    answers their slices.
    """
    return _arrangement_levels(A, b, box, 3, "arrangement_levels_3d")


# ---------------------------------------------------------------------------------------------
# A public candidate set (spec 6.5 option 1): f_P(S, x) = depth_S(x) 1[x in P]
# ---------------------------------------------------------------------------------------------


def candidate_depths(A, b, points) -> np.ndarray:
    """``depth_S(p)`` for every row ``p`` of the integer array ``points``: one exact count per candidate.

    The same exact product as the arrangement's vertex depths (:func:`_depths` with denominators
    1: float64 BLAS only under its checked ``2**53`` bound, then ``int64``, then Python ints). A
    sum over records, so a sample split in blocks gives the sum of the blocks' counts
    (:mod:`privpac.backends` merges them exactly). ``A`` may have no rows (all counts 0).
    """
    P, _ = as_integer_points(points, "candidates")
    A_arr = np.asarray(A)
    if A_arr.ndim != 2 or A_arr.shape[0] == 0:
        return np.zeros(P.shape[0], dtype=np.int64)
    A_arr, _, b_arr, b_bound = _system(A, b)
    if A_arr.shape[1] != P.shape[1]:
        raise DataError(f"A has {A_arr.shape[1]} columns but the candidates have {P.shape[1]} coordinates")
    ones = np.ones(P.shape[0], dtype=np.int64)
    return np.asarray(_depths(A_arr, b_arr, b_bound, P, ones), dtype=np.int64)


def candidate_levels(points, depths, m: int, *, bound: int) -> PointLevels:
    """The levels ``conv{p in P : depth_S(p) >= k}`` of the score ``f_P = depth_S 1[x in P]`` (spec 6.5 option 1).

    ``points`` is the public candidate set (integers in ``[-bound, bound]``), ``depths`` their exact
    depths (:func:`candidate_depths`, in memory or merged over an engine's blocks) and ``m`` the
    public number of constraints. Claim 4.1 holds for any point set (Caratheodory), so FindDeepPoint
    runs on these levels unchanged, relative to the best candidate (:class:`PointLevels`).
    """
    P, _ = as_integer_points(points, "candidates")
    d = np.asarray(depths, dtype=np.int64).reshape(-1)
    if d.shape[0] != P.shape[0]:
        raise DataError(f"{P.shape[0]} candidates but {d.shape[0]} depths")
    m = check_int(m, "m", low=1)
    if d.size and (int(d.min()) < 0 or int(d.max()) > m):
        raise DataError(f"candidate depths must lie in [0, m = {m}]")
    return PointLevels(P, np.ones(P.shape[0], dtype=np.int64), d, check_int(bound, "bound", low=1), m)
