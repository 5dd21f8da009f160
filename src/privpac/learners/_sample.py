"""Validation of a labelled sample given as domain indices."""

from __future__ import annotations

import numpy as np

from ..domains import index_array
from ..errors import DataError, DomainError
from ..validation import check_int


def check_sample(x, y, size: int, *, allow_empty: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """``(indices, labels as int8 0/1, size)``; indices must lie in ``[0, size - 1]``."""
    size = check_int(size, "domain_size", low=1)
    if isinstance(x, np.ndarray) and (x.dtype == object or np.issubdtype(x.dtype, np.integer)):
        idx = x if x.ndim == 1 else None
    else:
        try:
            idx = index_array(list(x), size - 1)
        except (TypeError, ValueError) as exc:
            raise DataError(f"x must be a sequence of integer indices: {exc}") from exc
    if idx is None:
        raise DataError(f"x must be 1-dimensional, got shape {np.shape(x)}")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != idx.shape[0]:
        raise DataError(f"y must be 1-dimensional with one label per point ({idx.shape[0]}), got shape {y.shape}")
    if idx.size == 0 and not allow_empty:
        raise DataError("the sample is empty: at least one labelled point is needed")
    if y.size and not np.all((y == 0) | (y == 1)):
        raise DataError("labels must be 0 or 1")
    if idx.size and (idx.min() < 0 or idx.max() > size - 1):
        raise DomainError(f"indices must lie in [0, {size - 1}]")
    return idx, y.astype(np.int8), size
