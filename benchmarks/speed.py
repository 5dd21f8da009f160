"""The threshold classifier's fit beside scikit-learn's stump and one sort, and the range-by-range
exponential mechanism on 10^7 distinct values (issue 22 "small fits" and "large fits").

    nice -n 10 python benchmarks/speed.py                  # n = 256, 10^4, 10^6, 10^7 (a few minutes)
    python benchmarks/speed.py --sizes 256 10000 --repeats 30
    python benchmarks/speed.py --grouped-only              # the sampler row alone
    python benchmarks/speed.py --recconcave-only           # one small RecConcave run's CPU
    /usr/bin/time -v python benchmarks/speed.py --process privpac --n 256 --fits 300   # whole process

``--process privpac|stump|none`` checks the ratios from outside: one process imports both
libraries, makes the data of size ``--n`` and fits ``--fits`` times one model (``none``: nothing),
and exits. Time each with any whole-process timer, alternating the commands; the fit's CPU over
the stump's is ``(privpac - none) / (stump - none)`` (the imports and the data cancel).

Writes ``benchmarks/results/speed.csv``, one row per ``n``:

* ``fit_cpu_s``, ``stump_cpu_s``, ``argsort_cpu_s``: median CPU seconds (``time.process_time``, this
  process only) of ``PrivateThresholdClassifier(epsilon=1, delta=1e-6, domain=(0, 2^64 - 1)).fit``,
  of scikit-learn's ``DecisionTreeClassifier(max_depth=1).fit`` on the same records (as floats,
  which the stump needs), and of one ``np.argsort`` of the uint64 values: the physical reference of
  an exact threshold learner. Fits alternate with the stump so that drift hits both alike.
* ``fit_over_stump``, ``fit_over_argsort``: the ratios of the medians (targets: 3x the stump at 256,
  2x at 10^4, 1x at 10^6 and 10^7).
* ``fit_error``, ``stump_error``: median over the seeds of ``|learned cut - true cut| / 2^64`` (the
  probability mass between them). A pure epsilon = 1 learner cannot match a non-private one here:
  neighbouring gaps between records differ by one in quality, so the exponential mechanism lands
  a few gaps (of mass about ``1/n`` each) from the best one, where the stump is half a gap off.

The data: ``n`` uniform values of ``[0, 2^64)`` labelled 1 below the cut ``2^63 + 2^61``. The
private fit chooses its own method (the exponential mechanism at these sizes, both orientations).

The row ``what = RecConcave small run`` gives the CPU seconds of one ``rec_concave_run`` at depth 3
over ``[0, 64]`` (median of five batches of ``--repeats`` runs, 1000 by default): the fixed cost per
call that the exact audits pay once per random path (``--recconcave-only`` prints it alone).

The last row (``n = 10^7``, ``what = grouped sampler``) times
``exponential_mechanism_grouped`` alone over ``[0, 2^65 + 1]`` (both orientations) from the range
statistics of 10^7 distinct labelled values, which issue 21 caps at 1.5x its float-sampler time
(measured side by side with the float sampler it replaced: see ``benchmarks/results/speed.csv``'s
comment line).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from _results import write_csv

RESULTS = Path(__file__).parent / "results"
CUT = 2**63 + 2**61
DOMAIN = (0, 2**64 - 1)


def _data(n: int, seed: int):
    gen = np.random.default_rng(seed)
    x = gen.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)
    y = (x < np.uint64(CUT)).astype(np.int64)
    return x, y


def _cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def fit_row(n: int, repeats: int, seeds: int) -> dict:
    from sklearn.tree import DecisionTreeClassifier

    from privpac.estimators import PrivateThresholdClassifier

    fit_t, stump_t, sort_t, fit_err, stump_err = [], [], [], [], []
    for r in range(max(repeats, seeds)):
        x, y = _data(n, seed=r % seeds)
        X, Xf = x.reshape(-1, 1), x.astype(np.float64).reshape(-1, 1)
        model = PrivateThresholdClassifier(epsilon=1.0, delta=1e-6, domain=DOMAIN, random_state=r)
        stump = DecisionTreeClassifier(max_depth=1, random_state=r)
        fit_t.append(_cpu(lambda m=model, X=X, y=y: m.fit(X, y)))
        stump_t.append(_cpu(lambda m=stump, X=Xf, y=y: m.fit(X, y)))
        sort_t.append(_cpu(lambda x=x: np.argsort(x)))
        if r < seeds:
            fit_err.append(abs(int(model.threshold_value_) - CUT) / 2.0**64)
            cut = float(stump.tree_.threshold[0]) if stump.tree_.node_count > 1 else 0.0
            stump_err.append(abs(cut - CUT) / 2.0**64)
    f, s, a = statistics.median(fit_t), statistics.median(stump_t), statistics.median(sort_t)
    return {
        "n": n,
        "what": "threshold fit",
        "fit_cpu_s": round(f, 5),
        "stump_cpu_s": round(s, 5),
        "argsort_cpu_s": round(a, 5),
        "fit_over_stump": round(f / s, 3),
        "fit_over_argsort": round(f / a, 3),
        "fit_error": f"{statistics.median(fit_err):.3g}",
        "stump_error": f"{statistics.median(stump_err):.3g}",
        "repeats": max(repeats, seeds),
    }


def grouped_row(n: int, repeats: int) -> dict:
    from privpac.learners.exponential import em_learn_oriented_thresholds
    from privpac.learners.range_counts import labelled_ranges

    x, y = _data(n, seed=0)
    sample = labelled_ranges(x, y, 2**64)
    times = [_cpu(lambda r=r: em_learn_oriented_thresholds(sample, None, 2**64, 1.0, rng=r)) for r in range(repeats)]
    return {"n": n, "what": "grouped sampler", "fit_cpu_s": round(statistics.median(times), 5), "repeats": repeats}


def recconcave_row(repeats: int) -> dict:
    """CPU seconds of one small RecConcave run: the fixed per-call cost that the exact audits pay once
    per random path (the ``recconcave`` audit's quality over ``[0, 64]``, depth 3 by ``N = 3`` and the
    test-only ``base_case_max = 2``)."""
    from privpac.learners.thresholds import threshold_quality
    from privpac.optimize.recconcave import rec_concave_run

    q = threshold_quality([3, 9, 17, 30, 41, 50, 55, 60], [1, 1, 1, 1, 0, 0, 0, 0], 64)

    def runs():
        for r in range(repeats):
            rec_concave_run(q, 8.0, 0.5, 1.0, 1e-6, N=3, base_case_max=2, rng=r)

    per_run = statistics.median(_cpu(runs) / repeats for _ in range(5))
    return {"n": 64, "what": "RecConcave small run", "fit_cpu_s": round(per_run, 6), "repeats": repeats}


def process_run(which: str, n: int, fits: int) -> None:
    """Fit ``which`` (``privpac``, ``stump`` or ``none``) ``fits`` times on one data set (whole-process timing)."""
    from sklearn.tree import DecisionTreeClassifier

    from privpac.estimators import PrivateThresholdClassifier

    x, y = _data(n, seed=0)
    X, Xf = x.reshape(-1, 1), x.astype(np.float64).reshape(-1, 1)
    for r in range(fits if which != "none" else 0):
        if which == "privpac":
            PrivateThresholdClassifier(epsilon=1.0, delta=1e-6, domain=DOMAIN, random_state=r).fit(X, y)
        else:
            DecisionTreeClassifier(max_depth=1, random_state=r).fit(Xf, y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--process", choices=["privpac", "stump", "none"], help="whole-process mode (above)")
    parser.add_argument("--n", type=int, default=256, help="records in --process mode")
    parser.add_argument("--fits", type=int, default=100, help="fits in --process mode")
    parser.add_argument("--sizes", type=int, nargs="*", default=[256, 10_000, 1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=0, help="fits per size (default: by size)")
    parser.add_argument("--seeds", type=int, default=0, help="data seeds for the error medians (default: by size)")
    parser.add_argument("--grouped-only", action="store_true")
    parser.add_argument("--recconcave-only", action="store_true", help="print the RecConcave row alone (no CSV)")
    parser.add_argument("--out", type=Path, default=RESULTS / "speed.csv")
    args = parser.parse_args()
    if args.process:
        process_run(args.process, args.n, args.fits)
        return
    rows = []
    if not (args.grouped_only or args.recconcave_only):
        for n in args.sizes:
            repeats = args.repeats or (41 if n <= 10_000 else 5 if n <= 10**6 else 3)
            seeds = args.seeds or (41 if n <= 10_000 else repeats)
            rows.append(fit_row(n, repeats, min(seeds, repeats)))
            print(rows[-1], flush=True)
    rows.append(recconcave_row(args.repeats or 1000))
    print(rows[-1], flush=True)
    if args.recconcave_only:
        return
    rows.append(grouped_row(10_000_000, args.repeats or 3))
    print(rows[-1], flush=True)
    fields = ["n", "what", "fit_cpu_s", "stump_cpu_s", "argsort_cpu_s", "fit_over_stump", "fit_over_argsort"]
    fields += ["fit_error", "stump_error", "repeats"]
    rows = [{k: row.get(k, "") for k in fields} for row in rows]
    write_csv(
        args.out,
        rows,
        f"domain [0, 2^64 - 1], epsilon=1, delta=1e-6; {platform.machine()} "
        f"CPython {platform.python_version()}; CPU seconds (process_time), medians",
    )


if __name__ == "__main__":
    main()
