"""Maximum query error against n: SanPoints and SanThresholds beside pure-DP baselines.

Beimel, Nissim, Stemmer, sections 4.2 and 4.3. For domains of 2^8, 2^16, 2^32 and 2^64 points:

* point queries: SanPoints (Fig. 9, (epsilon, delta)) vs a Laplace histogram (pure epsilon);
* threshold queries: SanThresholds (Fig. 11, (epsilon, delta)) vs a binary-tree CDF (pure epsilon).

epsilon = 1, delta = 1e-6, alpha = beta = 0.1, ``constants="tuned"``. The approximate-DP sanitizers
run only at sizes above their privacy precondition (SanPoints about 3.8e5 records, SanThresholds
about 1.6e8, ``privpac bounds san-points-plan`` / ``san-thresholds-plan``); the baselines run at
every size. A population of at most 2,000 distinct values (random positions in the domain,
Dirichlet(0.3) weights, so a few values are heavy) is drawn once per domain and trial; a
dataset of n records is a multinomial draw from it, held as counts per distinct value, which
is how billions of records fit in memory. The sanitizers read the data only through these
counts, so their cost does not depend on n.

Errors (``max_error``; fractions of n):

* SanPoints: exact maximum over *every* domain point (estimates are 0 off the released points);
* Laplace histogram: every point of the domain gets ``#x + Z_x``. Noise is drawn lazily, so the
  released function is the full histogram's; the maximum over the points no record hits is
  ``max |Z|`` over ``|X| - K`` independent discrete-Laplace draws, drawn exactly from the law of
  that maximum (``Pr[max <= k] = F(k)^(|X| - K)``), so the maximum is exact for 2^64 too;
* SanThresholds: exact maximum over every threshold (the error only changes at data points and
  released points);
* binary-tree CDF: exact maximum over every threshold for ``|X| <= 2^16``; for larger domains
  the maximum over the thresholds just after every distinct value and 4,096 uniformly random
  thresholds (``max_over = "sample"``): a lower bound on the true maximum.

The run uses the floating-point discrete-Laplace fast path (``privpac.random.audit_source``):
same distributions up to rounding, much faster than the exact sampler; benchmarks only.

    nice -n 10 python benchmarks/sanitizers.py [--trials 3]

writes benchmarks/results/sanitizers.csv and sanitizers.png. Wall times are noisy on a shared
machine: compare them only within one run.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

from privpac.random import audit_source, uniform_array
from privpac.sanitizers.baselines import LaplaceHistogram, TreeCDF
from privpac.sanitizers.database import CountedData
from privpac.sanitizers.points import san_points, san_points_plan
from privpac.sanitizers.thresholds import san_thresholds, san_thresholds_plan

RESULTS = Path(__file__).parent / "results"
EPS, DELTA, ALPHA, BETA = 1.0, 1e-6, 0.1, 0.1
DOMAINS = (8, 16, 32, 64)
N_BASELINE = (10**3, 10**4, 10**5, 10**6, 10**7)
N_POINTS = (4 * 10**5, 10**6, 4 * 10**6, 1.6 * 10**7)
N_THRESHOLDS = (2 * 10**8, 4 * 10**8, 1.6 * 10**9, 6.4 * 10**9)
RANDOM_QUERIES = 4096


def population(d: int, seed: int):
    rng = np.random.default_rng(seed)
    size = 2**d
    k = min(2000, size // 2)
    if d < 62:
        vals = np.unique(rng.choice(size, k, replace=False) if size <= 2**20 else rng.integers(0, size, k))
    else:
        vals = np.unique(np.array([int(a) << 32 | int(b) for a, b in rng.integers(0, 2**32, (k, 2))], dtype=object))
    probs = rng.dirichlet(np.full(vals.size, 0.3))
    return vals, probs


def dataset(vals, probs, n: int, size: int, seed: int) -> CountedData:
    counts = np.random.default_rng(seed).multinomial(int(n), probs)
    keep = counts > 0
    return CountedData.from_counts(vals[keep], counts[keep], size)


def true_cdf(counted: CountedData, js) -> np.ndarray:
    cum = np.concatenate([[0], np.cumsum(counted.counts)])
    return cum[np.searchsorted(counted.values, js, side="left")] / counted.m


def point_error_sanpoints(counted: CountedData, db) -> float:
    est = db.point_many(counted.values)
    return float(np.max(np.abs(est - counted.counts / counted.m)))


def max_abs_discrete_laplace(scale: float, count: int, src) -> int:
    """A draw of ``max |Z_i|`` over ``count`` i.i.d. discrete Laplace of ``scale`` (inverse CDF)."""
    if count <= 0:
        return 0
    q = math.exp(-1.0 / scale)
    u = float(uniform_array(1, src)[0])
    # Pr[|Z| <= k] = 1 - 2 q^(k+1)/(1+q); find the smallest k with that^count >= u.
    tail = -math.expm1(math.log(u) / count)  # 1 - u^(1/count)
    k = math.ceil(math.log(tail * (1.0 + q) / 2.0) / math.log(q) - 1.0)
    return max(k, 0)


def point_error_histogram(counted: CountedData, hist: LaplaceHistogram, src) -> float:
    size = counted.size
    hit = hist.point_many(counted.values) - counted.counts / counted.m
    worst = float(np.max(np.abs(hit)))
    if size <= 2**16:
        rest = np.setdiff1d(np.arange(size), counted.values.astype(np.int64))
        if rest.size:
            worst = max(worst, float(np.max(np.abs(hist.point_many(rest)))))
    else:
        worst = max(worst, max_abs_discrete_laplace(hist.noise_scale, size - counted.values.size, src) / counted.m)
    return worst


def threshold_queries(counted: CountedData, extra_points, src, exhaustive: bool):
    size = counted.size
    if exhaustive:
        return np.arange(size + 1), "all"
    js = {0, size} | {int(v) + 1 for v in counted.values} | {int(v) + 1 for v in extra_points}
    bits = size.bit_length()
    for _ in range(RANDOM_QUERIES):
        js.add(src.randbits(bits) % (size + 1))
    arr = np.array(sorted(js), dtype=object if size > 2**62 else np.int64)
    return arr, "sample"


def threshold_error(counted, answers, js) -> float:
    return float(np.max(np.abs(np.asarray(answers, dtype=float) - true_cdf(counted, js))))


def run(trials: int):
    rows = []
    jobs = []
    for d in DOMAINS:
        for t in range(trials):
            for n in sorted(set(N_BASELINE) | {int(v) for v in N_POINTS}):
                jobs.append((d, t, "laplace-histogram", int(n)))
            for n in N_POINTS:
                jobs.append((d, t, "san-points", int(n)))
            for n in sorted(set(N_BASELINE) | {int(v) for v in N_THRESHOLDS}):
                jobs.append((d, t, "tree-cdf", int(n)))
            for n in N_THRESHOLDS:
                jobs.append((d, t, "san-thresholds", int(n)))
    pops = {}
    for d, t, method, n in tqdm(jobs, desc="sanitizer benchmark", unit="run"):
        size = 2**d
        if (d, t) not in pops:
            pops[(d, t)] = population(d, 1000 * d + t)
        vals, probs = pops[(d, t)]
        counted = dataset(vals, probs, n, size, (d * 1_000_003 + t * 7919 + n) % 2**32)
        src = audit_source((d * 1_000_003 + t * 7919 + n + 17 * len(method)) % 2**32)
        t0 = time.perf_counter()
        over = "all"
        if method == "san-points":
            db = san_points(counted, alpha=ALPHA, beta=BETA, epsilon=EPS, delta=DELTA, domain_size=size, rng=src)
            err = point_error_sanpoints(counted, db)
            kind = "point"
        elif method == "laplace-histogram":
            hist = LaplaceHistogram(counted, epsilon=EPS, domain_size=size, rng=src)
            err = point_error_histogram(counted, hist, src)
            kind = "point"
        elif method == "san-thresholds":
            db = san_thresholds(counted, alpha=ALPHA, beta=BETA, epsilon=EPS, delta=DELTA, domain_size=size, rng=src)
            js, over = threshold_queries(counted, db.points, src, exhaustive=False)
            err = threshold_error(counted, db.below_many(js), js)
            over = "all"  # exact: the error only changes at the points used
            kind = "threshold"
        else:
            tree = TreeCDF(counted, epsilon=EPS, domain_size=size, rng=src)
            js, over = threshold_queries(counted, [], src, exhaustive=size <= 2**16)
            err = threshold_error(counted, tree.below_many(js), js)
            kind = "threshold"
        seconds = time.perf_counter() - t0
        rows.append(
            {
                "query": kind,
                "method": method,
                "domain_bits": d,
                "n": n,
                "trial": t,
                "max_error": err,
                "max_over": over,
                "seconds": round(seconds, 4),
                "epsilon": EPS,
                "delta": DELTA if method.startswith("san") else 0.0,
            }
        )
    return rows


def plot(rows, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    colours = {8: "tab:blue", 16: "tab:green", 32: "tab:orange", 64: "tab:red"}
    styles = {"san-points": "-", "laplace-histogram": ":", "san-thresholds": "-", "tree-cdf": ":"}
    for ax, kind, title in ((axes[0], "point", "point queries"), (axes[1], "threshold", "threshold (CDF) queries")):
        for method in sorted({r["method"] for r in rows if r["query"] == kind}):
            for d in DOMAINS:
                sel = [r for r in rows if r["method"] == method and r["domain_bits"] == d]
                ns = sorted({r["n"] for r in sel})
                means = [np.mean([r["max_error"] for r in sel if r["n"] == n]) for n in ns]
                ax.plot(ns, means, styles[method], color=colours[d], marker="o", ms=3, label=f"{method}, |X|=2^{d}")
        ax.axhline(ALPHA, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (records)")
        ax.set_title(title)
        ax.legend(fontsize=6, ncol=2)
    axes[0].set_ylabel("maximum query error (mean over trials)")
    fig.suptitle(f"epsilon={EPS}, delta={DELTA} (approximate DP), pure-DP baselines dotted; dashed: alpha={ALPHA}")
    fig.tight_layout()
    fig.savefig(path, dpi=130)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    print(
        f"SanPoints privacy precondition: {san_points_plan(ALPHA, BETA, EPS, DELTA).min_size:,.0f}; "
        f"SanThresholds: {san_thresholds_plan(ALPHA, BETA, EPS, DELTA, 2**64).min_size:,.0f}"
    )
    rows = run(args.trials)
    out = RESULTS / "sanitizers.csv"
    with open(out, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, RESULTS / "sanitizers.png")
    print(f"wrote {out} and {RESULTS / 'sanitizers.png'}")


if __name__ == "__main__":
    main()
