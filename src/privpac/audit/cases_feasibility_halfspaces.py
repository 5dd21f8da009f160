"""Audit case for the KMST halfspace learners, through ``PrivateFeasibilityHalfspaceClassifier.fit``.

Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 3 (LearnHalfSpace, Thm 5.1) and Thm 5.2, with
the margin-1 dual of spec ``kmst-halfspaces`` 3.7 item 1. The estimator is fitted through its public
``fit`` on tiny neighbouring labelled samples (one record replaced, ``n`` the same) in ``d = 1`` on
the grid ``[[-1, 1]]`` and audited on everything it releases
(:func:`~privpac.audit.release.fit_release`). FindDeepPoint then runs in ``D = 2`` with the
exponential mechanism per coordinate, and the exact laws are enumerated from the same fits: both
coordinates' pieces and uniform indices over the A3-rational domains (14 first-coordinate
candidates, then up to about a thousand second-coordinate candidates: about 10^4 paths, a few
seconds per dataset, the exact qualities computed once per prefix and reused between paths,
:meth:`~privpac.random.RandomSource.reuse`).

* ERM, margin-1: a label flips (the separating threshold moves);
* ERM, paper dual: a record moves to the other side (the sample stops being realisable);
* PAC, margin-1: a one-class sample gains a record of the other class;
* PAC, paper dual: the per-record uniform noise (Lemma B.6) has thousands of outcomes per sample
  and the noisy grid's candidate domains millions of members, so its law is not enumerable:
  empirical audit only, on the view "the hypothesis's labels on the grid points -1, 0, 1 and the
  rest of the release" (the exact rationals of a noisy-grid fit are all distinct, so the raw
  release has no repeated outcome to compare). The privacy argument is the ERM's plus the coupling
  of the noise (:mod:`privpac.learners.feasibility_halfspaces`).
"""

from __future__ import annotations

import numpy as np

from ..estimators.feasibility_halfspaces import PrivateFeasibilityHalfspaceClassifier
from .registry import AuditCase, Branch, NeighbourPair, register
from .release import fit_release, grid_labels_view

# (learner, dual, label, (X, y), (X', y'))
_PAIRS = [
    ("erm", "margin-1", "a label flips", ([-1, 0, 1], [0, 0, 1]), ([-1, 0, 1], [0, 1, 1])),
    ("erm", "paper", "a positive moves across the negatives", ([-1, 1, 1], [0, 1, 1]), ([-1, 1, -1], [0, 1, 1])),
    ("pac", "margin-1", "one class gains a negative", ([1, 1, 1], [1, 1, 1]), ([1, 1, 1], [1, 1, 0])),
    ("pac", "paper", "a label flips (noisy grid)", ([-1, 0, 1], [0, 0, 1]), ([-1, 0, 1], [0, 1, 1])),
]  # fmt: skip


def _release(data, rng, eps, delta):
    learner, dual, (X, y) = data
    est = PrivateFeasibilityHalfspaceClassifier(epsilon=eps, delta=0.0, domain=1, learner=learner, dual=dual)
    return fit_release(est, np.asarray(X, dtype=np.int64).reshape(-1, 1), np.asarray(y), rng=rng)


#: The exact rationals (and the summary that prints them) of a noisy-grid fit: masked in its view.
_VALUES = frozenset({"coef", "intercept", "coef_exact_", "intercept_exact_", "summary"})


def _views(release, data):
    learner, dual, _ = data
    if (learner, dual) != ("pac", "paper"):
        return [("discrete", release)]
    return grid_labels_view(release, _VALUES)


def _pairs(eps, delta):
    return [
        NeighbourPair(f"{label} ({learner}, {dual}, X=1)", (learner, dual, a), (learner, dual, b))
        for learner, dual, label, a, b in _PAIRS
    ]


register(
    AuditCase(
        name="halfspace-feasibility",
        description="PrivateFeasibilityHalfspaceClassifier.fit (LearnHalfSpace and the PAC learner): d=1, "
        "FindDeepPoint in D=2 with the exponential mechanism, margin-1 and paper duals",
        release=_release,
        pairs=_pairs,
        epsilon=1.0,
        delta=1e-3,  # the fits are pure (delta = 0 is recorded, and audited there)
        trials=1_500,
        max_paths=20_000,
        views=_views,
        reference="Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 3, Thm 5.1, Thm 5.2; spec "
        "kmst-halfspaces 3.5-3.7",
        branches=(
            Branch(
                "the ERM learner, margin-1 dual (FindDeepPoint in D = 2)",
                ("(erm, margin-1",),
                ("the training accuracy stored on the estimator",),
            ),
            Branch(
                "the ERM learner, the paper's dual",
                ("(erm, paper",),
                ("the training accuracy stored on the estimator",),
            ),
            Branch(
                "the PAC learner, margin-1 dual",
                ("(pac, margin-1",),
                ("a one-class sample answered without the mechanism",),
            ),
            Branch(
                "the PAC learner, the paper's dual: per-record noise on a noisy grid (empirical)",
                ("(pac, paper",),
                ("the training accuracy stored on the estimator",),
            ),
        ),
    )
)
