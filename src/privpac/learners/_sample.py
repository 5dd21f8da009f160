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


def aggregate(idx: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct indices and the sum of ``weights`` at each (``O(m log m)``, one sort).

    One stable argsort and a segmented sum: no inverse index and no scattered ``np.add.at``
    (less memory and time per record than ``np.unique(..., return_inverse=True)``).
    """
    idx = np.asarray(idx).ravel()
    if idx.size == 0:
        return idx[:0], np.zeros(0, dtype=np.int64)
    order = np.argsort(idx, kind="stable")
    ordered = idx[order]
    w = np.asarray(weights).ravel()[order].astype(np.int64)
    del order
    first = np.empty(ordered.size, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    at = np.flatnonzero(first)
    return ordered[at], np.add.reduceat(w, at)


def positions(values, offset: int, T: int) -> np.ndarray:
    """``values + offset`` as step-function positions on ``[0, T]``: int64 when ``T`` is small,
    else an object array of Python ints (no overflow for uint64 input near ``2^64``)."""
    if T < 2**62:
        return np.asarray(values, dtype=np.int64) + np.int64(offset)
    values = np.asarray(values)
    if values.dtype != object and values.size and int(values.min()) >= 0 and int(values.max()) + offset < 2**64:
        # Vectorised in uint64, then Python ints, a chunk at a time (no full-size temporary).
        out = np.empty(values.size, dtype=object)
        step = 1 << 16
        for a in range(0, values.size, step):
            out[a : a + step] = (values[a : a + step].astype(np.uint64) + np.uint64(offset)).astype(object)
        return out
    out = values if values.dtype == object else values.astype(object)
    return out + offset if offset else out.copy()


def step_from_sorted(T: int, base: int, starts: np.ndarray, steps: np.ndarray):
    """The step function ``base + sum of steps[i] over starts[i] <= j`` for sorted distinct ``starts >= 1``."""
    from ..stepfunc import StepFunction

    if starts.size == 0:
        return StepFunction.constant(T, base)
    all_starts = np.empty(starts.size + 1, dtype=starts.dtype)
    all_starts[0] = 0
    all_starts[1:] = starts
    values = np.concatenate([[base], base + np.cumsum(steps)]).astype(np.int64)
    return StepFunction(all_starts, values, T, validate=False)


def spikes(points, weights, base: int, T: int):
    """``base + sum of weights[i] over points[i] == j`` on ``[0, T]``: one piece per distinct point,
    one per non-empty gap (one sort; no per-record big-int arithmetic)."""
    from ..stepfunc import StepFunction

    uniq, w = aggregate(points, weights)
    if uniq.size == 0:
        return StepFunction.constant(T, base)
    at = positions(uniq, 0, T)
    after = positions(uniq, 1, T)
    keep_after = np.empty(uniq.size, dtype=bool)
    keep_after[:-1] = np.asarray(after[:-1] < at[1:], dtype=bool)
    keep_after[-1] = bool(after[-1] <= T)
    starts = np.empty(2 * uniq.size, dtype=at.dtype)
    values = np.empty(2 * uniq.size, dtype=np.int64)
    starts[0::2], starts[1::2] = at, after
    values[0::2], values[1::2] = base + w, base
    keep = np.empty(2 * uniq.size, dtype=bool)
    keep[0::2], keep[1::2] = True, keep_after
    starts, values = starts[keep], values[keep]
    if starts[0] != 0:
        starts = np.concatenate([np.zeros(1, dtype=starts.dtype), starts])
        values = np.concatenate([np.asarray([base], dtype=np.int64), values])
    return StepFunction(starts, values, T, validate=False)
