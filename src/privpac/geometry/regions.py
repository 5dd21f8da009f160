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

Implemented exactly (integers and Fractions):

* ``i = d`` (the prefix fixes all but the last coordinate, any ``d``): ``I_r`` is the slice of a
  line, one bound per direction.
* ``d >= 3, i < d`` (``d = 3`` for the exact regions, any ``d`` over a public direction set): ``I_r``
  is the ``x_i``-range of ``T(r) ∩ {x_(<i) = p}``, an exact linear program over the
  H-representation (:func:`~privpac.geometry.exact_lp.nested_coordinate_ranges`:
  a HiGHS basis certified in rationals, re-optimised by the exact simplex as ``c_r`` falls level by
  level).
* ``d = 2, i = 1``: ``I_r`` is the ``x_1``-extent of the polygon ``T(r)``. For each ``t``, the slice
  ``x_1 = t`` is ``[max of lower lines, min of upper lines]``; ``g(t) = min(upper) - max(lower)`` is
  concave and piecewise linear, so ``I_r = {t : g(t) >= 0}`` (within the vertical constraints) is found
  from the two exact envelopes (convex-hull trick in Fractions), ``O(|U| log |U|)`` per ``r``.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction

import numpy as np

from ..errors import InvalidParameterError
from ._exact import INT64_SAFE, as_integer_points, as_rational_point, common_denominator, exact_products, max_abs
from .directional import as_directions
from .directions import _complete, check_finite_direction_size

__all__ = ["depth_intervals"]

Interval = tuple[Fraction | None, Fraction | None]


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
        ``None``: the exact Tukey depth regions, through ``U(S ∪ E)``
        (:func:`~privpac.geometry.complete_directions`). Otherwise a **public** integer direction
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
        Bad ``S``, or ``directions=None`` and ``C(n + d + 1, d) * n`` above
        :data:`privpac.geometry.FINITE_DIRECTION_LIMIT`.
    privpac.errors.InvalidParameterError
        Bad ``prefix`` or ``directions``, or an unsupported ``(d, i)`` (``d >= 4`` with ``i < d`` and
        ``directions=None``).

    Notes
    -----
    Beimel, Moran, Nissim, Stemmer (COLT 2019), Def 2.15, Claims 2.17/2.18, Fact 2.20, Def 3.1 and
    Lemma 3.4; spec ``bmns-center-points`` section 4 (A1, A2 [ENG]) and section 7. Exact: integer
    projections, Fraction bounds; nothing is rounded, so vertices (where the maxima sit: the A2
    "spike" example) are reported exactly. Costs with ``K = |U|`` (``<= 2 C(n + d + 1, d)`` by
    default): one ``K x n`` product and row sort, ``O(K n log n)``; then, per level ``r``, ``O(K)``
    for ``i = d`` or ``O(K log K)`` Fraction operations for ``d = 2, i = 1``. Levels stop at the first
    empty one, at most ``n``; a level whose ``c_r`` equals the previous level's (tied projections,
    repeated points) reuses its interval. For ``d = 2`` with ``K ~ n^2`` this is ``O(n^3 log n)``.

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
    if d >= 3 and i < d:
        return _lp_intervals(U, C, p)
    Uo = U.astype(object)
    out: list[Interval] = []
    previous: np.ndarray | None = None
    for r in range(1, n + 1):
        c = C[:, r - 1]
        if previous is None or np.any(c != previous):  # equal levels (ties) are not recomputed
            interval = _slice_interval(U, c, p) if i == d else _polygon_extent(Uo, [int(v) for v in c])
            previous = c
        if interval is None:
            break
        out.append(interval)
    return out


def _lp_intervals(U: np.ndarray, C: np.ndarray, p: tuple[Fraction, ...]) -> list[Interval]:
    """``d >= 3``, ``i = len(p) + 1 < d``: ``I_r`` by exact LPs over the H-form of ``T(r) ∩ {x_(<i) = p}``.

    ``i = 1``: ``max / min x_1`` over ``{x : u.x <= c_r(u)}``; ``i > 1``: with ``x_(<i) = P / q``
    substituted, ``{x_(>=i) : q u_(>=i) . x_(>=i) <= q c_r(u) - u_(<i) . P}``, integer rows.
    Levels whose ``c_r`` equals the previous level's share its interval; the others are solved by
    :func:`~privpac.geometry.exact_lp.nested_coordinate_ranges` (one certified basis re-optimised
    level by level), up to the first empty region.
    """
    from .exact_lp import nested_coordinate_ranges

    n = C.shape[1]
    distinct: list[int] = []  # the levels r (0-based) whose c_r differs from the previous level's
    for r in range(n):
        if r == 0 or np.any(C[:, r] != C[:, r - 1]):
            distinct.append(r)
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
    ranges = nested_coordinate_ranges(rows, rhs, 0)
    out: list[Interval] = []
    for j, interval in enumerate(ranges):
        upto = distinct[j + 1] if j + 1 < len(distinct) else n
        out.extend([interval] * (upto - distinct[j]))
    return out


def _shrink_rows(A: np.ndarray) -> np.ndarray:
    """An object array of Python ints as ``int64`` when every entry is below ``2**62``."""
    if A.size and max_abs(A) >= INT64_SAFE:
        return A
    return A.astype(np.int64)


def _symmetric_nonzero(U: np.ndarray) -> np.ndarray:
    keep = np.array([any(int(v) != 0 for v in row) for row in U], dtype=bool)
    U = U[keep]
    return np.concatenate([U, -U], axis=0)


def _slice_interval(U: np.ndarray, c: np.ndarray, p: tuple[Fraction, ...]) -> Interval | None:
    """Range of ``t`` with ``u.(p, t) <= c(u)`` for all rows ``u``, or None when empty.

    With ``p = P / q``: ``q u_d t <= q c(u) - u_{<d}.P``, integers ``a t <= b`` per direction,
    vectorised: the bounds ``b / a`` are compared by exact cross-multiplication.
    """
    q, P = common_denominator(p)
    c = np.asarray(c)
    u_max, c_max, p_max = max_abs(U), max_abs(c), max((abs(v) for v in P), default=0)
    if U.dtype != object and c.dtype != object and q * (u_max + c_max) + len(P) * u_max * p_max < INT64_SAFE:
        a = U[:, -1] * q
        b = c * q - (U[:, :-1] @ np.asarray(P, dtype=np.int64) if P else 0)
    else:
        Uo = U.astype(object)
        a = Uo[:, -1] * q
        b = c.astype(object) * q
        if P:
            b = b - Uo[:, :-1] @ np.asarray(P, dtype=object)
    if a.dtype != object and 2 * max_abs(a) * max_abs(b) >= INT64_SAFE:  # the cross-multiplications below
        a, b = a.astype(object), b.astype(object)
    zero = a == 0
    if np.any(b[zero] < 0):
        return None
    up, down = a > 0, a < 0
    hi = _extreme_ratio(b[up], a[up], smallest=True) if np.any(up) else None
    lo = _extreme_ratio(b[down], a[down], smallest=False) if np.any(down) else None
    if lo is not None and hi is not None and lo > hi:
        return None
    return lo, hi


def _extreme_ratio(b: np.ndarray, a: np.ndarray, smallest: bool) -> Fraction:
    """``min`` (or ``max``) of ``b_k / a_k`` over rows whose ``a_k`` share one sign, exactly.

    A floating-point guess, then exact checks ``b_k a_j`` against ``b_j a_k``; any violating row
    replaces the guess, which strictly improves it.
    """
    guess = b.astype(float) / a.astype(float)
    j = int(np.argmin(guess) if smallest else np.argmax(guess))
    while True:
        # b_k / a_k < b_j / a_j  <=>  b_k a_j - b_j a_k < 0  (a_k a_j > 0)
        diff = b * a[j] - a * b[j]
        better = np.flatnonzero(diff < 0) if smallest else np.flatnonzero(diff > 0)
        if len(better) == 0:
            return Fraction(int(b[j]), int(a[j]))
        j = int(better[0])


# A line y = m x + k, exact.
Line = tuple[Fraction, Fraction]


def _min_envelope(lines: list[Line]) -> tuple[list[Fraction], list[Line]]:
    """Lower envelope ``min_k (m_k x + k_k)``: breakpoints and the line active between them.

    The hull is built on integers: every slope and intercept times one common denominator, so
    the crossing comparisons are integer cross-multiplications (exact, and no Fraction arithmetic
    in the inner loop).
    """
    scale = math.lcm(*(v.denominator for line in lines for v in line)) if lines else 1
    best: dict[int, int] = {}
    for m, k in lines:
        M, K = m.numerator * (scale // m.denominator), k.numerator * (scale // k.denominator)
        if M not in best or K < best[M]:
            best[M] = K
    stack: list[tuple[int, int]] = []
    for M in sorted(best, reverse=True):  # at x -> -inf the steepest line is lowest
        K = best[M]
        # pop the top while crossing(s2, new) <= crossing(s2, s1); crossings are (K' - K2)/(M2 - M')
        # with positive denominators because slopes decrease along the stack
        while len(stack) >= 2:
            (M2, K2), (M1, K1) = stack[-2], stack[-1]
            if (K - K2) * (M2 - M1) <= (K1 - K2) * (M2 - M):
                stack.pop()
            else:
                break
        stack.append((M, K))
    breaks = [Fraction(stack[j + 1][1] - stack[j][1], stack[j][0] - stack[j + 1][0]) for j in range(len(stack) - 1)]
    return breaks, [(Fraction(M, scale), Fraction(K, scale)) for M, K in stack]


def _active(env: tuple[list[Fraction], list[Line]], t: Fraction) -> Line:
    breaks, lines = env
    return lines[bisect.bisect_left(breaks, t)]


def _polygon_extent(U: np.ndarray, c: list[int]) -> Interval | None:
    """``x``-extent of ``{(x, y) : a x + b y <= c(u) for all u = (a, b)}``, or None when empty."""
    upper: list[Line] = []  # y <= m x + k
    neg_lower: list[Line] = []  # -y <= m x + k
    xlo: Fraction | None = None
    xhi: Fraction | None = None
    for (a, b), cu in zip(((int(r[0]), int(r[1])) for r in U), c):
        if b > 0:
            upper.append((Fraction(-a, b), Fraction(cu, b)))
        elif b < 0:
            neg_lower.append((Fraction(a, b), Fraction(-cu, b)))
        elif a > 0:
            t = Fraction(cu, a)
            xhi = t if xhi is None or t < xhi else xhi
        elif a < 0:
            t = Fraction(cu, a)
            xlo = t if xlo is None or t > xlo else xlo
    if xlo is not None and xhi is not None and xlo > xhi:
        return None
    if not upper or not neg_lower:  # the slice is never empty: only the vertical constraints bind
        return xlo, xhi
    # g(t) = min(upper)(t) + min(neg_lower)(t) = (top of the slice) - (bottom of the slice): concave.
    env_u, env_l = _min_envelope(upper), _min_envelope(neg_lower)
    cuts = sorted(set(env_u[0]) | set(env_l[0]))
    A: Fraction | None = None  # {g >= 0} = [A, B]; None for an infinite end
    B: Fraction | None = None
    feasible = False
    bounds: list[tuple[Fraction | None, Fraction | None]] = []
    if not cuts:
        bounds.append((None, None))
    else:
        bounds.append((None, cuts[0]))
        bounds.extend(zip(cuts[:-1], cuts[1:]))
        bounds.append((cuts[-1], None))
    for left, right in bounds:
        if left is None and right is None:
            probe = Fraction(0)
        elif left is None:
            probe = right - 1
        elif right is None:
            probe = left + 1
        else:
            probe = (left + right) / 2
        (m1, k1), (m2, k2) = _active(env_u, probe), _active(env_l, probe)
        slope, icpt = m1 + m2, k1 + k2
        lo, hi = left, right  # part of this piece where slope * t + icpt >= 0
        if slope > 0:
            root = -icpt / slope
            lo = root if left is None or root > left else left
        elif slope < 0:
            root = -icpt / slope
            hi = root if right is None or root < right else right
        elif icpt < 0:
            continue
        if lo is not None and hi is not None and lo > hi:
            continue
        if not feasible:
            A, B, feasible = lo, hi, True
        else:
            A = None if (A is None or lo is None) else min(A, lo)
            B = None if (B is None or hi is None) else max(B, hi)
    if not feasible:
        return None
    lo = A if xlo is None else (xlo if A is None else max(A, xlo))
    hi = B if xhi is None else (xhi if B is None else min(B, xhi))
    if lo is not None and hi is not None and lo > hi:
        return None
    return lo, hi
