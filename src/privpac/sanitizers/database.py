"""Sanitized databases: what a sanitizer releases, and how it answers counting queries.

Beimel, Nissim, Stemmer, Def. 2.17: a sanitizer outputs ``Est: C -> [0, 1]`` with
``max_c |Q_c(S) - Est(c)| <= alpha``; it is *proper* when ``Est(c) = Q_c(S_hat)`` for a released
database ``S_hat``. privpac represents both kinds by a :class:`SanitizedDatabase`: a set of
domain points with non-negative weights and a normaliser ``total``.

* Proper output (SanThresholds, the reductions): ``total`` is the sum of the weights, so every
  answer is the query's value on the weighted database ``S_hat`` (erratum E8: the paper's "add
  ``c_hat`` copies" with real, possibly negative noisy counts becomes a weight clipped at 0).
* Improper output (SanPoints, k-POINT): the weights are the released noisy counts and
  ``total`` is the public dataset size ``m``, so ``point(x)`` is the paper's ``Est(x)``.

Queries (indices are positions ``0 .. size - 1`` of the public domain):

* ``point(i)``: the fraction of records equal to ``i`` (POINT_d);
* ``below(j)``: the fraction of records ``< j`` for ``j in [0, size]`` (THRESH_d, ``c_j``);
* ``range(a, b)``: the fraction in ``[a, b]``;
* ``point_set(I)``: the fraction in a set (k-POINT_d, Fig. 10: ``e(I) = sum_{i in I} Est(i)``).

Each answer costs ``O(log p)`` for ``p`` stored points, whatever the domain size.

:meth:`SanitizedDatabase.sample` draws synthetic records of any chosen size (spec 7.1, the
efficient form of Thm 2.21: ``n = ceil((50 VC/alpha^2) ln(2/(alpha beta)))`` i.i.d. draws are
alpha-close with probability ``1 - beta/2`` by Thm 2.14). An improper output is first completed
into a distribution as in Remark 2.18: the released mass stays on its points and the rest is
spread over ``ceil(1/alpha)`` public filler points, each with mass at most ``alpha``, so point
answers move by at most ``alpha``. Everything here is post-processing of the release.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..domains import index_array
from ..errors import DataError, InvalidParameterError
from ..formatting import fmt_int
from ..mechanisms.exponential import sample_log_weights
from ..random import as_random_source
from ..validation import check_int, check_probability, check_size

__all__ = ["CountedData", "SanitizedDatabase", "aggregate", "concat_indices", "fixed_output_size"]


def aggregate(idx: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct indices and the sum of ``weights`` at each (``O(m log m)``, one sort).

    One stable argsort and a segmented sum: no inverse index and no scattered ``np.add.at``
    (less memory and time per record than ``np.unique(..., return_inverse=True)``). ``weights``
    may have shape ``(m,)`` or ``(m, k)`` (``k`` sums per index, still one sort).
    """
    idx = np.asarray(idx).ravel()
    w = np.asarray(weights)
    w = w.ravel() if w.ndim <= 1 else w
    if idx.size == 0:
        return idx[:0], np.zeros((0, *w.shape[1:]), dtype=np.int64)
    order = np.argsort(idx, kind="stable")
    ordered = idx[order]
    w = w[order].astype(np.int64)
    del order
    first = np.empty(ordered.size, dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    at = np.flatnonzero(first)
    return ordered[at], np.add.reduceat(w, at, axis=0)


def concat_indices(arrays) -> np.ndarray:
    """Concatenate index arrays, keeping Python ints exact when any part holds them."""
    if any(a.dtype == object for a in arrays) or len({a.dtype for a in arrays}) > 1:
        return np.concatenate([a.astype(object) for a in arrays])
    return np.concatenate(arrays)


@dataclass(frozen=True)
class CountedData:
    """A private database as its distinct domain indices (sorted) and their multiplicities.

    The sanitizers read a database only through these counts; building them sorts once.
    ``size`` is the public domain size (indices lie in ``[0, size - 1]``).
    """

    values: np.ndarray  # sorted distinct indices (int64, or object for huge domains)
    counts: np.ndarray  # int64 multiplicities >= 1
    size: int

    @classmethod
    def from_indices(cls, idx, size: int) -> CountedData:
        size = check_int(size, "domain size", low=1)
        idx = np.asarray(idx) if not isinstance(idx, np.ndarray) else idx
        if idx.ndim != 1:
            raise DataError(f"the data must be one-dimensional, got shape {idx.shape}")
        if idx.size == 0:
            raise DataError("the database is empty: at least one record is needed")
        values, counts = np.unique(idx, return_counts=True)
        if values[0] < 0 or values[-1] > size - 1:
            raise DataError(f"indices must lie in [0, {fmt_int(size - 1)}]")
        return cls(index_array(values, size - 1), counts.astype(np.int64), size)

    @classmethod
    def of(cls, data, size: int) -> CountedData:
        """``data`` itself when it is already counted for this domain size, else its counts.

        Raises :class:`~privpac.errors.DataError` for counts built for another domain size.
        """
        if not isinstance(data, cls):
            return cls.from_indices(data, size)
        if data.size != size:
            raise DataError("the counted data was built for another domain size")
        return data

    @classmethod
    def from_counts(cls, values, counts, size: int) -> CountedData:
        """From distinct indices and multiplicities (for very large synthetic databases)."""
        size = check_int(size, "domain size", low=1)
        values = index_array(list(values) if not isinstance(values, np.ndarray) else values, size - 1)
        counts = np.asarray(counts, dtype=np.int64)
        if values.shape != counts.shape or values.ndim != 1 or values.size == 0:
            raise DataError("values and counts must be non-empty 1-D arrays of equal length")
        if np.any(counts < 1):
            raise DataError("counts must be >= 1")
        order = np.argsort(values, kind="stable")
        values, counts = values[order], counts[order]
        if values.size > 1 and np.any(values[1:] == values[:-1]):
            raise DataError("values must be distinct")
        if values[0] < 0 or values[-1] > size - 1:
            raise DataError(f"indices must lie in [0, {fmt_int(size - 1)}]")
        return cls(values, counts, size)

    @classmethod
    def merge(cls, parts, size: int) -> CountedData | None:
        """The counts of the union of disjoint parts (exact for any partitioning); ``None`` parts
        (empty blocks) are skipped, and ``None`` is returned when every part is empty."""
        parts = [p for p in parts if p is not None and p.values.size]
        if not parts:
            return None
        total = sum(int(p.counts.sum()) for p in parts)
        if total > 2**62:
            raise DataError(f"the counts add up to {total:,} records, more than privpac counts exactly (2^62)")
        if len(parts) == 1:
            return cls(parts[0].values, parts[0].counts, size)
        values, counts = aggregate(concat_indices([p.values for p in parts]), np.concatenate([p.counts for p in parts]))
        return cls(values, counts, size)

    @property
    def m(self) -> int:
        return int(self.counts.sum())

    def count_range(self, a: int, b: int) -> int:
        """``#_S[a, b]``, the number of records in ``[a, b]``."""
        lo = np.searchsorted(self.values, a, side="left")
        hi = np.searchsorted(self.values, b, side="right")
        return int(self.counts[lo:hi].sum())


def fixed_output_size(alpha: float, beta: float, vc: int) -> int:
    """``ceil((50 VC / alpha^2) ln(2/(alpha beta)))``: i.i.d. draws that keep alpha-closeness.

    Spec 7.1 (efficient form of Thm 2.21) via Thm 2.14 at confidence ``beta/2``.
    """
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    vc = check_int(vc, "vc", low=1)
    return math.ceil((50.0 * vc / alpha**2) * math.log(2.0 / (alpha * beta)))


def _big(values) -> list:
    return [str(int(v)) if abs(int(v)) > 2**53 else int(v) for v in values]


@dataclass
class SanitizedDatabase:
    """A released (weighted) database over a public domain of ``size`` points.

    Parameters
    ----------
    points : array of int
        Distinct domain indices, sorted.
    weights : array of float
        Non-negative weights (noisy counts clipped at 0).
    total : float
        The normaliser of every answer: the sum of the weights (proper output) or the public
        dataset size ``m`` (improper output). A zero total answers every query with 0.
    size : int
        Public domain size.
    proper : bool
        Whether the answers are those of the weighted database itself.
    guarantee : str
        The query class the sanitizer's accuracy theorem covers ("point", "k-point",
        "threshold", "label-threshold", ...).
    info : dict
        Public metadata: algorithm, parameters, structural facts of the run.
    """

    points: np.ndarray
    weights: np.ndarray
    total: float
    size: int
    proper: bool = True
    guarantee: str = "threshold"
    info: dict = field(default_factory=dict)
    #: the privacy ledger of the run that produced it (not saved with the data)
    ledger: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        self.size = check_int(self.size, "size", low=1)
        pts = self.points
        if not isinstance(pts, np.ndarray) or pts.dtype == object or self.size - 1 > 2**62:
            pts = index_array(list(pts), self.size - 1)
        self.points = pts
        self.weights = np.asarray(self.weights, dtype=np.float64)
        if self.points.shape != self.weights.shape or self.points.ndim != 1:
            raise InvalidParameterError("points and weights must be 1-D arrays of equal length")
        if self.points.size > 1 and not np.all(self.points[1:] > self.points[:-1]):
            order = np.argsort(self.points, kind="stable")
            self.points, self.weights = self.points[order], self.weights[order]
            if np.any(self.points[1:] == self.points[:-1]):
                raise InvalidParameterError("points must be distinct")
        if np.any(~np.isfinite(self.weights)) or np.any(self.weights < 0):
            raise InvalidParameterError("weights must be finite and >= 0")
        if self.points.size and (self.points[0] < 0 or self.points[-1] > self.size - 1):
            raise InvalidParameterError("points must lie in the domain")
        self.total = float(self.total)
        if not (self.total >= 0 and math.isfinite(self.total)):
            raise InvalidParameterError("total must be finite and >= 0")
        self._cum = np.concatenate([[0.0], np.cumsum(self.weights)])

    # -- constructors ---------------------------------------------------------------------------

    @classmethod
    def from_weights(cls, pairs: dict, size: int, *, total=None, **kwargs) -> SanitizedDatabase:
        """From ``{index: weight}``; weights below 0 are clipped (post-processing). Zero weights
        are dropped. ``total=None`` makes the output proper (normaliser = sum of weights)."""
        keys = sorted(int(k) for k in pairs)
        w = np.asarray([max(0.0, float(pairs[k])) for k in keys], dtype=np.float64)
        keep = w > 0
        pts = [k for k, good in zip(keys, keep) if good]
        w = w[keep]
        return cls(index_array(pts, size - 1), w, float(w.sum()) if total is None else total, size, **kwargs)

    # -- queries (indices) ----------------------------------------------------------------------

    def _frac(self, mass: float) -> float:
        return 0.0 if self.total <= 0 else float(mass) / self.total

    def _mass_below(self, j) -> float:
        return float(self._cum[np.searchsorted(self.points, j, side="left")])

    def below(self, j: int) -> float:
        """``Q_{c_j}``: the fraction of records with index ``< j`` (``j`` in ``[0, size]``)."""
        j = check_int(j, "j", low=0, high=self.size)
        return self._frac(self._mass_below(j))

    def range(self, a: int, b: int) -> float:
        """The fraction of records with index in ``[a, b]`` (empty when ``a > b``)."""
        a, b = int(a), int(b)
        if a > b:
            return 0.0
        a, b = max(a, 0), min(b, self.size - 1)
        return self._frac(self._mass_below(b + 1) - self._mass_below(a))

    def point(self, i: int) -> float:
        """The fraction of records equal to ``i`` (the paper's ``Est(i)`` for SanPoints)."""
        return self.range(i, i)

    def point_set(self, indices) -> float:
        """The fraction in a set of distinct indices (k-POINT_d: ``sum_{i in I} Est(i)``)."""
        distinct = {int(i) for i in indices}
        return math.fsum(self.point(i) for i in distinct)

    def below_many(self, js) -> np.ndarray:
        """``below`` for many thresholds at once (vectorised)."""
        js = np.asarray(js) if not isinstance(js, np.ndarray) else js
        pos = np.searchsorted(self.points, js, side="left")
        return self._cum[pos] / self.total if self.total > 0 else np.zeros(len(js))

    def point_many(self, xs) -> np.ndarray:
        xs = np.asarray(xs) if not isinstance(xs, np.ndarray) else xs
        pos = np.searchsorted(self.points, xs, side="left")
        pos_c = np.minimum(pos, max(self.points.size - 1, 0))
        hit = (pos < self.points.size) & (self.points[pos_c] == xs) if self.points.size else np.zeros(len(xs), bool)
        out = np.where(hit, self.weights[pos_c] if self.points.size else 0.0, 0.0)
        return out / self.total if self.total > 0 else np.zeros(len(xs))

    # -- synthetic data -------------------------------------------------------------------------

    def distribution(self, alpha: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(points, probabilities) of the synthetic-data distribution.

        Proper output: the normalised weights. Improper output (Remark 2.18): the released
        fractions (scaled down if they exceed 1 in total) plus the remaining mass spread
        evenly over ``ceil(1/alpha)`` filler points, the smallest indices not released (a public
        choice), so no filler carries more than ``alpha``.
        """
        if self.proper:
            tot = float(self.weights.sum())
            if tot <= 0:
                raise DataError("the sanitized database has no mass: nothing to sample from")
            return self.points, self.weights / tot
        alpha = self.info.get("alpha") if alpha is None else alpha
        alpha = check_probability(float(alpha), "alpha")
        p = self.weights / self.total if self.total > 0 else np.zeros_like(self.weights)
        if p.sum() > 1.0:
            p = p / p.sum()
        rest = 1.0 - float(p.sum())
        taken = {int(v) for v in self.points}
        n_fill = min(math.ceil(1.0 / alpha), self.size - len(taken))
        fillers, candidate = [], 0
        while len(fillers) < n_fill:
            if candidate not in taken:
                fillers.append(candidate)
            candidate += 1
        if rest <= 1e-15 or not fillers:
            if p.sum() <= 0:
                raise DataError("the sanitized database has no mass: nothing to sample from")
            return self.points, p / p.sum()
        pts = list(int(v) for v in self.points) + fillers
        probs = np.concatenate([p, np.full(len(fillers), rest / len(fillers))])
        order = np.argsort(np.asarray(pts, dtype=object), kind="stable")
        return index_array([pts[i] for i in order], self.size - 1), probs[order]

    def sample(self, n: int, rng=None, *, alpha: float | None = None) -> np.ndarray:
        """``n`` synthetic records (domain indices, sorted), drawn i.i.d. from :meth:`distribution`.

        Post-processing: costs no privacy. Fixed output size ``n`` (spec 7.1).
        """
        n = check_size(n, "n")
        pts, probs = self.distribution(alpha)
        with np.errstate(divide="ignore"):
            logp = np.log(probs)
        picks = sample_log_weights(logp, as_random_source(rng), size=n)
        return np.sort(pts[picks]) if pts.dtype != object else index_array(sorted(pts[picks]), self.size - 1)

    def as_proper(self, alpha: float | None = None) -> SanitizedDatabase:
        """The proper database of Remark 2.18 (weights = the completed distribution)."""
        pts, probs = self.distribution(alpha)
        return SanitizedDatabase(
            pts, probs, 1.0, self.size, proper=True, guarantee=self.guarantee, info=dict(self.info)
        )

    # -- persistence ----------------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {
            "points": _big(self.points),
            "weights": self.weights.tolist(),
            "total": self.total,
            "size": str(self.size),
            "proper": self.proper,
            "guarantee": self.guarantee,
            "info": self.info,
        }

    @classmethod
    def from_dict(cls, d: dict) -> SanitizedDatabase:
        size = int(d["size"])
        return cls(
            index_array([int(v) for v in d["points"]], size - 1),
            np.asarray(d["weights"], dtype=np.float64),
            float(d["total"]),
            size,
            proper=bool(d.get("proper", True)),
            guarantee=d.get("guarantee", "threshold"),
            info=dict(d.get("info", {})),
        )

    def __repr__(self) -> str:
        kind = "proper" if self.proper else "improper"
        return (
            f"SanitizedDatabase({kind}, {self.points.size} points over {fmt_int(self.size)} values, "
            f"total={self.total:.6g}, guarantee={self.guarantee!r})"
        )
