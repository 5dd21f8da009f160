"""``LabelPrivateClassifier``: the generic label-private (or semi-private) learner as an estimator.

Beimel, Nissim, Stemmer, section 6 (Fig. 13, Thm 6.2; section 6.2). ``fit(X, y)`` protects the
**labels only** (epsilon-DP for every fixed feature vector; the features are not protected).
``fit(X, y, X_public=D)`` runs the semi-private learner: the candidate hypotheses come from the
public unlabelled ``D`` and the whole labelled sample, features and labels, is epsilon-DP.
See :mod:`privpac.learners.label_private` for the algorithm, its privacy argument and its
sample sizes (and the erratum on the size of the unlabelled part).

The sample is read where it lives (:mod:`privpac.backends`; in memory, on Dask or on Spark) in
three exact passes: the row count with every record checked against the public domain and label
set (before anything is spent); the distinct features of the first ``n`` rows by row position
(``B``: features only, public under label privacy); and the score of every candidate summed over
the other rows (``|H|`` integers). The driver receives these and nothing else (no labels) and
draws the exponential mechanism's noise once.
"""

from __future__ import annotations

import numpy as np

from ..backends import backend_for
from ..domains import as_domain
from ..errors import DataError
from ..learners.concept_classes import PointFunctions, Thresholds
from ..learners.label_private import label_private_from_oracles, semi_private_from_oracles
from ..sanitizers.database import concat_indices
from ..validation import check_choice
from ._one_d import domain_indices, domain_size, labelled_indices
from .base import PrivateClassifierBase, private_fit

__all__ = ["LabelPrivateClassifier"]

CONCEPTS = {"thresholds": Thresholds, "points": PointFunctions}


def _count(backend, domain, labels, X, y) -> int:
    """The exact number of records, every block checked before anything is spent."""
    m = backend.map_merge(lambda X_b, y_b: labelled_indices(domain, labels, X_b, y_b)[0].shape[0], sum, X, y)
    if m == 0:
        raise DataError("X is empty: at least one record is needed")
    return int(m)


def _head_points(backend, domain, X, y, n: int, offsets=None) -> np.ndarray:
    """The distinct features of the rows at positions ``0 .. n - 1`` (no label is read)."""

    def kernel(start, X_b, y_b):
        return np.unique(domain_indices(domain, X_b)[: max(0, n - start)])

    merge = lambda parts: np.unique(concat_indices(list(parts)))  # noqa: E731
    return backend.map_merge_rows(kernel, merge, X, y, offsets=offsets)


def _scores(backend, domain, labels, X, y, cls, H, skip: int = 0, offsets=None) -> np.ndarray:
    """``#{(x, y) : h(x) = y}`` for every ``h`` in ``H``, over the rows at positions ``>= skip``."""

    def kernel(start, X_b, y_b):
        idx, y01 = labelled_indices(domain, labels, X_b, y_b)
        keep = slice(max(0, skip - start), None)
        if idx[keep].shape[0] == 0:
            return np.zeros(len(H), dtype=np.int64)
        return np.asarray(cls.scores(H, idx[keep], y01[keep]), dtype=np.int64)

    merge = lambda parts: np.sum(list(parts), axis=0, dtype=np.int64)  # noqa: E731
    return backend.map_merge_rows(kernel, merge, X, y, offsets=offsets)


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
        self._store_parameters(locals())

    def _index(self, X, name="X"):
        domain = as_domain(self.domain_)
        return domain_indices(domain, X, name), domain_size(domain)

    #: reads X through privpac.backends: in memory, Dask or Spark (the label as a column name)
    _fits_on_engines = True

    @private_fit
    def fit(self, X, y, X_public=None):
        ledger, rng = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        check_choice(self.concept, "concept", tuple(CONCEPTS))
        domain, labels = as_domain(self.domain_), tuple(self.labels)
        size = domain_size(domain)
        backend = backend_for(X)
        m = _count(backend, domain, labels, X, y)
        self.classes_ = np.asarray(self.labels)
        cls = CONCEPTS[self.concept](size)
        common = dict(epsilon=ledger.budget_epsilon, alpha=self.alpha, beta=self.beta, constants=self.constants)
        if X_public is None:
            offsets = backend.row_offsets(X, y)  # the blocks' positions, counted once for both passes
            res = label_private_from_oracles(
                m,
                lambda n: _head_points(backend, domain, X, y, n, offsets),
                lambda H, n: _scores(backend, domain, labels, X, y, cls, H, skip=n, offsets=offsets),
                cls,
                n_unlabelled=self.n_unlabelled,
                ledger=ledger,
                rng=rng,
                **common,
            )
            self.privacy_unit_ = "labels"
        else:
            public, _ = self._index(X_public, "X_public")
            scores = lambda H: _scores(backend, domain, labels, X, y, cls, H)  # noqa: E731
            res = semi_private_from_oracles(public, m, scores, cls, ledger=ledger, rng=rng, **common)
            self.privacy_unit_ = "labelled records"
        self.hypothesis_ = int(res.hypothesis)
        self.n_samples_ = m
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
        X = self._check_features(X, reset=False)
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
