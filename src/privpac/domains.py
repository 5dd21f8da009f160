"""Public finite domains.

Differential privacy in the private-learning papers is stated over a *public* finite domain: an
integer range ``X = {0, ..., 2^d - 1}``, a grid ``X^d``, or an ordered set of rationals far too
large to list. privpac never derives a domain from data: the user states it, and data outside it
is an error.

* :class:`IntegerDomain` is ``[lo, hi]`` for any Python ints (``2^65536`` points is fine).
* :class:`Grid` discretises real-valued features onto ``n_points`` equally spaced values per
  dimension between public bounds, and maps values to integer indices ``0 .. n_points - 1``.
* :class:`ImplicitOrderedDomain` is an ordered set given by ``size``, ``rank`` and ``select``.

All of them map data to integer *indices* ``0 .. size - 1`` (per dimension), the coordinate
system of the mechanisms. Indices are numpy int64 when they fit, else object arrays of Python
ints; nothing is ever proportional to the domain size.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import DataError, DomainError, InvalidParameterError
from .formatting import int_from_text, int_to_text
from .validation import check_array, check_int, check_real, refuse_unsupported

__all__ = ["IntegerDomain", "Grid", "ImplicitOrderedDomain", "as_domain", "index_array"]

_INT64_MAX = np.iinfo(np.int64).max


def index_array(values, upper: int) -> np.ndarray:
    """Integer indices in ``[0, upper]`` as int64 when ``upper`` fits, else an object array."""
    if upper <= _INT64_MAX:
        return np.asarray(values, dtype=np.int64)
    arr = np.empty(len(values), dtype=object)
    arr[:] = [int(v) for v in values]
    return arr


@dataclass(frozen=True)
class IntegerDomain:
    """The integer range ``[lo, hi]`` (public). ``lo`` and ``hi`` are any Python ints."""

    lo: int
    hi: int

    def __post_init__(self):
        lo = check_int(self.lo, "domain lo")
        hi = check_int(self.hi, "domain hi")
        if hi < lo:
            raise InvalidParameterError(f"domain must have lo <= hi, got [{lo}, {hi}]")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)

    @classmethod
    def bits(cls, d: int) -> IntegerDomain:
        """``{0, ..., 2^d - 1}``, the papers' ``X_d``."""
        d = check_int(d, "d", low=0)
        return cls(0, (1 << d) - 1)

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    @property
    def max_index(self) -> int:
        return self.hi - self.lo

    def to_index(self, X, name: str = "X") -> np.ndarray:
        """Validate values (1-D) against the domain and return their indices ``x - lo``."""
        X = integer_values(X, name)
        if X.size == 0:
            return index_array([], self.max_index)
        if X.dtype == object:
            if X.min() < self.lo or X.max() > self.hi:  # C-level scan first; find the culprit only on failure
                bad = next(v for v in X if v < self.lo or v > self.hi)
                raise DomainError(f"{name} contains {bad}, outside the domain [{self.lo}, {self.hi}]")
            if not self.lo and self.max_index > _INT64_MAX:
                return X  # the indices are the values: no big-int copies
            return index_array([v - self.lo for v in X], self.max_index)
        lo_ok = self.lo <= int(X.min())
        hi_ok = int(X.max()) <= self.hi
        if not (lo_ok and hi_ok):
            bad = X.min() if not lo_ok else X.max()
            raise DomainError(f"{name} contains {bad}, outside the domain [{self.lo}, {self.hi}]")
        if self.max_index <= _INT64_MAX and self.lo >= -_INT64_MAX and self.hi <= _INT64_MAX:
            return X.astype(np.int64) - np.int64(self.lo)
        if 0 <= self.lo and self.hi < 2**64:
            # Indices of a domain wider than int64 but within uint64: stay vectorised (uint64).
            return X.astype(np.uint64) - np.uint64(self.lo)
        return index_array([int(v) - self.lo for v in X], self.max_index)

    def from_index(self, i):
        """The domain value of index ``i`` (a Python int)."""
        return self.lo + int(i)

    def rank(self, x) -> int:
        return int(x) - self.lo

    def select(self, i: int) -> int:
        return self.lo + int(i)

    def to_dict(self) -> dict:
        return {"type": "integer", "lo": int_to_text(self.lo), "hi": int_to_text(self.hi)}


def integer_values(X, name: str = "X") -> np.ndarray:
    """1-D integer data as the most compact exact array: int64, uint64, or Python ints beyond them.

    Floats are accepted when integral: every float64 at or above ``2^53`` is an exact integer, and
    is converted without overflow (what reading a CSV of large integers gives). Non-integral
    values are refused with a message pointing to a :class:`Grid`. Object arrays of Python ints
    are converted to int64 or uint64 when that is lossless (seven times faster downstream).
    """
    refuse_unsupported(X, name)
    if isinstance(X, np.ndarray) and X.dtype == object:
        arr = X.ravel() if X.ndim > 1 and X.size == max(X.shape) else X
    elif isinstance(X, list | tuple) and any(
        isinstance(v, int) and not isinstance(v, bool) and abs(v) > _INT64_MAX for v in X
    ):
        arr = np.empty(len(X), dtype=object)
        arr[:] = list(X)
    else:
        arr = np.asarray(X)
        refuse_unsupported(arr, name)
    if arr.ndim != 1:
        raise DataError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.dtype == bool:
        raise DataError(f"{name} holds booleans; an integer domain needs integers")
    if arr.dtype == object:
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr):
            if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in arr):
                return integer_values(np.asarray(arr, dtype=np.float64), name)
            raise DataError(f"{name} must contain integers for an integer domain")
        return _compact(arr)
    if np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise DataError(f"{name} contains NaN or infinite values")
        if not np.all(arr == np.round(arr)):
            bad = arr[np.argmax(arr != np.round(arr))]
            raise DataError(
                f"{name} contains {bad!r}, not an integer, on an integer domain; use a Grid domain "
                "(low:high:n_points) for real-valued data"
            )
        if arr.size == 0:
            return arr.astype(np.int64)
        lo, hi = arr.min(), arr.max()
        if -(2.0**63) <= lo and hi < 2.0**63:
            return arr.astype(np.int64)
        if 0 <= lo and hi < 2.0**64:
            return arr.astype(np.uint64)
        out = np.empty(arr.size, dtype=object)
        out[:] = [int(v) for v in arr.tolist()]  # exact: a float is a binary rational
        return out
    if not np.issubdtype(arr.dtype, np.integer):
        raise DataError(f"{name} must contain integers, got dtype {arr.dtype}")
    return arr


def _compact(arr: np.ndarray) -> np.ndarray:
    """An object array of Python ints as int64 or uint64 when every value fits, else unchanged."""
    if arr.size == 0:
        return arr.astype(np.int64)
    lo, hi = min(arr), max(arr)
    if -_INT64_MAX - 1 <= lo and hi <= _INT64_MAX:
        return arr.astype(np.int64)
    if 0 <= lo and hi < 2**64:
        return arr.astype(np.uint64)
    return arr


class Grid:
    """Real-valued features discretised on a public grid.

    Parameters
    ----------
    low, high : float or array-like
        Public bounds per dimension (a scalar applies to every dimension).
    n_points : int or array-like
        Number of grid points per dimension (>= 2), including both bounds.
    clip : bool
        Values outside ``[low, high]`` raise a :class:`~privpac.errors.DomainError` by default.
        With ``clip=True`` they are moved to the nearest bound: a data-independent map applied
        to each record, so it is free for privacy, but it changes the data and must be a
        conscious choice.

    A value ``x`` maps to the nearest grid index ``round((x - low) / step)``.
    """

    def __init__(self, low, high, n_points=2**16, clip: bool = False):
        low = np.atleast_1d(np.asarray(low, dtype=float))
        high = np.atleast_1d(np.asarray(high, dtype=float))
        n_points = np.atleast_1d(np.asarray(n_points))
        if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            raise InvalidParameterError("domain bounds low and high must be finite")
        dim = max(low.size, high.size, n_points.size)
        try:
            low, high, n_points = (np.broadcast_to(a, (dim,)).copy() for a in (low, high, n_points))
        except ValueError as exc:
            raise InvalidParameterError(f"low, high and n_points have incompatible shapes: {exc}") from exc
        if np.any(high <= low):
            raise InvalidParameterError("every domain bound needs low < high")
        with np.errstate(over="ignore"):
            span = high - low
        if not np.all(np.isfinite(span)):
            raise InvalidParameterError(
                f"the grid from {low.tolist()} to {high.tolist()} is too wide for floating point (high - low overflows)"
            )
        if not np.issubdtype(n_points.dtype, np.integer) or np.any(n_points < 2):
            raise InvalidParameterError("n_points must be integers >= 2")
        self.low = low
        self.high = high
        self.n_points = n_points.astype(np.int64)
        self.clip = bool(clip)

    def broadcast(self, d: int) -> Grid:
        """A one-dimensional grid as the same grid on each of ``d`` features (itself otherwise)."""
        if self.dim == d or self.dim != 1:
            return self
        return Grid(np.repeat(self.low, d), np.repeat(self.high, d), np.repeat(self.n_points, d), clip=self.clip)

    @property
    def dim(self) -> int:
        return self.low.size

    @property
    def step(self) -> np.ndarray:
        return (self.high - self.low) / (self.n_points - 1)

    @property
    def size(self) -> int:
        """Number of grid points (a Python int; the product over dimensions)."""
        out = 1
        for n in self.n_points:
            out *= int(n)
        return out

    @property
    def max_index(self) -> int:
        """Largest index along a dimension (one-dimensional grids only)."""
        if self.dim != 1:
            raise InvalidParameterError("max_index is defined for one-dimensional grids only")
        return int(self.n_points[0]) - 1

    def to_index(self, X, name: str = "X") -> np.ndarray:
        """Indices of the nearest grid points; shape (n,) for 1-D grids on 1-D input, else (n, d)."""
        refuse_unsupported(X, name)
        X = np.asarray(X) if not isinstance(X, np.ndarray) else X
        refuse_unsupported(X, name)
        X = X.astype(float)
        one_d = X.ndim == 1
        if one_d:
            if self.dim != 1:
                raise DataError(f"{name} must have shape (n, {self.dim}), got {X.shape}")
            X = X.reshape(-1, 1)
        X = check_array(X, name, ndim=2, allow_empty=True)
        if X.shape[1] != self.dim:
            raise DataError(f"{name} has {X.shape[1]} features but the domain has {self.dim}")
        if self.clip:
            X = np.clip(X, self.low, self.high)
        else:
            outside = (X < self.low) | (X > self.high)
            if np.any(outside):
                r, c = np.argwhere(outside)[0]
                raise DomainError(
                    f"{name}[{r}, {c}] = {X[r, c]} lies outside the domain "
                    f"[{self.low[c]}, {self.high[c]}] (pass clip=True to clip to the bounds)"
                )
        idx = np.rint((X - self.low) / self.step).astype(np.int64)
        np.clip(idx, 0, self.n_points - 1, out=idx)
        return idx[:, 0] if one_d else idx

    def from_index(self, idx) -> np.ndarray:
        """Grid values of indices (array-like, same shapes as :meth:`to_index` returns)."""
        idx = np.asarray(idx, dtype=float)
        if idx.ndim <= 1 and self.dim == 1:
            return self.low[0] + idx * self.step[0]
        return self.low + idx * self.step

    def to_dict(self) -> dict:
        return {
            "type": "grid",
            "low": self.low.tolist(),
            "high": self.high.tolist(),
            "n_points": self.n_points.tolist(),
            "clip": self.clip,
        }

    def __eq__(self, other) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return (
            np.array_equal(self.low, other.low)
            and np.array_equal(self.high, other.high)
            and np.array_equal(self.n_points, other.n_points)
            and self.clip == other.clip
        )

    def __hash__(self) -> int:
        return hash((tuple(self.low), tuple(self.high), tuple(self.n_points), self.clip))

    def __repr__(self) -> str:
        if self.dim == 1:
            return f"Grid(low={self.low[0]}, high={self.high[0]}, n_points={self.n_points[0]})"
        return f"Grid(dim={self.dim}, n_points={self.n_points.tolist()})"


@dataclass(frozen=True)
class ImplicitOrderedDomain:
    """An ordered finite set given by its size and a rank/select pair (never listed).

    ``select(i)`` is the i-th smallest element (0-based) and ``rank(x)`` its inverse. Used for
    the halfspace papers' sets of rationals, whose size is ``X^(d^2)``.
    """

    size: int
    rank: Callable[[object], int]
    select: Callable[[int], object]
    name: str = "implicit"

    def __post_init__(self):
        check_int(self.size, "size", low=1)

    @property
    def max_index(self) -> int:
        return self.size - 1

    def to_dict(self) -> dict:
        return {"type": "implicit", "name": self.name, "size": int_to_text(self.size)}


def domain_from_dict(d: dict):
    """Inverse of the ``to_dict`` methods (implicit domains cannot be restored from JSON)."""
    kind = d.get("type")
    try:
        if kind == "integer":
            return IntegerDomain(int_from_text(d["lo"]), int_from_text(d["hi"]))
        if kind == "grid":
            return Grid(d["low"], d["high"], d["n_points"], clip=d.get("clip", False))
    except KeyError as exc:
        raise InvalidParameterError(f"a domain of type {kind!r} needs the key {exc}") from exc
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"cannot read the domain {d!r}: {exc}") from exc
    raise InvalidParameterError(f"cannot restore a domain of type {kind!r}")


def as_domain(domain, name: str = "domain"):
    """Accept a domain object or a short form; ``None`` is an error (never read off the data).

    Short forms: ``(lo, hi)`` of ints is an :class:`IntegerDomain`; ``(low, high, n_points)``
    is a :class:`Grid`; ``{"low":..., "high":..., "n_points":...}`` too.
    """
    if domain is None:
        raise DomainError(
            f"{name} must be given: privpac never derives domain bounds from the private data "
            "(for example domain=(0, 2**32 - 1) or domain=Grid(low, high, n_points))"
        )
    if isinstance(domain, IntegerDomain | Grid | ImplicitOrderedDomain):
        return domain
    if isinstance(domain, dict):
        if "type" in domain:
            return domain_from_dict(domain)
        keys = set(domain)
        if keys == {"lo", "hi"}:
            return IntegerDomain(domain["lo"], domain["hi"])
        if {"low", "high"} <= keys <= {"low", "high", "n_points", "clip"}:
            return Grid(domain["low"], domain["high"], domain.get("n_points", 2**16), domain.get("clip", False))
        raise InvalidParameterError(
            f"{name} as a mapping needs keys lo and hi (integers) or low, high and optionally n_points, clip "
            f"(a grid); got {sorted(keys)}"
        )
    if isinstance(domain, tuple | list):
        if len(domain) == 2 and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in domain):
            return IntegerDomain(int(domain[0]), int(domain[1]))
        if len(domain) == 3:
            check_real(domain[0], f"{name} low") if np.ndim(domain[0]) == 0 else None
            return Grid(domain[0], domain[1], domain[2])
    raise InvalidParameterError(
        f"{name} must be an IntegerDomain, a Grid, (lo, hi) integers or (low, high, n_points); got {domain!r}"
    )


def symmetric_bound(value, name: str, letter: str, why: str) -> int:
    """The public bound ``letter`` of ``[-letter, letter]`` from an int or ``IntegerDomain(-letter, letter)``.

    ``why`` says what the integer domain stands for in messages (for example "integer data").
    Refuses a missing value with the library's standard message, non-integer and asymmetric
    domains, and bounds below 1.
    """
    if value is None:
        as_domain(None, name)  # the library's standard message
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        bound = int(value)
    else:
        try:
            dom = as_domain(value, name)
        except InvalidParameterError as exc:
            raise InvalidParameterError(
                f"{name} must be an int {letter} or IntegerDomain(-{letter}, {letter}) ({why}); got {value!r}"
            ) from exc
        if not isinstance(dom, IntegerDomain):
            raise InvalidParameterError(
                f"{name} must be an int {letter} or IntegerDomain(-{letter}, {letter}) ({why}; scale rational "
                f"values by a public common denominator first); got {value!r}"
            )
        if dom.lo != -dom.hi:
            raise InvalidParameterError(
                f"{name} must be symmetric, IntegerDomain(-{letter}, {letter}); got [{dom.lo}, {dom.hi}] "
                "(shift the values by a public offset first)"
            )
        bound = dom.hi
    if bound < 1:
        raise InvalidParameterError(f"the {name} bound {letter} must be at least 1, got {bound}")
    return bound
