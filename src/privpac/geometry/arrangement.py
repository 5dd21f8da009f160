"""The vertices of a line (``D = 2``) or plane (``D = 3``) arrangement in a box, with their depths, by line sweeps.

Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), FindDeepPoint's oracle; spec ``kmst-halfspaces``
section 6.2 steps 1 and 2 and their faster alternative: instead of counting every constraint at
every vertex (``O(m^3)`` for ``D = 2``, ``O(m^4)`` for ``D = 3``), sweep every line of the
arrangement once. A line is a constraint line (``D = 2``) or the meet of two constraint planes
(``D = 3``); every plane of the arrangement (the constraints' and the box facets' ``x_j = +-R``)
either crosses it in one point or is parallel to it. Along the line, the constraints of a crossing
plane hold on one closed side of the crossing, those of a parallel plane everywhere or nowhere (both
orientations hold when the plane contains the line). The crossings sorted along the line, the depth
at each distinct crossing point is

    (constraints holding on the whole line) + (those holding after a crossing at or before it)
    + (those holding before a crossing at or after it),

two prefix sums per line: ``O(m^2 log m)`` for ``D = 2`` and ``O(m^3 log m)`` for ``D = 3``.

Exactness. Constraints ``(a, w)`` are integers; every plane is kept once, reduced by the gcd of its
entries with its first nonzero normal entry positive, and carries the multiplicities of the
constraints equal to it (``pos``) and to its opposite (``neg``). Crossings are Cramer's-rule points
``P / q`` in integers (``int64`` under a bound checked up front, Python integers otherwise); a float
ordering of the crossings along the line is only a proposal: every adjacent pair is compared
exactly (:func:`ratio_signs`), equal neighbours are one point, and a line whose proposal is not
sorted is sorted again exactly in Python integers. No rounded float decides a depth.

Each vertex is reported once: by the line of the two smallest planes through it (``D = 3``; the
smallest line through it for ``D = 2``), and only when no plane through it has a smaller index.
Whether it lies in the box comes from the same prefix sums (a box facet's own side weighs
``m + 1``), so a vertex's coordinates are formed only when it is kept.

Pruning (``prune=True``, what FindDeepPoint's levels use): a vertex of depth ``k`` strictly between
two box vertices of depth ``> k`` on *a* line through it lies in ``conv(V_(k+1))``, so dropping all
of them leaves every level ``conv(V_k)`` unchanged (induction from the top level down), and with
it every level interval; about 40 % of the vertices of the margin-1 dual of grid data go on their
reporting lines alone. In ``D = 3`` every line also marks such crossings (:class:`_Flags`, one byte
per triple of planes), and a vertex marked on any of its three lines is dropped once every line is
swept: about 30 % fewer vertices again on random planted systems. Until then a vertex is kept as its
three planes and its depth (14 bytes); its coordinates are formed once, in falling-depth order
(:func:`_by_falling_depth`, a counting sort whose arrays the levels share). In ``D = 2`` the marks
drop about 14 % and cost about as much as they save, so only the reporting line prunes.

Exact float order. Below ``2**53`` a crossing's position ``kn / kd`` converts exactly and is rounded
once, monotonically, so a strictly rising float pair is a strictly rising exact pair: only float
ties are compared in integers (:func:`ratio_signs`). In ``D = 2``, under the bounds of :class:`_Keys`
(entries up to 128 with up to 65,532 distinct rows; fewer rows for larger entries), no tie is left to
check: a crossing's position is floored at a scale that separates any two distinct positions (their
denominators divide ``|det| <= 2 X^2``), packed with its plane's index into one ``uint64`` key, and one
sort per line gives the exact order and names the points (equal high bits). The block's arrays are
reused from block to block.

Cost: ``O(m^2 log m)`` for ``D = 2`` and ``O(m^3 log m)`` for ``D = 3`` (about 10 s of one core at
``m = 500``), in blocks of about ``10^6`` crossings (``1.3 10^5`` for ``D = 2``); the memory is that
of the vertices kept. In ``D = 2`` they are kept as ``int32`` coordinates when Cramer's bounds allow
(``|q| <= 2 X^2`` and ``|P| <= 2 X max|W|`` below ``2**31``: entries up to about 800 in the box ``R = 2 X^2``)
and ``uint16`` depths when ``m < 2**16``, 14 bytes a vertex instead of 26, and the blocks' arrays are
gathered into chunks of :data:`_CHUNK` vertices, large enough for the system to take their memory back
when the counting sort into falling depth (:func:`_by_falling_depth`) frees them one by one: the peak is
about the sorted arrays plus one chunk, not twice the vertices.

Length: about 550 lines of code, one algorithm (the sweep, its exact keys and flags, the vertices'
storage); the rest is the argument above and in the functions' docstrings.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._exact import INT64_SAFE

__all__ = ["arrangement_vertices", "ratio_signs"]

#: Crossings per block of lines (``lines x planes`` entries), about 8 MB per int64 array.
_BLOCK = 1_000_000
#: The same for ``D = 2``: about 1 MB per int64 array, so the many elementwise passes over a block run
#: in cache (about a quarter faster than 8 MB blocks at ``m = 10^4``).
_BLOCK_2D = 1 << 17
#: Kept vertices gathered into one chunk of arrays (tens of MB each, see ``flush`` in :func:`arrangement_vertices`).
_CHUNK = 1 << 22


def ratio_signs(n1, d1, n2, d2) -> np.ndarray:
    """The exact sign of ``n2 / d2 - n1 / d1`` per entry (``d1, d2 > 0``), i.e. of ``n2 d1 - n1 d2``.

    ``int64`` when ``2 max|n| max|d| < 2**62``; when ``max|d| < 2**29`` and ``max|n| < 2**62``, two
    ``int64`` limbs: with ``n = hi 2^s + lo`` (``0 <= lo < 2^s``, ``s = 60 - bits(max d)``) the
    difference is ``H 2^s + L`` for ``H = hi2 d1 - hi1 d2`` and ``L = lo2 d1 - lo1 d2``, all below
    ``2**62``, and its sign is that of ``H + floor(L / 2^s)`` unless that is 0, then of
    ``L mod 2^s``. Python integers otherwise.
    """
    arrays = [np.asarray(v) for v in (n1, d1, n2, d2)]
    if all(v.dtype != object for v in arrays) and all(v.size for v in arrays):
        n1, d1, n2, d2 = (v.astype(np.int64) for v in arrays)
        mn = max(int(np.abs(n1).max()), int(np.abs(n2).max()))
        md = max(int(d1.max()), int(d2.max()))
        if 2 * mn * md < INT64_SAFE:
            return np.sign(n2 * d1 - n1 * d2)
        if md < 2**29 and mn < INT64_SAFE:
            s = 60 - md.bit_length()
            hi1, hi2 = n1 >> s, n2 >> s
            lo1, lo2 = n1 - (hi1 << s), n2 - (hi2 << s)
            low = lo2 * d1 - lo1 * d2
            carry = low >> s
            high = hi2 * d1 - hi1 * d2 + carry
            return np.where(high != 0, np.sign(high), np.sign(low - (carry << s)))
    n1, d1, n2, d2 = (v.astype(object) for v in arrays)
    diff = n2 * d1 - n1 * d2
    return np.array([(v > 0) - (v < 0) for v in np.ravel(diff)], dtype=np.int64).reshape(np.shape(diff))


def _signs(v: np.ndarray) -> np.ndarray:
    """``1`` where ``v > 0``, else ``-1``, in ``v``'s kind of integers (object arrays stay Python ints)."""
    s = np.where(np.asarray(v > 0, dtype=bool), 1, -1)
    return s.astype(object) if v.dtype == object else s


def _cross(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise cross products of ``(n, 3)`` integer arrays (broadcasting)."""
    return np.stack(
        [
            u[:, 1] * v[:, 2] - u[:, 2] * v[:, 1],
            u[:, 2] * v[:, 0] - u[:, 0] * v[:, 2],
            u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0],
        ],
        axis=1,
    )


def _proposal(f: np.ndarray) -> np.ndarray:
    """A float ordering of each row (checked exactly afterwards: any order would be safe)."""
    return np.argsort(f, axis=1)


def _planes(A: np.ndarray, b: np.ndarray, R: int):
    """``(N, W, pos, neg, zero_base)``: the distinct planes ``<N_k, x> = W_k`` and their weights.

    Constraint rows and box facets reduced by the gcd of their entries, first nonzero normal entry
    positive; ``pos[k]`` / ``neg[k]`` count the constraints ``<N_k, x> >= W_k`` / ``<-N_k, x> >= -W_k``,
    plus ``m + 1`` for a box facet's own side (``x_j >= -R``, ``-x_j >= -R``): a sum of weights over
    the constraints a point satisfies is ``depth + (m + 1) (box facets it satisfies)``, so the point
    lies in the box iff the quotient is ``2 D``. ``zero_base`` counts the rows ``a = 0`` with ``w <= 0``
    (they hold everywhere).
    """
    m, D = A.shape
    unit = m + 1
    box = [(*(int(c == j) for c in range(D)), s) for j in range(D) for s in (-R, R)]
    if A.dtype != object and b.dtype != object and R < INT64_SAFE:
        M = np.concatenate([A.astype(np.int64), b.astype(np.int64)[:, None]], axis=1)
        nz = np.any(M[:, :D] != 0, axis=1)
        zero_base = int(np.count_nonzero(~nz & (M[:, D] <= 0)))
        M = M[nz]
        M //= np.gcd.reduce(np.abs(M), axis=1)[:, None]
        lead = M[np.arange(len(M)), np.argmax(M[:, :D] != 0, axis=1)]
        sign = np.where(lead > 0, 1, -1)
        M *= sign[:, None]
        allrows = np.concatenate([M, np.array(box, dtype=np.int64)], axis=0)
        planes, inv = np.unique(allrows, axis=0, return_inverse=True)
        inv = np.ravel(inv)
        sign = np.concatenate([sign, np.tile([1, -1], D)])  # box rows (e_j, -R): x_j >= -R; (e_j, R): -x_j >= -R
        w = np.concatenate([np.ones(len(M), dtype=np.int64), np.full(2 * D, unit, dtype=np.int64)])
        K = len(planes)
        pos = np.bincount(inv[sign > 0], weights=w[sign > 0], minlength=K).astype(np.int64)
        neg = np.bincount(inv[sign < 0], weights=w[sign < 0], minlength=K).astype(np.int64)
        return planes[:, :D], planes[:, D], pos, neg, zero_base
    weights: dict[tuple[int, ...], list[int]] = {}
    zero_base = 0
    for a, w in zip(A, b):
        row = [int(v) for v in a] + [int(w)]
        if not any(row[:D]):
            zero_base += row[D] <= 0
            continue
        g = math.gcd(*row)
        lead = next(v for v in row[:D] if v)
        s = 1 if lead > 0 else -1
        key = tuple(s * v // g for v in row)
        weights.setdefault(key, [0, 0])[0 if s > 0 else 1] += 1
    for row in box:
        weights.setdefault(tuple(row), [0, 0])[0 if row[D] < 0 else 1] += unit
    keys = sorted(weights)
    planes = np.empty((len(keys), D + 1), dtype=object)
    for i, key in enumerate(keys):
        planes[i] = key
    pos = np.array([weights[k][0] for k in keys], dtype=np.int64)
    neg = np.array([weights[k][1] for k in keys], dtype=np.int64)
    return planes[:, :D], planes[:, D], pos, neg, zero_base


def _int64_safe(N: np.ndarray, W: np.ndarray, D: int) -> bool:
    """Whether every product of the sweep stays below ``2**62``: ``6 X^2 W`` (``D = 2``), ``24 X^3 W`` (``D = 3``).

    ``X`` is the largest normal entry and ``W`` the largest right-hand side (at least ``R``): the
    bounds of ``|<N_k, P_0> - W_k q_0|`` for a crossing ``P_0 / q_0``, the largest product formed
    (Cramer's rule gives ``|q| <= D! X^D`` and ``|P| <= D! X^(D-1) W``).
    """
    if N.dtype == object:
        return False
    X = int(np.abs(N).max())
    Wm = int(np.abs(W).max())
    return (6 * X**2 * Wm if D == 2 else 24 * X**3 * Wm) < INT64_SAFE


def _exact_order(kn: np.ndarray, kd: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """One row's crossings sorted exactly (Python integers), the invalid ones last."""
    idx = [int(j) for j in np.flatnonzero(valid)]

    def cmp(i, j):
        v = int(kn[i]) * int(kd[j]) - int(kn[j]) * int(kd[i])
        return (v > 0) - (v < 0)

    idx.sort(key=functools.cmp_to_key(cmp))
    return np.array(idx + [int(j) for j in np.flatnonzero(~valid)], dtype=np.int64)


def _sweep(det, kn, vertex, rank, own, N, W, pos, neg, zero_base, unit, prune, lines=None, flags=None, key=None):
    """Sweep a block of ``J`` lines against all ``K`` planes; the vertices each line reports, with depths.

    ``det[j, k]``: the signed Cramer denominator of the crossing of line ``j`` with plane ``k`` (0:
    parallel), whose sign is that of ``<N_k, direction_j>``; ``kn[j, k]``: the crossing's position
    along the line times ``det`` (so ``kn / |det|`` increases along the direction when ``det`` is made
    positive: a signed Cramer numerator of one coordinate). ``vertex(rows, cols)`` gives the Cramer
    numerators ``(n, D)`` of chosen crossings (same sign convention as ``det``). ``rank[j]``: a vertex
    is reported by line ``j`` iff every crossing plane through it has a larger index, and the line
    only if every other plane containing it does too; ``own[j, k]`` marks the planes defining line ``j``.
    ``pos``/``neg`` are the weights of :func:`_planes` (box facets' sides weigh ``unit = m + 1``).
    Returns ``(P, q, depth)`` of the reported box vertices (``q > 0``), or None; with ``flags`` (a
    :class:`_Flags`, ``prune=True``) every crossing between two deeper box points on this line is marked
    there (``lines[j]``: the planes defining line ``j``), and ``(planes, depth)`` is returned instead:
    each vertex as the planes of its reporting line and its first crossing plane (:func:`_cramer`
    gives its coordinates), 14 bytes a vertex instead of 42 until the marks of every line are in.
    With ``key`` (a :class:`_Keys`) each line's crossings are ordered by one sort of exact integer keys
    instead of a float proposal checked pair by pair.
    """
    J, K = det.shape
    obj = det.dtype == object
    rows = np.arange(J)
    par = np.asarray(det == 0, dtype=bool)
    first = np.argmax(~par, axis=1)  # every line crosses a box facet
    P0 = vertex(rows, first)
    d0 = det[rows, first]
    s0 = _signs(d0)
    P0, q0 = P0 * s0[:, None], d0 * s0
    pr, pc = np.nonzero(par)  # the parallel planes (few): the side of the line's point for each
    val = np.sum(P0[pr] * N[pc], axis=1) - q0[pr] * W[pc]
    vpos, vneg = np.asarray(val >= 0, dtype=bool), np.asarray(val <= 0, dtype=bool)
    base = zero_base + np.bincount(pr, weights=vpos * pos[pc] + vneg * neg[pc], minlength=J).astype(np.int64)
    contains = vpos & vneg & ~own[pr, pc]
    ok = np.ones(J, dtype=bool)
    ok[pr[contains & (pc <= rank[pr])]] = False  # canonical lines only
    if not np.any(ok):
        return None
    keep = np.flatnonzero(ok)
    if len(keep) < J:  # (a copy of the block only when a line goes)
        det, kn, par, base, rank = det[keep], kn[keep], par[keep], base[keep], rank[keep]
        J = len(keep)
    valid = ~par
    up = np.asarray(det > 0, dtype=bool)
    rowoff = (np.arange(J) * K)[:, None]
    if key is not None:
        # one sort of exact keys: positions kn / det (the sign of det cancels), then the plane in the low bits
        order, new, vs = key.order(kn, det, valid)
        at = np.add(order, rowoff, out=key.buffer("at", J, np.intp))
        w = key.buffer("w", J)
        w[...] = neg[None, :]  # the weight holding after the crossing ...
        np.copyto(w, pos[None, :], where=up)
        w += key.total[None, :]  # ... and, in the high bits, both sides' (pos + neg)
        w *= valid
        ws = np.take(w, at, out=key.buffer("ws", J), mode="clip")
        c = np.cumsum(ws, axis=1, out=key.buffer("c", J))
        return _groups(
            c, None, ws, new, vs, order, order, base, rank, keep, det, vertex, N, unit, prune, lines, flags, K
        )
    ge = np.where(up, pos[None, :], neg[None, :]) * valid
    le = np.where(up, neg[None, :], pos[None, :]) * valid
    sgn = _signs(det)
    kd = np.where(valid, det * sgn, 1)
    kn = np.where(valid, kn * sgn, 0)
    exact_floats = False
    if obj:
        order = np.stack([_exact_order(kn[j], kd[j], valid[j]) for j in range(J)])
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            f = np.where(valid, kn / kd, np.inf)
        order = _proposal(f)
        # below 2**53 both ends convert exactly and the quotient is correctly rounded, hence monotone:
        # a strictly rising float pair is a strictly rising exact pair, only float ties need integers
        exact_floats = max(int(np.abs(kn).max(initial=0)), int(kd.max(initial=0))) < 2**53

    def arrange(order):
        at = order + rowoff  # flat positions in sorted order: np.take is several times faster than take_along_axis
        vs = np.take(valid, at)
        pair = vs[:, 1:]  # both valid: the invalid ones sort last
        signs = np.ones(pair.shape, dtype=np.int64)
        if exact_floats:
            fs = np.take(f, at)
            signs[fs[:, 1:] < fs[:, :-1]] = -1  # not sorted at all (only a proposal that is no sort)
            pair = pair & (fs[:, 1:] == fs[:, :-1])
        if np.any(pair):
            r, c = np.nonzero(pair)
            o1, o2 = order[r, c], order[r, c + 1]
            signs[r, c] = ratio_signs(kn[r, o1], kd[r, o1], kn[r, o2], kd[r, o2])
        return at, vs, signs

    at, vs, signs = arrange(order)
    bad = np.flatnonzero(np.any(signs < 0, axis=1))
    if len(bad):  # the float proposal was not sorted: those lines exactly
        for j in bad:
            order[j] = _exact_order(kn[j], kd[j], valid[j])
        exact_floats = False
        at, vs, signs = arrange(order)
        if np.any(signs < 0):  # pragma: no cover - an exact sort is sorted
            raise RuntimeError("the exact sort of a line's crossings is not sorted")
    ge_s = np.take(ge, at)
    le_s = np.take(le, at)
    k_s = order  # the plane of each sorted crossing
    new = np.ones((J, K), dtype=bool)
    new[:, 1:] = signs > 0
    return _groups(
        np.cumsum(ge_s, axis=1),
        np.cumsum(le_s, axis=1),
        le_s,
        new,
        vs,
        k_s,
        order,
        base,
        rank,
        keep,
        det,
        vertex,
        N,
        unit,
        prune,
        lines,
        flags,
        K,
    )


def _groups(cge, cle, le_s, new, vs, k_s, order, base, rank, keep, det, vertex, N, unit, prune, lines, flags, K):
    """The depth of every distinct crossing point of the swept lines, from the prefix sums of the weights in
    sorted order (``cle`` None: ``cge`` packs both, :class:`_Keys`), and the vertices the lines report."""
    flat = np.flatnonzero(vs.ravel())  # row-major: each row's valid crossings, in order
    starts = np.flatnonzero(new.ravel()[flat])
    ends = np.append(starts[1:], len(flat)) - 1
    first_at, last_at = flat[starts], flat[ends]
    # each point's line: the points come row by row, so count them per row (no division per point)
    line = np.repeat(np.arange(len(cge)), np.diff(np.searchsorted(first_at, np.arange(len(cge) + 1) * K)))
    gmin = np.minimum.reduceat(k_s.ravel()[flat], starts)
    emit = gmin > rank[line]
    if not prune:
        first_at, last_at, line = first_at[emit], last_at[emit], line[emit]
    if cle is None:  # packed: low bits the weights holding after (ge), high bits ge + le (_Keys)
        end = cge.ravel()[last_at]
        before = cge.ravel()[first_at] - le_s.ravel()[first_at]  # everything strictly before the point
        row = cge[:, -1][line]
        low = _Keys.LOW
        after = (row >> _Keys.SHIFT) - (row & low) - ((before >> _Keys.SHIFT) - (before & low))  # le at or after
        total = base[line] + (end & low) + after
    else:
        total = base[line] + cge.ravel()[last_at] + cle[:, -1][line] - cle.ravel()[first_at] + le_s.ravel()[first_at]
    # total = depth + unit (box facets' sides holding), depth <= m < unit: in the box iff all 2 D hold
    box = 2 * N.shape[1] * unit
    inside = total >= box
    depth = total - box
    if prune:
        between = _between_deeper(np.where(inside, depth, -1), line, depth)
        if flags is not None:  # every plane crossing there: the same point seen from the other lines through it
            hit = flat[between[np.cumsum(new.ravel()[flat]) - 1]]
            flags.mark(lines[keep[hit // K]], k_s.ravel()[hit])
        inside &= emit & ~between
    line, col = line[inside], order.ravel()[first_at[inside]]
    if flags is not None:  # only the planes through each vertex: its coordinates once the marks are all in
        planes = np.concatenate([lines[keep[line]], col[:, None]], axis=1)
        return planes.astype(np.int32 if K < 2**31 else np.int64), depth[inside]
    P = vertex(keep[line], col)
    q = det[line, col]
    s = _signs(q)
    return P * s[:, None], q * s, depth[inside]


class _Keys:
    """Exact integer sort keys for the crossings of the ``D = 2`` lines (one sort per line, no float tie left).

    A crossing's position along its line is ``v = kn / det``, a coordinate of the crossing point (Cramer),
    a rational whose denominator divides ``|det| <= dmax = 2 X^2`` (``X`` the largest normal entry), so
    two distinct positions differ by at least ``1 / dmax^2``. In the box ``|v| <= R``; positions beyond
    ``R + 1`` are clamped to ``+-(R + 1)`` (one merged point outside the box, never reported, and after or
    before every point in it). The key of a crossing is ``floor((fl(v) + R + 1) 2^s)`` with
    ``2^s >= 2 dmax^2``: ``fl`` of ``kn / det`` is correctly rounded from exact operands (``|kn|, |det| < 2**53``),
    hence monotone, and so are the clamp, the rounded sum and the floor, so equal positions get equal keys
    and the order of keys is never reversed; the two roundings err by less than ``3 (R + 1) 2^-53`` in
    ``v``, at most ``1/4`` of a key unit under ``2^s (R + 1) <= 2^49``, so distinct positions (``2^s / dmax^2
    >= 2`` units apart) get distinct keys. The key goes to the high bits, the plane's index to the low
    bits, and a parallel plane gets the key ``top + 1`` (after every crossing): one ``uint64`` sort per line
    orders its crossings exactly and names the points (equal high bits: the same point).

    The weights of a plane's two sides are summed in one cumulative sum: low bits the side holding after the
    crossing, high bits (from bit :attr:`SHIFT`) both sides; a line's sums stay below
    ``m + 2 D (m + 1) < 2^31``, so neither part carries into the other.
    """

    SHIFT = 32
    LOW = (1 << 32) - 1

    def __init__(self, R: int, s: int, bits: int, K: int, total: np.ndarray):
        self.K = K
        self.buffers: dict[str, np.ndarray] = {}  # reused by every block: no fresh pages per block
        self.lim = float(R + 1)
        self.scale = float(2**s)
        self.sentinel = np.uint64(math.floor((2 * R + 2) * 2**s) + 1)
        self.bits = np.uint64(bits)
        self.mask = np.uint64((1 << bits) - 1)
        self.cols = np.arange(K, dtype=np.uint64)
        self.total = total << self.SHIFT

    @classmethod
    def build(cls, N: np.ndarray, W: np.ndarray, R: int, pos: np.ndarray, neg: np.ndarray, m: int):
        """The keys for the planes ``(N, W)`` of a ``D = 2`` arrangement in ``[-R, R]^2`` (None: a bound fails)."""
        if N.dtype == object or N.shape[1] != 2:
            return None
        X = int(np.abs(N).max())
        dmax = 2 * X * X  # |a_1 n_2 - a_2 n_1|
        knmax = 2 * X * int(np.abs(W).max())  # |w n_2 - a_2 W|, |a_1 W - w n_1|
        s = (2 * dmax * dmax - 1).bit_length()  # 2^s >= 2 dmax^2
        K = len(W)
        bits = max(1, (K - 1).bit_length())
        top = math.floor((2 * R + 2) * 2**s) + 1
        if (
            max(dmax, knmax) >= 2**53
            or 2**s * (R + 1) > 2**49
            or top.bit_length() + bits > 64
            or m + 4 * (m + 1) >= 2**31
        ):
            return None
        return cls(R, s, bits, K, (pos + neg).astype(np.int64))

    def buffer(self, name: str, J: int, dtype=np.int64) -> np.ndarray:
        """A ``(J, K)`` work array kept across blocks (the first block's rows are the most)."""
        b = self.buffers.get(name)
        if b is None or b.shape[0] < J:
            b = self.buffers[name] = np.empty((J, self.K), dtype=dtype)
        return b[:J]

    def block(self, N: np.ndarray, W: np.ndarray, i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(det, kn)`` of the lines ``i`` against every plane, as in :func:`arrangement_vertices` (``D = 2``).

        ``det = a_1 n_2 - a_2 n_1``; the line runs along ``(-a_2, a_1)`` times ``sd`` (the sign that makes
        the coordinate it is read by rise) and ``kn = sd (w n_2 - a_2 W)`` (by ``x``, when ``|a_2| >= |a_1|``)
        or ``sd (a_1 W - w n_1)`` (by ``y``): Cramer's numerators, ``|kn| <= 2 X max|W|`` (:meth:`build`).
        """
        J = len(i)
        det, kn, tmp = self.buffer("det", J), self.buffer("kn", J), self.buffer("tmp", J)
        a1, a2, w = N[i, 0], N[i, 1], W[i]
        n1, n2 = N[:, 0], N[:, 1]
        np.multiply(a1[:, None], n2[None, :], out=det)
        np.multiply(a2[:, None], n1[None, :], out=tmp)
        det -= tmp
        by_x = np.abs(a2) >= np.abs(a1)
        sd = np.where(np.where(by_x, -a2, a1) > 0, 1, -1)
        np.multiply((sd * w * by_x)[:, None], n2[None, :], out=kn)
        np.multiply((-sd * w * ~by_x)[:, None], n1[None, :], out=tmp)
        kn += tmp
        np.multiply((sd * np.where(by_x, -a2, a1))[:, None], W[None, :], out=tmp)
        kn += tmp
        return det, kn

    def order(self, kn: np.ndarray, det: np.ndarray, valid: np.ndarray):
        """``(order, new, valid_sorted)`` of a block of lines: the planes in exact order along each line, whether
        each sorted crossing starts a new point, and whether it is a crossing at all (parallel planes last)."""
        J = len(det)
        f, k = self.buffer("f", J, np.float64), self.buffer("k", J, np.uint64)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.divide(kn, det, out=f)  # the position (the sign of det cancels); parallel planes are replaced below
            np.clip(f, -self.lim, self.lim, out=f)
            f += self.lim
            f *= self.scale
            np.copyto(k, f, casting="unsafe")  # floor: f >= 0
        k[~valid] = self.sentinel
        k <<= self.bits
        k |= self.cols
        k.sort(axis=1)
        order = self.buffer("order", J, np.intp)
        np.bitwise_and(k, self.mask, out=order, casting="unsafe")
        k >>= self.bits
        new = self.buffer("new", J, bool)
        new[:, 0] = True
        np.not_equal(k[:, 1:], k[:, :-1], out=new[:, 1:])
        vs = self.buffer("vs", J, bool)
        np.not_equal(k, self.sentinel, out=vs)
        return order, new, vs


class _Flags:
    """One flag per vertex of a simple arrangement, named by ``D`` planes through it (their combination index).

    A vertex of depth ``k`` strictly between two box vertices of depth ``> k`` on *any* line through it lies
    in ``conv(V_(k+1))`` (module docstring, "Pruning"); every line marks such crossings, and a vertex is
    dropped when any line marked it. A vertex is named by the planes of a line through it plus one other
    plane through it: the lines through it then name it by other subsets of its planes, which only means
    fewer marks are read (dropping fewer points is always safe). ``C(K, D)`` bytes.
    """

    def __init__(self, K: int, D: int):
        self.D = D
        self.seen = np.zeros(math.comb(K, D), dtype=bool)

    def code(self, lines: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The combination index of the sorted planes ``(*lines[r], k[r])`` (a line's planes rise)."""
        k = np.asarray(k, dtype=np.int64)
        own = np.asarray(lines, dtype=np.int64).reshape(len(k), self.D - 1)
        lo = np.minimum(own[:, 0], k)
        if self.D == 2:
            hi = np.maximum(own[:, 0], k)
            return hi * (hi - 1) // 2 + lo
        hi = np.maximum(own[:, 1], k)
        mid = own[:, 0] + own[:, 1] + k - lo - hi
        return hi * (hi - 1) * (hi - 2) // 6 + mid * (mid - 1) // 2 + lo

    def mark(self, lines: np.ndarray, k: np.ndarray) -> None:
        if len(k):
            self.seen[self.code(lines, k)] = True

    def keep(self, codes: np.ndarray) -> np.ndarray:
        return ~self.seen[codes]


def _between_deeper(d: np.ndarray, line: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Points (in order along their lines, ``line`` non-decreasing) with a deeper point on each side on their line.

    ``d`` is the depth of each point in the box (``-1`` outside). A point of depth ``k`` strictly
    between two box points of depth ``> k`` lies in ``conv(V_(k+1))``; dropping every such point
    leaves every ``conv(V_k)`` unchanged (by induction from the top level down: the dropped points
    of depth ``k`` lie in the hull of the kept points of depth ``> k``). Segmented running maxima:
    each line's values are shifted above the previous line's.
    """
    if len(d) == 0:
        return np.zeros(0, dtype=bool)
    span = int(d.max()) + 2
    shift = line.astype(np.int64) * span
    before = np.maximum.accumulate(d + 1 + shift)
    after = np.maximum.accumulate((d + 1 - shift)[::-1])[::-1]
    lo = np.full(len(d), -1, dtype=np.int64)  # the deepest box point strictly before, on the same line
    same = line[1:] == line[:-1]
    lo[1:] = np.where(same, before[:-1] - 1 - shift[1:], -1)
    hi = np.full(len(d), -1, dtype=np.int64)
    hi[:-1] = np.where(same, after[1:] - 1 + shift[:-1], -1)
    return (lo > depth) & (hi > depth)


def _reduce(P: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P / q`` in lowest terms (homogeneous rows divided by their gcd)."""
    if len(q) == 0:
        return P, q
    if P.dtype != object:
        g = q
        for c in range(P.shape[1]):  # column by column: a reduction along the short rows is slow
            g = np.gcd(g, P[:, c])
        return P // g[:, None], q // g
    g = np.array([math.gcd(int(qq), *(int(v) for v in row)) for row, qq in zip(P, q)], dtype=object)
    return P // g[:, None], q // g


def arrangement_vertices(
    A: np.ndarray, b: np.ndarray, R: int, *, prune: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P, q, depth)``: the vertices ``P / q`` (lowest terms, ``q > 0``) in ``[-R, R]^D`` and their depths.

    The vertices of the arrangement of the nonzero constraint planes ``<a_l, x> = w_l`` and the box
    facets ``x_j = +-R`` (``D = 2`` or ``3``), each once, with ``depth = #{l : <a_l, P> >= w_l q}``
    counted with multiplicity (module docstring: line sweeps, exact). ``P`` and ``q`` are ``int64``
    when the bound of :func:`_int64_safe` holds, Python-int object arrays otherwise; depths are
    ``uint16`` when ``m < 2**16`` (``int64`` otherwise). ``prune=True`` leaves out the vertices that
    lie between two deeper box vertices on their reporting line (module docstring): a subset with
    the same level hulls ``conv(V_k)``.
    """
    m, D = A.shape
    N, W, pos, neg, zero_base = _planes(A, b, R)
    if D not in (2, 3):
        raise ValueError(f"arrangement_vertices needs D = 2 or 3, got {D}")
    if not _int64_safe(N, W, D):
        N, W = N.astype(object), W.astype(object)
    K = len(W)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    kidx = np.arange(K)
    block = max(1, (_BLOCK_2D if D == 2 else _BLOCK) // K)

    # D = 3: about 30 % fewer vertices; D = 2 (about 14 % fewer) pays as much for the marks as it saves
    flags = _Flags(K, D) if prune and D == 3 else None

    depth_type = np.uint16 if m < 2**16 else np.int64  # depth <= m
    # D = 2: coordinates in int32 when Cramer's bounds allow (|q| <= 2 X^2, |P| <= 2 X max|W|), 14 bytes a vertex
    # instead of 26; exact either way (every reader widens before it multiplies)
    if D == 2 and N.dtype != object:
        Xn = int(np.abs(N).max())
        narrow = 2 * Xn * max(Xn, int(np.abs(W).max())) < 2**31
    else:
        narrow = False
    pending: list[tuple[np.ndarray, ...]] = []
    held = [0]  # vertices in pending

    def flush():
        # the blocks' small arrays in one chunk of each array: the chunks are large enough for their memory to go
        # back to the system when _by_falling_depth frees them one by one (many small arrays would stay resident)
        if len(pending) == 1:
            found.append(pending.pop())
        elif pending:
            found.append(tuple(np.concatenate(cols) for cols in zip(*pending)))
            pending.clear()
        held[0] = 0

    def keep(out):
        if out is not None and len(out[-1]):
            if flags is not None:
                pending.append((out[0], out[1].astype(depth_type)))
            else:
                P, q = _reduce(out[0], out[1])
                if narrow:
                    P, q = P.astype(np.int32), q.astype(np.int32)
                pending.append((P, q, out[2].astype(depth_type)))
            held[0] += len(out[-1])
            if held[0] >= _CHUNK:
                flush()

    if D == 2:
        n1, n2 = N[:, 0], N[:, 1]
        keys = _Keys.build(N, W, R, pos, neg, m)
        for s in range(0, K, block):
            i = np.arange(s, min(K, s + block))
            if keys is not None:
                det, kn = keys.block(N, W, i)
            else:
                a1, a2, w = N[i, 0][:, None], N[i, 1][:, None], W[i][:, None]
                det = a1 * n2[None, :] - a2 * n1[None, :]
                by_x = np.asarray(abs(N[i, 1]) >= abs(N[i, 0]), dtype=bool)  # direction (-a2, a1): x when |a2| >= |a1|
                sd = _signs(np.where(by_x, -N[i, 1], N[i, 0]))[:, None]
                Px = w * n2[None, :] - a2 * W[None, :]
                Py = a1 * W[None, :] - w * n1[None, :]
                kn = np.where(by_x[:, None], Px, Py) * sd

            def vertex(r, c, i=i):
                a1, a2, w = N[i[r], 0], N[i[r], 1], W[i[r]]
                return np.stack([w * N[c, 1] - a2 * W[c], a1 * W[c] - w * N[c, 0]], axis=1)

            own = kidx[None, :] == i[:, None]
            keep(_sweep(det, kn, vertex, i, own, N, W, pos, neg, zero_base, m + 1, prune, i[:, None], flags, keys))
    else:
        for i in range(K - 2):
            ni, wi = N[i], W[i]
            js = np.arange(i + 1, K)
            d = _cross(ni[None, :], N[js])
            js = js[np.any(d != 0, axis=1)]  # parallel planes never meet
            d = d[np.any(d != 0, axis=1)]
            for s in range(0, len(js), block):
                j, dj = js[s : s + block], d[s : s + block]
                det = dj @ N.T  # <N_k, n_i x n_j>: (J, K)
                c = np.argmax(abs(dj), axis=1)
                sd = _signs(dj[np.arange(len(j)), c])[:, None]
                c1, c2 = (c + 1) % 3, (c + 2) % 3
                nj1, nj2 = N[j, c1][:, None], N[j, c2][:, None]
                Nk1, Nk2 = N.T[c1], N.T[c2]  # (J, K)
                # P_c = w_i (n_j x n_k)_c + w_j (n_k x n_i)_c + w_k d_c
                kn = (
                    wi * (nj1 * Nk2 - nj2 * Nk1)
                    + W[j][:, None] * (Nk1 * ni[c2][:, None] - Nk2 * ni[c1][:, None])
                    + W[None, :] * dj[np.arange(len(j)), c][:, None]
                ) * sd

                def vertex(r, col, j=j, dj=dj, ni=ni, wi=wi):
                    nk = N[col]  # Cramer: w_i (n_j x n_k) + w_j (n_k x n_i) + w_k (n_i x n_j)
                    return (
                        wi * _cross(N[j[r]], nk) + W[j[r]][:, None] * _cross(nk, ni[None, :]) + W[col][:, None] * dj[r]
                    )

                own = (kidx[None, :] == i) | (kidx[None, :] == j[:, None])
                lines = np.stack([np.full(len(j), i), j], axis=1)
                keep(_sweep(det, kn, vertex, j, own, N, W, pos, neg, zero_base, m + 1, prune, lines, flags))
    flush()
    if not found:  # pragma: no cover - the box corners are always vertices
        return np.zeros((0, D), dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if flags is None:
        return _by_falling_depth(found, m)
    for n, f in enumerate(found):  # the marks of every line are in: drop the vertices marked on any line through them
        ok = flags.keep(flags.code(f[0][:, :2], f[0][:, 2]))
        found[n] = (f[0][ok], f[1][ok])
    flags.seen = None  # free the marks
    T, depth = _by_falling_depth(found, m)
    P = np.empty((len(depth), D), dtype=N.dtype)
    q = np.empty(len(depth), dtype=N.dtype)
    step = max(1, _BLOCK // 4)
    for s in range(0, len(depth), step):  # the coordinates, block by block, in lowest terms
        P[s : s + step], q[s : s + step] = _reduce(*_cramer(N, W, T[s : s + step]))
    return P, q, depth


def _cramer(N: np.ndarray, W: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P, q)``, ``q > 0``: the common point ``P / q`` of the planes ``T[r] = (a, b, c)`` of ``<N_k, x> = W_k``
    (Cramer: ``q = <n_a, n_b x n_c>``, ``P = w_a (n_b x n_c) + w_b (n_c x n_a) + w_c (n_a x n_b)``)."""
    a, b, c = (T[:, j].astype(np.int64) for j in range(3))
    na, nb, nc = N[a], N[b], N[c]
    bc = _cross(nb, nc)
    q = np.sum(na * bc, axis=1)
    P = W[a][:, None] * bc + W[b][:, None] * _cross(nc, na) + W[c][:, None] * _cross(na, nb)
    s = _signs(q)
    return P * s[:, None], q * s


def _by_falling_depth(found: list, m: int) -> tuple[np.ndarray, ...]:
    """The blocks' arrays (tuples whose last array is the depth) in one set of arrays, sorted by falling
    depth (stable: block order, then order within a block), each block freed once placed: a counting
    sort, so the levels (:class:`~privpac.geometry.point_levels.PointLevels`) share these arrays instead
    of sorting a copy."""
    sizes = np.zeros(m + 2, dtype=np.int64)  # per key m - depth
    for f in found:
        sizes += np.bincount(m - f[-1].astype(np.int64), minlength=m + 2)
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    n = int(sizes.sum())
    outs = []
    for c, first in enumerate(found[0]):
        kind = object if any(f[c].dtype == object for f in found) else first.dtype
        outs.append(np.empty((n, *first.shape[1:]), dtype=kind))
    while found:
        block = found.pop(0)
        # m - depth in [0, m]: 16-bit keys when m < 2**16, which numpy's stable sort orders by radix
        key = m - block[-1].astype(np.uint16 if m < 2**16 else np.int64)
        order = np.argsort(key, kind="stable")
        ks = key[order]
        dest = start[ks] + np.arange(len(ks)) - np.searchsorted(ks, ks, side="left")
        start += np.bincount(key, minlength=m + 2)
        for out, arr in zip(outs, block):
            out[dest] = arr[order]
    return tuple(outs)
