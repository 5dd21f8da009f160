"""FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia 2020) for D = 1, 2: fit time and depth reached.

    python benchmarks/linear_feasibility.py          # writes benchmarks/results/linear_feasibility.csv
    python benchmarks/linear_feasibility.py --only envelope  # writes benchmarks/results/linear_feasibility_envelope.csv
    python benchmarks/linear_feasibility.py --only envelope --cells 2:10000 3:1000  # chosen cells (D:m)

Systems: ``m`` random rows in ``[-X, X]^D`` with right-hand sides ``floor(<a, x0>) - {0, 1}``, so the
public point ``x0`` (with ``|<a, x0>| <= X``) is feasible. Each cell runs the exponential-mechanism
mode (pure DP, the default) at the given epsilon, 5 seeds (one for the two largest cells, which
reach the ``D = 2`` envelope), and reports the fit time (one core, exact arithmetic: vertices,
depths, hulls, domain ranks) and the fraction of constraints the output satisfies (min and
median over the seeds), next to the size that guarantees ``(1 - alpha) m`` with probability
``1 - beta`` (``plan.sufficient_m``, alpha = beta = 0.1). The machine is shared: only timings from
one run are comparable.

``--only envelope`` fits ``PrivateLinearFeasibility(epsilon=1.0, domain=128)`` at the exact oracle's
envelope (``D = 2`` at ``m = 10^4`` and beyond, ``D = 3`` at ``m = 1,000``; ``D = 3`` systems as in
``benchmarks/dimension3.py``), one fit per fresh process, and reports the wall and CPU seconds, the
process's peak RSS, and the fractions of the ``m`` training and of ``m`` held-out constraints of the
same planted system that the solution satisfies.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from _results import write_csv
from privpac.geometry.feasibility import depth
from privpac.learners.linear_feasibility import find_deep_point, plan_find_deep_point

OUT = Path(__file__).parent / "results" / "linear_feasibility.csv"
ENVELOPE_OUT = Path(__file__).parent / "results" / "linear_feasibility_envelope.csv"
#: ``--only envelope``: the estimator at its envelope, entries in [-128, 128], epsilon = 1 (issue 25).
ENVELOPE_CELLS = ((2, 10_000), (2, 20_000), (2, 40_000), (2, 45_000), (3, 1_000))
ENVELOPE_X = 128


def system(m: int, D: int, X: int, seed: int):
    gen = np.random.default_rng(seed)
    x0 = (Fraction(1, 2),) if D == 1 else (Fraction(1, 3), Fraction(-1, 2))
    A = gen.integers(-X, X + 1, size=(m, D))
    lhs = [sum(Fraction(int(a)) * x for a, x in zip(row, x0)) for row in A]
    b = np.array([min(X, max(-X, int(np.floor(v)) - int(gen.integers(0, 2)))) for v in lhs])
    return A, b


def planted(D: int, m: int, X: int, seed: int):
    """``m`` training and ``m`` held-out constraints of one planted feasible system (``D = 3``: the
    public point of ``benchmarks/dimension3.py``)."""
    if D == 3:
        from dimension3 import system as system3

        return system3(2 * m, X, seed=seed)
    return system(2 * m, D, X, seed=seed)


def envelope_fit(D: int, m: int, X: int, seed: int = 0) -> dict:
    """One fit of ``PrivateLinearFeasibility(epsilon=1.0, domain=X)`` in this (fresh) process: wall and CPU
    seconds, the process's peak RSS, and the fractions of the training and held-out constraints satisfied."""
    import warnings

    from privpac.estimators import PrivateLinearFeasibility

    A, b = planted(D, m, X, seed=m + X)
    est = PrivateLinearFeasibility(epsilon=1.0, domain=X, random_state=seed)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sufficient-size warning (reported in the row instead)
        est.fit(A[:m], b[:m])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "D": D,
        "X": X,
        "m": m,
        "epsilon": 1.0,
        "sufficient_m": plan_find_deep_point(m, D, X, 1.0).sufficient_m,
        "fit_seconds": round(wall, 1),
        "fit_cpu_seconds": round(cpu, 1),
        "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6, 2),
        "satisfied_train": round(depth(est.solution_, A[:m], b[:m]) / m, 3),
        "satisfied_heldout": round(depth(est.solution_, A[m:], b[m:]) / m, 3),
    }


def envelope(cells) -> None:
    """Each cell in a fresh process (its peak RSS is the fit's): ``--fit D m`` prints the row as JSON."""
    rows = []
    for D, m in cells:
        out = subprocess.run(
            [sys.executable, __file__, "--fit", str(D), str(m)], capture_output=True, text=True, check=True
        )
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    command = "python benchmarks/linear_feasibility.py --only envelope" + (
        "" if tuple(cells) == ENVELOPE_CELLS else " --cells " + " ".join(f"{D}:{m}" for D, m in cells)
    )
    write_csv(ENVELOPE_OUT, rows, comment=f"{command}; one fit per fresh process on a shared 2-core machine")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["envelope"], help="the envelope fits only (one process each)")
    parser.add_argument("--cells", nargs="+", help="envelope cells as D:m")
    parser.add_argument("--fit", type=int, nargs=2, metavar=("D", "m"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.fit:
        print(json.dumps(envelope_fit(*args.fit, X=ENVELOPE_X)))
        return
    if args.only == "envelope":
        cells = [tuple(int(v) for v in c.split(":")) for c in args.cells] if args.cells else ENVELOPE_CELLS
        envelope(cells)
        return
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
