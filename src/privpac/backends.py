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

Dask collections (``dask.array.Array``, ``dask.dataframe.DataFrame`` or ``Series``) and Spark
DataFrames (``pyspark.sql.DataFrame``, the label given as a column name) are recognised without
importing either engine; an engine is needed only when you pass its data.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .errors import DataError

__all__ = ["NumpyBackend", "DaskBackend", "SparkBackend", "backend_for", "is_engine_collection", "MERGE_FAN_IN"]

#: Partial statistics merged together at each level of the merge tree on the workers.
MERGE_FAN_IN = 4


def _module(obj) -> str:
    return type(obj).__module__.split(".")[0]


def is_engine_collection(obj) -> bool:
    """True for data that lives on an engine (Dask, Spark), which validation must not materialise."""
    return _module(obj) in ("dask", "dask_expr") or (_module(obj) == "pyspark" and hasattr(obj, "mapInArrow"))


class NumpyBackend:
    """The in-memory backend: the whole input is one block."""

    name = "numpy"

    def map_merge(self, kernel: Callable, merge: Callable, *columns):
        return merge([kernel(*columns)])


class DaskBackend:
    """Statistics computed on a Dask cluster, partition by partition, merged on the driver.

    The inputs must have the same number of rows; a Dask array label column is rechunked to the
    feature blocks, a NumPy label column is split to them. Dask DataFrame and Series inputs must
    have the same number of partitions (for example ``df[["x"]]`` and ``df["y"]``).
    """

    name = "dask"

    def map_merge(self, kernel: Callable, merge: Callable, *columns):
        import dask

        if hasattr(columns[0], "divisions"):  # Dask DataFrame or Series (arrays have no divisions)
            blocks, kernel = self._frame_blocks(columns, kernel)
        else:
            blocks = self._aligned_blocks(columns)
        parts = [dask.delayed(kernel)(*block) for block in zip(*blocks)]
        # A tree of merges on the workers: the driver receives one merged statistic (at most
        # min(n, |X|) distinct values), never the concatenation of every partition's.
        while len(parts) > 1:
            groups = [parts[i : i + MERGE_FAN_IN] for i in range(0, len(parts), MERGE_FAN_IN)]
            parts = [dask.delayed(merge)(group) if len(group) > 1 else group[0] for group in groups]
        (result,) = dask.compute(parts[0])
        return merge([result])

    @staticmethod
    def _frame_blocks(columns, kernel):
        """Partitions of X with the other columns attached row by row (one frame, so Dask cannot
        partition the label column differently from the features), and a kernel that splits them."""
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

        def split(block):
            if not hasattr(block, "columns"):  # Dask may hand a one-column frame's partition as a Series
                block = block.to_frame()
            others = [None if key is None else block[key] for key in extra]
            return kernel(block[names], *others)

        return [frame.to_delayed()], split

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


class SparkBackend:
    """Statistics computed on Spark executors, merged in a tree on the executors.

    ``X`` is a ``pyspark.sql.DataFrame``; the other inputs are ``None`` or the *name* of one of
    its columns (Spark DataFrames do not align rows across frames, so a label travels as a column
    of ``X``). The features are the remaining columns. Each Arrow batch is counted by the kernel
    (``mapInArrow``, vectorised), a partition's counts are merged in its task, the partitions'
    with ``treeReduce`` on the executors, and the driver receives one merged statistic.
    """

    name = "spark"

    def map_merge(self, kernel: Callable, merge: Callable, X, *others):
        import pickle

        names = [o for o in others if o is not None]
        for name in names:
            if not isinstance(name, str) or name not in X.columns:
                raise DataError(
                    f"with a Spark DataFrame X, pass the label as the name of a column of X (columns: {X.columns})"
                )
        features = [c for c in X.columns if c not in names]

        def partials(batches):  # runs on the executors: deterministic, no randomness
            import pyarrow as pa

            parts = []
            for batch in batches:
                frame = batch.to_pandas()
                parts.append(kernel(frame[features], *(None if o is None else frame[o] for o in others)))
            if parts:  # one merged statistic per partition (one sort), not one per Arrow batch
                yield pa.RecordBatch.from_pydict({"partial": [pickle.dumps(merge(parts))]})

        rdd = X.mapInArrow(partials, "partial binary").rdd.map(lambda row: pickle.loads(row.partial))
        if rdd.isEmpty():
            return merge([])
        return merge([rdd.treeReduce(lambda a, b: merge([a, b]), depth=3)])


def is_spark_frame(obj) -> bool:
    return _module(obj) == "pyspark" and hasattr(obj, "mapInArrow")


def backend_for(X):
    """The backend that computes statistics of ``X`` where it lives."""
    if is_engine_collection(X):
        return SparkBackend() if is_spark_frame(X) else DaskBackend()
    if _module(X) == "pyspark":
        raise TypeError(f"unsupported Spark object {type(X).__name__}: pass a pyspark.sql.DataFrame")
    return NumpyBackend()
