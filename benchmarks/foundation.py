"""Foundation timings: noise, the exponential mechanism over a step function, the L(j) profile.

Targets (issue: foundation): each under 1 s on one core.

    python benchmarks/foundation.py            # writes benchmarks/results/foundation.csv

Each operation is timed several times and the best and median wall times are reported.
"""

from __future__ import annotations

import argparse
import csv
import platform
import statistics
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from privpac.mechanisms import exponential_mechanism_step
from privpac.random import SecureRandom, SeededRandom, discrete_laplace, discrete_laplace_array
from privpac.stepfunc import StepFunction

RESULTS = Path(__file__).parent / "results"


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def random_step_function(k: int, T: int, seed: int) -> StepFunction:
    """k pieces with random integer values, starts spread over [0, T] (Python ints when T >= 2^62)."""
    rng = np.random.default_rng(seed)
    mean_gap = T // k  # gaps uniform on [1, mean_gap): the last start lands near T/2
    if T < 2**62:
        gaps = rng.integers(1, mean_gap, size=k - 1)
    else:
        gaps = rng.integers(1, mean_gap, size=k - 1, dtype=np.uint64).astype(object)
    starts = np.concatenate([np.zeros(1, dtype=gaps.dtype), np.cumsum(gaps)])
    values = rng.integers(0, 10**6, size=k)
    return StepFunction(starts, values, T)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rows = []

    def record(name, n, best, median, target=1.0, note=""):
        rows.append(
            {
                "operation": name,
                "size": n,
                "best_seconds": f"{best:.4f}",
                "median_seconds": f"{median:.4f}",
                "target_seconds": "" if target is None else target,
                "meets_target": "" if target is None else best <= target,
                "note": note,
            }
        )
        goal = "" if target is None else f"   target {target} s"
        print(f"{name:58s} best {best:8.4f} s   median {median:8.4f} s{goal}")

    src = SeededRandom(0)
    best, med = timed(lambda: discrete_laplace_array(2.0, 10**6, src), args.repeats)
    record("10^6 seeded discrete-Laplace draws (vectorised)", 10**6, best, med)
    sec = SecureRandom()
    best, med = timed(lambda: discrete_laplace_array(2.0, 10**6, sec), args.repeats)
    record("10^6 secure discrete-Laplace draws (vectorised)", 10**6, best, med)
    best, med = timed(lambda: [discrete_laplace(Fraction(2), src) for _ in range(10**4)], args.repeats)
    record(
        "10^4 exact discrete-Laplace draws (CKS20 sampler)",
        10**4,
        best,
        med,
        target=None,
        note="exact integer sampler used by mechanisms",
    )

    T = 2**64
    f = random_step_function(10**6, T, seed=1)
    best, med = timed(lambda: exponential_mechanism_step(f, 1.0, rng=src), args.repeats)
    record("exponential mechanism, 10^6 pieces on T = 2^64", 10**6, best, med)
    best, med = timed(lambda: f.window_min_profile(), args.repeats)
    record("L(j) window-min profile, 10^6 pieces on T = 2^64", 10**6, best, med)
    g = random_step_function(10**6, 2**40, seed=2)
    best, med = timed(lambda: g.window_min_profile(), args.repeats)
    record("L(j) window-min profile, 10^6 pieces on T = 2^40 (int64)", 10**6, best, med)
    best, med = timed(lambda: f.block_max(2**40, 2**39), args.repeats)
    record("block maxima (shifted partition), 10^6 pieces, T = 2^64", 10**6, best, med)

    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "foundation.csv"
    with open(out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
