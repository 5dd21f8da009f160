"""Where the exact statistics of a fit are computed: in memory, or partition by partition on Dask.

A learner reads its data only through a few exact statistics (for the one-dimensional learners,
:class:`~privpac.learners._sample.LabelledCounts`: sorted distinct values with the number of
records of each label). A backend computes such a statistic with a *kernel* applied to aligned
row blocks of the inputs, and merges the per-block results exactly (on Dask, in a tree of merges on
the workers, so the driver receives one merged statistic). The learner then runs on the driver,
which draws all noise once. In memory, the whole input is one block, so there is one code path for
every engine.

Privacy on an engine:

* kernels are deterministic functions of their block and take no randomness: a retried or
  speculatively re-run task gives the same result and never redraws noise;
* a counting statistic is an exact integer function of the multiset of records, identical for
  every partitioning, so a fixed ``random_state`` gives the same model on every engine; a
  floating-point sum (the gradient sums of :class:`~privpac.learners.dp_erm.EngineGradientSum`)
  equals the in-memory sum up to rounding (about 1e-12 relative), so such a model agrees to about
  1e-8, not bit for bit; each record's contribution stays bounded, so privacy is unaffected;
* the number of records is exact, which is public only under replace-one neighbours (privpac's
  neighbouring relation throughout).

Row positions. :meth:`~NumpyBackend.map_merge_rows` hands each kernel the global position of its
block's first row and :meth:`~NumpyBackend.map_chunks` applies a kernel to consecutive chunks of a
public number of rows (chunks may straddle partitions): both locate the blocks with one exact
count pass (partition offsets). :meth:`~NumpyBackend.take_rows` gathers the rows at given
positions (drawn on the driver independently of the data, as BST14's noisy SGD draws the record of
each step) in one pass. Positions are the collection's own row order (Dask: partition
order; Spark: partition index, then the order within the partition, which must be deterministic,
as for a file read, not the output of a shuffle); nothing is routed by record values.

Dask collections (``dask.array.Array``, ``dask.dataframe.DataFrame`` or ``Series``) and Spark
DataFrames (``pyspark.sql.DataFrame``, the label given as a column name) are recognised without
importing either engine; an engine is needed only when you pass its data.

Spark without setup. :func:`spark_session` builds a session (checking Java first, with a one-line
error when it is missing). Whatever built the session, privpac's own Spark jobs make sure the
workers can run them, once per Spark application, before the first job of a fit:

* on a local master (``local``, ``local[4]``, ...) the workers run on this machine, so privpac's
  jobs use this interpreter (``sys.executable``) unless ``PYSPARK_PYTHON`` chose another one;
  PySpark's own default, ``python3`` on the ``PATH``, is often a Python without privpac (a
  virtual environment that is not activated, a console script) and fails deep in a task;
* a one-task probe job asks the workers' Python for privpac and the modules its kernels import
  (numpy, scipy, scikit-learn, pandas, pyarrow, tqdm). If only privpac is missing (a cluster whose
  workers have the dependencies), privpac ships its own pure-Python source to the application
  (``SparkContext.addPyFile``) and probes again; a missing dependency, a different privpac
  version or a worker Python that does not start is an :class:`~privpac.errors.EngineError` saying
  what to set (``PYSPARK_PYTHON``, or ``spark.pyspark.python`` with ``spark-submit``).
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .errors import DataError, EngineError
from .validation import check_int, is_engine_collection, module_root

__all__ = [
    "NumpyBackend",
    "DaskBackend",
    "SparkBackend",
    "spark_session",
    "backend_for",
    "is_engine_collection",
    "chunk_bounds",
    "MERGE_FAN_IN",
]

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


def _take_from_block(unpack, local, length: int, *block):
    """The rows at positions ``local`` of one block (runs where the block lives; deterministic).
    ``length`` is the block's row count when the offsets were taken: a block that changed
    between passes is refused."""
    columns = unpack(*block)
    if len(columns[0]) != length:
        raise DataError(
            f"a partition has {len(columns[0])} rows, not the {length} it had when the row positions were counted: "
            "the data changed between passes (persist it, or read it from files that do not change)"
        )
    return tuple(_take(col, local) for col in columns)


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


def _keyed(parts, n_keys: int) -> list:
    parts = list(parts)
    if len(parts) != n_keys:
        raise DataError(f"a keyed kernel returned {len(parts)} partials, not {n_keys}")
    return parts


def _key_of(n_keys: int, k: int, parts):
    return _keyed(parts, n_keys)[k]


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

    def map_merge_rows(self, kernel: Callable, merge: Callable, *columns):
        """:meth:`map_merge` whose kernel also receives, first, the global position of its block's
        first row (``kernel(start, *block)``): how a learner tells the first ``n`` records from the
        rest. One exact count pass locates the blocks on an engine."""
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


def _finish_key(finish: Callable, merge: Callable, k: int, partial):
    return finish(k, merge([partial]))


def _identity(*block):
    return block


def _split_frame(names, extra, block):
    if not hasattr(block, "columns"):  # Dask may hand a one-column frame's partition as a Series
        block = block.to_frame()
    return (block[names], *(None if key is None else block[key] for key in extra))


def _unpacked(kernel: Callable, unpack: Callable, positioned: bool = False) -> Callable:
    if positioned:
        return lambda start, *block: kernel(start, *unpack(*block))
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
        import dask

        blocks, unpack = self._blocks(columns)
        return self._tree(merge, [dask.delayed(_unpacked(kernel, unpack))(*block) for block in blocks])

    def map_merge_keyed(self, kernel: Callable, merge: Callable, finish: Callable, n_keys: int, *columns) -> list:
        """See :meth:`NumpyBackend.map_merge_keyed`: one tree of merges per key on the workers, and
        ``finish`` in the task that holds the key's merged partial."""
        import dask

        blocks, unpack = self._blocks(columns)
        partials = [dask.delayed(_unpacked(kernel, unpack))(*block) for block in blocks]
        finished = []
        for k in range(n_keys):
            parts = [dask.delayed(_key_of)(n_keys, k, p) for p in partials]
            while len(parts) > 1:
                groups = [parts[i : i + MERGE_FAN_IN] for i in range(0, len(parts), MERGE_FAN_IN)]
                parts = [dask.delayed(merge)(group) if len(group) > 1 else group[0] for group in groups]
            finished.append(dask.delayed(_finish_key)(finish, merge, k, parts[0] if parts else None))
        (results,) = dask.compute(finished)
        return list(results)

    def map_merge_rows(self, kernel: Callable, merge: Callable, *columns):
        """See :meth:`NumpyBackend.map_merge_rows` (one exact count pass gives the block offsets)."""
        import dask

        blocks, unpack = self._blocks(columns)
        starts = self._starts(blocks)
        fn = _unpacked(kernel, unpack, positioned=True)
        return self._tree(merge, [dask.delayed(fn)(start, *block) for start, block in zip(starts, blocks)])

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

    def _blocks(self, columns):
        """Aligned row blocks (one tuple of delayed objects per block) and the function that turns
        a block's objects into the kernel's columns."""
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
                raise DataError(
                    "with a Dask DataFrame X, y must be a Dask Series of the same frame (for example X = df[['x']], "
                    "y = df['y'])"
                )
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


# -- Spark without setup -------------------------------------------------------------------------

#: What privpac's Spark kernels import on the workers (privpac.estimators pulls numpy, scipy,
#: scikit-learn and tqdm; mapInArrow batches arrive as pyarrow and are read with pandas).
_WORKER_MODULES = ("numpy", "pandas", "pyarrow", "privpac.estimators")


def _java() -> str:
    """The ``java`` Spark will launch (``$JAVA_HOME/bin/java``, else the one on ``PATH``), or an EngineError."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / ("java.exe" if os.name == "nt" else "java")
        if not java.exists():
            raise EngineError(f"JAVA_HOME={home} holds no bin/java: point JAVA_HOME at a Java 17+ installation")
        return str(java)
    java = shutil.which("java")
    if java is None:
        raise EngineError(
            "Spark needs Java 17 or later and none was found (no JAVA_HOME, no java on PATH): install a JDK "
            "(e.g. apt install openjdk-17-jre-headless) or set JAVA_HOME"
        )
    return java


def spark_session(master: str = "local[*]", app_name: str = "privpac", config: dict | None = None):
    """A SparkSession for privpac's fits, from a fresh install: no environment variable needed.

    Parameters
    ----------
    master : str, default="local[*]"
        The Spark master: ``local[*]`` (every core of this machine) or a cluster URL such as
        ``spark://host:7077`` or ``yarn``.
    app_name : str, default="privpac"
        The application name (the Spark UI shows it).
    config : dict or None, default=None
        More Spark settings (``{"spark.executor.memory": "4g"}``).

    Returns
    -------
    pyspark.sql.SparkSession
        ``SparkSession.builder.getOrCreate()``: the active session if there is one (its settings
        stay as they are). On a local master the driver binds to 127.0.0.1 (no hostname lookup).

    Raises
    ------
    privpac.errors.EngineError
        No pyspark, no Java (checked before Spark tries to start), or a Java gateway that does not
        start (an old Java, for example), each in one line.

    Notes
    -----
    Java is looked up first so that a missing one is a one-line error, not PySpark's "Java gateway
    process exited". The workers' Python is taken care of when privpac first runs a job on the
    session, whoever built it (see the module notes): a local master needs nothing; on a cluster the
    workers need a Python with privpac's dependencies, named by ``spark.pyspark.python`` or
    ``PYSPARK_PYTHON`` (docs/scale.md).

    Examples
    --------
    >>> from privpac.backends import spark_session                     # doctest: +SKIP
    >>> spark = spark_session()                                         # doctest: +SKIP
    >>> df = spark.read.parquet("records.parquet")                      # doctest: +SKIP
    >>> PrivateThresholdClassifier(domain=(0, 2**32 - 1)).fit(df, "label")  # doctest: +SKIP
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise EngineError("Spark fits need pyspark and pyarrow: pip install 'privpac[spark]'") from None
    java = _java()
    builder = SparkSession.builder.master(master).appName(app_name)
    if master.startswith("local"):
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    for key, value in (config or {}).items():
        builder = builder.config(key, value)
    try:
        return builder.getOrCreate()
    except Exception as exc:  # PySpark raises its own error types when the JVM does not come up
        if "JAVA_GATEWAY_EXITED" not in str(exc) and "Java gateway" not in str(exc):
            raise
        raise EngineError(
            f"Spark could not start Java ({java}): Spark {_pyspark_version()} needs Java 17 or later; "
            "check `java -version` or set JAVA_HOME"
        ) from None


def _pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


#: Spark applications (``(application id, worker Python)``) whose workers run privpac's jobs.
_SPARK_READY: set = set()
#: Per SparkContext: how many privpac passes run on it, and the worker Python to restore after them.
_SPARK_USERS: dict = {}
_SPARK_LOCK = threading.Lock()


def _worker_python(sc) -> str:
    """The Python privpac's jobs run on: this interpreter on a local master unless PYSPARK_PYTHON chose
    one (PySpark's default, ``python3`` on the PATH, need not have privpac), else the context's."""
    chosen = os.environ.get("PYSPARK_PYTHON")
    if sc.master.startswith("local") and sc.pythonExec == "python3" and chosen in (None, ""):
        return sys.executable
    return sc.pythonExec


def _run_probe(sc) -> tuple:
    """``(status, module or version, worker executable)`` from a one-task job."""
    modules = _WORKER_MODULES

    def probe(_):  # a nested function travels by value: it runs even where privpac cannot be imported
        import importlib
        import sys

        for module in modules:
            try:
                importlib.import_module(module)
            except ImportError as exc:
                return ("missing", exc.name or module, sys.executable)
        return ("ok", importlib.import_module("privpac").__version__, sys.executable)

    try:
        return sc.parallelize([0], 1).map(probe).collect()[0]
    except Exception as exc:
        first = next((line for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        raise EngineError(
            f"Spark's workers could not run Python {sc.pythonExec!r} ({first.strip()[:200]}): set PYSPARK_PYTHON "
            "(or spark.pyspark.python) to a Python with privpac installed on every worker"
        ) from None


def _privpac_zip() -> str:
    """privpac's own source as a zip for ``SparkContext.addPyFile`` (pure Python: nothing to build)."""
    import tempfile
    import zipfile

    package = Path(__file__).resolve().parent
    if any(package.rglob("*.so")) or any(package.rglob("*.pyd")):
        raise EngineError("privpac cannot ship itself to Spark's workers (compiled files): install it on them")
    from . import __version__

    path = Path(tempfile.mkdtemp(prefix="privpac-spark-")) / f"privpac-{__version__}.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in sorted(package.rglob("*.py")):
            zf.write(file, Path("privpac") / file.relative_to(package))
    return str(path)


def _check_spark_workers(sc) -> None:
    """Probe once per application and worker Python; ship privpac if only privpac is missing."""
    from . import __version__

    key = (sc.applicationId, sc.pythonExec)
    if key in _SPARK_READY:
        return
    status, found, executable = _run_probe(sc)
    if status == "missing" and found.split(".")[0] == "privpac":
        sc.addPyFile(_privpac_zip())
        status, found, executable = _run_probe(sc)
    if status == "missing":
        raise EngineError(
            f"Spark's workers run Python {executable}, which cannot import {found}: privpac's Spark jobs need "
            "numpy, scipy, scikit-learn, pandas, pyarrow and tqdm there; set PYSPARK_PYTHON (or "
            "spark.pyspark.python) to a Python that has them (pip install 'privpac[spark]')"
        )
    if found != __version__:
        raise EngineError(
            f"Spark's workers ({executable}) import privpac {found}, this driver runs {__version__}: install "
            "the same version on the workers"
        )
    _SPARK_READY.add(key)


@contextlib.contextmanager
def _spark_workers(X):
    """privpac's passes on ``X``'s session: the worker Python set (:func:`_worker_python`) and checked
    while any of them runs, then restored (the session's other jobs keep their own)."""
    sc = X.sparkSession.sparkContext
    with _SPARK_LOCK:
        users, saved = _SPARK_USERS.get(id(sc), (0, sc.pythonExec))
        _SPARK_USERS[id(sc)] = (users + 1, saved)
        try:
            sc.pythonExec = _worker_python(sc)  # read when a job's Python function is wrapped for the JVM
            _check_spark_workers(sc)
        except BaseException:
            _leave(sc)
            raise
    try:
        yield
    finally:
        with _SPARK_LOCK:
            _leave(sc)


def _leave(sc) -> None:
    users, saved = _SPARK_USERS.pop(id(sc))
    if users > 1:
        _SPARK_USERS[id(sc)] = (users - 1, saved)
    else:
        sc.pythonExec = saved


def _on_spark_workers(method):
    """Decorator of the SparkBackend's passes: run inside :func:`_spark_workers` of their DataFrame."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        X = next(a for a in args if is_spark_frame(a))
        with _spark_workers(X):
            return method(self, *args, **kwargs)

    return wrapper


class SparkBackend:
    """Statistics computed on Spark executors, merged in a tree on the executors.

    ``X`` is a ``pyspark.sql.DataFrame``; the other inputs are ``None`` or the *name* of one of
    its columns (Spark DataFrames do not align rows across frames, so a label travels as a column
    of ``X``). The features are the remaining columns. Each Arrow batch is counted by the kernel
    (``mapInArrow``, vectorised), a partition's counts are merged in its task, the partitions'
    with ``treeReduce`` on the executors, and the driver receives one merged statistic.
    """

    name = "spark"

    @_on_spark_workers
    def map_merge(self, kernel: Callable, merge: Callable, X, *others):
        return self._map_merge(lambda start, *cols: kernel(*cols), merge, X, others, None)

    @_on_spark_workers
    def map_merge_keyed(self, kernel: Callable, merge: Callable, finish: Callable, n_keys: int, X, *others) -> list:
        """See :meth:`NumpyBackend.map_merge_keyed`: a partition's partials are merged per key in its
        task, the partitions' per key with ``reduceByKey`` on the executors (the key is public: a
        part of the statistic, not a record), and ``finish`` runs on the executor that holds the
        key's merged partial; the driver collects the ``n_keys`` results."""
        import pickle

        features = self._features(X, others)

        def partials(batches):  # runs on the executors: deterministic, no randomness
            import pyarrow as pa

            parts = []
            for batch in batches:
                frame = batch.to_pandas()
                block = (frame[features], *(None if o is None else frame[o] for o in others))
                parts.append(_keyed(kernel(*block), n_keys))
            merged = [merge([p[k] for p in parts]) for k in range(n_keys)] if parts else []
            keys = [k for k, m in enumerate(merged) if m is not None]
            if keys:
                yield pa.RecordBatch.from_pydict(
                    {"key": keys, "partial": [pickle.dumps(merged[k]) for k in keys]},
                    schema=pa.schema([("key", pa.int64()), ("partial", pa.binary())]),
                )

        def finished(pair):
            k, partial = pair
            return k, pickle.dumps(finish(k, partial))

        rdd = X.mapInArrow(partials, "key long, partial binary").rdd.map(
            lambda row: (int(row.key), pickle.loads(row.partial))
        )
        found = dict(rdd.reduceByKey(lambda a, b: merge([a, b])).map(finished).collect())
        return [pickle.loads(found[k]) if k in found else finish(k, merge([None])) for k in range(n_keys)]

    @_on_spark_workers
    def map_merge_rows(self, kernel: Callable, merge: Callable, X, *others):
        """See :meth:`NumpyBackend.map_merge_rows`: one exact count pass gives every partition's
        offset; a task reads its partition index from the task context."""
        return self._map_merge(kernel, merge, X, others, self._starts(X))

    @_on_spark_workers
    def map_chunks(self, kernel: Callable, chunk_size: int, n_rows: int, X, *others, stop: int | None = None) -> list:
        """See :meth:`NumpyBackend.map_chunks`. Each row is tagged with its position (partition
        offsets from one exact count pass), the rows at positions ``>= stop`` are dropped, the others
        grouped by chunk number ``position // chunk_size`` (a public function of the position,
        never of the record's values) and each group, put back in row order, goes through the
        kernel on the executors."""
        import pickle

        import pyspark.sql.functions as F

        features = self._features(X, others)
        starts = self._starts(X)
        _check_rows(starts[-1], n_rows)
        last = _stop(stop, n_rows)
        bounds = chunk_bounds(chunk_size, last)
        k = bounds[0][1] - bounds[0][0] if bounds else 1
        row = "__privpac_row"

        def positions(batches):  # runs on the executors
            import pyarrow as pa
            from pyspark import TaskContext

            at = starts[TaskContext.get().partitionId()]
            for batch in batches:
                pos = pa.array(np.arange(at, at + batch.num_rows, dtype=np.int64))
                at += batch.num_rows
                yield pa.RecordBatch.from_arrays([*batch.columns, pos], names=[*batch.schema.names, row])

        def apply(frame):  # one chunk, on the executors: deterministic, no randomness
            import pandas as pd

            frame = frame.sort_values(row, kind="stable").reset_index(drop=True)
            c = int(frame[row].iloc[0]) // k
            result = kernel(frame[features], *(None if o is None else frame[o] for o in others))
            return pd.DataFrame({"chunk": [c], "result": [pickle.dumps(result)]})

        from pyspark.sql.types import LongType, StructField, StructType

        tagged = X.mapInArrow(positions, StructType([*X.schema.fields, StructField(row, LongType(), False)]))
        if last < n_rows:
            tagged = tagged.filter(F.col(row) < F.lit(int(last)))
        grouped = tagged.groupBy(F.expr(f"{row} div {int(k)}").alias("__privpac_chunk"))  # exact integer division
        rows = grouped.applyInPandas(apply, "chunk long, result binary").collect()
        results = {int(r.chunk): pickle.loads(r.result) for r in rows}
        return [results[c] for c in range(len(bounds))]

    @_on_spark_workers
    def row_offsets(self, X, *others) -> list[int]:
        """See :meth:`NumpyBackend.row_offsets` (one exact count pass, with the positional refusals
        of :meth:`_starts`)."""
        self._features(X, others)
        return self._starts(X)

    @_on_spark_workers
    def take_rows(self, positions, X, *others, offsets=None) -> tuple:
        """See :meth:`NumpyBackend.take_rows`: ``(features, *others)`` as pandas objects. Each task
        finds its partition's offset by its partition index and returns the rows it holds among
        the distinct positions asked for (the Arrow batch's ``take``, tagged with their positions);
        the driver sorts them by position and repeats them into the order asked. Without
        ``offsets``, the count pass refuses a DataFrame whose row order is not its own (a shuffle,
        several files), as every positional pass does."""
        import pickle

        import pandas as pd

        features = self._features(X, others)
        starts = self._starts(X) if offsets is None else [int(v) for v in offsets]
        wanted, inverse = _wanted_positions(positions, starts)
        row = "__privpac_row"

        def pick(batches):  # runs on the executors: deterministic, no randomness
            import pyarrow as pa
            from pyspark import TaskContext

            part = TaskContext.get().partitionId()
            if part + 1 >= len(starts):
                raise DataError("the DataFrame has more partitions than when its row positions were counted")
            at, end = starts[part], starts[part + 1]
            mine = wanted[np.searchsorted(wanted, at) : np.searchsorted(wanted, end)]
            for batch in batches:
                local = mine[(mine >= at) & (mine < at + batch.num_rows)] - at
                if local.size:
                    rows = batch.take(pa.array(local)).to_pandas()
                    rows[row] = local + at
                    yield pa.RecordBatch.from_pydict({"rows": [pickle.dumps(rows)]})
                at += batch.num_rows
            if at != end:
                raise DataError(
                    f"a partition has {at - starts[part]} rows, not the {end - starts[part]} it had when the row "
                    "positions were counted: the data changed between passes"
                )

        found = [pickle.loads(r.rows) for r in X.mapInArrow(pick, "rows binary").collect()] if wanted.size else []
        frame = pd.concat(found, ignore_index=True) if found else X.limit(0).toPandas().assign(**{row: []})
        frame = frame.sort_values(row, kind="stable").reset_index(drop=True)
        if not np.array_equal(frame[row].to_numpy(dtype=np.int64), wanted):
            raise DataError(
                "the rows found at the positions asked for do not match them: the data changed between passes"
            )
        frame = frame.iloc[inverse].reset_index(drop=True)
        return (frame[features], *(None if o is None else frame[o] for o in others))

    @staticmethod
    def _features(X, others) -> list[str]:
        names = [o for o in others if o is not None]
        for name in names:
            if not isinstance(name, str) or name not in X.columns:
                raise DataError(
                    f"with a Spark DataFrame X, pass the label as the name of a column of X (columns: {X.columns})"
                )
        return [c for c in X.columns if c not in names]

    @staticmethod
    def _starts(X) -> list[int]:
        """Global position of every partition's first row, and the total last (one exact count pass).

        Refuses a DataFrame whose plan has a shuffle (an ``Exchange``: ``repartition``, joins,
        aggregations): a shuffle orders rows by hashing or sorting their values, and a position
        must never depend on a record's values (for the label-private learner it must not depend
        on the labels). Refuses a read of several files too: Spark orders the splits of its input
        files by size, and a file's size depends on its contents.
        """
        plan = X._jdf.queryExecution().executedPlan().toString()
        if "Exchange" in plan:
            raise DataError(
                "row positions on Spark follow the DataFrame's own row order, and this DataFrame's plan has a "
                "shuffle (repartition, join or aggregation), which orders rows by their values: read the data "
                "without shuffling it (coalesce keeps the order)"
            )
        if len(X.inputFiles()) > 1:
            raise DataError(
                f"row positions on Spark follow the order of the DataFrame's partitions, and Spark orders the "
                f"splits of the {len(X.inputFiles())} files it reads by their size, which depends on their "
                "contents: read a single file, or fit on Dask (which reads files in name order)"
            )

        def count(batches):
            import pyarrow as pa
            from pyspark import TaskContext

            rows = sum(batch.num_rows for batch in batches)
            yield pa.RecordBatch.from_pydict({"part": [TaskContext.get().partitionId()], "rows": [rows]})

        found = {int(r.part): int(r.rows) for r in X.mapInArrow(count, "part long, rows long").collect()}
        lengths = [found.get(p, 0) for p in range(max(found, default=-1) + 1)]  # every task reports, empty or not
        return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).tolist()

    def _map_merge(self, kernel: Callable, merge: Callable, X, others, starts):
        import pickle

        features = self._features(X, others)

        def partials(batches):  # runs on the executors: deterministic, no randomness
            import pyarrow as pa

            at = 0
            if starts is not None:
                from pyspark import TaskContext

                at = starts[TaskContext.get().partitionId()]
            parts = []
            for batch in batches:
                frame = batch.to_pandas()
                parts.append(kernel(at, frame[features], *(None if o is None else frame[o] for o in others)))
                at += len(frame)
            if parts:  # one merged statistic per partition (one sort), not one per Arrow batch
                yield pa.RecordBatch.from_pydict({"partial": [pickle.dumps(merge(parts))]})

        rdd = X.mapInArrow(partials, "partial binary").rdd.map(lambda row: pickle.loads(row.partial))
        if rdd.isEmpty():
            return merge([])
        return merge([rdd.treeReduce(lambda a, b: merge([a, b]), depth=3)])


def is_spark_frame(obj) -> bool:
    return module_root(obj) == "pyspark" and hasattr(obj, "mapInArrow")


def backend_for(X):
    """The backend that computes statistics of ``X`` where it lives."""
    if is_engine_collection(X):
        return SparkBackend() if is_spark_frame(X) else DaskBackend()
    if module_root(X) == "pyspark":
        raise TypeError(f"unsupported Spark object {type(X).__name__}: pass a pyspark.sql.DataFrame")
    return NumpyBackend()
