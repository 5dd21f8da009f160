"""FindDeepPoint's two candidate domains and RecConcave's truncation, side by side.

    python benchmarks/feasibility_domains.py     # writes benchmarks/results/feasibility_domains.csv

Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 2, with the spec's integer "mode C" domains
(``kmst-halfspaces`` 3.7 item 5) next to the default A3-rational domains, and RecConcave with and
without the truncation from below (3.7 item 3). Systems as in ``benchmarks/linear_feasibility.py``
(random rows in ``[-X, X]^D``, a public point ``x0`` feasible); each cell runs ``trials`` seeds on
the same system and reports the median fit time, the fraction of constraints satisfied (min and
median) and ``plan.sufficient_m`` (alpha = beta = 0.1). One shared core: timings from one run only
are comparable.
"""

from __future__ import annotations

import time
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np

from _results import write_csv
from privpac.geometry.feasibility import depth
from privpac.learners.linear_feasibility import find_deep_point, plan_find_deep_point

OUT = Path(__file__).parent / "results" / "feasibility_domains.csv"
X0 = (Fraction(1, 3), Fraction(-1, 2), Fraction(1, 4))


def system(m: int, D: int, X: int, seed: int):
    gen = np.random.default_rng(seed)
    A = gen.integers(-X, X + 1, size=(m, D))
    lhs = [sum(Fraction(int(a)) * x for a, x in zip(row, X0[:D])) for row in A]
    b = np.array([min(X, max(-X, int(np.floor(v)) - int(gen.integers(0, 2)))) for v in lhs])
    return A, b


def main(trials: int = 5) -> None:
    # (D, X, m, epsilon, delta, optimiser, truncate)
    cells = [(1, 2, m, 1.0, 0.0, "exponential", None) for m in (100, 1_000)]
    cells += [(2, X, m, 1.0, 0.0, "exponential", None) for X, m in ((2, 100), (2, 1_000), (10, 300))]
    cells += [(3, 1, 25, 20.0, 0.0, "exponential", None)]
    cells += [(D, 2, m, 1.0, 1e-6, "recconcave", tr) for D, m in ((1, 1_000), (2, 300)) for tr in (True, False)]
    rows = []
    for D, X, m, eps, delta, optimiser, truncate in cells:
        A, b = system(m, D, X, seed=m + X + D)
        for domain in ("a3-rational", "mode-c"):
            plan = plan_find_deep_point(
                m, D, X, eps, delta, optimizer=optimiser, candidate_domain=domain, truncate=truncate
            )
            times, fracs = [], []
            for seed in range(trials):
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    x = find_deep_point(
                        A, b, X, eps, delta, optimizer=optimiser, candidate_domain=domain, truncate=truncate, rng=seed
                    ).solution
                times.append(time.perf_counter() - t0)
                fracs.append(depth(x, A, b) / m)
            row = {
                "D": D,
                "X": X,
                "m": m,
                "epsilon": eps,
                "optimizer": optimiser,
                "truncation": "on" if any(plan.truncation) else "off",
                "domain": domain,
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
