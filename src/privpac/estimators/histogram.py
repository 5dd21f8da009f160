"""A private histogram on public bins: the Laplace baseline for point and range queries.

Each record falls in exactly one of ``n_bins`` public bins (the domain's points split into
``n_bins`` consecutive runs of nearly equal length). Replacing one record moves one unit from one
bin to another, so the count vector has L1-sensitivity 2 (Beimel, Nissim, Stemmer, section 5.3):
the release adds independent discrete Laplace noise of scale ``2/epsilon`` to every bin, and is
(epsilon, 0)-DP (Laplace mechanism, Thm 2.24).

Everything else is post-processing of the noisy counts and the public ``n`` (replace-one
neighbours), so it costs no privacy: the consistent counts (non-negative, summing to ``n``), the
frequencies, and the answers to count and range queries.
"""

from __future__ import annotations

import numpy as np

from ..backends import NumpyBackend, backend_for
from ..domains import Grid, IntegerDomain
from ..errors import InvalidParameterError
from ..mechanisms.laplace import laplace_mechanism
from ..sanitizers.queries import index_ranges
from ..validation import check_size
from ._one_d import one_d_values, rows_on_driver
from .base import PrivateEstimatorBase, private_fit

__all__ = ["PrivateHistogram", "bin_starts", "project_to_simplex"]


def bin_starts(size: int, n_bins: int) -> np.ndarray:
    """The first domain index of every bin, and ``size`` last (``n_bins + 1`` int64 values).

    Bin ``j`` holds the indices ``i`` with ``floor(i n_bins / size) = j``, that is
    ``ceil(j size / n_bins) <= i < ceil((j + 1) size / n_bins)``: consecutive runs whose lengths
    differ by at most one (some are empty when ``n_bins > size``). Exact integer arithmetic, public
    inputs only.
    """
    j = np.arange(n_bins + 1, dtype=np.int64)
    q, r = divmod(int(size), int(n_bins))
    return j * q + (j * r + n_bins - 1) // n_bins


def project_to_simplex(values, total: float) -> np.ndarray:
    """The Euclidean projection of ``values`` onto ``{c : c >= 0, sum(c) = total}`` (``total > 0``).

    ``c = max(values - tau, 0)`` with the one shift ``tau`` that makes the sum ``total`` (Duchi,
    Shalev-Shwartz, Singer, Chandra 2008, Fig. 1): the closest non-negative vector of that total in
    least squares, as in the consistency step of Hay, Rastogi, Miklau, Suciu (VLDB 2010).
    """
    v = np.asarray(values, dtype=np.float64)
    u = np.sort(v)[::-1]
    excess = np.cumsum(u) - total
    k = np.arange(1, v.size + 1)
    rho = int(np.flatnonzero(u - excess / k > 0)[-1])
    return np.maximum(v - excess[rho] / (rho + 1), 0.0)


class PrivateHistogram(PrivateEstimatorBase):
    """Noisy counts of a one-dimensional dataset on ``n_bins`` public bins, and the queries they answer.

    The domain's points are split into ``n_bins`` consecutive runs of nearly equal length (see
    :func:`bin_starts`); each run's count gets discrete Laplace noise of scale ``2/epsilon``
    (L1-sensitivity 2 under replace-one neighbours; Beimel, Nissim, Stemmer, section 5.3 and
    Thm 2.24): (epsilon, 0)-DP.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget; the release is (epsilon, 0)-DP.
    delta : float, default=0.0
        Accepted and unused (the release is pure DP).
    domain : IntegerDomain, Grid or tuple
        Public domain of the values (required: never read off the data).
    n_bins : int, default=10
        Number of bins (public).
    constants : {"tuned", "paper"}, default="tuned"
        Accepted for a uniform interface; the histogram has no constants to tune.
    random_state : None, int or RandomSource, default=None
        ``None``: operating-system entropy; an int: a reproducible run (not for releases).
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Attributes
    ----------
    counts_ : ndarray of int64
        The released noisy counts (may be negative; their sum is not ``n``).
    consistent_counts_ : ndarray of float
        The noisy counts made consistent: the closest vector (least squares) of non-negative
        counts summing to the public ``n`` (:func:`project_to_simplex`). Post-processing.
    bin_edges_ : ndarray of float
        ``n_bins + 1`` edges in data units: a value rounds into bin ``j`` when it lies in
        ``[bin_edges_[j], bin_edges_[j + 1])`` (the last bin includes its upper edge).
    n_samples_ : int
        The public number of records.

    Notes
    -----
    Why a projection and not "clip at 0, then rescale to ``n``": the projection lowers every
    count by the same amount ``tau`` (counts below ``tau`` become 0), so large bins keep their
    value, while rescaling shrinks every bin in proportion to its count, by the mass clipping
    added. Both are post-processing and cost no privacy; the projection is the least-squares
    estimate under the consistency constraints (Hay et al. 2010).

    Queries (:meth:`count`, :meth:`answer`, ``privpac query hist.json "x<=5"``) read the
    consistent counts. A query that selects only part of a bin's domain points gets that bin's
    count times the fraction of its points selected (values are taken as spread evenly within a
    bin); :meth:`cut_bins` says which bins a query cuts.
    """

    _fits_on_engines = True

    algorithm_name = "private histogram (discrete Laplace)"

    def __init__(
        self, epsilon=1.0, delta=0.0, domain=None, n_bins=10, constants="tuned", random_state=None, accountant=None
    ):
        self._store_parameters(locals())

    @private_fit
    def fit(self, X, y=None):
        ledger, rng = self._begin_fit()
        X = self._check_features(X, reset=True)
        n_bins = check_size(self.n_bins, "n_bins")
        domain = self.domain_
        size = self._size(domain)
        starts = bin_starts(size, n_bins)

        def bin_counts(X_block, _):  # exact counts over the public bins, block by block
            idx = domain.to_index(one_d_values(X_block), "X")
            bins = np.searchsorted(starts, idx, side="right") - 1
            return np.bincount(bins, minlength=n_bins).astype(np.int64)

        backend = backend_for(X)
        if (rows := rows_on_driver(backend, X)) is not None:  # a small Spark sample: binned on the driver
            X, backend = rows[0], NumpyBackend()
        true_counts = backend.map_merge(bin_counts, lambda parts: np.sum(parts, axis=0), X, None)
        n = int(true_counts.sum())
        if n == 0:
            raise InvalidParameterError("X is empty: at least one record is needed")
        self.counts_ = laplace_mechanism(
            true_counts, 2, ledger.budget_epsilon, ledger=ledger, label="bin counts", rng=rng
        )
        self.bin_edges_ = self._edges(domain, starts)
        self.n_samples_ = n
        self._end_fit(ledger)
        return self

    @staticmethod
    def _size(domain) -> int:
        """The number of domain points (public); refuses domains the histogram does not bin."""
        if isinstance(domain, Grid):
            if domain.dim != 1:
                raise InvalidParameterError("PrivateHistogram needs a one-dimensional domain")
            return int(domain.n_points[0])
        if isinstance(domain, IntegerDomain):
            if domain.size > 2**53:
                raise InvalidParameterError("PrivateHistogram supports integer domains up to 2^53 points")
            return domain.size
        raise InvalidParameterError("PrivateHistogram needs an IntegerDomain or a Grid")

    @staticmethod
    def _edges(domain, starts) -> np.ndarray:
        """Bin edges in data units: half a step below each bin's first point, within the domain's bounds."""
        if isinstance(domain, Grid):
            low, high, step = float(domain.low[0]), float(domain.high[0]), float(domain.step[0])
        else:
            low, high, step = float(domain.lo), float(domain.hi), 1.0
        return np.clip(low + (starts - 0.5) * step, low, high)

    @property
    def consistent_counts_(self) -> np.ndarray:
        """Non-negative counts summing to ``n``, the least-squares projection of ``counts_`` (bins that
        hold no domain point, when ``n_bins`` exceeds the domain size, are 0: a public fact)."""
        self._check_fitted()
        starts, _ = self._bin_points()
        real = np.diff(starts) > 0
        out = np.zeros(len(self.counts_))
        out[real] = project_to_simplex(self.counts_[real], self.n_samples_)
        return out

    def frequencies(self) -> np.ndarray:
        """The consistent counts divided by the (public) dataset size: non-negative, summing to 1."""
        return self.consistent_counts_ / self.n_samples_

    def _bin_points(self) -> tuple[np.ndarray, object]:
        domain = self.domain_
        return bin_starts(self._size(domain), len(self.counts_)), domain

    def _covered(self, query) -> np.ndarray:
        """The number of the domain points a query selects in each bin."""
        starts, domain = self._bin_points()
        covered = np.zeros(len(self.counts_), dtype=np.int64)
        for a, b in index_ranges(domain, query):
            covered += np.maximum(0, np.minimum(b + 1, starts[1:]) - np.maximum(a, starts[:-1]))
        return covered

    def count(self, query) -> float:
        """The number of records matching ``query`` (``"x<=5"``, ``"2<=x<8"``, ``"x==3"``, ``"x in {1, 4}"``),
        from the consistent counts; a bin the query cuts contributes in proportion to its points selected."""
        starts, _ = self._bin_points()
        sizes = np.diff(starts)
        share = np.divide(self._covered(query), sizes, out=np.zeros(len(sizes)), where=sizes > 0)
        return float(share @ self.consistent_counts_)

    def answer(self, query) -> float:
        """The fraction of records matching ``query`` (as the sanitizers' ``answer``): :meth:`count` over ``n``."""
        return self.count(query) / self.n_samples_

    def cut_bins(self, query) -> list[tuple[str, int, int]]:
        """The bins ``query`` selects only partly: ``(bin in data units, points selected, points in the bin)``."""
        starts, domain = self._bin_points()
        sizes = np.diff(starts)
        covered = self._covered(query)
        cut = np.flatnonzero((covered > 0) & (covered < sizes))
        return [(_bin_text(domain, starts, j), int(covered[j]), int(sizes[j])) for j in cut]

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
        lines = [
            f"{self.algorithm_name}: {len(self.counts_)} bins, n = {self.n_samples_}",
            "  bin: noisy count -> consistent count (non-negative, summing to n: post-processing)",
        ]
        starts, domain = self._bin_points()
        for j, (raw, fixed) in enumerate(zip(self.counts_, self.consistent_counts_)):
            if starts[j + 1] > starts[j]:  # bins without a domain point (n_bins > |X|) are always empty
                lines.append(f"  {_bin_text(domain, starts, j)}: {int(raw)} -> {fixed:.1f}")
        return lines


def _bin_text(domain, starts, j: int) -> str:
    """Bin ``j`` as the closed range of its first and last domain values."""
    first, last = int(starts[j]), int(starts[j + 1]) - 1
    if isinstance(domain, IntegerDomain):
        return f"[{domain.lo + first}, {domain.lo + last}]"
    return f"[{float(domain.from_index(first)):.6g}, {float(domain.from_index(last)):.6g}]"
