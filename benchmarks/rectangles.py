"""Learning boxes privately: empirical sample complexity against d, and fit time.

Issue "axis-aligned rectangles": RandMargins (Sadigurschi and Stemmer 2021) with the
exponential-mechanism and the RecConcave interior points, the composition baseline B, and the
non-private tightest fit, on general boxes (2d directions) over grids of 2^16, 2^32 and 2^64 points
per axis, at epsilon = 1, delta = 1e-6 (add/remove neighbours, the paper's notion; the estimator's
replace-one guarantee costs RandMargins a factor 2 more samples), alpha = beta = 0.1.

    nice -n 10 python benchmarks/rectangles.py              # writes benchmarks/results/rectangles*.{csv,png}
    python benchmarks/rectangles.py --quick                 # a small grid (minutes)

Distribution: points uniform on the grid, labelled by a centred target box of mass 1/2; the error
of a learned box is computed exactly. The private learners read only the positives (checked by
tests/papers/ss_rectangles/test_randmargins.py::test_negatives_never_change_the_output), so a sample of size n is drawn
as Binomial(n, 1/2) positives uniform on the target: the same output distribution at half the
memory.

Empirical sample complexity: the smallest n on a grid of ratio sqrt(2) at which the error is at
most alpha in at least 90% of the trials. Where that n does not fit in memory (--max-bytes) the
cell is *predicted* instead: both private learners exclude a data-independent number of
positives (RandMargins about ``sum_j (k_j - Delta/2)`` with ``E k_j = mu``; the baseline about
``Delta_0/2`` per side), so their error is close to ``excluded / n``. The predictions are checked
against every measured cell (column ``prediction_ratio``).

The Beimel-Nissim-Stemmer learner (``--bns``, written to ``rectangles-bns.csv`` and added to the
plot) cannot run below its privacy precondition (one threshold sanitizer per axis, each needing
10^9 to 10^15 records), so samples are held as multiplicities over K = 4096 atoms drawn uniformly
on the grid (a discrete distribution, for which the PAC guarantee holds like for any other; the
target box holds half of the atoms' mass and the error is computed exactly on the atoms). Its cell
is the smallest n on a doubling grid starting *at* the precondition where the error is at most
alpha in 90% of the trials; ``kind = at-precondition`` means it already succeeds at the smallest
n at which it may run at all. For d > 2 it is not run (each of its d threshold sanitizers iterates
``77 * 8d / alpha`` times: hours per fit at d = 10) and the precondition is reported instead
(``kind = precondition``), a lower bound on the samples it needs.

Fit time: n = 10^6 points, d = 10, one core (numpy is single-threaded for these operations); the
machine is shared, so only timings from one run are comparable.
"""

from __future__ import annotations

import argparse
import csv
import math
import platform
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from privpac.bounds.rectangles import composition_sample_size, nonprivate_box_sample_size, randmargins_sample_size
from privpac.datasets import make_rectangle_distribution
from privpac.estimators import PrivateRectangleClassifier
from privpac.learners.boxes import tightest_fit
from privpac.learners.randmargins import run_randmargins
from privpac.learners.randmargins_plan import plan_randmargins
from privpac.learners.rectangles_bns import bns_rectangle_plan, learn_rectangle_bns
from privpac.learners.rectangles_composition import plan_composition, run_composition
from privpac.optimize import ExponentialInteriorPoint, RecConcaveInteriorPoint
from privpac.random import SeededRandom

RESULTS = Path(__file__).parent / "results"
EPSILON, DELTA, ALPHA, BETA, SUCCESS = 1.0, 1e-6, 0.1, 0.1, 0.9
ARMS = ("tightest-fit", "composition", "randmargins-em", "randmargins-recconcave")


def make_plan(arm: str, d: int, bits: int):
    x_max = 2**bits - 1
    D = 2 * d
    if arm == "composition":
        return plan_composition(EPSILON, DELTA, x_max, dimension=d, beta=BETA)
    if arm == "randmargins-em":
        ip = ExponentialInteriorPoint()
    elif arm == "randmargins-recconcave":
        ip = RecConcaveInteriorPoint(beta=BETA / (4 * D))
    else:
        return None
    return plan_randmargins(EPSILON, DELTA, x_max, dimension=d, beta=BETA, ip=ip, neighbours="add-remove")


def predicted_n(arm: str, plan, d: int) -> float:
    """Sample size at which the expected excluded positives are alpha n (see the module docstring)."""
    D = 2 * d
    if arm == "composition":
        return D * plan.window / 2.0 / ALPHA
    if arm.startswith("randmargins"):
        return D * (math.ceil(plan.mu) - plan.window / 2.0) / ALPHA
    return float(nonprivate_box_sample_size(ALPHA, BETA, d))


def fit_error(arm, plan, dist, n, src) -> float:
    n_pos = int(np.random.default_rng(src.randbits(63)).binomial(n, dist.positive_mass))
    P = dist.sample_positives(n_pos, src.spawn())
    if arm == "tightest-fit":
        box = tightest_fit(P, np.ones(n_pos, dtype=np.int8), (dist.x_max,) * dist.dimension)
    elif arm == "composition":
        box = run_composition(P, plan, rng=src.spawn()).hypothesis
    else:
        box = run_randmargins(P, plan, rng=src.spawn()).hypothesis
    return dist.error(box)


def search(arm, d, bits, trials, max_bytes, bar, seed) -> dict:
    dist = make_rectangle_distribution(d, 2**bits - 1)
    plan = make_plan(arm, d, bits)
    pred = predicted_n(arm, plan, d)
    itemsize = dist.dtype.itemsize
    cap = max_bytes / (0.5 * d * itemsize + 9)  # positives, their tags and working arrays
    src = SeededRandom(seed)
    row = {"arm": arm, "d": d, "domain_bits": bits, "trials": trials, "prediction": round(pred)}
    if arm == "composition":
        row["bound"] = composition_sample_size(EPSILON, DELTA, ALPHA, BETA, 2**bits, d)["n"]
        row["window"] = plan.window
    elif arm.startswith("randmargins"):
        ip = plan.ip
        row["bound"] = randmargins_sample_size(EPSILON, DELTA, ALPHA, BETA, 2**bits, d, tie_break_bits=32, ip=ip)["n"]
        row["window"] = plan.window
    else:
        row["bound"] = nonprivate_box_sample_size(ALPHA, BETA, d)
        row["window"] = ""
    n = max(16, int(pred / 8)) if arm != "tightest-fit" else 16
    if n > cap:
        row.update(kind="predicted", n_required=round(pred), success_rate="", note=f"n > memory cap {cap:.2g}")
        bar.update(1)
        return row

    def succeeds(n: int) -> tuple[bool, float]:
        ok = 0
        for t in range(trials):
            ok += fit_error(arm, plan, dist, n, src) <= ALPHA
            if (t + 1 - ok) > (1 - SUCCESS) * trials:  # 90% is out of reach at this n
                break
        bar.set_postfix_str(f"{arm} d={d} 2^{bits} n={n:.3g} ok={ok}")
        return ok >= SUCCESS * trials, ok / trials

    failed_at = None
    while True:
        if n > cap:
            note = (
                "the memory cap"
                if failed_at is None
                else f"error above alpha up to n = {failed_at:.3g}, then the memory cap"
            )
            row.update(kind="predicted", n_required=round(pred), success_rate="", note=note)
            break
        good, rate = succeeds(n)
        if good:
            lo, hi = (failed_at or n), n
            for _ in range(2 if failed_at else 0):  # two geometric bisections: resolution 2^(1/8)
                mid = int(math.ceil(math.sqrt(lo * hi)))
                good_mid, rate_mid = succeeds(mid)
                if good_mid:
                    hi, rate = mid, rate_mid
                else:
                    lo = mid
            row.update(kind="measured", n_required=hi, success_rate=rate, note="")
            break
        failed_at = n
        n = int(math.ceil(n * math.sqrt(2)))
    if row["kind"] == "measured" and arm != "tightest-fit":
        row["prediction_ratio"] = round(row["n_required"] / pred, 3)
    bar.update(1)
    return row


BNS_ATOMS = 4096
BNS_MAX_RUN_DIM = 2  # above this the BNS learner is reported at its privacy precondition, not run


def bns_search(d: int, bits: int, trials: int, seed: int, bar) -> dict:
    """The BNS learner's cell (see the module docstring): n from its precondition upwards."""
    N = 2**bits
    plan = bns_rectangle_plan(ALPHA, BETA, EPSILON, DELTA, [N] * d)
    gen = np.random.default_rng(seed)
    if bits < 62:
        atoms = gen.integers(0, N, size=(BNS_ATOMS, d))
    else:
        atoms = np.array([[int(v) for v in row] for row in gen.integers(0, 2**62, size=(BNS_ATOMS, d))], dtype=object)
        atoms = atoms * (N // 2**62) + gen.integers(0, N // 2**62, size=(BNS_ATOMS, d)).astype(object)
    # A centred box holding half of the atoms (per-axis quantiles of the atoms' coordinates).
    frac = 0.5 ** (1.0 / d)
    lo_q, hi_q = (1 - frac) / 2, (1 + frac) / 2
    cols = [sorted(atoms[:, i].tolist()) for i in range(d)]
    lower = [c[int(lo_q * (BNS_ATOMS - 1))] for c in cols]
    upper = [c[int(hi_q * (BNS_ATOMS - 1))] for c in cols]
    y = np.ones(BNS_ATOMS, dtype=np.int64)
    for i in range(d):
        y &= ((atoms[:, i] >= lower[i]) & (atoms[:, i] <= upper[i])).astype(np.int64)
    src = SeededRandom(seed)
    n = math.ceil(plan.min_size)
    row = {
        "arm": "bns",
        "d": d,
        "domain_bits": bits,
        "trials": trials,
        "bound": plan.utility_size,
        "prediction": "",
        "window": "",
        "note": f"privacy precondition n >= {plan.min_size:.3g}",
    }
    if d > BNS_MAX_RUN_DIM:
        # One SanThresholds run per axis at accuracy alpha/(8d): 77*8d/alpha iterations each, hours per
        # fit at d = 10. The precondition is a lower bound on what the learner needs: it cannot run below.
        row.update(kind="precondition", n_required=n, success_rate="", trials=0)
        row["note"] += "; not run (cost), a lower bound on the samples it needs"
        bar.update(1)
        return row
    while True:
        ok = 0
        for _ in range(trials):
            counts = gen.multinomial(n, np.full(BNS_ATOMS, 1.0 / BNS_ATOMS))
            box = learn_rectangle_bns(atoms, y, counts=counts, axis_sizes=[N] * d, alpha=ALPHA, beta=BETA,
                                      epsilon=EPSILON, delta=DELTA, rng=src.spawn())  # fmt: skip
            ok += float(np.mean(box.predict(atoms) != y)) <= ALPHA
        bar.set_postfix_str(f"bns d={d} 2^{bits} n={n:.3g} ok={ok}")
        if ok >= SUCCESS * trials:
            kind = "at-precondition" if n == math.ceil(plan.min_size) else "measured"
            row.update(kind=kind, n_required=n, success_rate=ok / trials)
            break
        if n > 4 * plan.utility_size:
            row.update(kind="not-reached", n_required=n, success_rate=ok / trials)
            break
        n *= 2
    bar.update(1)
    return row


def fit_times(repeats: int) -> list[dict]:
    rows = []
    n, d = 10**6, 10
    for bits in (16, 32, 64):
        dist = make_rectangle_distribution(d, 2**bits - 1)
        src = SeededRandom(bits)
        X, y = dist.sample(n, src.spawn())
        P = np.asfortranarray(X[y == 1])
        for arm, eps in (
            ("randmargins-em", EPSILON),
            ("randmargins-em", 100.0),
            ("composition", EPSILON),
            ("estimator", EPSILON),
        ):
            if arm == "estimator":  # the user's path: validation, grid indices, RandMargins (replace-one)
                est = PrivateRectangleClassifier(epsilon=eps, delta=DELTA, domain=(0, 2**bits - 1), random_state=1)
                Xi = X.astype(np.int64) if bits < 63 else X
                plan = None
                fn = lambda est=est, Xi=Xi, y=y: est.fit(Xi, y)  # noqa: E731
            elif arm == "composition":
                plan = plan_composition(eps, DELTA, 2**bits - 1, dimension=d, beta=BETA)
                fn = lambda plan=plan, P=P: run_composition(P, plan, rng=1)  # noqa: E731
            else:
                plan = plan_randmargins(eps, DELTA, 2**bits - 1, dimension=d, beta=BETA, neighbours="add-remove")
                fn = lambda plan=plan, P=P: run_randmargins(P, plan, rng=1)  # noqa: E731
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            rows.append(
                {
                    "arm": arm,
                    "epsilon": eps,
                    "domain_bits": bits,
                    "n": n,
                    "positives": P.shape[0],
                    "d": d,
                    "best_seconds": round(min(times), 3),
                    "median_seconds": round(float(np.median(times)), 3),
                    "target_seconds": 5.0,
                    "window": "" if plan is None else plan.window,
                    "note": {
                        "estimator": "PrivateRectangleClassifier.fit on all n labelled points (int64 input)",
                        "composition": "library default budget",
                    }.get(arm, "every round reads the data" if eps > EPSILON else "library default budget"),
                }
            )
            print(f"fit time {arm:24s} eps={eps:<6g} 2^{bits}: best {min(times):.3f} s ({P.shape[0]} positives)")
    return rows


def crossover(bits: int) -> dict:
    """Dimension from which RandMargins' *predicted empirical* n (and its bound) beats the baseline's.

    Predictions as for the unmeasured cells (deletion budgets); bounds from spec 5.2. Both with the
    exponential-mechanism interior point and 32 tie-break bits for RandMargins.
    """

    def rm(d):
        r = randmargins_sample_size(EPSILON, DELTA, ALPHA, BETA, 2**bits, d, tie_break_bits=32)
        return 2 * d * (math.ceil(r["mean_margin"]) - r["window"] / 2.0) / ALPHA, r["n"]

    def comp(d):
        r = composition_sample_size(EPSILON, DELTA, ALPHA, BETA, 2**bits, d)
        return 2 * d * r["window"] / 2.0 / ALPHA, r["n"]

    out = {"domain_bits": bits}
    for key, which in (("predicted", 0), ("bound", 1)):
        lo, hi = 1, 10**12
        if rm(hi)[which] >= comp(hi)[which]:
            out[f"{key}_crossover_d"] = ""
            continue
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if rm(mid)[which] < comp(mid)[which]:
                hi = mid
            else:
                lo = mid
        out[f"{key}_crossover_d"] = hi
        out[f"{key}_n_at_crossover"] = round(rm(hi)[which])
    return out


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bits_list = sorted({r["domain_bits"] for r in rows})
    fig, axes = plt.subplots(1, len(bits_list), figsize=(5 * len(bits_list), 4.2), sharey=True)
    axes = np.atleast_1d(axes)
    colours = dict(zip(ARMS + ("bns",), ("black", "tab:blue", "tab:red", "tab:orange", "tab:green")))
    for ax, bits in zip(axes, bits_list):
        for arm in ARMS + ("bns",):
            sel = sorted((r for r in rows if r["arm"] == arm and r["domain_bits"] == bits), key=lambda r: r["d"])
            if not sel:
                continue
            ds = [r["d"] for r in sel]
            ax.plot(ds, [r["n_required"] for r in sel], "-", color=colours[arm], label=arm)
            for r in sel:
                kinds = {
                    "measured": "o",
                    "predicted": "s",
                    "at-precondition": "D",
                    "precondition": "D",
                    "not-reached": "x",
                }
                style = kinds[r["kind"]]
                face = "white" if r["kind"] in ("predicted", "precondition") else colours[arm]
                ax.plot(r["d"], r["n_required"], style, color=colours[arm], markerfacecolor=face)
            if arm != "tightest-fit":
                ax.plot(ds, [r["bound"] for r in sel], ":", color=colours[arm], alpha=0.6)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"|X| = 2^{bits} per axis")
        ax.set_xlabel("dimension d (2d margins)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("samples for error <= 0.1 in 90% of runs")
    axes[0].legend(fontsize=8, loc="upper left")
    fig.suptitle(
        "Boxes, eps = 1, delta = 1e-6: filled circle = measured, open square = predicted from the deletion "
        "budget; BNS: filled diamond = succeeds at its privacy precondition, open = the precondition "
        "(not run); dotted = proven bound",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def write_times(repeats: int, suffix: str) -> None:
    times = fit_times(repeats)
    with open(RESULTS / f"rectangles-fit-time{suffix}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(times[0]))
        w.writeheader()
        w.writerows(times)


BNS_FIELDS = ["arm", "d", "domain_bits", "kind", "n_required", "success_rate", "trials", "bound", "note"]


def _read_rows(path: Path) -> list[dict]:
    rows = []
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            r["d"], r["domain_bits"] = int(r["d"]), int(r["domain_bits"])
            r["n_required"], r["bound"] = float(r["n_required"]), float(r["bound"])
            rows.append(r)
    return rows


def run_bns(args) -> None:
    dims = (1, 2) if args.quick else (1, 2, 10, 100)
    bit_list = (16,) if args.quick else (16, 32, 64)
    trials = 5 if args.quick else args.trials
    cells = [(d, bits) for bits in bit_list for d in dims]
    rows = []
    with tqdm(total=len(cells), desc="BNS learner", unit="cell") as bar:
        for i, (d, bits) in enumerate(cells):
            rows.append(bns_search(d, bits, trials, 5000 + i, bar))
    suffix = "-quick" if args.quick else ""
    with open(RESULTS / f"rectangles-bns{suffix}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=BNS_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in BNS_FIELDS})
    grid = RESULTS / f"rectangles{suffix}.csv"
    if grid.exists():
        plot(_read_rows(grid) + rows, RESULTS / f"rectangles{suffix}.png")
    for r in rows:
        print(
            f"bns d={r['d']:<4d} 2^{r['domain_bits']}: {r['kind']:15s} n={r['n_required']:.3g} bound={r['bound']:.3g}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=10, help="runs per sample size (private arms)")
    parser.add_argument("--max-bytes", type=float, default=1.2e9, help="memory cap for one sample")
    parser.add_argument("--quick", action="store_true", help="d in {1, 2}, 2^16 only, 5 trials")
    parser.add_argument("--repeats", type=int, default=3, help="fit-time repeats")
    parser.add_argument("--skip-times", action="store_true")
    parser.add_argument("--times-only", action="store_true", help="only the fit times and the crossover")
    parser.add_argument("--bns", action="store_true", help="only the BNS arm; re-plot with the saved grid")
    args = parser.parse_args()
    if args.bns:
        run_bns(args)
        return
    RESULTS.mkdir(exist_ok=True)
    cross = [crossover(bits) for bits in (16, 32, 64)]
    with open(RESULTS / "rectangles-crossover.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=sorted({k for c in cross for k in c}, key=lambda k: (k != "domain_bits", k)))
        w.writeheader()
        w.writerows(cross)
    for c in cross:
        print(f"crossover 2^{c['domain_bits']}: {c}")
    if args.times_only:
        write_times(args.repeats, "")
        return
    dims = (1, 2) if args.quick else (1, 2, 10, 100)
    bit_list = (16,) if args.quick else (16, 32, 64)
    trials = 5 if args.quick else args.trials
    RESULTS.mkdir(exist_ok=True)
    cells = [(arm, d, bits) for bits in bit_list for d in dims for arm in ARMS]
    rows = []
    with tqdm(total=len(cells), desc="sample complexity", unit="cell") as bar:
        for i, (arm, d, bits) in enumerate(cells):
            t = trials * 5 if arm == "tightest-fit" else trials
            rows.append(search(arm, d, bits, t, args.max_bytes, bar, seed=1000 + i))
    suffix = "-quick" if args.quick else ""
    fields = [
        "arm",
        "d",
        "domain_bits",
        "kind",
        "n_required",
        "success_rate",
        "trials",
        "prediction",
        "prediction_ratio",
        "bound",
        "window",
        "note",
    ]
    with open(RESULTS / f"rectangles{suffix}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})
    plot(rows, RESULTS / f"rectangles{suffix}.png")
    for r in rows:
        print(
            f"{r['arm']:24s} d={r['d']:<4d} 2^{r['domain_bits']}: {r['kind']:11s} n={r['n_required']:.3g}"
            f"  bound={r['bound']:.3g}"
        )
    if not args.skip_times:
        write_times(args.repeats, suffix)
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}")


if __name__ == "__main__":
    main()
