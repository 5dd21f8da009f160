"""Exact Tukey depth: ``td(x; S)`` for a rational point ``x`` and an integer multiset ``S``.

Beimel, Moran, Nissim and Stemmer, "Private Center Points and Learning of Halfspaces" (COLT 2019),
Def 2.15: ``td(x; S)`` is the least number of points of ``S`` (with multiplicity) in a closed
halfspace containing ``x``. Claim 2.17: ``td(x) = min over u of min(#{u.y >= u.x}, #{u.y <= u.x})``;
Claim 2.18: ``td(x)`` is the size of the smallest sub-multiset ``A`` with ``x`` outside
``conv(S \\ A)``. Observation 2.16: for fixed ``x``, ``S -> td(x; S)`` has sensitivity 1 under
replace-one neighbours, which is what lets FindTukey use it as a quality function.

Spec ``bmns-center-points``, section 4 (A1) and section 7: the value must be *exact* (candidate points
lie on constraint hyperplanes, where float round-off flips counts), so every predicate here is an
integer sign. A rational ``x = p / q`` is handled by translating and scaling the data:
``u.y >= u.x  <=>  u.(q y - p) >= 0``, all integers.

* d = 1: two counts, ``O(n)``.
* d = 2: the angular sweep of Rousseeuw and Ruts (1996) around ``x``, ``O(n log n)`` with an exact
  angle order (half-plane, then the sign of a cross product).
* d >= 3: the finite-direction formula of the spec (A1 [ENG]) over ``U(S ∪ E)``,
  ``O(C(n + d + 1, d) * n)``; see :mod:`privpac.geometry.directions`.
"""

from __future__ import annotations

import functools

import numpy as np

from ._exact import as_integer_points, as_rational_point, exact_products, translate
from .directions import _complete, check_finite_direction_size

__all__ = ["tukey_depth", "tukey_depth_brute"]

# Directions per block when counting ``u.z >= 0`` for many u: bounds the (block, n) temporary.
_BLOCK_ELEMENTS = 1 << 20


def _read(x, S) -> tuple[np.ndarray, int, tuple]:
    arr, bound = as_integer_points(S, "S")
    return arr, bound, as_rational_point(x, arr.shape[1], "x")


def tukey_depth(x, S) -> int:
    """Exact Tukey depth of ``x`` with respect to the multiset ``S``.

    Parameters
    ----------
    x : sequence of int or fractions.Fraction, length d
        The query point (exact rationals; floats with a fractional part are refused).
    S : array-like of shape (n, d)
        Integer data points (numpy integer array, object array or lists of Python ints; integral
        floats are converted exactly), counted with multiplicity.

    Returns
    -------
    int
        ``td(x; S)`` in ``{0, ..., n}``: the least number of points of ``S`` in a closed halfspace
        containing ``x`` (Beimel, Moran, Nissim, Stemmer, COLT 2019, Def 2.15, Claim 2.17). Points
        equal to ``x`` lie in every such halfspace. ``td >= 1`` iff ``x`` is in ``conv(S)``.

    Raises
    ------
    privpac.errors.DataError
        ``S`` is empty, not 2-D, or holds non-integer values (or, for ``d >= 3``, is too large for the
        finite-direction formula: see :data:`privpac.geometry.FINITE_DIRECTION_LIMIT`).
    privpac.errors.InvalidParameterError
        ``x`` has the wrong length or a non-rational coordinate.

    Notes
    -----
    Exact integer predicates throughout (spec ``bmns-center-points`` sections 4/A1 and 7). Costs:
    ``d = 1``: ``O(n)``; ``d = 2``: ``O(n log n)`` angular sweep (Rousseeuw and Ruts 1996), vectorised:
    float angles propose the order, exact integer cross products certify it (about 0.2 ms at
    ``n = 10^3`` and 0.9 ms at ``n = 10^4``, ``benchmarks/center_points.py``); ``d >= 3``: the
    finite-direction formula of :func:`tukey_depth_brute`, ``O(C(n + d + 1, d) * n)``. Sensitivity 1
    in ``S`` for fixed ``x`` (Observation 2.16), because the value is exact.

    Examples
    --------
    >>> from fractions import Fraction
    >>> S = [[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]]
    >>> tukey_depth([1, 1], S), tukey_depth([Fraction(1, 2), 1], S), tukey_depth([3, 1], S)
    (3, 1, 0)
    """
    arr, bound, xq = _read(x, S)
    n, d = arr.shape
    Z = translate(arr, bound, xq)
    if d == 1:
        z = Z[:, 0]
        return int(min(np.count_nonzero(z >= 0), np.count_nonzero(z <= 0)))
    if d == 2:
        return _sweep_2d_vectorised(Z)
    check_finite_direction_size(n, d, "tukey_depth (d >= 3)")
    return _min_count(_complete(arr, bound), Z)


def tukey_depth_brute(x, S) -> int:
    """Reference Tukey depth by the finite-direction formula (small inputs only).

    ``td(x; S) = min over u in U(S ∪ E) of #{y in S : u.y >= u.x}``, with ``E = {0, e_1, ..., e_d}``
    and ``U(P)`` the ``±`` primitive integer normals of hyperplanes spanned by ``d`` affinely
    independent points of ``P`` (spec ``bmns-center-points`` section 4, A1 [ENG]).

    Parameters
    ----------
    x : sequence of int or fractions.Fraction, length d
        The query point.
    S : array-like of shape (n, d)
        Integer data points, counted with multiplicity.

    Returns
    -------
    int
        ``td(x; S)``, equal to :func:`tukey_depth` (Beimel, Moran, Nissim, Stemmer, COLT 2019,
        Def 2.15, Claims 2.17/2.18).

    Raises
    ------
    privpac.errors.DataError
        Bad ``S`` as in :func:`tukey_depth`, or ``C(n + d + 1, d) * n`` above
        :data:`privpac.geometry.FINITE_DIRECTION_LIMIT` (the message names the limit); checked
        from ``n`` and ``d`` before any work.

    Notes
    -----
    This is the reference implementation the tests compare the fast paths against; it is meant for
    small ``n``. Why it is exact: the minimum over fewer directions is ``>= td``; conversely
    ``U(S ∪ E)`` holds the facet normals of ``conv(S')`` for every sub-multiset ``S'``, plus normals
    cutting out ``aff(S')`` when ``S'`` is degenerate (``aff(S')`` extends to an affine basis with
    points of ``E``), and Claim 2.18 concludes. Without ``E`` it fails: ``S = {(0,1), (1,3), (2,5)}``,
    ``x = (1/2, 2)`` has depth 1 while ``U(S)`` alone gives 3.
    Cost: ``|U| <= 2 C(n + d + 1, d)`` integer normals (cofactor expansion, ``O(d * d!)`` each), then
    ``|U| * n`` integer dot-product signs, vectorised in blocks.
    """
    arr, bound, xq = _read(x, S)
    n, d = arr.shape
    check_finite_direction_size(n, d, "tukey_depth_brute")
    return _min_count(_complete(arr, bound), translate(arr, bound, xq))


def _min_count(U: np.ndarray, Z: np.ndarray) -> int:
    """``min over rows u of U of #{z in Z : u.z >= 0}`` (U symmetric, so one count suffices)."""
    n = Z.shape[0]
    best = n
    step = max(1, _BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, len(U), step):
        P = exact_products(U[start : start + step], Z)
        best = min(best, int((P >= 0).sum(axis=1).min()))
        if best == 0:
            break
    return best


def _half(v: tuple[int, int]) -> int:
    """0 for angles in [0, pi), 1 for [pi, 2 pi)."""
    a, b = v
    return 0 if b > 0 or (b == 0 and a > 0) else 1


def _angle_cmp(v: tuple[int, int], w: tuple[int, int]) -> int:
    """Exact comparison of the polar angles of two nonzero integer vectors (equal directions: 0)."""
    hv, hw = _half(v), _half(w)
    if hv != hw:
        return -1 if hv < hw else 1
    cross = v[0] * w[1] - v[1] * w[0]
    return -1 if cross > 0 else (1 if cross < 0 else 0)


def _in_open_closed_arc(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether direction ``b`` lies in the arc ``(angle(a), angle(a) + pi]`` (``b != a``)."""
    cross = a[0] * b[1] - a[1] * b[0]
    if cross != 0:
        return cross > 0
    return a[0] * b[0] + a[1] * b[1] < 0


#: The vectorised sweep multiplies coordinates in int64: below this bound every cross product is exact.
_SWEEP_INT64_BOUND = 2**30


def _halves(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`_half` for arrays: 0 for angles in [0, pi), 1 for [pi, 2 pi)."""
    return np.where((b > 0) | ((b == 0) & (a > 0)), 0, 1)


def _in_arc(ra: np.ndarray, rb: np.ndarray, wa: np.ndarray, wb: np.ndarray) -> np.ndarray:
    """:func:`_in_open_closed_arc` for arrays: direction ``w`` in ``(angle(r), angle(r) + pi]``."""
    cross = ra * wb - rb * wa
    return (cross > 0) | ((cross == 0) & (ra * wa + rb * wb < 0))


def _sweep_2d_vectorised(Z: np.ndarray) -> int:
    """:func:`_sweep_2d` with numpy: the same exact answer, ``O(n log n)`` without Python loops.

    Floating-point angles (``arctan2``) only *propose* the angular order and the end of each
    half-turn arc; both are then certified with exact integer predicates (cross and dot products
    in ``int64``, exact below :data:`_SWEEP_INT64_BOUND`): the order is checked on every adjacent
    pair (a sequence is sorted iff each adjacent pair is), and each arc end on its two neighbours
    (membership of the arc is monotone along the order). A proposal that fails its check is
    repaired by exact steps, or (a misordered sort) the exact Python sweep is used instead, so the
    value is always the exact depth.
    """
    if Z.dtype == object or (Z.size and int(np.abs(Z).max()) >= _SWEEP_INT64_BOUND):
        return _sweep_2d(Z)
    zero = (Z[:, 0] == 0) & (Z[:, 1] == 0)
    k0 = int(np.count_nonzero(zero))
    pts = Z[~zero]
    m = len(pts)
    if m == 0:
        return k0
    a, b = pts[:, 0], pts[:, 1]
    phi = np.arctan2(b, a)
    phi = np.where(phi < 0, phi + 2 * np.pi, phi)
    order = np.argsort(phi, kind="stable")
    a, b, phi = a[order], b[order], phi[order]
    h = _halves(a, b)
    cross = a[:-1] * b[1:] - b[:-1] * a[1:]
    if not np.all((h[:-1] < h[1:]) | ((h[:-1] == h[1:]) & (cross >= 0))):
        return _sweep_2d(Z)  # the float order is wrong somewhere: sort exactly
    same = (h[:-1] == h[1:]) & (cross == 0)
    starts = np.flatnonzero(np.concatenate([[True], ~same]))
    g = len(starts)
    weights = np.diff(np.append(starts, m))
    prefix = np.concatenate([[0], np.cumsum(np.concatenate([weights, weights]))])
    ra, rb, rphi = a[starts], b[starts], phi[starts]
    k = np.arange(g)
    # Proposed end of the arc (theta_k, theta_k + pi]: the first group index past it.
    end = np.searchsorted(np.concatenate([rphi, rphi + 2 * np.pi]), rphi + np.pi, side="right")
    end = np.clip(end, k + 1, k + g)
    last_in = (end == k + 1) | _in_arc(ra, rb, ra[(end - 1) % g], rb[(end - 1) % g])
    first_out = (end == k + g) | ~_in_arc(ra, rb, ra[end % g], rb[end % g])
    for j in np.flatnonzero(~(last_in & first_out)):  # rare: repair with exact steps
        rj = (int(ra[j]), int(rb[j]))
        e = int(end[j])
        while e > j + 1 and not _in_open_closed_arc(rj, (int(ra[(e - 1) % g]), int(rb[(e - 1) % g]))):
            e -= 1
        while e < j + g and _in_open_closed_arc(rj, (int(ra[e % g]), int(rb[e % g]))):
            e += 1
        end[j] = e
    c = prefix[end] - prefix[k + 1]
    return k0 + int(min(c.min(), (m - c).min()))


def _sweep_2d(Z: np.ndarray) -> int:
    """Depth of the origin w.r.t. integer points ``Z`` (translated so that ``x`` is the origin).

    Points at the origin lie in every halfplane (``k0``). For the others, a minimal closed halfplane
    can be rotated until no point lies on its boundary line; the count of the open halfplane with
    directions ``(phi, phi + pi)`` changes only when ``phi`` or ``phi + pi`` crosses a point's
    direction, so it suffices to take ``phi`` just after each direction ``theta_k``: the arc
    ``(theta_k, theta_k + pi]`` or its complement ``(theta_k - pi, theta_k]``.
    """
    pts = [(int(a), int(b)) for a, b in Z]
    k0 = sum(1 for p in pts if p == (0, 0))
    rest = sorted((p for p in pts if p != (0, 0)), key=functools.cmp_to_key(_angle_cmp))
    m = len(rest)
    if m == 0:
        return k0
    reps: list[tuple[int, int]] = []
    weights: list[int] = []
    for p in rest:
        if reps and _angle_cmp(reps[-1], p) == 0:
            weights[-1] += 1
        else:
            reps.append(p)
            weights.append(1)
    g = len(reps)
    prefix = [0]
    for w in weights + weights:
        prefix.append(prefix[-1] + w)
    best = m
    end = 0
    for k in range(g):
        end = max(end, k + 1)
        while end < k + g and _in_open_closed_arc(reps[k], reps[end % g]):
            end += 1
        c = prefix[end] - prefix[k + 1]
        best = min(best, c, m - c)
    return k0 + best
