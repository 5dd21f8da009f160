"""``LabelPrivateClassifier``: the generic label-private (or semi-private) learner as an estimator.

Beimel, Nissim, Stemmer, section 6 (Fig. 13, Thm 6.2; section 6.2). ``fit(X, y)`` protects the
**labels only** (epsilon-DP for every fixed feature vector; the features are not protected).
``fit(X, y, X_public=D)`` runs the semi-private learner: the candidate hypotheses come from the
public unlabelled ``D`` and the whole labelled sample, features and labels, is epsilon-DP.
See :mod:`privpac.learners.label_private` for the algorithm, its privacy argument and its
sample sizes (and the erratum on the size of the unlabelled part).
"""

from __future__ import annotations

from ..domains import as_domain
from ..learners.concept_classes import PointFunctions, Thresholds
from ..learners.label_private import label_private_learner, semi_private_learner
from ..validation import check_choice
from ._one_d import domain_indices, domain_size
from .base import PrivateClassifierBase, private_fit

__all__ = ["LabelPrivateClassifier"]

CONCEPTS = {"thresholds": Thresholds, "points": PointFunctions}


class LabelPrivateClassifier(PrivateClassifierBase):
    """Label-private PAC learner for thresholds (``x < j``) or point functions (``x == j``).

    Parameters
    ----------
    epsilon : float
        The labels (or, with ``X_public``, the whole labelled sample) are (epsilon, 0)-DP.
    delta : float
        Accepted for a uniform interface and unused (the learner is pure DP).
    domain : IntegerDomain or 1-D Grid
        Public domain of the single feature.
    concept : {"thresholds", "points"}
        The concept class.
    alpha, beta : float
        Accuracy and confidence that size the unlabelled part ``S1`` and the warnings.
    n_unlabelled : int or None
        ``|S1|`` (default: the theorem's value for ``constants``).
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Attributes
    ----------
    hypothesis_ : int
        The threshold ``j`` or the point ``j`` (domain index).
    n_candidates_ : int
        ``|H|``.
    """

    algorithm_name = "label-private learner (Beimel, Nissim, Stemmer, Fig. 13)"

    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        domain=None,
        constants="tuned",
        random_state=None,
        labels=(0, 1),
        concept="thresholds",
        alpha=0.1,
        beta=0.1,
        n_unlabelled=None,
        accountant=None,
    ):
        super().__init__(epsilon, delta, domain, constants, random_state, labels, accountant=accountant)
        self.concept = concept
        self.alpha = alpha
        self.beta = beta
        self.n_unlabelled = n_unlabelled

    def _index(self, X, name="X"):
        domain = as_domain(self.domain_)
        return domain_indices(domain, X, name), domain_size(domain)

    @private_fit
    def fit(self, X, y, X_public=None):
        ledger, rng = self._begin_fit()
        self._check_features(X, reset=True, y=y)
        check_choice(self.concept, "concept", tuple(CONCEPTS))
        idx, size = self._index(X)
        y01 = self._validate_labels(y, len(idx))
        cls = CONCEPTS[self.concept](size)
        if X_public is None:
            res = label_private_learner(
                idx,
                y01,
                cls,
                epsilon=ledger.budget_epsilon,
                alpha=self.alpha,
                beta=self.beta,
                constants=self.constants,
                n_unlabelled=self.n_unlabelled,
                ledger=ledger,
                rng=rng,
            )
            self.privacy_unit_ = "labels"
        else:
            public, _ = self._index(X_public, "X_public")
            res = semi_private_learner(
                public,
                idx,
                y01,
                cls,
                epsilon=ledger.budget_epsilon,
                alpha=self.alpha,
                beta=self.beta,
                constants=self.constants,
                ledger=ledger,
                rng=rng,
            )
            self.privacy_unit_ = "labelled records"
        self.hypothesis_ = int(res.hypothesis)
        self.n_samples_ = int(len(idx))
        self.n_candidates_ = len(res.candidates)
        self.domain_size_ = size
        self._end_fit(ledger)
        return self

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        X, y = super()._public_example(n_samples, n_features)
        if getattr(self, "privacy_unit_", "labels") == "labelled records":
            return X, y, X[:1]
        return X, y

    def predict(self, X):
        self._check_fitted()
        self._check_features(X, reset=False)
        idx, _ = self._index(X)
        cls = CONCEPTS[self.concept](self.domain_size_)
        return self._decode(cls.predict(self.hypothesis_, idx))

    def _fitted_state(self) -> dict:
        return {
            "hypothesis": str(self.hypothesis_),
            "n_candidates": self.n_candidates_,
            "domain_size": str(self.domain_size_),
            "privacy_unit": self.privacy_unit_,
            "n_samples": self.n_samples_,
        }

    def _restore_state(self, state: dict) -> None:
        self.hypothesis_ = int(state["hypothesis"])
        self.n_samples_ = int(state["n_samples"])
        self.n_candidates_ = int(state["n_candidates"])
        self.domain_size_ = int(state["domain_size"])
        self.privacy_unit_ = state["privacy_unit"]

    def summary(self) -> list[str]:
        self._check_fitted()
        rule = f"x < index {self.hypothesis_}" if self.concept == "thresholds" else f"x == index {self.hypothesis_}"
        return [
            f"{self.algorithm_name}: predicts positive iff {rule}",
            f"  {self.n_candidates_} candidate hypotheses; privacy protects the {self.privacy_unit_}",
        ]
