"""Exact depth of an integer linear system ``A x >= b``.

Kaplan, Mansour, Stemmer, Tsfadia, "Private learning of halfspaces: simplifying the construction and
reducing the sample complexity" (NeurIPS 2020); spec ``kmst-halfspaces`` sections 0, 3.7 (item 4) and
6.5. A linear-constraint dataset is ``S = ((a_l, w_l))_{l=1..m}``; here the rows of ``A`` are the
``a_l`` and ``b`` holds the ``w_l``.

* :func:`depth`: ``depth_S(x) = #{l : <a_l, x> >= w_l}`` (spec section 0). Points on a hyperplane
  satisfy its constraint; a row ``a_l = 0`` counts iff ``w_l <= 0``.
* :func:`candidate_depths`: the same count at every point of a public candidate set (spec 6.5
  option 1).
* :func:`bounding_box_radius`: the spec's box radius ``R = ceil(D^(D/2)) X^D``.

Every count is an exact integer sign: data are integers, query points rationals (Fractions),
points are kept as integer homogeneous coordinates ``P / q`` (``q > 0``). Products are taken in
float64 only when a bound checked up front keeps every partial sum an integer below ``2**53`` (exact
in any order), in ``int64`` when it stays below ``2**62`` (as in :mod:`privpac.geometry._exact`),
with Python integers otherwise: no rounded float decides a count.

The levels built on these counts live beside: the convexified depth ``cdepth`` of Def 3.1 and its
level sets for ``D <= 2`` in :mod:`privpac.geometry.convexified`; the levels of a finite point set
(the arrangement's vertices for ``D = 2, 3``, or a public candidate set) answered per prefix in
:mod:`privpac.geometry.point_levels`.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import DataError
from ..validation import check_int
from ._exact import (
    FLOAT64_EXACT,
    INT64_SAFE,
    as_integer_points,
    as_rational_point,
    common_denominator,
    exact_products,
    max_abs,
)

__all__ = [
    "bounding_box_radius",
    "candidate_depths",
    "depth",
]


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
