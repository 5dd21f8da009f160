"""Thresholds and interior points: empirical sample complexity and fit time.

    nice -n 10 python benchmarks/thresholds.py            # full run (tens of minutes)
    python benchmarks/thresholds.py --quick               # small domains, few trials (smoke test)
    python benchmarks/thresholds.py --parts learners,interior --bits 256 \
        --method "exponential mechanism (pure)"             # one cell: *_subset.csv files

Writes to benchmarks/results/:

* ``thresholds_sample_complexity.csv``: for each domain size |X| in 2^8 ... 2^65536 and each
  learner (LearnThresholds with N = 1, 2, 3 and paper or tuned constants, the exponential-mechanism
  learner, the non-private ERM), the smallest n on a geometric grid (factor 1.25) at which the
  true error is at most alpha in at least 1 - beta of the runs (eps = 1, delta = 1e-6,
  alpha = 0.05, beta = 0.1). Found by bisection over the grid (success is taken to be monotone in
  n) with sequential stopping: a grid point fails as soon as more than floor(beta * trials) runs
  fail and passes as soon as that can no longer happen.
* ``thresholds_interior_point.csv``: the same for interior points (the output must lie in
  [min, max]) on the hardest input, n copies of one value: the exponential-mechanism interior
  point, the RecConcave interior point (N = 1, 2, 3; paper or tuned; sized for beta) and OpenDP's
  private quantile where its explicit candidate list is feasible (|X| <= 2^16).
* ``thresholds_fit_time.csv``: fit time at n = 10^3 ... 10^6 on |X| = 2^64 of the private threshold
  classifier (default, and RecConcave with N = 2) beside scikit-learn's depth-1 decision tree.
* ``thresholds.png``: the three panels.

The learning distribution is the standard hard instance for the exponential mechanism, spread
out: mass 0.4 on the point t - 1 (label 1), 0.4 on the target t (label 0) and 0.2 uniform on 1024
points spread over the domain, labelled by the target. Only the threshold t itself has error
below 0.4, so a learner must find it exactly. Wall times are noisy on a shared machine: compare
them within one run only.
"""

from __future__ import annotations

import argparse
import csv
import math
import platform
import statistics
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from _results import write_csv
from privpac.formatting import fmt_int
from privpac.learners import em_learn_thresholds, learn_thresholds, threshold_quality
from privpac.optimize import ExponentialInteriorPoint, RecConcaveInteriorPoint, levels
from privpac.random import SeededRandom

RESULTS = Path(__file__).parent / "results"
EPS, DELTA, ALPHA, BETA = 1.0, 1e-6, 0.05, 0.1
BITS = (8, 16, 32, 64, 256, 4096, 65536)
N_MAX = 2**21
GRID = sorted({math.ceil(8 * 1.25**k) for k in range(200) if 8 * 1.25**k <= N_MAX * 1.25})
SUPPORT = 1024
HEAVY = 0.4  # mass on each of t - 1 and t


# -- the learning problem ----------------------------------------------------------------------------


class Problem:
    """The hard threshold instance on [0, 2^bits - 1] with target t (threshold index)."""

    def __init__(self, bits: int, seed: int = 0):
        self.bits = bits
        self.size = 2**bits
        src = SeededRandom(seed + bits)
        k = min(SUPPORT, self.size)
        spread = sorted({(i * self.size) // k for i in range(k)})
        self.target = (self.size // 3) | 1  # odd, away from the support grid's multiples
        obj = self.size >= 2**62
        self.points = np.empty(len(spread) + 2, dtype=object if obj else np.int64)
        self.points[:] = spread + [self.target - 1, self.target]
        self.labels = np.asarray([int(v < self.target) for v in spread] + [1, 0], dtype=np.int8)
        self.spread_sorted = np.asarray(spread, dtype=object)
        self.src = src

    def sample(self, n: int, gen: np.random.Generator):
        u = gen.random(n)
        idx = np.where(
            u < HEAVY,
            len(self.points) - 2,
            np.where(u < 2 * HEAVY, len(self.points) - 1, gen.integers(0, len(self.points) - 2, size=n)),
        )
        return self.points[idx], self.labels[idx]

    def error(self, k: int) -> float:
        """True error of c_k."""
        err = HEAVY * (k <= self.target - 1) + HEAVY * (k > self.target)
        lo, hi = min(k, self.target), max(k, self.target)
        between = int(np.searchsorted(self.spread_sorted, hi)) - int(np.searchsorted(self.spread_sorted, lo))
        return err + (1 - 2 * HEAVY) * between / len(self.spread_sorted)


def _erm(x, y, size):
    q = threshold_quality(x, y, size)
    return q.argmax()


THRESHOLD_METHODS = {
    "non-private ERM": lambda x, y, size, rng: _erm(x, y, size),
    "exponential mechanism (pure)": lambda x, y, size, rng: em_learn_thresholds(x, y, size, EPS, rng=rng).threshold,
}
for _N in (1, 2, 3):
    for _c in ("tuned", "paper"):
        THRESHOLD_METHODS[f"LearnThresholds N={_N} {_c}"] = lambda x, y, size, rng, N=_N, c=_c: (
            learn_thresholds(x, y, size, ALPHA, BETA, EPS, DELTA, N=N, constants=c, rng=rng).threshold
        )


def _depth(method: str, size: int) -> int:
    if not method.startswith("LearnThresholds"):
        return 1
    return levels(size, int(method.split("N=")[1].split()[0]))


# -- search ------------------------------------------------------------------------------------------


def passes(run_once, trials: int, gen) -> tuple[bool, int, int]:
    """Sequential test of "success in at least 1 - beta of `trials` runs"; returns (ok, runs, failures)."""
    allowed = math.floor(BETA * trials)
    failures = 0
    for t in range(trials):
        failures += not run_once(gen)
        if failures > allowed:
            return False, t + 1, failures
        if t + 1 - failures >= trials - allowed:
            return True, t + 1, failures
    return failures <= allowed, trials, failures


def smallest_n(run_at_n, trials_for, gen, deadline) -> dict:
    """Bisection over GRID for the smallest n that passes; stops at ``deadline`` (seconds)."""
    lo, hi = -1, None  # GRID[lo] fails (or lo = -1), GRID[hi] passes
    runs = 0
    i = 0
    # Exponential search upwards, then bisection.
    step = 4
    while hi is None:
        if i >= len(GRID) or time.perf_counter() > deadline:
            return {"n": None, "runs": runs, "status": "not reached" if i >= len(GRID) else "time limit"}
        ok, r, _ = passes(lambda g, n=GRID[i]: run_at_n(n, g), trials_for(GRID[i]), gen)
        runs += r
        if ok:
            hi = i
        else:
            lo = i
            i = min(i + step, len(GRID) - 1) if i < len(GRID) - 1 else len(GRID)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if time.perf_counter() > deadline:
            return {"n": GRID[hi], "runs": runs, "status": "upper bound (time limit)"}
        ok, r, _ = passes(lambda g, n=GRID[mid]: run_at_n(n, g), trials_for(GRID[mid]), gen)
        runs += r
        if ok:
            hi = mid
        else:
            lo = mid
    return {"n": GRID[hi], "runs": runs, "status": "ok"}


def _trials_for(bits: int, base: int):
    """Fewer trials where one run is expensive (huge numbers times large n); recorded in the CSV."""

    def trials(n: int) -> int:
        if bits >= 4096 and n > 1_000_000:
            return max(10, base // 4)
        return base

    return trials


def threshold_sample_complexity(bits_list, trials, seconds_per_cell, progress=True, methods=None):
    rows = []
    cells = [(b, m) for b in bits_list for m in THRESHOLD_METHODS if methods is None or m in methods]
    for bits, method in tqdm(cells, desc="thresholds: sample complexity", disable=not progress):
        prob = Problem(bits)
        fn = THRESHOLD_METHODS[method]
        src = SeededRandom(hash((bits, method)) % 2**32)
        gen = np.random.default_rng(src.randbits(63))

        def run_at_n(n, g, prob=prob, fn=fn, src=src):
            x, y = prob.sample(n, g)
            return prob.error(fn(x, y, prob.size, src)) <= ALPHA

        t0, c0 = time.perf_counter(), time.process_time()
        res = smallest_n(run_at_n, _trials_for(bits, trials), gen, t0 + seconds_per_cell)
        reduced = _trials_for(bits, trials)(res["n"] or N_MAX) < trials
        rows.append(
            {
                "domain_bits": bits,
                "method": method,
                "depth": _depth(method, prob.size),
                "smallest_n": "" if res["n"] is None else res["n"],
                "status": res["status"],
                "trials_per_grid_point": _trials_for(bits, trials)(res["n"] or N_MAX),
                "reduced_trials": reduced,
                "runs": res["runs"],
                "seconds": round(time.perf_counter() - t0, 1),
                "cpu_seconds": round(time.process_time() - c0, 1),
            }
        )
    return rows


# -- interior points ---------------------------------------------------------------------------------


def _opendp_quantile(size: int):
    """OpenDP's private median over every point of [0, size - 1] (explicit candidates), or a reason."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return None, "OpenDP is not installed (pip install 'privpac[bench]')"
    if size > 2**16:
        return None, f"OpenDP's quantile needs an explicit candidate list; {fmt_int(size)} candidates is infeasible"
    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance()
    candidates = list(range(size))
    scale = dp.binary_search_param(
        lambda s: dp.m.make_private_quantile(*space, dp.max_divergence(), candidates, 0.5, s), d_in=1, d_out=EPS
    )
    meas = dp.m.make_private_quantile(*space, dp.max_divergence(), candidates, 0.5, scale)
    return meas, f"OpenDP make_private_quantile (alpha=0.5, add/remove neighbours, scale {scale:.4g})"


def interior_methods(size: int):
    out = {}
    em = ExponentialInteriorPoint()
    out["exponential mechanism (pure)"] = (lambda v, g, src: em(v, 0, size - 1, EPS, 0.0, rng=src), "")
    for N in (1, 2, 3):
        for c in ("tuned", "paper"):
            ip = RecConcaveInteriorPoint(beta=BETA, N=N, constants=c)
            out[f"RecConcave IP N={N} {c}"] = (
                lambda v, g, src, ip=ip: ip(v, 0, size - 1, EPS, DELTA, rng=src),
                f"proven n = {ip.sample_complexity(EPS, DELTA, BETA, size)}",
            )
    meas, note = _opendp_quantile(size)
    if meas is not None:
        out["OpenDP private quantile"] = (lambda v, g, src, meas=meas: meas([int(a) for a in v]), note)
    else:
        out["OpenDP private quantile"] = (None, note)
    out["non-private median"] = (lambda v, g, src: v[len(v) // 2], "")
    return out


def interior_sample_complexity(bits_list, trials, seconds_per_cell, progress=True, methods=None):
    rows = []
    cells = [(b, m) for b in bits_list for m in interior_methods(2**8) if methods is None or m in methods]
    cache = {}
    for bits, method in tqdm(cells, desc="interior point: sample complexity", disable=not progress):
        size = 2**bits
        if bits not in cache:
            cache[bits] = interior_methods(size)
        fn, note = cache[bits][method]
        value = size // 3
        if fn is None:
            rows.append(
                {
                    "domain_bits": bits,
                    "method": method,
                    "smallest_n": "",
                    "status": "not run",
                    "note": note,
                    "trials_per_grid_point": 0,
                    "reduced_trials": False,
                    "runs": 0,
                    "seconds": 0.0,
                    "cpu_seconds": 0.0,
                }
            )
            continue
        src = SeededRandom(hash((bits, method, "ip")) % 2**32)
        gen = np.random.default_rng(src.randbits(63))
        obj = size >= 2**62

        def run_at_n(n, g, fn=fn, src=src, value=value, obj=obj):
            vals = np.empty(n, dtype=object) if obj else np.full(n, value, dtype=np.int64)
            if obj:
                vals[:] = value  # n references to one Python int
            return fn(vals, g, src) == value

        t0, c0 = time.perf_counter(), time.process_time()
        res = smallest_n(run_at_n, _trials_for(bits, trials), gen, t0 + seconds_per_cell)
        rows.append(
            {
                "domain_bits": bits,
                "method": method,
                "smallest_n": "" if res["n"] is None else res["n"],
                "status": res["status"],
                "note": note,
                "trials_per_grid_point": _trials_for(bits, trials)(res["n"] or N_MAX),
                "reduced_trials": _trials_for(bits, trials)(res["n"] or N_MAX) < trials,
                "runs": res["runs"],
                "seconds": round(time.perf_counter() - t0, 1),
                "cpu_seconds": round(time.process_time() - c0, 1),
            }
        )
    return rows


# -- fit time ----------------------------------------------------------------------------------------


def fit_times(sizes, repeats, progress=True):
    from sklearn.tree import DecisionTreeClassifier

    from privpac.estimators import PrivateThresholdClassifier

    domain = (0, 2**64 - 1)
    rows = []
    t0 = time.perf_counter()
    PrivateThresholdClassifier(domain=domain, random_state=0).fit(np.array([[1], [2]], dtype=np.uint64), [1, 0])
    planning = time.perf_counter() - t0  # one-off: RecConcave's plan for this domain and budget, then cached
    makers = {
        "private threshold classifier (default)": lambda: PrivateThresholdClassifier(domain=domain, random_state=1),
        "private threshold classifier (RecConcave N=2)": lambda: PrivateThresholdClassifier(
            domain=domain, method="recconcave", N=2, random_state=1
        ),
        "scikit-learn DecisionTreeClassifier(max_depth=1)": lambda: DecisionTreeClassifier(max_depth=1),
    }
    PrivateThresholdClassifier(domain=domain, method="recconcave", N=2, random_state=0).fit(
        np.array([[1], [2]], dtype=np.uint64), [1, 0]
    )
    for n in tqdm(sizes, desc="fit time", disable=not progress):
        gen = np.random.default_rng(n)
        x = gen.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + gen.integers(0, 2, size=n, dtype=np.uint64)
        y = (x < np.uint64(2**63 + 2**61)).astype(np.int64)
        X = x.reshape(-1, 1)
        Xf = x.astype(np.float64).reshape(-1, 1)  # the stump needs floats (2^64 values lose precision)
        for name, make in makers.items():
            data = Xf if name.startswith("scikit") else X
            times = []
            for _ in range(repeats):
                est = make()
                t = time.perf_counter()
                est.fit(data, y)
                times.append(time.perf_counter() - t)
            rows.append(
                {
                    "n": n,
                    "method": name,
                    "median_seconds": round(statistics.median(times), 4),
                    "best_seconds": round(min(times), 4),
                    "repeats": repeats,
                    "train_accuracy": round(float(est.score(data, y)), 4),
                    "one_off_planning_seconds": round(planning, 3) if name.endswith("(default)") else "",
                }
            )
    return rows


# -- output ------------------------------------------------------------------------------------------


def read_csv(path: Path) -> list[dict]:
    """Rows of a CSV written by :func:`write_csv`, numbers parsed."""
    with open(path) as fh:
        lines = [line for line in fh if not line.startswith("#")]
    rows = list(csv.DictReader(lines))
    for row in rows:
        for key, value in row.items():
            try:
                row[key] = int(value)
            except ValueError:
                try:
                    row[key] = float(value)
                except ValueError:
                    row[key] = {"True": True, "False": False}.get(value, value)
    return rows


def plot(sc_rows, ip_rows, time_rows, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(18, 5.5))
    for ax, rows, title in (
        (axes[0], sc_rows, f"threshold learners (eps={EPS}, delta={DELTA:g}, alpha={ALPHA}, beta={BETA})"),
        (axes[1], ip_rows, "interior point (n copies of one value)"),
    ):
        methods = list(dict.fromkeys(r["method"] for r in rows))
        for method in methods:
            pts = [(r["domain_bits"], r["smallest_n"], r.get("reduced_trials")) for r in rows if r["method"] == method]
            found = [(b, n) for b, n, _ in pts if n != ""]
            if not found:
                continue
            style = "--" if "paper" in method else ("-" if "N=" in method or "RecConcave" in method else ":")
            marker = "o" if "tuned" in method else ("s" if "paper" in method else "^")
            ax.plot([b for b, _ in found], [n for _, n in found], style, marker=marker, label=method)
            reduced = [(b, n) for b, n, red in pts if n != "" and red]
            if reduced:
                ax.plot([b for b, _ in reduced], [n for _, n in reduced], "x", color="k", markersize=9)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        bits_seen = sorted({r["domain_bits"] for r in rows})
        ax.set_xticks(bits_seen)
        ax.set_xticklabels([f"$2^{{{b}}}$" for b in bits_seen])
        ax.minorticks_off()
        ax.set_xlabel("domain size |X| (axis: log of the number of bits)")
        ax.set_ylabel("smallest n with error <= alpha in >= 1 - beta of runs")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[2]
    for method in dict.fromkeys(r["method"] for r in time_rows):
        pts = [(r["n"], r["median_seconds"]) for r in time_rows if r["method"] == method]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=method)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (training records), |X| = 2^64")
    ax.set_ylabel("fit time (s, median)")
    ax.set_title("fit time (shared machine: compare within this run)", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    if any(r.get("reduced_trials") is True for r in list(sc_rows) + list(ip_rows)):
        fig.text(0.01, 0.01, "x: cell run with reduced trials (see CSV)", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small domains and few trials (smoke test)")
    parser.add_argument("--trials", type=int, default=40, help="runs per grid point (default 40)")
    parser.add_argument("--seconds-per-cell", type=float, default=900.0, help="time limit of one search")
    parser.add_argument("--repeats", type=int, default=3, help="fit-time repeats")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--bits", help="comma-separated domain sizes in bits (default: all); writes *_subset.csv")
    parser.add_argument(
        "--method", action="append", help="only this method (repeatable; exact name); writes *_subset.csv"
    )
    parser.add_argument(
        "--parts",
        default="learners,interior,time",
        help="comma-separated subset of learners,interior,time (or 'plot' to redraw from the CSV files)",
    )
    args = parser.parse_args()
    bits = (8, 16) if args.quick else BITS
    subset = bool(args.bits or args.method)
    if args.bits:
        bits = tuple(int(b) for b in args.bits.split(","))
    methods = set(args.method) if args.method else None
    trials = 10 if args.quick else args.trials
    sizes = (10**3, 10**4) if args.quick else (10**3, 10**4, 10**5, 10**6)
    args.out.mkdir(parents=True, exist_ok=True)
    machine = f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}"
    parts = set(args.parts.split(","))
    tail = "_subset" if subset else ""
    files = {
        "learners": args.out / f"thresholds_sample_complexity{tail}.csv",
        "interior": args.out / f"thresholds_interior_point{tail}.csv",
        "time": args.out / "thresholds_fit_time.csv",
    }
    if subset:
        command = f"python benchmarks/thresholds.py --parts {args.parts}"
        command += f" --bits {args.bits}" if args.bits else ""
        command += "".join(f' --method "{m}"' for m in args.method or ())
        machine += f"; {command}; a shared 2-core machine (other jobs running)"
    if "learners" in parts:
        sc = threshold_sample_complexity(bits, trials, args.seconds_per_cell, methods=methods)
        write_csv(
            files["learners"],
            sc,
            f"eps={EPS} delta={DELTA} alpha={ALPHA} beta={BETA}; grid factor 1.25 up to {N_MAX}; {machine}",
        )
    if "interior" in parts:
        ip = interior_sample_complexity(bits, trials, args.seconds_per_cell, methods=methods)
        write_csv(
            files["interior"],
            ip,
            f"eps={EPS} delta={DELTA} beta={BETA}; success = output equals the single data value; {machine}",
        )
    if "time" in parts:
        ft = fit_times(sizes, args.repeats)
        write_csv(files["time"], ft, f"|X| = 2^64, eps={EPS}, delta={DELTA}; {machine}")
    if not subset and all(f.exists() for f in files.values()):
        sc, ip, ft = (read_csv(files[k]) for k in ("learners", "interior", "time"))
        plot(sc, ip, ft, args.out / "thresholds.png")
    print(f"wrote {args.out}/thresholds_*{tail}.csv" + ("" if subset else " and thresholds.png"))


if __name__ == "__main__":
    main()
