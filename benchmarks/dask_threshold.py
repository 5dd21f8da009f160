"""The threshold classifier on a 2^64 domain: a Dask fit against the in-memory fit of the same rows.

    nice -n 10 python benchmarks/dask_threshold.py                       # n = 1e6, 1e7
    python benchmarks/dask_threshold.py --n 1e5 --repeats 2              # smoke test

One two-worker ``LocalCluster`` (processes, one thread each, on 127.0.0.1) for the whole run. For
each ``n`` the rows are generated on the workers in ``--partitions`` partitions (values drawn in
``[0, 2^63)``, so about ``n`` distinct values, labelled ``x > 2^62``: the ``threshold64`` data of
``benchmarks/scale.py``) and persisted there, once as a Dask DataFrame and once as Dask arrays;
the in-memory fit gets the same rows as NumPy arrays on the driver. Each cell is one warm-up fit,
then ``--repeats`` timed fits; the medians are reported:

* ``seconds``: wall time of ``fit``;
* ``cpu_seconds``: CPU time (user + system) of the driver process (which also runs the Dask
  scheduler) plus that of the two worker processes, over the fit: the machine is shared, so
  wall time depends on the other jobs, CPU time much less.

Every Dask fit is checked to give the in-memory model (fitted state and ledger). Appends rows to
``benchmarks/results/scale_dask_threshold.csv`` (columns of ``scale.csv`` plus ``cpu_seconds``,
the ratios to the in-memory cell and a ``label``).
"""

from __future__ import annotations

import argparse
import csv
import platform
import resource
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).parent / "results"
FIELDS = [
    "label",
    "model",
    "engine",
    "n",
    "seconds",
    "cpu_seconds",
    "ratio_seconds",
    "ratio_cpu",
    "driver_peak_mb",
    "worker_peak_mb",
    "same_model_as_memory",
]


def _part(seed: int, m: int):
    rng = np.random.default_rng([0, seed])
    x = rng.integers(0, 2**63, m, dtype=np.int64)
    return x, (x > 2**62).astype(np.int8)


def _frame(seed: int, m: int):
    import pandas as pd

    x, y = _part(seed, m)
    return pd.DataFrame({"x": x, "y": y})


def _cpu() -> float:
    t = resource.getrusage(resource.RUSAGE_SELF)
    return t.ru_utime + t.ru_stime


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _state(est):
    return est._fitted_state(), est.ledger_.lines(), est.n_samples_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=float, nargs="*", default=[1e6, 1e7])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--engines", nargs="*", default=["memory", "dask-frame", "dask-array"])
    parser.add_argument("--label", default="", help="a name for these rows (for example before / after)")
    parser.add_argument("--out", default=str(RESULTS / "scale_dask_threshold.csv"))
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    import dask
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster, wait

    from privpac.estimators import PrivateThresholdClassifier

    def make():
        return PrivateThresholdClassifier(domain=(0, 2**64 - 1), random_state=1)

    rows = []
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as lc,
        Client(lc) as client,
    ):
        client.run(lambda: [__import__(m) for m in ("privpac.estimators._one_d", "privpac.estimators._boxes")])
        for n in (int(v) for v in args.n):
            per = -(-n // args.partitions)
            sizes = [min(per, n - i * per) for i in range(args.partitions) if n - i * per > 0]
            meta = pd.DataFrame({"x": np.zeros(0, np.int64), "y": np.zeros(0, np.int8)})
            frame = dd.from_delayed([dask.delayed(_frame)(i, m) for i, m in enumerate(sizes)], meta=meta)
            parts = [dask.delayed(_part)(i, m) for i, m in enumerate(sizes)]
            xs = da.concatenate([da.from_delayed(p[0], (m,), np.int64) for p, m in zip(parts, sizes)])
            ys = da.concatenate([da.from_delayed(p[1], (m,), np.int8) for p, m in zip(parts, sizes)])
            frame, xs, ys = client.persist([frame, xs.reshape(-1, 1), ys])
            wait([frame, xs, ys])
            x_np, y_np = client.compute([xs, ys], sync=True)
            inputs = {"memory": (x_np, y_np), "dask-frame": (frame[["x"]], frame["y"]), "dask-array": (xs, ys)}
            reference, memory_cell = None, None
            for engine in args.engines:
                X, y = inputs[engine]
                est = make().fit(X, y)  # warm-up
                walls, cpus = [], []
                for _ in range(args.repeats):
                    workers0 = client.run(_cpu)
                    c0, t0 = _cpu(), time.perf_counter()
                    est = make().fit(X, y)
                    wall, cpu = time.perf_counter() - t0, _cpu() - c0
                    workers1 = client.run(_cpu)
                    walls.append(wall)
                    cpus.append(cpu + sum(workers1[w] - workers0[w] for w in workers1))
                if reference is None:
                    reference = _state(make().fit(x_np, y_np))
                row = {
                    "label": args.label,
                    "model": "threshold64",
                    "engine": engine,
                    "n": n,
                    "seconds": round(statistics.median(walls), 3),
                    "cpu_seconds": round(statistics.median(cpus), 3),
                    "ratio_seconds": "",
                    "ratio_cpu": "",
                    "driver_peak_mb": round(_peak_mb()),
                    "worker_peak_mb": "" if engine == "memory" else round(max(client.run(_peak_mb).values())),
                    "same_model_as_memory": "" if engine == "memory" else _state(est) == reference,
                }
                if engine == "memory":
                    memory_cell = row
                elif memory_cell is not None:
                    row["ratio_seconds"] = round(row["seconds"] / memory_cell["seconds"], 2)
                    row["ratio_cpu"] = round(row["cpu_seconds"] / memory_cell["cpu_seconds"], 2)
                rows.append(row)
                print(row, flush=True)
            client.cancel([frame, xs, ys])
            del frame, xs, ys, x_np, y_np, inputs, X, y
    out = Path(args.out)
    new = not out.exists()
    with out.open("a", newline="") as fh:
        if new:
            fh.write(
                f"# threshold64: PrivateThresholdClassifier on [0, 2^64 - 1], n values drawn in [0, 2^63), label "
                f"x > 2^62; rows generated and persisted on a two-worker LocalCluster ({args.partitions} partitions); "
                f"median of the timed fits after one warm-up; cpu_seconds: driver + workers, user + system; "
                f"ratios to the memory row of the same label and n; {platform.machine()} "
                f"{platform.python_implementation()} {platform.python_version()}; a shared 2-core machine; "
                f"python benchmarks/dask_threshold.py {' '.join(sys.argv[1:])}\n"
            )
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
