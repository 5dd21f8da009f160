"""Tukey depth regions in three dimensions by certified cutting planes: no directions times points.

Beimel, Moran, Nissim and Stemmer (COLT 2019), Def 3.1 and Lemma 3.4; spec ``bmns-center-points``
section 4 (A1, A2). FindTukey in ``d = 3`` needs, for every level ``r``, the ``x_i``-extent of the slice
``D_r ∩ {x_(<i) = p}`` of the depth region ``D_r = {x : td(x; S) >= r}``. The former computation
(:func:`~privpac.geometry.depth_intervals` over ``U(S ∪ E)``) evaluated the ``O(n^3)`` plane normals on
every point, ``O(n^4)`` in all. Here each extent is a linear program over a small working set of valid
constraints, certified by the exact Tukey depth of its optimum.

The constraints
---------------
For an integer direction ``u``, ``u.x <= c_r(u)`` (``c_r(u)`` the ``r``-th largest of ``u.y``, ``y`` in
``S`` with multiplicity) holds on ``D_r`` (spec A1: ``td(x) >= r`` implies ``#{y : u.y >= u.x} >= r``). So
the program over *any* set ``W`` of directions is a relaxation of the extent over ``D_r``.

Certificate. If the exact optimum ``x*`` of the relaxation has ``td(x*) >= r``, then ``x*`` lies in
``D_r`` and is optimal there: the extent is ``x*_i`` exactly, and it is the extent of every level
``r .. td(x*)`` (the regions are nested and all hold ``x*``). Otherwise a closed halfspace through
``x*`` holds at most ``r - 1`` points; a constraint it yields is added to ``W`` and the program solved
again. An infeasible relaxation (decided exactly) proves the slice empty. Floats only choose which exact
computation to try; every value returned is an exact optimum with an exact certificate, so the
intervals equal the former computation's (``tests/papers/bmns_center_points/test_solids.py``) and the
qualities keep sensitivity 1.

The exact depth of a rational point (:func:`tukey_depth_3d`)
----------------------------------------------------------
With ``z_j = y_j - x`` the minimum of ``#{j : u.z_j >= 0}`` over the sphere of directions is reached on an
open cell of the arrangement of the great circles ``u.z_j = 0``, and every such cell borders an arc of
some circle ``C_i`` (``z_i != 0``). Next to a generic point ``w`` of ``C_i``, on the side ``s`` of it, the
count is ``#{z_j = 0} + #{j : w.v_j > 0} + (points on the line of z_i, on side s)``, ``v_j`` the
projection of ``z_j`` on ``z_i^⊥``. The middle term's minimum over generic ``w`` is an angular sweep
around the axis ``x y_i``: ``min over groups g of min(#(θ_g, θ_g + π], N_i - #(θ_g, θ_g + π])``. All
predicates are signs of ``Z_i . v`` with ``Z_i = q y_i - P`` (``x = P / q``) and a small integer vector
``v`` built from data differences: the orientation of ``(x, y_i, y_j, y_k)`` is the sign of
``Z_i . ((y_j - y_i) × (y_k - y_i))``. A float filter decides the signs far from 0, Python integers the
rest; a float angle order is certified on consecutive pairs and sorted exactly where it fails.
``O(m^2 log m)`` for ``m`` distinct points, in blocks of rows.

The cuts
--------
When ``td(x*) < r``, the minimising cell gives an exact direction ``u`` (a lexicographic perturbation of
the normal of the plane through ``x*, y_i, y_g``, sized so the order of the perturbations is exact) with
``#{u.y >= u.x*} <= r - 1``. Its constraint passes through a data point ``y_0`` (``u.y_0 = c_r(u)``);
every direction ``v`` of the cone ``{v : v.(y - y_0)`` of the sign of ``u.(y - y_0)`` for every ``y}``
with ``v.(x* - y_0) > 0`` gives a violated constraint too, and a vertex of that cone is the normal of a
plane through ``y_0`` and two more data points (entries at most ``8 B^2``), found by a float LP and
checked exactly. That plane is what is added (the exact ``u`` when no vertex passes the check), so the
optima stay small rationals.

Every level starts from the directions of the previous one (the axes ``±e_k`` and, for a flat ``S``,
the normals of its affine hull, at first).
"""

from __future__ import annotations

import functools
import math
import warnings
from fractions import Fraction

import numpy as np

from ..errors import DataError, InvalidParameterError
from ._exact import INT64_SAFE, as_integer_points, as_rational_point, common_denominator, repair_arc_end

__all__ = ["SpatialDepthRegions", "tukey_depth_3d", "tukey_intervals_3d"]

Interval = tuple[Fraction, Fraction]

#: Coordinates below this bound keep every difference and cross product of differences exact in ``int64``
#: and exactly representable as floats; larger inputs use the former computation.
SOLID_INT64_BOUND = 2**16
#: Entries (rows times points) of one block of the depth sweep.
DEPTH_BLOCK = 1 << 18
#: Rows per block of the depth sweep while a violation is searched (the sweep stops at the first block with one).
EARLY_BLOCK = 48
#: Cuts added per failed certificate (from the rows of the depth sweep with the smallest counts).
CUTS_PER_ROUND = 4
#: Relative slack of the float sign filter (a 3-term dot product of floats rounded from exact integers
#: errs by far less than ``1e-12`` of the sum of its absolute terms).
_SLACK = 1e-12
#: Two reference directions of the angular sweep (the second for axes parallel to the first).
_REFS = (np.array([1, 3, 7], dtype=np.int64), np.array([5, -2, 1], dtype=np.int64))


# -- exact signs of Z_i . v (Z_i big exact integers per row, v small int64 vectors) --


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.stack(
        [a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
         a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
         a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]],
        axis=-1,
    )  # fmt: skip


def _pseudo_angles(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        r = x / (np.abs(x) + np.abs(y))
    return np.where((y > 0) | ((y == 0) & (x > 0)), 1.0 - r, 3.0 + r)


class _Point:
    """A rational point ``x = X / q`` against the distinct data points ``P`` (weights ``w``)."""

    def __init__(self, P: np.ndarray, w: np.ndarray, x: tuple[Fraction, ...]):
        q, X = common_denominator(x)
        self.x, self.q, self.X = x, q, X
        Zo = q * P.astype(object) - np.asarray(X, dtype=object)
        self.zero = np.array([all(v == 0 for v in row) for row in Zo], dtype=bool)
        self.Zo = Zo
        self.Zf = np.array([[float(v) for v in row] for row in Zo]).reshape(-1, 3)
        self.P = P
        self.Xo = np.asarray(X, dtype=object)
        self.xmax = max(abs(v) for v in X)
        self.X64 = np.asarray(X, dtype=np.int64) if self.xmax < INT64_SAFE else None
        self.qf = float(q)
        self.Xf = np.array([float(v) for v in X])

    def signs(self, idx: np.ndarray, V: np.ndarray) -> np.ndarray:
        """Exact sign of ``Z_i . V[k]`` with ``i = idx[k]``: ``Z_i . v = q (y_i . v) - X . v``, in ``int64`` under a
        bound checked here, else a float filter with Python integers for the doubtful entries."""
        if len(idx) == 0:
            return np.zeros(0, dtype=np.int64)
        a = np.einsum("ij,ij->i", self.P[idx], V)  # |y| |v| 3 < 2**62 (SOLID_INT64_BOUND)
        amax, vmax = int(np.abs(a).max()), int(np.abs(V).max())
        if self.X64 is not None and self.q * amax + 3 * self.xmax * vmax < INT64_SAFE:
            return np.sign(self.q * a - V @ self.X64)
        Vf = V.astype(float)
        t1 = self.qf * a.astype(float)
        t2 = Vf @ self.Xf
        val = t1 - t2
        bound = np.abs(t1) + np.abs(Vf) @ np.abs(self.Xf)
        out = np.sign(val).astype(np.int64)
        unsure = np.flatnonzero(~(np.abs(val) > _SLACK * bound))
        if len(unsure):
            exact = self.q * a[unsure].astype(object) - V[unsure].astype(object) @ self.Xo
            out[unsure] = [(v > 0) - (v < 0) for v in exact]
        return out


def _row_exact_order(Zi, D: np.ndarray, h: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The exact angular order of the columns ``idx`` around the axis ``Z_i`` (half, then orientation)."""
    Zi = [int(v) for v in Zi]

    def orient(a: int, b: int) -> int:
        c = _cross(D[a], D[b])
        s = Zi[0] * int(c[0]) + Zi[1] * int(c[1]) + Zi[2] * int(c[2])
        return (s > 0) - (s < 0)

    def cmp(a: int, b: int) -> int:
        if h[a] != h[b]:
            return -1 if h[a] < h[b] else 1
        return -orient(a, b)

    return np.asarray(sorted(idx.tolist(), key=functools.cmp_to_key(cmp)), dtype=np.intp)


def _block_minima(P, w, pt: _Point, rows: np.ndarray, cols: np.ndarray):
    """Per row ``i`` of ``rows``: ``(min count, argmin column, kind, pos, anti)`` of the sweep around ``x y_i``.

    ``kind`` is +1 for the arc ``(θ_g, θ_g + π]`` and -1 for its complement; the argmin column is the point
    ``g`` whose direction starts the arc (-1 when no point is off the axis)."""
    b, m = len(rows), len(cols)
    D = P[cols][None, :, :] - P[rows][:, None, :]  # (b, m, 3) int64
    Zo, Zf = pt.Zo[rows], pt.Zf[rows]
    Zf_r = np.repeat(Zf, m, axis=0)
    Dflat = D.reshape(-1, 3)
    # on the axis x y_i (parallel to Z_i, or y_i itself): Z_i x D = 0, i.e. Z_i . (D x e_k) = 0 for every k
    Df = Dflat.astype(float)
    cr = _cross(Zf_r, Df)
    near = np.flatnonzero(
        np.einsum("ij,ij->i", cr, cr)
        <= (_SLACK * 10) ** 2 * np.einsum("ij,ij->i", Zf_r, Zf_r) * np.einsum("ij,ij->i", Df, Df)
    )
    axis = np.zeros(b * m, dtype=bool)
    if len(near):
        ridx = np.repeat(rows, m)[near]
        on = np.ones(len(near), dtype=bool)
        for k in range(3):
            e = np.zeros((len(near), 3), dtype=np.int64)
            e[:, k] = 1
            on &= pt.signs(ridx, _cross(Dflat[near], e)) == 0
        axis[near] = on
    axis = axis.reshape(b, m)
    zrow = pt.zero[cols][None, :] | np.zeros((b, 1), dtype=bool)
    axis &= ~zrow
    # side of y_j along the axis: sign of Z_i . Z_j = |Z_i|^2 + q Z_i . D
    wc = w[cols]
    pos = np.zeros(b, dtype=np.int64)
    anti = np.zeros(b, dtype=np.int64)
    for r_, c_ in zip(*np.nonzero(axis)):
        z = [int(v) for v in Zo[r_]]
        dv = [int(v) for v in D[r_, c_]]
        s = sum(v * v for v in z) + pt.q * sum(a * c for a, c in zip(z, dv))
        if s > 0:
            pos[r_] += wc[c_]
        else:
            anti[r_] += wc[c_]
    valid = ~axis & ~zrow
    # reference direction per row: f not parallel to Z_i
    F = np.tile(_REFS[0], (b, 1))
    par = np.einsum("ij,ij->i", _cross(Zf, F.astype(float)), _cross(Zf, F.astype(float))) <= 1e-18 * np.einsum(
        "ij,ij->i", Zf, Zf
    ) * float(_REFS[0] @ _REFS[0])
    F[par] = _REFS[1]
    # float angles: e2 ∝ Z_i x f, e1 = e2 x zhat
    zn = Zf / np.linalg.norm(Zf, axis=1)[:, None]
    e2 = _cross(zn, F.astype(float))
    e2 /= np.linalg.norm(e2, axis=1)[:, None]
    e1 = _cross(e2, zn)
    vx = np.einsum("bmk,bk->bm", D.astype(float), e1)
    vy = np.einsum("bmk,bk->bm", D.astype(float), e2)
    phi = _pseudo_angles(vx, vy)
    phi[~valid] = 7.0
    mcount = valid.sum(axis=1)
    # exact halves: sign of Z_i . (f x D) (v_y), ties by sign of (f.D)|Z_i|^2 - (Z_i.f)(Z_i.D) (v_x)
    fxD = _cross(np.repeat(F, m, axis=0), Dflat)
    sy = pt.signs(np.repeat(rows, m), fxD).reshape(b, m)
    half = np.where(sy > 0, 0, 1)
    for r_, c_ in zip(*np.nonzero((sy == 0) & valid)):
        z = [int(v) for v in Zo[r_]]
        f = [int(v) for v in F[r_]]
        dv = [int(v) for v in D[r_, c_]]
        sx = sum(a * c for a, c in zip(f, dv)) * sum(v * v for v in z) - sum(a * c for a, c in zip(z, f)) * sum(
            a * c for a, c in zip(z, dv)
        )
        half[r_, c_] = 0 if sx > 0 else 1
    # the float angle agrees with the exact half (values near 0 or pi are pulled to its side)
    phi = np.where(valid & (half == 0) & (phi >= 2.0), 0.0, phi)
    phi = np.where(valid & (half == 1) & (phi < 2.0), 2.0, phi)
    order = np.argsort(phi, axis=1, kind="stable")
    ar = np.arange(b)[:, None]
    sD = D[ar, order]  # (b, m, 3) sorted
    sh = half[ar, order]
    sphi = phi[ar, order]
    col = np.arange(m)[None, :]
    svalid = col < mcount[:, None]
    # certify consecutive pairs
    adj = np.zeros((b, max(m - 1, 0)), dtype=np.int64)
    if m > 1:
        cD = _cross(sD[:, :-1], sD[:, 1:]).reshape(-1, 3)
        adj = pt.signs(np.repeat(rows, m - 1), cD).reshape(b, m - 1)
    pair = svalid[:, 1:]
    ok = ~pair | (sh[:, :-1] < sh[:, 1:]) | ((sh[:, :-1] == sh[:, 1:]) & (adj >= 0))
    for r_ in np.flatnonzero(~ok.all(axis=1)):
        k = int(mcount[r_])
        fix = _row_exact_order(Zo[r_], D[r_], half[r_], order[r_, :k])
        order[r_, :k] = fix
        sD[r_] = D[r_, order[r_]]
        sh[r_] = half[r_, order[r_]]
        sphi[r_] = phi[r_, order[r_]]
        if m > 1:
            c2 = _cross(sD[r_, :-1], sD[r_, 1:])
            adj[r_] = pt.signs(np.full(m - 1, rows[r_]), c2)
    # groups of equal direction
    same = np.zeros((b, m), dtype=bool)
    if m > 1:
        same[:, 1:] = pair & (sh[:, :-1] == sh[:, 1:]) & (adj == 0)
    start = svalid & ~same
    sw = np.where(svalid, wc[order], 0)
    cum = np.zeros((b, m + 1), dtype=np.int64)
    np.cumsum(sw, axis=1, out=cum[:, 1:])
    total = cum[:, m]
    best = np.full(b, np.iinfo(np.int64).max, dtype=np.int64)
    arg = np.full(b, -1, dtype=np.int64)
    kind = np.ones(b, dtype=np.int64)
    best[mcount == 0] = 0
    rs, ss = np.nonzero(start)
    if len(rs):
        mr = mcount[rs]
        # group end ge: next start in the row, or m_r
        ge = np.empty_like(ss)
        ge[:-1] = np.where(rs[1:] == rs[:-1], ss[1:], mr[:-1])
        ge[-1] = mr[-1]

        def in_arc(q):  # q: doubled positions in [0, 2m); is sorted position q (mod m_r) in (θ_s, θ_s + π]?
            qq = np.where(q >= mr, q - mr, q)
            Dq = sD[rs, qq]
            Ds = sD[rs, ss]
            c = pt.signs(rows[rs], _cross(Ds, Dq))
            return (c > 0) | ((c == 0) & (sh[rs, ss] != sh[rs, qq]))

        x = sphi[rs, ss] + (2.0 + 1e-11)
        wrap = x >= 4.0
        flat = (np.where(svalid, sphi, 8.0) + 16.0 * np.arange(b)[:, None]).ravel()
        Fpos = np.searchsorted(flat, np.where(wrap, x - 4.0, x) + 16.0 * rs, side="right") - rs * m
        e = np.clip(np.where(wrap, mr + Fpos, Fpos), ge, ss + mr)
        last_in = (e == ge) | in_arc(np.maximum(e - 1, 0))
        first_out = (e == ss + mr) | ~in_arc(np.minimum(e, 2 * mr - 1))
        for k in np.flatnonzero(~(last_in & first_out)):  # repair the proposed end with exact steps
            r_, s0, mk = int(rs[k]), int(ss[k]), int(mr[k])
            Zi = [int(v) for v in Zo[r_]]

            def inside(qd, r_=r_, s0=s0, mk=mk, Zi=Zi):
                qd %= mk
                c = _cross(sD[r_, s0], sD[r_, qd])
                v = Zi[0] * int(c[0]) + Zi[1] * int(c[1]) + Zi[2] * int(c[2])
                return v > 0 or (v == 0 and sh[r_, s0] != sh[r_, qd])

            e[k] = repair_arc_end(int(e[k]), ge[k], s0 + mk, inside)
        wrapped = e > mr
        before_e = cum[rs, np.where(wrapped, e - mr, e)] + np.where(wrapped, total[rs], 0)
        c1 = before_e - cum[rs, ge]
        c2 = total[rs] - c1
        val = np.minimum(c1, c2)
        kd = np.where(c1 <= c2, 1, -1)
        o = np.lexsort((val, rs))
        firsts = np.ones(len(o), dtype=bool)
        firsts[1:] = rs[o][1:] != rs[o][:-1]
        pick = o[firsts]
        best[rs[pick]] = val[pick]
        arg[rs[pick]] = cols[order[rs[pick], ss[pick]]]
        kind[rs[pick]] = kd[pick]
    return best, arg, kind, pos, anti


def _depth(P: np.ndarray, w: np.ndarray, pt: _Point, r: int | None = None, cuts: int = 1):
    """``(td(x), witnesses)``: the exact depth, and ``(i, g, kind, side)`` of minimising cells: the smallest, and
    up to ``cuts`` rows in all whose count is below ``r`` (empty when every point equals ``x``). With ``r``, the
    sweep stops at the first block of rows with a count below ``r``: the first value is then a count below
    ``r`` (not the depth), which is all a caller that certifies ``td >= r`` needs."""
    zeros = int(w[pt.zero].sum())
    nz = np.flatnonzero(~pt.zero)
    if len(nz) == 0:
        return int(w.sum()), []
    m = len(P)
    step = max(1, DEPTH_BLOCK // m)
    if r is not None:  # looking for a violation: the points nearest x first, in small blocks, stop at the first
        step = min(step, EARLY_BLOCK)
        nz_rows = nz[np.argsort(np.einsum("ij,ij->i", pt.Zf[nz], pt.Zf[nz]), kind="stable")]
    else:
        nz_rows = nz
    vals, wits = [], []
    for s0 in range(0, len(nz), step):
        rows = nz_rows[s0 : s0 + step]
        val, arg, kind, pos, anti = _block_minima(P, w, pt, rows, nz)
        side = np.where(pos <= anti, 1, -1)
        tot = zeros + val + np.minimum(pos, anti)
        for k in np.argsort(tot, kind="stable")[: max(cuts, 1)]:
            vals.append(int(tot[k]))
            wits.append((int(rows[k]), int(arg[k]), int(kind[k]), int(side[k])))
        if r is not None and min(vals) < r:
            break  # a violation: the exact depth is not needed, only that it is below r
    o = sorted(range(len(vals)), key=lambda k: vals[k])
    depth = vals[o[0]]
    keep = [wits[o[0]]] + [wits[k] for k in o[1:cuts] if r is not None and vals[k] < r]
    return depth, keep


def _witness_direction(pt: _Point, wit) -> list[int]:
    """The exact direction ``u`` of the minimising cell of ``wit`` (module docstring, "The cuts")."""
    i, g, kind, side = wit
    Zi = [int(v) for v in pt.Zo[i]]
    Z = [[int(v) for v in row] for row in pt.Zo]
    if g < 0:  # every point on the axis: u = side * Z_i
        return [side * v for v in Zi]
    Zg = Z[g]
    a = [Zi[1] * Zg[2] - Zi[2] * Zg[1], Zi[2] * Zg[0] - Zi[0] * Zg[2], Zi[0] * Zg[1] - Zi[1] * Zg[0]]
    zz = sum(v * v for v in Zi)
    gz = sum(x * y for x, y in zip(Zg, Zi))
    perp = [zz * x - gz * y for x, y in zip(Zg, Zi)]
    sig = kind
    bvec = [-sig * v for v in perp]
    cvec = [side * v for v in Zi]
    bmax = max(abs(sum(x * y for x, y in zip(bvec, z))) for z in Z)
    cmax = max(abs(sum(x * y for x, y in zip(cvec, z))) for z in Z)
    N = bmax + cmax + 1
    u = [N * N * sig * x + N * y + z for x, y, z in zip(a, bvec, cvec)]
    gg = math.gcd(*u)
    return [v // gg for v in u] if gg else u


def _primitive(v) -> tuple[int, ...]:
    v = [int(t) for t in v]
    g = math.gcd(*v)
    return tuple(t // g for t in v) if g else tuple(v)


class _Directions:
    """The working set: directions with their projections sorted (largest first) and cumulative weights."""

    def __init__(self, P: np.ndarray, w: np.ndarray):
        self.P, self.w = P, w
        self.dirs: list[tuple[int, ...]] = []
        self.index: dict[tuple[int, ...], int] = {}
        self.proj: list[np.ndarray] = []
        self.cumw: list[np.ndarray] = []

    def add(self, u) -> bool:
        u = _primitive(u)
        if u in self.index or not any(u):
            return False
        if max(abs(v) for v in u) < 2**30:
            pr = self.P @ np.asarray(u, dtype=np.int64)
        else:
            pr = self.P.astype(object) @ np.asarray(u, dtype=object)
        o = (
            np.argsort(-pr.astype(float), kind="stable")
            if pr.dtype != object
            else np.asarray(sorted(range(len(pr)), key=lambda k: -pr[k]), dtype=np.intp)
        )
        if pr.dtype != object and not np.all(pr[o][:-1] >= pr[o][1:]):
            o = np.argsort(-pr, kind="stable")
        self.index[u] = len(self.dirs)
        self.dirs.append(u)
        self.proj.append(pr[o])
        self.cumw.append(np.cumsum(self.w[o]))
        return True

    def level(self, r: int) -> list[int]:
        """``c_r(u)`` for every direction (exact Python ints)."""
        return [int(p[int(np.searchsorted(c, r))]) for p, c in zip(self.proj, self.cumw)]


def _level_of(pr: np.ndarray, w: np.ndarray, r: int) -> int:
    o = sorted(range(len(pr)), key=lambda k: -pr[k])
    acc = 0
    for k in o:
        acc += int(w[k])
        if acc >= r:
            return int(pr[k])
    raise AssertionError("level beyond n")  # pragma: no cover


def _cone_vertex(P, w, pt: _Point, u: list[int], r: int, flat=()) -> tuple[int, ...] | None:
    """A plane through three data points whose constraint ``x*`` violates, from the cone at the pivot of ``u``
    (module docstring); None when the float LP proposes none that the exact check accepts."""
    from scipy.optimize import linprog

    pr = P.astype(object) @ np.asarray(u, dtype=object)
    c = _level_of(pr, w, r)
    k0 = next(k for k in range(len(P)) if pr[k] == c)
    y0 = P[k0]
    Dm = P - y0
    s = np.array([(v > c) - (v < c) for v in pr], dtype=np.int64)
    wvec = np.array([float(Fraction(xv) - int(yv)) for xv, yv in zip(pt.x, y0)])
    wvec /= max(np.abs(wvec).max(), 1e-300)
    others = np.flatnonzero(np.any(Dm != 0, axis=1))
    ineq = others[s[others] != 0]
    eq = others[s[others] == 0]
    A_ub = -(s[ineq, None] * Dm[ineq]).astype(float)
    extra = np.asarray(flat, dtype=np.int64).reshape(-1, 3)  # a flat S: v in the hull's direction space
    A_eq = np.vstack([Dm[eq].astype(float), extra.astype(float), wvec[None, :]])
    b_eq = np.zeros(len(A_eq))
    b_eq[-1] = 1.0
    shift = max(0, max(abs(v) for v in u).bit_length() - 60)
    uf = np.array([float(v >> shift) if v >= 0 else -float((-v) >> shift) for v in u])
    uf /= np.linalg.norm(uf)
    Cand = np.vstack([Dm, extra])
    rows = np.concatenate([ineq, eq, len(Dm) + np.arange(len(extra))]).astype(np.intp)
    if len(rows) < 2:
        return None
    Dr = Cand[rows].astype(float)
    Dn = np.linalg.norm(Dr, axis=1)
    X, q = pt.X, pt.q
    tried: set = set()
    for objective in (-uf, uf, np.zeros(3)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res = linprog(objective, A_ub=A_ub if len(ineq) else None,
                              b_ub=np.zeros(len(ineq)) if len(ineq) else None,
                              A_eq=A_eq, b_eq=b_eq, bounds=[(-1e7, 1e7)] * 3, method="highs-ds")  # fmt: skip
            except (ValueError, np.linalg.LinAlgError):  # pragma: no cover
                continue
        if res.x is None:
            continue
        v = res.x
        slack = np.abs(Dr @ v) / (Dn * max(np.linalg.norm(v), 1e-300))
        tight = rows[np.argsort(slack, kind="stable")[:10]]
        for a_ in range(len(tight)):
            for b_ in range(a_ + 1, len(tight)):
                pair = (int(tight[a_]), int(tight[b_]))
                if pair in tried:
                    continue
                tried.add(pair)
                cand = _cross(Cand[pair[0]], Cand[pair[1]])
                if not np.any(cand):
                    continue
                cand = np.asarray(_primitive(cand), dtype=np.int64)
                # v.(x* - y0) > 0, times q
                t = sum(int(cv) * (int(xv) - q * int(yv)) for cv, xv, yv in zip(cand, X, y0))
                if t == 0:
                    continue
                if t < 0:
                    cand = -cand
                side = Dm @ cand
                if int(w[side > 0].sum()) <= r - 1:
                    return tuple(int(v) for v in cand)
    return None


def _affine_normals(P: np.ndarray) -> list[tuple[int, ...]]:
    """Integer normals of the affine hull of ``P`` when it is not all of space (``±`` both added later)."""
    D = P[1:] - P[0]
    if len(D) == 0:
        return []
    rank = np.linalg.matrix_rank(D.astype(float)) if len(D) else 0
    # the rank decides only which candidate normals to try; each is checked exactly below
    out: list[tuple[int, ...]] = []
    nz = D[np.any(D != 0, axis=1)]
    if rank >= 3 or len(nz) == 0:
        return out
    a = nz[0]
    if rank == 2:
        for bvec in nz[1:]:
            nrm = _cross(a, bvec)
            if np.any(nrm) and not np.any(D @ nrm):
                return [_primitive(nrm)]
        return out
    # collinear: two normals of the line
    for e in np.eye(3, dtype=np.int64):
        n1 = _cross(a, e)
        if np.any(n1):
            n2 = _cross(a, n1)
            return [_primitive(n1), _primitive(n2)]
    return out  # pragma: no cover


def _distinct(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    P, w = np.unique(A, axis=0, return_counts=True)
    return P.astype(np.int64), w.astype(np.int64)


class SpatialDepthRegions:
    """The exact Tukey depth regions of a multiset in space, read by certified cutting planes (module docstring).

    Parameters
    ----------
    S : array-like of shape (n, 3)
        Integer points with ``|coordinates| < SOLID_INT64_BOUND``, counted with multiplicity.
    """

    def __init__(self, S):
        arr, bound = as_integer_points(S, "S")
        n, d = arr.shape
        if d != 3:
            raise DataError(f"SpatialDepthRegions needs points of space: S has {d} column(s), not 3")
        if bound >= SOLID_INT64_BOUND:
            raise DataError(f"SpatialDepthRegions needs coordinates below {SOLID_INT64_BOUND}, got {bound}")
        self.n = n
        self.P, self.w = _distinct(arr.astype(np.int64))
        self.W = _Directions(self.P, self.w)
        for k in range(3):
            e = [0, 0, 0]
            e[k] = 1
            self.W.add(e)
            e[k] = -1
            self.W.add(e)
        self.flat = _affine_normals(self.P)
        for nrm in self.flat:
            self.W.add(nrm)
            self.W.add(tuple(-v for v in nrm))
        self.depth_calls = 0
        self._cache: dict = {}

    def depth(self, x) -> int:
        """``td(x; S)`` exactly (:func:`tukey_depth_3d` on the distinct points)."""
        pt = _Point(self.P, self.w, as_rational_point(x, 3, "x"))
        return _depth(self.P, self.w, pt)[0]

    def _end(self, p: tuple[Fraction, ...], sign: int) -> list:
        """``[(r_from, r_to, value)]``: the extreme of ``sign * x_i`` over each level's slice, up to the first empty."""
        from .exact_lp import _maximize

        k = len(p)
        q, Pp = common_denominator(p) if k else (1, [])
        out = []
        r = 1
        while r <= self.n:
            while True:
                U = np.asarray(self.W.dirs, dtype=object)
                c = self.W.level(r)
                rows = U[:, k:] * q
                rhs = [Fraction(q * cv - sum(int(U[j, t]) * Pp[t] for t in range(k))) for j, cv in enumerate(c)]
                A = _as_int_array(rows)
                obj = [Fraction(0)] * (3 - k)
                obj[0] = Fraction(sign)
                res = _maximize(obj, A, rhs, A.shape[0] > 64)
                if res.status == "infeasible":
                    return out
                if res.status != "optimal":  # pragma: no cover - the axis constraints bound every program
                    raise RuntimeError("depth region program unbounded")
                x = tuple(p) + tuple(res.point)
                pt = _Point(self.P, self.w, x)
                self.depth_calls += 1
                td, wits = _depth(self.P, self.w, pt, r, CUTS_PER_ROUND)
                if td >= r:
                    out.append((r, min(td, self.n), x[k]))
                    r = td + 1
                    break
                added = False
                for wit in wits:
                    u = _witness_direction(pt, wit)
                    v = _cone_vertex(self.P, self.w, pt, u, r, self.flat)
                    if v is not None and self.W.add(v):
                        added = True
                    elif v is None and self.W.add(u):
                        added = True
                if not added:  # pragma: no cover - a violated constraint is never already in the set
                    raise RuntimeError("depth region cut already present")
        return out

    def intervals(self, prefix=()) -> list[Interval]:
        """``[I_1, ..., I_R]``: the closed ``x_i``-range of ``D_r ∩ {x_(<i) = prefix}``, up to the first empty."""
        p = as_rational_point(prefix, len(prefix), "prefix") if len(prefix) else ()
        if len(p) > 2:
            raise InvalidParameterError(f"a prefix in d = 3 has at most 2 coordinates, got {len(p)}")
        key = tuple(p)
        if key in self._cache:
            return list(self._cache[key])
        hi = self._end(p, 1)
        lo = self._end(p, -1)
        his: list = []
        for r0, r1, v in hi:
            his.extend([v] * (r1 - r0 + 1))
        los: list = []
        for r0, r1, v in lo:
            los.extend([v] * (r1 - r0 + 1))
        R = min(len(his), len(los))
        if len(his) != len(los):  # pragma: no cover - both ends are exact
            raise RuntimeError("depth region ends disagree on the number of levels")
        out = [(los[r], his[r]) for r in range(R)]
        self._cache[key] = out
        return list(out)


def _as_int_array(rows: np.ndarray) -> np.ndarray:
    try:
        A = np.asarray(rows.tolist(), dtype=np.int64)
        if np.abs(A).max() < 2**62:
            return A
    except OverflowError:
        pass
    return rows


def tukey_depth_3d(x, S) -> int:
    """Exact Tukey depth of a rational point ``x`` in a multiset ``S`` of integer points of space, ``O(m^2 log m)``
    for ``m`` distinct points (module docstring)."""
    arr, bound = as_integer_points(S, "S")
    if arr.shape[1] != 3:
        raise DataError(f"tukey_depth_3d needs points of space: S has {arr.shape[1]} column(s), not 3")
    if bound >= SOLID_INT64_BOUND:
        raise DataError(f"tukey_depth_3d needs coordinates below {SOLID_INT64_BOUND}, got {bound}")
    P, w = _distinct(arr.astype(np.int64))
    pt = _Point(P, w, as_rational_point(x, 3, "x"))
    return _depth(P, w, pt)[0]


def tukey_intervals_3d(S, prefix=()) -> list[Interval]:
    """The nested intervals of the exact depth regions in ``d = 3`` (:class:`SpatialDepthRegions`)."""
    return SpatialDepthRegions(S).intervals(prefix)
