"""``privpac demo``: the main job on a real bundled dataset, private beside non-private."""

from __future__ import annotations

import numpy as np

from .accounting import PrivacyLedger
from .datasets import load_breast_cancer_feature
from .estimators import PrivateHistogram
from .optimize import ExponentialInteriorPoint
from .random import as_random_source


def run_demo(epsilon: float = 1.0, delta: float = 1e-6, seed: int | None = None, echo=print) -> dict:
    """Private histogram and private median of one breast-cancer feature, with the ledger."""
    data = load_breast_cancer_feature("mean radius", n_points=4001)
    grid = data.domain
    rng = as_random_source(seed)
    echo(f"data: {data.description}")
    echo(f"records: {len(data.y)} (the count is public: neighbouring datasets replace one record)")
    echo(f"budget: epsilon={epsilon}, delta={delta}; half for the histogram, half for the median")
    echo("")

    hist = PrivateHistogram(epsilon=epsilon / 2, domain=grid, n_bins=8, random_state=rng.spawn()).fit(data.X)
    true_counts, _ = np.histogram(data.X, bins=hist.bin_edges_)
    echo("histogram of mean radius (8 public bins)")
    echo(f"  {'bin':>16}  {'private':>8}  {'true':>6}")
    for lo, hi, c, t in zip(hist.bin_edges_[:-1], hist.bin_edges_[1:], hist.counts_, true_counts):
        echo(f"  [{lo:5.1f}, {hi:5.1f})  {int(c):8d}  {int(t):6d}")
    echo("")

    ledger = PrivacyLedger(epsilon / 2, 0.0, label="private median")
    idx = grid.to_index(data.X)
    point = ExponentialInteriorPoint()(idx, 0, grid.max_index, epsilon / 2, rng=rng.spawn(), ledger=ledger)
    private_median = float(grid.from_index(point))
    true_median = float(np.median(data.X))
    rank = float(np.mean(data.X <= private_median))
    echo("median of mean radius (exponential mechanism over the 4001 grid points)")
    echo(
        f"  private: {private_median:.3f}   non-private: {true_median:.3f}   "
        f"(the private value sits at the {100 * rank:.1f}th percentile)"
    )
    echo("")

    echo("privacy ledger")
    for line in hist.ledger_.lines()[:-1] + ledger.lines()[:-1]:
        echo(f"  {line}")
    total_eps = hist.privacy_spent_[0] + ledger.spent[0]
    echo(f"  total: epsilon={total_eps:.6g}, delta=0 (pure differential privacy)")
    return {
        "private_counts": hist.counts_.tolist(),
        "true_counts": true_counts.tolist(),
        "private_median": private_median,
        "true_median": true_median,
        "epsilon_spent": total_eps,
    }
