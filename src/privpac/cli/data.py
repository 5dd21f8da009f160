"""How the commands read DATA: a CSV file in memory, or CSV/Parquet partition by partition on Dask or
Spark (``--engine``, ``--scheduler``), and the feature matrix stacked from its columns."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from .options import _fail


def _engine_options(command):
    """``--engine`` and ``--scheduler``: read DATA in memory, with Dask partition by partition, or on Spark."""
    command = click.option(
        "--scheduler",
        default=None,
        help="With --engine dask: a Dask scheduler address (default: local threads); with --engine spark: "
        "a Spark master URL (default: local[*]).",
    )(command)
    return click.option(
        "--engine",
        type=click.Choice(["memory", "dask", "spark"]),
        default="memory",
        show_default=True,
        help="dask or spark: read DATA (CSV or Parquet: a file, or a directory with Dask) on that engine, counted "
        "partition by partition; spark starts a local session (privpac.backends.spark_session).",
    )(command)


def _read_data(data: str, engine: str, scheduler):
    """The columns of DATA (a dict of arrays, a Dask DataFrame or a :class:`_SparkTable`), and a
    function that closes the engine (``None`` in memory)."""
    from ..io import read_csv

    if engine == "dask":
        return _dask_frame(data, scheduler)
    if engine == "spark":
        return _spark_table(data, scheduler)
    if scheduler is not None:
        _fail("--scheduler needs --engine dask or spark")
    if Path(data).is_dir():
        _fail(f"{data} is a directory: pass a CSV file, or --engine dask for a Parquet dataset")
    return read_csv(data), None


def _parquet(data: str) -> bool:
    return Path(data).is_dir() or data.endswith((".parquet", ".pq"))


def _dask_frame(data: str, scheduler):
    """A Dask DataFrame of DATA (Parquet by suffix or directory, else CSV), and what closes its client."""
    try:
        import dask.dataframe as dd
    except ImportError:
        _fail("--engine dask needs Dask: pip install 'privpac[dask]'")
    client = None
    if scheduler is not None:
        from distributed import Client

        client = Client(scheduler)
    frame = dd.read_parquet(data) if _parquet(data) else dd.read_csv(data)
    return frame, None if client is None else client.close


class _SparkTable:
    """A Spark DataFrame read as the commands read a CSV file: column names, ``in``, and ``table[names]``
    (a DataFrame of those columns; the label of a fit travels as a column of X, by name)."""

    def __init__(self, frame):
        self.frame = frame

    def __iter__(self):
        return iter(self.frame.columns)

    def __contains__(self, name) -> bool:
        return name in self.frame.columns

    def __getitem__(self, names):
        return self.frame.select(*([names] if isinstance(names, str) else names))


def _spark_table(data: str, master):
    """DATA read by a Spark session (Parquet by suffix or directory, else CSV with a header), and what stops it.

    The session is :func:`privpac.backends.spark_session` (``local[*]`` unless ``--scheduler`` names a
    master): the workers' Python is set for privpac's jobs, Java is checked first.
    """
    from ..backends.spark_setup import spark_session

    session = spark_session(master or "local[*]", config={"spark.ui.showConsoleProgress": "false"})
    session.sparkContext.setLogLevel("ERROR")
    reader = session.read
    frame = reader.parquet(data) if _parquet(data) else reader.csv(data, header=True, inferSchema=True)
    return _SparkTable(frame), session.stop


def _features_and_label(table, names: list[str], label, engine: str) -> tuple:
    """``(X, y)`` of a fit: arrays in memory, a Dask DataFrame and Series, or a Spark DataFrame holding
    the label column with ``y`` its name (Spark frames do not align rows across frames)."""
    if engine == "spark":
        return table[names + ([label] if label else [])], label
    y = table[label] if label else None
    return (table[names] if engine == "dask" else _stack(table, names)), y


def _stack(columns: dict, names: list[str]) -> np.ndarray:
    cols = [columns[n] for n in names]
    if any(c.dtype == np.uint64 for c in cols) and all(np.issubdtype(c.dtype, np.integer) for c in cols):
        # uint64 beside int64 would become float64 and lose digits: keep integers exact
        if all(c.dtype == np.uint64 or c.min() >= 0 for c in cols):
            return np.column_stack([c.astype(np.uint64) for c in cols])
        cols = [c.astype(object) for c in cols]
    if any(c.dtype == object for c in cols):
        X = np.empty((len(cols[0]), len(cols)), dtype=object)
        for j, c in enumerate(cols):
            X[:, j] = c
        return X
    return np.column_stack(cols)


def _feature_names(est, columns) -> list[str]:
    names = getattr(est, "feature_names_", None)
    if names:
        missing = [n for n in names if n not in columns]
        if missing:
            _fail(f"columns used at fit time are missing: {', '.join(missing)}")
        return names
    return list(columns)
