"""Validation of a labelled sample given as domain indices."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..domains import index_array
from ..errors import DataError, DomainError
from ..sanitizers.database import aggregate, concat_indices
from ..validation import check_int


def check_sample(x, y, size: int, *, allow_empty: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """``(indices, labels as int8 0/1, size)``. The indices' range ``[0, size - 1]`` is checked by the
    caller on the sorted distinct values (:meth:`LabelledCounts.from_sample`): two comparisons, where
    a check here would scan every record twice (at ``2^65536``, big-integer comparisons)."""
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
    return idx, y.astype(np.int8), size


def _check_range(values: np.ndarray, size: int) -> None:
    """Sorted indices must lie in ``[0, size - 1]``."""
    if values.size and (values[0] < 0 or values[-1] > size - 1):
        raise DomainError(f"indices must lie in [0, {size - 1}]")


def _runs(sorted_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values of a sorted array and how often each occurs."""
    first = np.empty(sorted_values.size, dtype=bool)
    first[0] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=first[1:])
    at = np.flatnonzero(first)
    del first
    values = sorted_values[at]
    counts = np.empty(at.size, dtype=np.int64)
    np.subtract(at[1:], at[:-1], out=counts[:-1])
    counts[-1] = sorted_values.size - at[-1]
    return values, counts


def _sorted_label_counts(idx: np.ndarray, labels: np.ndarray):
    """``(values, zeros, ones)`` from two value sorts in place (no argsort of the values, no gather of
    weights): the records are grouped by label into one new array, each group sorted where it lies
    and run-length counted, and the two sorted lists merged by binary search. Memory beyond the
    output is one copy of the indices and a few arrays of the distinct values of one label (the
    10^7-record fit stays within a decision stump's peak, benchmarks/memory.py). ``None`` for
    Python-int indices."""
    if idx.dtype == object or idx.size == 0:
        return None
    ones_mask = labels.astype(bool)
    n0 = int(labels.size - np.count_nonzero(ones_mask))
    by_label = np.empty_like(idx)
    np.compress(~ones_mask, idx, out=by_label[:n0])
    np.compress(ones_mask, idx, out=by_label[n0:])
    del ones_mask
    parts = []
    for part in (by_label[:n0], by_label[n0:]):
        if part.size:
            part.sort()  # in place: a view of by_label
            parts.append(_runs(part))
    del by_label, part
    if len(parts) == 1:
        values, counts = parts[0]
        empty = np.zeros(values.size, dtype=np.int64)
        return (values, counts, empty) if n0 else (values, empty, counts)
    (v0, c0), (v1, c1) = parts
    del parts
    # Merge: the ones' values go where binary search puts them among the zeros' values.
    pos = np.searchsorted(v0, v1)
    new = v0[np.minimum(pos, v0.size - 1)] != v1  # the ones' values not among the zeros' values
    new |= pos == v0.size
    # merged place of v1[i]: pos[i] plus the new values before it (those of index < i)
    place = np.cumsum(new, dtype=np.int64)
    place -= new
    place += pos
    del pos
    from_ones = np.zeros(v0.size + int(np.count_nonzero(new)), dtype=bool)
    from_ones[place[new]] = True
    values = np.empty(from_ones.size, dtype=v0.dtype)
    values[from_ones] = v1[new]
    del new
    np.logical_not(from_ones, out=from_ones)  # the zeros' values, in order
    values[from_ones] = v0
    zeros = np.zeros(values.size, dtype=np.int64)
    zeros[from_ones] = c0
    del from_ones, v0, c0
    ones = np.zeros(values.size, dtype=np.int64)
    ones[place] = c1
    return values, zeros, ones


def _merge_sorted_runs(parts):
    """``(values, zeros, ones)`` of the union of parts whose values are sorted and distinct, all of one
    NumPy integer dtype: one stable argsort of the concatenated runs (which merges runs), the label
    counts gathered in that order, and summed only where a value occurs in several parts."""
    values = np.concatenate([p.values for p in parts])
    order = np.argsort(values, kind="stable")
    values = values[order]
    zeros = np.concatenate([p.zeros for p in parts])[order]
    ones = np.concatenate([p.ones for p in parts])[order]
    del order
    first = np.empty(values.size, dtype=bool)
    first[0] = True
    np.not_equal(values[1:], values[:-1], out=first[1:])
    if not first.all():  # values held by several parts: their counts summed
        at = np.flatnonzero(first)
        values, zeros, ones = values[at], np.add.reduceat(zeros, at), np.add.reduceat(ones, at)
    return values, zeros.astype(np.int64, copy=False), ones.astype(np.int64, copy=False)


#: Largest domain a merge counts on a dense array of its points (three arrays of ``size`` entries,
#: 17 bytes a point: 68 MiB at 2^22), and only when the parts hold at least ``size / 4`` entries.
DENSE_MERGE_MAX = 1 << 22


def _merge_dense(parts, size: int):
    """``(values, zeros, ones)`` of the union of parts on a small domain: each part's counts added
    at its values on arrays of every point (its values are distinct, so no index repeats within a
    part), then read at the points some part holds. The same integers as :func:`_merge_sorted_runs`,
    without sorting the parts' many overlapping values (a partition of 48 blocks of 2^17 records on
    2^20 points: 0.06 s against 0.28 s, benchmarks/merge_counts.py)."""
    present = np.zeros(size, dtype=bool)
    zeros = np.zeros(size, dtype=np.int64)
    ones = np.zeros(size, dtype=np.int64)
    for p in parts:
        present[p.values] = True
        zeros[p.values] += p.zeros
        ones[p.values] += p.ones
    at = np.flatnonzero(present)
    return at.astype(parts[0].values.dtype, copy=False), zeros[at], ones[at]


def _narrowed(counts: np.ndarray) -> np.ndarray:
    """Non-negative int64 counts in the smallest unsigned dtype that holds them: how they travel
    between processes (mostly 0 and 1, so one byte each instead of eight)."""
    if counts.dtype != np.int64 or counts.size == 0 or int(counts.min()) < 0:
        return counts
    top = int(counts.max())
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    return counts


def _unpickled_counts(values, zeros, ones, size: int) -> LabelledCounts:
    """A :class:`LabelledCounts` back from the wire: its counts int64 again, as every reader expects."""
    return LabelledCounts(values, zeros.astype(np.int64, copy=False), ones.astype(np.int64, copy=False), size)


@dataclass(frozen=True)
class LabelledCounts:
    """A labelled sample on ``[0, size - 1]`` as its sorted distinct indices with, at each, the
    number of records labelled 0 and labelled 1.

    Every one-dimensional learner reads its sample only through these exact counts, so a sample
    can be counted where it lives (in chunks, on a cluster: :mod:`privpac.backends`) and the parts
    merged exactly with :meth:`merge`: the same counts, bit for bit, for any partitioning.
    """

    values: np.ndarray  # sorted distinct indices (int64, uint64 or object for huge domains)
    zeros: np.ndarray  # int64 records labelled 0 at each value
    ones: np.ndarray  # int64 records labelled 1 at each value
    size: int

    def __reduce__(self):
        # Engines move counts between processes (merge trees, held blocks, the driver): the counts
        # travel narrowed (_narrowed): 40 % of the bytes for distinct values (benchmarks/merge_counts.py).
        return _unpickled_counts, (self.values, _narrowed(self.zeros), _narrowed(self.ones), self.size)

    @classmethod
    def from_sample(cls, x, y, size: int, *, allow_empty: bool = False) -> LabelledCounts:
        idx, labels, size = check_sample(x, y, size, allow_empty=allow_empty)
        counted = _sorted_label_counts(idx, labels)
        if counted is not None:
            _check_range(counted[0], size)
            return cls(*counted, size)
        w = np.empty((labels.size, 2), dtype=np.int64)
        w[:, 1] = labels
        w[:, 0] = 1 - w[:, 1]
        values, sums = aggregate(idx, w)
        _check_range(values, size)
        return cls(values, sums[:, 0], sums[:, 1], size)

    @classmethod
    def merge(cls, parts, size: int) -> LabelledCounts:
        """The counts of the union of disjoint parts (exact: one sort of the distinct values, or on a
        domain of at most :data:`DENSE_MERGE_MAX` points that the parts fill densely, arrays of every point)."""
        parts = [p for p in parts if p.values.size]
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty, size)
        if len(parts) == 1:  # already sorted and distinct
            return parts[0]
        if len({p.values.dtype for p in parts}) == 1 and parts[0].values.dtype != object:
            if size <= DENSE_MERGE_MAX and size <= 4 * sum(p.values.size for p in parts):
                return cls(*_merge_dense(parts, size), size)
            return cls(*_merge_sorted_runs(parts), size)
        values = concat_indices([p.values for p in parts])
        w = np.column_stack([np.concatenate([p.zeros for p in parts]), np.concatenate([p.ones for p in parts])])
        values, sums = aggregate(values, w)
        return cls(values, sums[:, 0], sums[:, 1], size)

    def flipped(self) -> LabelledCounts:
        """The same records with labels 0 and 1 exchanged."""
        return LabelledCounts(self.values, self.ones, self.zeros, self.size)

    @property
    def n(self) -> int:
        """The number of records (public under replace-one neighbours)."""
        return self.n_zeros + self.n_ones

    @property
    def n_zeros(self) -> int:
        return int(self.zeros.sum())

    @property
    def n_ones(self) -> int:
        return int(self.ones.sum())


def labelled_counts(x, y, size: int, *, allow_empty: bool = False) -> LabelledCounts:
    """``x`` if it already is a :class:`LabelledCounts` (then ``y`` must be None), else the counts
    of indices ``x`` with labels ``y``."""
    if isinstance(x, LabelledCounts):
        if y is not None:
            raise DataError("pass labels inside the LabelledCounts, not as y")
        if x.size != size:
            raise DataError(f"the counts were made for a domain of {x.size} points, not {size}")
        if x.n == 0 and not allow_empty:
            raise DataError("the sample is empty: at least one labelled point is needed")
        return x
    return LabelledCounts.from_sample(x, y, size, allow_empty=allow_empty)


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


def step_from_sorted(T: int, base: int, starts: np.ndarray, steps: np.ndarray, *, shift: int = 0):
    """The step function ``base + sum of steps[i] over starts[i] + shift <= j`` for sorted distinct
    ``starts + shift >= 1`` (``shift``: positions stored shifted, :class:`~privpac.stepfunc.StepFunction`)."""
    from ..stepfunc import StepFunction

    if starts.size == 0:
        return StepFunction.constant(T, base)
    all_starts = np.empty(starts.size + 1, dtype=starts.dtype)
    all_starts[0] = -shift
    all_starts[1:] = starts
    values = np.concatenate([[base], base + np.cumsum(steps)]).astype(np.int64)
    return StepFunction(all_starts, values, T, validate=False, shift=shift)


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
