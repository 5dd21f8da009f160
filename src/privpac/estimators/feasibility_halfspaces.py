"""Private halfspaces on an integer grid via linear feasibility (``privpac fit halfspace-feasibility``).

The estimator over :func:`~privpac.learners.feasibility_halfspaces.learn_halfspace`: LearnHalfSpace
(Kaplan, Mansour, Stemmer, Tsfadia, NeurIPS 2020, Fig. 3, Thm 5.1) and their PAC learner (Thm 5.2),
with the margin-1 dual of spec ``kmst-halfspaces`` 3.7 item 1 by default. Unlike
:class:`~privpac.estimators.halfspaces.PrivateHalfspaceClassifier` (large margin, any dimension)
it needs no margin: the data lie on a public grid ``[[-X, X]]^d`` (or, real-valued, on a public
:class:`~privpac.domains.Grid`, run on its integer lattice) and the hypothesis is any halfspace
``<a, x> >= w`` (with an offset), found exactly. FindDeepPoint's supported dimensions limit ``d``
(``d = 1`` today)::

    privpac fit halfspace-feasibility data.csv --label y --domain -8:8 -o model.json
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..domains import box_lattice, domain_text, integer_box
from ..errors import InvalidParameterError, UtilityWarning
from ..learners.center_point import check_points_in_box
from ..learners.feasibility_candidates import engine_candidate_depths, engine_constraints
from ..learners.feasibility_halfspaces import (
    DUALS,
    LEARNERS,
    check_learner_dimension,
    dual_system,
    halfspace_candidates,
    halfspace_from_solution,
    learn_halfspace,
    plan_halfspace_learner,
)
from ..learners.linear_feasibility import OPTIMIZERS, candidate_levels_of, run_find_deep_point
from ..validation import (
    check_array,
    check_labels,
    check_probability,
    check_real,
    is_engine_collection,
    refuses_renamed_parameters,
)
from ._exact_geometry import box_text, exact_text, grid_advice
from ._exact_linear import ExactLinearClassifierMixin
from .base import PrivateClassifierBase, engine_rows, private_fit
from .linear_feasibility import check_engine_size, resolve_candidates

__all__ = ["PrivateFeasibilityHalfspaceClassifier", "grid_domain"]


def grid_domain(domain):
    """The public grid, validated before the data is read: the int ``X`` of ``[[-X, X]]^d`` (an int or
    ``IntegerDomain(-X, X)``), or a domain (a :class:`~privpac.domains.Grid`, per-feature bounds, an
    integer range off centre) that runs on its integer lattice (:func:`~privpac.domains.box_lattice`)."""
    return integer_box(domain, "domain", "X", "the grid of the features")


class _DualBlock:
    """One engine block's dual constraints ``y (<a, x> - w) >= b``, validated against the public grid and labels
    (the records first mapped to the lattice of a public real grid, when ``lattice`` is given)."""

    def __init__(self, G: int, labels, dual: str, lattice=None):
        self.G, self.labels, self.dual, self.lattice = G, labels, dual, lattice

    def __call__(self, start, X_block, y_block):
        if len(X_block) == 0:
            return None
        if self.lattice is not None:
            X_block = self.lattice.to_lattice(X_block, "X", first_row=start)
        arr = check_points_in_box(np.asarray(X_block), self.G, what="grid", first_row=start)
        y01 = check_labels(np.asarray(y_block), self.labels, arr.shape[0])
        return dual_system(arr, y01, self.dual)


class PrivateFeasibilityHalfspaceClassifier(ExactLinearClassifierMixin, PrivateClassifierBase):
    """A private halfspace ``<a, x> >= w`` for data on a public grid, by private linear feasibility.

    Each record ``(x, y)`` becomes the constraint ``y (<a, x> - w) >= 1`` (margin-1, default) or
    ``>= 0`` (the paper's) on the halfspace ``(a, w)``, and FindDeepPoint (Kaplan, Mansour, Stemmer,
    Tsfadia 2020, Fig. 2) returns a point satisfying most of them: LearnHalfSpace (Fig. 3,
    Thm 5.1) or, with ``learner="pac"``, the PAC learner (Thm 5.2).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget (replace-one neighbours: ``n`` is public).
    delta : float, default=0.0
        Total delta. The default optimiser is pure ``epsilon``-DP; ``optimizer="recconcave"``
        needs ``delta > 0``.
    domain : int, IntegerDomain, Grid, tuple, str or mapping
        The public grid, required (never read off the data). Integer features: ``X`` or
        ``IntegerDomain(lo, hi)`` (``"lo:hi"`` on the command line) for every feature. Real-valued
        features: ``Grid(low, high, n_points)`` (``"low:high:n"``; per-feature arrays, or a mapping of
        column names to bounds for a DataFrame): each record is mapped to its nearest grid point (a
        per-record public map, no privacy cost), the learner runs on the grid's integer lattice
        ``[[-X, X]]^d`` (:class:`~privpac.domains.Lattice`: a finer grid is a larger ``X``), and
        ``coef_exact_``/``intercept_exact_`` come back in the data's units.
    learner : {"erm", "pac"}, default="erm"
        ``"erm"``: LearnHalfSpace, small training error (Thm 5.1). ``"pac"``: the PAC learner
        (Thm 5.2), small population error: ERM at ``(alpha/10, beta/2)`` (margin-1) or the paper's
        noisy-grid construction (``dual="paper"``).
    dual : {"margin-1", "paper"}, default="margin-1"
        ``"margin-1"`` (spec 3.7 item 1): feasible for every realisable sample, no general position
        needed, the constant hypothesis for one-class data. ``"paper"``: the printed construction
        (homogeneous constraints, and for the PAC learner per-record uniform noise on a finer grid);
        it can return the degenerate ``a = 0`` (reported in ``degenerate_`` with a warning).
    optimizer : {"exponential", "recconcave"}, default="exponential"
        FindDeepPoint's per-coordinate optimiser: the exponential mechanism (pure DP) or RecConcave
        (the paper's; needs ``delta > 0`` and far more records).
    alpha : float, default=0.1
        Target error (it sets FindDeepPoint's accuracy, the promises and the sufficient size).
    beta : float, default=0.1
        Failure probability.
    candidates : None, int or array-like of shape (n, d + 1), default=None
        ``None``: the exact oracle (``d <= 2``). Otherwise FindDeepPoint runs over a public finite set
        of candidate halfspaces ``(a, w)`` (spec 6.5 option 1): any ``d``, and far more records; not
        the paper's algorithm: the error is relative to the best candidate. An int ``n``: ``n``
        random halfspaces drawn without the data
        (:func:`~privpac.learners.feasibility_halfspaces.halfspace_candidates`: integer directions of
        resolution 64 through uniform points of the grid's box, plus the two constant hypotheses);
        an array: your own integer rows ``(a_1, ..., a_d, w)`` (integer domains only: on a real grid
        the random candidates are drawn on its lattice). Not with ``learner="pac", dual="paper"``.
        On Dask and Spark only the ``n`` candidate depths reach the driver.
    labels : pair, default=(0, 1)
        The public label set ``(negative, positive)``.
    random_state : None, int or RandomSource, default=None
        ``None``: operating-system entropy; an int: a reproducible run (not for releases).
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release.

    Attributes
    ----------
    coef_exact_ : tuple of fractions.Fraction
        ``a`` (exact); ``coef_`` is the float view.
    intercept_exact_ : fractions.Fraction
        ``-w`` (exact); ``intercept_`` is the float view. The prediction is positive iff
        ``<coef_exact_, x> + intercept_exact_ >= 0``.
    degenerate_ : bool
        ``dual="paper"`` returned ``a = 0`` (spec 3.5): a fact about the private output.
    composition_ : str
        FindDeepPoint's composition over the ``d + 1`` coordinates (a function of the parameters).
    n_samples_, n_features_in_, classes_ : the public shape and label set.
    ledger_, privacy_spent_ : the privacy accounting.

    No count of satisfied constraints or training error is stored.

    Warns
    -----
    UtilityWarning
        When ``n`` is below the plan's sufficient size (public inputs only), and when the paper
        dual returned ``a = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(-8, 9).repeat(20).reshape(-1, 1)
    >>> y = (X[:, 0] >= 3).astype(int)
    >>> est = PrivateFeasibilityHalfspaceClassifier(epsilon=5.0, domain=8, random_state=0).fit(X, y)
    >>> float(np.mean(est.predict(X) != y)) <= 0.1
    True
    """

    algorithm_name = "private halfspace via linear feasibility (LearnHalfSpace, Kaplan, Mansour, Stemmer, Tsfadia 2020)"

    @refuses_renamed_parameters
    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        domain=None,
        learner="erm",
        dual="margin-1",
        optimizer="exponential",
        alpha=0.1,
        beta=0.1,
        candidates=None,
        labels=(0, 1),
        random_state=None,
        accountant=None,
    ):
        self._store_parameters(locals())

    _renamed_parameters = {"mode": "dual", "one_d_optimizer": "optimizer"}
    _choices = {"learner": LEARNERS, "dual": DUALS, "optimizer": OPTIMIZERS}
    _needs_delta = (("optimizer", "recconcave", " (RecConcave is (epsilon, delta)-DP)"),)
    _public_space = staticmethod(grid_domain)

    def _check_parameters(self) -> None:
        check_real(self.alpha, "alpha", low=0.0, low_open=True, high=1.0)
        check_probability(self.beta, "beta")

    #: reads X through privpac.backends: engine data are counted, then brought to the driver
    _fits_on_engines = True

    def _check_engine_size(self, n: int, d: int, G: int, ledger) -> None:
        """Refuse engine data above what a fit brings to the driver, from the public ``(n, d)``: the
        learner's own refusals (the dimension, ``MAX_CONSTRAINTS_3D`` in ``D = d + 1 = 3``, the
        paper-mode grid's ``MAX_GRID_BITS``: :func:`plan_halfspace_learner`), then FindDeepPoint's
        engine cap in ``D = d + 1`` (:data:`~privpac.estimators.linear_feasibility.ENGINE_MAX_CONSTRAINTS`)."""
        check_learner_dimension(d)
        self._plan(n, d, G, ledger)
        check_engine_size(n, d + 1, who=type(self).__name__)

    def _learner_choices(self, candidates=None) -> dict:
        # one set of public choices for the plan (its refusals, the warning) and the run
        return dict(
            learner=self.learner,
            dual=self.dual,
            optimizer=self.optimizer,
            alpha=self.alpha,
            beta=self.beta,
            candidates=candidates,
        )

    def _plan(self, n: int, d: int, G: int, ledger, candidates=None):
        """The learner's public plan (its own refusals included) for ``n`` records in ``[-G, G]^d``."""
        return plan_halfspace_learner(
            n, d, G, ledger.budget_epsilon, ledger.budget_delta, **self._learner_choices(candidates)
        )

    def _candidates(self, d: int, G: int, rng, lattice=None):
        """The public candidate halfspaces (``None``: the exact oracle), drawn before the data is read."""
        if self.learner == "pac" and self.dual == "paper":
            raise InvalidParameterError(
                "candidates do not apply to learner='pac' with dual='paper' (its noise moves the records to a noisy "
                "grid of astronomical size); use dual='margin-1'"
            )
        if lattice is not None and not isinstance(self.candidates, numbers.Integral):
            raise InvalidParameterError(
                "candidates as rows (a, w) are integer halfspaces of an integer grid; with a real-valued Grid domain "
                "pass a number of random candidates (drawn on the grid's lattice)"
            )
        return resolve_candidates(
            self.candidates, None, d + 1, G, rng, draw=lambda n, src: halfspace_candidates(n, d, G, src)
        )

    @private_fit
    def fit(self, X, y):
        """Fit on points ``X`` of shape ``(n, d)`` of the public grid and labels ``y``; returns ``self``.

        ``X`` may be a Dask collection (``y`` from the same collection) or a Spark DataFrame (``y``
        the name of its label column): its rows are counted exactly where they live, refused above
        the learner's public envelope and the engine cap, and only then brought to the driver in row
        order (:func:`~privpac.estimators.base.engine_rows`), where the fit runs as in memory (the
        paper-mode PAC noise is drawn per record in that row order, as in memory).
        """
        ledger, rng, space = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        shape = None if is_engine_collection(X) else np.shape(X)
        d_public = int(self.n_features_in_) if shape is None else (int(shape[1]) if len(shape) == 2 else 1)
        G, lattice = box_lattice(space, d_public, self._feature_names())
        candidates = None
        if self.candidates is not None:
            d = int(self.n_features_in_)
            check_learner_dimension(d, True)
            candidates = self._candidates(d, G, rng, lattice)  # public, before the data
        if is_engine_collection(X) and candidates is not None:
            return self._fit_engine_candidates(X, y, G, candidates, ledger, rng, lattice)
        if is_engine_collection(X):
            d = int(self.n_features_in_)
            X, y = engine_rows(X, y, lambda n: self._check_engine_size(n, d, G, ledger))
        arr = check_array(X, "X")  # dense, numeric, finite, non-empty
        y01 = self._validate_labels(y, arr.shape[0])
        check_learner_dimension(arr.shape[1], candidates is not None)  # d is public: refused before any value is read
        if lattice is not None:
            arr = lattice.to_lattice(arr, "X")  # each record to its grid point (names one outside the grid)
        arr = check_points_in_box(arr, G, what="grid")  # integers; names the first entry outside [-G, G]
        n, d = arr.shape
        plan = self._plan(n, d, G, ledger, candidates)
        self._warn_plan(plan, n, d, G, ledger, lattice)
        result = learn_halfspace(
            arr,
            y01,
            G,
            ledger.budget_epsilon,
            ledger.budget_delta,
            **self._learner_choices(candidates),
            ledger=ledger,
            rng=rng,
        )
        return self._finish_fit(result, plan, G, n, d, ledger, lattice)

    def _fit_engine_candidates(self, X, y, G: int, candidates, ledger, rng, lattice=None):
        """Engine data over public candidates: one validating count pass, the plan, then one depth pass
        (:func:`~privpac.learners.feasibility_candidates.engine_candidate_depths`); no record leaves its partition."""
        d = int(self.n_features_in_)
        self.classes_ = np.asarray(self.labels)
        data = engine_constraints((X, y), _DualBlock(G, self.labels, self.dual, lattice), d + 1)
        n = data.m
        plan = self._plan(n, d, G, ledger, candidates)
        self._warn_plan(plan, n, d, G, ledger, lattice)
        fdp = plan.find_deep_point
        solution = run_find_deep_point(
            fdp,
            candidate_levels_of(fdp, candidates.points, lambda: engine_candidate_depths(data, candidates.points)),
            ledger=ledger,
            rng=rng,
        ).solution
        return self._finish_fit(halfspace_from_solution(plan, solution), plan, G, n, d, ledger, lattice)

    def _warn_plan(self, plan, n: int, d: int, G: int, ledger, lattice=None) -> None:
        self._warn_few_records(
            n,
            plan.sufficient_m,
            f"error <= {plan.alpha:g} ({'training' if plan.learner == 'erm' else 'population'}) by the KMST "
            f"{plan.learner} learner ({plan.dual} dual, {plan.find_deep_point.optimizer}, "
            f"{plan.find_deep_point.composition} composition) on "
            f"{box_text(G, lattice, d)} at epsilon={ledger.budget_epsilon:g}, beta={plan.beta:g}",
            "Use more data, a larger epsilon or a smaller grid bound X" + grid_advice(lattice),
            proven=True,
        )

    def _finish_fit(self, result, plan, G: int, n: int, d: int, ledger, lattice=None):
        self._set_halfspace(result, lattice)
        self.degenerate_ = bool(result.degenerate)
        self._record_fit(G, lattice, plan.find_deep_point.composition, n, d)
        if self.degenerate_:
            warnings.warn(
                f"{type(self).__name__}: the paper's dual returned a = 0, the degenerate halfspace every homogeneous "
                "constraint allows (spec kmst-halfspaces 3.5): the hypothesis is constant. Use dual='margin-1'.",
                UtilityWarning,
                stacklevel=4,
            )
        self._end_fit(ledger)
        return self

    def _released_state(self) -> dict:
        return {**super()._released_state(), "degenerate": self.degenerate_}

    def _restore_released(self, state: dict) -> None:
        super()._restore_released(state)
        self.degenerate_ = bool(state["degenerate"])

    def summary(self) -> list[str]:
        self._check_fitted()
        exact, approx = exact_text(self.coef_exact_)
        over = "" if self.candidates is None else ", over a public candidate set (spec 6.5 option 1)"
        lines = [
            f"{self.algorithm_name}: {self.learner} learner, {self.dual} dual, {self.optimizer} per coordinate, "
            f"{self.composition_} composition{over}",
            f"  predict {self.labels[1]!r} iff <a, x> + c >= 0 with a = ({exact}) ~ ({approx}), "
            f"c = {self.intercept_exact_} ~ {float(self.intercept_exact_):.6g}",
            f"  n = {self.n_samples_}, d = {self.n_features_in_}, domain {domain_text(self.domain_)}",
        ]
        if self.degenerate_:
            lines.append("  degenerate: a = 0 (the paper's dual; the hypothesis is constant)")
        return lines
