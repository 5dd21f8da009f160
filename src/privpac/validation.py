"""Input validation shared by every public entry point.

Each checker returns the cleaned value and raises an exception from :mod:`privpac.errors` whose
message names the offending parameter. Nothing here looks at data to *choose* anything: it only
accepts or rejects.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from .errors import DataError, InvalidParameterError


def _is_real_number(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def check_real(x, name: str, *, low=None, high=None, low_open=False, high_open=False) -> float:
    """Return ``x`` as a finite float in the given range, or raise naming ``name``."""
    if not _is_real_number(x):
        raise InvalidParameterError(f"{name} must be a real number, got {x!r}")
    value = float(x)
    if math.isnan(value) or math.isinf(value):
        raise InvalidParameterError(f"{name} must be finite, got {x!r}")
    if low is not None and (value < low or (low_open and value == low)):
        bracket = "(" if low_open else "["
        raise InvalidParameterError(f"{name} must be in {bracket}{low}, {high}, got {x!r}")
    if high is not None and (value > high or (high_open and value == high)):
        bracket = ")" if high_open else "]"
        raise InvalidParameterError(f"{name} must be in [{low}, {high}{bracket}, got {x!r}")
    return value


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """epsilon must be a finite real number > 0."""
    return check_real(epsilon, name, low=0.0, low_open=True)


#: The smallest total epsilon an estimator or command accepts: below it the noise would exceed 10^9 per
#: count, which no analysis can use and which the exact samplers' integer arithmetic is not meant for.
MIN_EPSILON = 1e-9


def check_budget_epsilon(epsilon, name: str = "epsilon") -> float:
    """A user's total epsilon: a finite real number in ``[MIN_EPSILON, inf)``."""
    value = check_epsilon(epsilon, name)
    if value < MIN_EPSILON:
        raise InvalidParameterError(
            f"{name} must be at least {MIN_EPSILON:g}, got {epsilon!r}: the noise would be too large to be of any use"
        )
    return value


def check_delta(delta, name: str = "delta", *, allow_zero: bool = True) -> float:
    """delta must lie in [0, 1) (or (0, 1) when ``allow_zero`` is False)."""
    return check_real(delta, name, low=0.0, low_open=not allow_zero, high=1.0, high_open=True)


def check_probability(p, name: str) -> float:
    """An accuracy or confidence parameter in the open interval (0, 1)."""
    return check_real(p, name, low=0.0, low_open=True, high=1.0, high_open=True)


def check_int(x, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (Python or numpy, not bool) within [low, high]; returns a Python int."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise InvalidParameterError(f"{name} must be an integer, got {x!r}")
    value = int(x)
    if low is not None and value < low:
        raise InvalidParameterError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise InvalidParameterError(f"{name} must be <= {high}, got {value}")
    return value


#: The most elements a user-set size may make privpac allocate at once (int64: 800 MB).
MAX_ELEMENTS = 10**8


def check_size(x, name: str, *, per_item: int = 1, limit: int = MAX_ELEMENTS) -> int:
    """A count a user sets (bins, records to sample, dimensions) that privpac will allocate.

    Refused before anything is allocated when ``x * per_item`` exceeds ``limit`` elements, with the
    size that was asked for.
    """
    value = check_int(x, name, low=1)
    if value * per_item > limit:
        raise InvalidParameterError(
            f"{name} = {value:,} would need {value * per_item:,} values in memory, more than privpac allocates "
            f"at once ({limit:,}); choose a smaller {name}"
        )
    return value


def check_counts(counts, n_rows: int, name: str = "counts", *, allow_all_zero: bool = False) -> np.ndarray:
    """Record multiplicities: one integer >= 0 per row, not all 0, their total within int64 (2^62).

    ``allow_all_zero`` is for one block of a larger dataset (the whole is checked when merged).
    """
    refuse_unsupported(counts, name)
    arr = np.asarray(counts, dtype=object) if isinstance(counts, list | tuple) else np.asarray(counts)
    if arr.dtype == object:
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in arr.ravel()):
            raise DataError(f"{name} must hold integers")
    elif not np.issubdtype(arr.dtype, np.integer):
        raise DataError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.shape != (n_rows,):
        raise DataError(f"{name} must hold one integer multiplicity >= 0 per row of X ({n_rows}), got {arr.shape}")
    if arr.dtype == object:
        values = [int(v) for v in arr.tolist()]
        negative, total = any(v < 0 for v in values), sum(values)
    else:
        negative = bool(arr.size) and int(arr.min()) < 0
        # exact: a float total below 2^61 means the int64 sum cannot overflow
        approx = float(np.sum(arr, dtype=np.float64))
        total = int(np.sum(arr, dtype=np.int64)) if approx < 2.0**61 else sum(int(v) for v in arr.tolist())
    if negative:
        raise DataError(f"{name} must be >= 0")
    if total == 0 and not allow_all_zero:
        raise DataError(f"{name} are all 0: at least one record is needed")
    if total > 2**62:
        raise DataError(f"{name} add up to {total:,} records, more than privpac counts exactly (2^62)")
    return arr.astype(np.int64) if arr.dtype != object else np.asarray(values, dtype=np.int64)


def check_choice(x, name: str, choices) -> str:
    if x not in choices:
        raise InvalidParameterError(f"{name} must be one of {sorted(choices)}, got {x!r}")
    return x


def as_fraction(x, name: str) -> Fraction:
    """The exact rational value of a finite real number (floats are binary rationals)."""
    if isinstance(x, Fraction):
        return x
    check_real(x, name)
    return Fraction(x)


def refuse_unsupported(X, name: str = "X", *, text: bool = True) -> None:
    """Raise a clear error for inputs no estimator accepts: sparse matrices, complex numbers, text.

    ``text=False`` lets strings through (labels may be text, such as ``("benign", "malignant")``).
    """
    if hasattr(X, "tocsr") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError(
            f"{name} is a scipy sparse matrix; privpac's learners read dense data only: pass {name}.toarray() "
            "(the domains here are low-dimensional, so the dense array is small)"
        )
    dtype = getattr(X, "dtype", None)
    if dtype is not None and np.issubdtype(np.dtype(dtype), np.complexfloating):
        raise DataError(f"Complex data not supported: {name} holds complex numbers; privpac needs real values")
    if (
        text
        and dtype is not None
        and (np.issubdtype(np.dtype(dtype), np.str_) or np.issubdtype(np.dtype(dtype), np.bytes_))
    ):
        raise TypeError(f"{name} holds text ({np.dtype(dtype)}); privpac needs numbers")


def check_array(X, name: str = "X", *, ndim: int = 2, allow_empty: bool = False) -> np.ndarray:
    """A finite numeric array of the given dimension.

    A 1-D input is accepted for ``ndim=2`` only when it is unambiguous: it is *not* reshaped
    silently; the error says how to reshape. Object arrays of Python ints (huge domains) are
    kept as they are.
    """
    refuse_unsupported(X, name)
    if isinstance(X, np.ndarray) and X.dtype == object:
        arr = X
    else:
        try:
            arr = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise DataError(f"{name} could not be read as an array: {exc}") from exc
        refuse_unsupported(arr, name)
        if arr.dtype == object:
            # Python ints beyond int64 stay exact as an object array.
            if not all(isinstance(v, numbers.Integral) for v in arr.ravel()):
                raise DataError(f"{name} must be numeric")
        elif not np.issubdtype(arr.dtype, np.number) and arr.dtype != bool:
            raise DataError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        hint = " (Reshape your data: X.reshape(-1, 1) for a single feature)" if ndim == 2 and arr.ndim == 1 else ""
        raise DataError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}{hint}")
    if not allow_empty and arr.shape[0] == 0:
        raise DataError(f"{name} is empty: at least one record is needed (0 sample(s), shape={arr.shape})")
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise DataError(f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.dtype != object and np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise DataError(f"{name} contains NaN or infinite values")
    return arr


def check_labels(y, labels, n_samples: int | None = None, name: str = "y") -> np.ndarray:
    """Map labels onto {0, 1} given the *public* label set ``labels = (negative, positive)``.

    The label set is a parameter, never read off the data.
    """
    if y is None:
        raise DataError(f"this classifier requires y to be passed, but the target {name} is None")
    refuse_unsupported(y, name, text=False)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        import warnings

        from sklearn.exceptions import DataConversionWarning

        warnings.warn(
            f"A column-vector {name} was passed when a 1d array was expected: read as {name}.ravel()",
            DataConversionWarning,
            stacklevel=3,
        )
        y = y[:, 0]
    if y.ndim != 1:
        raise DataError(f"{name} must be 1-dimensional, got shape {y.shape}")
    if n_samples is not None and y.shape[0] != n_samples:
        raise DataError(f"{name} has {y.shape[0]} entries but X has {n_samples} rows")
    if y.shape[0] == 0:
        raise DataError(f"{name} is empty: at least one record is needed")
    if len(labels) != 2:
        raise InvalidParameterError(f"labels must be a pair (negative, positive), got {labels!r}")
    neg, pos = labels
    is_pos = y == pos
    is_neg = y == neg
    bad = ~(is_pos | is_neg)
    if np.any(bad):
        example = y[np.argmax(bad)]
        kind = "continuous" if np.issubdtype(y.dtype, np.floating) and np.any(y != np.round(y)) else "outside"
        if kind == "continuous":
            raise DataError(
                f"Unknown label type: continuous. {name} must hold the public labels {tuple(labels)!r} of a binary "
                "classifier (privpac does not do regression)"
            )
        several = len(set(y.tolist())) > 2
        raise DataError(
            ("Only binary classification is supported. The type of the target is multiclass: " if several else "")
            + f"{name} contains the label {example!r}, outside the declared labels {tuple(labels)!r} (pass "
            "labels=(negative, positive): the label set is public and is never read off the data)"
        )
    return is_pos.astype(np.int8)
