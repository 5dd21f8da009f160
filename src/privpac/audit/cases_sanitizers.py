"""Audit cases for the sanitizers, label-private learners and the BNS rectangle learner, through their estimators.

* ``san-points`` / ``k-point``: ``PointSanitizer.fit`` / ``KPointSanitizer.fit`` on crafted
  neighbours (held as counts) at the smallest ``m`` their privacy precondition allows, and one
  below it, which must be refused. The noisy counts make every release distinct, so two discrete
  views are audited: the sequence of released points (its exact law is computable from the
  choosing mechanism's plans, :func:`san_points_key_distribution`, a second implementation whose
  agreement with the estimator is tested) and the whole release with the noisy counts masked
  (every other field must agree in law).
* ``san-points-below-precondition``: ``m = 8`` with the precondition switched off (E18): the
  release records itself as not private and the audit must flag it at the claimed budget.
* ``san-thresholds``: ``ThresholdSanitizer.fit`` on a 16-point domain at the smallest ``m`` its
  precondition allows (millions of records, held as counts): empirical only.
* ``rectangle-learner-bns``: ``PrivateRectangleClassifier(method="bns").fit`` on an 8 x 8 grid
  (counts per point): empirical only.
* ``label-private`` / ``semi-private``: ``LabelPrivateClassifier.fit`` (without and with public
  points); the exact law is enumerated. Label neighbours (one label of ``S2`` flipped, one label
  of ``S1`` flipped) for the label-private learner; a replaced labelled record for the
  semi-private learner.
"""

from __future__ import annotations

import json
import math

import numpy as np

from ..domains import Grid
from ..estimators.label_private import LabelPrivateClassifier
from ..estimators.rectangles import PrivateRectangleClassifier
from ..estimators.sanitizers import KPointSanitizer, PointSanitizer, ThresholdSanitizer
from ..learners.rectangles_bns import bns_rectangle_plan
from ..mechanisms.choosing import choosing_plan
from ..sanitizers.points import san_points_plan
from ..sanitizers.thresholds import san_thresholds_plan
from .cases_mechanisms import heavy_point_pairs, refused_pair
from .registry import AuditCase, Branch, NeighbourPair, register
from .release import fit_release, mask_release

__all__ = ["san_points_key_distribution"]

SAN_ALPHA = 0.8
SAN_BETA = 0.5
KPOINT_K = 2
KPOINT_ALPHA = 0.9
DOMAIN = 16


def san_points_key_distribution(counts: dict, alpha: float, beta: float, epsilon: float, delta: float) -> dict:
    """Exact distribution of the sequence of points SanPoints releases (bottom rounds skipped).

    Each round is the choosing mechanism on the points not yet released; its exact output
    distribution is :meth:`ChoosingPlan.output_distribution`. The Laplace counts are
    independent of the choices and are left out (a post-processing of the release).
    """
    plan = san_points_plan(alpha, beta, epsilon, delta, "tuned")
    m = sum(counts.values())
    out: dict = {}

    def walk(remaining: dict, rounds: int, seq: tuple, p: float):
        if rounds == 0:
            out[seq] = out.get(seq, 0.0) + p
            return
        dist = choosing_plan(remaining, m, plan.choosing_alpha, plan.epsilon_each).output_distribution()
        for f, q in dist.items():
            if q <= 0:
                continue
            if f is None:
                walk(remaining, rounds - 1, seq, p * q)
            else:
                rest = {k: v for k, v in remaining.items() if k != f}
                walk(rest, rounds - 1, seq + (f,), p * q)

    walk(dict(counts), plan.iterations, (), 1.0)
    return out


def _counts_release(make):
    """A release function fitting the sanitizer ``make(epsilon, delta)`` on data held as counts."""

    def release(counts, rng, eps, delta):
        keys = sorted(counts)
        X = np.asarray(keys, dtype=np.int64).reshape(-1, 1)
        w = np.asarray([counts[k] for k in keys], dtype=np.int64)
        keep = w > 0
        return fit_release(make(eps, delta), X[keep], None, w[keep], rng=rng)

    return release


def _chosen_points(release) -> tuple:
    """The points SanPoints released, in order (a post-processing of the release)."""
    return tuple(json.loads(release)["model"]["state"]["database"]["info"]["chosen"])


def _weight_below(release, cut: int) -> float:
    """The released weight of the points below ``cut``: the sanitizer's (unnormalised) answer to ``x < cut``."""
    db = json.loads(release)["model"]["state"]["database"]
    return float(sum(w for p, w in zip(db["points"], db["weights"]) if int(p) < cut))


def _san_views(release, data):
    # The noisy counts make every release distinct: audit the chosen points (their exact law is
    # known), the release with the counts masked (everything else must match in law), and the noisy
    # count of point 0 (0 when it is not released) as a scalar.
    return [
        ("discrete", _chosen_points(release)),
        ("discrete", mask_release(release, SANITIZER_COUNTS)),
        ("scalar", _weight_below(release, 1)),
    ]


#: Fields of a sanitizer's release that hold noisy counts (private outputs, real-valued in effect).
SANITIZER_COUNTS = frozenset({"weights", "counts_"})


def _san_law(alpha):
    def law(counts, epsilon, delta):
        return san_points_key_distribution(counts, alpha, SAN_BETA, epsilon, delta)

    return law


def _san_pairs(alpha):
    def pairs(eps, delta):
        m = math.ceil(san_points_plan(alpha, SAN_BETA, eps, delta, "tuned").min_size)
        half = m // 2
        return [
            *heavy_point_pairs(m),
            NeighbourPair(
                f"two heavy points, one record moves and the heavier changes (m={m})",
                {0: m - half, 1: half},
                {0: m - half - 1, 1: half + 1},
            ),
            refused_pair(m),
        ]

    return pairs


#: The branches of SanPoints' release, which KPointSanitizer runs at alpha/k.
_SAN_POINTS_BRANCHES = (
    Branch(
        "the choosing rounds: which heavy points are released, in which order",
        ("the heavier changes",),
        ("SanPoints' rounds by an exact argmax",),
    ),
    Branch(
        "the noisy count of each released point (Laplace, sensitivity 1)",
        ("two heavy points, one record moves (",),
        ("sanitizer counts released without noise",),
    ),
)


def _point_sanitizer(alpha, unsafe=False):
    def make(eps, delta):
        return PointSanitizer(
            epsilon=eps,
            delta=delta,
            domain=(0, DOMAIN - 1),
            alpha=alpha,
            beta=SAN_BETA,
            unsafe_skip_precondition=unsafe,
        )

    return make


register(
    AuditCase(
        name="san-points",
        description=(
            f"PointSanitizer.fit (SanPoints, Fig. 9) at alpha={SAN_ALPHA}, beta={SAN_BETA} and the smallest m its "
            "privacy precondition allows, and one below it (must be refused)"
        ),
        release=_counts_release(_point_sanitizer(SAN_ALPHA)),
        pairs=_san_pairs(SAN_ALPHA),
        exact=False,
        views=_san_views,
        law=_san_law(SAN_ALPHA),
        trials=3_000,
        reference="Beimel, Nissim, Stemmer, Fig. 9, Thm 4.6",
        branches=(
            *_SAN_POINTS_BRANCHES,
            Branch(
                "the size precondition of its choosing calls (refused below it)",
                ("below the privacy precondition",),
                ("SanPoints below its size precondition",),
            ),
        ),
    )
)

register(
    AuditCase(
        name="k-point",
        description=(
            f"KPointSanitizer.fit (Fig. 10; k={KPOINT_K}, alpha={KPOINT_ALPHA}: SanPoints at alpha/k) at the "
            "smallest m its privacy precondition allows"
        ),
        release=_counts_release(
            lambda eps, delta: KPointSanitizer(
                epsilon=eps, delta=delta, domain=(0, DOMAIN - 1), k=KPOINT_K, alpha=KPOINT_ALPHA, beta=SAN_BETA
            )
        ),
        pairs=lambda eps, delta: _san_pairs(KPOINT_ALPHA / KPOINT_K)(eps, delta)[:-1],
        exact=False,
        views=_san_views,
        law=_san_law(KPOINT_ALPHA / KPOINT_K),
        trials=2_000,
        reference="Beimel, Nissim, Stemmer, Fig. 10, Thm 4.7",
        branches=_SAN_POINTS_BRANCHES,
    )
)


def _unsafe_pairs(eps, delta):
    return [NeighbourPair("m = 8: a singleton beside a heavy point vs none", {0: 7, 1: 1}, {0: 8})]


register(
    AuditCase(
        name="san-points-below-precondition",
        description="PointSanitizer at m = 8 with the choosing precondition switched off (erratum E18): leaks",
        release=_counts_release(_point_sanitizer(SAN_ALPHA, unsafe=True)),
        pairs=_unsafe_pairs,
        exact=False,
        views=_san_views,
        law=_san_law(SAN_ALPHA),
        trials=3_000,
        expect_violation=True,
        reference="Beimel, Nissim, Stemmer, Lemma 4.4 (erratum E18)",
        branches=(Branch("the choosing rounds below the size precondition (erratum E18)", ("m = 8",)),),
    )
)


# -- label-private and semi-private learners ------------------------------------------------------

LP_DOMAIN = 32
LP_SPLIT = 6  # |S1|: labels ignored


def _flip(y, i):
    z = y.copy()
    z[i] = 1 - z[i]
    return z


def _lp_release(data, rng, eps, delta):
    concept, x, y = data[:3]
    est = LabelPrivateClassifier(
        epsilon=eps, delta=delta, domain=(0, LP_DOMAIN - 1), concept=concept, n_unlabelled=LP_SPLIT
    )
    X = np.asarray(x, dtype=np.int64).reshape(-1, 1)
    if len(data) == 4:  # the semi-private learner: H from public points
        return fit_release(est, X, np.asarray(y), data[3].reshape(-1, 1), rng=rng)
    return fit_release(est, X, np.asarray(y), rng=rng)


def _lp_pairs(eps, delta):
    x = np.array([3, 9, 14, 20, 25, 30, 2, 5, 9, 11, 14, 17, 20, 22, 26, 29, 31])
    y_thr = (x < 15).astype(np.int8)
    y_pt = (x == 14).astype(np.int8)
    return [
        NeighbourPair(
            "thresholds: one label of S2 flipped", ("thresholds", x, y_thr), ("thresholds", x, _flip(y_thr, 9))
        ),
        NeighbourPair(
            "thresholds: one label of S1 flipped (ignored)",
            ("thresholds", x, y_thr),
            ("thresholds", x, _flip(y_thr, 2)),
        ),
        NeighbourPair("points: one label of S2 flipped", ("points", x, y_pt), ("points", x, _flip(y_pt, 10))),
    ]


register(
    AuditCase(
        name="label-private",
        description="LabelPrivateClassifier.fit (Fig. 13): exponential mechanism over H, label neighbours",
        release=_lp_release,
        pairs=_lp_pairs,
        delta=0.0,
        trials=3_000,
        reference="Beimel, Nissim, Stemmer, Fig. 13, Thm 6.2",
        branches=(
            Branch(
                "thresholds: the exponential mechanism over H (built from S1) scored on the labels of S2",
                ("thresholds: one label of S2 flipped",),
                ("finite-list EM sampling at 2 epsilon",),
            ),
            Branch("point functions", ("points: one label of S2 flipped",), ("finite-list EM sampling at 2 epsilon",)),
        ),
    )
)

SP_PUBLIC = np.array([1, 4, 8, 12, 15, 19, 23, 27, 30])


def _sp_pairs(eps, delta):
    x = np.array([2, 5, 9, 11, 14, 17, 20, 22, 26, 29, 31])
    x2 = x.copy()
    x2[4] = 28  # the record (14, 1) becomes (28, 0): features and label change
    y_thr = (x < 15).astype(np.int8)
    y2 = (x2 < 15).astype(np.int8)
    y_pt = (x == 14).astype(np.int8)
    return [
        NeighbourPair(
            "thresholds: one labelled record replaced",
            ("thresholds", x, y_thr, SP_PUBLIC),
            ("thresholds", x2, y2, SP_PUBLIC),
        ),
        NeighbourPair(
            "points: one labelled record replaced",
            ("points", x, y_pt, SP_PUBLIC),
            ("points", x2, (x2 == 14).astype(np.int8), SP_PUBLIC),
        ),
    ]


register(
    AuditCase(
        name="semi-private",
        description="LabelPrivateClassifier.fit with X_public (section 6.2): whole labelled records protected",
        release=_lp_release,
        pairs=_sp_pairs,
        delta=0.0,
        trials=3_000,
        reference="Beimel, Nissim, Stemmer, section 6.2",
        branches=(
            Branch(
                "thresholds: H from the public points, the exponential mechanism over the labelled records",
                ("thresholds: one labelled record replaced",),
                ("finite-list EM sampling at 2 epsilon", "H built from the labelled records too"),
            ),
            Branch(
                "point functions",
                ("points: one labelled record replaced",),
                ("H built from the labelled records too",),
            ),
        ),
    )
)


# -- SanThresholds ---------------------------------------------------------------------------------

THR_ALPHA = 0.9
THR_BETA = 0.5


def _thr_views(release, data):
    # The weighted interval ends (the noisy weights masked), the whole release with them masked, and
    # the noisy weight below 8 (the answer to the threshold query x < 8, between the pairs' two points).
    doc = json.loads(release)
    return [
        ("discrete", tuple(doc["model"]["state"]["database"]["points"])),
        ("discrete", mask_release(release, SANITIZER_COUNTS | {"intervals"})),
        ("scalar", _weight_below(release, 8)),
    ]


def _thr_pairs(eps, delta):
    return heavy_point_pairs(math.ceil(san_thresholds_plan(THR_ALPHA, THR_BETA, eps, delta, DOMAIN).min_size), 3, 12)


register(
    AuditCase(
        name="san-thresholds",
        description=(
            f"ThresholdSanitizer.fit (SanThresholds, Fig. 11) at alpha={THR_ALPHA}, beta={THR_BETA}, |X|={DOMAIN} "
            "and the smallest m its privacy precondition allows (data held as counts)"
        ),
        release=_counts_release(
            lambda eps, delta: ThresholdSanitizer(
                epsilon=eps, delta=delta, domain=(0, DOMAIN - 1), alpha=THR_ALPHA, beta=THR_BETA
            )
        ),
        pairs=_thr_pairs,
        exact=False,
        views=_thr_views,
        trials=1_500,
        reference="Beimel, Nissim, Stemmer, Fig. 11, Lemma 4.8, Thm 4.13",
        branches=(
            Branch(
                "the interval tree: noisy range counts, RecConcave on the window sizes, the choosing mechanism over "
                "points or blocks, and the noisy weight of each interval",
                ("two heavy points, one record moves",),
                ("sanitizer counts released without noise",),
            ),
        ),
    )
)


# -- BNS rectangle learner (R-CDF) -------------------------------------------------------------------

RECT_ALPHA = 0.99
RECT_BETA = 0.5
RECT_AXES = (8, 8)


def _rect_release(data, rng, eps, delta):
    X, y, counts = data
    est = PrivateRectangleClassifier(
        epsilon=eps, delta=delta, domain=Grid([0, 0], [RECT_AXES[0] - 1, RECT_AXES[1] - 1], list(RECT_AXES)),
        method="bns", alpha=RECT_ALPHA, beta=RECT_BETA,
    )  # fmt: skip
    keep = counts > 0
    return fit_release(est, X[keep], y[keep], counts[keep], rng=rng)


def _rect_pairs(eps, delta):
    m = math.ceil(bns_rectangle_plan(RECT_ALPHA, RECT_BETA, eps, delta, RECT_AXES).min_size)
    X = np.array([[1, 1], [2, 5], [6, 3], [7, 7]])
    y = np.array([1, 1, 1, 0])
    base = np.array([m // 3, m // 3, m - 2 * (m // 3) - 1, 1])
    moved = base.copy()
    moved[3], moved[0] = 0, base[0] + 1  # the negative example (7, 7) becomes a positive (1, 1)
    heavy = np.array([m // 2, m - m // 2 - 1, 1, 0])
    heavy_moved = np.array([m // 2 + 1, m - m // 2 - 1, 0, 0])
    return [
        NeighbourPair(f"a negative example becomes positive (m={m})", (X, y, base), (X, y, moved)),
        NeighbourPair(f"a lone positive example moves onto a heavy one (m={m})", (X, y, heavy), (X, y, heavy_moved)),
    ]


register(
    AuditCase(
        name="rectangle-learner-bns",
        description=(
            f"PrivateRectangleClassifier(method='bns').fit (R-CDF reconstruction of section 3.5) on an "
            f"{RECT_AXES[0]}x{RECT_AXES[1]} grid, alpha={RECT_ALPHA}, at the smallest m SanThresholds' precondition "
            "allows"
        ),
        release=_rect_release,
        pairs=_rect_pairs,
        exact=False,
        trials=600,
        reference="Beimel, Nissim, Stemmer, section 3.5, Thm 3.22 (spec 5.3 reconstruction)",
        branches=(
            Branch(
                "one SanThresholds per axis (counts of the positives), the box read off its CDF, on the public grid",
                ("a lone positive example moves onto a heavy one",),
                ("the rectangle grid read off the data",),
            ),
        ),
    )
)
