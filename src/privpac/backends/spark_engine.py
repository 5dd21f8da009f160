"""The Spark backend: a statistic computed on the executors, block of Arrow batches by block
(``mapInArrow``), merged in a tree on the executors, so the driver receives one merged statistic.
Every pass runs with the workers readied by :mod:`privpac.backends.spark_setup`, and every function
it runs on a worker first calls :func:`_settle_worker`."""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable

import numpy as np

from ..errors import DataError
from ..validation import module_root
from .rows import _check_block_length, _check_offsets, _check_rows, _keyed, _stop, _wanted_positions, chunk_bounds
from .spark_setup import _spark_workers

#: ``len(sys.modules)`` when this Python worker last froze its objects (:func:`_settle_worker`).
_FROZEN_AT_MODULES = 0

#: At most this many rows (a public number) come to the driver for a statistic of the multiset of
#: records (:meth:`SparkBackend.rows_within`): 32 MB for a feature and a label of 8 bytes each.
DRIVER_ROWS = 1 << 21

#: A kernel reads at least this many rows at a time (consecutive Arrow batches joined): Spark's
#: batches of 10^4 rows would make a pass pay a kernel call's fixed cost, and a held block's
#: pickling, a thousand times per 10^7 rows.
BLOCK_ROWS = 1 << 17


def _settle_worker() -> None:
    """Runs on a Spark worker at the start of each of privpac's functions there: the objects the
    worker has made so far (its imported modules, mostly) are moved out of the cycle collector's way
    (``gc.freeze``), once, and again only when a later function imported more modules.

    PySpark's daemon runs a full ``gc.collect()`` in a reused worker after every task. Once the kernels'
    modules are imported (privpac, numpy, pandas, pyarrow, and SciPy and scikit-learn where a
    kernel's module imports them) that walk over some 10^5 long-lived objects takes 40 to 70 ms: on
    small partitions, most of a pass's CPU time (the worker's own counting is a few ms). Frozen
    objects are still freed by their reference counts when they are released; only the cycle
    collector skips them. Nothing here touches the data or the results.
    """
    global _FROZEN_AT_MODULES
    import gc
    import sys

    if len(sys.modules) != _FROZEN_AT_MODULES:
        gc.freeze()
        _FROZEN_AT_MODULES = len(sys.modules)


def _settled_rows(read: Callable) -> Callable:
    """``rows -> map(read, rows)`` for ``RDD.mapPartitions``, the worker settled first."""

    def rows(partition):  # runs on the executors
        _settle_worker()
        return map(read, partition)

    return rows


def _held_partition(read: Callable) -> Callable:
    """``blocks -> read(the held blocks, each as a one-column block)`` for ``RDD.mapPartitions``, the
    worker settled first."""

    def partition(blocks):  # runs on the executors
        _settle_worker()
        return read((block,) for block in blocks)

    return partition


def _merged(kernel: Callable, merge: Callable, blocks) -> list:
    """``[merge of kernel(*block) over blocks]`` (one merged statistic, one merge call), or ``[]`` for no
    block. ``blocks`` is iterated once: each block may be dropped once its kernel has run."""
    parts = [kernel(*block) for block in blocks]
    return [merge(parts)] if parts else []


def _merged_by_key(kernel: Callable, merge: Callable, n_keys: int, blocks) -> list:
    """``[(k, merged partial of key k)]`` over blocks (iterated once), for the keys some block holds
    something of."""
    parts = [_keyed(kernel(*block), n_keys) for block in blocks]
    merged = [merge([p[k] for p in parts]) for k in range(n_keys)] if parts else []
    return [(k, m) for k, m in enumerate(merged) if m is not None]


def _record_blocks(batches, features: list, others):
    """A partition's Arrow batches as the kernel's blocks, in row order: consecutive batches joined
    into blocks of at least :data:`BLOCK_ROWS` rows (the last may be shorter), each as the features'
    frame, then the other columns (``None`` stays ``None``)."""
    import pyarrow as pa

    def columns(pending):
        frame = pa.Table.from_batches(pending).to_pandas()
        return (frame[features], *(None if o is None else frame[o] for o in others))

    pending, rows = [], 0
    for batch in batches:
        pending.append(batch)
        rows += batch.num_rows
        if rows >= BLOCK_ROWS:
            yield columns(pending)
            pending, rows = [], 0
    if pending:
        yield columns(pending)


class HeldPartitions:
    """Blocks of a statistic cached on the executors between passes (:meth:`SparkBackend.hold_blocks`):
    a persisted RDD of Python objects, one per block of :data:`BLOCK_ROWS` rows, unpersisted when the
    last reference to this object goes. ``frame`` is the DataFrame they were computed from (its
    session readies the workers)."""

    def __init__(self, rdd, frame):
        self.rdd, self.frame = rdd, frame
        release = weakref.finalize(self, _unpersist, rdd)
        release.atexit = False  # at exit the JVM may be gone, and its cache with it


def _unpersist(rdd) -> None:
    with contextlib.suppress(Exception):  # a stopped session has dropped its cache already
        rdd.unpersist(blocking=False)


def _on_spark_workers(method):
    """Decorator of the SparkBackend's passes: run inside :func:`_spark_workers` of their DataFrame."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        X = next(a.frame if isinstance(a, HeldPartitions) else a for a in args if _is_spark_input(a))
        with _spark_workers(X):
            return method(self, *args, **kwargs)

    return wrapper


def _is_spark_input(obj) -> bool:
    return isinstance(obj, HeldPartitions) or is_spark_frame(obj)


class SparkBackend:
    """Statistics computed on Spark executors, merged in a tree on the executors.

    ``X`` is a ``pyspark.sql.DataFrame``; the other inputs are ``None`` or the *name* of one of
    its columns (Spark DataFrames do not align rows across frames, so a label travels as a column
    of ``X``). The features are the remaining columns. Each block of consecutive Arrow batches
    (:data:`BLOCK_ROWS` rows) is counted by the kernel (``mapInArrow``, vectorised), a partition's
    counts are merged in its task, the partitions' with a tree on the executors (``treeAggregate``,
    one job), and the driver receives one merged statistic. A sequence of passes over the same
    per-block summary reads it from the executors' cache (:meth:`hold_blocks`).
    """

    name = "spark"

    @_on_spark_workers
    def map_merge(self, kernel: Callable, merge: Callable, X, *others):
        if isinstance(X, HeldPartitions):
            partials = X.rdd.mapPartitions(_held_partition(functools.partial(_merged, kernel, merge)))
        else:
            partials = self._partials(lambda start, *cols: kernel(*cols), merge, X, others, None)
        return self._tree_merge(merge, partials)

    @_on_spark_workers
    def hold_blocks(self, kernel: Callable, merge: Callable, X, *others) -> tuple:
        """See :meth:`NumpyBackend.hold_blocks`: ``kernel`` per block of :data:`BLOCK_ROWS` rows,
        cached on the executors (``persist``: memory, then disk). Returns the columns of the held
        blocks for the next passes of this backend (:class:`HeldPartitions`); nothing comes to the
        driver, and nothing runs until the first pass that reads them, which reads the records once.

        The blocks are kept as they are, not merged per partition: a block is a small object,
        whereas a partition's merged counts can be larger than the JVM accepts in one value. A pass
        over held blocks merges a partition's blocks in one call, as a pass over the records does."""
        import pickle

        from pyspark import StorageLevel

        features = self._features(X, others)

        def blocks(batches):  # runs on the executors: deterministic, no randomness
            import pyarrow as pa

            _settle_worker()
            for block in _record_blocks(batches, features, others):
                yield pa.RecordBatch.from_pydict({"block": [pickle.dumps(kernel(*block))]})

        held = X.mapInArrow(blocks, "block binary").rdd.mapPartitions(
            _settled_rows(lambda row: pickle.loads(row.block))
        )
        return (HeldPartitions(held.persist(StorageLevel.MEMORY_AND_DISK), X),)

    @_on_spark_workers
    def map_merge_keyed(self, kernel: Callable, merge: Callable, finish: Callable, n_keys: int, X, *others) -> list:
        """See :meth:`NumpyBackend.map_merge_keyed`: a partition's partials are merged per key in its
        task, the partitions' per key with ``reduceByKey`` on the executors (the key is public: a
        part of the statistic, not a record), and ``finish`` runs on the executor that holds the
        key's merged partial; the driver collects the ``n_keys`` results."""
        import pickle

        def finished(pair):  # runs on the executors
            _settle_worker()
            k, partial = pair
            return k, pickle.dumps(finish(k, partial))

        if isinstance(X, HeldPartitions):
            rdd = X.rdd.mapPartitions(_held_partition(functools.partial(_merged_by_key, kernel, merge, n_keys)))
        else:
            features = self._features(X, others)

            def partials(batches):  # runs on the executors: deterministic, no randomness
                import pyarrow as pa

                _settle_worker()
                pairs = _merged_by_key(kernel, merge, n_keys, _record_blocks(batches, features, others))
                if pairs:
                    yield pa.RecordBatch.from_pydict(
                        {"key": [k for k, _ in pairs], "partial": [pickle.dumps(m) for _, m in pairs]},
                        schema=pa.schema([("key", pa.int64()), ("partial", pa.binary())]),
                    )

            rdd = X.mapInArrow(partials, "key long, partial binary").rdd.mapPartitions(
                _settled_rows(lambda row: (int(row.key), pickle.loads(row.partial)))
            )
        found = dict(rdd.reduceByKey(lambda a, b: merge([a, b])).map(finished).collect())
        return [pickle.loads(found[k]) if k in found else finish(k, merge([None])) for k in range(n_keys)]

    def rows_within(self, X, *others) -> tuple | None:
        """``(features, *others)`` on the driver as pandas objects when ``X`` has at most
        :data:`DRIVER_ROWS` rows (public), else ``None``.

        For a statistic of the multiset of records (the one-dimensional counts), which is then
        computed on the driver exactly as in memory: Spark's own count, then one collect as Arrow,
        both in the JVM, with no Python worker reading a record (at 10^6 rows on two cores about 0.4 s,
        against 0.8 s for the counting pass on Python workers and 0.5 s for ``approxQuantile``). The
        number of rows is public under replace-one neighbours, so the choice reveals nothing; the
        rows come in the order of Spark's collect, which a multiset statistic does not see. The
        driver holds at most :data:`DRIVER_ROWS` rows; an empty DataFrame gives ``None`` (the counting
        pass then refuses it).
        """
        features = self._features(X, others)
        n = X.count()
        if n == 0 or n > DRIVER_ROWS:
            return None
        table = _arrow_table(X)
        frame = table.to_pandas()
        return (frame[features], *(None if o is None else frame[o] for o in others))

    @_on_spark_workers
    def map_merge_rows(self, kernel: Callable, merge: Callable, X, *others, offsets=None):
        """See :meth:`NumpyBackend.map_merge_rows`: one exact count pass gives every partition's
        offset (unless ``offsets`` are given); a task reads its partition index from the task
        context, and refuses a partition whose length differs from its offsets."""
        starts = self._starts(X) if offsets is None else _check_offsets(offsets, _partitions(X))
        return self._tree_merge(merge, self._partials(kernel, merge, X, others, starts))

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

            _settle_worker()
            at = starts[TaskContext.get().partitionId()]
            for batch in batches:
                pos = pa.array(np.arange(at, at + batch.num_rows, dtype=np.int64))
                at += batch.num_rows
                yield pa.RecordBatch.from_arrays([*batch.columns, pos], names=[*batch.schema.names, row])

        def apply(frame):  # one chunk, on the executors: deterministic, no randomness
            import pandas as pd

            _settle_worker()
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
        starts = self._starts(X) if offsets is None else _check_offsets(offsets, _partitions(X))
        wanted, inverse = _wanted_positions(positions, starts)
        row = "__privpac_row"

        def pick(batches):  # runs on the executors: deterministic, no randomness
            import pyarrow as pa
            from pyspark import TaskContext

            _settle_worker()
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
        """Global position of every partition's first row, and the total last (one exact count pass,
        in the JVM: Spark counts the rows of each partition, no Python worker reads them).

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

        from pyspark.sql.functions import spark_partition_id

        # Counted in the JVM, no Python worker reads a row: the partition of each row is that of the
        # scan every later pass of this DataFrame reads (no shuffle, refused above), and
        # the partitions no row reports are empty.
        counted = X.select(spark_partition_id().alias("part")).groupBy("part").count().collect()
        found = {int(r["part"]): int(r["count"]) for r in counted}
        lengths = [found.get(p, 0) for p in range(_partitions(X))]
        return np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).tolist()

    def _partials(self, kernel: Callable, merge: Callable, X, others, starts):
        """The RDD of every non-empty partition's merged statistic, ``kernel(start, *block)`` per block
        of :data:`BLOCK_ROWS` rows (``start``: the block's first row position when ``starts`` are given,
        else 0)."""
        import pickle

        features = self._features(X, others)

        def partials(batches):  # runs on the executors: deterministic, no randomness
            import pyarrow as pa

            _settle_worker()
            at = 0
            if starts is not None:
                from pyspark import TaskContext

                part = TaskContext.get().partitionId()
                at = starts[part]

            def positioned(blocks):  # each block after the position of its first row
                nonlocal at
                for block in blocks:
                    yield (at, *block)
                    at += len(block[0])
                if starts is not None:
                    _check_block_length(at - starts[part], starts[part + 1] - starts[part])

            # one merged statistic per partition (one merge call), not one per block
            for merged in _merged(kernel, merge, positioned(_record_blocks(batches, features, others))):
                yield pa.RecordBatch.from_pydict({"partial": [pickle.dumps(merged)]})

        return X.mapInArrow(partials, "partial binary").rdd.mapPartitions(
            _settled_rows(lambda row: pickle.loads(row.partial))
        )

    @staticmethod
    def _tree_merge(merge: Callable, partials):
        """The partials of an RDD merged in a tree on the executors (``treeAggregate``, one job)."""

        def combine(a, b):  # RDD.treeReduce's own combiner: (partial, empty?), so no job asks first if any exist
            if a[1]:
                return b
            if b[1]:
                return a
            return merge([a[0], b[0]]), False

        merged, empty = partials.map(lambda p: (p, False)).treeAggregate((None, True), combine, combine, depth=3)
        return merge([]) if empty else merge([merged])


def _arrow_table(X):
    """All rows of a Spark DataFrame as one Arrow table on the driver, converted in the JVM
    (``toArrow`` from pyspark 4.0, the batches of ``_collect_as_arrow`` before)."""
    if hasattr(X, "toArrow"):
        return X.toArrow()
    import pyarrow as pa

    return pa.Table.from_batches(X._collect_as_arrow())


def _partitions(X) -> int:
    """The number of partitions every pass over ``X`` reads (from its plan; nothing runs)."""
    return X._jdf.rdd().getNumPartitions()


def is_spark_frame(obj) -> bool:
    return module_root(obj) == "pyspark" and hasattr(obj, "mapInArrow")
