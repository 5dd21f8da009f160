"""Exact linear programs in H-form: ``max c.x`` over ``{x : A x <= b}``, certified in rationals.

The depth regions of Beimel, Moran, Nissim, Stemmer ("Private Center Points and Learning of
Halfspaces", COLT 2019; spec ``bmns-center-points`` A2) are polytopes ``T(r) = {x : u.x <= c_r(u)}``,
and FindTukey's per-coordinate quality in dimension 3 needs their extent along a coordinate: a linear
program whose optimum is an interval end of a sensitivity-1 quality that feeds a private choice. So
it must be the *exact* optimum, never a floating-point approximation.

* :func:`maximize`, :func:`minimize`, :func:`coordinate_range`: ``max c.x`` over ``{x : A x <= b}``
  with an integer matrix ``A`` and rational ``b``, ``c``;
* :func:`nested_coordinate_ranges`: the ranges of one coordinate over polyhedra with fixed rows and
  falling right-hand sides (the regions ``T(r)``), each re-optimised from the previous basis;
* :func:`check_certificate`: an answer's certificate recomputed from scratch (the tests run it on
  every answer).

Each program goes through its dual (``M = A^T``, ``rhs = c``, ``cost = b``) to the exact standard-form
solver of :mod:`privpac.geometry.standard_lp` (a HiGHS basis certified in rationals, else an exact
simplex). Nothing uncertified is returned: every ``"optimal"`` answer carries its exact primal point
and its exact dual vector. The V-form (slices of point hulls, the KMST levels) is
:mod:`privpac.geometry.hull_lp`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InvalidParameterError
from ._exact import INT64_SAFE, as_integer_points, max_abs
from .standard_lp import _phase, _rationals, _scaled, _standard

__all__ = [
    "LPResult",
    "check_certificate",
    "coordinate_range",
    "maximize",
    "minimize",
    "nested_coordinate_ranges",
]


@dataclass(frozen=True)
class LPResult:
    """The exact answer of an H-form program ``max c.x`` (or ``min``) over ``{x : A x <= b}``.

    Attributes
    ----------
    status : {"optimal", "infeasible", "unbounded"}
    value : Fraction or None
        The optimum (``None`` unless optimal).
    point : tuple of Fraction or None
        An optimal point ``x`` (``A x <= b``, ``c.x = value``).
    dual : tuple of Fraction or None
        ``y >= 0`` with ``A^T y = c`` and ``b.y = value`` (for a maximisation; for a minimisation
        ``A^T y = -c`` and ``b.y = -value``): the certificate that nothing is larger.
    method : str
        ``"highs+certificate"`` (the float basis was certified as it was), ``"exact simplex from
        highs basis"`` or ``"exact simplex"`` (phase 1 in rationals).
    """

    status: str
    value: Fraction | None
    point: tuple[Fraction, ...] | None
    dual: tuple[Fraction, ...] | None
    method: str


def _h_form(c, A, b) -> tuple[np.ndarray, list[Fraction], list[Fraction]]:
    A_arr, _ = as_integer_points(A, "A")
    m, n = A_arr.shape
    c_f = _rationals(c, "c", n)
    b_f = _rationals(b, "b", m)
    return A_arr, c_f, b_f


def _maximize(c_f: list[Fraction], A: np.ndarray, b_f: list[Fraction], use_highs: bool = True) -> LPResult:
    m, n = A.shape
    dc, C = _scaled(c_f)
    db, Bv = _scaled(b_f)
    cost = np.asarray(Bv, dtype=object)
    cost = cost.astype(np.int64) if max_abs(cost) < INT64_SAFE else cost
    MT = np.ascontiguousarray(A.T)
    sf = _standard(MT, C, cost, use_highs)  # min (db b).y s.t. A^T y = dc c
    if sf.status == "optimal":
        value = sf.value / (dc * db)
        point = tuple(p / db for p in sf.pi)  # A x <= b with x = pi / db
        dual = [Fraction(0)] * m
        for j, v in sf.y.items():
            dual[j] = v / dc
        return LPResult("optimal", value, point, tuple(dual), sf.method)
    if sf.status == "unbounded":  # the dual is unbounded: the primal is infeasible
        return LPResult("infeasible", None, None, None, sf.method)
    # the dual is infeasible: the primal is infeasible or unbounded; decide feasibility (c = 0)
    feas = _standard(MT, [0] * n, cost, use_highs)
    if feas.status == "optimal":
        return LPResult("unbounded", None, None, None, feas.method)
    return LPResult("infeasible", None, None, None, feas.method)


def maximize(c, A, b, *, use_highs: bool = True) -> LPResult:
    """``max c.x`` over ``{x : A x <= b}``, exactly.

    Parameters
    ----------
    c : sequence of int or Fraction, length n
    A : array-like of shape (m, n)
        Integer rows.
    b : sequence of int or Fraction, length m
    use_highs : bool, default=True
        Start from HiGHS's floating-point basis (certified exactly); ``False`` runs the exact
        simplex alone (the tests compare both).

    Returns
    -------
    LPResult
        ``status`` ``"optimal"`` (with the exact value, point and dual certificate),
        ``"infeasible"`` or ``"unbounded"``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> r = maximize([1, 1], [[2, 1], [1, 3], [-1, 0], [0, -1]], [4, 6, 0, 0])
    >>> r.status, r.value, r.point
    ('optimal', Fraction(14, 5), (Fraction(6, 5), Fraction(8, 5)))
    """
    A_arr, c_f, b_f = _h_form(c, A, b)
    return _maximize(c_f, A_arr, b_f, use_highs)


def minimize(c, A, b, *, use_highs: bool = True) -> LPResult:
    """``min c.x`` over ``{x : A x <= b}``, exactly (:func:`maximize` of ``-c``, value negated)."""
    A_arr, c_f, b_f = _h_form(c, A, b)
    r = _maximize([-v for v in c_f], A_arr, b_f, use_highs)
    if r.status != "optimal":
        return r
    return LPResult("optimal", -r.value, r.point, r.dual, r.method)


def coordinate_range(A, b, i: int, *, use_highs: bool = True):
    """The exact range ``(lo, hi)`` of ``x_i`` (0-based ``i``) over ``{x : A x <= b}``.

    Returns ``None`` when the polyhedron is empty; an end is ``None`` when ``x_i`` is unbounded
    that way.
    """
    A_arr, _, b_f = _h_form([0] * (np.shape(A)[1] if np.ndim(A) == 2 else 1), A, b)
    n = A_arr.shape[1]
    if not 0 <= i < n:
        raise InvalidParameterError(f"i must be a coordinate index in [0, {n - 1}], got {i}")
    e = [Fraction(int(j == i)) for j in range(n)]
    hi = _maximize(e, A_arr, b_f, use_highs)
    if hi.status == "infeasible":
        return None
    lo = _maximize([-v for v in e], A_arr, b_f, use_highs)
    return (None if lo.status == "unbounded" else -lo.value, None if hi.status == "unbounded" else hi.value)


def _int_vector(b) -> np.ndarray:
    arr = np.asarray(b)
    if arr.dtype == object:
        return arr if max_abs(arr) >= INT64_SAFE else arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise InvalidParameterError(f"right-hand sides must be integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def nested_coordinate_ranges(A, rhs_levels, i: int, *, use_highs: bool = True) -> list:
    """The ranges of ``x_i`` (0-based) over ``{x : A x <= b_r}`` for a sequence of integer ``b_r``.

    Made for nested polyhedra read level by level (the depth regions ``T(r)`` of spec
    ``bmns-center-points`` A2, whose right-hand sides ``c_r(u)`` fall as ``r`` grows): the rows
    stay, only the right-hand side changes, so in the dual standard form only the *cost* changes and
    the previous optimal basis stays feasible. Each level is re-optimised from it by the exact
    simplex (the first level from HiGHS's basis, certified), and every answer passes the exact
    optimality test over all rows.

    Returns the list of ``(lo, hi)`` (``None`` for an unbounded end) up to, and not including, the
    first empty polyhedron.
    """
    A_arr, _ = as_integer_points(A, "A")
    K, n = A_arr.shape
    if not 0 <= i < n:
        raise InvalidParameterError(f"i must be a coordinate index in [0, {n - 1}], got {i}")
    MT = np.ascontiguousarray(A_arr.T)
    out: list = []
    bases: dict[int, list[int] | None] = {1: None, -1: None}
    for b in rhs_levels:
        cost = _int_vector(b)
        if cost.shape != (K,):
            raise InvalidParameterError(f"each right-hand side must have {K} entries, got shape {cost.shape}")
        ends: dict[int, Fraction | None] = {}
        for sign in (1, -1):
            rhs = [sign * int(j == i) for j in range(n)]
            basis = bases[sign]
            value: Fraction | None
            if basis is not None:
                status, basis, yB, _, _ = _phase(MT, rhs, cost, basis, K)
                if status != "optimal":  # the dual is unbounded: the polyhedron is empty
                    return out
                value = sum((Fraction(int(cost[j])) * v for j, v in zip(basis, yB)), Fraction(0))
            else:
                sf = _standard(MT, rhs, cost, use_highs)
                if sf.status == "unbounded":
                    return out
                if sf.status == "infeasible":  # x_i unbounded this way, or the polyhedron empty
                    feas = _standard(MT, [0] * n, cost, use_highs)
                    if feas.status != "optimal":
                        return out
                    value = None
                else:
                    value = sf.value
                basis = sf.basis
            bases[sign] = basis
            ends[sign] = value
        hi = ends[1]
        lo = None if ends[-1] is None else -ends[-1]
        out.append((lo, hi))
    return out


def check_certificate(result: LPResult, c, A, b, *, sense: str = "max") -> None:
    """Recompute an optimal answer's certificate from scratch; :class:`AssertionError` if it fails.

    Checks ``A x <= b``, ``y >= 0``, ``A^T y = s c`` and ``c.x = value = s b.y`` exactly
    (``s = 1`` for ``sense="max"``, ``-1`` for ``"min"``).
    """
    A_arr, c_f, b_f = _h_form(c, A, b)
    if result.status != "optimal":
        raise AssertionError(f"no certificate for status {result.status}")
    s = 1 if sense == "max" else -1
    x, y = result.point, result.dual
    rows = [[int(v) for v in row] for row in A_arr]
    for j, row in enumerate(rows):
        lhs = sum((a * xi for a, xi in zip(row, x)), Fraction(0))
        if lhs > b_f[j]:
            raise AssertionError(f"row {j} violated: {lhs} > {b_f[j]}")
    if any(v < 0 for v in y):
        raise AssertionError("negative dual entry")
    for k in range(A_arr.shape[1]):
        if sum((rows[j][k] * y[j] for j in range(len(rows))), Fraction(0)) != s * c_f[k]:
            raise AssertionError(f"A^T y != c in coordinate {k}")
    if sum((ci * xi for ci, xi in zip(c_f, x)), Fraction(0)) != result.value:
        raise AssertionError("c.x differs from the value")
    if s * sum((bj * yj for bj, yj in zip(b_f, y)), Fraction(0)) != result.value:
        raise AssertionError("b.y differs from the value")
