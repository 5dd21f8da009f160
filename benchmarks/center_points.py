"""Center points: FindTukey against a private median per coordinate, baseline B1 and the Tukey median.

Beimel, Moran, Nissim, Stemmer (COLT 2019) run no experiments; this benchmark follows spec
``bmns-center-points`` (B1-B3) and the issue's done criterion.

Arms
----
* ``findtukey-exponential``: ``PrivateCenterPoint`` defaults (spec B3: the exponential mechanism per
  coordinate, basic composition, pure epsilon-DP);
* ``findtukey-recconcave``: the same with RecConcave per coordinate (Fig. 1), ``delta = 1e-6``;
* ``coordinate-median``: :func:`privpac.estimators.median.coordinatewise_median`, a
  private median per coordinate (budget split evenly, pure epsilon-DP): the answer users reach for;
* ``one-shot-B1``: :func:`~privpac.learners.center_point_baselines.one_shot_center_point` (toy grid only);
* ``tukey-median``: non-private, the exact largest depth (the number of nested depth regions) for
  ``n <= 10,000`` in ``d = 2``, every ``n`` in ``d = 1`` and ``d = 3`` (over ``U(S ∪ E)``), else the
  deepest data point.

Dimensions: ``d = 1``; ``d = 2`` up to ``n = 10^4`` (beyond it the exact regions on ``[-5, 5]^2`` are
refused before the data is read); ``d = 3`` at ``n = 25, 50, 100``, up to the exact envelope
``MAX_POINTS_3D = 102``; ``d = 5`` as rows ``refused: <reason>`` for every arm in Tukey depth (FindTukey and the
exact depth stop at ``d = 3``; the median per coordinate runs, but the exact depth of its output
cannot be evaluated, which its rows say). ``--only directional`` (``center_points_directional.csv``):
``d = 4, 5`` with FindTukey in directional depth over the public net of ``{-1, 0, 1}^d``
(``depth="directional"``) against the per-coordinate median, scored by the exact directional depth
over the same net and by exact convex-hull membership (the Tukey depth is not evaluated there).

Data (integer-rounded onto the public box ``[-B, B]^d``, ``B = 5`` unless ``--bound``; clipped):

* ``gaussian``: ``N(0, (B/3)^2 I)``;
* ``thin``: a thin correlated ellipse along the diagonal in two equal groups at its ends (points
  ``(k + e, k - e)``, ``|k|`` the rounding of ``B/2 + N(0, (B/10)^2)`` clipped to ``[2, B]``, half of
  them with ``k < 0``; width ``e`` in ``{-1, 0, 1}`` with probabilities 0.1, 0.8, 0.1 where ``|k| >= 3``):
  each coordinate alone has a flat median over the empty middle, and the pair must stay on the
  diagonal;
* ``simplex``: three equal clusters at the vertices of a triangle (a simplex in ``d = 2``), ``N(0, 1/4)`` each;
* ``collinear``: points on the line ``y = 2x`` (``x`` uniform in ``[-B/2, B/2]``): the hull is a segment.

In ``d = 1`` every kind is the first coordinate of its 2-D version; in ``d = 3`` and ``5`` it is the
2-D version with further independent ``N(0, (B/3)^2)`` coordinates.

``--only solid`` (``center_points_solid.csv``): ``d = 3`` fits of ``PrivateCenterPoint`` (epsilon = 1) by the
certified cutting-plane regions (:mod:`privpac.geometry.solids`) up to ``MAX_POINTS_3D_SOLID = 1,000`` points,
each in a fresh process: CPU seconds (user + sys), peak memory, the exact depth of the output (against
``n/8``) and the number of distinct points, which the time follows.

The learner part (``--only learner``): ``PrivateTukeyHalfspaceClassifier`` (LearnHalfSpace, Fig. 2:
FindTukey in dimension 3 on the chunk halfspaces) at ``d = 2`` on realisable data on the grid
``[[-5, 5]]^2``, test error on 2,000 fresh points against ``n``, with Tukey and directional depth,
against the large-margin learner ``PrivateHalfspaceClassifier`` (public margin 0.1, ``delta = 1e-6``)
and the generic exponential-mechanism learner (B2). Sizes the learner refuses (more chunks than the
exact 3-D envelope) are rows with the reason.

Outputs (``benchmarks/results/``): ``center_points.csv`` (one row per fit: depth, depth / n, the
target ``n/(2(d+1))``, seconds, or the refusal), ``center_points_done.csv`` (the done criterion: thin
2-D data, n = 2,000, epsilon = 1, >= 50 seeds), ``center_points_speed.csv`` (exact 2-D Tukey depth per
query and wall time of a 2-D center point, at B = 3 to 15 for n = 10^3 and 10^4 and at B = 63, 255,
2^15 where the exact regions are not refused), ``center_points_toy.csv`` (B1 on ``[-2, 2]^2``),
``center_points_learner.csv`` (the learner), and PNG plots ``center_points_depth.png``,
``center_points_done.png``, ``center_points_learner.png``. ``--quick`` runs a small grid in minutes
(files with a ``_quick`` suffix); ``--only PART`` runs one part. Wall times are single-process
measurements on a shared machine.

    PYTHONPATH=src python benchmarks/center_points.py            # everything (see docs for the time)
    PYTHONPATH=src python benchmarks/center_points.py --quick    # a few minutes
    PYTHONPATH=src python benchmarks/center_points.py --only speed
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from privpac.datasets import grid_halfspace_target, make_grid_halfspace_data
from privpac.domains import IntegerDomain
from privpac.errors import DataError, PrivpacError, UtilityWarning
from privpac.estimators import PrivateCenterPoint, PrivateHalfspaceClassifier, PrivateTukeyHalfspaceClassifier
from privpac.estimators.median import coordinatewise_median
from privpac.geometry import depth_intervals, directional_depth, tukey_depth
from privpac.geometry.hull_lp import hull_slice_range
from privpac.learners.center_point import MAX_POINTS_2D, MAX_POINTS_3D, net_directions
from privpac.learners.center_point_baselines import ONE_SHOT_WORK_LIMIT, one_shot_center_point
from privpac.learners.halfspace_tukey import generic_halfspace_learner, halfspace_predict
from privpac.plots import _pyplot
from privpac.progress import progress

RESULTS = Path(__file__).parent / "results"
KINDS = ("gaussian", "thin", "simplex", "collinear")
DELTA = 1e-6


def make_data(kind: str, n: int, d: int, B: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` integer points of ``[-B, B]^d`` of the given kind (see the module docstring)."""
    if kind == "gaussian":
        X = rng.normal(0.0, B / 3, size=(n, 2))
    elif kind == "thin":
        sign = rng.permutation(np.repeat([1, -1], [n - n // 2, n // 2]))  # two equal groups
        k = sign * np.clip(np.rint(B / 2 + rng.normal(0.0, B / 10, size=n)), 2, B)
        e = rng.choice([-1, 0, 1], p=[0.1, 0.8, 0.1], size=n) * (np.abs(k) >= 3)  # a thin width
        X = np.column_stack([k + e, k - e])
    elif kind == "simplex":
        verts = np.array([[-0.7, -0.6], [0.7, -0.6], [0.0, 0.7]]) * B
        X = verts[rng.integers(0, 3, size=n)] + rng.normal(0.0, 0.5, size=(n, 2))
    elif kind == "collinear":
        x = rng.integers(-(B // 2), B // 2 + 1, size=n)
        X = np.column_stack([x, np.clip(2 * x, -B, B)])
    else:
        raise ValueError(kind)
    if d >= 3:  # further independent coordinates
        X = np.column_stack([X, rng.normal(0.0, B / 3, size=(n, d - 2))])
    return np.clip(np.rint(X), -B, B).astype(np.int64)[:, :d]


def nonprivate_depth(X: np.ndarray, B: int) -> tuple[int, str]:
    """The Tukey median's depth (exact when affordable) or the deepest data point's."""
    n, d = X.shape
    if d == 3:  # the exact regions over U(S ∪ E), n <= MAX_POINTS_3D
        return len(depth_intervals(X)), "exact maximum"
    if d == 1:
        return len(depth_intervals(X, directions=np.ones((1, 1), dtype=np.int64))), "exact maximum"
    if n <= MAX_POINTS_2D:  # the exact region polygons
        return len(depth_intervals(X)), "exact maximum"
    pts = np.unique(X, axis=0)
    return max(tukey_depth(p, X) for p in pts), "deepest data point"


def _fit(arm: str, X: np.ndarray, B: int, eps: float, seed: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        if arm == "findtukey-exponential":
            return PrivateCenterPoint(epsilon=eps, domain=B, random_state=seed).fit(X).center_
        if arm == "findtukey-recconcave":
            est = PrivateCenterPoint(epsilon=eps, delta=DELTA, domain=B, optimizer="recconcave", random_state=seed)
            return est.fit(X).center_
        if arm == "coordinate-median":
            return coordinatewise_median(X, B, eps, rng=seed)
        if arm == "one-shot-B1":
            return one_shot_center_point(X, B, eps, rng=seed)
    raise ValueError(arm)


def _row(kind, d, n, eps, seed, arm, depth, seconds, B, note=""):
    """One fit's row; ``depth=None`` for a refusal (``note`` says why)."""
    target = n / (2 * (d + 1))
    if depth is None:
        return {"data": kind, "d": d, "B": B, "n": n, "epsilon": eps, "seed": seed, "arm": arm, "depth": "",
                "depth_frac": "", "target_frac": round(1 / (2 * (d + 1)), 5), "reaches_target": "",
                "seconds": "", "note": note}  # fmt: skip
    return {
        "data": kind,
        "d": d,
        "B": B,
        "n": n,
        "epsilon": eps,
        "seed": seed,
        "arm": arm,
        "depth": depth,
        "depth_frac": round(depth / n, 5),
        "target_frac": round(1 / (2 * (d + 1)), 5),
        "reaches_target": int(depth >= target),
        "seconds": round(seconds, 4),
        "note": note,
    }


#: Sizes of the depth grid per dimension (d = 3 up to the exact envelope MAX_POINTS_3D).
GRID_SIZES = {1: (100, 300, 1000, 3000, 10_000, 100_000), 2: (100, 300, 1000, 3000, 10_000), 3: (25, 50, 100)}
QUICK_SIZES = {1: (100, 1000, 10_000), 2: (100, 1000, 10_000), 3: (25, 50)}
#: Dimensions recorded as refusals, at these sizes.
REFUSED_DIMS, REFUSED_SIZES = (5,), (100, 1000)
DEPTH_ARMS = ("findtukey-exponential", "findtukey-recconcave", "coordinate-median")


def _seeds(quick: bool, d: int, n: int) -> int:
    if quick:
        return 2
    if d == 3:
        return 3
    return 5 if n <= 1000 else (3 if n <= 3000 else 2)


def refused_rows(d: int, B: int) -> list[dict]:
    """Every arm at ``d`` in ``REFUSED_DIMS``: a row with the refusal's first line (nothing is skipped silently)."""
    rows = []
    for kind in KINDS:
        for n in REFUSED_SIZES:
            X = make_data(kind, n, d, B, np.random.default_rng([n, d, 0, KINDS.index(kind)]))
            for eps in (0.1, 1.0):
                try:
                    best, how = nonprivate_depth(X, B)
                    rows.append(_row(kind, d, n, eps, 0, "tukey-median", best, 0.0, B, how))
                except PrivpacError as exc:
                    rows.append(_row(kind, d, n, eps, 0, "tukey-median", None, 0.0, B, _refusal(exc)))
                for arm in DEPTH_ARMS:
                    try:
                        center = _fit(arm, X, B, eps, 7)
                    except PrivpacError as exc:
                        rows.append(_row(kind, d, n, eps, 0, arm, None, 0.0, B, _refusal(exc)))
                        continue
                    try:
                        rows.append(_row(kind, d, n, eps, 0, arm, tukey_depth(center, X), 0.0, B))
                    except PrivpacError as exc:  # the fit runs, its exact depth cannot be evaluated
                        rows.append(
                            _row(kind, d, n, eps, 0, arm, None, 0.0, B, f"depth not evaluated, {_refusal(exc)}")
                        )
    for arm in ("tukey-median", *DEPTH_ARMS):  # one line per arm: the reason is the same at every size
        note = next(r["note"] for r in rows if r["arm"] == arm)
        print(f"  d = {d}, {arm}: {note[:150]}")
    return rows


def depth_grid(quick: bool, B: int) -> list[dict]:
    sizes = QUICK_SIZES if quick else GRID_SIZES
    assert max(sizes[3]) <= MAX_POINTS_3D
    tasks = []
    for d in (1, 2, 3):
        for n in sizes[d]:
            for seed in range(_seeds(quick, d, n)):
                for kind in KINDS:
                    tasks.append((kind, d, n, seed))
    rows = []
    for kind, d, n, seed in progress(tasks, desc="center points: depth grid", unit="dataset"):
        X = make_data(kind, n, d, B, np.random.default_rng([n, d, seed, KINDS.index(kind)]))
        t0 = time.perf_counter()
        best, how = nonprivate_depth(X, B)  # the same data at both epsilons
        seconds = time.perf_counter() - t0
        for eps in (0.1, 1.0):
            rows.append(_row(kind, d, n, eps, seed, "tukey-median", best, seconds, B, how))
            for arm in DEPTH_ARMS:
                t0 = time.perf_counter()
                center = _fit(arm, X, B, eps, 1000 * seed + 7)
                seconds_arm = time.perf_counter() - t0
                rows.append(_row(kind, d, n, eps, seed, arm, tukey_depth(center, X), seconds_arm, B))
    for d in REFUSED_DIMS:
        rows.extend(refused_rows(d, B))
    return rows


#: The directional part: dimensions and sizes (FindTukey over the public net of {-1, 0, 1}^d).
DIRECTIONAL_DIMS, DIRECTIONAL_SIZES = (4, 5), (100, 1000, 10_000)


def _in_hull(x, X: np.ndarray) -> int:
    """1 if ``x`` lies in ``conv(X)``, exactly: the certified LP slice of the hull at ``x_(<d)``."""
    span = hull_slice_range(X, np.ones(len(X), dtype=np.int64), list(x[:-1]))
    return int(span is not None and span[0] <= x[-1] <= span[1])


def directional_grid(quick: bool, B: int) -> list[dict]:
    """``d = 4, 5``: FindTukey in directional depth against the per-coordinate median.

    The exact Tukey depth is out of reach in these dimensions (for the fits and for the evaluation),
    so each row reports the directional depth over the same public net (exact), the net's largest
    depth (non-private, exact: the number of non-empty regions), and whether the point lies in the
    convex hull of the data (an exact LP).
    """
    rows = []
    tasks = [
        (kind, d, n, seed)
        for d in DIRECTIONAL_DIMS
        for n in (DIRECTIONAL_SIZES[:2] if quick else DIRECTIONAL_SIZES)
        for seed in range(1 if quick or n >= 10_000 else 2)
        for kind in KINDS
    ]
    for kind, d, n, seed in progress(tasks, desc="center points: directional depth", unit="dataset"):
        X = make_data(kind, n, d, B, np.random.default_rng([n, d, seed, KINDS.index(kind), 5]))
        U = net_directions(d)
        t0 = time.perf_counter()
        best = len(depth_intervals(X, directions=U))
        seconds = time.perf_counter() - t0
        for eps in (0.1, 1.0):
            rows.append(_row(kind, d, n, eps, seed, "net-median (non-private)", best, seconds, B, "directional depth"))
            for arm in ("findtukey-directional", "coordinate-median"):
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UtilityWarning)
                    if arm == "coordinate-median":
                        center = coordinatewise_median(X, B, eps, rng=1000 * seed + 7)
                    else:
                        seed_fit = 1000 * seed + 7
                        est = PrivateCenterPoint(epsilon=eps, domain=B, depth="directional", random_state=seed_fit)
                        center = est.fit(X).center_
                seconds_arm = time.perf_counter() - t0
                row = _row(kind, d, n, eps, seed, arm, directional_depth(center, X, U), seconds_arm, B)
                row["note"] = f"directional depth; in the convex hull: {_in_hull(center, X)}"
                rows.append(row)
    return rows


def toy_grid(quick: bool) -> list[dict]:
    """B1 against FindTukey on [-2, 2]^2 (|V| = 2,225 candidate vertices)."""
    B, rows = 2, []
    sizes = (100, 300) if quick else (100, 300, 800)
    tasks = [(k, n, e, s) for k in KINDS for n in sizes for e in (0.1, 1.0) for s in range(2 if quick else 5)]
    for kind, n, eps, seed in progress(tasks, desc="center points: B1 toy grid", unit="dataset"):
        assert 2225 * n <= ONE_SHOT_WORK_LIMIT
        X = make_data(kind, n, 2, B, np.random.default_rng([n, seed, 99, KINDS.index(kind)]))
        best, how = nonprivate_depth(X, B)
        rows.append(_row(kind, 2, n, eps, seed, "tukey-median", best, 0.0, B, how))
        for arm in ("one-shot-B1", "findtukey-exponential", "coordinate-median"):
            t0 = time.perf_counter()
            center = _fit(arm, X, B, eps, 1000 * seed + 11)
            rows.append(_row(kind, 2, n, eps, seed, arm, tukey_depth(center, X), time.perf_counter() - t0, B))
    return rows


def done_criterion(quick: bool, B: int) -> list[dict]:
    """Thin 2-D data, n = 2,000, epsilon = 1: share of runs reaching depth n/(2(d+1)) = n/6."""
    n, eps, seeds = 2000, 1.0, 20 if quick else 60
    reached = {"findtukey-exponential": [], "coordinate-median": []}
    for seed in progress(range(seeds), desc="center points: done criterion", unit="seed"):
        X = make_data("thin", n, 2, B, np.random.default_rng([7, seed]))
        for arm in reached:
            reached[arm].append(tukey_depth(_fit(arm, X, B, eps, seed), X) >= n / 6)
    return [
        {
            "data": "thin",
            "d": 2,
            "B": B,
            "n": n,
            "epsilon": eps,
            "runs": seeds,
            "arm": arm,
            "runs_reaching_n_over_6": int(sum(hits)),
            "fraction": round(sum(hits) / seeds, 4),
            "criterion_met": int(sum(hits) / seeds >= 0.9),
        }
        for arm, hits in reached.items()
    ]


#: The learner part: d = 2 on the grid [[-5, 5]]^2 (small enough for the generic learner B2).
LEARNER_D, LEARNER_B, LEARNER_TEST = 2, 5, 2000
LEARNER_SIZES, LEARNER_QUICK_SIZES = (100, 300, 1000, 3000, 10_000, 30_000), (100, 1000)
#: Higher dimensions (grid bound per d, kept small: directional depth uses (2B + 1)^d directions).
LEARNER_HIGH = {3: 2, 5: 1}
LEARNER_HIGH_SIZES = (100, 1000, 10_000)
LEARNER_ARMS = ("tukey-exponential", "tukey-directional", "margin-practical", "generic-em")
PUBLIC_MARGIN = 0.1  # the large-margin learner's margin, fixed a priori (never tuned on the data)


class _GenericEM:
    """BMNS baseline B2: the exponential mechanism over one halfspace per labelling of the grid."""

    def __init__(self, eps: float, B: int, seed: int):
        self.eps, self.B, self.seed = eps, B, seed

    def fit(self, X, y):
        self.a, self.w = generic_halfspace_learner(X, y, self.B, self.eps, rng=self.seed)
        return self

    def predict(self, X):
        return halfspace_predict(self.a, self.w, X)


def _learner(arm: str, eps: float, B: int, seed: int):
    domain = IntegerDomain(-B, B)
    if arm in ("tukey-exponential", "tukey-directional"):
        depth = "tukey" if arm == "tukey-exponential" else "directional"
        return PrivateTukeyHalfspaceClassifier(epsilon=eps, domain=domain, depth=depth, random_state=seed)
    if arm == "margin-practical":
        return PrivateHalfspaceClassifier(epsilon=eps, delta=DELTA, domain=domain, margin=PUBLIC_MARGIN,
                                          variant="practical", fit_intercept=True, random_state=seed)  # fmt: skip
    if arm == "generic-em":
        return _GenericEM(eps, B, seed)
    raise ValueError(arm)


def learner_grid(quick: bool) -> list[dict]:
    """Test error against n of ``PrivateTukeyHalfspaceClassifier`` (LearnHalfSpace, Fig. 2) at d = 2
    (and, in the full run, d = 3 on ``[[-2, 2]]^3`` and d = 5 on ``[[-1, 1]]^5``, where only the
    directional depth runs).

    Realisable data: uniform points of ``[[-5, 5]]^2`` labelled by a random grid halfspace, test
    error on 2,000 fresh points of the same law. Against the large-margin learner (public margin
    0.1, ``delta = 1e-6``) and the generic exponential-mechanism learner (B2). A refusal is a row
    with its reason; an arm whose fit took more than a minute is not run at larger ``n`` (a row says so).
    """
    sizes = LEARNER_QUICK_SIZES if quick else LEARNER_SIZES
    tasks = [(LEARNER_D, LEARNER_B, n, seed) for n in sizes for seed in range(1 if quick else 3)]
    if not quick:  # d = 3, 5: Tukey depth and the generic learner are refused (rows say so)
        tasks += [(d, B, n, seed) for d, B in LEARNER_HIGH.items() for n in LEARNER_HIGH_SIZES for seed in range(2)]
    rows, slow = [], set()
    for d, B, n, seed in progress(tasks, desc="center points: learner", unit="dataset"):
        target = grid_halfspace_target(d, B, rng=seed)
        train = make_grid_halfspace_data(n, d, B, target=target, rng=np.random.default_rng([seed, n]))
        test = make_grid_halfspace_data(LEARNER_TEST, d, B, target=target, rng=np.random.default_rng([seed, n, 1]))
        for eps in (0.1, 1.0):
            for arm in LEARNER_ARMS:
                row = {"d": d, "B": B, "n": n, "epsilon": eps, "seed": seed, "arm": arm, "test_error": "",
                       "seconds": "", "note": ""}  # fmt: skip
                if (d, arm, eps) in slow:
                    row["note"] = "not run: a smaller n took more than 60 s"
                    rows.append(row)
                    continue
                t0 = time.perf_counter()
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UtilityWarning)
                        est = _learner(arm, eps, B, 1000 * seed + 5).fit(train.X, train.y)
                except PrivpacError as exc:
                    row["note"] = _refusal(exc)
                    rows.append(row)
                    continue
                seconds = time.perf_counter() - t0
                if seconds > 60:
                    slow.add((d, arm, eps))
                row["test_error"] = round(float(np.mean(est.predict(test.X) != test.y)), 5)
                row["seconds"] = round(seconds, 4)
                rows.append(row)
    return rows


def plot_learner(rows: list[dict], path: Path) -> None:
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    colors = {"tukey-exponential": "tab:blue", "tukey-directional": "tab:cyan", "margin-practical": "tab:green",
              "generic-em": "tab:orange"}  # fmt: skip
    for ax, eps in zip(axes, (0.1, 1.0)):
        for arm, color in colors.items():
            by_n: dict = {}
            for r in rows:
                if r["d"] == LEARNER_D and r["arm"] == arm and r["epsilon"] == eps and r["test_error"] != "":
                    by_n.setdefault(r["n"], []).append(r["test_error"])
            if by_n:
                pts = sorted((n, float(np.mean(v))) for n, v in by_n.items())
                ax.plot(*zip(*pts), color=color, marker="o", ms=3, label=arm)
        ax.set_xscale("log")
        ax.set_xlabel("n")
        ax.set_title(f"realisable halfspace on [[-5, 5]]^2, epsilon = {eps:g}", fontsize=9)
    axes[0].set_ylabel("test error (mean over seeds)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"wrote {path}")


#: Domain bounds of the speed table: small boxes at n = 10^3 and 10^4, large ones where the exact
#: depth regions still fit FINITE_DIRECTION_LIMIT (and where they are refused, with the reason).
SPEED_SMALL_BOUNDS = (3, 5, 7, 15)
SPEED_LARGE_BOUNDS = (63, 255, 2**15)


def _refusal(exc: Exception) -> str:
    return f"refused: {str(exc).splitlines()[0][:200]}"


def speed(quick: bool) -> list[dict]:
    """Exact 2-D Tukey depth per query, and the wall time of one 2-D center point (or its refusal)."""
    rows = []
    rng = np.random.default_rng(3)
    for n in (1000, 10_000):
        X = rng.integers(-15, 16, size=(n, 2))
        queries = [(int(a), int(b)) for a, b in rng.integers(-10, 11, size=(200, 2))]
        tukey_depth(queries[0], X)
        t0 = time.perf_counter()
        for q in queries:
            tukey_depth(q, X)
        rows.append({"what": "tukey_depth per query (d = 2)", "B": 15, "n": n,
                     "seconds": (time.perf_counter() - t0) / 200, "note": ""})  # fmt: skip
    cases = [(B, n) for B in ((3, 5) if quick else SPEED_SMALL_BOUNDS) for n in (1000, 10_000)]
    cases += [(B, n) for B in ((63,) if quick else SPEED_LARGE_BOUNDS) for n in (300, 1000, 10_000)]
    for B, n in cases:
        X = make_data("gaussian", n, 2, B, np.random.default_rng([B, n]))
        t0 = time.perf_counter()
        try:
            _fit("findtukey-exponential", X, B, 1.0, 0)
            seconds, note = time.perf_counter() - t0, ""
        except DataError as exc:  # refused from the public (n, d, B) before the data is read
            seconds, note = float("nan"), _refusal(exc)
        rows.append({"what": "PrivateCenterPoint.fit, exponential (d = 2)", "B": B, "n": n,
                     "seconds": seconds, "note": note})  # fmt: skip
    load = os.getloadavg()[0]  # the machine is shared: say how busy it was
    for row in rows:
        row["seconds"] = round(row["seconds"], 6)
        row["load_average_1min"] = round(load, 2)
        shown = row["note"] or f"{row['seconds']:.4g} s"
        print(f"  {row['what']}: B = {row['B']}, n = {row['n']:,}: {shown}")
    return rows


#: Issue 25: exact Tukey depth on the large grid [-1024, 1024]^2, ``PrivateCenterPoint(epsilon=1.0,
#: delta=1e-6, domain=1024)``, one fit per fresh process (wall time and peak memory of that process).
LARGE_B = 1024
LARGE_SIZES = (2000, 10_000)
LARGE_RUNS = 20


def make_large(kind: str, n: int, seed: int) -> np.ndarray:
    """``ellipse``: a thin ellipse along the diagonal (``(t + w, t - w)``, ``t ~ N(0, (B/3)^2)``,
    ``w ~ N(0, (B/40)^2)``); ``clusters``: the ``thin`` kind above, two clusters at the ends of the
    diagonal, where the private median per coordinate lands in the empty middle, outside the hull."""
    rng = np.random.default_rng([25, seed])
    if kind == "clusters":
        return make_data("thin", n, 2, LARGE_B, rng)
    t, w = rng.normal(0.0, LARGE_B / 3, size=n), rng.normal(0.0, LARGE_B / 40, size=n)
    return np.clip(np.rint(np.column_stack([t + w, t - w])), -LARGE_B, LARGE_B).astype(np.int64)


def one_large_fit(kind: str, n: int, seed: int) -> dict:
    """One fit (run in a fresh process by :func:`large_grid`): seconds, depth reached, peak memory."""
    X = make_large(kind, n, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        t0 = time.perf_counter()
        center = PrivateCenterPoint(epsilon=1.0, delta=DELTA, domain=LARGE_B, random_state=seed).fit(X).center_
        seconds = time.perf_counter() - t0
        median = coordinatewise_median(X, LARGE_B, 1.0, rng=seed)
    return {
        "data": kind, "B": LARGE_B, "n": n, "epsilon": 1.0, "delta": DELTA, "seed": seed,
        "seconds": round(seconds, 3), "depth": tukey_depth(center, X), "target_n_over_6": n / 6,
        "reaches_target": int(tukey_depth(center, X) >= n / 6), "coordinate_median_depth": tukey_depth(median, X),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }  # fmt: skip


def large_grid(quick: bool) -> list[dict]:
    """The ellipse at ``LARGE_SIZES`` and the two clusters at n = 2,000 (``LARGE_RUNS`` runs), each fit in a
    fresh process."""
    jobs = [("ellipse", n, 0) for n in (LARGE_SIZES[:1] if quick else LARGE_SIZES)]
    jobs += [("clusters", 2000, seed) for seed in range(5 if quick else LARGE_RUNS)]
    rows = []
    for kind, n, seed in progress(jobs, desc="center points: large grid", unit="fit"):
        out = subprocess.run(
            [sys.executable, __file__, "--one-fit", f"{kind}:{n}:{seed}"], capture_output=True, text=True, check=True
        )
        row = json.loads(out.stdout.strip().splitlines()[-1])
        row["load_average_1min"] = round(os.getloadavg()[0], 2)
        print(f"  {kind}, n = {n:,}, seed {seed}: {row['seconds']:.1f} s, depth {row['depth']} "
              f"(n/6 = {n / 6:.0f}), median per coordinate {row['coordinate_median_depth']}, "
              f"{row['peak_rss_mb']:.0f} MB")  # fmt: skip
        rows.append(row)
    return rows


#: The d = 3 fits of ``--only solid``: (data, n, B), each in a fresh process (the cutting-plane regions).
SOLID_JOBS = [("gaussian", 1000, 5), ("simplex", 1000, 5), ("gaussian", 300, 1000)]
SOLID_JOBS_QUICK = [("gaussian", 200, 5)]
#: Wall seconds after which a ``--only solid`` fit is stopped and recorded as such (a shared machine).
SOLID_WALL_LIMIT = 1800


def one_solid_fit(kind: str, n: int, B: int, seed: int) -> dict:
    """One ``PrivateCenterPoint`` fit in ``d = 3`` (the exponential optimizer, epsilon = 1): CPU seconds (user + sys of
    this process), peak memory, the exact depth of the output and the number of distinct points."""
    from privpac.geometry.solids import tukey_depth_3d

    X = make_data(kind, n, 3, B, np.random.default_rng(seed))
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        center = PrivateCenterPoint(epsilon=1.0, domain=B, random_state=seed).fit(X).center_
    cpu = time.process_time() - t0
    depth = tukey_depth_3d(center, X)
    return {
        "data": kind, "B": B, "n": n, "distinct_points": int(len(np.unique(X, axis=0))), "epsilon": 1.0,
        "seed": seed, "cpu_seconds": round(cpu, 1), "depth": depth, "target_n_over_8": n / 8,
        "reaches_target": int(depth >= n / 8),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }  # fmt: skip


def solid_grid(quick: bool) -> list[dict]:
    """FindTukey in d = 3 up to the envelope ``MAX_POINTS_3D_SOLID`` (each fit in a fresh process)."""
    rows = []
    for kind, n, B in SOLID_JOBS_QUICK if quick else SOLID_JOBS:
        try:
            out = subprocess.run(
                [sys.executable, __file__, "--one-solid", f"{kind}:{n}:{B}:0"],
                capture_output=True, text=True, check=True, timeout=SOLID_WALL_LIMIT,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            print(f"  d = 3, {kind}, n = {n:,}, B = {B}: stopped after {SOLID_WALL_LIMIT} s wall")
            rows.append({"data": kind, "B": B, "n": n, "cpu_seconds": f"stopped after {SOLID_WALL_LIMIT} s wall"})
            continue
        row = json.loads(out.stdout.strip().splitlines()[-1])
        row["load_average_1min"] = round(os.getloadavg()[0], 2)
        print(f"  d = 3, {kind}, n = {n:,}, B = {B}: {row['cpu_seconds']:.1f} s CPU, depth {row['depth']} "
              f"(n/8 = {n / 8:.0f}), {row['distinct_points']} distinct points, "
              f"{row['peak_rss_mb']:.0f} MB")  # fmt: skip
        rows.append(row)
    return rows


def write(path: Path, rows: list[dict]) -> None:
    fields = list(dict.fromkeys(k for r in rows for k in r))  # rows may lack fields (a stopped fit)
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {path}")


def summarise(rows: list[dict]) -> dict:
    """Mean depth fraction and share reaching the target per (d, data, epsilon, arm, n)."""
    out: dict = {}
    for r in rows:
        if r["depth"] != "":  # refusals carry no depth
            out.setdefault((r["d"], r["data"], r["epsilon"], r["arm"], r["n"]), []).append(r)
    return {
        k: (float(np.mean([r["depth_frac"] for r in v])), float(np.mean([r["reaches_target"] for r in v])))
        for k, v in out.items()
    }


def plot_depth(rows: list[dict], path: Path) -> None:
    plt = _pyplot()
    summary = summarise(rows)
    dims = sorted({r["d"] for r in rows if r["depth"] != ""})
    fig, axes = plt.subplots(2 * len(dims), 4, figsize=(16, 6.5 * len(dims)), squeeze=False, sharey=True)
    styles = {
        "tukey-median": ("k", "-"),
        "findtukey-exponential": ("tab:blue", "-"),
        "findtukey-recconcave": ("tab:purple", "--"),
        "coordinate-median": ("tab:red", "-"),
    }
    for i, d in enumerate(dims):
        for j, eps in enumerate((0.1, 1.0)):
            for c, kind in enumerate(KINDS):
                ax = axes[2 * i + j][c]
                for arm, (color, ls) in styles.items():
                    pts = sorted((k[4], v[0]) for k, v in summary.items() if k[:4] == (d, kind, eps, arm))
                    if pts:
                        ax.plot(*zip(*pts), color=color, ls=ls, marker="o", ms=3, label=arm)
                ax.axhline(1 / (2 * (d + 1)), color="gray", ls=":", label="target n/(2(d+1))")
                ax.set_xscale("log")
                ax.set_title(f"{kind}, d = {d}, epsilon = {eps:g}", fontsize=9)
                ax.set_xlabel("n")
                if c == 0:
                    ax.set_ylabel("depth / n (mean over seeds)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"wrote {path}")


def plot_done(rows: list[dict], path: Path) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.bar([r["arm"] for r in rows], [r["fraction"] for r in rows], color=["tab:blue", "tab:red"])
    ax.axhline(0.9, color="gray", ls=":", label="90%")
    ax.set_ylabel("runs with depth >= n/6")
    ax.set_title(f"thin 2-D data, n = 2,000, epsilon = 1 ({rows[0]['runs']} runs)", fontsize=9)
    ax.set_ylim(0, 1.05)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"wrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small grid (a few minutes)")
    parser.add_argument("--bound", type=int, default=5, help="the public box [-B, B]^d of the depth grid")
    parser.add_argument(
        "--only",
        choices=["speed", "done", "toy", "grid", "learner", "directional", "large", "solid"],
        default=None,
        help="run one part",
    )
    parser.add_argument("--one-fit", default=None, help=argparse.SUPPRESS)  # KIND:N:SEED, for large_grid
    parser.add_argument("--one-solid", default=None, help=argparse.SUPPRESS)  # KIND:N:B:SEED, for solid_grid
    args = parser.parse_args()
    if args.one_solid:
        kind, n, B, seed = args.one_solid.split(":")
        print(json.dumps(one_solid_fit(kind, int(n), int(B), int(seed))))
        return
    if args.one_fit:
        kind, n, seed = args.one_fit.split(":")
        print(json.dumps(one_large_fit(kind, int(n), int(seed))))
        return
    RESULTS.mkdir(exist_ok=True)
    suffix = "_quick" if args.quick else ""
    print(f"center-point benchmark on {platform.machine()}, python {platform.python_version()}, B = {args.bound}")
    if args.only in (None, "speed"):
        write(RESULTS / f"center_points_speed{suffix}.csv", speed(args.quick))
    if args.only in (None, "large"):
        rows = large_grid(args.quick)
        write(RESULTS / f"center_points_large{suffix}.csv", rows)
        clusters = [r for r in rows if r["data"] == "clusters"]
        print(f"  two clusters, n = 2,000: {sum(r['reaches_target'] for r in clusters)}/{len(clusters)} runs reach n/6")
    if args.only in (None, "solid"):
        write(RESULTS / f"center_points_solid{suffix}.csv", solid_grid(args.quick))
    if args.only in (None, "done"):
        done = done_criterion(args.quick, args.bound)
        for r in done:
            print(f"  done criterion, {r['arm']}: {r['runs_reaching_n_over_6']}/{r['runs']} runs reach n/6")
        write(RESULTS / f"center_points_done{suffix}.csv", done)
        plot_done(done, RESULTS / f"center_points_done{suffix}.png")
    if args.only in (None, "toy"):
        write(RESULTS / f"center_points_toy{suffix}.csv", toy_grid(args.quick))
    if args.only in (None, "learner"):
        rows = learner_grid(args.quick)
        write(RESULTS / f"center_points_learner{suffix}.csv", rows)
        plot_learner(rows, RESULTS / f"center_points_learner{suffix}.png")
    if args.only in (None, "directional"):
        rows = directional_grid(args.quick, args.bound)
        write(RESULTS / f"center_points_directional{suffix}.csv", rows)
        summary = {}
        for r in rows:
            summary.setdefault((r["d"], r["n"], r["epsilon"], r["arm"]), []).append(r)
        for (d, n, eps, arm), group in sorted(summary.items()):
            hull = sum("hull: 1" in g["note"] for g in group) if arm != "net-median (non-private)" else "-"
            reach = sum(int(g["reaches_target"]) for g in group)
            print(f"  d={d} n={n} eps={eps} {arm}: {reach}/{len(group)} reach n/(2(d+1)), in hull {hull}")
    if args.only in (None, "grid"):
        rows = depth_grid(args.quick, args.bound)
        write(RESULTS / f"center_points{suffix}.csv", rows)
        plot_depth(rows, RESULTS / f"center_points_depth{suffix}.png")


if __name__ == "__main__":
    main()
