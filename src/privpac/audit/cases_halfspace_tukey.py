"""Audit case for the LearnHalfSpace classifier, through ``PrivateTukeyHalfspaceClassifier.fit``.

Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 2, Thm 4.2; spec ``bmns-center-points`` sections
4 (A5) and 5. The estimator is fitted through its public ``fit`` and audited on everything it
releases (:func:`~privpac.audit.release.fit_release`). The exact laws are enumerated from those
same fits (FindTukey's exponential mechanism at both coordinates of the chunk points, the adaptive
second domain included), on ``d = 1``, the grid ``{-1, 0, 1}``, chunks of two records. Each
pair replaces one record, so one chunk's consistent halfspace moves: a threshold turning into a
constant, a threshold flipping its orientation, a realisable chunk turning non-realisable (the
default), a record moving to the low end of the grid (one chunk point moves; chunks formed by
value would move all three), with 2, 3 and 12 chunks, in directional depth. Two of the pairs run
in Tukey depth too, audited empirically: FindTukey's first candidate domain on ``[-2, 2]^2`` (2,144
rationals) gives too many paths to enumerate.
"""

from __future__ import annotations

import numpy as np

from ..estimators.halfspace_tukey import PrivateTukeyHalfspaceClassifier
from .registry import AuditCase, Branch, NeighbourPair, register
from .release import fit_release, grid_labels_view

_X = [[-1], [1], [-1], [1]]
_T = [[-1], [1], [-1], [1], [-1], [1]]
# (depth, m, label, (X, y), (X', y'))
_PAIRS = [
    ("directional", 2, "a threshold chunk turns constant", (_X, [0, 1, 0, 1]), (_X, [1, 1, 0, 1])),
    ("directional", 2, "a threshold flips orientation", (_X, [0, 1, 0, 1]), (_X, [0, 1, 1, 0])),
    ("directional", 2, "a chunk turns non-realisable", ([[0], [1], [0], [1]], [0, 1, 0, 1]),
     ([[0], [0], [0], [1]], [0, 1, 0, 1])),
    ("directional", 3, "three equal chunks, one flips", (_T, [0, 1, 0, 1, 0, 1]), (_T, [0, 1, 0, 1, 1, 0])),
    ("directional", 12, "twelve equal chunks, one flips", (_T * 4, [0, 1] * 12), (_T * 4, [0, 1] * 11 + [1, 0])),
    # Position chunks move one chunk point; chunks formed by sorted value would move all three.
    ("directional", 3, "a record moves to the low end", ([[-1], [0], [0], [1], [1], [1]], [1, 0, 1, 0, 1, 1]),
     ([[-1], [0], [0], [1], [-1], [1]], [1, 0, 1, 0, 0, 1])),
    ("tukey", 2, "a threshold chunk turns constant", (_X, [0, 1, 0, 1]), (_X, [1, 1, 0, 1])),
    ("tukey", 2, "a threshold flips orientation", (_X, [0, 1, 0, 1]), (_X, [0, 1, 1, 0])),
]  # fmt: skip


#: The exact rationals of the hypothesis (and the summary that prints them): masked in the Tukey-depth view.
_VALUES = frozenset({"coef", "intercept", "coef_exact_", "intercept_exact_", "coef_", "intercept_", "summary"})


def _views(release, data):
    """The raw release in directional depth (its exact law is enumerated); in Tukey depth, whose exact
    rationals almost never repeat, the hypothesis's labels on the grid points -1, 0, 1 beside the release
    with the rationals masked (a post-processing, so a violation in the view is one in the release)."""
    if data[0] != "tukey":
        return [("discrete", release)]
    return grid_labels_view(release, _VALUES)


def _release(data, rng, eps, delta):
    depth, m, X, y = data
    est = PrivateTukeyHalfspaceClassifier(epsilon=eps, delta=delta, domain=1, depth=depth, n_chunks=m)
    return fit_release(est, np.asarray(X, dtype=np.int64), np.asarray(y, dtype=np.int64), rng=rng)


def _pairs(eps, delta):
    return [
        NeighbourPair(f"{label} ({depth} depth, B=1, {m} chunks)", (depth, m, *a), (depth, m, *b))
        for depth, m, label, a, b in _PAIRS
    ]


register(
    AuditCase(
        name="halfspace-tukey",
        description="PrivateTukeyHalfspaceClassifier.fit (LearnHalfSpace over FindTukey): d=1, B=1, "
        "two or three chunks, Tukey and directional depth",
        release=_release,
        pairs=_pairs,
        epsilon=1.0,
        delta=0.0,
        trials=1_000,
        max_paths=2_000,  # the directional pairs take 638 paths; Tukey depth on [-2, 2]^2 has too many: empirical
        views=_views,
        reference="Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 2, Thm 4.2; spec bmns-center-points A5, section 5",
        branches=(
            Branch(
                "directional depth: chunks by position, a consistent halfspace per chunk, FindTukey on the chunk "
                "points",
                ("twelve equal chunks", "a record moves to the low end"),
                (
                    "step-function EM sampling at 2 epsilon",
                    "every coordinate's exponential mechanism at twice its charge",
                    "halfspace-tukey chunks formed by record value",
                ),
            ),
            Branch(
                "Tukey depth: FindTukey's exact depths on the chunk points (empirical, on the labels of the "
                "hypothesis)",
                ("(tukey depth",),
                ("the training accuracy stored on the estimator",),
            ),
        ),
    )
)
