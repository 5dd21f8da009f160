"""Pure-DP baselines for the sanitizers: a Laplace histogram and a binary-tree CDF.

Neither is in Beimel, Nissim and Stemmer; they are the simple pure-DP sanitizers their
approximate-DP sanitizers are measured against (``benchmarks/sanitizers.py``), and they show the
``log |X|`` cost of pure privacy (section 4.4, Thm 2.19) that SanPoints and SanThresholds avoid.

* :class:`LaplaceHistogram` answers point queries: every domain point ``x`` gets
  ``#x + Z_x`` with ``Z_x`` discrete Laplace of scale ``2/epsilon`` (a replaced record moves two
  bins by one: L1-sensitivity 2). (epsilon, 0)-DP. The maximum error over all points grows like
  ``2 ln(|X|)/(epsilon m)``.
* :class:`TreeCDF` answers threshold (CDF) and range queries: the dyadic intervals of the domain
  form a binary tree with ``L + 1`` levels (``L = ceil(log2 |X|)``); every node gets its count
  plus discrete Laplace of scale ``2(L + 1)/epsilon`` (a record lies in one node per level, so a
  replaced record moves ``2(L + 1)`` node counts by one). A prefix ``[0, j - 1]`` is the disjoint
  union of at most ``L + 1`` nodes (one per set bit of ``j``). (epsilon, 0)-DP; error
  ``O(L^1.5/(epsilon m))`` per query (Dwork, Naor, Pitassi, Rothblum 2010; Chan, Shi, Song 2011).

Both draw the noise of a bin or node only when a query first touches it, and remember it
(:class:`~privpac.mechanisms.lazy_laplace.LazyLaplaceVector`): the released function is exactly
the full histogram's or tree's, at a cost independent of the domain size, so ``2^64`` is fine.
The objects keep the data's counts to answer new queries; they are the curator's and are not
saved (only answers are released).
"""

from __future__ import annotations

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError
from ..formatting import fmt_int
from ..mechanisms.laplace import laplace_mechanism
from ..mechanisms.lazy_laplace import LazyLaplaceVector
from ..validation import check_epsilon, check_int
from .database import CountedData, SanitizedDatabase

__all__ = ["LaplaceHistogram", "TreeCDF", "dense_histogram_sanitizer"]


class _LazyBaseline:
    """What both baselines keep: the budget, the public domain size and the data's exact counts.

    A subclass sets ``_vector``, the :class:`~privpac.mechanisms.lazy_laplace.LazyLaplaceVector`
    of its bins or nodes.
    """

    _vector: LazyLaplaceVector

    def __init__(self, data, epsilon: float, domain_size: int):
        self.epsilon = check_epsilon(epsilon)
        self.size = check_int(domain_size, "domain_size", low=1)
        self._data = CountedData.of(data, self.size)
        self.m = self._data.m

    @property
    def noise_scale(self) -> float:
        return float(self._vector.scale)


class LaplaceHistogram(_LazyBaseline):
    """Pure-DP Laplace histogram over every point of the domain, noise drawn lazily."""

    def __init__(self, data, *, epsilon: float, domain_size: int, ledger: PrivacyLedger | None = None, rng=None):
        super().__init__(data, epsilon, domain_size)
        values, counts = self._data.values, self._data.counts

        def truth(keys):
            k = np.asarray(keys, dtype=values.dtype)
            pos = np.minimum(np.searchsorted(values, k), values.size - 1)
            return np.where(values[pos] == k, counts[pos], 0)

        self._vector = LazyLaplaceVector(
            truth,
            2,
            self.epsilon,
            ledger=ledger,
            label="Laplace histogram",
            description=" over every domain point",
            rng=rng,
        )

    def point_many(self, xs) -> np.ndarray:
        """Noisy fractions at the given indices (clipping would be post-processing; not done)."""
        return self._vector.values([int(x) for x in xs]) / self.m

    def point(self, x: int) -> float:
        return float(self.point_many([x])[0])


class TreeCDF(_LazyBaseline):
    """Pure-DP hierarchical (binary-tree) histogram answering threshold and range queries."""

    def __init__(self, data, *, epsilon: float, domain_size: int, ledger: PrivacyLedger | None = None, rng=None):
        super().__init__(data, epsilon, domain_size)
        self.levels = max(self.size - 1, 1).bit_length() + 1  # L + 1 levels, 2^L >= size
        values = self._data.values
        cum = np.concatenate([[0], np.cumsum(self._data.counts)])

        def truth(keys):
            out = np.empty(len(keys), dtype=np.int64)
            for t, (level, index) in enumerate(keys):
                lo = index << level
                hi = lo + (1 << level)  # exclusive
                out[t] = cum[np.searchsorted(values, hi, side="left")] - cum[np.searchsorted(values, lo, side="left")]
            return out

        self._vector = LazyLaplaceVector(
            truth,
            2 * self.levels,
            self.epsilon,
            ledger=ledger,
            label="binary-tree counts",
            description=f" over {self.levels} levels of dyadic intervals",
            rng=rng,
        )

    @staticmethod
    def _decompose(j: int, top: int) -> list[tuple[int, int]]:
        """The dyadic nodes (level, index) whose disjoint union is ``[0, j - 1]``."""
        nodes, start = [], 0
        for level in range(top, -1, -1):
            if (j >> level) & 1:
                nodes.append((level, start >> level))
                start += 1 << level
        return nodes

    def below_many(self, js) -> np.ndarray:
        """Noisy fractions of records below each threshold ``j`` in ``[0, size]``."""
        top = self.levels - 1
        plans = [self._decompose(int(j), top) for j in js]
        flat = [node for p in plans for node in p]
        vals = self._vector.values(flat)
        out = np.zeros(len(plans))
        pos = 0
        for i, p in enumerate(plans):
            out[i] = vals[pos : pos + len(p)].sum()
            pos += len(p)
        return out / self.m

    def below(self, j: int) -> float:
        j = check_int(j, "j", low=0, high=self.size)
        return float(self.below_many([j])[0])

    def range(self, a: int, b: int) -> float:
        return 0.0 if a > b else self.below(min(b, self.size - 1) + 1) - self.below(max(a, 0))


def dense_histogram_sanitizer(
    data, *, epsilon: float, domain_size: int, ledger: PrivacyLedger | None = None, rng=None, max_size: int = 2**20
) -> SanitizedDatabase:
    """A proper pure-DP sanitizer for small domains: every bin's count plus discrete Laplace(2/eps).

    The noisy counts, clipped at 0 (post-processing), are the weights of the released database,
    which answers point, threshold and range queries. (epsilon, 0)-DP (Laplace mechanism on a
    histogram, L1-sensitivity 2). Cost ``O(|X|)``: only for domains up to ``max_size`` points;
    the base sanitizer of the reduction tests (:mod:`privpac.sanitizers.reductions`).
    """
    epsilon = check_epsilon(epsilon)
    size = check_int(domain_size, "domain_size", low=1)
    if size > max_size:
        raise InvalidParameterError(
            f"a dense histogram needs O(|X|) work; |X| = {fmt_int(size)} exceeds max_size = {max_size}"
        )
    counted = CountedData.of(data, size)
    dense = np.zeros(size, dtype=np.int64)
    dense[counted.values.astype(np.int64)] = counted.counts
    noisy = laplace_mechanism(dense, 2, epsilon, ledger=ledger, label="dense histogram", rng=rng)
    w = np.clip(noisy, 0, None).astype(np.float64)
    keep = w > 0
    return SanitizedDatabase(
        np.flatnonzero(keep).astype(np.int64),
        w[keep],
        float(w.sum()),
        size,
        proper=True,
        guarantee="threshold",
        info={"algorithm": "dense Laplace histogram (pure DP)", "epsilon": epsilon, "m": counted.m},
    )
