"""A private threshold classifier on one feature: LearnThresholds (RecConcave) or the exponential
mechanism (Beimel, Nissim, Stemmer, Thm 3.18 and section 2.5.2)."""

from __future__ import annotations

import numpy as np

from ..bounds.measured import MEASURED_RECCONCAVE_N, threshold_records
from ..domains import IntegerDomain
from ..formatting import fmt_size, int_from_text, int_to_text
from ..learners.exponential import ORIENTATIONS, choose_orientation, em_learn_oriented_thresholds, em_learn_thresholds
from ..learners.thresholds import learn_thresholds
from ..validation import check_choice, check_int, check_probability
from ._one_d import domain_size, index_value, prediction_indices, show
from .base import PrivateClassifierBase, private_fit

__all__ = ["PrivateThresholdClassifier"]

METHODS = ("auto", "recconcave", "exponential")
#: The methods that run (``method_``): ``"auto"`` resolves to one of them.
RESOLVED_METHODS = ("recconcave", "exponential")
#: The share of epsilon that chooses the orientation before RecConcave, when it is not given.
ORIENTATION_SHARE = 0.1


class PrivateThresholdClassifier(PrivateClassifierBase):
    """Learn ``x -> [x < t]`` (or ``[x >= t]``) on one feature with differential privacy.

    Parameters
    ----------
    epsilon, delta : float
        Total privacy budget (replace-one neighbours; the number of records is public).
    domain : IntegerDomain, one-dimensional Grid, ``(lo, hi)`` or ``(low, high, n_points)``
        The public domain of the feature (never derived from the data). Integer domains may have
        any size (``2^64``, ``2^65536``); a grid maps real values to its nearest point.
    constants : {"tuned", "paper"}
        ``"paper"``: LearnThresholds exactly as Thm 3.18 (RecConcave, ``eps/3N`` per mechanism,
        ``N = log*|X|`` unless given). ``"tuned"`` (default): the same privacy with the depth and
        budget split that minimise the samples needed.
    method : {"auto", "recconcave", "exponential"}
        ``"recconcave"``: LearnThresholds. ``"exponential"``: the exponential mechanism over all
        thresholds (pure epsilon-DP, the Kasiviswanathan et al. learner; called ``"em"`` before,
        which is refused with the new name). ``"auto"`` (default): with tuned
        constants, ``N=None`` and ``delta > 0``, whichever needs fewer records by the measured
        sample sizes shipped in :mod:`privpac.bounds.measured` (public: the exponential mechanism
        up to about ``2^81`` points, RecConcave above; the proven bounds would place the switch
        near ``2^300``), RecConcave with the measured depth bound ``N = 2``; the exponential mechanism
        when ``delta = 0``; LearnThresholds with paper constants.
    N : int or None
        RecConcave's recursion-depth bound.
    alpha, beta : float
        Target accuracy and confidence (RecConcave's accuracy is ``alpha/2``, its budget split is
        tuned for failure ``beta/2``). They never affect privacy.
    orientation : {"auto", "below", "above"}, default="auto"
        ``"below"``: label 1 below the threshold (the paper's class ``c_j(x) = 1`` iff ``x < j``).
        ``"above"``: label 1 at and above it (learned as the paper's class on flipped labels).
        ``"auto"`` (default): learned privately too. With the exponential mechanism, one mechanism
        over the thresholds of both orientations (the class of ``2 (|X| + 1)`` hypotheses: the same
        epsilon, one more ``ln 2`` in the sample size); with RecConcave, which needs one
        orientation, the exponential mechanism first picks the orientation whose best threshold
        labels most records (that maximum has sensitivity 1) with ``ORIENTATION_SHARE = 0.1`` of
        epsilon, and LearnThresholds runs with the rest. Give the orientation when it is known
        (``constants="paper"`` reproduces the paper with ``orientation="below"``).
    labels : pair
        The public labels ``(negative, positive)``.
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Attributes
    ----------
    threshold_ : int
        Index ``j`` in ``[0, size]``: the hypothesis is ``[index(x) < j]`` (or its complement).
    threshold_value_ : int or float
        The cut in data units: integer domains predict 1 iff ``x < threshold_value_``; grids cut
        half-way between grid points.
    orientation_ : {"below", "above"}
        The orientation used: the one given, or the one learned privately (``orientation="auto"``).
    method_, depth_ : str, int
        The algorithm that ran and RecConcave's number of levels (1 for the exponential mechanism).
    ledger_, privacy_spent_ : the privacy ledger and the total spent.

    Privacy: (epsilon, delta)-DP (Thm 3.15/3.18; pure epsilon-DP when ``method_ == "exponential"``).
    Utility: see :func:`privpac.bounds.bns.learn_thresholds_stated` and ``privpac bounds
    bns-learn-thresholds``.
    """

    _fits_on_engines = True
    _renamed_values = {"method": {"em": "exponential"}}

    algorithm_name = "private threshold classifier (Beimel, Nissim, Stemmer)"

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        domain=None,
        constants="tuned",
        random_state=None,
        labels=(0, 1),
        method="auto",
        N=None,
        alpha=0.1,
        beta=0.1,
        orientation="auto",
        accountant=None,
    ):
        self._store_parameters(locals())

    def _resolve_method(self, size: int, eps: float, delta: float) -> str:
        method = check_choice(self.method, "method", METHODS, renamed=self._renamed_values["method"])
        if method != "auto":
            return method
        if self.constants == "paper" or self.N is not None:
            return "recconcave"
        if delta == 0.0:
            return "exponential"
        # measured, not proven, sample sizes (public tables): the proven bounds switch ~2^219 later
        alpha = check_probability(self.alpha, "alpha")
        em = threshold_records("exponential", size, eps, alpha)
        rc = threshold_records("recconcave", size, eps, alpha)
        return "recconcave" if rc < em else "exponential"

    @private_fit
    def fit(self, X, y):
        ledger, rng = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        orientation = check_choice(self.orientation, "orientation", ("auto", *ORIENTATIONS))
        alpha = check_probability(self.alpha, "alpha")
        beta = check_probability(self.beta, "beta")
        N = None if self.N is None else check_int(self.N, "N", low=1)
        size = domain_size(self.domain_)
        eps, delta = ledger.budget_epsilon, ledger.budget_delta
        self.method_ = self._resolve_method(size, eps, delta)
        if self.method_ == "exponential":  # drawn range by range: the driver never holds the distinct values
            sample = self._labelled_ranges(X, y)
        else:  # RecConcave (and the orientation choice before it) reads the whole quality
            sample = self._labelled_sample(X, y)
        if self.method == "auto" and N is None and self.constants == "tuned" and self.method_ == "recconcave":
            N = MEASURED_RECCONCAVE_N  # the depth whose measured sample sizes chose RecConcave
        needed = threshold_records(self.method_, size, eps, alpha)
        learner = "exponential mechanism" if self.method_ == "exponential" else "RecConcave learner"
        self._warn_few_records(
            sample.n,
            needed,
            f"the {learner} at epsilon={eps:g}, "
            f"alpha={alpha:g} on {fmt_size(size)} points (measured, benchmarks/thresholds.py)",
            "Use more data, a larger epsilon or alpha, or a smaller domain: a coarser public domain (a Grid with "
            "fewer points) costs the exponential mechanism less, about linearly in log2 of its size.",
        )
        if self.method_ == "exponential" and orientation == "auto":
            # one exponential mechanism over the thresholds of both orientations: no extra cost
            h, orientation = em_learn_oriented_thresholds(sample, None, size, eps, ledger=ledger, rng=rng)
            self.threshold_, self.depth_ = int(h.threshold), 1
        else:
            if orientation == "auto":
                # RecConcave needs one orientation: chosen first, with a share of the budget
                eps_o = ORIENTATION_SHARE * eps
                orientation = choose_orientation(sample, None, size, eps_o, ledger=ledger, rng=rng)
                eps -= eps_o
            oriented = sample.flipped() if orientation == "above" else sample
            if self.method_ == "exponential":
                h = em_learn_thresholds(oriented, None, size, eps, ledger=ledger, rng=rng)
                self.threshold_, self.depth_ = int(h.threshold), 1
            else:
                res = learn_thresholds(
                    oriented, None, size, alpha, beta, eps, delta, N=N, constants=self.constants, ledger=ledger, rng=rng
                )
                self.threshold_, self.depth_ = int(res.threshold), res.depth
        self.orientation_ = orientation
        self.n_samples_ = sample.n
        self._end_fit(ledger)
        return self

    @property
    def threshold_value_(self):
        """The cut in data units (integer domains: predict 1 iff ``x < threshold_value_``)."""
        self._check_fitted()
        d = self.domain_
        if isinstance(d, IntegerDomain):
            return d.lo + self.threshold_
        return float(d.low[0] + (self.threshold_ - 0.5) * d.step[0])

    def predict(self, X) -> np.ndarray:
        self._check_fitted()
        X = self._check_features(X, reset=False)
        below = prediction_indices(self.domain_, X) < self.threshold_
        h = np.asarray(below, dtype=np.int8)
        if self.orientation_ == "above":
            h = 1 - h
        return self._decode(h)

    def threshold_point(self):
        """The first domain element labelled as ``orientation`` says: ``index_value(threshold_)``."""
        self._check_fitted()
        size = domain_size(self.domain_)
        return None if self.threshold_ >= size else index_value(self.domain_, self.threshold_)

    def _fitted_state(self) -> dict:
        return {
            "threshold": int_to_text(self.threshold_),
            "method": self.method_,
            "depth": self.depth_,
            "orientation": self.orientation_,
            "n_samples": self.n_samples_,
        }

    def _restore_state(self, state: dict) -> None:
        self.threshold_ = int_from_text(state["threshold"])
        self.method_ = check_choice(state["method"], "method", RESOLVED_METHODS)
        self.depth_ = int(state["depth"])
        self.orientation_ = check_choice(state["orientation"], "orientation", ORIENTATIONS)
        self.n_samples_ = int(state["n_samples"])

    def summary(self) -> list[str]:
        self._check_fitted()
        side = "<" if self.orientation_ == "below" else ">="
        neg, pos = self.labels
        algo = "exponential mechanism" if self.method_ == "exponential" else f"RecConcave, {self.depth_} level(s)"
        return [
            f"{self.algorithm_name}: {algo}",
            f"  predicts {pos!r} when x {side} {show(self.threshold_value_)} "
            f"(threshold index {show(self.threshold_)}), else {neg!r}",
            f"  fitted on n = {self.n_samples_} records",
        ]
