"""Private medians and interior points of one-dimensional data, for users who want a statistic.

* :func:`private_median`: a point whose rank is close to the median, by RecConcave (Beimel,
  Nissim, Stemmer, Fig. 5) on ``q(y) = min(#{v <= y}, #{v >= y})`` with the public promise
  ``ceil(m/2)`` (the median's quality). Replace-one neighbours: the number of records is public.
  With the default ``method="auto"`` and tuned constants RecConcave's plan picks its depth, which
  is the plain exponential mechanism (pure epsilon-DP) on every domain below about ``2^250``-``2^300`` points.
* :func:`private_interior_point`: a point between the smallest and the largest value, private
  under replacement *and* addition/removal of a record (the interior-point plug-ins of
  :mod:`privpac.optimize.interior_point`).
* :func:`coordinatewise_median`: a private median of each coordinate of points in ``[-B, B]^d``, the
  budget split by basic composition: the answer users reach for first as a center point, and the
  baseline FindTukey is measured against (BMNS, spec ``bmns-center-points`` section 4). It can land
  outside the convex hull of thin correlated data (depth 0), which is why FindTukey chooses each
  coordinate *given the earlier ones*.
* :class:`PrivateMedian`: the scikit-learn style estimator (``privpac fit median``).
"""

from __future__ import annotations

import math
import warnings

from ..accountant import BudgetAccountant, accounted_release
from ..accounting import PrivacyLedger
from ..domains import IntegerDomain, as_domain
from ..errors import DataError, UtilityWarning
from ..formatting import fmt_size, int_from_text, int_to_text
from ..learners.center_point import check_points_in_box
from ..optimize.interior_point import (
    ExponentialInteriorPoint,
    RecConcaveInteriorPoint,
    interior_point_quality_from_counts,
)
from ..optimize.recconcave import rec_concave_run
from ..optimize.recconcave_plan import levels, plan_rec_concave
from ..random import as_random_source
from ..sanitizers.database import CountedData
from ..validation import (
    check_budget_epsilon,
    check_choice,
    check_delta,
    check_int,
    check_probability,
    is_engine_collection,
)
from ._one_d import counted_values_of, domain_indices, domain_size, index_value, one_d_values, show
from .base import PrivateEstimatorBase, private_fit

__all__ = ["coordinatewise_median", "private_median", "private_interior_point", "PrivateMedian"]

METHODS = ("auto", "exponential", "recconcave")


#: The exponential mechanism's measured need over its proven one (thresholds on 2^64: 285 against
#: about 1,900 records at epsilon = 1, alpha = 0.05; benchmarks/results/thresholds_sample_complexity.csv).
EM_MEASURED_OVER_PROVEN = 0.15


def _median_run(values, domain, epsilon, delta, alpha, beta, method, N, constants, rng, ledger):
    domain = as_domain(domain)
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    method = check_choice(method, "method", METHODS)
    if not isinstance(values, CountedData):
        if not is_engine_collection(values) and len(one_d_values(values, "values")) == 0:
            raise DataError("values is empty: a median needs at least one record")
        values = counted_values_of(domain, values)  # in memory or on Dask
    m = values.m
    size = domain_size(domain)
    q = interior_point_quality_from_counts(values.values, values.counts, size - 1)
    if method == "exponential":
        N = 1
    elif method == "recconcave" and N is None:
        N = levels(size - 1)
    elif N is not None:
        N = check_int(N, "N", low=1)
    # The promise for rank accuracy alpha, from public inputs only (m, |X|, the budget): RecConcave's
    # proven one, or for the exponential mechanism the share of it the threshold benchmark measured.
    plan = plan_rec_concave(size - 1, min(alpha, 0.5), beta, epsilon, delta, N, constants)
    needed = math.ceil(2 * plan.required_promise() * (EM_MEASURED_OVER_PROVEN if plan.depth == 1 else 1.0))
    if m < needed:
        how = "measured for the exponential mechanism" if plan.depth == 1 else "RecConcave's proven requirement"
        warnings.warn(
            f"a private median on {fmt_size(size)} points at epsilon={epsilon:g}, alpha={alpha:g} needs about "
            f"{needed:,} records ({how}); "
            f"got {m:,}. The answer is likely far from the median: use more data, a larger epsilon, or a smaller "
            "domain.",
            UtilityWarning,
            stacklevel=3,
        )
    result = rec_concave_run(
        q,
        float(math.ceil(m / 2)),
        min(alpha, 0.5),
        epsilon,
        delta,
        beta=beta,
        N=N,
        constants=constants,
        ledger=ledger,
        rng=rng,
        label="private median: RecConcave",
    )
    return index_value(domain, result.index), result, m


def private_median(
    values,
    domain,
    epsilon: float = 1.0,
    delta: float = 0.0,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    method: str = "auto",
    N: int | None = None,
    constants: str = "tuned",
    rng=None,
    ledger: PrivacyLedger | None = None,
    accountant: BudgetAccountant | None = None,
):
    """A differentially private median of one-dimensional ``values`` on a public ``domain``.

    Parameters
    ----------
    values : array of shape (n,) or (n, 1)
    domain : IntegerDomain, one-dimensional Grid, ``(lo, hi)`` or ``(low, high, n_points)``
    epsilon, delta : float
        Total budget (replace-one neighbours). ``delta = 0`` restricts RecConcave to depth 1 (the
        exponential mechanism, pure DP).
    alpha, beta : float
        Rank accuracy and failure probability: with probability ``1 - beta`` the output ``y`` has
        ``min(#{v <= y}, #{v >= y}) >= (1 - alpha) ceil(n/2)`` once ``ceil(n/2)`` exceeds
        ``required_quality(|X| - 1, alpha, beta, epsilon, delta)`` (``alpha`` is capped at 1/2).
    method : {"auto", "exponential", "recconcave"}
        ``"exponential"``: RecConcave with ``N = 1``; ``"recconcave"``: its full recursion (or
        ``N``); ``"auto"``: the depth RecConcave's tuned plan prefers.
    ledger : PrivacyLedger or None, default=None
        Given: this call is one step of a larger release whose ledger you own, and charges only
        that ledger. ``None``: the call is a release of its own, filed with ``accountant``.
    accountant : BudgetAccountant or None, default=None
        The accountant the release charges (``None``: the process-wide default); it reserves
        (epsilon, delta) before reading ``values`` (see :mod:`privpac.accountant`). Not with ``ledger``.

    Returns the private median in data units (a Python int, or a float on a grid).
    """
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    label = "private median (RecConcave / exponential mechanism)"
    with accounted_release("private_median", epsilon, delta, ledger=ledger, accountant=accountant, label=label) as run:
        value, _, _ = _median_run(values, domain, epsilon, delta, alpha, beta, method, N, constants, rng, run)
    return value


def private_interior_point(
    values,
    domain,
    epsilon: float = 1.0,
    delta: float = 0.0,
    *,
    beta: float = 0.1,
    method: str = "auto",
    N: int | None = None,
    constants: str = "tuned",
    rng=None,
    ledger: PrivacyLedger | None = None,
    accountant: BudgetAccountant | None = None,
):
    """A private point between ``min(values)`` and ``max(values)`` (any input size, including 0).

    Private under replacement and addition/removal of one value. ``method="exponential"``:
    :class:`~privpac.optimize.ExponentialInteriorPoint` (pure); ``"recconcave"``:
    :class:`~privpac.optimize.RecConcaveInteriorPoint` sized for ``beta`` with its full recursion
    (or ``N``); ``"auto"``: the exponential mechanism when ``delta = 0``, else whichever has the
    smaller proven sample complexity for this domain and budget (public parameters only).

    ``ledger`` and ``accountant`` as for :func:`private_median`: with ``ledger`` the call charges
    only it; without, it is a release of its own, reserved with ``accountant`` (or the default)
    before ``values`` is read and filed when it ends.
    """
    domain = as_domain(domain)
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    beta = check_probability(beta, "beta")
    method = check_choice(method, "method", METHODS)
    label = "private interior point"
    with accounted_release(
        "private_interior_point", epsilon, delta, ledger=ledger, accountant=accountant, label=label
    ) as run:
        return _interior_point_run(values, domain, epsilon, delta, beta, method, N, constants, rng, run)


def _interior_point_run(values, domain, epsilon, delta, beta, method, N, constants, rng, ledger):
    idx = domain_indices(domain, values, "values")
    size = domain_size(domain)
    em = ExponentialInteriorPoint()
    if method == "recconcave" and N is None:
        N = levels(size - 1)
    rc = RecConcaveInteriorPoint(beta=beta, N=N, constants=constants)
    if method == "auto":
        if delta == 0.0:
            method = "exponential"
        else:
            better = rc.sample_complexity(epsilon, delta, beta, size) < em.sample_complexity(epsilon, delta, beta, size)
            method = "recconcave" if better else "exponential"
    plug_in = em if method == "exponential" else rc
    offset = plug_in(idx, 0, size - 1, epsilon, delta, rng=as_random_source(rng), ledger=ledger)
    return index_value(domain, offset)


class PrivateMedian(PrivateEstimatorBase):
    """A private median of one feature (see :func:`private_median`).

    Parameters: ``epsilon``, ``delta`` (default 0: pure DP), ``domain``, ``constants``,
    ``random_state``, ``method``, ``alpha``, ``beta``, ``N``, ``accountant`` (the
    :class:`~privpac.accountant.BudgetAccountant` this fit charges; ``None``: the default).

    Attributes
    ----------
    median_ : the private median in data units.
    median_index_ : int, its index in the domain.
    depth_ : int, RecConcave levels that ran (1: the exponential mechanism).
    """

    _fits_on_engines = True

    algorithm_name = "private median (RecConcave / exponential mechanism)"

    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        domain=None,
        constants="tuned",
        random_state=None,
        method="auto",
        alpha=0.1,
        beta=0.1,
        N=None,
        accountant=None,
    ):
        self._store_parameters(locals())

    @private_fit
    def fit(self, X, y=None):
        ledger, rng = self._begin_fit()
        X = self._check_features(X, reset=True)
        value, result, m = _median_run(
            X,
            self.domain_,
            ledger.budget_epsilon,
            ledger.budget_delta,
            self.alpha,
            self.beta,
            self.method,
            self.N,
            self.constants,
            rng,
            ledger,
        )
        self.median_index_ = result.index
        self.depth_ = result.depth
        self.n_samples_ = m
        self._end_fit(ledger)
        return self

    @property
    def median_(self):
        self._check_fitted()
        return index_value(self.domain_, self.median_index_)

    def _fitted_state(self) -> dict:
        return {"median_index": int_to_text(self.median_index_), "depth": self.depth_, "n_samples": self.n_samples_}

    def _restore_state(self, state: dict) -> None:
        self.median_index_ = int_from_text(state["median_index"])
        self.depth_ = int(state["depth"])
        self.n_samples_ = int(state["n_samples"])

    def summary(self) -> list[str]:
        self._check_fitted()
        how = "exponential mechanism" if self.depth_ == 1 else f"RecConcave, {self.depth_} levels"
        return [f"{self.algorithm_name}: {how}", f"  median = {show(self.median_)} (n = {self.n_samples_})"]


def coordinatewise_median(
    S,
    B: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    method: str = "auto",
    ledger: PrivacyLedger | None = None,
    accountant: BudgetAccountant | None = None,
    rng=None,
) -> tuple[int, ...]:
    """A private median of each coordinate, the budget split evenly by basic composition.

    The naive private "center" users reach for: coordinate ``j`` is
    :func:`~privpac.estimators.median.private_median` of column ``j`` on ``[-B, B]`` at
    ``(epsilon/d, delta/d)``. It is compared with FindTukey (Beimel, Moran, Nissim, Stemmer, COLT
    2019) in the center-point benchmark: on thin correlated data the medians pair up into a point
    outside the convex hull (depth 0).

    Parameters
    ----------
    S : array-like of shape (n, d)
        Integer points of ``[-B, B]^d`` (replace-one neighbours, ``n`` public).
    B : int
        Public bound of the box.
    epsilon, delta : float
        The total budget (``delta = 0``: pure DP, the exponential mechanism per coordinate).
    method : {"auto", "exponential", "recconcave"}
        Passed to :func:`~privpac.estimators.median.private_median`.
    ledger, accountant, rng
        As in :func:`one_shot_center_point`.

    Returns
    -------
    tuple of int
        The ``d`` private medians.

    Privacy
    -------
    Replacing one record changes one entry of every column, so each column is a replace-one
    neighbour and each median call is ``(epsilon/d, delta/d)``-DP (its own argument, checked
    exactly by the registered ``median`` audit). The ``d`` calls compose by the basic theorem to
    ``(epsilon, delta)``, reserved as one block before the first column is read.
    """
    B = check_int(B, "B", low=1)
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    arr = check_points_in_box(S, B, name="S")
    n, d = arr.shape
    src = as_random_source(rng)
    domain = IntegerDomain(-B, B)
    with accounted_release(
        "per-coordinate median", epsilon, delta, ledger=ledger, accountant=accountant, label="per-coordinate median"
    ) as run:
        block = run.basic_block(f"per-coordinate median: {d} coordinate(s)", d, epsilon / d, delta / d)
        return tuple(
            int(private_median(arr[:, j], domain, epsilon / d, delta / d, method=method, ledger=block, rng=src))
            for j in range(d)
        )
