"""FindDeepPoint over a public candidate set (spec kmst-halfspaces 6.5 option 1): error, time, memory.

    python benchmarks/feasibility_candidates.py                 # both parts
    python benchmarks/feasibility_candidates.py --only utility  # benchmarks/results/feasibility_candidates.csv
    python benchmarks/feasibility_candidates.py --only scale    # benchmarks/results/feasibility_candidates_scale.csv

``utility``: realisable data on the grid ``[[-16, 16]]^d`` (``privpac.datasets.make_grid_halfspace_data``,
a fresh target and sample per seed), d = 2, 5 and 10, epsilon = 1, 3 seeds per cell. Arms:
``PrivateFeasibilityHalfspaceClassifier(candidates=N)`` (N random public halfspaces, ``N`` = 10^3 and
10^4), the exact KMST learner where it runs (d = 2, n <= ``MAX_CONSTRAINTS_3D``), the large-margin
learner (``PrivateHalfspaceClassifier``, public margin 0.1, delta = 1e-6) and non-private logistic
regression. Test error on 20,000 fresh points of the same law; median over seeds.

``scale``: fit time (wall clock and CPU of this process) and peak resident memory of the candidate
learner against n, N and d, one fit each, in a fresh process per fit (the peak is per process).

Run with ``OPENBLAS_NUM_THREADS=1 nice``: the machine is shared, timings from one run compare.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from _results import write_csv

RESULTS = Path(__file__).parent / "results"
B = 16
DELTA = 1e-6


def _data(n: int, d: int, seed: int):
    from privpac.datasets import make_grid_halfspace_data
    from privpac.datasets.grid_halfspaces import grid_halfspace_target

    target = grid_halfspace_target(d, B, rng=seed)
    train = make_grid_halfspace_data(n, d, B, target=target, rng=seed + 1)
    test = make_grid_halfspace_data(20_000, d, B, target=target, rng=seed + 2)
    return train, test


def _arms(n: int, d: int):
    from sklearn.linear_model import LogisticRegression

    from privpac.domains import IntegerDomain
    from privpac.estimators import PrivateFeasibilityHalfspaceClassifier, PrivateHalfspaceClassifier
    from privpac.learners.linear_feasibility import MAX_CONSTRAINTS_3D

    arms = {
        f"kmst candidates={N}": lambda seed, N=N: PrivateFeasibilityHalfspaceClassifier(
            epsilon=1.0, domain=B, candidates=N, random_state=seed
        )
        for N in (1_000, 10_000)
    }
    if d == 2 and n <= MAX_CONSTRAINTS_3D:
        arms["kmst exact"] = lambda seed: PrivateFeasibilityHalfspaceClassifier(
            epsilon=1.0, domain=B, random_state=seed
        )
    arms["large margin (0.1)"] = lambda seed: PrivateHalfspaceClassifier(
        epsilon=1.0,
        delta=DELTA,
        domain=IntegerDomain(-B, B),
        margin=0.1,
        variant="practical",
        fit_intercept=True,
        random_state=seed,
    )
    arms["logistic regression (not private)"] = lambda seed: LogisticRegression(max_iter=2000)
    return arms


def utility(dims=(2, 5, 10), sizes=(500, 2_000, 10_000, 50_000), seeds=3) -> None:
    rows = []
    for d in dims:
        for n in sizes:
            for name, make in _arms(n, d).items():
                errors, times = [], []
                for seed in range(seeds):
                    train, test = _data(n, d, seed)
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est = make(seed).fit(train.X, train.y)
                    times.append(time.perf_counter() - t0)
                    errors.append(float(np.mean(est.predict(test.X) != test.y)))
                row = {
                    "d": d,
                    "n": n,
                    "arm": name,
                    "median_test_error": round(float(np.median(errors)), 4),
                    "max_test_error": round(max(errors), 4),
                    "median_fit_seconds": round(float(np.median(times)), 2),
                }
                rows.append(row)
                print(row, flush=True)
                write_csv(RESULTS / "feasibility_candidates.csv", rows, "epsilon=1, grid [-16,16]^d, 3 seeds")


def _one_fit(n: int, N: int, d: int) -> dict:
    from privpac.estimators import PrivateFeasibilityHalfspaceClassifier

    train, _ = _data(n, d, 0)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PrivateFeasibilityHalfspaceClassifier(epsilon=1.0, domain=B, candidates=N, random_state=0).fit(train.X, train.y)
    return {
        "seconds": round(time.perf_counter() - t0, 2),
        "cpu_seconds": round(time.process_time() - c0, 2),
        "peak_mb": _peak_mb(),
    }


def _peak_mb() -> int:
    """This process's resident high-water mark (``VmHWM``: reset by exec, unlike ``ru_maxrss``, which
    a child started from a large parent inherits)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def scale(cells=None) -> None:
    cells = cells or [(n, N, d) for d in (2, 5, 10) for n in (10_000, 100_000) for N in (1_000, 10_000)] + [
        (1_000_000, 10_000, 5)
    ]
    rows = []
    for n, N, d in cells:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(n), str(N), str(d)], capture_output=True, text=True, check=True
        )
        row = {"n": n, "candidates": N, "d": d, "work": n * N * (d + 2), **json.loads(out.stdout.splitlines()[-1])}
        rows.append(row)
        print(row, flush=True)
        write_csv(RESULTS / "feasibility_candidates_scale.csv", rows, "one fit per cell, fresh process")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["utility", "scale"])
    parser.add_argument("--one", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(_one_fit(*args.one)))
    else:
        if args.only in (None, "utility"):
            utility()
        if args.only in (None, "scale"):
            scale()
