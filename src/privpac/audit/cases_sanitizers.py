"""Audit cases for the sanitizers and label-private learners of Beimel, Nissim, Stemmer (sections 4 to 6).

* ``san-points`` / ``k-point``: the real :func:`~privpac.sanitizers.points.san_points` run many
  times on crafted neighbours at the smallest ``m`` its privacy precondition allows (large
  ``alpha`` keeps ``m`` in the thousands). The audited output is the sequence of released points
  (a post-processing of the release, so any violation found is real); its exact distribution
  is computable from the choosing mechanism's plans, which gives an exact hockey-stick check on
  the same projection.
* ``san-points-below-precondition``: the same run at ``m = 8``, far below the precondition, with
  the check switched off: the paper-literal reading (E18), which must be flagged.
* ``san-thresholds``: the real :func:`~privpac.sanitizers.thresholds.san_thresholds` on a
  16-point domain at the smallest ``m`` its precondition allows (millions of records, held as
  counts per value); audited output: the interval ends that carry weight. Composite: no exact
  distribution, empirical audit only.
* ``rectangle-learner-bns``: the R-CDF rectangle learner on an 8 x 8 grid (counts per point);
  audited output: the box. Empirical audit only.
* ``label-private`` / ``semi-private``: the exponential mechanism over the candidate set ``H``,
  exact output distribution over ``H``. Label neighbours (one label of ``S2`` flipped, one label
  of ``S1`` flipped) for the label-private learner; a replaced labelled record for the
  semi-private learner.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import UnsafeConfigurationWarning
from ..learners.concept_classes import PointFunctions, Thresholds
from ..learners.label_private import label_private_candidates, label_private_distribution
from ..learners.rectangles_bns import bns_rectangle_plan, learn_rectangle_bns
from ..mechanisms.choosing import choosing_plan
from ..mechanisms.exponential import exponential_probabilities, sample_log_weights
from ..sanitizers.database import CountedData
from ..sanitizers.points import san_points, san_points_plan
from ..sanitizers.thresholds import san_thresholds, san_thresholds_plan
from .registry import AuditCase, NeighbourPair, register

__all__ = ["san_points_key_distribution"]

SAN_ALPHA = 0.8
SAN_BETA = 0.5
KPOINT_K = 2
KPOINT_ALPHA = 0.9
DOMAIN = 16


def _counted(counts: dict) -> CountedData:
    keys = sorted(counts)
    return CountedData.from_counts(keys, [counts[k] for k in keys], DOMAIN)


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


def _san_run(alpha, unsafe=False):
    def run(counts, n, rng, epsilon, delta):
        counted = _counted(counts)
        outs = np.empty(n, dtype=object)  # tuples of varying length
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsafeConfigurationWarning)
            for t in range(n):
                db = san_points(
                    counted,
                    alpha=alpha,
                    beta=SAN_BETA,
                    epsilon=epsilon,
                    delta=delta,
                    domain_size=DOMAIN,
                    rng=rng,
                    unsafe_skip_precondition=unsafe,
                )
                outs[t] = tuple(db.info["chosen"])
        return outs

    return run


def _san_exact(alpha):
    def exact(counts, epsilon, delta):
        return san_points_key_distribution(counts, alpha, SAN_BETA, epsilon, delta)

    return exact


def _san_pairs(alpha):
    def pairs(eps, delta):
        m = math.ceil(san_points_plan(alpha, SAN_BETA, eps, delta, "tuned").min_size)
        half = m // 2
        return [
            NeighbourPair(f"a singleton beside a heavy point vs none (m={m})", {0: m - 1, 1: 1}, {0: m}),
            NeighbourPair(
                f"two heavy points, one record moves (m={m})", {0: half, 1: m - half}, {0: half + 1, 1: m - half - 1}
            ),
        ]

    return pairs


register(
    AuditCase(
        name="san-points",
        description=(
            f"SanPoints (Fig. 9) at alpha={SAN_ALPHA}, beta={SAN_BETA} and the smallest m its privacy "
            "precondition allows; audited output: the released points"
        ),
        run=_san_run(SAN_ALPHA),
        pairs=_san_pairs(SAN_ALPHA),
        exact=_san_exact(SAN_ALPHA),
        trials=20_000,
        reference="Beimel, Nissim, Stemmer, Fig. 9, Thm 4.6",
    )
)

register(
    AuditCase(
        name="k-point",
        description=(
            f"k-POINT sanitizer (Fig. 10; k={KPOINT_K}, alpha={KPOINT_ALPHA}: SanPoints at alpha/k) at the "
            "smallest m its privacy precondition allows; audited output: the released points"
        ),
        run=_san_run(KPOINT_ALPHA / KPOINT_K),
        pairs=_san_pairs(KPOINT_ALPHA / KPOINT_K),
        exact=_san_exact(KPOINT_ALPHA / KPOINT_K),
        trials=10_000,
        reference="Beimel, Nissim, Stemmer, Fig. 10, Thm 4.7",
    )
)


def _unsafe_pairs(eps, delta):
    return [NeighbourPair("m = 8: a singleton beside a heavy point vs none", {0: 7, 1: 1}, {0: 8})]


register(
    AuditCase(
        name="san-points-below-precondition",
        description="SanPoints at m = 8 with the choosing precondition switched off (erratum E18): leaks",
        run=_san_run(SAN_ALPHA, unsafe=True),
        pairs=_unsafe_pairs,
        exact=_san_exact(SAN_ALPHA),
        trials=20_000,
        expect_violation=True,
        reference="Beimel, Nissim, Stemmer, Lemma 4.4 (erratum E18)",
    )
)


# -- label-private and semi-private learners ------------------------------------------------------

LP_DOMAIN = 32
LP_SPLIT = 6  # |S1|: labels ignored


def _lp_class(name):
    return Thresholds(LP_DOMAIN) if name == "thresholds" else PointFunctions(LP_DOMAIN)


def _lp_run(data, n, rng, epsilon, delta):
    name, x, y = data
    cls = _lp_class(name)
    H = label_private_candidates(cls, x[:LP_SPLIT])
    scores = cls.scores(H, x[LP_SPLIT:], y[LP_SPLIT:])
    return np.asarray(H)[sample_log_weights(epsilon * scores / 2.0, rng, size=n)]


def _lp_exact(data, epsilon, delta):
    name, x, y = data
    return label_private_distribution(x, y, _lp_class(name), epsilon=epsilon, n_unlabelled=LP_SPLIT)


def _flip(y, i):
    z = y.copy()
    z[i] = 1 - z[i]
    return z


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
        description="generic label-private learner (Fig. 13): exponential mechanism over H, label neighbours",
        run=_lp_run,
        pairs=_lp_pairs,
        exact=_lp_exact,
        delta=0.0,
        reference="Beimel, Nissim, Stemmer, Fig. 13, Thm 6.2",
    )
)

SP_PUBLIC = np.array([1, 4, 8, 12, 15, 19, 23, 27, 30])


def _sp_scores(data):
    name, x, y = data
    cls = _lp_class(name)
    H = label_private_candidates(cls, SP_PUBLIC)
    return H, cls.scores(H, x, y)


def _sp_run(data, n, rng, epsilon, delta):
    H, scores = _sp_scores(data)
    return np.asarray(H)[sample_log_weights(epsilon * scores / 2.0, rng, size=n)]


def _sp_exact(data, epsilon, delta):
    H, scores = _sp_scores(data)
    return dict(zip(H, exponential_probabilities(scores, epsilon).tolist()))


def _sp_pairs(eps, delta):
    x = np.array([2, 5, 9, 11, 14, 17, 20, 22, 26, 29, 31])
    x2 = x.copy()
    x2[4] = 28  # the record (14, 1) becomes (28, 0): features and label change
    y_thr = (x < 15).astype(np.int8)
    y2 = (x2 < 15).astype(np.int8)
    y_pt = (x == 14).astype(np.int8)
    return [
        NeighbourPair("thresholds: one labelled record replaced", ("thresholds", x, y_thr), ("thresholds", x2, y2)),
        NeighbourPair(
            "points: one labelled record replaced", ("points", x, y_pt), ("points", x2, (x2 == 14).astype(np.int8))
        ),
    ]


register(
    AuditCase(
        name="semi-private",
        description="semi-private learner (section 6.2): H from public points, whole labelled records protected",
        run=_sp_run,
        pairs=_sp_pairs,
        exact=_sp_exact,
        delta=0.0,
        reference="Beimel, Nissim, Stemmer, section 6.2",
    )
)


# -- SanThresholds ---------------------------------------------------------------------------------

THR_ALPHA = 0.9
THR_BETA = 0.5


def _thr_run(counts, n, rng, epsilon, delta):
    counted = _counted(counts)
    outs = np.empty(n, dtype=object)
    for t in range(n):
        db = san_thresholds(
            counted, alpha=THR_ALPHA, beta=THR_BETA, epsilon=epsilon, delta=delta, domain_size=DOMAIN, rng=rng
        )
        outs[t] = tuple(int(v) for v in db.points)  # the interval ends that carry weight
    return outs


def _thr_pairs(eps, delta):
    m = math.ceil(san_thresholds_plan(THR_ALPHA, THR_BETA, eps, delta, DOMAIN).min_size)
    half = m // 2
    return [
        NeighbourPair(f"a singleton beside a heavy point vs none (m={m})", {3: m - 1, 12: 1}, {3: m}),
        NeighbourPair(
            f"two heavy points, one record moves (m={m})", {3: half, 12: m - half}, {3: half + 1, 12: m - half - 1}
        ),
    ]


register(
    AuditCase(
        name="san-thresholds",
        description=(
            f"SanThresholds (Fig. 11) at alpha={THR_ALPHA}, beta={THR_BETA}, |X|={DOMAIN} and the smallest m its "
            "privacy precondition allows (data held as counts); audited output: the weighted interval ends"
        ),
        run=_thr_run,
        pairs=_thr_pairs,
        trials=20_000,
        reference="Beimel, Nissim, Stemmer, Fig. 11, Lemma 4.8, Thm 4.13",
    )
)


# -- BNS rectangle learner (R-CDF) -------------------------------------------------------------------

RECT_ALPHA = 0.99
RECT_BETA = 0.5
RECT_AXES = (8, 8)


def _rect_run(data, n, rng, epsilon, delta):
    X, y, counts = data
    outs = np.empty(n, dtype=object)
    for t in range(n):
        box = learn_rectangle_bns(
            X, y, counts=counts, axis_sizes=RECT_AXES, alpha=RECT_ALPHA, beta=RECT_BETA, epsilon=epsilon,
            delta=delta, rng=rng,
        )  # fmt: skip
        outs[t] = tuple(box.lower) + tuple(box.upper)
    return outs


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
            f"BNS rectangle learner (R-CDF reconstruction of section 3.5) on an {RECT_AXES[0]}x{RECT_AXES[1]} grid, "
            f"alpha={RECT_ALPHA}, at the smallest m SanThresholds' precondition allows; audited output: the box"
        ),
        run=_rect_run,
        pairs=_rect_pairs,
        trials=5_000,
        reference="Beimel, Nissim, Stemmer, section 3.5, Thm 3.22 (spec 5.3 reconstruction)",
    )
)
