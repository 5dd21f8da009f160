"""Fits on data beyond one process: in memory against a Dask LocalCluster of two workers.

    nice -n 10 python benchmarks/scale.py                  # n = 1e6, 1e7 (about 5 minutes)
    nice -n 10 python benchmarks/scale.py --n 1e8          # the 10^8-row cell (about 20 GB of disk I/O)
    python benchmarks/scale.py --quick                     # n = 1e5 (smoke test)

For each n, a Parquet dataset of ``n`` rows (an integer feature ``x`` and a label ``y``) is written
once to a scratch directory in 16 files. Every cell runs in a fresh Python process and reports the
fit time and the driver's peak RSS (``ru_maxrss``); Dask cells also report the largest peak RSS of
a worker. Cells:

* ``memory``: pandas reads the Parquet files, then ``fit`` on NumPy arrays (the whole column in
  the driver);
* ``dask``: ``fit`` on ``dd.read_parquet(...)`` with a two-worker ``LocalCluster`` (one thread
  each, on 127.0.0.1): the workers read, count and merge their partitions. The workers import
  the modules of their kernels and ``dask.dataframe`` (which imports pandas and pyarrow) before
  the clock starts, as the driver has imported them (``dask-cold``: they import them inside the
  timed fit, what the first fit on a fresh cluster
  pays once);
* ``spark``: ``fit`` on ``spark.read.parquet(...)`` in a ``local[2]`` session (the JVM's memory
  is not in the driver column: Spark's executors run inside it, Python workers beside it);
* ``spark-approxquantile``: the yardstick, a plain ``approxQuantile(column, [0.5], 0.001)`` job on
  the same data in the same session settings.

The machine is shared (two cores, other jobs running): compare ratios within one run.

Estimators: the threshold classifier and the point learner on the domain ``[0, 2^20 - 1]``
(about 10^6 distinct values whatever ``n``: the merged statistic on the driver has at most
``min(n, |X|)`` entries), and the Laplace histogram (64 public bins, a statistic of 64 counts).
Writes ``benchmarks/results/scale.csv``.

``--models rectangle label-private``: the composition baseline for boxes (two features on
``[0, 2^20 - 1]``, label 1 inside ``[0, 3 2^18)^2``; the driver receives the top ``Delta_0`` keys of
each of the four directions) and the label-private threshold learner on the one-feature data (the
driver receives the distinct features of the first ``n`` rows and ``|H|`` scores). Spark reads the
label-private data from one file (row positions refuse a read of several files, whose order Spark
sets by their sizes); it holds the same rows in the same order. ``--models randmargins``: the
rectangle classifier's default (RandMargins) on the same box data: one count pass, then one pass
per direction (an alive count and the top keys, the deletions replayed where the rows live; on
Spark from one file, as its tags follow row positions).

``--models threshold64``: the threshold classifier (the exponential mechanism over both
orientations) on the domain ``[0, 2^64 - 1]`` with ``n`` records of distinct values (drawn in
``[0, 2^63)``, stored as int64 so that Spark reads them exactly), labelled ``x > 2^62``: the
statistic has ``n`` pieces. The mechanism is drawn range by range (``privpac.learners.range_counts``):
one count pass, then one pass per level (six at 2^64 with the fan-out 4096), the driver holding
``O(4096)`` numbers per level. Run it with ``PYTHONPATH`` on an older tree to measure the collecting
path it replaces.

``--models tukey``: LearnHalfSpace (``PrivateTukeyHalfspaceClassifier``) on one integer feature in
``[-8, 8]`` labelled ``x >= 1``: the chunk points are computed where the chunks live and the driver
receives ``2 m`` integers (Spark reads one file, as for the label-private learner).
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
DOMAIN_BITS = 20

MAKE_DATA = """
import sys
import numpy as np, pandas as pd
n, out, files = int(sys.argv[1]), sys.argv[2], 16
rng = np.random.default_rng(0)
per = -(-n // files)
for i in range(files):
    m = min(per, n - i * per)
    if m <= 0:
        break
    x = rng.integers(0, {high}, m, dtype=np.int64)
    y = (x > {cut}).astype(np.int8)
    pd.DataFrame({{"x": x, "y": y}}).to_parquet(f"{{out}}/part-{{i:03d}}.parquet", index=False)
"""
# values in [0, 2^20): the coarse domain; in [0, 2^63): distinct with probability about 1 - n^2 / 2^64
MAKE_DATA20 = MAKE_DATA.format(high=f"2**{DOMAIN_BITS}", cut=f"3 * 2**{DOMAIN_BITS - 2}")
MAKE_DATA64 = MAKE_DATA.format(high="2**63", cut="2**62")

#: The halfspace model's data: 8 features in the unit ball, labels of a fixed halfspace with cosine
#: margin at least 0.1 (records closer to it are redrawn, vectorised).
MARGIN_FEATURES = 8
MAKE_MARGIN_DATA = """
import sys
import numpy as np, pandas as pd
n, out, files, d = int(sys.argv[1]), sys.argv[2], 16, {d}
rng = np.random.default_rng(0)
w = np.arange(1.0, d + 1.0) / np.linalg.norm(np.arange(1.0, d + 1.0))
per = -(-n // files)
for i in range(files):
    m = min(per, n - i * per)
    if m <= 0:
        break
    kept = np.zeros((0, d))
    while kept.shape[0] < m:
        u = rng.standard_normal((2 * m, d))
        u /= np.linalg.norm(u, axis=1)[:, None]
        kept = np.vstack([kept, u[np.abs(u @ w) >= 0.1]])
    x = kept[:m] * rng.uniform(0.1, 1.0, (m, 1))
    frame = pd.DataFrame({{f"x{{j}}": x[:, j] for j in range(d)}})
    frame["y"] = (x @ w > 0).astype(np.int8)
    frame.to_parquet(f"{{out}}/part-{{i:03d}}.parquet", index=False)
"""

MAKE_BOX_DATA = """
import sys
import numpy as np, pandas as pd
n, out, files = int(sys.argv[1]), sys.argv[2], 16
rng = np.random.default_rng(0)
per = -(-n // files)
for i in range(files):
    m = min(per, n - i * per)
    if m <= 0:
        break
    x = rng.integers(0, 2**{bits}, (m, 2), dtype=np.int64)
    y = (x.max(axis=1) < 3 * 2**{bits_minus_2}).astype(np.int8)
    pd.DataFrame({{"x0": x[:, 0], "x1": x[:, 1], "y": y}}).to_parquet(f"{{out}}/part-{{i:03d}}.parquet", index=False)
"""

MAKE_GRID_DATA = """
import sys
import numpy as np, pandas as pd
n, out, files = int(sys.argv[1]), sys.argv[2], 16
rng = np.random.default_rng(0)
per = -(-n // files)
for i in range(files):
    m = min(per, n - i * per)
    if m <= 0:
        break
    x = rng.integers(-{grid}, {grid} + 1, m, dtype=np.int64)
    pd.DataFrame({{"x": x, "y": (x >= 1).astype(np.int8)}}).to_parquet(f"{{out}}/part-{{i:03d}}.parquet", index=False)
"""
#: The LearnHalfSpace model's public grid bound: one integer feature in [-GRID, GRID].
GRID = 8

#: one file holding the 16 files' rows in name order (for Spark's row positions)
ONE_FILE = """
import sys
import pyarrow.parquet as pq
from pathlib import Path
files = sorted(Path(sys.argv[1]).glob("part-*.parquet"))
with pq.ParquetWriter(sys.argv[2], pq.read_schema(files[0])) as writer:
    for f in files:
        writer.write_table(pq.read_table(f))
"""

CELL = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
engine, model, path = sys.argv[1], sys.argv[2], sys.argv[3]
from privpac.estimators import (LabelPrivateClassifier, PrivateHalfspaceClassifier, PrivateHistogram,
                                PrivatePointClassifier, PrivateRectangleClassifier, PrivateThresholdClassifier,
                                PrivateTukeyHalfspaceClassifier)
dom = (0, 2**{bits} - 1)
columns = {{"halfspace": [f"x{{j}}" for j in range({d})], "rectangle": ["x0", "x1"],
           "randmargins": ["x0", "x1"]}}.get(model, ["x"])
make = {{
    "rectangle": lambda: PrivateRectangleClassifier(domain=dom, method="composition", random_state=1),
    "randmargins": lambda: PrivateRectangleClassifier(domain=dom, random_state=1),
    "label-private": lambda: LabelPrivateClassifier(domain=dom, random_state=1),
    "tukey": lambda: PrivateTukeyHalfspaceClassifier(domain={grid}, random_state=1),
    "halfspace": lambda: PrivateHalfspaceClassifier(domain=1.0, margin=0.1, variant="practical", random_state=1),
    "threshold": lambda: PrivateThresholdClassifier(domain=dom, random_state=1),
    "threshold64": lambda: PrivateThresholdClassifier(domain=(0, 2**64 - 1), random_state=1),
    "point": lambda: PrivatePointClassifier(domain=dom, delta=1e-9, random_state=1),
    "histogram": lambda: PrivateHistogram(domain=dom, n_bins=64, random_state=1),
}}[model]
labelled = model != "histogram"
worker_peak = None
if engine == "memory":
    import pandas as pd
    t0 = time.perf_counter()
    frame = pd.read_parquet(path)
    X, y = frame[columns].to_numpy(), frame["y"].to_numpy()
    est = make().fit(X, y) if labelled else make().fit(X)
    seconds = time.perf_counter() - t0
elif engine.startswith("spark"):
    import os
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    t0 = time.perf_counter()
    frame = spark.read.parquet(path + "-one.parquet" if model in ("label-private", "tukey", "randmargins") else path)
    if engine == "spark-approxquantile":  # the yardstick: one plain Spark job over the same column
        quantile = frame.approxQuantile(columns[0], [0.5], 0.001)
        est = None
    else:
        est = make().fit(frame, "y") if labelled else make().fit(frame.select("x"))
    seconds = time.perf_counter() - t0
    spark.stop()
else:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None)
    with cluster as cl, Client(cl) as client:
        if engine == "dask":  # the workers import before the clock what this process did: privpac, the readers
            modules = ("privpac.estimators._one_d", "privpac.estimators._boxes", "dask.dataframe")
            client.run(lambda: [__import__(m) for m in modules])
        t0 = time.perf_counter()
        frame = dd.read_parquet(path)
        est = make().fit(frame[columns], frame["y"]) if labelled else make().fit(frame[columns])
        seconds = time.perf_counter() - t0
        peaks = client.run(lambda: __import__("resource").getrusage(__import__("resource").RUSAGE_SELF).ru_maxrss)
        worker_peak = max(peaks.values()) / 1024
state = est._fitted_state() if est is not None else {{}}
print(json.dumps({{"seconds": seconds, "driver_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "worker_peak_mb": worker_peak, "n_samples": est.n_samples_ if est is not None else None,
                  "state": {{k: str(v)[:40] for k, v in state.items()}}, "coef": state.get("coef")}}))
"""


def _run(code: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    if out.returncode != 0:  # say which cell failed and why (the other cells' rows are still written)
        raise RuntimeError(f"cell {args[:2]} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=float, nargs="*", default=[1e6, 1e7])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--models", nargs="*", default=["threshold", "point", "histogram"])
    parser.add_argument("--engines", nargs="*", default=["memory", "dask", "spark"])
    parser.add_argument("--out", default=str(RESULTS / "scale.csv"))
    args = parser.parse_args()
    sizes = [1e5] if args.quick else args.n
    rows, failed = [], []
    cell = CELL.format(bits=DOMAIN_BITS, d=MARGIN_FEATURES, grid=GRID)
    margin_models = [m for m in args.models if m == "halfspace"]
    box_models = [m for m in args.models if m in ("rectangle", "randmargins")]
    grid_models = [m for m in args.models if m == "tukey"]
    wide_models = [m for m in args.models if m == "threshold64"]
    other_models = [
        m for m in args.models if m not in ("halfspace", "rectangle", "randmargins", "tukey", "threshold64")
    ]
    for n in sizes:
        n = int(n)
        scratch = Path(tempfile.mkdtemp(prefix="privpac-scale-"))
        try:
            data = {}
            if other_models:
                data["x"] = scratch / "x"
                data["x"].mkdir()
                make_data = MAKE_DATA20
                subprocess.run([sys.executable, "-c", make_data, str(n), str(data["x"])], check=True)
            if "label-private" in other_models and "spark" in args.engines:
                subprocess.run([sys.executable, "-c", ONE_FILE, str(data["x"]), f"{data['x']}-one.parquet"], check=True)
            if box_models:
                data["box"] = scratch / "box"
                data["box"].mkdir()
                make_data = MAKE_BOX_DATA.format(bits=DOMAIN_BITS, bits_minus_2=DOMAIN_BITS - 2)
                subprocess.run([sys.executable, "-c", make_data, str(n), str(data["box"])], check=True)
                if "randmargins" in box_models and "spark" in args.engines:  # row positions: one file
                    one = f"{data['box']}-one.parquet"
                    subprocess.run([sys.executable, "-c", ONE_FILE, str(data["box"]), one], check=True)
            if grid_models:
                data["grid"] = scratch / "grid"
                data["grid"].mkdir()
                make_data = MAKE_GRID_DATA.format(grid=GRID)
                subprocess.run([sys.executable, "-c", make_data, str(n), str(data["grid"])], check=True)
                if "spark" in args.engines:
                    one = f"{data['grid']}-one.parquet"
                    subprocess.run([sys.executable, "-c", ONE_FILE, str(data["grid"]), one], check=True)
            if wide_models:
                data["x64"] = scratch / "x64"
                data["x64"].mkdir()
                subprocess.run([sys.executable, "-c", MAKE_DATA64, str(n), str(data["x64"])], check=True)
            if margin_models:
                data["margin"] = scratch / "margin"
                data["margin"].mkdir()
                make_data = MAKE_MARGIN_DATA.format(d=MARGIN_FEATURES)
                subprocess.run([sys.executable, "-c", make_data, str(n), str(data["margin"])], check=True)
            for model in args.models:
                answers, coefs, first = {}, {}, len(rows)
                for engine in args.engines:
                    dataset = {
                        "halfspace": "margin",
                        "rectangle": "box",
                        "randmargins": "box",
                        "tukey": "grid",
                        "threshold64": "x64",
                    }.get(model, "x")
                    try:
                        r = _run(cell, engine, model, str(data[dataset]))
                    except RuntimeError as err:  # keep the other cells: the failure is printed and named in the file
                        print(err, file=sys.stderr, flush=True)
                        failed.append(f"{model}/{engine}/{n}")
                        continue
                    answers[engine], coefs[engine] = r["state"], r["coef"]
                    rows.append(
                        {
                            "model": model,
                            "engine": engine,
                            "n": n,
                            "seconds": round(r["seconds"], 2),
                            "driver_peak_mb": round(r["driver_peak_mb"]),
                            "worker_peak_mb": "" if r["worker_peak_mb"] is None else round(r["worker_peak_mb"]),
                            "same_model_as_memory": "",
                            "max_coef_diff": "",
                        }
                    )
                    print(rows[-1], flush=True)
                for row in rows[first:]:
                    if row["engine"] not in ("memory", "spark-approxquantile") and "memory" in answers:
                        if model == "halfspace":  # float gradient sums: equal up to rounding, not bit for bit
                            diff = max(abs(a - b) for a, b in zip(coefs[row["engine"]], coefs["memory"]))
                            row["max_coef_diff"] = f"{diff:.2g}"
                            row["same_model_as_memory"] = diff <= 1e-8
                        else:
                            row["same_model_as_memory"] = answers[row["engine"]] == answers["memory"]
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as fh:
        what = f"domain [0, 2^{DOMAIN_BITS} - 1]" if other_models or box_models else ""
        if box_models:
            what += (
                "; rectangle / randmargins: the composition baseline / RandMargins (the default), 2 features, "
                "positives inside [0, 3 2^18)^2"
            )
        if wide_models:
            what += ("; " if what else "") + "threshold64: domain [0, 2^64 - 1], n distinct values, label x > 2^62"
        if grid_models:
            what += ("; " if what else "") + f"tukey: LearnHalfSpace, one feature on [-{GRID}, {GRID}], label x >= 1"
        if margin_models:
            what += ("; " if what else "") + (
                f"halfspace: {MARGIN_FEATURES} features in the unit ball, cosine margin 0.1, 10 noisy GD steps"
            )
        fh.write(f"# {what}; {platform.machine()} {platform.python_implementation()} "
                 f"{platform.python_version()}; two Dask workers, one thread each; a shared 2-core machine; "
                 f"python benchmarks/scale.py {' '.join(sys.argv[1:])}"
                 + (f"; failed cells (error printed by the run): {', '.join(failed)}" if failed else "")
                 + "\n")  # fmt: skip
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
