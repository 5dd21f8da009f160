"""Exact inputs for the geometry layer: integer point sets, rational query points, safe products.

Every count in :mod:`privpac.geometry` feeds a private choice (a quality function of sensitivity 1),
so it is computed with integers only. The helpers here read the inputs exactly, refuse anything that
is not an integer (data) or a rational (query points), and pick numpy ``int64`` when a product is
provably below ``2**62`` and object arrays of Python ints otherwise. A float64 product is used only
where it is provably exact (integers whose every partial sum stays below ``2**53``, checked up front
from the arrays' maxima) or as a filter whose doubtful signs are recomputed in integers
(:func:`exact_signs`): no rounded float ever decides a count.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from ..errors import DataError, InvalidParameterError
from ..validation import as_numpy, refuse_unsupported

#: Magnitudes strictly below this bound are stored and multiplied as ``int64``.
INT64_SAFE = 2**62
#: Integer sums whose absolute terms add up to less than this are exact in float64 (53-bit mantissa),
#: whatever the summation order (every partial sum is an integer below ``2**53``).
FLOAT64_EXACT = 2**53
#: Relative slack of the float filter of :func:`exact_signs`: a float sum of at most four integer
#: products errs by less than ``10 * 2**-53`` of the sum of the absolute terms; signs are trusted only
#: beyond ``1e-12`` of that sum.
_SIGN_SLACK = 1e-12


def _entry_to_int(v, name: str, where: str) -> int:
    """One entry of an integer array, exactly; DataError for anything that is not an integer."""
    if isinstance(v, bool | np.bool_):
        return int(v)
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return int(v)
    elif isinstance(v, numbers.Real):
        f = float(v)
        if math.isfinite(f) and f.is_integer():
            return int(f)
        if not math.isfinite(f):
            raise DataError(f"{name} contains NaN or infinite values ({name}{where} = {v!r})")
    else:
        raise DataError(f"{name} must hold integers, got {type(v).__name__} {v!r} at {name}{where}")
    raise DataError(
        f"{name} must hold integers, got the non-integer value {v!r} at {name}{where}; "
        "scale rational data to integers by a public common denominator first"
    )


def _pick_dtype(values: np.ndarray, bound: int) -> np.ndarray:
    """``values`` (object array of Python ints) as int64 when ``bound`` allows, else unchanged."""
    if bound < INT64_SAFE:
        return values.astype(np.int64)
    return values


def as_integer_points(S, name: str = "S", *, d: int | None = None, first_row: int = 0) -> tuple[np.ndarray, int]:
    """An ``(n, d)`` integer array, exactly, and the largest absolute entry.

    Accepts integer numpy arrays, object arrays or nested lists of Python ints, and floats or
    Fractions whose values are integers (converted exactly). Refuses non-integer values, NaN,
    infinities, text, wrong shapes and empty input with :class:`privpac.errors.DataError`.
    The result is ``int64`` when every entry is below ``2**62`` in absolute value, else an object
    array of Python ints. Messages name a bad entry ``name[first_row + i, j]`` (``first_row``: the
    position of ``S``'s first row in a larger sample read block by block, :mod:`privpac.backends`).
    """
    refuse_unsupported(S, name)
    S = as_numpy(S, name)  # frames of a Dask or Spark partition, as at the estimators' boundary
    if isinstance(S, np.ndarray):
        arr = S
    else:
        try:
            try:
                arr = np.asarray(S)
            except OverflowError:  # Python ints beyond int64 stay exact in an object array
                arr = np.asarray(S, dtype=object)
        except Exception as exc:  # ragged lists and the like
            raise DataError(f"{name} could not be read as an (n, d) array: {exc}") from exc
    refuse_unsupported(arr, name)
    if arr.ndim != 2:
        hint = " (one point per row: reshape a single point to (1, d), 1-D data to (n, 1))" if arr.ndim == 1 else ""
        raise DataError(f"{name} must be a 2-dimensional (n, d) array of integer points, got shape {arr.shape}{hint}")
    n, dim = arr.shape
    if n == 0:
        raise DataError(f"{name} is empty: at least one point is needed (shape {arr.shape})")
    if dim == 0:
        raise DataError(f"{name} has 0 coordinates (shape {arr.shape}); points need d >= 1")
    if d is not None and dim != d:
        raise DataError(f"{name} must have {d} column(s) (the dimension), got shape {arr.shape}")
    kind = arr.dtype.kind
    if kind == "b":
        return arr.astype(np.int64), int(bool(arr.any()))
    if kind in "iu":
        if kind == "u" and arr.size and int(arr.max()) >= INT64_SAFE:
            obj = np.empty(arr.shape, dtype=object)
            obj[...] = [[int(v) for v in row] for row in arr]
            return obj, int(arr.max())
        out = arr.astype(np.int64)
        bound = int(np.abs(out).max())
        if bound >= INT64_SAFE:  # products of such entries would overflow; keep Python ints
            obj = np.empty(arr.shape, dtype=object)
            obj[...] = [[int(v) for v in row] for row in out]
            return obj, bound
        return out, bound
    if kind == "f":
        if not np.all(np.isfinite(arr)):
            raise DataError(f"{name} contains NaN or infinite values")
        bad = np.argwhere(arr != np.floor(arr))
        if bad.size:
            i, j = (int(t) for t in bad[0])
            raise DataError(
                f"{name} must hold integers, got the non-integer value {float(arr[i, j])!r} at "
                f"{name}[{first_row + i}, {j}]; "
                "scale rational data to integers by a public common denominator first"
            )
    elif kind != "O":
        raise DataError(f"{name} must hold integers, got dtype {arr.dtype}")
    obj = np.empty(arr.shape, dtype=object)
    for i in range(n):
        for j in range(dim):
            obj[i, j] = _entry_to_int(arr[i, j], name, f"[{first_row + i}, {j}]")
    bound = max(abs(v) for v in obj.ravel())
    return _pick_dtype(obj, bound), bound


def as_rational_point(x, d: int, name: str = "x") -> tuple[Fraction, ...]:
    """A point of ``Q^d`` as a tuple of Fractions; ints, Fractions and integral floats accepted."""
    if isinstance(x, str | bytes):
        raise InvalidParameterError(f"{name} must be a sequence of {d} ints or Fractions, got {x!r}")
    try:
        items = list(np.asarray(x, dtype=object).ravel()) if isinstance(x, np.ndarray) else list(x)
    except TypeError as exc:
        raise InvalidParameterError(f"{name} must be a sequence of {d} ints or Fractions, got {x!r}") from exc
    if len(items) != d:
        raise InvalidParameterError(f"{name} must have {d} coordinate(s) (the dimension of S), got {len(items)}")
    out = []
    for j, v in enumerate(items):
        if isinstance(v, numbers.Integral):
            out.append(Fraction(int(v)))
        elif isinstance(v, Fraction):
            out.append(v)
        elif isinstance(v, numbers.Real) and math.isfinite(float(v)) and float(v).is_integer():
            out.append(Fraction(int(float(v))))
        else:
            raise InvalidParameterError(
                f"{name}[{j}] = {v!r} is not an int or a Fraction; pass exact rationals "
                "(fractions.Fraction), never floats with a fractional part"
            )
    return tuple(out)


def common_denominator(x: tuple[Fraction, ...]) -> tuple[int, list[int]]:
    """``(q, p)`` with ``x = p / q``: ``q`` the least common denominator, ``p`` integers."""
    q = 1
    for v in x:
        q = math.lcm(q, v.denominator)
    return q, [int(v * q) for v in x]


def translate(S: np.ndarray, bound: int, x: tuple[Fraction, ...]) -> np.ndarray:
    """``q*S - p`` for ``x = p/q``: integer points with ``u.(q y - p) >= 0  <=>  u.y >= u.x``."""
    q, p = common_denominator(x)
    big = q * bound + max(abs(v) for v in p)
    if big < INT64_SAFE and S.dtype != object:
        return q * S - np.asarray(p, dtype=np.int64)
    Z = np.empty(S.shape, dtype=object)
    Z[...] = q * S.astype(object) - np.asarray(p, dtype=object)
    return Z


def max_abs(A: np.ndarray) -> int:
    """Largest absolute entry as a Python int (0 for an empty array)."""
    if A.size == 0:
        return 0
    if A.dtype == object:
        return max(abs(int(v)) for v in A.ravel())
    return int(np.abs(A).max())


def exact_products(U: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``U @ Z.T`` exactly: ``int64`` when ``d * max|U| * max|Z| < 2**62``, Python ints otherwise."""
    d = U.shape[1]
    if d * max_abs(U) * max_abs(Z) < INT64_SAFE and U.dtype != object and Z.dtype != object:
        return U.astype(np.int64) @ Z.astype(np.int64).T
    return U.astype(object) @ Z.astype(object).T


def exact_affine_scores(a, c, ints: np.ndarray) -> tuple[np.ndarray, int]:
    """``(N (<a, x> + c), N)`` for integer points ``ints`` (rows) and rationals ``a``, ``c``, with
    ``N >= 1`` their common denominator: exact Python integers, so the sign decides a grid point's
    side of a halfspace without rounding."""
    coef = [Fraction(v) for v in a]
    c = Fraction(c)
    N = math.lcm(*(v.denominator for v in (*coef, c)))
    num = np.asarray([int(v * N) for v in coef], dtype=object)
    return ints.astype(object) @ num + int(c * N), N


def exact_signs(cols: list[np.ndarray], coefs: list[int]) -> np.ndarray:
    """The exact sign (-1, 0, 1) of ``sum_k coefs[k] * cols[k]`` per entry (integer arrays, Python-int coefficients).

    ``int64`` when ``sum_k |coefs[k]| max|cols[k]| < 2**62``. Otherwise a float64 filter proposes the
    signs: an entry whose float sum exceeds ``1e-12`` times the sum of its absolute terms has that
    sign for sure (the float error is below ``10 * 2**-53`` of that sum for at most four terms); every
    other entry (ties, near-ties, values a float cannot hold) is recomputed in Python integers.
    """
    coefs = [int(c) for c in coefs]
    n = len(cols[0]) if cols else 0
    if all(c.dtype != object for c in cols) and sum(abs(a) * max_abs(c) for a, c in zip(coefs, cols)) < INT64_SAFE:
        total = np.zeros(n, dtype=np.int64)
        for a, c in zip(coefs, cols):
            if a:
                total += a * c.astype(np.int64)
        return np.sign(total)
    if len(cols) > 4:
        raise InvalidParameterError("exact_signs filters sums of at most four terms")
    unsure = np.ones(n, dtype=bool)
    out = np.zeros(n, dtype=np.int64)
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            fs = np.zeros(n)
            bound = np.zeros(n)
            for a, c in zip(coefs, cols):
                if a:
                    term = float(a) * np.asarray(c, dtype=float)
                    fs += term
                    bound += np.abs(term)
        ok = np.isfinite(fs) & np.isfinite(bound) & (np.abs(fs) > _SIGN_SLACK * bound)
        out[ok] = np.sign(fs[ok]).astype(np.int64)
        unsure = ~ok
    except OverflowError:  # a coefficient beyond the float range: all exact
        pass
    idx = np.flatnonzero(unsure)
    if len(idx):
        total = np.zeros(len(idx), dtype=object)
        for a, c in zip(coefs, cols):
            if a:
                total = total + a * c[idx].astype(object)
        out[idx] = [(v > 0) - (v < 0) for v in total]
    return out


def slice_interval(
    U: np.ndarray, c: np.ndarray, p: tuple[Fraction, ...]
) -> tuple[Fraction | None, Fraction | None] | None:
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
    hi = extreme_ratio(b[up], a[up], smallest=True) if np.any(up) else None
    lo = extreme_ratio(b[down], a[down], smallest=False) if np.any(down) else None
    if lo is not None and hi is not None and lo > hi:
        return None
    return lo, hi


def extreme_ratio(b: np.ndarray, a: np.ndarray, smallest: bool) -> Fraction:
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


def repair_arc_end(end: int, low: int, high: int, inside) -> int:
    """The exact end of an arc of sorted directions from a float proposal ``end``: step back while
    position ``end - 1`` is not ``inside`` (never below ``low``), then forward while position ``end``
    is (never past ``high``). ``inside`` is an exact (integer) predicate on doubled positions."""
    while end > low and not inside(end - 1):
        end -= 1
    while end < high and inside(end):
        end += 1
    return end
