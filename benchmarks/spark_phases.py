"""Where a Spark fit's time goes: one ``local[2]`` session runs, in turn, a plain ``approxQuantile`` job,
two threshold fits (``PrivateThresholdClassifier`` on ``[0, 2^64 - 1]``, the label a column), then another
``approxQuantile``, fit and ``approxQuantile``, and last a pass of Python over every row (``mapInArrow``
returning its input, counted).

    nice -n 10 python benchmarks/spark_phases.py PARQUET_DIR [OUT.csv]    # data: benchmarks/scale.py's MAKE_DATA64

The first job of a session starts the JVM's executors. Up to ``DRIVER_ROWS = 2^21`` rows a fit
collects the rows as Arrow in the JVM and counts them on the driver, so no Python worker starts
before the last step (which then pays their start); above it the first fit starts Spark's Python
workers, which import privpac (a one-task probe job checks them first). The later fits and
``approxQuantile`` jobs show the steady cost. A fit's row also lists each of its passes (the
backend's ``hold_blocks``, ``map_merge`` and ``map_merge_keyed`` calls, in order, wall seconds):
above ``DRIVER_ROWS`` the count pass reads the records (and caches their counts), the levels read
the cache. Writes ``benchmarks/results/scale_spark_phases.csv`` unless ``OUT.csv`` is given (wall
seconds; a shared 2-core machine, so compare within one run).
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

from _results import write_csv


def main() -> None:
    warnings.simplefilter("ignore")
    path = sys.argv[1]
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from privpac.backends.spark_engine import SparkBackend
    from privpac.estimators import PrivateThresholdClassifier

    passes = []
    for name in ("hold_blocks", "map_merge", "map_merge_keyed"):  # time each pass of a fit
        method = getattr(SparkBackend, name, None)  # an older tree (PYTHONPATH) may lack one
        if method is None:
            continue

        def timed(self, *args, _method=method, _name=name, **kwargs):
            t = time.perf_counter()
            out = _method(self, *args, **kwargs)
            passes.append(f"{_name} {time.perf_counter() - t:.2f}")
            return out

        setattr(SparkBackend, name, timed)

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    rows = []
    steps = ["approxQuantile", "fit", "fit", "approxQuantile", "fit", "approxQuantile", "python pass"]
    for step, what in enumerate(steps, start=1):
        passes.clear()
        t0 = time.perf_counter()
        frame = spark.read.parquet(path)
        if what == "fit":
            PrivateThresholdClassifier(domain=(0, 2**64 - 1), random_state=1).fit(frame, "y")
        elif what == "python pass":
            frame.mapInArrow(lambda batches: batches, frame.schema).count()
        else:
            frame.approxQuantile("x", [0.5], 0.001)
        seconds = round(time.perf_counter() - t0, 2)
        rows.append({"step": step, "job": what, "seconds": seconds, "passes": "; ".join(passes)})
        print(rows[-1], flush=True)
    spark.stop()
    n = sum(1 for _ in Path(path).glob("*.parquet"))
    rows_read = spark_rows(path)
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).parent / "results" / "scale_spark_phases.csv"
    write_csv(
        out,
        rows,
        f"nice -n 10 python benchmarks/spark_phases.py <{rows_read:.0e} rows of MAKE_DATA64 in {n} files> {out.name}; "
        "one local[2] session; "
        f"a 2-core machine, 1-minute load average {os.getloadavg()[0]:.1f} at the end",
    )


def spark_rows(path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.read_metadata(f).num_rows for f in Path(path).glob("*.parquet"))


if __name__ == "__main__":
    main()
