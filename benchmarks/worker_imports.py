"""What a fresh engine worker pays to run a first fit's kernels: its CPU time and the modules it imports.

    nice -n 10 python benchmarks/worker_imports.py

For each model, a new one-worker Dask ``LocalCluster`` (a fresh worker process) fits a small Dask
DataFrame (1,000 rows in two partitions); the worker's CPU time (``getrusage``) is read just before
and just after the fit, with whether scikit-learn and SciPy were imported by then. Unpickling a
kernel imports the module it is defined in, so a kernel defined beside the estimators' scikit-learn
classes made every new worker import scikit-learn, SciPy and every learner (issue 22). The same
holds for Spark's Python workers. Writes ``benchmarks/results/worker_imports.csv``.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

from _results import write_csv


def _worker_state():
    import resource
    import sys

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, "sklearn" in sys.modules, "scipy" in sys.modules, len(sys.modules)


def main() -> None:
    warnings.simplefilter("ignore")
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    from privpac.estimators import (
        LabelPrivateClassifier,
        PrivateHistogram,
        PrivatePointClassifier,
        PrivateRectangleClassifier,
        PrivateThresholdClassifier,
    )

    rng = np.random.default_rng(0)
    one = pd.DataFrame({"x": rng.integers(0, 1000, 1000)})
    one["y"] = (one["x"] > 300).astype(int)
    two = pd.DataFrame({"a": rng.integers(0, 1000, 1000), "b": rng.integers(0, 1000, 1000)})
    two["y"] = ((two["a"] > 300) & (two["b"] > 200)).astype(int)
    fits = {
        "threshold": lambda f: PrivateThresholdClassifier(domain=(0, 999), random_state=1).fit(f[["x"]], f["y"]),
        "point": lambda f: PrivatePointClassifier(domain=(0, 999), random_state=1).fit(f[["x"]], f["y"]),
        "histogram": lambda f: PrivateHistogram(domain=(0, 999), random_state=1).fit(f[["x"]]),
        "rectangle": lambda f: PrivateRectangleClassifier(domain=(0, 999), random_state=1).fit(f[["a", "b"]], f["y"]),
        "label-private": lambda f: LabelPrivateClassifier(domain=(0, 999), n_unlabelled=100, random_state=1).fit(
            f[["x"]], f["y"]
        ),
    }
    rows = []
    for model, fit in fits.items():
        data = dd.from_pandas(two if model == "rectangle" else one, npartitions=2)
        with (
            LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            ((before, *_),) = client.run(_worker_state).values()
            fit(data)
            ((after, sklearn, scipy, modules),) = client.run(_worker_state).values()
        rows.append(
            {
                "model": model,
                "worker_cpu_s": round(after - before, 2),
                "imported_sklearn": sklearn,
                "imported_scipy": scipy,
                "worker_modules": modules,
            }
        )
        print(rows[-1], flush=True)
    write_csv(
        Path(__file__).parent / "results" / "worker_imports.csv",
        rows,
        "nice -n 10 python benchmarks/worker_imports.py; a fresh one-worker LocalCluster per model, 1,000 rows "
        f"in two partitions; a 2-core machine, 1-minute load average {os.getloadavg()[0]:.1f} at the end",
    )


if __name__ == "__main__":
    main()
