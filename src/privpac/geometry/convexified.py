"""The convexified depth of an integer linear system and its level sets, for ``D = 1`` and ``D = 2``.

Kaplan, Mansour, Stemmer, Tsfadia, "Private learning of halfspaces: simplifying the construction and
reducing the sample complexity" (NeurIPS 2020), Def 3.1 and Claim 4.1; spec ``kmst-halfspaces``
sections 2.1, 2.3, 3.7 (item 4) and 6.2.

* :func:`cdepth`: the convexified depth of Def 3.1 (spec 2.1),
  ``cdepth_S(x) = max{k : x in conv({z : depth_S(z) >= k})}``. Exact for ``D = 1`` as the
  definition states it (unbounded superlevel sets included), and for ``D = 2`` for the boxed score
  ``f_B(x) = depth_S(x) 1[x in B]``, ``B = [-R, R]^2`` (spec 3.7 item 4, the score the algorithm
  actually convexifies); see :func:`convex_superlevel_set` for when the boxed and unboxed values
  provably agree.
* :func:`convex_superlevel_set`: ``C_S(k)`` itself, an interval (``D = 1``) or a convex polygon
  (``D = 2``), exactly.
* :func:`convex_levels`: every boxed level at once (one incremental hull pass), the public
  per-level form for ``D <= 2``; FindDeepPoint reads its ``D = 1`` levels from it.

Claim 4.1 of the paper (``depth >= (D + 1) cdepth - D m``, spec 2.3) holds for both scores and is
tested in ``tests/papers/kmst_linear_feasibility/test_feasibility.py``.

Every count is :mod:`privpac.geometry.feasibility`'s exact depth; vertices come from Cramer's rule in
integers and hulls from an exact monotone chain (integer homogeneous orientations). The levels of
``D = 2`` and ``D = 3`` that the learner reads are :mod:`privpac.geometry.point_levels`' (the same
sets for ``D = 2``, computed without a Fraction per vertex).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InvalidParameterError
from ..validation import check_int
from ._exact import as_rational_point
from .feasibility import _depths, _int_array, _system

__all__ = [
    "ConvexLevel",
    "cdepth",
    "convex_levels",
    "convex_superlevel_set",
]

Point = tuple[Fraction, ...]


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
        :func:`~privpac.geometry.feasibility.bounding_box_radius`, so every arrangement vertex is in
        the box), the superlevel set of ``depth`` is bounded and inside the box, so this hull is also
        the hull of the unboxed definition. May be True conservatively when an arrangement vertex lies exactly on
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
        for ``D = 2``. Use :func:`~privpac.geometry.feasibility.bounding_box_radius` for the spec's ``R``.

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
    Cramer's rule in integers, depths by :func:`~privpac.geometry.feasibility.depth`'s exact counts,
    then an exact monotone-chain hull. ``O(m^2)`` vertices, ``O(m^3)`` integer work.
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
