"""The engine-neutral pieces every backend shares: consecutive chunks of a public number of rows, row
blocks sliced, concatenated and gathered by position, and the checks that the rows a pass finds are the
rows it was told of. Deterministic functions of their block, run where the block lives."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import DataError
from ..validation import check_int

#: Partial statistics merged together at each level of the merge tree on the workers.
MERGE_FAN_IN = 4


def chunk_bounds(chunk_size: int, n_rows: int) -> list[tuple[int, int]]:
    """``[(start, stop)]`` of the consecutive chunks of ``chunk_size`` rows of ``n_rows`` rows (the
    last one holds the remaining ``n_rows - (T - 1) chunk_size`` rows). Public inputs only."""
    k = check_int(chunk_size, "chunk_size", low=1)
    n = check_int(n_rows, "n_rows", low=0)
    return [(a, min(a + k, n)) for a in range(0, n, k)]


def _rows(col, a: int, b: int):
    """Rows ``a .. b - 1`` of a block column (NumPy, pandas or ``None``)."""
    if col is None:
        return None
    return col.iloc[a:b] if hasattr(col, "iloc") else col[a:b]


def _concat_rows(pieces):
    """The rows of consecutive pieces of one column, in order."""
    if pieces[0] is None:
        return None
    if hasattr(pieces[0], "iloc"):
        import pandas as pd

        return pd.concat(pieces) if len(pieces) > 1 else pieces[0]
    return np.concatenate(pieces) if len(pieces) > 1 else pieces[0]


def _check_rows(total: int, n_rows: int) -> None:
    if total != n_rows:
        raise DataError(f"the data has {total} rows, not the {n_rows} announced")


def _stop(stop, n_rows: int) -> int:
    """The public number of leading rows :meth:`NumpyBackend.map_chunks` chunks (``None``: all)."""
    return n_rows if stop is None else check_int(stop, "stop", low=0, high=n_rows)


def _wanted_positions(positions, offsets) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct positions asked for and, for every position asked, its index among
    them (``positions == wanted[inverse]``); every position must lie in ``[0, offsets[-1])``."""
    positions = np.asarray(positions)
    if positions.ndim != 1 or (positions.size and positions.dtype.kind not in "iu"):
        raise DataError(
            f"positions must be a 1-D array of row numbers, got shape {positions.shape} ({positions.dtype})"
        )
    positions = positions.astype(np.int64, copy=False)
    total = int(offsets[-1])
    if positions.size and (int(positions.min()) < 0 or int(positions.max()) >= total):
        raise DataError(f"row positions must lie in [0, {total}) for data of {total} rows")
    wanted, inverse = np.unique(positions, return_inverse=True)
    return wanted, inverse.reshape(-1)


def _check_offsets(offsets, n_blocks: int) -> list[int]:
    """Partition offsets (from :meth:`NumpyBackend.row_offsets`) for ``n_blocks`` blocks."""
    offsets = [int(v) for v in offsets]
    if len(offsets) != n_blocks + 1 or offsets[0] != 0 or any(b < a for a, b in zip(offsets, offsets[1:])):
        raise DataError(
            f"offsets must be the {n_blocks + 1} partition offsets of the data (row_offsets), got {len(offsets)}"
        )
    return offsets


def _take(col, idx):
    """The rows ``idx`` of a block column (NumPy, pandas or ``None``), in that order."""
    if col is None:
        return None
    return col.iloc[idx] if hasattr(col, "iloc") else col[idx]


def _check_block_length(rows: int, length: int) -> None:
    """A block read with offsets counted before must still hold ``length`` rows."""
    if rows != length:
        raise DataError(
            f"a partition has {rows} rows, not the {length} it had when the row positions were counted: "
            "the data changed between passes (persist it, or read it from files that do not change)"
        )


def _take_from_block(unpack, local, length: int, *block):
    """The rows at positions ``local`` of one block (runs where the block lives; deterministic).
    ``length`` is the block's row count when the offsets were taken: a block that changed
    between passes is refused."""
    columns = unpack(*block)
    _check_block_length(len(columns[0]), length)
    return tuple(_take(col, local) for col in columns)


def _positioned_block(kernel: Callable, unpack: Callable, start: int, length: int | None, *block):
    """``kernel(start, *columns)`` of one block whose first row is at ``start`` (runs where the block
    lives); with ``length`` (offsets counted before) a block of another length is refused."""
    columns = unpack(*block)
    if length is not None:
        _check_block_length(len(columns[0]), length)
    return kernel(start, *columns)


def _apply_to_chunks(kernel: Callable, start: int, bounds, columns) -> list[tuple[int, object]]:
    """``(chunk number, kernel(chunk rows))`` for the chunks lying wholly in a block whose first
    row is at ``start`` (runs where the block lives; deterministic)."""
    length = len(columns[0])
    out = []
    if not bounds:
        return out
    k = bounds[0][1] - bounds[0][0]
    for c in range(-(-start // k), len(bounds)):  # chunks are regular: the first one starting in the block
        a, b = bounds[c]
        if b > start + length:
            break
        out.append((c, kernel(*(_rows(col, a - start, b - start) for col in columns))))
    return out


def block_length(*block) -> int:
    """The number of rows of a block (a kernel: the exact row count is the sum over blocks)."""
    return len(block[0])


def whole_chunk(*chunk) -> tuple:
    """A chunk's rows as they are (a kernel: :meth:`~privpac.backends.NumpyBackend.map_chunks` with
    one chunk of all rows brings them to the driver in row order)."""
    return chunk


def _keyed(parts, n_keys: int) -> list:
    parts = list(parts)
    if len(parts) != n_keys:
        raise DataError(f"a keyed kernel returned {len(parts)} partials, not {n_keys}")
    return parts


def _key_of(n_keys: int, k: int, parts):
    return _keyed(parts, n_keys)[k]
