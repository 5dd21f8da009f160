"""The levels ``conv(V_k)`` of a finite point set with integer depths, answered per prefix.

Kaplan, Mansour, Stemmer, Tsfadia, "Private learning of halfspaces: simplifying the construction and
reducing the sample complexity" (NeurIPS 2020), Def 3.1 and Fig. 2 (FindDeepPoint); spec
``kmst-halfspaces`` sections 6.2 (steps 1 to 4) and 6.5 (option 1).

* :func:`arrangement_levels_2d`, :func:`arrangement_levels_3d`: the boxed levels of a system for
  ``D = 2`` and ``D = 3`` (spec 6.2 steps 1 to 4), from which :mod:`privpac.learners.linear_feasibility`
  reads the nested level intervals of its per-coordinate quality ``Q_i``: the arrangement's vertices
  with their depths by line sweeps (:mod:`privpac.geometry.arrangement`), answered per prefix by
  :class:`PointLevels`: prefix extrema (``i = 1``), exact 2-D hulls of the projections (``i = 2``)
  and certified exact LPs by column generation (``i = 3``, :mod:`privpac.geometry.hull_lp`).
* :func:`candidate_levels`: the same levels for a public finite candidate set in any dimension
  (spec 6.5 option 1), from depths of :func:`~privpac.geometry.feasibility.candidate_depths`.

Every value is exact: integer points ``P / q`` (``q > 0``) and depths, integer homogeneous hulls,
certified LP optima. Floats only propose (an extreme point, a hull seed, an order) or filter signs
whose doubtful cases are recomputed in integers: no rounded float decides a level.

Not here: the arrangement of ``D >= 4``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import DataError, InvalidParameterError
from ..validation import check_int
from ._exact import as_integer_points, as_rational_point, exact_signs
from .arrangement import arrangement_vertices
from .convexified import Point, _in_polygon
from .feasibility import _system

__all__ = [
    "PointLevels",
    "arrangement_levels_2d",
    "arrangement_levels_3d",
    "candidate_levels",
]


def _lex_order(X: list[int], Y: list[int], W: list[int], arrays=None) -> list[int]:
    """The positions of the points ``(X, Y) / W`` (``W > 0``) sorted by ``(x, y)``, exact duplicates dropped.

    Floats propose the order (a rounded quotient never reverses a strict order, it can only tie), and
    every adjacent pair is then compared exactly in integers; an unsorted proposal (a float tie that
    hid a strict order, or values beyond floats) is sorted again with Fraction keys. ``arrays``: the
    same points as integer arrays ``(P, q)``, converted to floats without the lists.
    """
    n = len(W)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if arrays is None:
            wf = np.asarray(W, dtype=float)
            xf = np.asarray(X, dtype=float) / wf
            yf = np.asarray(Y, dtype=float) / wf
        else:
            wf = arrays[1].astype(float)
            xf = arrays[0][:, 0] / wf
            yf = arrays[0][:, 1] / wf
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
    """One monotone chain over the homogeneous points in the order ``steps``.

    The orientation test of :func:`~privpac.geometry.convexified._orient` is inlined.
    """
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
    """The hull of the points ``P[idx, :2] / q[idx]``, as indices: Andrew's monotone chain in integers.

    The same polygon as :func:`~privpac.geometry.convexified._hull` (counter-clockwise from the
    smallest point, collinear points dropped, one point or a segment's two ends when degenerate),
    without a Fraction per point: exact lexicographic order (:func:`_lex_order`) and integer
    homogeneous orientations (:func:`~privpac.geometry.convexified._orient`).
    """
    idx = np.asarray(idx, dtype=np.int64)
    Pi, qi = P[idx], q[idx]
    X, Y, W = Pi[:, 0].tolist(), Pi[:, 1].tolist(), qi.tolist()
    if P.dtype == object or q.dtype == object:  # int64 arrays give Python ints already
        X, Y, W = [int(v) for v in X], [int(v) for v in Y], [int(v) for v in W]
    order = _lex_order(X, Y, W, None if P.dtype == object or q.dtype == object else (Pi, qi))
    if len(order) <= 2:
        return [int(idx[j]) for j in order]
    hom = [(X[j], Y[j], W[j]) for j in order]
    lower = _chain(hom, range(len(hom)))
    upper = _chain(hom, range(len(hom) - 1, -1, -1))
    chain = lower[:-1] + upper[:-1]
    if len(chain) < 2:
        chain = [0, len(hom) - 1]
    idx = idx.tolist()
    return [idx[order[j]] for j in chain]


#: Directions in which :func:`_extremes` picks a level's roughly extreme points, one per row.
_DIRECTIONS = np.stack([np.cos(np.arange(32) * np.pi / 16), np.sin(np.arange(32) * np.pi / 16)], axis=1)


def _floats(P: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The homogeneous points ``(x, y, w)`` of ``P[:, :2] / q`` as floats, one per column ``(3, n)``
    (infinities beyond floats): what :func:`_extremes` and :func:`_inside_polygon` read."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.stack([np.asarray(v, dtype=float) for v in (P[:, 0], P[:, 1], q)])


def _extremes(Z: np.ndarray) -> np.ndarray:
    """Indices of the points ``Z`` (:func:`_floats`) roughly extreme in 32 directions (floats: any choice
    is safe, they are only points of the set); none when the values exceed floats."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        xy = Z[:2] / Z[2]
    if not np.all(np.isfinite(xy)):
        return np.zeros(0, dtype=np.int64)
    # elementwise, not a matrix product: BLAS threads on (32, n) blocks cost more than they give (on a busy
    # machine many times the product's own time, for the thousands of levels of a D = 2 fit)
    return np.unique(np.argmax(_DIRECTIONS[:, :1] * xy[0] + _DIRECTIONS[:, 1:] * xy[1], axis=1))


#: Relative float error under which :func:`_inside_polygon` trusts a sign (three products of rounded
#: entries and their sum err by far less than ``10 * 2**-53`` of the sum of the absolute terms).
_SLACK = 1e-12


def _crosses(pairs) -> np.ndarray | None:
    """The lines ``u x v`` through the pairs of homogeneous integer points, each divided by the sum of its
    absolute entries, as a ``(3, pairs)`` float array; None when an entry exceeds floats."""
    C = [(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]) for u, v in pairs]
    try:
        Cf = np.asarray(C, dtype=float)
    except OverflowError:
        return None
    norm = np.sum(np.abs(Cf), axis=1)
    if not (np.all(np.isfinite(norm)) and np.all(norm > 0)):
        return None
    return (Cf / norm[:, None]).T


def _inside_polygon(Z: np.ndarray, H: list[tuple[int, int, int]]) -> np.ndarray:
    """Mask of the points ``Z`` (:func:`_floats` of ``P[:, :2] / q``) *certainly strictly inside* the
    counter-clockwise polygon ``H`` (homogeneous integer vertices ``(X, Y, W)``, ``W > 0``, at least three).

    A point strictly inside the hull of some points of a set is not a vertex of the set's hull, so
    dropping it leaves the hull as it is. The polygon is cut into the fan of triangles
    ``(v_0, v_t, v_(t+1))``; each point is tested against the one triangle whose angle at ``v_0`` holds
    its direction (a float proposal: a wrong triangle can only fail the test), i.e. three orientations
    ``<(x, y, w), u x v>`` of the homogeneous point, the lines scaled to unit 1-norm. A point counts as
    inside only when all three exceed ``_SLACK`` times ``max(|x|, |y|, |w|)``, a bound on their sums of
    absolute terms that rounding (about ``10 * 2**-53`` of that sum, in any order of summation) cannot
    reach: it is then strictly inside a triangle of the polygon's vertices, hence strictly inside the
    polygon. Ties, near-ties and values beyond floats stay (NaN and infinities compare false), decided
    exactly by :func:`_hull_indices`. Three orientations a point whatever the polygon's size.
    """
    n = Z.shape[1]
    h = len(H)
    diag = _crosses((H[0], v) for v in H[1:])  # v_0 x v_t, t = 1 .. h - 1
    side = _crosses(zip(H[1:-1], H[2:]))  # v_t x v_(t+1), t = 1 .. h - 2
    if diag is None or side is None:
        return np.zeros(n, dtype=bool)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        V = np.array([[float(x) / float(w), float(y) / float(w)] for x, y, w in H])
        if not np.all(np.isfinite(V)):
            return np.zeros(n, dtype=bool)
        d = V[1:] - V[0]  # the fan's directions at v_0, turning counter-clockwise through less than pi
        angle = np.arctan2(d[0, 0] * d[:, 1] - d[0, 1] * d[:, 0], d[0, 0] * d[:, 0] + d[0, 1] * d[:, 1])
        x = Z[0] / Z[2] - V[0, 0]
        y = Z[1] / Z[2] - V[0, 1]
        t = np.searchsorted(angle, np.arctan2(d[0, 0] * y - d[0, 1] * x, d[0, 0] * x + d[0, 1] * y), side="right")
        t = np.clip(t - 1, 0, h - 3)  # triangle t: (v_0, v_(t+1), v_(t+2)), between diag[:, t] and diag[:, t + 1]
        scale = _SLACK * np.maximum(np.maximum(np.abs(Z[0]), np.abs(Z[1])), np.abs(Z[2]))

        def orient(C, k):
            return C[0, k] * Z[0] + C[1, k] * Z[1] + C[2, k] * Z[2]

        return (orient(diag, t) > scale) & (orient(side, t) > scale) & (-orient(diag, t + 1) > scale)


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
      point, :func:`~privpac.geometry.hull_lp.hull_slice_ranges`). Which slices are non-empty: for
      ``i = 3`` ``p`` lies in the level's 2-D hull; for ``i >= 4`` an exact feasibility LP
      (:func:`~privpac.geometry.hull_lp.slice_support`), by binary search over the nested levels.

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
                    Z = _floats(self.P[s:e], self.q[s:e])
                    base = _hull_indices(self.P, self.q, hull + (s + _extremes(Z)).tolist())
                    if len(base) >= 3:  # a point strictly inside base is no vertex of the level's hull
                        H = [(int(self.P[j, 0]), int(self.P[j, 1]), int(self.q[j])) for j in base]
                        cand = cand[~_inside_polygon(Z, H)]
                    hull = _hull_indices(self.P, self.q, base + cand.tolist()) if len(cand) else base
                hulls[k] = hull
            self._hulls = hulls
        return self._hulls

    def _polygon(self, level: int) -> tuple[Point, ...]:
        """The hull of level ``level``'s projections as Fraction points (counter-clockwise)."""
        return tuple(_point2(self.P[j], self.q[j]) for j in self._projected_hulls()[level])

    def _slice(self, level: int, t: Fraction, side: dict[int, int]) -> tuple[Fraction, Fraction] | None:
        """The slice of the level's hull at ``x_1 = t``; ``side`` caches ``sign(x_j - t)``.

        As :meth:`~privpac.geometry.convexified.ConvexLevel.slice`.
        """
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
        from .hull_lp import hull_slice_ranges, slice_support

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
    (slices of the exact hulls). The same sets as :func:`~privpac.geometry.convexified.convex_levels` (checked in
    ``tests/papers/kmst_linear_feasibility/test_arrangement_sweep.py``), computed without a Fraction per vertex.
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
