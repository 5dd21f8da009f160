"""The Dask backend: a statistic computed partition by partition in Dask tasks and merged exactly in a
tree of merges on the workers, so the driver receives one merged statistic."""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable

import numpy as np

from ..errors import DataError
from .rows import (
    MERGE_FAN_IN,
    _apply_to_chunks,
    _check_offsets,
    _check_rows,
    _concat_rows,
    _key_of,
    _positioned_block,
    _rows,
    _stop,
    _take,
    _take_from_block,
    _wanted_positions,
    chunk_bounds,
)


def _finish_key(finish: Callable, merge: Callable, k: int, partial):
    return finish(k, merge([partial]))


def _identity(*block):
    return block


class HeldBlocks:
    """Blocks of a statistic kept on the workers between passes (:meth:`DaskBackend.hold_blocks`):
    persisted Dask delayed objects, released when the last reference to this object goes."""

    def __init__(self, blocks: list):
        self.blocks = blocks

    def __len__(self) -> int:
        return len(self.blocks)


_FRAME_LABELS = (
    "with a Dask DataFrame X, y must be a Dask Series of the same frame (for example X = df[['x']], y = df['y'])"
)


def _on_partition(block, kernel, *others):
    """``kernel`` on one partition of X (a frame: Dask may hand a one-column frame's partition as a
    Series) and the aligned partitions of the other columns."""
    if not hasattr(block, "columns"):
        block = block.to_frame()
    return kernel(block, *others)


def _split_frame(names, extra, block):
    if not hasattr(block, "columns"):  # Dask may hand a one-column frame's partition as a Series
        block = block.to_frame()
    return (block[names], *(None if key is None else block[key] for key in extra))


def _unpacked(kernel: Callable, unpack: Callable) -> Callable:
    return lambda *block: kernel(*unpack(*block))


def _chunks_of_block(kernel, unpack, start, bounds, *block):
    return _apply_to_chunks(kernel, start, bounds, unpack(*block))


def _slice_block(a, b, *block):
    return tuple(_rows(col, a, b) for col in block)


def _chunk_of_pieces(kernel, unpack, c, *pieces):
    block = tuple(_concat_rows([piece[i] for piece in pieces]) for i in range(len(pieces[0])))
    return c, kernel(*unpack(*block))


class DaskBackend:
    """Statistics computed on a Dask cluster, partition by partition, merged on the driver.

    The inputs must have the same number of rows; a Dask array label column is rechunked to the
    feature blocks, a NumPy label column is split to them. Dask DataFrame and Series inputs must
    have the same number of partitions (for example ``df[["x"]]`` and ``df["y"]``).
    """

    name = "dask"

    def map_merge(self, kernel: Callable, merge: Callable, *columns):
        return self._tree(merge, self._mapped(kernel, columns))

    def map_merge_keyed(self, kernel: Callable, merge: Callable, finish: Callable, n_keys: int, *columns) -> list:
        """See :meth:`NumpyBackend.map_merge_keyed`: one tree of merges per key on the workers, and
        ``finish`` in the task that holds the key's merged partial."""
        import dask

        partials = self._mapped(kernel, columns)
        finished = []
        for k in range(n_keys):
            parts = [dask.delayed(_key_of)(n_keys, k, p) for p in partials]
            while len(parts) > 1:
                groups = [parts[i : i + MERGE_FAN_IN] for i in range(0, len(parts), MERGE_FAN_IN)]
                parts = [dask.delayed(merge)(group) if len(group) > 1 else group[0] for group in groups]
            finished.append(dask.delayed(_finish_key)(finish, merge, k, parts[0] if parts else None))
        (results,) = dask.compute(finished)
        return list(results)

    def hold_blocks(self, kernel: Callable, merge: Callable, *columns) -> tuple:
        """See :meth:`NumpyBackend.hold_blocks`: ``kernel`` per partition, the results of
        ``MERGE_FAN_IN`` consecutive partitions merged (the first level of a merge tree), persisted
        on the workers. Returns the columns of the held blocks for the next passes of this backend
        (:class:`HeldBlocks`); nothing comes to the driver. On a distributed cluster the call returns
        at once and the next pass waits for the blocks; a local scheduler computes them now."""
        import dask

        parts = self._mapped(kernel, columns)
        groups = [parts[i : i + MERGE_FAN_IN] for i in range(0, len(parts), MERGE_FAN_IN)]
        held = [dask.delayed(merge)(group) if len(group) > 1 else group[0] for group in groups]
        return (HeldBlocks(list(dask.persist(*held))),)

    def map_merge_rows(self, kernel: Callable, merge: Callable, *columns, offsets=None):
        """See :meth:`NumpyBackend.map_merge_rows` (one exact count pass gives the block offsets,
        unless ``offsets`` are given: then each block checks its length where it lives)."""
        import dask

        blocks, unpack = self._blocks(columns)
        if offsets is None:
            starts, lengths = self._starts(blocks), [None] * len(blocks)
        else:
            starts = _check_offsets(offsets, len(blocks))
            lengths = [b - a for a, b in zip(starts, starts[1:])]
        tasks = [
            dask.delayed(_positioned_block)(kernel, unpack, start, length, *block)
            for start, length, block in zip(starts, lengths, blocks)
        ]
        return self._tree(merge, tasks)

    def map_chunks(self, kernel: Callable, chunk_size: int, n_rows: int, *columns, stop: int | None = None) -> list:
        """See :meth:`NumpyBackend.map_chunks`. A chunk inside one partition is computed in that
        partition's task; a chunk straddling partitions in a task of its own that receives only
        its pieces (sliced where they live) and concatenates them in row order."""
        import dask

        blocks, unpack = self._blocks(columns)
        starts = self._starts(blocks)
        _check_rows(starts[-1], n_rows)
        last = _stop(stop, n_rows)
        bounds = chunk_bounds(chunk_size, last)
        ends = starts[1:]
        whole = [
            dask.delayed(_chunks_of_block)(kernel, unpack, start, bounds, *block)
            for start, end, block in zip(starts, ends, blocks)
            if start < min(end, last)  # no task for an empty partition or one past the public stop
        ]
        straddling = []
        for c, (a, b) in enumerate(bounds):
            # the non-empty partitions that hold rows a .. b - 1
            first, last = bisect.bisect_right(starts, a) - 1, bisect.bisect_left(starts, b) - 1
            parts = [p for p in range(first, last + 1) if starts[p] < ends[p]]
            if len(parts) > 1:
                pieces = [
                    dask.delayed(_slice_block)(max(a, starts[p]) - starts[p], min(b, ends[p]) - starts[p], *blocks[p])
                    for p in parts
                ]
                straddling.append(dask.delayed(_chunk_of_pieces)(kernel, unpack, c, *pieces))
        found, joined = dask.compute(whole, straddling)
        results = dict(pair for block in found for pair in block)
        results.update(dict(joined))
        return [results[c] for c in range(len(bounds))]

    def row_offsets(self, *columns) -> list[int]:
        """See :meth:`NumpyBackend.row_offsets` (one exact count pass)."""
        blocks, _ = self._blocks(columns)
        return self._starts(blocks)

    def take_rows(self, positions, *columns, offsets=None) -> tuple:
        """See :meth:`NumpyBackend.take_rows`. One task per partition holding a position asked for
        returns those rows (each distinct position once); the driver concatenates them in row
        order and repeats them into the order asked."""
        import dask

        blocks, unpack = self._blocks(columns)
        starts = self._starts(blocks) if offsets is None else _check_offsets(offsets, len(blocks))
        wanted, inverse = _wanted_positions(positions, starts)
        cuts = np.searchsorted(wanted, starts)  # the positions in block p: wanted[cuts[p] : cuts[p + 1]]
        tasks = [
            dask.delayed(_take_from_block)(
                unpack, wanted[cuts[p] : cuts[p + 1]] - starts[p], starts[p + 1] - starts[p], *block
            )
            for p, block in enumerate(blocks)
            if cuts[p] < cuts[p + 1]
        ]
        if not tasks:  # no position asked: the columns' empty selections, from the first block
            tasks = [dask.delayed(_take_from_block)(unpack, wanted, starts[1] - starts[0], *blocks[0])]
        (pieces,) = dask.compute(tasks)
        found = [_concat_rows([piece[i] for piece in pieces]) for i in range(len(pieces[0]))]
        return tuple(_take(col, inverse) for col in found)

    @staticmethod
    def _tree(merge: Callable, parts: list):
        import dask

        # A tree of merges on the workers: the driver receives one merged statistic (at most
        # min(n, |X|) distinct values), never the concatenation of every partition's.
        while len(parts) > 1:
            groups = [parts[i : i + MERGE_FAN_IN] for i in range(0, len(parts), MERGE_FAN_IN)]
            parts = [dask.delayed(merge)(group) if len(group) > 1 else group[0] for group in groups]
        (result,) = dask.compute(parts[0])
        return merge([result])

    @staticmethod
    def _starts(blocks) -> list[int]:
        """Global position of every block's first row, and the total last (one exact count pass)."""
        import dask

        (lengths,) = dask.compute([dask.delayed(len)(block[0]) for block in blocks])
        return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).tolist()

    def _mapped(self, kernel: Callable, columns) -> list:
        """``kernel(*block)`` for every aligned block, as one delayed object per block. On a Dask
        DataFrame the kernel runs in the partition's own task (``map_partitions``: the column
        selections and the kernel fused, no intermediate frame), as pandas objects."""
        import dask

        if hasattr(columns[0], "divisions"):  # Dask DataFrame or Series
            first = columns[0]
            for col in columns[1:]:
                if col is not None and not hasattr(col, "divisions"):
                    raise DataError(_FRAME_LABELS)
            mapped = first.map_partitions(
                _on_partition, kernel, *columns[1:], meta=("privpac", object), enforce_metadata=False
            )
            return list(mapped.to_delayed())
        blocks, unpack = self._blocks(columns)
        return [dask.delayed(_unpacked(kernel, unpack))(*block) for block in blocks]

    def _blocks(self, columns):
        """Aligned row blocks (one tuple of delayed objects per block) and the function that turns
        a block's objects into the kernel's columns."""
        if isinstance(columns[0], HeldBlocks):  # blocks kept on the workers by hold_blocks
            return [(block,) for block in columns[0].blocks], _identity
        if hasattr(columns[0], "divisions"):  # Dask DataFrame or Series (arrays have no divisions)
            return self._frame_blocks(columns)
        return list(zip(*self._aligned_blocks(columns))), _identity

    @staticmethod
    def _frame_blocks(columns):
        """Partitions of X with the other columns attached row by row (one frame, so Dask cannot
        partition the label column differently from the features), and a function that splits them."""
        first = columns[0]
        frame = first.to_frame() if not hasattr(first, "columns") else first
        names = list(frame.columns)
        extra = []
        for i, col in enumerate(columns[1:]):
            if col is None:
                extra.append(None)
                continue
            if not hasattr(col, "divisions"):
                raise DataError(_FRAME_LABELS)
            key = f"__privpac_column_{i}"
            frame = frame.assign(**{key: col})
            extra.append(key)
        return [(part,) for part in frame.to_delayed()], functools.partial(_split_frame, names, extra)

    @staticmethod
    def _aligned_blocks(columns):
        import dask.array as da

        first = columns[0]
        if isinstance(first, da.Array):
            chunks = first.chunks[0]
            if any(np.isnan(c) for c in chunks):
                first = first.compute_chunk_sizes()
                chunks = first.chunks[0]
            out = [first.rechunk({i: -1 for i in range(1, first.ndim)}).to_delayed().ravel().tolist()]
            for col in columns[1:]:
                if col is None:
                    out.append([None] * len(out[0]))
                    continue
                col = col if isinstance(col, da.Array) else da.from_array(np.asarray(col), chunks=(chunks,))
                if col.shape[0] != first.shape[0]:
                    raise DataError(f"X has {first.shape[0]} rows and y has {col.shape[0]}")
                out.append(col.rechunk((chunks,) + col.chunks[1:]).to_delayed().ravel().tolist())
            return out
        raise DataError(f"unsupported Dask collection {type(first).__name__}")
