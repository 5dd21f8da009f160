"""Planar Tukey depth regions as exact convex polygons: no directions times points.

Beimel, Moran, Nissim and Stemmer (COLT 2019), Def 3.1 and Lemma 3.4; spec ``bmns-center-points``
section 4 (A1, A2). FindTukey in ``d = 2`` needs, for every level ``r``, the ``x_1``-extent of the depth
region ``D_r = {x : td(x; S) >= r}`` and, for a chosen ``x_1 = p``, the extent of the slice
``{x_2 : (p, x_2) in D_r}``. The former computation (:func:`~privpac.geometry.depth_intervals` over
``U(S ∪ E)``) evaluated ``O(n^2)`` directions on every point, ``O(n^3)`` in all; here every region is
built once as an exact convex polygon and both quantities are read off the polygons.

The regions
-----------
A closed halfplane holding at least ``n - r + 1`` points of ``S`` is *valid at level r*: it contains
``D_r`` (spec A1: ``td(x) >= r`` iff ``x`` lies in every such halfplane). Two kinds suffice:

* the *axis constraints* of level ``r``: ``x_k`` between the ``r``-th smallest and the ``r``-th
  largest ``k``-th coordinate of ``S``;
* the *pair halfplanes*: for two distinct points ``a_i, a_j`` of ``S``, the closed side right of the
  directed line ``a_i -> a_j``, valid from level ``t = L + 1`` on, where ``L`` is the number of points
  strictly left of the line (Rousseeuw and Ruts 1998: the contours lie on such lines).

Claim: ``D_r`` is the intersection of the axis constraints of level ``r`` and the pair halfplanes with
``t <= r``. Proof: every one is valid, so the intersection contains ``D_r``. If ``td(x) < r``, some
closed halfplane with ``x`` on its boundary holds at most ``r - 1`` points; its open complement ``O``
holds at least ``n - r + 1``. Move the boundary parallel into ``O`` to the nearest point ``y_0`` of
``O``: the closed side now holds the same points and ``x`` is strictly outside. Rotate the boundary
about ``y_0``: no point changes side until the line meets another data point, and one of the two
rotation senses meets a data point before it meets ``x`` unless every data point lies on the line
through ``y_0`` and ``x``. In the first case the line through ``y_0`` and that point gives a pair
halfplane with at most ``r - 1`` points strictly on the far side that excludes ``x``. In the second,
``S`` is collinear and ``x`` lies on its line, where the depth is the one-dimensional depth and an
axis constraint of level ``r`` (along a coordinate not constant on the line) excludes ``x``.

So ``D_r = D_(r-1) ∩ {axis constraints of level r} ∩ {pair halfplanes with t = r}``: one pass over the
levels clips a polygon, starting from the bounding box of ``S``.

Exactness and cost
------------------
* The counts ``L``: for each distinct point ``a_i``, the other distinct points sorted by angle around
  it (an angular sweep, as in :mod:`privpac.geometry.tukey`), multiplicities summed along the order:
  float pseudo-angles propose the order, integer cross products of consecutive points certify it (a
  row that fails is sorted exactly); the end of each half-turn is proposed by a float search and
  certified on its two neighbours (failures are repaired by exact steps). Vectorised over blocks of
  points (two threads): ``O(m^2 log m)`` time for ``m`` distinct points, about ``m^2 / 2`` pair
  halfplanes kept (those with ``t <= (n + M)/2``, ``M`` the largest multiplicity: no point has larger
  depth, since a line through ``x`` meeting no other data point splits ``S`` into two closed
  halfplanes sharing only the copies of ``x``).
* The polygon of a level: a cyclic list of integer lines ``u.x <= c``, its vertices the intersections
  of consecutive lines as homogeneous integers ``(X, Y, W)``. Lines through points of ``[-B, B]^2``
  have entries at most ``4B`` and ``8 B^2``, so vertices stay bounded (no Fraction growth). The lines
  that bound ``D_r`` are *proposed* in floats (dual points ``u / (c - u.o)`` around the centroid ``o``
  of ``D_(r-1)``, their convex hull by Qhull); the polygon of the proposed lines is built exactly and
  accepted only if its turns are proper and *every* constraint of the level (the pair halfplanes of
  level ``r``, the axis constraints, the edges of ``D_(r-1)``) holds at every vertex, checked with
  integer signs at each line's support vertex (found by a float search, certified by two cross
  products; ``int64`` under a bound checked up front, Python integers otherwise). A proposal that
  fails goes to an exact half-plane intersection (a deque over the lines sorted by angle; violators
  are added until none is left), and a level that still fails (a segment or a point) to exact
  Sutherland-Hodgman clipping of ``D_(r-1)``. A level that nothing new cuts keeps ``D_(r-1)``.
* The ``x_1``-extent of a level is its extreme vertices (float proposal, exact cross-multiplied
  comparison); a slice at ``x_1 = p`` is the range of ``x_2`` over the polygon's lines, computed by the
  exact ratio search of :func:`privpac.geometry._exact.slice_interval`.

Floats only choose which exact computation to try; the results are the exact regions whatever they
propose, so the qualities keep sensitivity 1. They equal the former computation's
(``tests/papers/bmns_center_points/test_contours.py`` compares them on random and degenerate inputs).
"""

from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np

from ..errors import DataError
from ._exact import INT64_SAFE, as_integer_points, repair_arc_end, slice_interval

__all__ = ["PlanarDepthRegions", "tukey_intervals_2d"]

Interval = tuple[Fraction, Fraction]

#: Entries (rows times points) of one block of the all-pairs angular sweep: bounds its temporaries to a
#: few dozen arrays of this many 8-byte values.
SWEEP_BLOCK = 1 << 20
#: Threads of the all-pairs sweep (its blocks are independent).
SWEEP_THREADS = 2
#: Coordinates below this bound keep every sweep product exact in ``int64``.
_SWEEP_INT64_BOUND = 2**29


def _halves(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """0 for angles in [0, pi), 1 for [pi, 2 pi)."""
    return np.where((y > 0) | ((y == 0) & (x > 0)), 0, 1)


def _pseudo_angles(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A float in ``[0, 4)`` increasing with the polar angle of ``(x, y)`` (``(0, 0)`` excluded); the
    opposite direction's value is this one plus 2 (mod 4). Cheaper than ``arctan2``; only proposes."""
    xf, yf = x.astype(float), y.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = xf / (np.abs(xf) + np.abs(yf))
    return np.where((yf > 0) | ((yf == 0) & (xf > 0)), 1.0 - r, 3.0 + r)


def _exact_row_order(sx, sy) -> np.ndarray:
    """The exact angular order of integer vectors (half-plane, then the sign of a cross product)."""
    h = _halves(sx, sy)

    def cmp(a: int, b: int) -> int:
        if h[a] != h[b]:
            return -1 if h[a] < h[b] else 1
        c = int(sx[a]) * int(sy[b]) - int(sy[a]) * int(sx[b])
        return -1 if c > 0 else (1 if c < 0 else 0)

    return np.asarray(sorted(range(len(sx)), key=functools.cmp_to_key(cmp)), dtype=np.intp)


def _block_halfplanes(
    A: np.ndarray, w: np.ndarray, rows: np.ndarray, tmax: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, i, j)`` for the rows ``i`` of one block of the distinct points ``A`` (multiplicities ``w``): the
    closed side right of ``a_i -> a_j``, one ``j`` per direction group around ``a_i``, with its level
    ``t = L + 1`` (``L`` points strictly left, with multiplicity), ``t <= tmax``."""
    n = len(A)
    b = len(rows)
    dx = A[None, :, 0] - A[rows, 0][:, None]
    dy = A[None, :, 1] - A[rows, 1][:, None]
    zero = (dx == 0) & (dy == 0)
    m = n - np.count_nonzero(zero, axis=1)
    phi = _pseudo_angles(dx, dy)
    phi[zero] = 7.0  # copies of a_i sort last, below the next row's offset
    order = np.argsort(phi, axis=1)
    # gathers from the points (a few hundred kB, cache-resident) rather than from the block's arrays
    ax, ay = np.ascontiguousarray(A[:, 0]), np.ascontiguousarray(A[:, 1])
    sx = np.take(ax, order) - ax[rows][:, None]
    sy = np.take(ay, order) - ay[rows][:, None]
    del dx, dy
    sphi = np.take(phi.ravel(), order + (np.arange(b) * n)[:, None])
    col = np.arange(n)[None, :]
    valid = col < m[:, None]
    h = _halves(sx, sy)
    adj = sx[:, :-1] * sy[:, 1:] - sy[:, :-1] * sx[:, 1:]
    pair = valid[:, 1:]
    ok = ~pair | (h[:, :-1] < h[:, 1:]) | ((h[:, :-1] == h[:, 1:]) & (adj >= 0))
    for r in np.flatnonzero(~ok.all(axis=1)):  # a float order that is wrong somewhere: sort the row exactly
        k = int(m[r])
        fix = _exact_row_order(sx[r, :k], sy[r, :k])
        for arr in (order, sx, sy, sphi):
            arr[r, :k] = arr[r, :k][fix]
        h[r] = _halves(sx[r], sy[r])
        adj[r] = sx[r, :-1] * sy[r, 1:] - sy[r, :-1] * sx[r, 1:]
    same = np.zeros((b, n), dtype=bool)
    same[:, 1:] = pair & (h[:, :-1] == h[:, 1:]) & (adj == 0)
    start = valid & ~same
    gs = np.maximum.accumulate(np.where(start, col, 0), axis=1)  # first position of each position's group
    rs, ss = np.nonzero(start)
    if len(rs) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    mr = m[rs]
    ge = np.empty_like(ss)
    ge[:-1] = np.where(rs[1:] == rs[:-1], ss[1:], mr[:-1])
    ge[-1] = mr[-1]
    # flat positions: row r, position q (mod m_r) is r * n + q
    sxf, syf, hf, gsf = sx.ravel(), sy.ravel(), h.ravel(), gs.ravel()
    base = rs * n
    fs = base + ss
    ax, ay, ah = sxf[fs], syf[fs], hf[fs]

    def cross_at(q):  # (flat position of q mod m, cross(d_s, d_q)) for doubled positions q in [0, 2m)
        qf = base + np.where(q >= mr, q - mr, q)
        return qf, ax * syf[qf] - ay * sxf[qf]

    # the pseudo-angle of the opposite direction, a hair above: distinct directions of integer vectors with
    # entries below 2**20 differ by far more, and the rounding of "+ 2" is absorbed (the end is certified below)
    x = sphi.ravel()[fs] + (2.0 + 1e-11)
    wrap = x >= 4.0
    flat = (sphi + 8.0 * np.arange(b)[:, None]).ravel()
    F = np.searchsorted(flat, np.where(wrap, x - 4.0, x) + 8.0 * rs, side="right") - base
    e = np.clip(np.where(wrap, mr + F, F), ge, ss + mr)
    # certify the end: position e - 1 in the arc (theta_s, theta_s + pi], position e not
    lf, lc = cross_at(e - 1)
    nf, nc = cross_at(e)
    last_in = (e == ge) | (lc > 0) | ((lc == 0) & (ah != hf[lf]))
    first_out = (e == ss + mr) | ~((nc > 0) | ((nc == 0) & (ah != hf[nf])))
    bad = np.flatnonzero(~(last_in & first_out))
    for k in bad:  # rare: repair the proposed end with exact steps
        r, s0, mk = rs[k], ss[k], int(mr[k])

        def inside(q, r=r, s0=s0, mk=mk):
            q %= mk
            c = int(sx[r, s0]) * int(sy[r, q]) - int(sy[r, s0]) * int(sx[r, q])
            return c > 0 or (c == 0 and h[r, s0] != h[r, q])

        e[k] = repair_arc_end(int(e[k]), ge[k], s0 + mk, inside)
    if len(bad):
        lf, lc = cross_at(e - 1)
    # points exactly at theta_s + pi (the last group of the arc, when collinear) are on the line
    # weights: cum[r, q] = multiplicity of sorted positions < q; doubled positions add the row's total
    sw = np.where(valid, w[order], 0)
    cum = np.zeros((b, n + 1), dtype=np.int64)
    np.cumsum(sw, axis=1, out=cum[:, 1:])
    cumf = cum.ravel()
    total = cum[rs, n]
    cbase = rs * (n + 1)

    def weight_before(q, k=slice(None)):  # multiplicity of the doubled positions < q (q in [0, 2m]) of rows k
        wrapped = q > mr[k]
        return cumf[cbase[k] + np.where(wrapped, q - mr[k], q)] + np.where(wrapped, total[k], 0)

    q = e - 1
    before_e = weight_before(e)
    arc = before_e - cumf[cbase + ge]  # points in (theta_s, theta_s + pi] (the group end ge is at most m)
    on = np.flatnonzero((q >= ge) & (lc == 0))  # the last group lies on the line: it is not strictly left
    if len(on):
        opp_start = gsf[lf[on]] + np.where(q[on] >= mr[on], mr[on], 0)  # the group at theta_s + pi
        arc[on] -= before_e[on] - weight_before(opp_start, on)
    t = arc + 1
    keep = t <= tmax
    return t[keep].astype(np.int32), rows[rs[keep]].astype(np.int32), order.ravel()[fs[keep]].astype(np.int32)


# -- a convex polygon as a cyclic list of integer lines u.x <= c (outward normals, counter-clockwise) --


class _Polygon:
    """Vertices are intersections of consecutive lines, homogeneous integers ``(X, Y, W)`` with ``W > 0``."""

    def __init__(self, lines: list[tuple[int, int, int]]):
        self.lines = list(lines)
        self.empty = False
        self._vertices()

    def _vertices(self) -> None:
        L = self.lines
        V = []
        for k in range(len(L)):
            a1, b1, c1 = L[k - 1]
            a2, b2, c2 = L[k]
            det = a1 * b2 - b1 * a2
            X = c1 * b2 - b1 * c2
            Y = a1 * c2 - c1 * a2
            if det == 0:
                raise RuntimeError("depth polygon: parallel consecutive edges (internal error)")
            if det < 0:
                det, X, Y = -det, -X, -Y
            V.append((X, Y, det))
        self.V = V
        self.Va = _integer_rows(V)
        if self.Va.dtype == object:
            self.vmax = max(max(abs(x), abs(y), w) for x, y, w in V)
        else:
            self.vmax = int(np.abs(self.Va).max()) if self.Va.size else 0
        self._array = None

    def _signs(self, a, b, c) -> np.ndarray:
        """Sign of ``a X + b Y - c W`` per vertex (rows of ``a, b, c`` against every vertex), exactly."""
        Va = self.Va
        cmax = max(int(np.abs(a).max()), int(np.abs(b).max()), int(np.abs(c).max())) if np.size(a) else 0
        if Va.dtype != object and np.asarray(a).dtype != object and 3 * cmax * self.vmax < INT64_SAFE:
            Va, a, b, c = Va, np.asarray(a, np.int64), np.asarray(b, np.int64), np.asarray(c, np.int64)
        else:
            Va, a, b, c = Va.astype(object), *(np.asarray(v).astype(object) for v in (a, b, c))
        val = a[:, None] * Va[None, :, 0] + b[:, None] * Va[None, :, 1] - c[:, None] * Va[None, :, 2]
        return (val > 0).astype(np.int8) - (val < 0).astype(np.int8)

    def cutting(self, a, b, c) -> np.ndarray:
        """Indices of the lines ``a x + b y <= c`` that leave some vertex strictly outside."""
        if len(a) == 0:
            return np.zeros(0, dtype=np.intp)
        return np.flatnonzero((self._signs(a, b, c) > 0).any(axis=1))

    def clip_all(self, a, b, c) -> None:
        """Intersect with every closed halfplane ``a_k x + b_k y <= c_k``: the deepest cut first, then the
        lines that still leave a vertex outside (exact signs; the float depth only orders the clips)."""
        while len(a) and not self.empty:
            s = self._signs(a, b, c)
            cut = np.flatnonzero((s > 0).any(axis=1))
            if len(cut) == 0:
                return
            a, b, c = a[cut], b[cut], c[cut]
            Vf = self.Va.astype(float)
            depth = (np.outer(a.astype(float), Vf[:, 0] / Vf[:, 2]) + np.outer(b.astype(float), Vf[:, 1] / Vf[:, 2])
                     - c.astype(float)[:, None]).max(axis=1) / np.hypot(a.astype(float), b.astype(float))
            k = int(np.argmax(depth))
            self.clip((a[k], b[k], c[k]))
            keep = np.ones(len(a), dtype=bool)
            keep[k] = False
            a, b, c = a[keep], b[keep], c[keep]

    def clip(self, line: tuple[int, int, int]) -> None:
        """Intersect with the closed halfplane ``line`` (Sutherland-Hodgman on a convex polygon)."""
        if self.empty:
            return
        a, b, c = (int(v) for v in line)
        s = self._signs(*(np.array([v], dtype=object if abs(v) >= INT64_SAFE else np.int64) for v in (a, b, c)))[0]
        inside = s <= 0
        if inside.all():
            return
        if not inside.any():
            self.empty = True
            return
        m = len(s)
        first = [k for k in range(m) if inside[k] and not inside[k - 1]]
        last = [k for k in range(m) if inside[k] and not inside[(k + 1) % m]]
        if len(first) != 1 or len(last) != 1:
            raise RuntimeError("depth polygon: the inside vertices are not one run (internal error)")
        # vertex k = line k-1 ∩ line k: keep the lines from the one entering the run to the one leaving it
        f, stop = first[0], last[0]
        keep, k = [], (f - 1) % m
        while True:
            keep.append(self.lines[k])
            if k == stop:
                break
            k = (k + 1) % m
        keep.append((int(a), int(b), int(c)))
        self.lines = keep
        self._vertices()

    def x_extent(self) -> Interval:
        """``(min, max)`` of the first coordinate over the polygon, exact."""
        X, W = self.Va[:, 0], self.Va[:, 2]
        if self.Va.dtype == object or self.vmax >= 2**31:
            X, W = X.astype(object), W.astype(object)
        ratio = X.astype(float) / W.astype(float)
        out = []
        for k, sign in ((int(np.argmin(ratio)), -1), (int(np.argmax(ratio)), 1)):
            # certificate: no vertex further, X_o W_k - X_k W_o of the right sign for every o
            diff = (X * W[k] - X[k] * W) * sign
            if (diff > 0).any():
                k = int(np.argmax(diff > 0))
                for o in range(len(X)):  # exact scan (rare)
                    if (int(X[o]) * int(W[k]) - int(X[k]) * int(W[o])) * sign > 0:
                        k = o
            out.append(Fraction(int(X[k]), int(W[k])))
        return out[0], out[1]

    def array(self) -> np.ndarray:
        """The lines as rows ``(a, b, c)`` (computed once per polygon: the lines change only with the vertices)."""
        if self._array is None:
            self._array = _integer_rows(self.lines)
        return self._array


def _integer_rows(rows) -> np.ndarray:
    """Rows of integers as an ``int64`` array when every entry is below ``INT64_SAFE`` in absolute value, else
    as Python integers (``object``)."""
    try:
        arr = np.array(rows, dtype=np.int64).reshape(-1, 3)
    except OverflowError:
        return np.array(rows, dtype=object).reshape(-1, 3)
    if arr.size and ((arr >= INT64_SAFE) | (arr <= -INT64_SAFE)).any():
        return np.array(rows, dtype=object).reshape(-1, 3)
    return arr


def _line_order(lines: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """The lines sorted by the polar angle of their normals (exactly), the tightest of each direction kept."""
    arr = np.array([ln[:2] for ln in lines], dtype=object)
    key = _pseudo_angles(arr[:, 0].astype(float), arr[:, 1].astype(float))
    out = [lines[k] for k in np.argsort(key, kind="stable")]
    half = [0 if (bb > 0 or (bb == 0 and aa > 0)) else 1 for aa, bb, _ in out]
    for k in range(len(out) - 1):
        (a1, b1, _), (a2, b2, _) = out[k], out[k + 1]
        if half[k] > half[k + 1] or (half[k] == half[k + 1] and a1 * b2 - b1 * a2 < 0):
            def cmp(p, q):
                hp = 0 if (p[1] > 0 or (p[1] == 0 and p[0] > 0)) else 1
                hq = 0 if (q[1] > 0 or (q[1] == 0 and q[0] > 0)) else 1
                if hp != hq:
                    return -1 if hp < hq else 1
                cr = p[0] * q[1] - p[1] * q[0]
                return -1 if cr > 0 else (1 if cr < 0 else 0)

            out = sorted(lines, key=functools.cmp_to_key(cmp))
            break
    kept: list[tuple[int, int, int]] = []
    for ln in out:
        if kept:
            a1, b1, c1 = kept[-1]
            a2, b2, c2 = ln
            if a1 * b2 - b1 * a2 == 0 and a1 * a2 + b1 * b2 > 0:  # same direction: keep the tighter
                if c2 * (a1 * a1 + b1 * b1) < c1 * (a2 * a1 + b2 * b1):
                    kept[-1] = ln
                continue
        kept.append(ln)
    return kept


def _meet(l1, l2):
    a1, b1, c1 = l1
    a2, b2, c2 = l2
    det = a1 * b2 - b1 * a2
    X, Y = c1 * b2 - b1 * c2, a1 * c2 - c1 * a2
    return (X, Y, det) if det > 0 else (-X, -Y, -det)


def _outside(v, line) -> bool:
    return line[0] * v[0] + line[1] * v[1] - line[2] * v[2] > 0


def _intersect(lines: list[tuple[int, int, int]]) -> _Polygon | None:
    """The intersection of closed halfplanes as a proper convex polygon, or None (empty, unbounded, degenerate,
    or not established): the half-plane intersection by a deque over the lines sorted by angle, exact integers.
    The caller certifies the result against every constraint."""
    order = _line_order(lines)
    dq: list[tuple[int, int, int]] = []
    lo = 0  # dq[lo:] is the deque
    for ln in order:
        while len(dq) - lo >= 2 and _outside(_meet(dq[-2], dq[-1]), ln):
            dq.pop()
        while len(dq) - lo >= 2 and _outside(_meet(dq[lo], dq[lo + 1]), ln):
            lo += 1
        if len(dq) > lo:
            a1, b1, _ = dq[-1]
            if a1 * ln[1] - b1 * ln[0] <= 0:  # a turn of pi or more: not a proper bounded polygon
                return None
        dq.append(ln)
    dq = dq[lo:]
    while len(dq) >= 3 and _outside(_meet(dq[-2], dq[-1]), dq[0]):
        dq.pop()
    while len(dq) >= 3 and _outside(_meet(dq[0], dq[1]), dq[-1]):
        dq.pop(0)
    if len(dq) < 3:
        return None
    for k in range(len(dq)):  # every turn strictly between 0 and pi: one counter-clockwise loop
        a1, b1, _ = dq[k - 1]
        a2, b2, _ = dq[k]
        if a1 * b2 - b1 * a2 <= 0:
            return None
    return _Polygon(dq)


def _violated(poly: _Polygon, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Indices of the lines ``a x + b y <= c`` that some vertex of the proper convex ``poly`` violates, exactly:
    each line is tested at its support vertex (the vertex whose normal cone holds ``(a, b)``, found by a float
    search and certified by two cross products); uncertified lines are tested at every vertex."""
    if len(a) == 0:
        return np.zeros(0, dtype=np.intp)
    L = poly.array()
    big = 3 * max(int(np.abs(L).max()), int(np.abs(a).max()), int(np.abs(b).max()), int(np.abs(c).max()))
    if L.dtype == object or a.dtype == object or big * max(poly.vmax, 1) >= INT64_SAFE:
        return poly.cutting(a, b, c)
    na = _pseudo_angles(L[:, 0], L[:, 1])
    start = int(np.argmin(na))
    m = len(L)
    idx = (np.arange(m) + start) % m  # edges by increasing normal angle
    k = np.searchsorted(na[idx], _pseudo_angles(a, b)) % m
    after = idx[k]  # support vertex v = l_{after-1} ∩ l_after
    before = (after - 1) % m
    ok = (L[before, 0] * b - L[before, 1] * a >= 0) & (a * L[after, 1] - b * L[after, 0] >= 0)
    V = poly.Va
    vx, vy, vw = V[after, 0], V[after, 1], V[after, 2]
    out = ok & (a * vx + b * vy - c * vw > 0)
    rest = np.flatnonzero(~ok)
    if len(rest):
        out[rest[poly.cutting(a[rest], b[rest], c[rest])]] = True
    return np.flatnonzero(out)


def _dual_hull_proposal(prev: _Polygon, base: tuple, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> _Polygon | None:
    """The lines that bound the intersection, proposed in floats: around a point ``o`` inside every constraint
    (the centroid of ``D_(r-1)``'s vertices), ``u.x <= c`` is the dual point ``u / (c - u.o)``, and the bounding
    lines are the vertices of the dual points' convex hull (Qhull), in counter-clockwise order. Returns the
    exact polygon of those lines when its turns are proper (the caller checks every constraint), else None."""
    from scipy.spatial import ConvexHull, QhullError

    A = np.concatenate([base[0].astype(float), a.astype(float)])
    Bc = np.concatenate([base[1].astype(float), b.astype(float)])
    C = np.concatenate([base[2].astype(float), c.astype(float)])
    V = prev.Va.astype(float)
    ox, oy = float(np.mean(V[:, 0] / V[:, 2])), float(np.mean(V[:, 1] / V[:, 2]))
    slack = C - A * ox - Bc * oy
    if not np.all(slack > 1e-9 * (1.0 + np.abs(C))):
        return None
    pts = np.column_stack([A / slack, Bc / slack])
    try:
        hull = ConvexHull(pts)
    except (QhullError, ValueError):
        return None
    nb = len(base[0])
    lines = []
    for k in hull.vertices:  # counter-clockwise in 2-D
        src = base if k < nb else (a, b, c)
        j = k if k < nb else k - nb
        lines.append((int(src[0][j]), int(src[1][j]), int(src[2][j])))
    if len(lines) < 3:
        return None
    for k in range(len(lines)):
        a1, b1, _ = lines[k - 1]
        a2, b2, _ = lines[k]
        if a1 * b2 - b1 * a2 <= 0:
            return None
    return _Polygon(lines)


def _next_level(prev: _Polygon, axis: list, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> _Polygon | None:
    """``D_r`` from ``D_(r-1)``: a float proposal of the lines that matter (per angular bucket the deepest cut of
    ``D_(r-1)``), their exact half-plane intersection, then an exact check of every constraint (violators are
    added and the intersection redone). None when no proper polygon is established (the caller clips exactly)."""
    if prev.empty or len(prev.lines) < 3:
        return None
    base = list(prev.lines) + [tuple(int(v) for v in ln) for ln in axis]
    base_arrays = tuple(np.array([ln[k] for ln in base], dtype=object).astype(a.dtype) for k in range(3))
    poly = _dual_hull_proposal(prev, base_arrays, a, b, c)
    if poly is not None and not len(_violated(poly, *base_arrays)) and not len(_violated(poly, a, b, c)):
        return poly
    extra: list[tuple[int, int, int]] = []
    if len(a):
        V = prev.Va.astype(float)
        vx, vy = V[:, 0] / V[:, 2], V[:, 1] / V[:, 2]
        af, bf = a.astype(float), b.astype(float)
        depth = np.full(len(a), -np.inf)
        step = max(1, (1 << 18) // len(vx))
        for s0 in range(0, len(a), step):  # the deepest vertex per line, in blocks
            blk = slice(s0, s0 + step)
            depth[blk] = (np.outer(af[blk], vx) + np.outer(bf[blk], vy)).max(axis=1) - c[blk].astype(float)
        depth /= np.hypot(af, bf)
        cuts = np.flatnonzero(depth > -1e-9 * (1.0 + np.abs(c.astype(float))))
        if len(cuts):
            buckets = np.floor(_pseudo_angles(a[cuts], b[cuts]) * (4 * len(prev.lines) + 32)).astype(np.int64)
            o = np.lexsort((-depth[cuts], buckets))
            first = np.ones(len(o), dtype=bool)
            first[1:] = buckets[o][1:] != buckets[o][:-1]
            pick = cuts[o[first]]
            extra = [(int(a[k]), int(b[k]), int(c[k])) for k in pick]
    for _ in range(8):
        poly = _intersect(base + extra)
        if poly is None:
            return None
        if len(_violated(poly, *base_arrays)):
            return None
        bad = _violated(poly, a, b, c)
        if len(bad) == 0:
            return poly
        extra += [(int(a[k]), int(b[k]), int(c[k])) for k in bad]
    return None


class PlanarDepthRegions:
    """The exact Tukey depth regions ``D_1 ⊇ D_2 ⊇ ... ⊇ D_R`` of a planar multiset (module docstring).

    Parameters
    ----------
    S : array-like of shape (n, 2)
        Integer points, counted with multiplicity.

    Attributes
    ----------
    extents : list of (Fraction, Fraction)
        ``[I_1, ..., I_R]``, ``I_r`` the closed ``x_1``-range of ``D_r``; ``R`` the largest depth.
    polygons : list of numpy.ndarray
        ``D_r`` as rows ``(a, b, c)`` of lines ``a x_1 + b x_2 <= c`` (its edges, counter-clockwise).
    """

    def __init__(self, S):
        arr, bound = as_integer_points(S, "S")
        n, d = arr.shape
        if d != 2:
            raise DataError(f"PlanarDepthRegions needs points of the plane: S has {d} column(s), not 2")
        A = arr.astype(object) if arr.dtype == object or bound >= _SWEEP_INT64_BOUND else arr.astype(np.int64)
        self.n = n
        xs = sorted(int(v) for v in A[:, 0])
        ys = sorted(int(v) for v in A[:, 1])
        P, w = _distinct_points(A)  # the sweep runs over distinct points, counting multiplicities
        tmax = (n + int(w.max())) // 2
        t, i, j = self._pair_halfplanes(P, w, tmax)
        A = P
        # a stable sort by level; on 16-bit keys numpy's stable sort is a radix sort (same permutation)
        order = np.argsort(t.astype(np.uint16) if tmax < 2**16 else t, kind="stable")
        t, i, j = t[order], i[order], j[order]
        ends = np.searchsorted(t, np.arange(1, tmax + 2), side="left")

        def axis(r: int) -> list[tuple[int, int, int]]:
            return _axis_constraints(xs, ys, r)

        prev = _Polygon(axis(1))
        self.extents: list[Interval] = []
        self.polygons: list[np.ndarray] = []
        self.fallbacks = 0  # levels built by the exact sequential clipping (degenerate or unproven proposals)
        for r in range(1, tmax + 1):
            ii, jj = i[ends[r - 1] : ends[r]], j[ends[r - 1] : ends[r]]
            a = A[ii, 1] - A[jj, 1]  # right of a_i -> a_j: (-(dy), dx) . x <= (-(dy), dx) . a_i
            b = A[jj, 0] - A[ii, 0]
            c = a * A[ii, 0] + b * A[ii, 1]
            lines = axis(r)
            if not prev.empty and len(prev.lines) >= 3 and len(a):
                # a line that leaves no vertex of D_(r-1) outside contains D_(r-1), hence D_r: only the
                # lines that cut D_(r-1) can bound D_r (exact test, as every other)
                cut = _violated(prev, a, b, c)
                a, b, c = a[cut], b[cut], c[cut]
            if len(a) == 0 and r > 1 and not prev.empty and not any(_outside(v, ln) for ln in lines for v in prev.V):
                self.extents.append(self.extents[-1])  # nothing new cuts D_(r-1): D_r is the same polygon
                self.polygons.append(self.polygons[-1])
                continue
            poly = _next_level(prev, lines, a, b, c)
            if poly is None:
                self.fallbacks += 1
                poly = _Polygon(prev.lines)
                for line in axis(r):
                    poly.clip(line)
                poly.clip_all(a, b, c)
            if poly.empty:
                break
            self.extents.append(poly.x_extent())
            self.polygons.append(poly.array())
            prev = poly

    @staticmethod
    def _pair_halfplanes(A: np.ndarray, w: np.ndarray, tmax: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(A)
        step = max(1, SWEEP_BLOCK // max(n, 1))
        blocks = [np.arange(s, min(n, s + step)) for s in range(0, n, step)]
        # numpy releases the GIL in the sorts and array arithmetic: two threads use two cores
        with ThreadPoolExecutor(max_workers=SWEEP_THREADS) as pool:
            parts = list(pool.map(lambda rows: _block_halfplanes(A, w, rows, tmax), blocks))
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))

    def intervals(self, prefix=()) -> list[Interval]:
        """``depth_intervals(S, prefix)`` read off the polygons: ``prefix=()`` gives :attr:`extents`,
        ``prefix=(p,)`` gives :meth:`slices` ``(p)``."""
        if len(prefix) == 0:
            return list(self.extents)
        return self.slices(prefix[0])

    def slices(self, p) -> list[Interval]:
        """``[I_1, ..., I_R']``: the closed ``x_2``-range of ``D_r ∩ {x_1 = p}``, up to the first empty one."""
        p = Fraction(p)
        out: list[Interval] = []
        last = None
        for lines in self.polygons:
            if lines is not last:  # a level whose polygon is the previous one's shares its slice
                interval = slice_interval(lines[:, :2], lines[:, 2], (p,))
                last = lines
            if interval is None:
                break
            out.append(interval)
        return out


def _axis_constraints(xs: list[int], ys: list[int], r: int) -> list[tuple[int, int, int]]:
    """The axis constraints of level ``r`` (counter-clockwise): each coordinate between its ``r``-th smallest
    and ``r``-th largest value (``xs``, ``ys`` sorted)."""
    n = len(xs)
    return [(0, -1, -ys[r - 1]), (1, 0, xs[n - r]), (0, 1, ys[n - r]), (-1, 0, -xs[r - 1])]


def _distinct_points(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``A`` and their multiplicities (``int64``)."""
    if A.dtype != object:
        P, w = np.unique(A, axis=0, return_counts=True)
        return P, w.astype(np.int64)
    counts: dict = {}
    for row in A:
        key = (int(row[0]), int(row[1]))
        counts[key] = counts.get(key, 0) + 1
    keys = sorted(counts)
    P = np.empty((len(keys), 2), dtype=object)
    for k, key in enumerate(keys):
        P[k] = key
    return P, np.array([counts[k] for k in keys], dtype=np.int64)


def tukey_intervals_2d(S, prefix=()) -> list[Interval]:
    """The nested intervals ``I_1 ⊇ I_2 ⊇ ...`` of the exact planar Tukey depth regions.

    ``prefix=()``: the ``x_1``-extents of the regions ``D_r``; ``prefix=(p,)``: the ``x_2``-extents of
    their slices at ``x_1 = p``. The same list as :func:`~privpac.geometry.depth_intervals` over
    ``U(S ∪ E)``, up to the first empty interval (module docstring).
    """
    regions = PlanarDepthRegions(S)
    return regions.intervals(prefix)

