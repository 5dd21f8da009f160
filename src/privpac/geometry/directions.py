"""Finite direction sets that make Tukey depth exact: the primitive normals ``U(P)``.

Beimel, Moran, Nissim and Stemmer (COLT 2019), Def 2.15 and Claim 2.17, define Tukey depth as a
minimum over *all* directions ``u in R^d``. The spec ``bmns-center-points``, section 4 (A1, an
engineering addition), shows that finitely many integer directions suffice:

    td(x; S) = min over u in U(S ∪ E) of #{y in S : u.y >= u.x},

where ``E = {0, e_1, ..., e_d}`` and ``U(P)`` is the set of ``±`` primitive integer normals of the
hyperplanes spanned by ``d`` affinely independent points of ``P``. ``E`` matters when ``S`` is
degenerate: for the collinear ``S = {(0,1), (1,3), (2,5)}`` and ``x = (1/2, 2)``, ``U(S)`` alone
gives 3 while the depth is 1.

Normals are computed exactly: the generalised cross product of the ``d - 1`` edge vectors by integer
cofactor expansion (``int64`` when the Hadamard-type bound ``(d-1)! (2B)^(d-1)`` is below ``2**62``,
Python ints otherwise), then divided by the gcd of their entries.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import DataError
from ._exact import INT64_SAFE, as_integer_points

__all__ = ["FINITE_DIRECTION_LIMIT", "complete_directions", "hyperplane_normals", "n_hyperplanes"]

#: Largest ``C(|P|, d) * n`` (hyperplanes times points) the finite-direction computations accept.
FINITE_DIRECTION_LIMIT = 20_000_000


def n_hyperplanes(n_points: int, d: int) -> int:
    """``C(n_points, d)``: the number of ``d``-subsets whose spans ``U(P)`` enumerates."""
    return math.comb(n_points, d)


def check_finite_direction_size(n: int, d: int, caller: str) -> None:
    """Refuse, before any work, inputs whose ``C(n + d + 1, d) * n`` exceeds the limit.

    The size depends on ``n`` and ``d`` only (public under replace-one neighbours).
    """
    work = n_hyperplanes(n + d + 1, d) * max(n, 1)
    if work > FINITE_DIRECTION_LIMIT:
        raise DataError(
            f"{caller} enumerates C(n + d + 1, d) = {n_hyperplanes(n + d + 1, d)} hyperplanes and counts n = {n} "
            f"points against each: {work} steps, above the limit FINITE_DIRECTION_LIMIT = {FINITE_DIRECTION_LIMIT} "
            f"(n = {n}, d = {d}). It is meant for small inputs; in d = 1 or 2 use tukey_depth (O(n log n)), "
            "or use directional_depth with a public direction set"
        )


def _det(M: np.ndarray) -> np.ndarray:
    """Determinants of a stack ``(K, k, k)`` of integer matrices by cofactor expansion (exact)."""
    k = M.shape[1]
    if k == 0:
        return np.ones(M.shape[0], dtype=M.dtype)
    if k == 1:
        return M[:, 0, 0].copy()
    if k == 2:
        return M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
    total = None
    rest = M[:, 1:, :]
    for j in range(k):
        term = M[:, 0, j] * _det(np.delete(rest, j, axis=2))
        if total is None:
            total = term
        elif j % 2:
            total = total - term
        else:
            total = total + term
    return total


def _primitive_rows(N: np.ndarray) -> np.ndarray:
    """Nonzero rows divided by their gcd, sign-normalised (first nonzero entry positive), unique."""
    if N.dtype == object:
        seen = set()
        for row in N:
            vals = [int(v) for v in row]
            g = 0
            for v in vals:
                g = math.gcd(g, v)
            if g == 0:
                continue
            vals = [v // g for v in vals]
            first = next(v for v in vals if v != 0)
            if first < 0:
                vals = [-v for v in vals]
            seen.add(tuple(vals))
        out = np.empty((len(seen), N.shape[1]), dtype=object)
        for i, row in enumerate(sorted(seen)):
            out[i] = row
        return _shrink(out)
    g = np.gcd.reduce(N, axis=1)
    keep = g != 0
    N, g = N[keep], g[keep]
    N = N // g[:, None]
    first = N[np.arange(len(N)), np.argmax(N != 0, axis=1)] if len(N) else np.zeros(0, dtype=N.dtype)
    N = np.where((first < 0)[:, None], -N, N)
    return np.unique(N, axis=0)


def _shrink(A: np.ndarray) -> np.ndarray:
    """An object array of small Python ints as int64."""
    if A.size == 0 or max(abs(int(v)) for v in A.ravel()) < INT64_SAFE:
        return A.astype(np.int64)
    return A


def hyperplane_normals(P) -> np.ndarray:
    """``U(P)``: the ``±`` primitive integer normals of hyperplanes spanned by points of ``P``.

    Parameters
    ----------
    P : array-like of shape (m, d)
        Integer points (repeated points are ignored: only the point set matters).

    Returns
    -------
    numpy.ndarray of shape (k, d)
        Distinct primitive integer vectors, closed under negation (``u`` and ``-u`` both appear),
        one pair per hyperplane through ``d`` affinely independent points of ``P``; ``int64`` when
        the entries fit, else Python ints. Empty (``k = 0``) when ``P`` spans no hyperplane. For
        ``d = 1`` every point is a hyperplane with normals ``±1``.

    Notes
    -----
    Spec ``bmns-center-points`` section 4 (A1, finite-direction formula); the paper's depth is
    Def 2.15 / Claim 2.17 of Beimel, Moran, Nissim and Stemmer (COLT 2019). Cost:
    ``C(m', d)`` normals for ``m'`` distinct points, each ``O(d * d!)`` integer operations.
    Refuses ``C(m', d) * m'`` above :data:`FINITE_DIRECTION_LIMIT`.
    """
    arr, bound = as_integer_points(P, "P")
    return _normals(arr, bound)


def _normals(arr: np.ndarray, bound: int) -> np.ndarray:
    d = arr.shape[1]
    pts = _distinct(arr)
    m = len(pts)
    if m * n_hyperplanes(m, d) > FINITE_DIRECTION_LIMIT:
        raise DataError(
            f"hyperplane_normals would enumerate C({m}, {d}) = {n_hyperplanes(m, d)} hyperplanes of {m} points: "
            f"above the limit FINITE_DIRECTION_LIMIT = {FINITE_DIRECTION_LIMIT}"
        )
    if d == 1:
        return np.array([[1], [-1]], dtype=np.int64)
    if m < d:
        return np.zeros((0, d), dtype=np.int64)
    # Edge vectors have entries <= 2B; each cofactor is a (d-1)x(d-1) determinant <= (d-1)! (2B)^(d-1).
    det_bound = math.factorial(d - 1) * (2 * bound) ** (d - 1)
    dtype = np.int64 if det_bound < INT64_SAFE and pts.dtype != object else object
    pts = pts.astype(dtype)
    idx = np.array(list(itertools.combinations(range(m), d)), dtype=np.intp)
    base = pts[idx[:, 0]]
    V = pts[idx[:, 1:]] - base[:, None, :]  # (K, d-1, d)
    cols = []
    for j in range(d):
        c = _det(np.delete(V, j, axis=2))
        cols.append(-c if j % 2 else c)
    N = np.stack(cols, axis=1)
    U = _primitive_rows(N)
    return np.concatenate([U, -U], axis=0) if len(U) else U


def _distinct(arr: np.ndarray) -> np.ndarray:
    if arr.dtype == object:
        rows = sorted({tuple(int(v) for v in row) for row in arr})
        out = np.empty((len(rows), arr.shape[1]), dtype=object)
        for i, row in enumerate(rows):
            out[i] = row
        return out
    return np.unique(arr, axis=0)


def standard_simplex(d: int) -> np.ndarray:
    """``E = {0, e_1, ..., e_d}``: public and affinely independent."""
    return np.vstack([np.zeros((1, d), dtype=np.int64), np.eye(d, dtype=np.int64)])


def complete_directions(S) -> np.ndarray:
    """``U(S ∪ E)``: a finite direction set on which Tukey depth is exact (spec A1 [ENG]).

    Parameters
    ----------
    S : array-like of shape (n, d)
        Integer data points (a multiset; only the distinct points matter).

    Returns
    -------
    numpy.ndarray of shape (k, d)
        The ``±`` primitive integer normals of the hyperplanes spanned by ``d`` affinely independent
        points of ``S ∪ E``, ``E = {0, e_1, ..., e_d}``; ``k <= 2 C(n + d + 1, d)``.

    Notes
    -----
    For every ``x``, ``td(x; S) = min over u in U(S ∪ E) of #{y in S : u.y >= u.x}`` (spec
    ``bmns-center-points`` section 4, A1; the depth is Def 2.15 / Claim 2.17 of Beimel, Moran, Nissim,
    Stemmer, COLT 2019; the argument goes through Claim 2.18). **The set depends on S**: it is not a
    public direction set. Using it in a private quality function is fine only because the depth it
    yields is exact (and so has sensitivity 1); never use a *subset* of it as a public ``U``.
    Cost ``O(C(n + d + 1, d) * d * d!)``; refuses ``C(n + d + 1, d) * n`` above
    :data:`FINITE_DIRECTION_LIMIT`.
    """
    arr, bound = as_integer_points(S, "S")
    n, d = arr.shape
    check_finite_direction_size(n, d, "complete_directions")
    return _complete(arr, bound)


def _complete(arr: np.ndarray, bound: int) -> np.ndarray:
    d = arr.shape[1]
    E = standard_simplex(d)
    if arr.dtype == object:
        P = np.concatenate([arr, E.astype(object)], axis=0)
    else:
        P = np.concatenate([arr, E], axis=0)
    return _normals(P, max(bound, 1))
