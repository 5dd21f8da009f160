"""A private point-function classifier on one feature (Beimel, Nissim, Stemmer, Lemma 3.2)."""

from __future__ import annotations

import math

import numpy as np

from ..bounds.measured import threshold_records
from ..formatting import fmt_size, int_from_text, int_to_text
from ..learners.exponential import em_learn_points
from ..learners.point import ON_BOTTOM, learn_point
from ..mechanisms.adist import adist_release_gap
from ..validation import check_choice, check_probability
from ._one_d import domain_size, index_value, prediction_indices, show
from .base import PrivateClassifierBase, private_fit

__all__ = ["PrivatePointClassifier"]

METHODS = ("auto", "adist", "exponential")
#: The methods that run (``method_``): ``"auto"`` resolves to one of them.
RESOLVED_METHODS = ("adist", "exponential")


class PrivatePointClassifier(PrivateClassifierBase):
    """Learn ``x -> [x == p]`` on one feature with differential privacy.

    Parameters
    ----------
    epsilon, delta : float
        Total budget (replace-one neighbours).
    domain : IntegerDomain, one-dimensional Grid or tuple
        Public domain of the feature.
    method : {"auto", "adist", "exponential"}
        ``"adist"``: the (epsilon, delta) learner of Lemma 3.2 through the corrected A_dist (E1),
        whose sample size does not grow with the domain. ``"exponential"``: the exponential mechanism
        over all point functions (pure epsilon-DP, ``Theta(log |X|)`` samples; called ``"em"`` before,
        which is refused with the new name). ``"auto"``: A_dist when
        ``delta > 0``, else the exponential mechanism.
    on_bottom : {"random", "zero"}
        When A_dist finds no stable point: a uniformly random point (the paper; needs
        ``|X| >= 1/(alpha beta)``) or the all-zero hypothesis (Remark 3.3).
    alpha, beta : float
        Used only to warn when the random fallback's utility condition fails.
    constants : {"tuned", "paper"}
        Accepted for uniformity: Lemma 3.2 has no budget split, both are the same algorithm.
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Attributes
    ----------
    point_ : int or None
        Index of the learned point (``None``: the all-zero hypothesis).
    point_value_ : the learned point in data units (or ``None``).
    released_ : bool
        Whether A_dist released a point (always True for ``"exponential"``).
    method_ : str
    """

    _fits_on_engines = True
    _renamed_values = {"method": {"em": "exponential"}}

    algorithm_name = "private point classifier (Beimel, Nissim, Stemmer)"

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        domain=None,
        constants="tuned",
        random_state=None,
        labels=(0, 1),
        method="auto",
        on_bottom="random",
        alpha=0.1,
        beta=0.1,
        accountant=None,
    ):
        self._store_parameters(locals())

    @private_fit
    def fit(self, X, y):
        ledger, rng = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        method = check_choice(self.method, "method", METHODS, renamed=self._renamed_values["method"])
        check_choice(self.on_bottom, "on_bottom", ON_BOTTOM)
        alpha = check_probability(self.alpha, "alpha")
        beta = check_probability(self.beta, "beta")
        size = domain_size(self.domain_)
        eps, delta = ledger.budget_epsilon, ledger.budget_delta
        if method == "auto":
            method = "adist" if delta > 0.0 else "exponential"
        self.method_ = method
        # the exponential mechanism is drawn range by range (the driver never holds the distinct
        # values); A_dist reads the top two counts of the whole quality
        sample = self._labelled_ranges(X, y) if method == "exponential" else self._labelled_sample(X, y)
        if method == "exponential":  # over |X| points: as over thresholds, ln |X| / (eps alpha)
            needed = threshold_records("exponential", size, eps, alpha)
            what = f"the exponential mechanism at epsilon={eps:g}, alpha={alpha:g} on {fmt_size(size)} points"
        else:  # Lemma 3.2: A_dist releases once the target's lead, alpha m / 2, clears its release gap
            needed = math.ceil(2.0 * adist_release_gap(eps, delta, beta / 2.0) / alpha)
            what = f"A_dist at epsilon={eps:g}, delta={delta:g}, alpha={alpha:g} (Lemma 3.2's tight requirement)"
        self._warn_few_records(sample.n, needed, what, "Use more data or a larger epsilon or alpha.")
        if method == "exponential":
            h = em_learn_points(sample, None, size, eps, ledger=ledger, rng=rng)
            self.point_, self.released_ = h.point, True
        else:
            h, released = learn_point(
                sample,
                None,
                size,
                eps,
                delta,
                on_bottom=self.on_bottom,
                alpha=alpha,
                beta=beta,
                ledger=ledger,
                rng=rng,
            )
            self.point_, self.released_ = h.point, released
        self.n_samples_ = sample.n
        self._end_fit(ledger)
        return self

    @property
    def point_value_(self):
        self._check_fitted()
        return None if self.point_ is None else index_value(self.domain_, self.point_)

    def predict(self, X) -> np.ndarray:
        self._check_fitted()
        X = self._check_features(X, reset=False)
        idx = prediction_indices(self.domain_, X)
        if self.point_ is None:
            h = np.zeros(idx.shape[0], dtype=np.int8)
        else:
            h = np.asarray(idx == self.point_, dtype=np.int8)
        return self._decode(h)

    def _fitted_state(self) -> dict:
        return {
            "point": None if self.point_ is None else int_to_text(self.point_),
            "released": bool(self.released_),
            "method": self.method_,
            "n_samples": self.n_samples_,
        }

    def _restore_state(self, state: dict) -> None:
        self.point_ = None if state["point"] is None else int_from_text(state["point"])
        self.released_ = bool(state["released"])
        self.method_ = check_choice(state["method"], "method", RESOLVED_METHODS)
        self.n_samples_ = int(state["n_samples"])

    def summary(self) -> list[str]:
        self._check_fitted()
        neg, pos = self.labels
        if self.point_ is None:
            rule = f"predicts {neg!r} everywhere (A_dist found no stable point; on_bottom='zero')"
        else:
            rule = (
                f"predicts {pos!r} exactly at x = {show(self.point_value_)} (index {show(self.point_)}), else {neg!r}"
            )
        how = {"adist": "A_dist", "exponential": "exponential mechanism"}[self.method_]
        note = "" if self.released_ else " (A_dist returned bottom: fallback hypothesis)"
        return [f"{self.algorithm_name}: {how}{note}", f"  {rule}", f"  fitted on n = {self.n_samples_} records"]
