"""Integer domains: the range ``[lo, hi]`` of any Python ints (the papers' ``X_d = {0, ..., 2^d - 1}``,
Beimel, Nissim, Stemmer 2013) and ordered sets given by rank and select, never listed (the halfspace
papers' sets of rationals, of size ``X^(d^2)``: Kaplan, Mansour, Stemmer, Tsfadia 2020; Beimel, Moran,
Nissim, Stemmer 2019). Indices are numpy int64 when they fit, else object arrays of Python ints."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, DomainError, InvalidParameterError
from ..formatting import int_to_text
from ..validation import check_int, refuse_unsupported

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
