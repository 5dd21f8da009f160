"""Box data on a public domain: the grid points of a sample and the sample where it lives.

:class:`BoxSample` reads a box learner's labelled sample through exact statistics computed block by
block where the data lives (:mod:`privpac.backends`): its kernels are functions of this module, which a
Dask or Spark worker imports without scikit-learn or the estimators.
"""

from __future__ import annotations

import functools

import numpy as np

from ..backends import backend_for
from ..domains import Grid, IntegerDomain
from ..errors import DataError, DomainError, InvalidParameterError
from ..learners.boxes import as_grid_points
from ..learners.randmargins_windows import merge_windows, window_statistic
from ..validation import check_array, check_counts, check_labels

__all__ = ["BoxSample", "box_x_max", "grid_points"]


def box_x_max(domain, d: int) -> tuple[int, ...]:
    """The largest grid index per feature for ``d`` features on a public domain."""
    if isinstance(domain, IntegerDomain):
        if domain.max_index > 2**64 - 1:
            raise InvalidParameterError("rectangle learners support at most 2^64 points per feature")
        return (domain.max_index,) * d
    if isinstance(domain, Grid):
        return tuple(int(v) - 1 for v in domain.broadcast(d).n_points)
    raise InvalidParameterError("PrivateRectangleClassifier needs an IntegerDomain or a Grid")


def grid_points(domain, X, name: str = "X") -> tuple[np.ndarray, tuple[int, ...]]:
    """Validated grid indices of ``X`` (shape ``(n, d)``) on the public domain, and ``x_max``."""
    X = check_array(X, name, ndim=2, allow_empty=True)
    n, d = X.shape
    x_max = box_x_max(domain, d)
    if isinstance(domain, IntegerDomain):
        if X.dtype != object and np.issubdtype(X.dtype, np.integer):
            # vectorised for every domain up to 2^64 points: 0 <= x - lo < 2^64 once validated,
            # so unsigned wrap-around arithmetic gives the index exactly
            if X.size and (int(X.min()) < domain.lo or int(X.max()) > domain.hi):
                bad = int(X.min()) if int(X.min()) < domain.lo else int(X.max())
                raise DomainError(f"{name} contains {bad}, outside the domain [{domain.lo}, {domain.hi}]")
            idx = X.astype(np.uint64) - np.uint64(domain.lo % 2**64)
        else:
            flat = domain.to_index(X.reshape(-1) if X.dtype != object else np.asarray(X.ravel(), dtype=object), name)
            idx = np.asarray(flat.tolist() if flat.dtype == object else flat).reshape(n, d)
    else:
        idx = domain.broadcast(d).to_index(X, name)  # a one-dimensional grid applies to every feature
    return as_grid_points(idx, x_max, name), x_max


def _box_block(domain, labels, x_max, stat, X_block, y_block, w_block):
    """One block: validated grid points, labels and multiplicities, and the method's statistic
    (deterministic, no randomness; runs where the block lives)."""
    P, block_max = grid_points(domain, X_block)
    if block_max != x_max:
        raise DataError(f"X has {len(block_max)} features in one block, {len(x_max)} in another")
    y01 = check_labels(y_block, labels, P.shape[0])
    if w_block is None:
        w = np.ones(P.shape[0], dtype=np.int64)
    else:
        w = check_counts(w_block, P.shape[0], allow_all_zero=True)
    return int(np.sum(w, dtype=np.int64)), stat(P, y01, w, x_max)


def _randmargins_block(domain, labels, x_max, plan, key, j, references, k, start, X_block, y_block):
    """One block of one RandMargins round (deterministic, no randomness; runs where the block lives)."""
    P, block_max = grid_points(domain, X_block)
    if block_max != x_max:
        raise DataError(f"X has {len(block_max)} features in one block, {len(x_max)} in another")
    positive = check_labels(y_block, labels, P.shape[0]) == 1
    rows = start + np.flatnonzero(positive)
    return window_statistic(P[positive], rows, key, plan, j, references, k)


def _merge_box(merge, parts):
    parts = list(parts)
    return sum(p[0] for p in parts), merge([p[1] for p in parts])


class BoxSample:
    """The labelled training sample of a box learner where it lives (:mod:`privpac.backends`).

    A method reads it through :meth:`statistic`: an exact function of each block's validated grid
    points, 0/1 labels and multiplicities, merged exactly across blocks (one pass; every record
    is checked against the public domain and label set before the method spends anything). In
    memory the whole sample is one block, so memory, Dask and Spark fits share one code path.
    :meth:`randmargins_window` reads RandMargins' rounds, one pass each.
    """

    def __init__(self, domain, labels, x_max, X, y, counts=None):
        self.domain, self.labels, self.x_max = domain, tuple(labels), x_max
        self.X, self.y, self.counts = X, y, counts
        self._n: int | None = None

    @property
    def n(self) -> int:
        """The number of records (public under replace-one), from the first pass (or a count pass)."""
        if self._n is None:
            self.statistic(lambda P, y01, w, x_max: None, lambda parts: None, counts=True)
        return self._n

    def statistic(self, stat, merge, counts: bool = False):
        """``merge`` of ``stat(P, y01, w, x_max)`` over the blocks; sets ``n`` (records, public)."""
        if self.counts is not None and not counts:
            raise InvalidParameterError("counts is supported by method='bns' only")
        kernel = functools.partial(_box_block, self.domain, self.labels, self.x_max, stat)
        merged = functools.partial(_merge_box, merge)
        n, value = backend_for(self.X).map_merge(kernel, merged, self.X, self.y, self.counts)
        if n == 0:
            raise InvalidParameterError(
                "X is empty: at least one record is needed" if self.counts is None else "counts are all 0"
            )
        self._n = int(n)
        return value

    def randmargins_window(self, plan):
        """RandMargins' window reader (:func:`~privpac.learners.randmargins.run_randmargins`): round
        ``j``'s alive count and top keys, one pass of :func:`~privpac.learners.randmargins_windows.window_statistic`
        over the blocks (the positives' row positions give their tags, the released references
        replay the deletions where the rows live), merged exactly on the driver. In memory the whole
        sample is one block of the same pass. The blocks' row offsets are counted once, here, for
        every round (and a DataFrame whose rows have no positions is refused before a round runs)."""
        if self.counts is not None:
            raise InvalidParameterError("counts is supported by method='bns' only")
        backend = backend_for(self.X)
        offsets = backend.row_offsets(self.X, self.y)

        def read(key, j, references, k):
            kernel = functools.partial(_randmargins_block, self.domain, self.labels, self.x_max, plan, key, j,
                                       tuple(references), k)  # fmt: skip
            merge = functools.partial(merge_windows, k=k)
            return backend.map_merge_rows(kernel, merge, self.X, self.y, offsets=offsets)

        return read
