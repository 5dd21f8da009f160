"""The in-memory backend: the whole input is one block, so a fit in memory runs the same code path
(kernel, exact merge) as one on an engine."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import DataError
from .rows import (
    _check_block_length,
    _check_offsets,
    _check_rows,
    _keyed,
    _rows,
    _stop,
    _take,
    _wanted_positions,
    chunk_bounds,
)


class NumpyBackend:
    """The in-memory backend: the whole input is one block."""

    name = "numpy"

    def map_merge(self, kernel: Callable, merge: Callable, *columns):
        return merge([kernel(*columns)])

    def map_merge_keyed(self, kernel: Callable, merge: Callable, finish: Callable, n_keys: int, *columns) -> list:
        """``[finish(k, merged partial of key k) for k in 0 .. n_keys - 1]``: a statistic in
        ``n_keys`` parts (public), each merged on its own and finished where it was merged.

        ``kernel(*block)`` returns ``n_keys`` partials (``None`` for a key the block holds nothing
        of); ``merge(list)`` merges a key's partials exactly and associatively (``None`` when all
        are ``None``); ``finish(k, merged)`` turns key ``k``'s merged partial (or ``None``) into a
        small result, deterministically: on an engine it runs on a worker, so the driver receives
        the ``n_keys`` results and never a key's merged partial. For statistics whose result is not
        a function of per-block results (the local sums of
        :mod:`privpac.learners.range_counts`): a key's exact partials are merged before anything is
        computed from them, so the result is the same bits on every engine and partitioning.
        """
        return [finish(k, merge([p])) for k, p in enumerate(_keyed(kernel(*columns), n_keys))]

    def hold_blocks(self, kernel: Callable, merge: Callable, *columns) -> tuple:
        """The columns of a statistic kept where the data lives for the next passes of this backend:
        ``kernel(*block)`` per block, merged exactly with ``merge`` in groups of consecutive blocks
        (in memory: ``(merge([kernel(*columns)]),)``, one block).

        For a sequence of passes over the same per-block summary (the levels of a grouped
        exponential mechanism read the same exact counts): the summary is computed once, and each
        later pass maps its kernel over the held blocks (``map_merge``, ``map_merge_keyed``) instead
        of recomputing it from the records. Nothing comes to the driver; on an engine the blocks
        stay on the workers as long as the returned columns are referenced. The kernel is
        deterministic (no randomness), as for every pass.
        """
        return (merge([kernel(*columns)]),)

    def map_merge_rows(self, kernel: Callable, merge: Callable, *columns, offsets=None):
        """:meth:`map_merge` whose kernel also receives, first, the global position of its block's
        first row (``kernel(start, *block)``): how a learner tells the first ``n`` records from the
        rest. One exact count pass locates the blocks on an engine, unless ``offsets`` from
        :meth:`row_offsets` are given (a sequence of passes counts once; a block whose length
        differs from its offsets is then refused)."""
        if offsets is not None:
            _check_offsets(offsets, 1)
            _check_block_length(len(columns[0]), int(offsets[1]))
        return merge([kernel(0, *columns)])

    def map_chunks(self, kernel: Callable, chunk_size: int, n_rows: int, *columns, stop: int | None = None) -> list:
        """``[kernel(*rows of chunk t) for t in 0 .. T - 1]`` over consecutive chunks of ``chunk_size``
        rows by row position (:func:`chunk_bounds`; the last chunk may be shorter), in order.

        ``stop`` (public, at most ``n_rows``): chunk the rows at positions ``0 .. stop - 1`` only; the
        rows after them reach no kernel (sample-and-aggregate drops a tail of fewer than one chunk per
        chunk). ``None``: every row.

        For sample-and-aggregate: ``chunk_size`` and ``n_rows`` are public (``n_rows`` is checked
        against the exact row count), chunks follow the row order, never record values, and a
        chunk that straddles partitions is assembled exactly from its pieces. The kernel must be
        deterministic (no randomness: it may run again on a retried task) and receives the
        chunk's rows of every column (``None`` stays ``None``); its results come back to the
        driver, so it should return a small summary (a chunk's non-private estimate).
        """
        _check_rows(len(columns[0]), n_rows)
        bounds = chunk_bounds(chunk_size, _stop(stop, n_rows))
        return [kernel(*(_rows(col, a, b) for col in columns)) for a, b in bounds]

    def row_offsets(self, *columns) -> list[int]:
        """Global position of every block's first row, and the number of rows last: ``[0, n]`` in
        memory (on an engine: one exact count pass). Pass it to :meth:`take_rows` to spare the
        count in a sequence of gathers."""
        return [0, len(columns[0])]

    def take_rows(self, positions, *columns, offsets=None) -> tuple:
        """The rows at ``positions`` of every column, in the order given (repeats allowed): in memory,
        fancy indexing.

        For learners that read records at positions drawn on the driver, independently of the data
        (BST14's noisy SGD reads the record at a uniformly drawn position at each step). On an engine
        one pass (plus one count pass unless ``offsets`` from :meth:`row_offsets` are given) reads,
        in each partition, the rows it holds among the distinct positions asked for; the driver
        receives those rows once each and puts them in the order asked. Positions outside
        ``[0, n)`` raise :class:`~privpac.errors.DataError`. Kernels are deterministic; a partition
        whose length differs from its offsets is refused. Columns come back as their blocks are
        (NumPy arrays, pandas objects; ``None`` stays ``None``).
        """
        offsets = _check_offsets(self.row_offsets(*columns) if offsets is None else offsets, 1)
        if offsets[1] != len(columns[0]):
            raise DataError(f"the data has {len(columns[0])} rows, not the {offsets[1]} of the offsets")
        wanted, inverse = _wanted_positions(positions, offsets)
        return tuple(_take(col, wanted[inverse]) for col in columns)
