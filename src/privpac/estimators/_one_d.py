"""One-dimensional data on a public domain: an IntegerDomain or a one-dimensional Grid."""

from __future__ import annotations

import functools

import numpy as np

from ..backends import backend_for
from ..domains import Grid, IntegerDomain, index_array
from ..errors import DataError, InvalidParameterError
from ..learners._sample import LabelledCounts
from ..sanitizers.database import CountedData
from ..validation import as_numpy, check_labels, refuse_unsupported

__all__ = [
    "one_d_values",
    "domain_indices",
    "domain_size",
    "index_value",
    "prediction_indices",
    "labelled_indices",
    "rows_on_driver",
    "labelled_counts_of",
    "counted_values_of",
    "labelled_ranges_of",
    "show",
]


def show(value) -> str:
    """A domain value for messages: huge integers as ``2^k ...`` (see :func:`privpac.formatting.fmt_int`)."""
    from ..formatting import fmt_int

    if isinstance(value, int) and not isinstance(value, bool):
        return fmt_int(value)
    return repr(value) if isinstance(value, float) else str(value)


def one_d_values(X, name: str = "X") -> np.ndarray:
    """``X`` of shape ``(n,)`` or ``(n, 1)`` as a 1-D array (object arrays of big ints kept)."""
    refuse_unsupported(X, name)
    X = as_numpy(X, name)
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


def labelled_indices(domain, labels, X_block, y_block) -> tuple[np.ndarray, np.ndarray]:
    """A block's domain indices and 0/1 labels, both checked against the public sets; an empty
    partition gives two empty arrays (a kernel's reading of its block: a worker that runs it imports
    this module, which does not import scikit-learn)."""
    idx = domain_indices(domain, X_block)
    if idx.shape[0] == 0:  # an empty partition
        return idx, np.zeros(0, dtype=np.int8)
    return idx, check_labels(y_block, labels, idx.shape[0])


def rows_on_driver(backend, X, *others) -> tuple | None:
    """The rows, on the driver, of engine data an engine brings there cheaper than its workers count
    them (Spark, up to a public number of rows: :meth:`~privpac.backends.SparkBackend.rows_within`),
    else ``None``. Only for the counts below: a statistic of the multiset of records, the same
    whichever machine computes it."""
    within = getattr(backend, "rows_within", None)
    return None if within is None else within(X, *others)


def labelled_counts_of(domain, labels, X, y) -> LabelledCounts:
    """The exact counts of a labelled training sample, computed where ``X`` lives.

    In memory, or block by block on a Dask cluster (:mod:`privpac.backends`): each block's values
    are checked against the public domain and its labels against the public label set, counted,
    and the counts merged exactly on the driver. Deterministic, with no randomness: the learner
    draws its noise afterwards, once, on the driver. A small Spark sample is brought to the driver
    and counted there (:func:`rows_on_driver`).
    """
    domain = _check_domain(domain)
    size = domain_size(domain)
    backend = backend_for(X)
    if (rows := rows_on_driver(backend, X, y)) is not None:
        return labelled_counts_of(domain, labels, *rows)

    def kernel(X_block, y_block):
        return LabelledCounts.from_sample(*labelled_indices(domain, labels, X_block, y_block), size, allow_empty=True)

    sample = backend.map_merge(kernel, functools.partial(LabelledCounts.merge, size=size), X, y)
    if sample.n == 0:
        raise DataError("X is empty: at least one record is needed")
    return sample


def _in_range_block(domain, labels, lo: int, hi: int, X_block, y_block):
    """A block's counts of the records with ``lo <= index <= hi`` and ``(zeros, ones)`` below ``lo``
    (checked against the public domain and labels; deterministic)."""
    size = domain_size(domain)
    idx, y01 = labelled_indices(domain, labels, X_block, y_block)
    if lo <= size - 1:
        keep = idx >= lo
        idx, y01, below = idx[keep], y01[keep], (int(np.sum(~keep)) - int(y01[~keep].sum()), int(y01[~keep].sum()))
    else:  # no record can lie in the ranges
        below = (int(idx.shape[0] - y01.sum()), int(y01.sum()))
        idx, y01 = idx[:0], y01[:0]
    if hi < size - 1:
        keep = idx <= hi
        idx, y01 = idx[keep], y01[keep]
    return LabelledCounts.from_sample(idx, y01, size, allow_empty=True), below


def _label_totals(domain, labels, size: int, budget: int, X_block, y_block):
    """A block's ``(zeros, ones, counts)``, its records checked against the public domain and
    labels; ``counts`` (its :class:`LabelledCounts`) only while they may be kept (``_merge_totals``)."""
    idx, y01 = labelled_indices(domain, labels, X_block, y_block)
    if idx.shape[0] == 0:
        return 0, 0, None
    ones = int(y01.sum())
    keep = _counts_may_come(size, budget, idx.shape[0])
    return idx.shape[0] - ones, ones, LabelledCounts.from_sample(idx, y01, size) if keep else None


def _counts_may_come(size: int, budget: int, n: int) -> bool:
    """Whether counts of ``n`` records on a domain of ``size`` points may come to the driver: public
    sizes only (the driver then holds at most ``budget`` distinct values)."""
    return size <= budget or n <= budget


def _merge_totals(size: int, budget: int, parts):
    """Label totals summed; the counts merged while the records so far number at most ``budget``
    or the domain holds at most ``budget`` points (then ``None``: public sizes decide, never the data)."""
    parts = list(parts)
    zeros = sum(p[0] for p in parts)
    ones = sum(p[1] for p in parts)
    held = [p[2] for p in parts if p[0] + p[1]]
    if not _counts_may_come(size, budget, zeros + ones) or any(c is None for c in held):
        return zeros, ones, None
    return zeros, ones, LabelledCounts.merge(held, size) if held else None


def _held_totals(size: int, budget: int, counts: LabelledCounts):
    """A held block's ``(zeros, ones, counts)``, its counts only while they may be kept (``_merge_totals``)."""
    return counts.n_zeros, counts.n_ones, counts if _counts_may_come(size, budget, counts.n) else None


def labelled_ranges_of(domain, labels, X, y):
    """A labelled sample read through range statistics where ``X`` lives
    (:class:`~privpac.learners.range_counts.LabelledRanges`): on an engine the driver holds its
    distinct values only when at most ``FLAT_MAX_RECORDS`` can occur (``min(n, |X|)``, public).

    On an engine that holds blocks (Dask and Spark, :meth:`~privpac.backends.NumpyBackend.hold_blocks`),
    when the domain has more than ``FLAT_MAX_RECORDS`` points (so that range passes may follow), the
    records are read, checked against the public domain and label set and counted once: their
    exact counts are held on the workers, and one pass over the held counts brings the label totals
    (before anything is spent) and, when the flat draw will want them, the counts themselves (as
    below: public sizes decide); every later pass reads the held counts. Elsewhere one exact pass
    over the records counts the records of each label (and brings those counts when they may be
    held) and checks every block; each
    range statistic is one more pass. In memory, and on Spark up to a public number of rows
    (:func:`rows_on_driver`), the sample is counted once on the driver (:func:`labelled_counts_of`)
    and read from its counts.
    """
    from ..backends.memory import NumpyBackend
    from ..learners.exponential import FLAT_MAX_RECORDS
    from ..learners.range_counts import LabelledRanges, hold_counts, in_memory_ranges

    domain = _check_domain(domain)
    backend = backend_for(X)
    if isinstance(backend, NumpyBackend):  # in memory: count once (one sort), read the counts after
        return in_memory_ranges(labelled_counts_of(domain, labels, X, y))
    if (rows := rows_on_driver(backend, X, y)) is not None:  # a small Spark sample: counted on the driver
        return in_memory_ranges(labelled_counts_of(domain, labels, *rows))
    size = domain_size(domain)
    block = functools.partial(_in_range_block, domain, labels)
    if hasattr(backend, "hold_blocks") and size > FLAT_MAX_RECORDS:  # levels may follow: hold the counts
        held = hold_counts(backend, block, size, X, y)
        zeros, ones, counts = backend.map_merge(
            functools.partial(_held_totals, size, FLAT_MAX_RECORDS),
            functools.partial(_merge_totals, size, FLAT_MAX_RECORDS),
            *held,
        )
        if zeros + ones == 0:
            raise DataError("X is empty: at least one record is needed")
        return LabelledRanges(backend, block, (X, y), size, zeros, ones, counts=counts, _held={"columns": held})
    # The count pass also brings the counts when the flat draw will want them, that is when
    # min(n, |X|) <= FLAT_MAX_RECORDS: one pass in all, and the driver holds at most that many
    # values. Whether they come is decided from |X| and the running total n (public) only.
    totals = backend.map_merge(
        functools.partial(_label_totals, domain, labels, size, FLAT_MAX_RECORDS),
        functools.partial(_merge_totals, size, FLAT_MAX_RECORDS),
        X,
        y,
    )
    zeros, ones, counts = totals
    if zeros + ones == 0:
        raise DataError("X is empty: at least one record is needed")
    return LabelledRanges(backend, block, (X, y), size, zeros, ones, counts=counts)


def counted_values_of(domain, X, counts=None) -> CountedData:
    """The exact value counts of a one-dimensional dataset, computed where ``X`` lives.

    ``counts`` (optional, integers >= 0, aligned with ``X``): row ``i`` stands for ``counts[i]``
    identical records. Block by block on Dask, merged exactly on the driver (:mod:`privpac.backends`).
    """
    from ..learners._sample import aggregate
    from ..validation import check_counts

    domain = _check_domain(domain)
    size = domain_size(domain)
    backend = backend_for(X)
    if (rows := rows_on_driver(backend, X, counts)) is not None:
        return counted_values_of(domain, *rows)

    def kernel(X_block, w_block):
        idx = domain_indices(domain, X_block)
        if idx.shape[0] == 0:
            return None
        w = (
            np.ones(idx.shape[0], dtype=np.int64)
            if w_block is None
            else check_counts(w_block, idx.shape[0], allow_all_zero=True)
        )
        values, totals = aggregate(idx, w)
        keep = totals > 0
        return CountedData(values[keep], totals[keep], size) if keep.any() else None

    counted = backend.map_merge(kernel, functools.partial(CountedData.merge, size=size), X, counts)
    if counted is None:
        raise DataError("X is empty: at least one record is needed")
    return counted
