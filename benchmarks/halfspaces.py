"""Every private halfspace learner of privpac on the same data: which one for which data.

Arms (each fits on the training records and is scored on held-out records)
--------------------------------------------------------------------------
* ``feasibility-exponential`` / ``feasibility-recconcave``: the linear-feasibility learner of Kaplan,
  Mansour, Stemmer, Tsfadia (``PrivateFeasibilityHalfspaceClassifier``, ERM in margin-1 mode),
  with the exponential mechanism or RecConcave per coordinate, (eps, delta)-DP;
* ``feasibility-candidates``: the same learner over 5,000 public random candidate halfspaces
  (``candidates=5000``, spec 6.5 option 1: any ``d``, not the paper's algorithm), pure eps-DP;
* ``tukey-exponential`` / ``tukey-directional``: the center-point learner of Beimel, Moran,
  Nissim, Stemmer (``PrivateTukeyHalfspaceClassifier``: sample-and-aggregate over FindTukey),
  with Tukey depth or directional depth;
* ``margin-practical``: the large-margin learner of Nguyen, Ullman, Zakynthinou
  (``PrivateHalfspaceClassifier``, noisy gradient descent, with an intercept), with the public
  margin fixed a priori at 0.1 (never tuned on the data);
* ``generic-em``: the exponential mechanism over every labelling of the grid (BMNS baseline B2),
  tiny grids only;
* ``diffprivlib-LR``: diffprivlib's ``LogisticRegression`` (objective perturbation, pure eps-DP,
  ``data_norm`` the grid's public half-diagonal), when diffprivlib imports (it needs its own
  environment: see benchmarks/large_margin.py);
* ``logistic (non-private)``: scikit-learn's ``LogisticRegression``.

An arm that refuses a configuration (a dimension its exact geometry does not reach, a grid too
large to enumerate) is recorded with the refusal's message, not skipped silently; an arm whose
fit at some ``n`` took longer than the time budget is not run at larger ``n`` (recorded too).

Data
----
* synthetic realisable data on the integer grid ``[[-B, B]]^d`` (``make_grid_halfspace_data``),
  ``d`` in {1, 2, 3, 5}, ``B`` = 2^7 and 2^15 (grids of 2^8 and 2^16 points per axis), without a
  margin and with margin 0.1 of the half-diagonal;
* scikit-learn's breast-cancer data, ``mean radius`` (d = 1) and ``mean radius, mean texture``
  (d = 2), mapped to ``[[-128, 128]]`` from the public bounds of ``BREAST_CANCER_BOUNDS``;
* scikit-learn's digits 3 vs 8, downsampled to 2 x 2 blocks of 4 x 4 pixels (block sums in
  ``[0, 256]``, d = 4), mapped to ``[[-128, 128]]``.

Run ``nice -n 10 python benchmarks/halfspaces.py`` (``--quick`` for a smaller grid). Results:
``benchmarks/results/halfspaces.csv`` (one row per fit), ``halfspaces_summary.csv`` (mean test
error per arm, setting and ``n``; the smallest ``n`` reaching 10% error) and
``halfspaces_error_vs_n.png``. Wall times are single-process measurements on a shared machine.
"""

from __future__ import annotations

# ruff: noqa: E402  (BLAS threads must be set before numpy is imported)
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import csv
import math
import signal
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from tqdm.auto import tqdm

from privpac.datasets import (
    BREAST_CANCER_BOUNDS,
    grid_halfspace_target,
    load_breast_cancer_features,
    make_grid_halfspace_data,
)
from privpac.domains import IntegerDomain
from privpac.errors import PrivpacError
from privpac.estimators import (
    PrivateFeasibilityHalfspaceClassifier,
    PrivateHalfspaceClassifier,
    PrivateTukeyHalfspaceClassifier,
)
from privpac.learners.halfspace_tukey import generic_halfspace_learner, halfspace_predict
from privpac.random import as_random_source

try:
    from diffprivlib.models import LogisticRegression as DPLogisticRegression

    HAVE_DIFFPRIVLIB = True
except Exception:  # ImportError, or diffprivlib failing against this scikit-learn
    HAVE_DIFFPRIVLIB = False

RESULTS = Path(__file__).parent / "results"
DELTA = 1e-6
PUBLIC_MARGIN = 0.1
TARGET_ERROR = 0.1


# --------------------------------------------------------------------------------------- arms
def _margin(eps, B, d, seed):
    return PrivateHalfspaceClassifier(
        epsilon=eps, delta=DELTA, domain=IntegerDomain(-B, B), margin=PUBLIC_MARGIN, variant="practical",
        fit_intercept=True, random_state=seed,
    )  # fmt: skip


def _feasibility(optimizer):
    def make(eps, B, d, seed):
        delta = 0.0 if optimizer == "exponential" else DELTA
        return PrivateFeasibilityHalfspaceClassifier(
            epsilon=eps, delta=delta, domain=IntegerDomain(-B, B), optimizer=optimizer, random_state=seed
        )

    return make


#: Public random candidate halfspaces of the candidate-set arm (spec 6.5 option 1).
N_CANDIDATES = 5_000


def _feasibility_candidates(eps, B, d, seed):
    return PrivateFeasibilityHalfspaceClassifier(
        epsilon=eps, domain=IntegerDomain(-B, B), candidates=N_CANDIDATES, random_state=seed
    )


def _tukey(depth):
    def make(eps, B, d, seed):
        return PrivateTukeyHalfspaceClassifier(epsilon=eps, domain=IntegerDomain(-B, B), depth=depth, random_state=seed)

    return make


class _GenericEM:
    """BMNS baseline B2: the exponential mechanism over one halfspace per labelling of the grid (tiny grids)."""

    def __init__(self, eps, B, d, seed):
        self.eps, self.B, self.seed = eps, B, seed

    def fit(self, X, y):
        self.a, self.w = generic_halfspace_learner(X, y, self.B, self.eps, rng=as_random_source(self.seed))
        return self

    def predict(self, X):
        return halfspace_predict(self.a, self.w, X)


class _DiffprivlibLR:
    """diffprivlib's LR on records in ``[[-B, B]]^d``, with the public norm bound ``B sqrt(d)``."""

    def __init__(self, eps, B, d, seed):
        self.model = DPLogisticRegression(epsilon=eps, data_norm=B * np.sqrt(d), random_state=seed)

    def fit(self, X, y):
        self.model.fit(X, y)
        return self

    def predict(self, X):
        return self.model.predict(X)


class _Logistic:
    def __init__(self, eps, B, d, seed):
        self.model = LogisticRegression(C=1e4, max_iter=5000)

    def fit(self, X, y):
        if len(np.unique(y)) < 2:  # one class in the sample: predict it
            self.constant = y[0]
            return self
        self.constant = None
        self.model.fit(X, y)
        return self

    def predict(self, X):
        return np.full(len(X), self.constant) if self.constant is not None else self.model.predict(X)


ARMS: dict[str, object] = {
    "feasibility-exponential": _feasibility("exponential"),
    "feasibility-recconcave": _feasibility("recconcave"),
    "feasibility-candidates": _feasibility_candidates,
    "tukey-exponential": _tukey("tukey"),
    "tukey-directional": _tukey("directional"),
    "generic-em": _GenericEM,
    "margin-practical": _margin,
    "logistic (non-private)": _Logistic,
}
if HAVE_DIFFPRIVLIB:
    ARMS["diffprivlib-LR"] = _DiffprivlibLR
PRIVATE_EPS = {"logistic (non-private)": ("",)}


# --------------------------------------------------------------------------------------- data
def _to_grid(X, low, high, B):
    """The public affine map from ``[low, high]`` (per column) to the integer grid ``[[-B, B]]``."""
    Z = np.rint((np.clip(X, low, high) - low) / (high - low) * 2 * B - B)
    return Z.astype(np.int64)


def synthetic(d, B, margin, n, seed):
    target = grid_halfspace_target(d, B, rng=seed)
    train = make_grid_halfspace_data(n, d, B, margin=margin, target=target, rng=seed + 1)
    test = make_grid_halfspace_data(2000, d, B, margin=margin, target=target, rng=seed + 10**6)
    return train.X, train.y, test.X, test.y


def breast_cancer(features, B, seed):
    ds = load_breast_cancer_features(features)
    low = np.array([BREAST_CANCER_BOUNDS[f][0] for f in features])
    high = np.array([BREAST_CANCER_BOUNDS[f][1] for f in features])
    Xtr, Xte, ytr, yte = ds.split(0.25, rng=seed)
    return _to_grid(Xtr, low, high, B), ytr, _to_grid(Xte, low, high, B), yte


def digits_3v8(B, seed):
    raw = load_digits()
    keep = (raw.target == 3) | (raw.target == 8)
    img = raw.data[keep].reshape(-1, 2, 4, 2, 4).sum(axis=(2, 4)).reshape(-1, 4)  # 2 x 2 blocks of 4 x 4 pixels
    y = (raw.target[keep] == 8).astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    cut = len(y) // 4
    test, train = order[:cut], order[cut:]
    Z = _to_grid(img, 0.0, 256.0, B)
    return Z[train], y[train], Z[test], y[test]


# --------------------------------------------------------------------------------------- run
class FitTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise FitTimeout


def fit_and_score(arm, factory, eps, B, d, seed, X, y, Xt, yt, timeout):
    """Test error and fit time, or a note: a refusal's first line, or a fit stopped after ``timeout`` s."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(math.ceil(timeout)))
    try:
        est = factory(eps if eps != "" else 1.0, B, d, seed)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y)
        secs = time.perf_counter() - t0
    except (PrivpacError, NotImplementedError) as exc:
        return None, None, f"refused: {str(exc).splitlines()[0][:160]}"
    except FitTimeout:
        return None, timeout, f"stopped after {timeout:.0f} s"
    finally:
        signal.alarm(0)
    return float(np.mean(est.predict(Xt) != yt)), secs, ""


def settings(quick):
    dims = (1, 2, 3) if quick else (1, 2, 3, 5)
    bounds = (2**7,) if quick else (2**7, 2**15)
    margins = (0.0, 0.1)
    ns = (100, 1000, 10000) if quick else (100, 300, 1000, 3000, 10000, 30000)
    out = []
    for d in dims:
        for B in bounds:
            for margin in margins:
                make = lambda n, s, d=d, B=B, m=margin: synthetic(d, B, m, n, s)  # noqa: E731
                out.append((f"grid d={d} B={B} margin={margin}", d, B, ns, make))
    real_B = 128
    out.append(("breast cancer d=1", 1, real_B, (None,), lambda n, s: breast_cancer(["mean radius"], real_B, s)))
    out.append(("breast cancer d=2", 2, real_B, (None,),
                lambda n, s: breast_cancer(["mean radius", "mean texture"], real_B, s)))  # fmt: skip
    out.append(("digits 3v8 d=4", 4, real_B, (None,), lambda n, s: digits_3v8(real_B, s)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--eps", type=float, nargs="+", default=[1.0, 0.1])
    ap.add_argument("--budget", type=float, default=60.0, help="seconds a fit may take (larger n then skipped)")
    ap.add_argument("--arms", nargs="+", default=None, help="subset of arms")
    ap.add_argument("--out", default=str(RESULTS / "halfspaces.csv"))
    ap.add_argument(
        "--merge", action="store_true", help="keep the rows of the other arms already in --out (rerun some arms only)"
    )
    args = ap.parse_args()
    seeds = args.seeds or (2 if args.quick else 3)
    arms = {k: v for k, v in ARMS.items() if args.arms is None or k in args.arms}
    rows = []
    jobs = [(s, arm, eps) for s in settings(args.quick) for arm in arms for eps in PRIVATE_EPS.get(arm, args.eps)]
    too_slow: set = set()
    for (name, d, B, ns, make), arm, eps in tqdm(jobs, desc="halfspaces"):
        for n in ns:
            key = (name, arm, eps)
            for seed in range(seeds):
                X, y, Xt, yt = make(n, seed)
                base = dict(setting=name, d=d, B=B, n=len(y), arm=arm, epsilon=eps, seed=seed)
                if key in too_slow:
                    note = "skipped: a smaller n took a quarter of the time budget or more"
                    rows.append(base | dict(test_error="", fit_seconds="", note=note))
                    continue
                err, secs, note = fit_and_score(arm, arms[arm], eps, B, d, seed, X, y, Xt, yt, args.budget)
                rows.append(base | dict(test_error="" if err is None else round(err, 5),
                                        fit_seconds="" if secs is None else round(secs, 4), note=note))  # fmt: skip
                if secs is not None and secs >= args.budget / 4:  # the next n (3x larger or more) would not finish
                    too_slow.add(key)
                if note.startswith("refused"):
                    break
            if rows[-1]["note"].startswith("refused"):
                break
    if args.merge and Path(args.out).exists():
        with Path(args.out).open(newline="") as f:
            kept = [r for r in csv.DictReader(f) if r["arm"] not in arms]
        for r in kept:  # the numbers as the fresh rows hold them, for the summary
            r.update(d=int(r["d"]), B=int(r["B"]), n=int(r["n"]), seed=int(r["seed"]),
                     epsilon=float(r["epsilon"]) if r["epsilon"] else "",
                     test_error=float(r["test_error"]) if r["test_error"] else "",
                     fit_seconds=float(r["fit_seconds"]) if r["fit_seconds"] else "")  # fmt: skip
        rows = kept + rows
    write(rows, Path(args.out))


def write(rows, out: Path):
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    groups = defaultdict(list)
    for r in rows:
        groups[(r["setting"], r["arm"], r["epsilon"], r["n"])].append(r)
    summary = []
    order = sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], str(kv[0][2]), kv[0][3]))
    for (setting, arm, eps, n), rs in order:
        errs = [r["test_error"] for r in rs if r["test_error"] != ""]
        secs = [r["fit_seconds"] for r in rs if r["fit_seconds"] != ""]
        summary.append(dict(setting=setting, arm=arm, epsilon=eps, n=n,
                            mean_test_error=round(float(np.mean(errs)), 4) if errs else "",
                            mean_fit_seconds=round(float(np.mean(secs)), 3) if secs else "",
                            note=rs[0]["note"]))  # fmt: skip
    with (out.parent / (out.stem + "_summary.csv")).open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary[0]))
        w.writeheader()
        w.writerows(summary)
    plot(summary, out.parent / (out.stem + "_error_vs_n.png"))


def plot(summary, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    settings_ = sorted({r["setting"] for r in summary if r["setting"].startswith("grid") and "B=128" in r["setting"]})
    if not settings_:
        return
    cols = 2
    rows_ = (len(settings_) + 1) // 2
    fig, axes = plt.subplots(rows_, cols, figsize=(11, 3.2 * rows_), squeeze=False)
    arms = sorted({r["arm"] for r in summary})
    colour = {arm: plt.get_cmap("tab10")(i % 10) for i, arm in enumerate(arms)}
    for ax, setting in zip(axes.ravel(), settings_):
        for arm in arms:
            for eps in sorted({str(r["epsilon"]) for r in summary if r["arm"] == arm}):
                pts = [(r["n"], r["mean_test_error"]) for r in summary
                       if r["setting"] == setting and r["arm"] == arm and str(r["epsilon"]) == eps
                       and r["mean_test_error"] != ""]  # fmt: skip
                if pts:
                    pts.sort()
                    label = arm if eps == "" else f"{arm} eps={eps}"
                    style = "--" if eps == "0.1" else "-"
                    ax.plot(*zip(*pts), marker="o", ms=3, label=label, ls=style, color=colour[arm])
        ax.set_xscale("log")
        ax.set_ylim(0, 0.6)
        ax.axhline(TARGET_ERROR, color="grey", lw=0.5)
        ax.set_title(setting, fontsize=9)
        ax.set_xlabel("n (training records)")
        ax.set_ylabel("test error")
    for ax in axes.ravel()[len(settings_) :]:
        ax.axis("off")
    axes[0, 0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
