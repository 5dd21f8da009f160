"""One-dimensional data on a public domain: an IntegerDomain or a one-dimensional Grid."""

from __future__ import annotations

import numpy as np

from ..domains import Grid, IntegerDomain, index_array
from ..errors import DataError, InvalidParameterError
from ..validation import refuse_unsupported

__all__ = ["one_d_values", "domain_indices", "domain_size", "index_value", "prediction_indices", "show"]


def show(value) -> str:
    """A domain value for messages: huge integers as ``2^k ...`` (see :func:`privpac.formatting.fmt_int`)."""
    from ..formatting import fmt_int

    if isinstance(value, int) and not isinstance(value, bool):
        return fmt_int(value)
    return repr(value) if isinstance(value, float) else str(value)


def one_d_values(X, name: str = "X") -> np.ndarray:
    """``X`` of shape ``(n,)`` or ``(n, 1)`` as a 1-D array (object arrays of big ints kept)."""
    refuse_unsupported(X, name)
    if isinstance(X, np.ndarray) and X.dtype == object:
        arr = X
    elif isinstance(X, list | tuple) and any(isinstance(v, int) and abs(v) > 2**62 for v in X):
        arr = np.empty(len(X), dtype=object)
        arr[:] = list(X)
    else:
        arr = np.asarray(X)
        refuse_unsupported(arr, name)
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise DataError(f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required.")
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise DataError(
            f"{name} must have shape (n,) or (n, 1): a single feature (the public domain is one-dimensional); "
            f"got shape {arr.shape}"
        )
    return arr


def _check_domain(domain):
    if isinstance(domain, IntegerDomain):
        return domain
    if isinstance(domain, Grid):
        if domain.dim != 1:
            raise InvalidParameterError(f"the domain must be one-dimensional, got a Grid of dimension {domain.dim}")
        return domain
    raise InvalidParameterError(f"the domain must be an IntegerDomain or a one-dimensional Grid, got {domain!r}")


def domain_size(domain) -> int:
    domain = _check_domain(domain)
    return domain.size if isinstance(domain, IntegerDomain) else int(domain.n_points[0])


def domain_indices(domain, X, name: str = "X") -> np.ndarray:
    """Validated indices ``0 .. size - 1`` of the records (values outside the domain raise)."""
    domain = _check_domain(domain)
    return domain.to_index(one_d_values(X, name), name)


def index_value(domain, i: int):
    """The domain element of index ``i`` (a Python int, or a float on a grid)."""
    domain = _check_domain(domain)
    if isinstance(domain, IntegerDomain):
        return domain.lo + int(i)
    return float(domain.from_index(int(i)))


def prediction_indices(domain, X, name: str = "X") -> np.ndarray:
    """Indices for prediction: values outside the domain are allowed (integers keep their offset,
    grid values are clipped to the nearest end), since predicting is post-processing."""
    domain = _check_domain(domain)
    vals = one_d_values(X, name)
    if isinstance(domain, IntegerDomain):
        if vals.dtype != object and not np.issubdtype(vals.dtype, np.integer):
            f = np.asarray(vals, dtype=float)
            if not np.all(np.isfinite(f)) or not np.all(f == np.round(f)):
                raise DataError(f"{name} must contain integers for an integer domain")
            vals = f.astype(np.int64)
        if vals.dtype == object or abs(domain.lo) > 2**62 or vals.dtype == np.uint64:
            if vals.dtype == np.uint64 and 0 <= domain.lo < 2**62:
                big = vals >= np.uint64(domain.lo)
                if np.all(big):  # stay vectorised: offsets fit uint64
                    return vals - np.uint64(domain.lo)
            return index_array([int(v) - domain.lo for v in vals], 2**64)
        return vals.astype(np.int64) - np.int64(domain.lo)
    clipped = Grid(domain.low, domain.high, domain.n_points, clip=True)
    return clipped.to_index(np.asarray(vals, dtype=float), name)
