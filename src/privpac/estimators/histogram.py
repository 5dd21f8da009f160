"""A private histogram on public bins: the Laplace baseline for point and range queries.

Each record falls in exactly one of ``n_bins`` public bins (equal-width bins of the declared
domain). Replacing one record moves one unit from one bin to another, so the count vector has
L1-sensitivity 2 (Beimel, Nissim, Stemmer, section 5.3): the release adds independent discrete
Laplace noise of scale ``2/epsilon`` to every bin, and is (epsilon, 0)-DP (Laplace mechanism,
Thm 2.24). Clipping the noisy counts at zero is post-processing.
"""

from __future__ import annotations

import numpy as np

from ..backends import backend_for
from ..domains import Grid, IntegerDomain
from ..errors import InvalidParameterError
from ..mechanisms.laplace import laplace_mechanism
from ..validation import check_size
from ._one_d import one_d_values
from .base import PrivateEstimatorBase, private_fit

__all__ = ["PrivateHistogram"]


class PrivateHistogram(PrivateEstimatorBase):
    """Noisy counts of a one-dimensional dataset on ``n_bins`` equal-width public bins.

    Parameters
    ----------
    epsilon : float
        Privacy budget; the release is (epsilon, 0)-DP (``delta`` is accepted and unused).
    domain : IntegerDomain, Grid or tuple
        Public domain of the values. Bins split it into ``n_bins`` equal parts.
    n_bins : int
        Number of bins (public).
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Attributes
    ----------
    counts_ : ndarray of int64
        Noisy counts (may be negative).
    bin_edges_ : ndarray of float
        ``n_bins + 1`` edges in data units.
    """

    _fits_on_engines = True

    algorithm_name = "private histogram (discrete Laplace)"

    def __init__(
        self, epsilon=1.0, delta=0.0, domain=None, n_bins=10, constants="tuned", random_state=None, accountant=None
    ):
        super().__init__(epsilon, delta, domain, constants, random_state, accountant=accountant)
        self.n_bins = n_bins

    @private_fit
    def fit(self, X, y=None):
        ledger, rng = self._begin_fit()
        X = self._check_features(X, reset=True)
        n_bins = check_size(self.n_bins, "n_bins")
        domain = self.domain_
        if isinstance(domain, Grid):
            if domain.dim != 1:
                raise InvalidParameterError("PrivateHistogram needs a one-dimensional domain")
            size = int(domain.n_points[0])
            lo, hi = float(domain.low[0]), float(domain.high[0])
        elif isinstance(domain, IntegerDomain):
            if domain.size > 2**53:
                raise InvalidParameterError("PrivateHistogram supports integer domains up to 2^53 points")
            size = domain.size
            lo, hi = float(domain.lo), float(domain.hi)
        else:
            raise InvalidParameterError("PrivateHistogram needs an IntegerDomain or a Grid")

        def bin_counts(X_block, _):  # exact counts over the public bins, block by block
            idx = domain.to_index(one_d_values(X_block), "X").astype(np.float64)
            bins = np.minimum((idx * n_bins // size).astype(np.int64), n_bins - 1)
            return np.bincount(bins, minlength=n_bins).astype(np.int64)

        true_counts = backend_for(X).map_merge(bin_counts, lambda parts: np.sum(parts, axis=0), X, None)
        n = int(true_counts.sum())
        if n == 0:
            raise InvalidParameterError("X is empty: at least one record is needed")
        self.counts_ = laplace_mechanism(
            true_counts, 2, ledger.budget_epsilon, ledger=ledger, label="bin counts", rng=rng
        )
        self.bin_edges_ = np.linspace(lo, hi, n_bins + 1)
        self.n_samples_ = n
        self._end_fit(ledger)
        return self

    def frequencies(self) -> np.ndarray:
        """Noisy counts clipped at zero and divided by the (public) dataset size."""
        self._check_fitted()
        return np.clip(self.counts_, 0, None) / self.n_samples_

    def _fitted_state(self) -> dict:
        return {
            "counts": self.counts_.tolist(),
            "bin_edges": self.bin_edges_.tolist(),
            "n_samples": self.n_samples_,
        }

    def _restore_state(self, state: dict) -> None:
        self.counts_ = np.asarray(state["counts"], dtype=np.int64)
        self.bin_edges_ = np.asarray(state["bin_edges"], dtype=float)
        self.n_samples_ = int(state["n_samples"])

    def summary(self) -> list[str]:
        self._check_fitted()
        lines = [f"{self.algorithm_name}: {len(self.counts_)} bins, n = {self.n_samples_}"]
        for lo, hi, c in zip(self.bin_edges_[:-1], self.bin_edges_[1:], self.counts_):
            lines.append(f"  [{lo:.6g}, {hi:.6g}): {int(c)}")
        return lines
