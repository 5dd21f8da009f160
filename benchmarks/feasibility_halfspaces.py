"""The KMST halfspace learners (LearnHalfSpace, the PAC learner) in d = 1: fit time and errors.

    python benchmarks/feasibility_halfspaces.py             # writes benchmarks/results/feasibility_halfspaces.csv
    python benchmarks/feasibility_halfspaces.py --only done # writes benchmarks/results/feasibility_halfspaces_done.csv
    python benchmarks/feasibility_halfspaces.py --only done --sizes 300 500  # chosen sizes only

Data: ``m`` points uniform on the grid ``[[-X, X]]`` labelled 1 iff ``x >= t`` (realisable, the
threshold ``t`` drawn per seed). Each cell fits ``PrivateFeasibilityHalfspaceClassifier`` with the
exponential mechanism per coordinate (pure DP, the default) for 5 seeds and reports the median fit
time (one shared core, exact arithmetic), the training error (max and median) and the population
error on the grid (the uniform law, computed exactly over the ``2X + 1`` points; max and median),
next to the plan's sufficient size for error ``alpha = 0.1`` with probability ``1 - beta = 0.9``.
The machine is shared: only timings from one run are comparable.

``--only done`` measures issue 12's criterion: the margin-1 ERM learner with the exponential mechanism
on realisable 2-D data on the grid ``[[-128, 128]]^2`` (``privpac.datasets.make_grid_halfspace_data``,
a fresh target per run), epsilon = 1: the share of runs whose *training* error is at most 0.1, for
``m`` from 50 up to the exact envelope of FindDeepPoint in ``D = 3`` (``MAX_CONSTRAINTS_3D``), 20
runs each. The fit time is the median wall-clock time and the median CPU time of the process (the
machine is shared; the CPU time is what one core spends). The CSV is rewritten after every size.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from _results import write_csv
from privpac.estimators import PrivateFeasibilityHalfspaceClassifier
from privpac.learners.feasibility_halfspaces import plan_halfspace_learner

OUT = Path(__file__).parent / "results" / "feasibility_halfspaces.csv"
DONE_OUT = Path(__file__).parent / "results" / "feasibility_halfspaces_done.csv"


def sample(m: int, X: int, seed: int):
    gen = np.random.default_rng(seed)
    t = int(gen.integers(-X // 2, X // 2 + 1))
    x = gen.integers(-X, X + 1, size=(m, 1))
    return x, (x[:, 0] >= t).astype(int), t


DONE_SIZES = (50, 100, 150, 200, 300, 400, 500, 600, 700)


def done_criterion(sizes=DONE_SIZES, runs: int = 20, B: int = 128) -> None:
    from privpac.datasets import make_grid_halfspace_data
    from privpac.datasets.grid_halfspaces import grid_halfspace_target

    rows = []
    for m in sizes:
        errors, times, cpu = [], [], []
        for seed in range(runs):
            data = make_grid_halfspace_data(m, 2, B, target=grid_halfspace_target(2, B, rng=seed), rng=seed + 1)
            est = PrivateFeasibilityHalfspaceClassifier(epsilon=1.0, domain=B, random_state=seed)
            t0, c0 = time.perf_counter(), time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(data.X, data.y)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            errors.append(float(np.mean(est.predict(data.X) != data.y)))
        row = {
            "d": 2,
            "B": B,
            "m": m,
            "epsilon": 1.0,
            "runs": runs,
            "share_train_error_le_0.1": round(float(np.mean(np.asarray(errors) <= 0.1)), 3),
            "train_error_median": round(float(np.median(errors)), 4),
            "train_error_p90": round(float(np.quantile(errors, 0.9)), 4),
            "fit_seconds_median": round(float(np.median(times)), 2),
            "fit_cpu_seconds_median": round(float(np.median(cpu)), 2),
        }
        print(row, flush=True)
        rows.append(row)
        write_csv(DONE_OUT, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["done"], help="run only the done-criterion measurement")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DONE_SIZES), help="sample sizes of --only done")
    args = parser.parse_args()
    if args.only == "done":
        done_criterion(tuple(args.sizes))
        return
    cells = [("erm", "margin-1", 8, m, 1.0) for m in (100, 1_000, 10_000)]
    cells += [("pac", "margin-1", 8, m, 1.0) for m in (1_000, 10_000)]
    cells += [("erm", "paper", 8, m, 1.0) for m in (100, 1_000, 10_000)]
    cells += [("pac", "paper", 8, m, 1.0) for m in (100, 1_000)]
    # A fine grid: 2049 values, so up to 4098 distinct dual rows and O(rows^2) arrangement vertices.
    cells += [("erm", "margin-1", 1024, m, 1.0) for m in (100, 1_000, 10_000)]
    rows = []
    for learner, dual, X, m, eps in cells:
        plan = plan_halfspace_learner(m, 1, X, eps, learner=learner, dual=dual)
        grid = np.arange(-X, X + 1).reshape(-1, 1)
        times, train, population, degenerate = [], [], [], 0
        for seed in range(5):
            x, y, t = sample(m, X, 1000 * seed + m)
            est = PrivateFeasibilityHalfspaceClassifier(
                epsilon=eps, domain=X, learner=learner, dual=dual, random_state=seed
            )
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(x, y)
            times.append(time.perf_counter() - t0)
            train.append(float(np.mean(est.predict(x) != y)))
            population.append(float(np.mean(est.predict(grid) != (grid[:, 0] >= t))))
            degenerate += int(est.degenerate_)
        row = {
            "learner": learner,
            "dual": dual,
            "X": X,
            "m": m,
            "epsilon": eps,
            "sufficient_m": plan.sufficient_m,
            "fit_seconds_median": round(float(np.median(times)), 3),
            "train_error_max": round(max(train), 4),
            "train_error_median": round(float(np.median(train)), 4),
            "population_error_max": round(max(population), 4),
            "population_error_median": round(float(np.median(population)), 4),
            "degenerate_runs": degenerate,
        }
        print(row, flush=True)
        rows.append(row)
    write_csv(OUT, rows)


if __name__ == "__main__":
    main()
