"""The faithful large-margin learner (NUZ Algorithm 1/3) in memory, on Dask and on Spark.

    nice -n 10 python benchmarks/scale_faithful.py                       # dpgd at 1e3, 1e4; bst14 at 1e3
    nice -n 10 python benchmarks/scale_faithful.py --dpgd 1e3 --bst14 300 --engines memory dask   # quick

``PrivateHalfspaceClassifier(variant="faithful")`` on 8 features in the unit ball with cosine
margin 0.1 (the data of ``benchmarks/scale.py``'s halfspace model), ``epsilon = 1``,
``delta = 1e-9``, ``k = 7`` boosted runs:

* ``optimizer="dpgd"``: 10 noisy gradient steps for the 7 runs together, then the selection: the
  data is read 12 times (the checking count, 10 gradient sums, the candidates' total losses);
* ``optimizer="bst14"`` (the paper's): ``n^2 - 1`` noisy SGD steps, each reading one record at a
  position drawn on the driver. On an engine the records of
  :func:`~privpac.learners.dp_erm.engine_steps_per_pass` steps are gathered per pass, so the data
  is read ``3 + ceil((n^2 - 1) / steps_per_pass)`` times (the count, the partition offsets, the
  gathers, the selection). The ``O(k n^2 m)`` loop on the driver dominates at every ``n``.

The rows are written to 16 Parquet files (Dask reads them, two-worker ``LocalCluster``, one thread
each) and to one file holding them in the same order (Spark, ``local[2]``: row positions refuse a
read of several files). Each engine runs in a fresh process; the fitted state is compared with the
in-memory fit's. Writes ``benchmarks/results/scale_faithful.csv``.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
FEATURES = 8

MAKE_DATA = """
import sys
import numpy as np, pandas as pd, pyarrow as pa, pyarrow.parquet as pq
n, out, files, d = int(sys.argv[1]), sys.argv[2], 16, {d}
rng = np.random.default_rng(0)
w = np.arange(1.0, d + 1.0) / np.linalg.norm(np.arange(1.0, d + 1.0))
kept = np.zeros((0, d))
while kept.shape[0] < n:
    u = rng.standard_normal((2 * n, d))
    u /= np.linalg.norm(u, axis=1)[:, None]
    kept = np.vstack([kept, u[np.abs(u @ w) >= 0.1]])
x = kept[:n] * rng.uniform(0.1, 1.0, (n, 1))
frame = pd.DataFrame({{f"x{{j}}": x[:, j] for j in range(d)}})
frame["y"] = (x @ w > 0).astype(np.int8)
per = -(-n // files)
for i in range(files):
    frame.iloc[i * per : (i + 1) * per].to_parquet(f"{{out}}/part-{{i:03d}}.parquet", index=False)
frame.to_parquet(out + "-one.parquet", index=False)
"""

CELL = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
engine, cells = sys.argv[1], json.loads(sys.argv[2])
from privpac.estimators import PrivateHalfspaceClassifier
columns = [f"x{{j}}" for j in range({d})]

def make(optimizer):
    return PrivateHalfspaceClassifier(domain=1.0, margin=0.1, delta=1e-9, variant="faithful", optimizer=optimizer,
                                      random_state=1)

out = []
def record(cell, est, seconds):
    out.append({{**cell, "seconds": seconds, "state": est._fitted_state(), "ledger": est.ledger_.lines()}})

if engine == "memory":
    import pandas as pd
    for cell in cells:
        t0 = time.perf_counter()
        frame = pd.read_parquet(cell["path"] + "-one.parquet")
        est = make(cell["optimizer"]).fit(frame[columns].to_numpy(), frame["y"].to_numpy())
        record(cell, est, time.perf_counter() - t0)
elif engine == "spark":
    import os
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for cell in cells:
        t0 = time.perf_counter()
        est = make(cell["optimizer"]).fit(spark.read.parquet(cell["path"] + "-one.parquet"), "y")
        record(cell, est, time.perf_counter() - t0)
    spark.stop()
else:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cl, Client(cl):
        for cell in cells:
            t0 = time.perf_counter()
            frame = dd.read_parquet(cell["path"])
            est = make(cell["optimizer"]).fit(frame[columns], frame["y"])
            record(cell, est, time.perf_counter() - t0)
print(json.dumps(out))
"""


def _passes(optimizer: str, n: int) -> int:
    """How many times an engine fit reads the data (public sizes only)."""
    from privpac.learners.dp_erm import boosting_rounds, engine_steps_per_pass

    if optimizer == "dpgd":
        return 1 + 10 + 1
    return 3 + math.ceil((n * n - 1) / engine_steps_per_pass(boosting_rounds(0.1), FEATURES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dpgd", type=float, nargs="*", default=[1e3, 1e4])
    parser.add_argument("--bst14", type=float, nargs="*", default=[1e3])
    parser.add_argument("--engines", nargs="*", default=["memory", "dask", "spark"])
    parser.add_argument("--out", default=str(RESULTS / "scale_faithful.csv"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="privpac-faithful-"))
    try:
        cells = []
        for n in sorted({int(v) for v in [*args.dpgd, *args.bst14]}):
            path = scratch / f"n{n}"
            path.mkdir()
            subprocess.run([sys.executable, "-c", MAKE_DATA.format(d=FEATURES), str(n), str(path)], check=True)
            for optimizer, sizes in (("dpgd", args.dpgd), ("bst14", args.bst14)):
                if n in {int(v) for v in sizes}:
                    cells.append({"n": n, "optimizer": optimizer, "path": str(path)})
        found = {}
        for engine in args.engines:
            run = subprocess.run(
                [sys.executable, "-c", CELL.format(d=FEATURES), engine, json.dumps(cells)],
                capture_output=True,
                text=True,
                check=True,
            )
            found[engine] = json.loads(run.stdout.strip().splitlines()[-1])
        rows = []
        for engine, results in found.items():
            for i, result in enumerate(results):
                reference = found.get("memory", [None] * len(results))[i]
                row = {
                    "n": result["n"],
                    "optimizer": result["optimizer"],
                    "engine": engine,
                    "seconds": round(result["seconds"], 2),
                    "passes": "-" if engine == "memory" else _passes(result["optimizer"], result["n"]),
                    "max_abs_coef_difference": "-",
                    "same_state": "-",
                    "same_ledger": "-",
                }
                if reference is not None and engine != "memory":
                    diff = max(abs(a - b) for a, b in zip(result["state"]["coef"], reference["state"]["coef"]))
                    row.update(
                        max_abs_coef_difference=f"{diff:.1e}",
                        same_state=result["state"] == reference["state"],
                        same_ledger=result["ledger"] == reference["ledger"],
                    )
                rows.append(row)
                print(row, flush=True)
        RESULTS.mkdir(exist_ok=True)
        with open(args.out, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
