"""Audit cases for RecConcave and the learners of Beimel, Nissim, Stemmer, through their entry points.

Estimators are fitted through their public ``fit`` and audited on everything they release
(:func:`~privpac.audit.release.fit_release`); algorithms without an estimator (RecConcave, the
interior points, LearnThresholds at a forced depth, the paper-literal point learner) through
their public functions with the ledger they charge (:func:`~privpac.audit.release.call_release`).
Exact laws are enumerated from those same calls. Recursion is forced on the small ranges an audit
can afford (``N = 2`` on ``[0, 64]``, and ``N = 3`` with the test-only ``base_case_max = 2``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..domains import Grid
from ..errors import PaperLiteralWarning
from ..estimators.histogram import PrivateHistogram
from ..estimators.median import PrivateMedian
from ..estimators.point import PrivatePointClassifier
from ..estimators.threshold import PrivateThresholdClassifier
from ..learners.exponential import em_learner
from ..learners.point import learn_point
from ..learners.thresholds import learn_thresholds, threshold_quality
from ..mechanisms.adist import adist_plan
from ..mechanisms.exponential_grouped import grouping
from ..optimize.interior_point import ExponentialInteriorPoint, RecConcaveInteriorPoint
from ..optimize.recconcave import rec_concave
from .registry import ENGINE_GAP, AuditCase, Branch, NeighbourPair, register
from .release import call_release, fit_release

T_AUDIT = 64  # a domain of 64 points, thresholds over [0, 64]: RecConcave recurses once (64 > 32)


def _column(xs) -> np.ndarray:
    return np.asarray(xs, dtype=np.int64).reshape(-1, 1)


def _fit_release(make):
    """A release function fitting ``make(epsilon, delta)`` on ``(xs, ys)`` (or ``xs`` alone)."""

    def release(data, rng, eps, delta):
        if isinstance(data, tuple):
            xs, ys = data
            return fit_release(make(eps, delta), _column(xs), np.asarray(ys), rng=rng)
        return fit_release(make(eps, delta), _column(data), rng=rng)

    return release


def _threshold_pairs():
    xs = [3, 9, 17, 30, 41, 50, 55, 60]
    ys = [1, 1, 1, 1, 0, 0, 0, 0]
    return [
        ("a label next to the boundary flips", (xs, ys), (xs, [1, 1, 1, 1, 1, 0, 0, 0])),
        ("a positive point jumps across the boundary", (xs, ys), ([3, 9, 17, 58, 41, 50, 55, 60], ys)),
        ("a stack of identical points loses one", ([20] * 8, [1] * 8), ([20] * 7 + [40], [1] * 7 + [0])),
    ]


# -- RecConcave ------------------------------------------------------------------------------------

# (promise, N, base_case_max): recursion once on [0, 64], and twice with the test-only base case.
RC_CONFIGS = ((8.0, 2, 32), (8.0, 3, 2))


def _recconcave_release(data, rng, eps, delta):
    (xs, ys), promise, N, base = data
    q = threshold_quality(xs, ys, T_AUDIT)
    return call_release(rec_concave, q, promise, 0.5, eps, delta, N=N, base_case_max=base, budget=(eps, delta), rng=rng)


#: Two peaks of the threshold quality, 32 points apart, and a record between them relabelled: the
#: leader moves from one peak to the other with a gap of one (A_dist's leader change).
_TWO_PEAKS = (
    "two peaks; a record between them relabelled moves the leader across",
    ([8, 16, 40, 48, 30], [1, 0, 1, 0, 0]),
    ([8, 16, 40, 48, 30], [1, 0, 1, 0, 1]),
)


def _recconcave_pairs(eps, delta):
    return [
        NeighbourPair(
            f"{label} (N={N}, base_case_max={base})",
            (a, promise, N, base),
            (b, promise, N, base),
            empirical=label != _TWO_PEAKS[0],  # added for A_dist's branch: its exact law shows the bugs there
        )
        for promise, N, base in RC_CONFIGS
        for label, a, b in [*_threshold_pairs(), _TWO_PEAKS]
    ]


register(
    AuditCase(
        name="recconcave",
        description="rec_concave on threshold qualities over [0, 64] with forced recursion (depth 2 and 3)",
        release=_recconcave_release,
        pairs=_recconcave_pairs,
        trials=1_500,
        reference="Beimel, Nissim, Stemmer, Fig. 5, Lemma 3.12, Thm 3.15 (errata E2-E4, E15)",
        branches=(
            Branch(
                "depth 2: the window size by the recursion, A_dist over both block partitions, the exponential "
                "mechanism on the released blocks (E4: on all of [0, T] when none)",
                ("two peaks; a record between them relabelled moves the leader across (N=2",),
                ("A_dist's threshold without its tail term",),
            ),
            Branch(
                "depth 3 (base_case_max = 2): the recursion runs twice",
                ("two peaks; a record between them relabelled moves the leader across (N=3",),
                ("A_dist's threshold without its tail term",),
            ),
        ),
    )
)


# -- interior point --------------------------------------------------------------------------------

IP_HI = 63


def _ip_pairs(eps, delta):
    return [
        NeighbourPair("replace the largest value", [10, 20, 30, 40, 50], [10, 20, 30, 40, 63]),
        NeighbourPair("remove a value (add/remove neighbours)", [10, 20, 30, 40, 50], [10, 20, 30, 40]),
        NeighbourPair("the empty dataset vs one value", [], [5]),
        NeighbourPair("a stack of equal values loses one to the far end", [7] * 6, [7] * 5 + [60]),
        NeighbourPair(
            "the middle value crosses a block edge (31 to 32)", [0, 0, 31, 63, 63], [0, 0, 32, 63, 63], empirical=False
        ),
    ]


def _ip_release(ip):
    def release(values, rng, eps, delta):
        return call_release(ip, np.asarray(values, dtype=np.int64), 0, IP_HI, eps, delta, budget=(eps, delta), rng=rng)

    return release


register(
    AuditCase(
        name="interior-point",
        description="RecConcaveInteriorPoint on [0, 63] (depth 3), replacement and add/remove neighbours",
        release=_ip_release(RecConcaveInteriorPoint(beta=0.1, N=3, base_case_max=2)),
        pairs=_ip_pairs,
        trials=1_500,
        reference="Beimel, Nissim, Stemmer, Fig. 5; spec ss-rectangles 3.1 (interior-point contract)",
        branches=(
            Branch(
                "replace-one neighbours",
                ("replace the largest value",),
                ("the interior point's range narrowed to the data",),
            ),
            Branch(
                "add/remove neighbours, the empty input included (the size is not public)",
                ("the empty dataset vs one value",),
                ("an empty input answered by the low end",),
            ),
        ),
    )
)
register(
    AuditCase(
        name="interior-point-exponential",
        description="ExponentialInteriorPoint on [0, 63], replacement and add/remove neighbours",
        release=_ip_release(ExponentialInteriorPoint()),
        pairs=_ip_pairs,
        delta=0.0,
        trials=5_000,
        reference="spec ss-rectangles 3.2 (EM-IP)",
        branches=(
            Branch(
                "replace-one neighbours",
                ("a stack of equal values loses one",),
                ("step-function EM sampling at 2 epsilon",),
            ),
            Branch(
                "add/remove neighbours, the empty input included (the size is not public)",
                ("the empty dataset vs one value",),
                ("an empty input answered by the low end",),
            ),
        ),
    )
)


# -- the median estimator ----------------------------------------------------------------------------


def _median_pairs(eps, delta):
    return [
        NeighbourPair("replace the largest value", [10, 20, 30, 40, 50], [10, 20, 30, 40, 63]),
        NeighbourPair("the middle value moves to the far end", [10, 20, 30, 40, 50], [10, 20, 63, 40, 50]),
        NeighbourPair("a stack of equal values loses one", [7] * 6, [7] * 5 + [60]),
    ]


register(
    AuditCase(
        name="median",
        description="PrivateMedian.fit on [0, 63]: the exponential mechanism and RecConcave at depth 2",
        release=lambda data, rng, eps, delta: _fit_release(
            lambda e, d: PrivateMedian(epsilon=e, delta=d, domain=(0, IP_HI), method=data[0], N=data[1])
        )(data[2], rng, eps, delta),
        pairs=lambda eps, delta: [
            NeighbourPair(f"{p.label} ({method})", (method, N, p.dataset), (method, N, p.neighbour))
            for method, N in (("exponential", None), ("auto", 2))
            for p in _median_pairs(eps, delta)
        ],
        delta=1e-3,
        trials=1_500,
        reference="Beimel, Nissim, Stemmer, Fig. 5 and section 2.5.2 (the interior-point quality)",
        branches=(
            Branch(
                "method='exponential'",
                ("a stack of equal values loses one (exponential)",),
                ("step-function EM sampling at 2 epsilon",),
            ),
            Branch(
                "method='auto' on a small domain: RecConcave's plan at depth 2 (N = 2)",
                ("replace the largest value (auto)",),
                ("the median's range read off the data",),
            ),
            Branch(
                "on Dask or Spark: the same exact statistic computed per partition and merged on the driver",
                ("replace the largest value (auto)",),
                gap=ENGINE_GAP,
            ),
        ),
    )
)


# -- the histogram estimator -------------------------------------------------------------------------


def _histogram_release(data, rng, eps, delta):
    """Integer values on ``[0, 9]``, or ``("grid", values)``: real values on the public ``Grid(0, 1, 11)``."""
    domain = (0, 9)
    if isinstance(data, tuple):
        domain, data = Grid(0.0, 1.0, 11), data[1]
    est = PrivateHistogram(epsilon=eps, delta=delta, domain=domain, n_bins=2)
    return fit_release(est, np.asarray(data).reshape(-1, 1), rng=rng)


register(
    AuditCase(
        name="histogram",
        description="PrivateHistogram.fit: discrete Laplace counts over 2 public bins",
        release=_histogram_release,
        pairs=lambda eps, delta: [
            NeighbourPair("a record moves to the other bin", [1, 2, 7], [1, 7, 7]),
            NeighbourPair("a record moves inside its bin", [1, 2, 7], [1, 4, 7]),
            NeighbourPair(
                "Grid(0, 1, 11): a real value moves to the other bin",
                ("grid", [0.1, 0.2, 0.7]),
                ("grid", [0.1, 0.7, 0.7]),
                empirical=False,  # the Grid branch: its exact law shows the bugs there
            ),
        ],
        epsilon=2.0,  # noise of scale 1: the two bins' exact law has about 4,000 paths
        delta=0.0,
        trials=3_000,
        reference="Beimel, Nissim, Stemmer, Thm 2.24 (a histogram has L1 sensitivity 2)",
        branches=(
            Branch(
                "an integer domain: two bins of the public range, a moved record changes two counts",
                ("a record moves to the other bin",),
                ("halved Laplace noise", "histogram noise calibrated for sensitivity 1"),
            ),
            Branch(
                "a Grid domain: real values mapped to the public grid, then binned",
                ("Grid(0, 1, 11)",),
                ("histogram noise calibrated for sensitivity 1",),
            ),
            Branch(
                "on Dask or Spark: the same exact statistic computed per partition and merged on the driver",
                ("a record moves to the other bin",),
                gap=ENGINE_GAP,
            ),
        ),
    )
)


# -- point learner ---------------------------------------------------------------------------------

POINT_SIZE = 16


def _point_pairs(variant):
    def pairs(eps, delta):
        g = math.ceil(adist_plan([0.0, 0.0], eps, delta, variant).threshold)
        a = g + 1
        return [
            NeighbourPair(
                f"(x, 1) moves from the runner-up to the leader at the threshold: gap {g - 1} vs {g + 1}",
                ([3] * (a - 1) + [5], [1] * a),
                ([3] * a, [1] * a),
            ),
            NeighbourPair(
                "the leader changes: 5 vs 4 positives", ([3] * 5 + [5] * 4, [1] * 9), ([3] * 4 + [5] * 5, [1] * 9)
            ),
            NeighbourPair("no positive vs one positive", ([3, 5, 7], [0, 0, 0]), ([3, 5, 7], [1, 0, 0])),
        ]

    return pairs


register(
    AuditCase(
        name="point-learner",
        description=f"PrivatePointClassifier.fit (A_dist, corrected) on a domain of {POINT_SIZE} points "
        "(random fallback)",
        release=_fit_release(
            lambda e, d: PrivatePointClassifier(epsilon=e, delta=d, domain=(0, POINT_SIZE - 1), method="adist")
        ),
        pairs=_point_pairs("corrected"),
        trials=4_000,
        reference="Beimel, Nissim, Stemmer, Lemma 3.2 with erratum E1",
        branches=(
            Branch(
                "A_dist releases the leader (the gap at the release threshold)",
                ("from the runner-up to the leader",),
                ("halved A_dist noise in the release path",),
            ),
            Branch(
                "the leader changes (A_dist's delta)",
                ("the leader changes",),
                ("A_dist's threshold without its tail term",),
            ),
            Branch(
                "bottom: a uniformly random point (on_bottom='random')",
                ("no positive vs one positive",),
                ("the point learner's fallback taken from the data",),
            ),
        ),
    )
)


def _literal_point_release(data, rng, eps, delta):
    xs, ys = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PaperLiteralWarning)
        return call_release(
            learn_point,
            xs,
            ys,
            POINT_SIZE,
            eps,
            delta,
            on_bottom="zero",
            variant="paper-literal",
            budget=(eps, delta),
            rng=rng,
        )


register(
    AuditCase(
        name="point-learner-paper-literal",
        description="learn_point with the paper's A_dist (noise 1/eps): a moved positive shifts the gap by 2",
        release=_literal_point_release,
        pairs=_point_pairs("paper-literal"),
        trials=4_000,
        expect_violation=True,
        reference="Beimel, Nissim, Stemmer, Lemma 3.2 (erratum E1)",
        branches=(
            Branch("the paper's A_dist (noise 1/epsilon) inside the learner", ("from the runner-up to the leader",)),
        ),
    )
)


# -- threshold learner -----------------------------------------------------------------------------

LT_ALPHA, LT_BETA = 0.5, 0.1


def _lt_release(data, rng, eps, delta):
    (xs, ys), N, base, *given = data
    if base == 32:  # the depth an estimator reaches on [0, 64] with N = 2
        est = PrivateThresholdClassifier(
            epsilon=eps,
            delta=delta,
            domain=(0, T_AUDIT - 1),
            method="recconcave",
            N=N,
            alpha=LT_ALPHA,
            beta=LT_BETA,
            orientation=given[0] if given else "auto",
        )
        return fit_release(est, _column(xs), np.asarray(ys), rng=rng)
    return call_release(
        learn_thresholds,
        xs,
        ys,
        T_AUDIT,
        LT_ALPHA,
        LT_BETA,
        eps,
        delta,
        N=N,
        base_case_max=base,
        budget=(eps, delta),
        rng=rng,
    )


#: Six records whose better orientation flips with one label: the best threshold below labels 5 of them
#: and the best above 4, then 4 and 5 (an orientation chosen by an exact comparison would follow).
_ORIENTATION_FLIP = (
    "the better orientation flips with one label (best below 5 vs 4, then 4 vs 5)",
    ([10, 20, 30, 40, 50, 60], [0, 1, 1, 1, 0, 0]),
    ([10, 20, 30, 40, 50, 60], [0, 1, 1, 1, 0, 1]),
)


def _flipped(data):
    xs, ys = data
    return xs, [1 - y for y in ys]


def _lt_pairs(eps, delta):
    # The pairs added for the branches (two peaks, the orientation flip, the orientation given) are
    # checked exactly only: the exact law of the shipped fit shows the bugs of their branches.
    branch_pairs = (_TWO_PEAKS[0], _ORIENTATION_FLIP[0])
    label, a, b = _TWO_PEAKS
    return [
        NeighbourPair(
            f"{label} (N={N}, base_case_max={base})", (a, N, base), (b, N, base), empirical=label not in branch_pairs
        )
        for N, base in ((2, 32), (3, 2))
        for label, a, b in [*_threshold_pairs(), _TWO_PEAKS] + ([_ORIENTATION_FLIP] if base == 32 else [])
    ] + [
        NeighbourPair(
            f"orientation given ('above'): {label}, labels flipped (N=2, base_case_max=32)",
            (_flipped(a), 2, 32, "above"),
            (_flipped(b), 2, 32, "above"),
            empirical=False,
        )
    ]


register(
    AuditCase(
        name="threshold-learner",
        description="PrivateThresholdClassifier.fit (RecConcave, depth 2) and learn_thresholds at depth 3, "
        "over [0, 64]",
        release=_lt_release,
        pairs=_lt_pairs,
        trials=1_500,
        reference="Beimel, Nissim, Stemmer, Thm 3.18",
        branches=(
            Branch(
                "orientation learned: the exponential mechanism picks it with 10% of epsilon, RecConcave runs on the "
                "rest",
                ("the better orientation flips",),
                ("the orientation chosen by an exact comparison, RecConcave at the full budget",),
            ),
            Branch(
                "RecConcave at depth 2 through the estimator (A_dist over the block partitions)",
                ("two peaks; a record between them relabelled moves the leader across (N=2",),
                ("A_dist's threshold without its tail term",),
            ),
            Branch(
                "learn_thresholds at depth 3",
                ("two peaks; a record between them relabelled moves the leader across (N=3",),
                ("A_dist's threshold without its tail term",),
            ),
            Branch(
                "orientation given ('above'): no orientation step, RecConcave at the whole budget on flipped labels",
                ("orientation given ('above')",),
                ("A_dist's threshold without its tail term",),
            ),
        ),
    )
)


# -- exponential-mechanism learner -------------------------------------------------------------------

FINITE_CLASS = [[0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1], [0, 1, 0, 1]]


def _em_release(data, rng, eps, delta):
    kind, xs, ys = data
    if kind == "finite":  # a finite class of 6 hypotheses given by their labels on 4 points
        return call_release(em_learner, FINITE_CLASS, ys, eps, budget=(eps, delta), rng=rng)
    if kind in ("thresholds", "thresholds above"):  # the orientation learned, or given
        orientation = "above" if kind == "thresholds above" else "auto"
        est = PrivateThresholdClassifier(
            epsilon=eps, delta=delta, domain=(0, T_AUDIT - 1), method="exponential", orientation=orientation
        )
    else:
        est = PrivatePointClassifier(epsilon=eps, delta=delta, domain=(0, POINT_SIZE - 1), method="exponential")
    return fit_release(est, _column(xs), np.asarray(ys), rng=rng)


def _em_pairs(eps, delta):
    (xa, ya), (xb, yb) = _threshold_pairs()[0][1:]
    return [
        NeighbourPair("thresholds: a label flips", ("thresholds", xa, ya), ("thresholds", xb, yb)),
        NeighbourPair(
            "thresholds: a record moves onto another's value",
            ("thresholds", [3, 9, 17, 30], [1, 1, 0, 0]),
            ("thresholds", [3, 9, 17, 17], [1, 1, 0, 0]),
        ),
        NeighbourPair(
            "thresholds, orientation given ('above'): a label flips",
            ("thresholds above", xa, [1 - y for y in ya]),
            ("thresholds above", xb, [1 - y for y in yb]),
            empirical=False,  # the branch of a given orientation: its exact law shows the bugs there
        ),
        NeighbourPair(
            "points: a positive moves", ("points", [3, 3, 5, 9], [1, 1, 0, 0]), ("points", [3, 7, 5, 9], [1, 1, 0, 0])
        ),
        NeighbourPair("finite class: one label flips", ("finite", None, [1, 1, 0, 0]), ("finite", None, [1, 0, 0, 0])),
    ]


register(
    AuditCase(
        name="exponential-learner",
        description="the exponential-mechanism learner: PrivateThresholdClassifier and PrivatePointClassifier "
        "with method='exponential', and em_learner over a finite class",
        release=_em_release,
        pairs=_em_pairs,
        delta=0.0,
        trials=4_000,
        reference="Kasiviswanathan et al. 2008; Beimel, Nissim, Stemmer, section 2.5.2",
        branches=(
            Branch(
                "thresholds, orientation learned: one exponential mechanism over both orientations, drawn range by "
                "range",
                ("thresholds: a label flips", "thresholds: a record moves onto another's value"),
                ("grouped EM sampling at 2 epsilon",),
            ),
            Branch(
                "thresholds, orientation given ('above')",
                ("thresholds, orientation given",),
                ("grouped EM sampling at 2 epsilon",),
            ),
            Branch(
                "point functions (method='exponential')",
                ("points: a positive moves",),
                ("grouped EM sampling at 2 epsilon",),
            ),
            Branch("em_learner over a finite class", ("finite class",), ("finite-list EM sampling at 2 epsilon",)),
            Branch(
                "what the fit records beside its output: the ledger, the stored attributes, the public domain",
                ("thresholds: a label flips", "thresholds: a record moves onto another's value"),
                (
                    "a mechanism call that charges nothing",
                    "a data-dependent number in a ledger entry",
                    "an exact count stored on the estimator",
                    "a domain bound derived from the data",
                ),
            ),
            Branch(
                "on Dask or Spark: the same exact statistic computed per partition and merged on the driver",
                ("thresholds: a label flips",),
                gap=ENGINE_GAP,
            ),
        ),
    ),
    former_names=("em-learner",),
)


#: A fan-out small enough that the audit's 64-point domain goes through several levels of ranges.
GROUPED_FAN_OUT = 4


def _em_grouped_release(data, rng, eps, delta):
    with grouping(GROUPED_FAN_OUT):
        return _em_release(data, rng, eps, delta)


def _em_grouped_pairs(eps, delta):
    return [pair for pair in _em_pairs(eps, delta) if not pair.label.startswith("finite")]


register(
    AuditCase(
        name="exponential-learner-grouped",
        description="PrivateThresholdClassifier (both orientations) and PrivatePointClassifier with "
        "method='exponential', "
        f"drawn range by range at fan-out {GROUPED_FAN_OUT} (four levels on the 64-point domain)",
        release=_em_grouped_release,
        pairs=_em_grouped_pairs,
        delta=0.0,
        trials=4_000,
        reference="Kasiviswanathan et al. 2008; Beimel, Nissim, Stemmer, section 2.5.2 (grouped draw: "
        "privpac.mechanisms.exponential_grouped)",
        branches=(
            Branch(
                "thresholds of both orientations, range by range at fan-out 4 (offsets of the label counts left of a "
                "range)",
                ("thresholds: a label flips", "thresholds, orientation given"),
                ("grouped EM sampling at 2 epsilon", "a threshold range weight without its offset"),
            ),
            Branch(
                "point functions, range by range",
                ("points: a positive moves",),
                ("grouped EM sampling at 2 epsilon",),
            ),
        ),
    ),
    former_names=("em-learner-grouped",),
)
