"""FindDeepPoint (KMST, D = 3) and FindTukey (BMNS, d = 3): fit time of the exact LP oracles.

    python benchmarks/dimension3.py          # writes benchmarks/results/dimension3.csv
    python benchmarks/dimension3.py --only find-deep-point  # reruns those rows, keeps the FindTukey rows

FindDeepPoint: ``m`` random rows in ``[-X, X]^3`` with right-hand sides ``floor(<a, x0>) - {0, 1}``
(the public ``x0 = (1/4, -1/3, 1/4)`` is feasible), exponential-mechanism mode. FindTukey: ``n``
points uniform on the grid ``[-B, B]^3`` and, separately, in general position on a larger box,
exponential mode. Each cell runs ``trials`` seeds at a generous epsilon (the fit time does not
depend on epsilon) and reports the median fit time (one core, exact arithmetic: vertices or plane
normals, depths, exact hulls and certified LPs, domain ranks) and the quality reached: the fraction
of constraints satisfied, or the Tukey depth over ``n``. The machine is shared: only timings from
one run are comparable.
"""

from __future__ import annotations

import argparse
import csv
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from privpac.geometry import tukey_depth
from privpac.geometry.feasibility import depth
from privpac.learners.center_point import find_tukey
from privpac.learners.linear_feasibility import find_deep_point

OUT = Path(__file__).parent / "results" / "dimension3.csv"
X0 = (Fraction(1, 4), Fraction(-1, 3), Fraction(1, 4))


def system(m: int, X: int, seed: int):
    gen = np.random.default_rng(seed)
    A = gen.integers(-X, X + 1, size=(m, 3))
    lhs = [sum(Fraction(int(a)) * x for a, x in zip(row, X0)) for row in A]
    b = np.array([min(X, max(-X, int(np.floor(v)) - int(gen.integers(0, 2)))) for v in lhs])
    return A, b


def main(trials: int = 3) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["find-deep-point"], help="rerun the FindDeepPoint rows only")
    args = parser.parse_args()
    rows = []
    for X, m in [(1, 25), (1, 50), (3, 50), (3, 100), (3, 150), (3, 300), (3, 500)]:
        A, b = system(m, X, seed=m + X)
        times, quality = [], []
        for seed in range(trials):
            t0 = time.perf_counter()
            x = find_deep_point(A, b, X, 200.0, alpha=0.5, rng=seed).solution
            times.append(time.perf_counter() - t0)
            quality.append(depth(x, A, b) / m)
        rows.append(("FindDeepPoint", "random feasible system", X, m, np.median(times), min(quality)))
        print(rows[-1], flush=True)
    if args.only:  # keep the other rows of the last full run
        with OUT.open(newline="") as fh:
            kept = [r for r in list(csv.reader(fh))[1:] if r[0] != "FindDeepPoint"]
        rows += [(r[0], r[1], int(r[2]), int(r[3]), float(r[4]), float(r[5])) for r in kept]
    for what, B, n in [] if args.only else [("grid", 1, 50), ("grid", 1, 100), ("general", 20, 25), ("general", 20, 50),
                       ("general", 20, 75), ("general", 20, 100)]:  # fmt: skip
        gen = np.random.default_rng(n + B)
        S = gen.integers(-B, B + 1, size=(n, 3))
        times, quality = [], []
        for seed in range(trials):
            t0 = time.perf_counter()
            c = find_tukey(S, B, 200.0, rng=seed).center
            times.append(time.perf_counter() - t0)
            quality.append(tukey_depth(c, S) / n)
        rows.append(("FindTukey", f"uniform on [-{B}, {B}]^3 ({what})", B, n, np.median(times), min(quality)))
        print(rows[-1], flush=True)
    OUT.parent.mkdir(exist_ok=True)
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["algorithm", "data", "bound", "size", "fit_seconds_median", "quality_min"])
        for alg, data, bound, size, sec, q in rows:
            w.writerow([alg, data, bound, size, f"{sec:.2f}", f"{q:.3f}"])


if __name__ == "__main__":
    main()
