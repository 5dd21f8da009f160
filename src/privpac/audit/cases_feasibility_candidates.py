"""Audit case for FindDeepPoint over a public candidate set, through the estimators' ``fit``.

Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 1-3, with the score
``f_P(S, x) = depth_S(x) 1[x in P]`` of spec ``kmst-halfspaces`` 6.5 option 1. The estimators
(:class:`~privpac.estimators.PrivateLinearFeasibility` and
:class:`~privpac.estimators.PrivateFeasibilityHalfspaceClassifier`, ``candidates=`` a public array)
are fitted through their public ``fit`` on tiny neighbouring inputs (one constraint or record
replaced) and audited on everything they release (:func:`~privpac.audit.release.fit_release`).
The candidates are the grid ``{-1, 0, 1}^D``, so the candidate domains are small (``C = 1``:
3 integers for the first coordinate, then the values ``p / (t q)`` with the Hadamard denominator
bounds ``q <= 2, 5, 16``) and the exact laws are enumerated from the same fits, every coordinate's
piece and uniform index:

* ``D = 1``: a stack of equal constraints loses one to the opposite ray (the privacy loss of the
  exponential mechanism reaches its bound ``epsilon`` there, so a mechanism running at more than its
  share shows);
* the halfspace learner in ``d = 2``: its dual is a ``D = 3`` system (prefix extrema, the exact 2-D
  hull slice, and the certified LP of the third coordinate); a label flips;
* ``D = 4`` (the feasibility search by exact LPs that a prefix of three coordinates needs) is
  audited empirically on the solution's grid cell: its fourth coordinate has thousands of
  candidates per path.

Random candidate sets (``candidates=n``) are drawn from the fit's randomness before the data is read
and independently of it; conditionally on the drawn set the fit is the one audited here. One pair
draws them (``D = 1``, eight candidates in ``[[-3, 3]]``): the uniform floats of the draw are not
enumerable, so that pair is audited empirically, on releases that repeat (a handful of candidates).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from ..estimators.feasibility_halfspaces import PrivateFeasibilityHalfspaceClassifier
from ..estimators.linear_feasibility import PrivateLinearFeasibility
from .registry import AuditCase, Branch, NeighbourPair, register
from .release import cell_view, fit_release


def _grid(D: int) -> np.ndarray:
    return np.array(list(itertools.product((-1, 0, 1), repeat=D)), dtype=np.int64)


# (estimator, label, data, neighbour): "system" data are (A, b) with X = 1, "halfspace" data (X, y) on [-1, 1]^2
_PAIRS = [
    ("system", "D=1: eight x >= 1; one turns round to x <= -1",
     ([[1]] * 8, [1] * 8), ([[1]] * 7 + [[-1]], [1] * 8)),
    ("system", "D=1: six x >= 1, three x <= -1; one of the three joins the six",
     ([[1]] * 6 + [[-1]] * 3, [1] * 9), ([[1]] * 7 + [[-1]] * 2, [1] * 9)),
    ("drawn", "D=1, 8 candidates drawn in [-3, 3]: one of eight x >= 1 turns round to x <= -3",
     ([[1]] * 8, [1] * 8), ([[1]] * 7 + [[-1]], [1] * 7 + [3])),
    ("halfspace", "d=2: a label flips",
     ([[-1, -1], [0, 1], [1, 0], [1, 1]], [0, 1, 1, 1]), ([[-1, -1], [0, 1], [1, 0], [1, 1]], [0, 0, 1, 1])),
]  # fmt: skip


def _release(data, rng, eps, delta):
    kind, (first, second) = data
    if kind in ("system", "drawn"):
        A = np.asarray(first, dtype=np.int64)
        if kind == "drawn":  # candidates drawn from the fit's randomness (not enumerable: empirical only)
            est = PrivateLinearFeasibility(epsilon=eps, domain=3, candidates=8)
        else:
            est = PrivateLinearFeasibility(epsilon=eps, domain=1, candidates=_grid(A.shape[1]))
        return fit_release(est, A, np.asarray(second, dtype=np.int64), rng=rng)
    X = np.asarray(first, dtype=np.int64)
    est = PrivateFeasibilityHalfspaceClassifier(epsilon=eps, domain=1, candidates=_grid(X.shape[1] + 1))
    return fit_release(est, X, np.asarray(second), rng=rng)


def _pairs_of(table):
    """The audit's ``pairs(epsilon, delta)`` for a table of ``(kind, label, data, neighbour)`` (the pair of
    intermediate depths, added for the trimming branch, is checked exactly only)."""
    return lambda eps, delta: [
        NeighbourPair(label, (kind, a), (kind, b), empirical="six x" not in label) for kind, label, a, b in table
    ]


register(
    AuditCase(
        name="feasibility-candidates",
        description="PrivateLinearFeasibility.fit and PrivateFeasibilityHalfspaceClassifier.fit over the public "
        "candidates {-1, 0, 1}^D (spec 6.5 option 1): D=1 and the d=2 learner (D=3), exponential mechanism",
        release=_release,
        pairs=_pairs_of(_PAIRS),
        epsilon=1.0,
        delta=1e-3,  # the fits are pure (delta = 0 is recorded, and audited there)
        trials=1_500,
        max_paths=20_000,
        reference="Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Figs. 1-3, Thm 4.6; spec kmst-halfspaces 6.5",
        branches=(
            Branch(
                "candidates given, D = 1: the levels of the candidates' exact depths",
                ("D=1: eight x >= 1", "D=1: six x >= 1"),
                (
                    "candidate depths counted twice",
                    "public candidates trimmed by their depth before the levels",
                    "the depth reached stored on the estimator",
                ),
            ),
            Branch(
                "candidates given, the d = 2 halfspace learner (its dual has D = 3: prefix extrema, the exact "
                "hull slice, a certified LP)",
                ("d=2: a label flips",),
                (
                    "the training accuracy stored on the estimator",
                    "a level's hull slice missing its vertex on the line x_1 = x*_1",
                ),
            ),
            Branch(
                "candidates drawn (candidates=n) from the fit's randomness before the data is read",
                ("8 candidates drawn",),
                ("drawn candidates bounded by the data",),
            ),
        ),
    )
)


_PAIRS_4D = [
    ("system", "D=4: x >= 0 per coordinate and the sum >= 1; the last turns round",
     (np.vstack([np.eye(4, dtype=np.int64), np.ones((1, 4), dtype=np.int64)]).tolist(), [0, 0, 0, 0, 1]),
     (np.vstack([np.eye(4, dtype=np.int64), -np.ones((1, 4), dtype=np.int64)]).tolist(), [0, 0, 0, 0, 1])),
]  # fmt: skip


register(
    AuditCase(
        name="feasibility-candidates-4d",
        description="PrivateLinearFeasibility.fit over the public candidates {-1, 0, 1}^4: the exact feasibility "
        "LPs of a three-coordinate prefix; empirical, on the solution's grid cell",
        release=_release,
        pairs=_pairs_of(_PAIRS_4D),
        epsilon=1.0,
        delta=1e-3,
        trials=600,
        exact=False,
        views=lambda release, data: cell_view(release, "solution", Fraction(1, 2)),
        reference="Kaplan, Mansour, Stemmer, Tsfadia (NeurIPS 2020), Fig. 2, Thm 4.6; spec kmst-halfspaces 6.2, 6.5",
        branches=(
            Branch(
                "D = 4: the exact feasibility LPs of a three-coordinate prefix",
                ("D=4",),
                ("the depth reached stored on the estimator",),
            ),
        ),
    )
)
