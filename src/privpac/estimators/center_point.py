"""A private center point (``privpac fit center-point``): exact in one to three dimensions.

The estimator over :func:`~privpac.learners.center_point.find_tukey` (Beimel, Moran, Nissim,
Stemmer, COLT 2019, Fig. 1 and Thm 3.6). A per-coordinate private median, the estimator users
reach for first, can land outside the convex hull of thin correlated data (points on a diagonal
segment: the two medians pair up into a point off the segment, of depth 0); FindTukey chooses
each coordinate *given the earlier ones*, so its output is deep in the data with high probability.

Integer data runs in the box ``[-B, B]^d`` as it is; real-valued data on a public grid runs on the
grid's integer lattice (:class:`~privpac.domains.Lattice`), and the center comes back in the data's
units (Tukey depth is invariant under the per-feature affine map between the two).
"""

from __future__ import annotations

import numpy as np

from ..domains import box_lattice, domain_text, integer_box
from ..errors import DataError, InvalidParameterError
from ..geometry._exact import as_integer_points
from ..learners.center_point import (
    COMPOSITIONS,
    DEPTHS,
    OPTIMIZERS,
    check_find_tukey_size,
    check_points_in_box,
    find_tukey,
    plan_find_tukey,
)
from ..validation import check_probability, is_engine_collection, refuses_renamed_parameters
from ._exact_geometry import ExactGeometryMixin, box_text, exact_text, grid_advice
from .base import PrivateEstimatorBase, engine_rows, private_fit

__all__ = ["ENGINE_MAX_POINTS", "FIND_TUKEY_NEEDS_DELTA", "PrivateCenterPoint", "box_domain", "check_engine_size"]

#: Largest number of points a fit on Dask or Spark brings to the driver, by dimension, where the
#: exact algorithm has no envelope of its own (``d = 3`` has ``MAX_POINTS_3D``). Public caps set from
#: the measured speed of the in-memory fit on the driver (docs/scale.md): ``d = 1`` took 19 s at
#: ``n = 10^6`` (``B = 2^20``); ``d = 2`` at ``n = 10^4`` on ``[-1024, 1024]^2`` took 22.5 s and 2.4 GB
#: with the contour polygons (docs/algorithms/center-points.md), which is also ``MAX_POINTS_2D``.
ENGINE_MAX_POINTS = {1: 10**6, 2: 10**4}


def check_engine_size(n: int, d: int, depth: str = "tukey") -> None:
    """Refuse engine data above what a fit brings to the driver, from the public ``(n, d)`` alone:
    the estimator's own envelope (:func:`~privpac.learners.center_point.check_find_tukey_size`: ``d <= 3``,
    ``MAX_POINTS_3D`` in ``d = 3``; in directional depth ``|U| n`` within ``FINITE_DIRECTION_LIMIT``),
    then :data:`ENGINE_MAX_POINTS` in ``d = 1, 2``."""
    check_find_tukey_size(n, d, depth)
    cap = ENGINE_MAX_POINTS.get(d)
    if cap is not None and n > cap:
        raise InvalidParameterError(
            f"PrivateCenterPoint on Dask or Spark brings the points to the driver (FindTukey's exact depths read "
            f"every point): at most ENGINE_MAX_POINTS[{d}] = {cap:,} points in d = {d}, got n = {n:,}; fit on a "
            "public random subsample of the points (docs/scale.md)"
        )


#: FindTukey's settings that are (epsilon, delta)-DP, refused at delta = 0: ``(parameter, value, reason)``
#: for every estimator that runs it (:class:`~privpac.estimators._exact_geometry.ExactGeometryMixin`)
FIND_TUKEY_NEEDS_DELTA = (
    ("optimizer", "recconcave", " (RecConcave is (epsilon, delta)-DP)"),
    ("composition", "advanced", ""),
)


def box_domain(domain):
    """The public box, validated before the data is read: the int ``B`` of ``[-B, B]^d`` (an int or
    ``IntegerDomain(-B, B)``: exact integers), or a domain (a grid, per-feature bounds, an integer range
    off centre) that runs on its integer lattice (:func:`~privpac.domains.box_lattice`)."""
    return integer_box(domain, "domain", "B", "the box of the data")


class PrivateCenterPoint(ExactGeometryMixin, PrivateEstimatorBase):
    """A private point of high Tukey depth (a private center point) of integer data, ``d in {1, 2, 3}``
    (any ``d`` in directional depth).

    FindTukey (Beimel, Moran, Nissim, Stemmer, COLT 2019, Fig. 1, Thm 3.6) with the spec's
    A3-rational candidate domains: the output coordinates are exact rationals chosen one after the
    other, each by a private optimiser over a public candidate set, with the exact depth of the
    best completion as quality.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget (replace-one neighbours: ``n`` is public).
    delta : float, default=0.0
        Total delta. The default optimiser with basic composition is pure ``epsilon``-DP;
        ``optimizer="recconcave"`` and ``composition="advanced"`` need ``delta > 0``.
    domain : int, IntegerDomain, Grid, tuple, str or mapping
        The public box, required (never read off the data). Integer data: an int ``B`` means
        ``[-B, B]^d``, ``IntegerDomain(lo, hi)`` (``"lo:hi"`` on the command line) applies to every
        coordinate. Real-valued data: ``Grid(low, high, n_points)`` (``"low:high:n"``; per-feature
        arrays, or a mapping of column names to bounds for a DataFrame, :func:`~privpac.domains.resolve_domain`):
        each record is mapped to its nearest grid point (outside the grid: refused, or clipped with
        ``clip=True``), a per-record public map that costs no privacy; FindTukey runs on the grid's
        integer lattice ``[-B, B]^d`` (:class:`~privpac.domains.Lattice`; a finer grid is a larger
        ``B`` and needs more records) and ``center_`` is in the data's units.
    optimizer : {"exponential", "recconcave"}, default="exponential"
        Per-coordinate optimiser: the exponential mechanism (spec B3, pure DP, the practical
        choice) or RecConcave with its full recursion (the paper's Fig. 1, far larger ``n`` needed).
    composition : {"auto", "basic", "advanced"}, default="auto"
        Composition over the ``d`` coordinates; ``"auto"`` chooses from public parameters only
        (the larger per-coordinate epsilon: basic for ``d <= 3``).
    depth : {"tukey", "directional"}, default="tukey"
        ``"tukey"``: the exact Tukey depth (``d <= 3``; the output lies in the convex hull with high
        probability). ``"directional"``: the depth over a public net of directions (the primitive
        vectors of ``{-1, 0, 1}^d``), for any ``d``: same privacy, the output is deep in every
        direction of the net but need not lie in the convex hull (spec section 7).
    beta : float, default=0.1
        Failure probability the sufficient sample size is computed for.
    random_state : None, int or RandomSource, default=None
        ``None``: operating-system entropy; an int: a reproducible run (not for releases).
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the default).

    Attributes
    ----------
    center_ : tuple of fractions.Fraction
        The private center point (exact; in the data's units, on a grid the exact rational point of
        the grid's lattice).
    domain_ : IntegerDomain or Grid
        The resolved public domain (per feature).
    center_float_ : numpy.ndarray
        The same point as floats (a view).
    composition_ : str
        The composition used (``"basic"`` or ``"advanced"``; a function of the parameters).
    n_samples_, n_features_in_ : int
        The public shape of the training data.
    ledger_, privacy_spent_ : the privacy accounting.

    Warns
    -----
    UtilityWarning
        When ``n`` is below the size that guarantees depth ``n/(2(d+1))`` with probability
        ``1 - beta`` (computed from ``n``, ``d``, ``B``, the budget and ``beta`` only).

    Examples
    --------
    >>> import numpy as np
    >>> from privpac.geometry import tukey_depth
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(-2, 3, size=(1100, 2))  # 1,024 records suffice on [-2, 2]^2 at epsilon = 1
    >>> est = PrivateCenterPoint(epsilon=1.0, domain=2, random_state=0).fit(X)
    >>> len(est.center_), tukey_depth(est.center_, X) >= len(X) / 6
    (2, True)
    """

    algorithm_name = "private center point (FindTukey, Beimel, Moran, Nissim, Stemmer 2019)"

    @refuses_renamed_parameters
    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        domain=None,
        optimizer="exponential",
        composition="auto",
        depth="tukey",
        beta=0.1,
        random_state=None,
        accountant=None,
    ):
        self._store_parameters(locals())

    _renamed_parameters = {"mode": "optimizer"}
    _choices = {"optimizer": OPTIMIZERS, "composition": COMPOSITIONS, "depth": DEPTHS}
    _needs_delta = FIND_TUKEY_NEEDS_DELTA
    _public_space = staticmethod(box_domain)

    def _check_parameters(self) -> None:
        check_probability(self.beta, "beta")

    def _tukey_choices(self) -> dict:
        # one set of public choices for the plan (the warning) and the run
        return dict(beta=self.beta, optimizer=self.optimizer, composition=self.composition, depth=self.depth)

    #: reads X through privpac.backends: engine data are counted, then brought to the driver
    _fits_on_engines = True

    @private_fit
    def fit(self, X, y=None):
        """Fit on ``X`` of shape ``(n, d)``, points of the public domain; returns ``self``.

        ``d in {1, 2, 3}`` in Tukey depth, any ``d`` in directional depth.

        ``d = 2`` is exact for ``n <= MAX_POINTS_2D`` (the depth regions as exact polygons,
        :class:`~privpac.geometry.contours.PlanarDepthRegions`; any public bound ``B``), ``d = 3`` for
        ``n <= MAX_POINTS_3D`` (both refused from the shape above). ``X`` may be
        a Dask collection or a Spark DataFrame: its rows are counted exactly where they live,
        refused above :func:`check_engine_size`, and only then brought to the driver in row order
        (:func:`~privpac.estimators.base.engine_rows`), where the fit runs as in memory.
        """
        ledger, rng, space = self._begin_fit()
        X = self._check_features(X, reset=True)
        names = self._feature_names()
        if is_engine_collection(X):
            d = int(self.n_features_in_)
            X, _ = engine_rows(X, None, lambda n: check_engine_size(n, d, self.depth))
        shape = np.shape(X)
        if len(shape) == 2 and shape[1] == 0:
            raise DataError(f"0 feature(s) (shape={shape}) while a minimum of 1 is required: X needs at least 1 column")
        if len(shape) == 2 and shape[0]:  # (n, d) is public: the refusal says so before anything else is read
            check_find_tukey_size(int(shape[0]), int(shape[1]), self.depth)
        B, lattice = box_lattice(space, int(shape[1]) if len(shape) == 2 else 1, names)
        if lattice is None:
            arr, bound = as_integer_points(X, "X")  # dense, finite, integer (names a bad record)
            if bound > B:
                arr = check_points_in_box(arr, B)  # raises DomainError naming the record
        else:
            arr = lattice.to_lattice(X, "X")  # each record to its grid point (names a record outside the grid)
            if arr.shape[0] == 0:
                raise DataError(f"X is empty: at least one point is needed (shape {arr.shape})")
        n, d = arr.shape
        plan = plan_find_tukey(n, d, B, ledger.budget_epsilon, ledger.budget_delta, **self._tukey_choices())
        self._warn_few_records(
            n,
            plan.sufficient_n,
            f"a center point of {plan.depth} depth n/(2(d+1)) in "
            f"{box_text(B, lattice, d)} by FindTukey ({plan.optimizer}, {plan.composition} composition) at "
            f"epsilon={plan.epsilon:g}, beta={plan.beta:g}",
            "Use more data, a larger epsilon or a smaller domain bound B" + grid_advice(lattice),
            proven=True,
        )
        result = find_tukey(
            arr, B, ledger.budget_epsilon, ledger.budget_delta, **self._tukey_choices(), ledger=ledger, rng=rng
        )
        center = result.center if lattice is None else lattice.point(result.center)
        return self._finish_exact_fit(center, B, lattice, plan.composition, n, d, ledger)

    @property
    def center_float_(self) -> np.ndarray:
        """The center as floats (rounded; ``center_`` is exact)."""
        return self._exact_float()

    def summary(self) -> list[str]:
        self._check_fitted()
        exact, approx = exact_text(self.center_)
        return [
            f"{self.algorithm_name}: {self.optimizer} per coordinate, {self.composition_} composition, "
            f"{self.depth} depth",
            f"  center = ({exact}) ~ ({approx})",
            f"  n = {self.n_samples_}, d = {self.n_features_in_}, domain {domain_text(self.domain_)}",
        ]
