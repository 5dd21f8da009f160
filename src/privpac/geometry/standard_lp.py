"""Exact standard-form linear programs: a floating-point HiGHS basis certified in rationals.

The solver behind :mod:`privpac.geometry.exact_lp` (H-form) and :mod:`privpac.geometry.hull_lp`
(V-form): the extents of the depth regions of Beimel, Moran, Nissim, Stemmer (COLT 2019; spec
``bmns-center-points`` A2) and of the level hulls of Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020;
spec ``kmst-halfspaces`` 6.2 step 4 and 6.4) are interval ends of sensitivity-1 qualities that feed a
private choice, so every optimum here is *exact*, never a floating-point approximation.

Method
------
Every form is reduced to one standard form ``min cost.y  s.t.  M y = rhs, y >= 0`` with integer data
(:func:`_standard`). Then:

1. HiGHS (``scipy.optimize.linprog(method="highs")``) solves it in floating point; a basis
   (``rank M`` linearly independent columns, the ones HiGHS uses first) is read off its answer.
2. The basis is **certified in exact rationals**: ``y_B = M_B^-1 rhs >= 0`` (primal feasibility)
   and the reduced cost ``cost_j - pi.M_j >= 0`` of *every* column, ``pi = M_B^-T cost_B`` (dual
   feasibility), in Fractions and exact integer products. A basis that passes is optimal: weak
   duality makes ``cost_B.y_B = rhs.pi`` the exact optimum.
3. Otherwise (a float answer that is wrong, e.g. for integers beyond 2**53, a basis that is not
   feasible, HiGHS reporting infeasible or unbounded or failing) an **exact primal simplex** in
   Fractions with Bland's rule (no cycling on degenerate systems) finishes the job: from the float
   basis when that basis is primal feasible, else from a phase-1 start with artificial columns
   (redundant rows of ``M`` are detected exactly and removed). Infeasible and unbounded are decided
   by this exact method only.

For a huge number of columns (the KMST levels: millions of arrangement vertices),
:func:`minimize_over_columns` runs the steps above on a small restricted column set and certifies
the answer by pricing *every* column exactly (column generation).

Costs: each exact pivot or certificate is one ``n x m`` integer product (``n`` the number of rows
of the standard form, at most 4 here) and ``O(n^3)`` Fraction work; ``int64`` when a bound checked
up front keeps products below ``2**62``, Python integers otherwise.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InvalidParameterError
from ._exact import INT64_SAFE, max_abs

__all__ = [
    "ColumnGeneration",
    "minimize_over_columns",
]

#: Largest number of exact pivots before :class:`RuntimeError` (Bland's rule always terminates;
#: this only guards against a bug turning into an endless loop).
MAX_PIVOTS = 100_000


# ---------------------------------------------------------------------------------------------
# Exact small linear algebra
# ---------------------------------------------------------------------------------------------


def _solve(mat: list[list[Fraction]], vec: list[Fraction]) -> list[Fraction] | None:
    """``mat x = vec`` for a square Fraction matrix by Gaussian elimination; None when singular."""
    n = len(mat)
    a = [list(row) + [v] for row, v in zip(mat, vec)]
    for col in range(n):
        piv = next((r for r in range(col, n) if a[r][col] != 0), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        inv = 1 / a[col][col]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col] * inv
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[r][n] / a[r][r] for r in range(n)]


def _scaled(v: list[Fraction]) -> tuple[int, list[int]]:
    """``(den, ints)`` with ``v = ints / den``, ``den > 0``."""
    den = 1
    for x in v:
        den = math.lcm(den, x.denominator)
    return den, [int(x * den) for x in v]


def _row_times(w: list[int], M: np.ndarray) -> np.ndarray:
    """``w @ M`` exactly (``int64`` when safe, else Python ints)."""
    bound = len(w) * max((abs(x) for x in w), default=0) * max_abs(M)
    if M.dtype != object and bound < INT64_SAFE:
        return np.asarray(w, dtype=np.int64) @ M
    return np.asarray(w, dtype=object) @ M.astype(object)


def _axpy(a: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``a x - y`` exactly."""
    x = np.asarray(x)
    if x.dtype != object and y.dtype != object and abs(a) * max_abs(x) + max_abs(y) < INT64_SAFE:
        return a * x - y
    return a * x.astype(object) - y.astype(object)


# ---------------------------------------------------------------------------------------------
# The standard form min cost.y, M y = rhs, y >= 0 (integer data)
# ---------------------------------------------------------------------------------------------


@dataclass
class _SF:
    status: str  # optimal / infeasible / unbounded
    value: Fraction | None = None
    y: dict[int, Fraction] | None = None  # basic values (nonzero or zero), by column
    pi: list[Fraction] | None = None  # multipliers, one per original row (0 on removed rows)
    method: str = ""
    basis: list[int] | None = None  # the optimal basis, when no row of M was removed (full row rank)


class _FloatFilter:
    """The marker that reduced costs are filtered in floats (:func:`_negative_columns`), block by block.

    No float copy of the columns is kept: each block of :data:`_PRICE_BLOCK` columns is converted when
    it is priced, so pricing millions of vertices (FindDeepPoint's ``D = 3`` levels) needs a few
    hundred MB of temporaries, not a float copy of every column.
    """


def _float_view(M: np.ndarray, cost: np.ndarray):
    """The float filter for ``M`` and ``cost`` (the columns are converted block by block when priced)."""
    return _FloatFilter()


#: Relative slack of the floating-point filter on reduced costs. A float dot product of ``n <= 4``
#: terms errs by at most about ``n 2**-53`` of the sum of the absolute terms; the filter only trusts
#: signs beyond ``1e-9`` of that sum and checks every other column exactly.
_FILTER_SLACK = 1e-9
#: Columns converted to floats at a time by :func:`_negative_columns` (about 16 MB per row).
_PRICE_BLOCK = 1 << 21


def _floats(v: np.ndarray) -> np.ndarray | None:
    """``v`` as float64, or None when an entry overflows a float."""
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            f = np.asarray(v, dtype=float)
    except OverflowError:
        return None
    return f if np.all(np.isfinite(f)) else None


def _float_reduced(M, cost, pi: list[Fraction]) -> np.ndarray | None:
    """``cost - pi.M`` in floats (ordering only, never a sign), or None when a value exceeds floats."""
    try:
        pf = np.asarray([float(v) for v in pi])
    except OverflowError:
        return None
    Mf, cf = _floats(M), _floats(cost)
    if Mf is None or cf is None:
        return None
    red = cf - pf @ Mf
    return red if np.all(np.isfinite(red)) else None


def _negative_columns(M, cost, pi: list[Fraction], view, allowed: int) -> np.ndarray:
    """The sorted indices ``j < allowed`` whose reduced cost ``cost_j - pi.M_j`` is negative, exactly.

    With ``view`` (:func:`_float_view`), a floating-point filter decides the columns whose reduced cost
    is far from 0 (relative to the size of its terms), block by block of :data:`_PRICE_BLOCK`
    columns; the rest, and every block whose values exceed floats (or everything without ``view``),
    are computed in exact integers (``den * reduced cost``).
    """
    if view is not None and allowed > _PRICE_BLOCK:
        parts = [
            lo + _negative_columns(M[:, lo : lo + _PRICE_BLOCK], cost[lo : lo + _PRICE_BLOCK], pi, view,
                                   min(_PRICE_BLOCK, allowed - lo))
            for lo in range(0, allowed, _PRICE_BLOCK)
        ]  # fmt: skip
        return np.concatenate(parts)
    if view is not None:
        try:
            pf = np.asarray([float(v) for v in pi])
        except OverflowError:
            pf = None
        # underflow would turn a relative error bound into an absolute one: use the exact path then
        if pf is not None and any(v != 0 and abs(f) < 1e-290 for v, f in zip(pi, pf)):
            pf = None
        Mf = _floats(M[:, :allowed]) if pf is not None and np.all(np.isfinite(pf)) else None
        cf = _floats(cost[:allowed]) if Mf is not None else None
        if cf is not None:
            red = cf - pf @ Mf
            slack = _FILTER_SLACK * (np.abs(cf) + np.abs(pf) @ np.abs(Mf))
            if np.all(np.isfinite(red)) and np.all(np.isfinite(slack)):
                sure = red < -slack
                unsure = np.flatnonzero(np.abs(red) <= slack)
                if len(unsure):
                    den, Pi = _scaled(pi)
                    exact = _axpy(den, cost[unsure], _row_times(Pi, M[:, unsure]))
                    sure[unsure[exact < 0]] = True
                return np.flatnonzero(sure)
    den, Pi = _scaled(pi)
    red = _axpy(den, cost[:allowed], _row_times(Pi, M[:, :allowed]))
    return np.flatnonzero(red < 0)


def _phase(
    M: np.ndarray, rhs: list[int], cost: np.ndarray, basis: list[int], allowed: int, dantzig: int = 0
) -> tuple[str, list[int], list[Fraction], list[Fraction], int]:
    """Primal simplex with Bland's rule from a primal-feasible basis.

    Columns ``>= allowed`` never enter. Returns ``(status, basis, y_B, pi, pivots)``. The reduced
    costs are signed exactly (:func:`_negative_columns`), so the rule and the final optimality test
    are exact. The first ``dantzig`` pivots take the most negative reduced cost (in floats, among
    the exactly negative columns) instead, which needs far fewer pivots on many columns; Bland's
    rule after them still guarantees termination.
    """
    n = M.shape[0]
    rhs_f = [Fraction(v) for v in rhs]
    view = _float_view(M[:, :allowed], cost[:allowed])
    pivots = 0
    while True:
        MB = [[Fraction(int(M[r, j])) for j in basis] for r in range(n)]
        yB = _solve(MB, rhs_f)
        MBt = [[MB[c][r] for c in range(n)] for r in range(n)]
        pi = _solve(MBt, [Fraction(int(cost[j])) for j in basis])
        if yB is None or pi is None:  # pragma: no cover - pivots keep the basis nonsingular
            raise RuntimeError("exact simplex: singular basis")
        neg = _negative_columns(M[:, :allowed], cost[:allowed], pi, view, allowed)
        if len(neg) == 0:
            return "optimal", basis, yB, pi, pivots
        j = int(neg[0])  # Bland: the smallest improving column
        if pivots < dantzig and view is not None and len(neg) > 1:
            red = _float_reduced(M[:, neg], cost[neg], pi)
            if red is not None:
                j = int(neg[int(np.argmin(red))])
        dcol = _solve(MB, [Fraction(int(M[r, j])) for r in range(n)])
        best = None
        for p in range(n):
            if dcol[p] > 0:
                ratio = yB[p] / dcol[p]
                if best is None or ratio < best[0] or (ratio == best[0] and basis[p] < basis[best[1]]):
                    best = (ratio, p)
        if best is None:
            return "unbounded", basis, yB, pi, pivots
        basis = list(basis)
        basis[best[1]] = j
        pivots += 1
        if pivots > MAX_PIVOTS:  # pragma: no cover
            raise RuntimeError(f"exact simplex: more than {MAX_PIVOTS} pivots")


def _highs_basis(M: np.ndarray, rhs: list[int], cost: np.ndarray) -> list[int] | None:
    """A basis guess from a floating-point HiGHS solve (None when HiGHS gives none)."""
    from scipy.optimize import linprog

    n, m = M.shape
    try:
        Mf = np.asarray(M, dtype=float)
        cf = np.asarray(cost, dtype=float)
        rf = np.asarray(rhs, dtype=float)
    except OverflowError:
        return None
    if not (np.all(np.isfinite(Mf)) and np.all(np.isfinite(cf)) and np.all(np.isfinite(rf))):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = linprog(cf, A_eq=Mf, b_eq=rf, bounds=(0, None), method="highs")
        except (ValueError, np.linalg.LinAlgError):  # pragma: no cover
            return None
    if res.status != 0 or res.x is None:
        return None
    y = res.x
    pi = getattr(res.eqlin, "marginals", None)
    red = cf - Mf.T @ pi if pi is not None else np.zeros(m)
    order = np.lexsort((red, -y))  # largest y first, then smallest reduced cost
    chosen: list[int] = []
    for j in order[: max(4 * n, 50)]:
        trial = Mf[:, chosen + [int(j)]]
        if np.linalg.matrix_rank(trial) == len(chosen) + 1:
            chosen.append(int(j))
            if len(chosen) == n:
                return chosen
    return None


def _standard(M: np.ndarray, rhs: list[int], cost: np.ndarray, use_highs: bool = True, dantzig: int = 0) -> _SF:
    """``min cost.y  s.t.  M y = rhs, y >= 0`` exactly (module docstring); ``dantzig`` as in :func:`_phase`."""
    n, m = M.shape
    # 1. the float basis, certified (or the start of an exact phase 2)
    if use_highs and m >= n:
        guess = _highs_basis(M, rhs, cost)
        if guess is not None:
            MB = [[Fraction(int(M[r, j])) for j in guess] for r in range(n)]
            yB = _solve(MB, [Fraction(v) for v in rhs])
            if yB is not None and all(v >= 0 for v in yB):
                status, basis, yB, pi, pivots = _phase(M, rhs, cost, guess, m, dantzig)
                method = "highs+certificate" if pivots == 0 else "exact simplex from highs basis"
                if status == "optimal":
                    value = sum((Fraction(int(cost[j])) * v for j, v in zip(basis, yB)), Fraction(0))
                    return _SF("optimal", value, dict(zip(basis, yB)), pi, method, list(basis))
                return _SF("unbounded", method=method)
    # 2. exact phase 1 with artificial columns m .. m + n - 1
    signs = [1 if v >= 0 else -1 for v in rhs]
    S = np.asarray(signs, dtype=np.int64 if M.dtype != object else object)[:, None]
    M1 = M * S
    rhs1 = [abs(v) for v in rhs]
    eye = np.eye(n, dtype=M1.dtype)
    Maug = np.concatenate([M1, eye], axis=1)
    zero_cost = np.zeros(m, dtype=np.int64)
    cost1 = np.concatenate([zero_cost, np.ones(n, dtype=np.int64)])
    status, basis, yB, _, _ = _phase(Maug, rhs1, cost1, list(range(m, m + n)), m + n, dantzig)
    infeas = sum((v for j, v in zip(basis, yB) if j >= m), Fraction(0))
    if infeas > 0:
        return _SF("infeasible", method="exact simplex")
    # drive the artificial columns (all at zero) out of the basis; drop redundant rows
    rows = list(range(n))
    while True:
        pos = next((p for p, j in enumerate(basis) if j >= m), None)
        if pos is None:
            break
        k = len(rows)
        MB = [[Fraction(int(Maug[r, j])) for j in basis] for r in rows]
        MBt = [[MB[c][r] for c in range(k)] for r in range(k)]
        e = [Fraction(int(p == pos)) for p in range(k)]
        w = _solve(MBt, e)  # row `pos` of MB^-1
        den, W = _scaled(w)
        rowvals = _row_times(W, M1[rows, :])
        cand = [int(j) for j in np.flatnonzero(rowvals != 0) if int(j) not in basis]
        if cand:
            basis[pos] = cand[0]
        else:  # the constraint of this artificial is redundant
            art_row = basis[pos] - m
            idx = rows.index(art_row)
            rows.pop(idx)
            basis.pop(pos)
    if not rows:  # every row redundant: the zero vector is feasible and optimal iff cost >= 0
        if np.any(np.asarray(cost) < 0):
            return _SF("unbounded", method="exact simplex")
        return _SF("optimal", Fraction(0), {}, [Fraction(0)] * n, "exact simplex")
    Mr = M1[rows, :]
    rhsr = [rhs1[r] for r in rows]
    status, basis, yB, pi_r, _ = _phase(Mr, rhsr, np.asarray(cost), basis, m, dantzig)
    if status != "optimal":
        return _SF("unbounded", method="exact simplex")
    pi = [Fraction(0)] * n
    for r, v in zip(rows, pi_r):
        pi[r] = v * signs[r]
    value = sum((Fraction(int(cost[j])) * v for j, v in zip(basis, yB)), Fraction(0))
    return _SF("optimal", value, dict(zip(basis, yB)), pi, "exact simplex", list(basis) if len(rows) == n else None)


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def _rationals(v, name: str, length: int | None = None) -> list[Fraction]:
    try:
        items = list(v)
    except TypeError as exc:
        raise InvalidParameterError(f"{name} must be a sequence of ints or Fractions, got {v!r}") from exc
    if length is not None and len(items) != length:
        raise InvalidParameterError(f"{name} must have {length} entries, got {len(items)}")
    out = []
    for j, x in enumerate(items):
        if isinstance(x, Fraction):
            out.append(x)
        elif isinstance(x, int | np.integer) and not isinstance(x, bool):
            out.append(Fraction(int(x)))
        else:
            raise InvalidParameterError(
                f"{name}[{j}] = {x!r} is not an int or a Fraction: exact linear programs take exact rationals"
            )
    return out


# ---------------------------------------------------------------------------------------------
# Column generation: the standard form over a huge number of columns
# ---------------------------------------------------------------------------------------------


#: Columns that enter the restricted program per pricing round (the most negative reduced costs).
_ENTER_PER_ROUND = 64
#: Pivots by Dantzig's rule before Bland's in a restricted re-solve (:func:`_phase`).
_DANTZIG_PIVOTS = 200
#: Restricted programs with more columns than this start from a HiGHS basis, smaller ones from the
#: exact phase 1.
_HIGHS_FROM = 1000


@dataclass
class ColumnGeneration:
    """The state of :func:`minimize_over_columns`: an exact optimum over the first ``limit`` columns.

    Attributes
    ----------
    value : Fraction
        The exact optimum ``min cost.y`` over ``M[:, :limit] y = rhs, y >= 0``.
    pi : list of Fraction
        Dual multipliers with ``pi.rhs = value`` and ``cost_j - pi.M_j >= 0`` for every ``j < limit``
        (checked exactly): the certificate that nothing is smaller.
    columns : numpy.ndarray
        The restricted column set (sorted indices) whose program attains ``value``.
    basis : list of int or None
        An optimal basis of the restricted program (column indices), when it has full row rank.
    limit : int
        The number of leading columns the certificate covers.
    """

    value: Fraction
    pi: list[Fraction]
    columns: np.ndarray
    basis: list[int] | None
    limit: int


def _price(M, cost, pi: list[Fraction], view, lo: int, hi: int) -> np.ndarray:
    """The columns ``lo <= j < hi`` with a negative reduced cost (exact), most negative (in floats) first."""
    neg = lo + _negative_columns(M[:, lo:hi], cost[lo:hi], pi, view, hi - lo)
    if len(neg) > _ENTER_PER_ROUND and view is not None:
        red = _float_reduced(M[:, neg], cost[neg], pi)
        if red is not None:
            neg = neg[np.argsort(red, kind="stable")]
    return neg


def _solve_restricted(M, rhs: list[int], cost, cols: np.ndarray, basis: list[int] | None, use_highs: bool):
    """``(basis or None, pi, value)`` of the program over the columns ``cols``, exactly."""
    sub, csub = M[:, cols], cost[cols]
    if basis is not None:  # the previous optimal basis stays primal feasible: exact phase 2 from it
        local = [int(np.searchsorted(cols, j)) for j in basis]
        status, bl, yB, pi, _ = _phase(sub, rhs, csub, local, len(cols), dantzig=_DANTZIG_PIVOTS)
        if status != "optimal":
            raise RuntimeError("minimize_over_columns: the restricted program is unbounded")
        value = sum((Fraction(int(csub[j])) * v for j, v in zip(bl, yB)), Fraction(0))
        return [int(cols[j]) for j in bl], pi, value
    # a few hundred columns: the exact phase 1 beats a HiGHS call (and its certificate) here
    sf = _standard(sub, rhs, csub, use_highs and len(cols) > _HIGHS_FROM, _DANTZIG_PIVOTS)
    if sf.status != "optimal":
        raise RuntimeError(
            f"minimize_over_columns: the restricted program is {sf.status} (the start columns must make it feasible)"
        )
    return (None if sf.basis is None else [int(cols[j]) for j in sf.basis]), sf.pi, sf.value


def minimize_over_columns(
    M: np.ndarray,
    rhs: list[int],
    cost: np.ndarray,
    limit: int,
    start,
    previous: ColumnGeneration | None = None,
    *,
    view=None,
    use_highs: bool = True,
) -> ColumnGeneration:
    """``min cost.y  s.t.  M[:, :limit] y = rhs, y >= 0`` exactly, for a huge number of columns.

    Column generation: the program over a small restricted column set (``start``, plus the columns
    of ``previous``) is solved exactly (:func:`_standard`: HiGHS basis certified in rationals, or
    the exact simplex from ``previous``'s optimal basis); then *every* column ``j < limit`` is
    priced exactly against its duals ``pi`` (a float filter, exact integers for every doubtful
    sign, :func:`_negative_columns`). Columns with a negative reduced cost enter (the most negative
    :data:`_ENTER_PER_ROUND` per round) and the restricted program is solved again, until none is
    left. Then ``pi`` is dual feasible for the whole program and ``pi.rhs`` equals the restricted
    optimum (checked), so by weak duality that value is the exact optimum, whatever the start
    columns were. ``previous`` (an optimum over the first ``previous.limit <= limit`` columns,
    e.g. the next smaller of nested column sets) is re-used: when no new column prices out
    negative against its ``pi``, its certificate already covers every column.

    ``start`` (indices ``< limit``) must make the restricted program feasible (the caller's
    certificate that the whole program is); the program must be bounded. Otherwise
    :class:`RuntimeError`. ``view`` is :func:`_float_view` of at least the first ``limit`` columns
    (computed when omitted).
    """
    start = np.asarray(start, dtype=np.int64).reshape(-1)
    if len(start) and (int(start.min()) < 0 or int(start.max()) >= limit):
        raise InvalidParameterError(f"start columns must lie in [0, {limit})")
    if view is None:
        view = _float_view(M[:, :limit], cost[:limit])
    basis = None
    if previous is not None:
        if previous.limit > limit:
            raise InvalidParameterError("previous covers more columns than limit")
        new = _price(M, cost, previous.pi, view, previous.limit, limit)
        if len(new) == 0:
            return ColumnGeneration(previous.value, previous.pi, previous.columns, previous.basis, limit)
        basis = previous.basis
        # the previous optimal basis stays feasible: it and the entering columns suffice
        keep = np.asarray(basis, dtype=np.int64) if basis is not None else np.union1d(previous.columns, start)
        cols = np.union1d(keep, new[:_ENTER_PER_ROUND])
    else:
        cols = np.unique(start)
    while True:
        basis, pi, value = _solve_restricted(M, rhs, cost, cols, basis, use_highs)
        if sum((p * r for p, r in zip(pi, rhs)), Fraction(0)) != value:  # pragma: no cover - exact duality
            raise RuntimeError("minimize_over_columns: the restricted duals do not attain the optimum")
        new = _price(M, cost, pi, view, 0, limit)
        if len(new) == 0:
            return ColumnGeneration(value, pi, cols, basis, limit)
        cols = np.union1d(cols, new[:_ENTER_PER_ROUND])
