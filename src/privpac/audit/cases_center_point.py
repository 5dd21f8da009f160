"""Audit case for the private center point (FindTukey), through ``PrivateCenterPoint.fit``.

Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 1 and Thm 3.6; spec ``bmns-center-points``
sections 4 (A3-rational, A4, B3) and 5. The estimator is fitted through its public ``fit`` and
audited on everything it releases (:func:`~privpac.audit.release.fit_release`). The exact laws are
enumerated from those same fits: the exponential mechanism's piece and the uniform index inside
it, at every coordinate, so the adaptive second-coordinate domain (built from the first output) is
part of what is enumerated. Pairs:

* ``d = 1`` on ``[-2, 2]``, exponential mechanism (pure): stacks losing a point to the far end,
  the middle point moving, the extreme point changing sides;
* ``d = 1`` on ``[-20, 20]``, RecConcave (41 candidates: the recursion runs, depth 2);
* ``d = 2`` on ``[-1, 1]^2``, exponential mechanism per coordinate over the A3-rational domains
  (80 first-coordinate candidates, then ``6 t + 2`` second-coordinate candidates): a thin diagonal
  set broken by one point, and a stack gaining a point off it.

RecConcave in ``d = 2`` has too many random paths to enumerate (more than 50,000 at ``B = 1``); its
privacy rests on RecConcave's own audit (``recconcave``) and the composition argument.

``center-point-grid`` audits the same fit on real-valued data with a public
:class:`~privpac.domains.Grid` (each record mapped to the grid's integer lattice, the center mapped
back to the data's units), in ``d = 1`` where its law is enumerated exactly.

A second case, ``center-point-one-shot``, audits baseline B1
(:func:`~privpac.learners.center_point_baselines.one_shot_center_point`, the paper's footnote 1)
through that public function on the spec's toy instance ``X = {0, 1, 2}^2`` (shifted to
``[-1, 1]^2``: 37 candidate vertices) with ``n = 4``, and on ``[-1, 1]`` in ``d = 1``. Its exact law
is the one exponential-mechanism draw over the candidates.
"""

from __future__ import annotations

import numpy as np

from ..domains import Grid
from ..estimators.center_point import PrivateCenterPoint
from ..learners import center_point_baselines
from .registry import ENGINE_GAP, AuditCase, Branch, NeighbourPair, register
from .release import call_release, cell_view, fit_release

# (optimizer, B, label, dataset, neighbour)
_PAIRS = [
    ("exponential", 2, "d=1: a stack loses a point to the far end", [[0], [0], [0]], [[0], [0], [2]]),
    ("exponential", 2, "d=1: the largest point moves further out", [[0], [0], [1]], [[0], [0], [2]]),
    ("exponential", 2, "d=1: the middle point moves to an end", [[-2], [0], [2]], [[-2], [2], [2]]),
    ("exponential", 2, "d=1: an extreme point changes sides", [[-2], [-1], [1], [2]], [[-2], [-1], [1], [-2]]),
    ("recconcave", 20, "d=1, RecConcave: a point jumps to the end", [[0], [3], [5], [20]], [[0], [3], [20], [20]]),
    ("recconcave", 20, "d=1, RecConcave: a stack loses one", [[5]] * 4, [[5]] * 3 + [[-20]]),
    ("exponential", 1, "d=2: a diagonal broken by a point", [[0, 0], [1, 1], [-1, -1]], [[0, 0], [1, 1], [1, -1]]),
    ("exponential", 1, "d=2: a stack gains a point off it", [[0, 0], [0, 0], [0, 0]], [[0, 0], [0, 0], [1, -1]]),
    ("exponential", 1, "d=2: a tall stack loses a point to a corner", [[0, 0]] * 8, [[0, 0]] * 7 + [[1, -1]]),
    # composition="advanced" (given: "auto" picks basic for d <= 3): the per-coordinate share is the papers'
    # eps / (2 sqrt(2 d ln(2/delta))), charged at the Dwork-Rothblum-Vadhan total
    ("exponential", 2, "d=1, advanced composition: a stack loses a point to the far end",
     [[0]] * 6, [[0]] * 5 + [[2]], "advanced"),
]  # fmt: skip


def _release(data, rng, eps, delta):
    optimizer, B, X, *composition = data
    est = PrivateCenterPoint(
        epsilon=eps, delta=delta, domain=B, optimizer=optimizer, composition=(composition or ["auto"])[0]
    )
    return fit_release(est, np.asarray(X, dtype=np.int64), rng=rng)


#: Pairs added for a branch (the d = 2 tall stack, the advanced composition): checked exactly only, the
#: exact law of the shipped fit shows the bugs of their branches.
_EXACT_ONLY = ("a tall stack", "advanced composition")


def _pairs(eps, delta):
    return [
        NeighbourPair(
            f"{label} ({optimizer}, B={B})",
            (optimizer, B, a, *rest),
            (optimizer, B, b, *rest),
            empirical=not any(text in label for text in _EXACT_ONLY),
        )
        for optimizer, B, label, a, b, *rest in _PAIRS
    ]


register(
    AuditCase(
        name="center-point",
        description="PrivateCenterPoint.fit (FindTukey): d=1 exponential and RecConcave, d=2 exponential "
        "over the A3-rational domains",
        release=_release,
        pairs=_pairs,
        epsilon=1.0,
        delta=1e-3,  # RecConcave needs delta > 0; the exponential mechanism records (epsilon, 0) and is audited there
        trials=1_500,
        reference="Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 1, Thm 3.6; spec bmns-center-points A3-A4, B3",
        branches=(
            Branch(
                "d = 1, the exponential mechanism over the integers of [-B, B]",
                ("d=1: a stack loses a point to the far end", "d=1: the largest point moves further out"),
                (
                    "step-function EM sampling at 2 epsilon",
                    "every coordinate's exponential mechanism at twice its charge",
                    "a center-point candidate domain built from the data",
                ),
            ),
            Branch(
                "d = 1, RecConcave (optimizer='recconcave': the recursion runs on 41 candidates)",
                ("d=1, RecConcave: a stack loses one",),
                ("a center-point candidate domain built from the data",),
            ),
            Branch(
                "d = 2, the exponential mechanism over the A3-rational domains (the second follows the first output), "
                "qualities read off the exact region polygons",
                ("d=2: a tall stack loses a point to a corner",),
                (
                    "every coordinate's exponential mechanism at twice its charge",
                    "planar depth regions without their level's axis constraints",
                ),
            ),
            Branch(
                "composition='advanced': each coordinate at the papers' share, charged at the DRV total",
                ("advanced composition",),
                ("the advanced block run at the basic share",),
            ),
            Branch(
                "on Dask or Spark: the same exact statistic computed per partition and merged on the driver",
                ("d=1: a stack loses a point to the far end",),
                gap=ENGINE_GAP,
            ),
        ),
    )
)


# d = 3 (FindTukey's exact LPs): too many random paths to enumerate (millions of first-coordinate
# candidates at B = 1), so an empirical audit on the cell of the center (see ``cell_view``).
_PAIRS_3D = [
    ("a stack gains a point off it", [[0, 0, 0]] * 4, [[0, 0, 0]] * 3 + [[1, 1, -1]]),
    ("a diagonal broken by a point", [[-1, -1, -1], [0, 0, 0], [1, 1, 1], [0, 0, 0]],
     [[-1, -1, -1], [0, 0, 0], [1, 1, 1], [1, -1, 1]]),
]  # fmt: skip


def _pairs_3d(eps, delta):
    return [NeighbourPair(f"d=3: {label} (exponential, B=1)", ("exponential", 1, a), ("exponential", 1, b))
            for label, a, b in _PAIRS_3D]  # fmt: skip


register(
    AuditCase(
        name="center-point-3d",
        description="PrivateCenterPoint.fit (FindTukey) in d=3: exact LPs per coordinate; empirical, on the "
        "center's grid cell",
        release=_release,
        pairs=_pairs_3d,
        epsilon=1.0,
        delta=1e-3,
        trials=600,
        exact=False,
        views=lambda release, data: cell_view(release, "center"),
        reference="Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 1, Thm 3.6; spec bmns-center-points A2, A4",
        branches=(
            Branch(
                "d = 3: exact LPs per coordinate over the planes through three points of S and E",
                ("d=3: a stack gains a point off it", "d=3: a diagonal broken by a point"),
                ("the depth reached stored on the estimator",),
            ),
        ),
    )
)


# Directional depth over the public net (FindTukey's scalable variant, any d). d = 2 on [-2, 2]^2:
# the net's domains are small (Q = 2, then 1), so the law of the whole fit is enumerated (at most 81
# paths). d = 4 runs the certified LPs with prefixes of every length (the path d >= 4 takes): too
# many paths to enumerate, so an empirical audit on the grid cell of the center.
_PAIRS_DIRECTIONAL = [
    ("d=2: a stack gains a point off it", 2, [[0, 0]] * 3, [[0, 0]] * 2 + [[2, -2]]),
    ("d=2: a diagonal broken by a point", 2, [[-2, -2], [0, 0], [2, 2]], [[-2, -2], [0, 0], [2, -1]]),
    # A stack tall enough that the first coordinate's normaliser follows the stack (its loss nears
    # epsilon0) and the point off it opens depth 1 at both coordinates: the two losses add up.
    ("d=2: a tall stack loses a point to a corner", 2, [[0, 0]] * 8, [[0, 0]] * 7 + [[2, -2]]),
]  # fmt: skip
_PAIRS_DIRECTIONAL_4D = [
    ("d=4: a stack gains a point off it", 1, [[0, 0, 0, 0]] * 3, [[0, 0, 0, 0]] * 2 + [[1, -1, 1, -1]]),
]  # fmt: skip


def _directional_release(data, rng, eps, delta):
    B, X = data
    est = PrivateCenterPoint(epsilon=eps, delta=delta, domain=B, depth="directional")
    return fit_release(est, np.asarray(X, dtype=np.int64), rng=rng)


def _directional_pairs_from(pairs):
    def make(eps, delta):
        return [
            NeighbourPair(
                f"{label} (directional depth, B={B})",
                (B, a),
                (B, b),
                empirical=not any(text in label for text in _EXACT_ONLY),
            )
            for label, B, a, b in pairs
        ]

    return make


register(
    AuditCase(
        name="center-point-directional",
        description="PrivateCenterPoint.fit with depth='directional' (the public net of directions) in d=2 on "
        "[-2, 2]^2: the exact law of the fit",
        release=_directional_release,
        pairs=_directional_pairs_from(_PAIRS_DIRECTIONAL),
        epsilon=1.0,
        delta=0.0,
        trials=1_000,
        reference="Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 1, Thm 3.6; spec bmns-center-points section 7",
        branches=(
            Branch(
                "directional depth over the public net in d = 2 (the domains' Hadamard bounds of the net)",
                ("d=2: a tall stack loses a point to a corner", "d=2: a stack gains a point off it"),
                (
                    "every coordinate's exponential mechanism at twice its charge",
                    "a center-point candidate domain built from the data",
                ),
            ),
        ),
    )
)
register(
    AuditCase(
        name="center-point-directional-4d",
        description="PrivateCenterPoint.fit with depth='directional' in d=4 (certified LPs for every prefix "
        "length); empirical, on the center's grid cell",
        release=_directional_release,
        pairs=_directional_pairs_from(_PAIRS_DIRECTIONAL_4D),
        epsilon=1.0,
        delta=0.0,
        trials=600,
        exact=False,
        views=lambda release, data: cell_view(release, "center"),
        reference="Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 1, Thm 3.6; spec bmns-center-points section 7",
        branches=(
            Branch(
                "directional depth in d = 4: certified LPs for every prefix length",
                ("d=4",),
                ("the depth reached stored on the estimator",),
            ),
        ),
    )
)


# Real-valued data on a public grid: each record goes to the grid's integer lattice by a per-record
# public map (privpac.domains.Lattice), FindTukey runs there and the center comes back in the data's
# units. d = 1 on Grid(0.0, 3.0, 4), an even grid whose lattice is the odd integers of [-3, 3] (half
# steps about the centre 1.5): the exact law of the whole fit, values between grid points included.
_GRID = (0.0, 3.0, 4)
_PAIRS_GRID = [
    ("an outlier of a stack moves to the low end", [[1.0]] * 4 + [[2.0]], [[1.0]] * 4 + [[0.0]]),
    ("a value between grid points crosses to the next one", [[0.0], [3.0], [1.4]], [[0.0], [3.0], [1.6]]),
]  # fmt: skip


def _grid_release(data, rng, eps, delta):
    est = PrivateCenterPoint(epsilon=eps, delta=delta, domain=Grid(*_GRID))
    return fit_release(est, np.asarray(data, dtype=np.float64), rng=rng)


def _grid_pairs(eps, delta):
    return [NeighbourPair(f"d=1 on Grid{_GRID}: {label}", a, b) for label, a, b in _PAIRS_GRID]


register(
    AuditCase(
        name="center-point-grid",
        description="PrivateCenterPoint.fit on real-valued data with a public Grid (the per-record lattice map, "
        "the center in the data's units): the exact law of the fit in d=1",
        release=_grid_release,
        pairs=_grid_pairs,
        epsilon=1.0,
        delta=0.0,
        trials=400,  # the exact law decides; the empirical check only confirms it
        reference="Beimel, Moran, Nissim, Stemmer (COLT 2019), Fig. 1, Thm 3.6; privpac.domains.Lattice",
        branches=(
            Branch(
                "the per-record map of real values to the grid's lattice (rounding to the nearest grid point)",
                ("an outlier of a stack moves to the low end", "a value between grid points crosses"),
                ("a grid's lattice shifted by the data",),
            ),
        ),
    )
)


# (label, dataset, neighbour) on [-1, 1]^d, B = 1
_ONE_SHOT_PAIRS = [
    ("a corner of the square moves to its centre",
     [[-1, -1], [1, -1], [-1, 1], [1, 1]], [[-1, -1], [1, -1], [-1, 1], [0, 0]]),
    ("a diagonal broken by a point", [[-1, -1], [0, 0], [0, 0], [1, 1]], [[-1, -1], [0, 0], [1, -1], [1, 1]]),
    ("a stack loses a point to a corner", [[0, 0]] * 4, [[0, 0]] * 3 + [[1, 1]]),
    ("an edge point crosses to the other side", [[-1, 0], [0, 1], [1, 0], [0, -1]], [[-1, 0], [0, 1], [1, 0], [-1, 1]]),
    ("d=1: the middle point moves to an end", [[-1], [0], [0], [1]], [[-1], [0], [1], [1]]),
]  # fmt: skip


def _one_shot_release(data, rng, eps, delta):
    # Looked up at call time: the mutation tests replace pieces of the module.
    return call_release(
        center_point_baselines.one_shot_center_point,
        np.asarray(data, dtype=np.int64),
        1,
        eps,
        budget=(eps, delta),
        rng=rng,
    )


def _one_shot_pairs(eps, delta):
    return [NeighbourPair(f"{label} (B=1)", a, b) for label, a, b in _ONE_SHOT_PAIRS]


register(
    AuditCase(
        name="center-point-one-shot",
        description="one_shot_center_point (baseline B1): the exponential mechanism on Tukey depth over every "
        "vertex of the line arrangement of [-1, 1]^2 (the spec's X = {0,1,2}^2, n = 4) and of [-1, 1]",
        release=_one_shot_release,
        pairs=_one_shot_pairs,
        epsilon=1.0,
        delta=0.0,
        trials=1_000,
        reference="Beimel, Moran, Nissim, Stemmer (COLT 2019), footnote 1; spec bmns-center-points B1",
        branches=(
            Branch(
                "d = 2: one exponential mechanism over every vertex of the public line arrangement",
                ("a diagonal broken by a point", "a stack loses a point to a corner"),
                (
                    "finite-list EM sampling at 2 epsilon",
                    "a one-shot quality counting depth twice",
                    "one-shot center-point candidates cut to the data's bounding box",
                ),
            ),
            Branch("d = 1", ("d=1: the middle point moves to an end",), ("a one-shot quality counting depth twice",)),
        ),
    )
)
