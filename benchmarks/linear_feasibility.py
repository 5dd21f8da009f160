"""FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia 2020) for D = 1, 2: fit time and depth reached.

    python benchmarks/linear_feasibility.py          # writes benchmarks/results/linear_feasibility.csv

Systems: ``m`` random rows in ``[-X, X]^D`` with right-hand sides ``floor(<a, x0>) - {0, 1}``, so the
public point ``x0`` (with ``|<a, x0>| <= X``) is feasible. Each cell runs the exponential-mechanism
mode (pure DP, the default) at the given epsilon, 5 seeds (one for the two largest cells, which
reach the ``D = 2`` envelope), and reports the fit time (one core, exact arithmetic: vertices,
depths, hulls, domain ranks) and the fraction of constraints the output satisfies (min and
median over the seeds), next to the size that guarantees ``(1 - alpha) m`` with probability
``1 - beta`` (``plan.sufficient_m``, alpha = beta = 0.1). The machine is shared: only timings from
one run are comparable.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from _results import write_csv
from privpac.geometry.feasibility import depth
from privpac.learners.linear_feasibility import find_deep_point, plan_find_deep_point

OUT = Path(__file__).parent / "results" / "linear_feasibility.csv"


def system(m: int, D: int, X: int, seed: int):
    gen = np.random.default_rng(seed)
    x0 = (Fraction(1, 2),) if D == 1 else (Fraction(1, 3), Fraction(-1, 2))
    A = gen.integers(-X, X + 1, size=(m, D))
    lhs = [sum(Fraction(int(a)) * x for a, x in zip(row, x0)) for row in A]
    b = np.array([min(X, max(-X, int(np.floor(v)) - int(gen.integers(0, 2)))) for v in lhs])
    return A, b


def main() -> None:
    cells = [(1, 2, m, 1.0, 5) for m in (100, 400, 1_000, 10_000)]
    cells += [(2, X, m, eps, 5) for X in (2, 10) for m in (100, 300, 1_000) for eps in (1.0, 10.0)]
    # Nearly every row distinct: up to the D = 2 envelope (MAX_DISTINCT_ROWS_2D), one seed each.
    cells += [(2, 100, 3_000, 1.0, 1), (2, 1000, 10_000, 1.0, 1)]
    rows = []
    for D, X, m, eps, seeds in cells:
        A, b = system(m, D, X, seed=m + X)
        plan = plan_find_deep_point(m, D, X, eps)
        times, fracs = [], []
        for seed in range(seeds):
            t0 = time.perf_counter()
            x = find_deep_point(A, b, X, eps, rng=seed).solution
            times.append(time.perf_counter() - t0)
            fracs.append(depth(x, A, b) / m)
        row = {
            "D": D,
            "X": X,
            "m": m,
            "distinct_rows": len(np.unique(np.concatenate([A, b[:, None]], axis=1), axis=0)),
            "epsilon": eps,
            "seeds": seeds,
            "sufficient_m": plan.sufficient_m,
            "fit_seconds_median": round(float(np.median(times)), 3),
            "satisfied_min": round(min(fracs), 3),
            "satisfied_median": round(float(np.median(fracs)), 3),
        }
        print(row, flush=True)
        rows.append(row)
    write_csv(OUT, rows)


if __name__ == "__main__":
    main()
