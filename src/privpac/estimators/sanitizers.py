"""scikit-learn style sanitizers: ``fit(X)``, ``answer(query)``, ``sample(n)``.

Each estimator runs one sanitizer of Beimel, Nissim and Stemmer on a one-dimensional dataset
over a public domain (an :class:`~privpac.domains.IntegerDomain` or a one-dimensional
:class:`~privpac.domains.Grid`) and keeps the released :class:`SanitizedDatabase` as
``database_``. Everything after ``fit`` is post-processing of that release: answers to point,
threshold and range queries (``answer("x<=1000")``), synthetic records of any size
(``sample(n)``), saving (``privpac sanitize``) and querying a saved file (``privpac query``).
"""

from __future__ import annotations

import numpy as np

from ..domains import IntegerDomain, as_domain
from ..sanitizers.database import SanitizedDatabase, fixed_output_size
from ..sanitizers.points import k_point_sanitizer, san_points
from ..sanitizers.queries import answer_query, parse_query
from ..sanitizers.thresholds import san_thresholds
from ..validation import check_size
from ._one_d import counted_values_of, domain_size
from .base import PrivateEstimatorBase, private_fit

__all__ = ["PrivateSanitizerBase", "PointSanitizer", "KPointSanitizer", "ThresholdSanitizer"]


class PrivateSanitizerBase(PrivateEstimatorBase):
    """Shared ``fit`` plumbing: 1-D public domain, data to indices, the release in ``database_``.

    ``accountant`` (default ``None``: the process-wide default) is the
    :class:`~privpac.accountant.BudgetAccountant` each ``fit`` charges (:mod:`privpac.accountant`).
    """

    requires_delta = True
    _fits_on_engines = True
    #: query kinds the accuracy theorem covers, for messages
    guarantee_text = ""
    #: the sanitizer function this estimator runs (keyword arguments of :func:`san_points`)
    sanitizer = None

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        domain=None,
        constants="tuned",
        random_state=None,
        alpha=0.1,
        beta=0.1,
        unsafe_skip_precondition=False,
        accountant=None,
    ):
        self._store_parameters(locals())

    def _extra_arguments(self) -> dict:
        """Sanitizer arguments beyond the shared ones (``k`` for the k-POINT sanitizer)."""
        return {}

    def _run(self, idx, size, ledger, rng) -> SanitizedDatabase:
        return type(self).sanitizer(
            idx,
            alpha=self.alpha,
            beta=self.beta,
            epsilon=ledger.budget_epsilon,
            delta=ledger.budget_delta,
            domain_size=size,
            constants=self.constants,
            ledger=ledger,
            rng=rng,
            unsafe_skip_precondition=self.unsafe_skip_precondition,
            **self._extra_arguments(),
        )

    @private_fit
    def fit(self, X, y=None, counts=None):
        """Sanitize ``X`` (one column of values in the public domain); returns ``self``.

        ``counts`` (optional, integers >= 0): row ``i`` stands for ``counts[i]`` identical records,
        so theorem-size datasets (10^8 records and more) fit in memory. The privacy unit is still
        one record: neighbours differ in one of the expanded records.
        """
        ledger, rng = self._begin_fit()
        if isinstance(counts, str):  # Spark: the counts are a column of X, named as a label is, not a feature
            X, counts = self._check_features(X, reset=True, y=counts, y_name="counts")
        else:
            X = self._check_features(X, reset=True)
        domain = as_domain(self.domain_)
        data = counted_values_of(domain, X, counts)  # where X lives: in memory or on Dask
        self.database_ = self._run(data, domain_size(domain), ledger, rng)
        self.n_samples_ = data.m
        self._end_fit(ledger)
        return self

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        (X,) = super()._public_example(1, n_features)
        return X, None, np.array([n_samples])  # one public value held n times

    def answer(self, query) -> float:
        """The sanitized fraction of records matching ``query`` (e.g. ``"x<=1000"``)."""
        self._check_fitted()
        return answer_query(self.database_, as_domain(self.domain_), query)

    def covers(self, query) -> bool:
        """Whether the accuracy theorem covers this query (point queries for SanPoints, ...)."""
        q = parse_query(query) if isinstance(query, str) else query
        if self.database_.guarantee == "point":
            return q.kind == "interval" and q.lo is not None and q.lo == q.hi
        if self.database_.guarantee == "k-point":
            return q.kind == "set" or (q.lo is not None and q.lo == q.hi)
        return True

    def sample(self, n: int | None = None, random_state=None) -> np.ndarray:
        """``n`` synthetic records in domain units (default: the fixed size of spec 7.1)."""
        self._check_fitted()
        alpha = float(getattr(self, "alpha", 0.1))
        n = fixed_output_size(alpha, float(getattr(self, "beta", 0.1)), 1) if n is None else check_size(n, "n")
        idx = self.database_.sample(n, random_state, alpha=self.database_.info.get("alpha", alpha))
        domain = as_domain(self.domain_)
        if isinstance(domain, IntegerDomain):
            if domain.hi <= 2**62 and domain.lo >= -(2**62):
                return np.asarray(idx, dtype=np.int64) + np.int64(domain.lo)
            return np.asarray(idx, dtype=object) + domain.lo
        return domain.from_index(np.asarray(idx, dtype=np.int64))

    def _fitted_state(self) -> dict:
        return {"database": self.database_.to_dict(), "n_samples": self.n_samples_}

    def _restore_state(self, state: dict) -> None:
        self.database_ = SanitizedDatabase.from_dict(state["database"])
        self.n_samples_ = int(state["n_samples"])

    def summary(self) -> list[str]:
        self._check_fitted()
        db = self.database_
        return [
            f"{self.algorithm_name}: n = {self.n_samples_}, {db.points.size} released points, "
            f"{'proper' if db.proper else 'improper'} output, accurate for {self.guarantee_text}",
        ]


class PointSanitizer(PrivateSanitizerBase):
    """SanPoints (Beimel, Nissim, Stemmer, Fig. 9, Thm 4.6): (epsilon, delta) sanitizer for point queries.

    Every point query ``x == v`` is answered within ``alpha`` with probability ``1 - beta``, with
    a sample size independent of the domain size, provided ``m`` meets the choosing
    mechanism's privacy precondition (checked; :class:`~privpac.errors.PreconditionError`
    otherwise). ``unsafe_skip_precondition=True`` voids the privacy guarantee (warns).
    See :func:`privpac.sanitizers.points.san_points`.
    """

    algorithm_name = "SanPoints (Beimel, Nissim, Stemmer, Fig. 9)"
    guarantee_text = "point queries x == v"
    sanitizer = staticmethod(san_points)


class KPointSanitizer(PointSanitizer):
    """The k-POINT sanitizer (Fig. 10, Thm 4.7): SanPoints at accuracy ``alpha/k``; a set query
    ``x in {v1, ..., vk}`` is answered within ``alpha``."""

    algorithm_name = "k-POINT sanitizer (Beimel, Nissim, Stemmer, Fig. 10)"
    guarantee_text = "set queries x in {v1, ..., vk}"
    sanitizer = staticmethod(k_point_sanitizer)

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        domain=None,
        constants="tuned",
        random_state=None,
        alpha=0.1,
        beta=0.1,
        k=2,
        unsafe_skip_precondition=False,
        accountant=None,
    ):
        self._store_parameters(locals())

    def _extra_arguments(self) -> dict:
        return {"k": self.k}


class ThresholdSanitizer(PrivateSanitizerBase):
    """SanThresholds (Beimel, Nissim, Stemmer, Fig. 11, Thm 4.13): (epsilon, delta) proper sanitizer
    for threshold queries ``x < v`` (hence ``x <= v`` and ranges, within ``2 alpha``).

    Releases a weighted database. Private when ``m`` meets the choosing mechanism's
    precondition (checked; :class:`~privpac.errors.PreconditionError` otherwise): about 1.6e8
    records at ``alpha = 0.1``, ``epsilon = 1``, ``delta = 1e-6``, and accurate from about 4e8
    (``privpac bounds san-thresholds-plan``). See :func:`privpac.sanitizers.thresholds.san_thresholds`.
    """

    algorithm_name = "SanThresholds (Beimel, Nissim, Stemmer, Fig. 11)"
    guarantee_text = "threshold queries x < v (ranges within 2 alpha)"
    sanitizer = staticmethod(san_thresholds)
