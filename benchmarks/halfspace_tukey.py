"""LearnHalfSpace (Beimel, Moran, Nissim, Stemmer 2019, Fig. 2) against the generic learner (B2).

    python benchmarks/halfspace_tukey.py        # writes benchmarks/results/halfspace_tukey.csv and .png
    python benchmarks/halfspace_tukey.py --d2   # the d = 2 learning curve: benchmarks/results/halfspace_tukey_d2.csv

Data: ``d = 1``, the grid ``{-8, ..., 8}`` (B = 8), records drawn uniformly from the grid, labels
``1[x >= 3]`` (realisable). The test error is exact: the fraction of the 17 grid points the released
classifier labels wrongly (the test distribution is uniform on the grid). Each cell runs ``trials``
seeds and reports the mean and the largest test error and the median fit time (one core; the
machine is shared, so only timings from one run are comparable). Learners: LearnHalfSpace with
FindTukey's exponential mechanism per coordinate in Tukey depth and in directional depth (chunks by
the estimator's default public rule, ``min(m, floor(sqrt(n)))`` below the sufficient size), and
the exponential mechanism over one halfspace per labelling of the grid (B2; 34 hypotheses here).

``--d2``: ``d = 2`` on the grid ``[-5, 5]^2`` (FindTukey in dimension 3 on the chunk points, Tukey depth),
records uniform on the grid, labels ``1[x_1 + 2 x_2 >= 1]`` (realisable), epsilon = 1, three seeds per
size; the test error is exact over the 121 grid points. Chunks by the default public rule (at most
``MAX_POINTS_3D`` chunk points: the chunk points lie in ``[-M_h, M_h]^3`` with ``M_h = 649``, a box above
``SOLID_MEASURED_BOX``). CPU seconds (``time.process_time``) of one fit.
"""

from __future__ import annotations

import csv
import time
import warnings
from pathlib import Path

import numpy as np

from privpac.errors import UtilityWarning
from privpac.learners.halfspace_tukey import generic_halfspace_learner, halfspace_predict, learn_halfspace

OUT = Path(__file__).parent / "results" / "halfspace_tukey.csv"
PNG = Path(__file__).parent / "results" / "halfspace_tukey.png"
B, CUT, TRIALS = 8, 3, 10
NS = (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000)


def _fit(learner: str, x, y, eps: float, seed: int):
    if learner == "generic (B2)":
        a, w = generic_halfspace_learner(x, y, B, eps, rng=seed)
        return a, w, None
    depth = "tukey" if "Tukey" in learner else "directional"
    res = learn_halfspace(x, y, B, eps, depth=depth, rng=seed)
    return res.a, res.w, res.plan.n_chunks


def main() -> None:
    grid = np.arange(-B, B + 1)[:, None]
    truth = (grid[:, 0] >= CUT).astype(int)
    rows = []
    for eps in (1.0, 0.1):
        for n in NS:
            for learner in ("LearnHalfSpace (Tukey depth)", "LearnHalfSpace (directional depth)", "generic (B2)"):
                errs, times, chunks = [], [], None
                for seed in range(TRIALS):
                    gen = np.random.default_rng(1000 * seed + n)
                    x = gen.integers(-B, B + 1, size=(n, 1))
                    y = (x[:, 0] >= CUT).astype(int)
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UtilityWarning)
                        a, w, chunks = _fit(learner, x, y, eps, seed)
                    times.append(time.perf_counter() - t0)
                    errs.append(float(np.mean(halfspace_predict(a, w, grid) != truth)))
                rows.append(
                    {
                        "epsilon": eps,
                        "n": n,
                        "learner": learner,
                        "chunks": "" if chunks is None else chunks,
                        "test_error_mean": round(float(np.mean(errs)), 4),
                        "test_error_max": round(max(errs), 4),
                        "fit_seconds_median": round(float(np.median(times)), 4),
                    }
                )
                print(rows[-1])
    OUT.parent.mkdir(exist_ok=True)
    with OUT.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, eps in zip(axes, (1.0, 0.1), strict=True):
        for learner in ("LearnHalfSpace (Tukey depth)", "LearnHalfSpace (directional depth)", "generic (B2)"):
            pts = [(r["n"], r["test_error_mean"]) for r in rows if r["epsilon"] == eps and r["learner"] == learner]
            ax.plot(*zip(*pts, strict=True), marker="o", label=learner)
        ax.set_xscale("log")
        ax.set_xlabel("n (records)")
        ax.set_title(f"d = 1, grid [-{B}, {B}], epsilon = {eps:g}")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"mean test error ({TRIALS} seeds, uniform on the grid)")
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(PNG, dpi=110)
    print(f"wrote {OUT} and {PNG}")


D2_B, D2_NS, D2_SEEDS = 5, (1_000, 3_000, 10_000, 30_000, 100_000), 3
OUT_D2 = Path(__file__).parent / "results" / "halfspace_tukey_d2.csv"


def main_d2() -> None:
    g = np.arange(-D2_B, D2_B + 1)
    grid = np.array([(u, v) for u in g for v in g])
    label = lambda pts: (pts[:, 0] + 2 * pts[:, 1] >= 1).astype(int)  # noqa: E731
    cells = [(n, None) for n in D2_NS]
    rows = []
    for n, n_chunks in cells:
        errs, cpu, used = [], [], None
        for seed in range(D2_SEEDS):
            gen = np.random.default_rng(1000 * seed + n)
            x = gen.integers(-D2_B, D2_B + 1, size=(n, 2))
            t0 = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UtilityWarning)
                res = learn_halfspace(x, label(x), D2_B, 1.0, n_chunks=n_chunks, rng=seed)
            cpu.append(time.process_time() - t0)
            used = res.plan.n_chunks
            errs.append(float(np.mean(halfspace_predict(res.a, res.w, grid) != label(grid))))
        rows.append(
            {
                "n": n,
                "chunks": used,
                "test_error_mean": round(float(np.mean(errs)), 4),
                "test_error_max": round(max(errs), 4),
                "fit_cpu_seconds_median": round(float(np.median(cpu)), 3),
            }
        )
        print(rows[-1], flush=True)
    with OUT_D2.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {OUT_D2}")


if __name__ == "__main__":
    import sys

    main_d2() if "--d2" in sys.argv[1:] else main()
