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

The backends: :class:`~privpac.backends.memory.NumpyBackend` (in memory),
:class:`~privpac.backends.dask_engine.DaskBackend` and
:class:`~privpac.backends.spark_engine.SparkBackend`, over the engine-neutral row blocks, chunks and
positions of :mod:`privpac.backends.rows`; :mod:`privpac.backends.spark_setup` starts a Spark session
and readies its workers. This module picks the backend for the data (:func:`backend_for`).
"""

from __future__ import annotations

from ..validation import is_engine_collection, module_root
from .dask_engine import DaskBackend
from .memory import NumpyBackend
from .rows import MERGE_FAN_IN, chunk_bounds
from .spark_engine import SparkBackend, is_spark_frame
from .spark_setup import spark_session

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


def backend_for(X):
    """The backend that computes statistics of ``X`` where it lives."""
    if is_engine_collection(X):
        return SparkBackend() if is_spark_frame(X) else DaskBackend()
    if module_root(X) == "pyspark":
        raise TypeError(f"unsupported Spark object {type(X).__name__}: pass a pyspark.sql.DataFrame")
    return NumpyBackend()
