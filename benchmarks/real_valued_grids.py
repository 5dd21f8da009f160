"""Real-valued data on the exact geometric learners: what the public grid's resolution costs.

    python benchmarks/real_valued_grids.py   # writes benchmarks/results/real_valued_grids.csv

A real feature on a public ``Grid(low, high, n_points)`` runs on the grid's integer lattice
``[-B, B]^d`` (:class:`privpac.domains.Lattice`); a finer grid is a larger ``B``, so larger candidate
sets and more noise in the private choice, against a smaller rounding of the records. Data:
scikit-learn's breast cancer (569 records), with the public bounds of
``privpac.datasets.BREAST_CANCER_BOUNDS`` (written from what each feature measures, not from the
data). Rows:

* ``classifier``: one feature, mean radius on ``[0, 40]``, label 1 = malignant; 20 stratified 75/25
  splits (seeds 0..19); LearnHalfSpace in Tukey depth (``PrivateTukeyHalfspaceClassifier``) and the
  linear-feasibility learner (``PrivateFeasibilityHalfspaceClassifier``) at epsilon = 1, against the
  best non-private threshold of the training split. Mean and lowest test accuracy, median fit time.
* ``center``: mean radius and mean texture on ``[0, 40] x [0, 50]``, ``PrivateCenterPoint`` at
  epsilon = 1, 10 seeds on all records: the Tukey depth of the released center among the gridded
  records as a fraction of ``n`` (FindTukey's guarantee is ``1/(2(d+1)) = 1/6`` at its sufficient
  size; whether the fit warned that ``n`` is below it), median fit time.
* ``map``: the per-record lattice map alone on 10^6 records of 3 features (median of 5 runs).

One core of a shared machine: compare timings within one run only.
"""

from __future__ import annotations

import time
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import StratifiedShuffleSplit

from _results import write_csv
from privpac.datasets import BREAST_CANCER_BOUNDS
from privpac.domains import Grid
from privpac.errors import UtilityWarning
from privpac.estimators import (
    PrivateCenterPoint,
    PrivateFeasibilityHalfspaceClassifier,
    PrivateTukeyHalfspaceClassifier,
)
from privpac.geometry import tukey_depth

OUT = Path(__file__).parent / "results" / "real_valued_grids.csv"
CLASSIFIER_POINTS = (11, 21, 41, 81, 161, 321, 641)
CENTER_POINTS = (11, 21, 41, 81)
SPLITS, SEEDS, EPSILON = 20, 10, 1.0


def _columns(names):
    data = load_breast_cancer()
    index = [list(data.feature_names).index(n) for n in names]
    return data.data[:, index], (data.target == 0).astype(np.int64)


def _best_threshold_accuracy(x_train, y_train, x_test, y_test) -> float:
    """The non-private stump: the best threshold (either orientation) on the training split."""
    cuts = np.unique(x_train)
    best, rule = -1.0, None
    for cut in cuts:
        for sign in (1, -1):
            acc = np.mean(((sign * (x_train - cut)) >= 0) == y_train)
            if acc > best:
                best, rule = acc, (cut, sign)
    cut, sign = rule
    return float(np.mean(((sign * (x_test - cut)) >= 0) == y_test))


def classifier_rows() -> list[dict]:
    X, y = _columns(["mean radius"])
    low, high = BREAST_CANCER_BOUNDS["mean radius"]
    splits = list(StratifiedShuffleSplit(SPLITS, test_size=0.25, random_state=0).split(X, y))
    stump = [_best_threshold_accuracy(X[tr, 0], y[tr], X[te, 0], y[te]) for tr, te in splits]
    rows = [{"part": "classifier", "learner": "non-private best threshold", "n_points": "", "B": "",
             "mean": np.mean(stump), "low": np.min(stump), "warned": "", "median_s": ""}]  # fmt: skip
    for cls, kw in ((PrivateTukeyHalfspaceClassifier, {}), (PrivateFeasibilityHalfspaceClassifier, {})):
        for n_points in CLASSIFIER_POINTS:
            grid = Grid(low, high, n_points)
            accs, times = [], []
            for seed, (tr, te) in enumerate(splits):
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UtilityWarning)
                    est = cls(epsilon=EPSILON, domain=grid, random_state=seed, **kw).fit(X[tr], y[tr])
                times.append(time.perf_counter() - t0)
                accs.append(est.score(X[te], y[te]))
            rows.append({"part": "classifier", "learner": cls.__name__, "n_points": n_points,
                         "B": grid.lattice().B, "mean": np.mean(accs), "low": np.min(accs), "warned": "",
                         "median_s": np.median(times)})  # fmt: skip
            print(rows[-1], flush=True)
    return rows


def center_rows() -> list[dict]:
    names = ["mean radius", "mean texture"]
    X, _ = _columns(names)
    low = [BREAST_CANCER_BOUNDS[n][0] for n in names]
    high = [BREAST_CANCER_BOUNDS[n][1] for n in names]
    rows = []
    for n_points in CENTER_POINTS:
        lattice = Grid(low, high, n_points).lattice()
        K = lattice.to_lattice(X)
        depths, times, warned = [], [], False
        for seed in range(SEEDS):
            t0 = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UtilityWarning)
                est = PrivateCenterPoint(epsilon=EPSILON, domain=lattice.grid, random_state=seed).fit(X)
            times.append(time.perf_counter() - t0)
            warned = warned or any(issubclass(w.category, UtilityWarning) for w in caught)
            k = [(x - c) / s for x, c, s in zip(est.center_, lattice.centre, lattice.scale)]  # back to the lattice
            assert all(isinstance(v, Fraction) for v in k)
            depths.append(tukey_depth(tuple(k), K) / len(K))
        rows.append({"part": "center", "learner": "PrivateCenterPoint", "n_points": n_points, "B": lattice.B,
                     "mean": np.mean(depths), "low": np.min(depths), "warned": warned,
                     "median_s": np.median(times)})  # fmt: skip
        print(rows[-1], flush=True)
    return rows


def map_rows() -> list[dict]:
    rng = np.random.default_rng(0)
    lattice = Grid([0.0, -1.0, 10.0], [1.0, 1.0, 20.0], [1001, 64, 2**16]).lattice()
    X = rng.uniform(lattice.grid.low, lattice.grid.high, size=(10**6, 3))
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        lattice.to_lattice(X)
        times.append(time.perf_counter() - t0)
    return [{"part": "map", "learner": "Lattice.to_lattice, 10^6 x 3", "n_points": "1001, 64, 65536",
             "B": lattice.B, "mean": "", "low": "", "warned": "", "median_s": np.median(times)}]  # fmt: skip


def main() -> None:
    rows = classifier_rows() + center_rows() + map_rows()
    for row in rows:
        for key in ("mean", "low", "median_s"):
            if isinstance(row[key], float):
                row[key] = round(row[key], 4)
    write_csv(OUT, rows, comment="python benchmarks/real_valued_grids.py (breast cancer, epsilon = 1)")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
