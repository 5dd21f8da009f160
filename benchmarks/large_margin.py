"""Large-margin halfspaces: privpac's learners against non-private and private linear classifiers.

Nguyen, Ullman, Zakynthinou (2020) run no experiments; this benchmark follows spec section 9.

Arms
----
* non-private references: scikit-learn ``Perceptron``, ``LinearSVC`` and ``LogisticRegression``
  (no intercept, as the learners here are homogeneous);
* ``privpac-practical``: ``PrivateHalfspaceClassifier(variant="practical")`` (the default when this ran;
  projection where it pays, exact-GDP
  noisy gradient descent, 10 steps), (eps, 1e-6)-DP;
* ``privpac-noproj``: the same without projection (ablation);
* ``privpac-faithful``: Algorithm 1/3 (BST14 noisy SGD, 7 boosted runs, charged selection;
  ``O(k n^2 d)`` time, so only at d = 100, n <= 1000, eps = 1, and on the digits);
* ``privpac-pure``: Algorithm 2 (exponential mechanism over a net), only at d = 2;
* ``diffprivlib-LR``: diffprivlib's ``LogisticRegression(epsilon, data_norm=1, fit_intercept=False)``
  (objective perturbation, pure eps-DP), and ``diffprivlib-LR+JL``: the same after the random +-1
  projection to ``m = ceil(4 / gamma^2)`` dimensions (spec 5.4), when ``m < d``.

Every arm sees the records normalised to unit norm (a public per-record map; privpac does it
itself). Data: the margin distribution of spec 5.4 (``privpac.datasets.make_margin_data``) with
gamma in {0.3, 0.1, 0.05}, d in {100, 1000, 10000}, eps in {0.5, 1, 2}, sample sizes
``{3, 10, 30, 100} / gamma^2`` capped at ``n d <= 5e7`` (memory), 2000 test points, and scikit-learn's
digits (one digit against another, 75/25 splits, margin 0.1 fixed a priori, not tuned on the data).

Environment
-----------
diffprivlib 0.6.6 does not run with scikit-learn 1.8 or later (its LogisticRegression passes the
removed ``multi_class`` argument), so the benchmark runs in its own virtual environment with the
``bench-diffprivlib`` extra, which pins ``scikit-learn<1.8`` there only::

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -e ".[bench-diffprivlib]"
    nice -n 10 .venv-bench/bin/python benchmarks/large_margin.py          # full grid, about 30 min
    .venv-bench/bin/python benchmarks/large_margin.py --quick             # a few minutes

Without diffprivlib the script runs the other arms and says so. Results:
``benchmarks/results/large_margin.csv`` (one row per fit), ``large_margin_summary.csv`` (means,
n needed for 5% error, the done criterion), and PNG plots. Wall times are single-process
measurements on a shared machine: compare them within one run only. BLAS runs single-threaded
for every arm (set below, before numpy loads): on a contended machine multi-threaded BLAS makes
small products erratically slow, which would blur the comparison.
"""

from __future__ import annotations

# ruff: noqa: E402  (BLAS threads must be set before numpy is imported)
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import math
import platform
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression, Perceptron
from sklearn.svm import LinearSVC
from tqdm.auto import tqdm

from _results import write_csv
from privpac.datasets import load_digits_pair, make_margin_data, margin_direction
from privpac.estimators import PrivateHalfspaceClassifier
from privpac.learners.jl_projection import SignProjection, project_records

try:
    import diffprivlib
    from diffprivlib.models import LogisticRegression as DPLogisticRegression

    HAVE_DIFFPRIVLIB = True
except Exception as exc:  # ImportError, or diffprivlib failing against this scikit-learn
    HAVE_DIFFPRIVLIB = False
    DIFFPRIVLIB_ERROR = repr(exc)

RESULTS = Path(__file__).parent / "results"
DELTA = 1e-6


def unit_rows(X):
    return project_records(X, None)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def nonprivate_arms(X, y, Xt, yt, seed):
    out = []
    for name, model in (
        ("Perceptron", Perceptron(fit_intercept=False, random_state=seed)),
        ("LinearSVC", LinearSVC(fit_intercept=False, C=10.0, max_iter=5000)),
        ("LogisticRegression", LogisticRegression(fit_intercept=False, C=100.0, max_iter=1000)),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, secs = timed(lambda model=model: model.fit(X, y))
        out.append((name, float(np.mean(model.predict(Xt) != yt)), secs, X.shape[1]))
    return out


def privpac_arm(X, y, Xt, yt, gamma, eps, domain, seed, **kw):
    kw = dict(epsilon=eps, delta=DELTA, domain=domain, margin=gamma, variant="practical", random_state=seed,
              labels=(-1, 1)) | kw  # fmt: skip
    est = PrivateHalfspaceClassifier(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, secs = timed(lambda: est.fit(X, y))
    return float(np.mean(est.predict(Xt) != yt)), secs, est.projection_dim_


def diffprivlib_arm(X, y, Xt, yt, eps, seed, project_to=None):
    """diffprivlib's LR on unit rows; with ``project_to`` the +-1 projection is part of the timed fit."""

    def fit():
        if project_to is not None:
            P = SignProjection.draw(project_to, X.shape[1], rng=seed)
            Z = unit_rows(P.project(X))
        else:
            P, Z = None, X
        model = DPLogisticRegression(epsilon=eps, data_norm=1.0, fit_intercept=False, random_state=seed)
        model.fit(Z, y)
        return P, model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (P, model), secs = timed(fit)
    Zt = Xt if P is None else unit_rows(P.project(Xt))
    return float(np.mean(model.predict(Zt) != yt)), secs, Zt.shape[1]


def synthetic_tasks(quick: bool):
    gammas = (0.3, 0.1, 0.05)
    dims = (100, 1000) if quick else (100, 1000, 10000)
    mults = (3, 30) if quick else (3, 10, 30, 100)
    reps = 1 if quick else 2
    tasks = []
    for gamma in gammas:
        for d in dims:
            for mult in mults:
                n = int(round(mult / gamma**2))
                if n * d > 5e7:
                    continue
                for rep in range(reps):
                    tasks.append(("synthetic", gamma, d, n, rep))
    # Algorithm 2 needs a tiny dimension: d = 2.
    for gamma in gammas:
        for n in (25, 50, 100, 200):
            for rep in range(1 if quick else 3):
                tasks.append(("synthetic-d2", gamma, 2, n, rep))
    return tasks


def run_synthetic(task, eps_grid, rows, faithful_ok):
    kind, gamma, d, n, rep = task
    seed = 1000 * rep + d + n
    w = margin_direction(d, seed)
    train = make_margin_data(n, d, gamma, w_star=w, rng=seed + 1, labels=(-1, 1))
    test = make_margin_data(2000, d, gamma, w_star=w, rng=seed + 2, labels=(-1, 1))
    X, y = unit_rows(train.X), train.y
    Xt, yt = unit_rows(test.X), test.y
    base = dict(dataset=kind, gamma=gamma, d=d, n=n, rep=rep)

    def add(arm, eps, err, secs, m, note=""):
        rows.append(base | dict(arm=arm, epsilon=eps, test_error=err, fit_seconds=secs, projection_dim=m, note=note))

    for name, err, secs, m in nonprivate_arms(X, y, Xt, yt, seed):
        add(name, "", err, secs, m, "non-private")
    for eps in eps_grid:
        add("privpac-practical", eps, *privpac_arm(X, y, Xt, yt, gamma, eps, 1.0, seed))
        if d > 2:
            add("privpac-noproj", eps, *privpac_arm(X, y, Xt, yt, gamma, eps, 1.0, seed, projection_dim="none"))
        else:
            add("privpac-pure", eps, *privpac_arm(X, y, Xt, yt, gamma, eps, 1.0, seed, variant="pure", delta=0.0),
                "pure eps-DP")  # fmt: skip
        if faithful_ok(d, n, eps):
            add("privpac-faithful", eps, *privpac_arm(X, y, Xt, yt, gamma, eps, 1.0, seed, variant="faithful"))
        if HAVE_DIFFPRIVLIB:
            add("diffprivlib-LR", eps, *diffprivlib_arm(X, y, Xt, yt, eps, seed), "pure eps-DP")
            m = int(math.ceil(4 / gamma**2))
            if m < d:
                add("diffprivlib-LR+JL", eps, *diffprivlib_arm(X, y, Xt, yt, eps, seed, project_to=m), "pure eps-DP")


def run_digits(pair, rep, eps_grid, rows, gamma=0.1):
    ds = load_digits_pair(*pair)
    Xtr, Xte, ytr, yte = ds.split(0.25, rng=rep)
    ytr, yte = 2 * ytr - 1, 2 * yte - 1
    Z, Zt = unit_rows(Xtr), unit_rows(Xte)
    base = dict(dataset=f"digits {pair[0]}v{pair[1]}", gamma=gamma, d=64, n=len(ytr), rep=rep)

    def add(arm, eps, err, secs, m, note=""):
        rows.append(base | dict(arm=arm, epsilon=eps, test_error=err, fit_seconds=secs, projection_dim=m, note=note))

    for name, err, secs, m in nonprivate_arms(Z, ytr, Zt, yte, rep):
        add(name, "", err, secs, m, "non-private")
    for eps in eps_grid:
        add("privpac-practical", eps, *privpac_arm(Xtr, ytr, Xte, yte, gamma, eps, ds.domain, rep))
        if rep < 3:
            add("privpac-faithful", eps, *privpac_arm(Xtr, ytr, Xte, yte, gamma, eps, ds.domain, rep,
                                                      variant="faithful"))  # fmt: skip
        if HAVE_DIFFPRIVLIB:
            add("diffprivlib-LR", eps, *diffprivlib_arm(Z, ytr, Zt, yte, eps, rep), "pure eps-DP")


def summarise(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["dataset"], r["gamma"], r["d"], r["n"], r["arm"], r["epsilon"])].append(r)
    summary = []
    for (dataset, gamma, d, n, arm, eps), rs in sorted(groups.items(), key=lambda kv: tuple(map(str, kv[0]))):
        summary.append(
            dict(
                dataset=dataset, gamma=gamma, d=d, n=n, arm=arm, epsilon=eps, runs=len(rs),
                mean_test_error=float(np.mean([r["test_error"] for r in rs])),
                mean_fit_seconds=float(np.mean([r["fit_seconds"] for r in rs])),
            )
        )  # fmt: skip
    return summary


def n_for_five_percent(summary):
    """Smallest grid n whose mean error is <= 5%, per (dataset, gamma, d, arm, epsilon)."""
    best = {}
    for s in summary:
        if not s["dataset"].startswith("synthetic"):
            continue
        key = (s["dataset"], s["gamma"], s["d"], s["arm"], s["epsilon"])
        best.setdefault(key, None)
        if s["mean_test_error"] <= 0.05 and (best[key] is None or s["n"] < best[key]):
            best[key] = s["n"]
    return best


def done_criterion(summary):
    """Practical vs diffprivlib at equal eps (d >= 100): error at or below, fit time at most 2x."""
    idx = {(s["dataset"], s["gamma"], s["d"], s["n"], s["arm"], s["epsilon"]): s for s in summary}
    checks = []
    for key, s in idx.items():
        dataset, gamma, d, n, arm, eps = key
        if arm != "privpac-practical" or d < 64 or dataset == "synthetic-d2":
            continue
        other = idx.get((dataset, gamma, d, n, "diffprivlib-LR", eps))
        if other is None:
            continue
        checks.append(
            dict(
                dataset=dataset, gamma=gamma, d=d, n=n, epsilon=eps,
                practical_error=s["mean_test_error"], diffprivlib_error=other["mean_test_error"],
                practical_seconds=s["mean_fit_seconds"], diffprivlib_seconds=other["mean_fit_seconds"],
                error_ok=s["mean_test_error"] <= other["mean_test_error"],
                time_ok=s["mean_fit_seconds"] <= 2.0 * other["mean_fit_seconds"],
            )
        )  # fmt: skip
    return checks


def read_rows(path):
    rows = []
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            r["gamma"], r["d"], r["n"] = float(r["gamma"]), int(r["d"]), int(r["n"])
            r["epsilon"] = "" if r["epsilon"] == "" else float(r["epsilon"])
            r["test_error"], r["fit_seconds"] = float(r["test_error"]), float(r["fit_seconds"])
            rows.append(r)
    return rows


STYLE = {
    "privpac-practical": ("C0", "o-"),
    "privpac-noproj": ("C1", "s--"),
    "privpac-faithful": ("C2", "^-"),
    "privpac-pure": ("C3", "d-"),
    "diffprivlib-LR": ("C4", "v-"),
    "diffprivlib-LR+JL": ("C5", "v--"),
    "LinearSVC": ("k", "x:"),
    "LogisticRegression": ("0.4", "+:"),
    "Perceptron": ("0.7", "*:"),
}


def plot(summary, suffix):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    def legend(axes):
        for ax in axes.ravel():
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
                return

    def series(dataset, gamma, d, arm, eps, x="n", fixed_n=None):
        pts = [
            s for s in summary
            if s["dataset"] == dataset and s["gamma"] == gamma and s["d"] == d and s["arm"] == arm
            and (eps is None or s["epsilon"] == eps or s["epsilon"] == "") and (fixed_n is None or s["n"] == fixed_n)
        ]  # fmt: skip
        pts.sort(key=lambda s: s[x] if x == "n" else float(s["epsilon"] or 0))
        return [s[x] for s in pts], [s["mean_test_error"] for s in pts], [s["mean_fit_seconds"] for s in pts]

    gammas = sorted({s["gamma"] for s in summary if s["dataset"] == "synthetic"}, reverse=True)
    dims = sorted({s["d"] for s in summary if s["dataset"] == "synthetic"})
    arms = [a for a in STYLE if any(s["arm"] == a for s in summary)]
    # 1. error against n at eps = 1, one panel per (d, gamma)
    fig, axes = plt.subplots(len(dims), len(gammas), figsize=(4.2 * len(gammas), 3.2 * len(dims)), squeeze=False)
    for i, d in enumerate(dims):
        for j, gamma in enumerate(gammas):
            ax = axes[i][j]
            for arm in arms:
                xs, ys, _ = series("synthetic", gamma, d, arm, 1.0)
                if xs:
                    color, fmt = STYLE[arm]
                    ax.plot(xs, ys, fmt, color=color, label=arm, ms=4)
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_ylim(-0.02, 0.55)
            ax.axhline(0.05, color="0.8", lw=0.8)
            ax.set_title(f"gamma={gamma}, d={d}, eps=1", fontsize=9)
            ax.set_xlabel("n")
            ax.set_ylabel("test error")
    legend(axes)
    fig.tight_layout()
    fig.savefig(RESULTS / f"large_margin_error_vs_n{suffix}.png", dpi=110)
    plt.close(fig)
    # 2. error against eps at the second-smallest n, d = 1000 (or the largest d run)
    d = 1000 if 1000 in dims else dims[-1]
    fig, axes = plt.subplots(1, len(gammas), figsize=(4.2 * len(gammas), 3.2), squeeze=False)
    for j, gamma in enumerate(gammas):
        ns = sorted({s["n"] for s in summary if s["dataset"] == "synthetic" and s["gamma"] == gamma and s["d"] == d})
        if not ns:
            continue
        n_fixed = ns[min(1, len(ns) - 1)]
        ax = axes[0][j]
        for arm in arms:
            xs, ys, _ = series("synthetic", gamma, d, arm, None, x="epsilon", fixed_n=n_fixed)
            pts = [(float(x), y) for x, y in zip(xs, ys) if x != ""]
            color, fmt = STYLE[arm]
            if pts:
                ax.plot(*zip(*pts), fmt, color=color, label=arm, ms=4)
            elif ys:  # non-private: no epsilon
                ax.axhline(ys[0], color=color, ls=":", label=arm)
        ax.set_title(f"gamma={gamma}, d={d}, n={n_fixed}", fontsize=9)
        ax.set_xlabel("epsilon")
        ax.set_ylabel("test error")
        ax.set_ylim(-0.02, 0.55)
    legend(axes)
    fig.tight_layout()
    fig.savefig(RESULTS / f"large_margin_error_vs_eps{suffix}.png", dpi=110)
    plt.close(fig)
    # 3. fit time against n at the largest d, eps = 1
    d = dims[-1]
    fig, axes = plt.subplots(1, len(gammas), figsize=(4.2 * len(gammas), 3.2), squeeze=False)
    for j, gamma in enumerate(gammas):
        ax = axes[0][j]
        for arm in arms:
            xs, _, ts = series("synthetic", gamma, d, arm, 1.0)
            if xs:
                color, fmt = STYLE[arm]
                ax.plot(xs, ts, fmt, color=color, label=arm, ms=4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"fit time, gamma={gamma}, d={d}, eps=1", fontsize=9)
        ax.set_xlabel("n")
        ax.set_ylabel("seconds")
    legend(axes)
    fig.tight_layout()
    fig.savefig(RESULTS / f"large_margin_time{suffix}.png", dpi=110)
    plt.close(fig)
    # 4. digits: error against eps
    digit_sets = sorted({s["dataset"] for s in summary if s["dataset"].startswith("digits")})
    if digit_sets:
        fig, axes = plt.subplots(1, len(digit_sets), figsize=(4.2 * len(digit_sets), 3.2), squeeze=False)
        for j, ds in enumerate(digit_sets):
            ax = axes[0][j]
            for arm in arms:
                pts = sorted(
                    (float(s["epsilon"]), s["mean_test_error"]) for s in summary
                    if s["dataset"] == ds and s["arm"] == arm and s["epsilon"] != ""
                )  # fmt: skip
                flat = [
                    s["mean_test_error"]
                    for s in summary
                    if s["dataset"] == ds and s["arm"] == arm and s["epsilon"] == ""
                ]
                color, fmt = STYLE[arm]
                if pts:
                    ax.plot(*zip(*pts), fmt, color=color, label=arm, ms=4)
                elif flat:
                    ax.axhline(flat[0], color=color, ls=":", label=arm)
            ax.set_title(f"{ds} (margin 0.1)", fontsize=9)
            ax.set_xlabel("epsilon")
            ax.set_ylabel("test error")
        legend(axes)
        fig.tight_layout()
        fig.savefig(RESULTS / f"large_margin_digits{suffix}.png", dpi=110)
        plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small grid (minutes)")
    parser.add_argument("--plot-only", action="store_true", help="redraw the plots from the saved CSV")
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    eps_grid = (0.5, 1.0, 2.0)
    suffix = "_quick" if args.quick else ""
    if args.plot_only:
        plot(summarise(read_rows(RESULTS / f"large_margin{suffix}.csv")), suffix)
        return
    print(f"python {platform.python_version()}, numpy {np.__version__}, scikit-learn {sklearn.__version__}")
    if HAVE_DIFFPRIVLIB:
        print(f"diffprivlib {diffprivlib.__version__}")
    else:
        print(f"diffprivlib unavailable ({DIFFPRIVLIB_ERROR}): its arms are skipped, not estimated")
    rows: list[dict] = []

    def faithful_ok(d, n, eps):
        return d == 100 and n <= (300 if args.quick else 1200) and eps == 1.0

    tasks = [("syn", t) for t in synthetic_tasks(args.quick)]
    pairs = [(1, 7), (4, 9), (3, 8)]
    tasks += [("digits", (p, rep)) for p in pairs for rep in range(3 if args.quick else 10)]
    for kind, task in tqdm(tasks, desc="large-margin benchmark", unit="dataset"):
        if kind == "syn":
            run_synthetic(task, eps_grid, rows, faithful_ok)
        else:
            run_digits(task[0], task[1], eps_grid, rows)
    write_csv(RESULTS / f"large_margin{suffix}.csv", rows)
    summary = summarise(rows)
    write_csv(RESULTS / f"large_margin_summary{suffix}.csv", summary)
    needed = n_for_five_percent(summary)
    write_csv(
        RESULTS / f"large_margin_n_for_5pct{suffix}.csv",
        [dict(dataset=k[0], gamma=k[1], d=k[2], arm=k[3], epsilon=k[4], n_for_5pct_error=v or "not reached")
         for k, v in sorted(needed.items(), key=lambda kv: tuple(map(str, kv[0])))],
    )  # fmt: skip
    checks = done_criterion(summary)
    write_csv(RESULTS / f"large_margin_done_criterion{suffix}.csv", checks)
    plot(summary, suffix)
    if checks:
        err_ok = sum(c["error_ok"] for c in checks)
        time_ok = sum(c["time_ok"] for c in checks)
        both = sum(c["error_ok"] and c["time_ok"] for c in checks)
        print(
            f"done criterion (practical vs diffprivlib, equal eps): error <= in {err_ok}/{len(checks)}, "
            f"time <= 2x in {time_ok}/{len(checks)}, both in {both}/{len(checks)}"
        )
        for c in checks:
            if not (c["error_ok"] and c["time_ok"]):
                print("  not met:", {k: (round(v, 4) if isinstance(v, float) else v) for k, v in c.items()})
    print(f"wrote {len(rows)} rows to {RESULTS}")


if __name__ == "__main__":
    main()
