"""Audit cases for RecConcave and the learners of Beimel, Nissim, Stemmer, with their worst-case pairs.

Composite algorithms (RecConcave, LearnThresholds, the RecConcave interior point) are run many
times at once by their batched samplers (:func:`~privpac.optimize.recconcave.rec_concave_sample`:
the same plan and data-dependent computations as the real code, noise drawn in batches on the
audit source; its agreement with the real code is tested), and are also checked exactly: their
output distributions are computable on small ranges
(:func:`~privpac.optimize.recconcave.rec_concave_distribution`). Recursion is forced on the small
ranges an audit can afford (``N = 2`` on ``[0, 64]``, and ``N = 3`` with the test-only
``base_case_max = 2``). The point learner and the exponential-mechanism learner run their exact
plans with vectorised noise, as the mechanism audits do.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import PaperLiteralWarning
from ..learners.exponential import em_point_quality
from ..learners.point import point_learner_distribution, point_quality
from ..learners.thresholds import learn_thresholds_distribution, learn_thresholds_samples, threshold_quality
from ..mechanisms.adist import adist_plan
from ..mechanisms.exponential import exponential_probabilities, sample_log_weights, step_piece_probabilities
from ..optimize.interior_point import ExponentialInteriorPoint, RecConcaveInteriorPoint, interior_point_quality
from ..optimize.recconcave import rec_concave_distribution, rec_concave_sample
from ..random import discrete_laplace_array, uniform_array
from .registry import AuditCase, NeighbourPair, register

BOTTOM = -1
ZERO_HYPOTHESIS = -2

T_AUDIT = 64  # thresholds over [0, 64]: RecConcave recurses once (64 > 32)


def _step_samples(f, epsilon, n, rng):
    """``n`` draws of the exponential mechanism over every point of ``[0, f.T]`` (small T)."""
    log_w = f.log_lengths() + epsilon * f.values.astype(float) / 2.0
    pieces = sample_log_weights(log_w, rng, size=n)
    lengths = f.lengths().astype(np.int64)
    offsets = np.floor(uniform_array(n, rng) * lengths[pieces]).astype(np.int64)
    return f.starts.astype(np.int64)[pieces] + offsets


def _step_exact(f, epsilon):
    probs = step_piece_probabilities(f, epsilon)
    out = {}
    for start, length, p in zip(f.starts.tolist(), f.lengths().tolist(), probs.tolist()):
        for x in range(start, start + length):
            out[x] = p / length
    return out


# -- RecConcave ------------------------------------------------------------------------------------

# (promise, N, base_case_max): recursion once on [0, 64], and twice with the test-only base case.
RC_CONFIGS = ((8.0, 2, 32), (8.0, 3, 2))


def _rc_data(xs, ys):
    return threshold_quality(xs, ys, T_AUDIT)


def _recconcave_run(data, n, rng, epsilon, delta):
    q, promise, N, base = data
    return rec_concave_sample(q, promise, 0.5, epsilon, delta, n, N=N, base_case_max=base, rng=rng)


def _recconcave_exact(data, epsilon, delta):
    q, promise, N, base = data
    return dict(enumerate(rec_concave_distribution(q, promise, 0.5, epsilon, delta, N=N, base_case_max=base)))


def _threshold_pairs():
    xs = [3, 9, 17, 30, 41, 50, 55, 60]
    ys = [1, 1, 1, 1, 0, 0, 0, 0]
    return [
        ("a label next to the boundary flips", (xs, ys), (xs, [1, 1, 1, 1, 1, 0, 0, 0])),
        ("a positive point jumps across the boundary", (xs, ys), ([3, 9, 17, 58, 41, 50, 55, 60], ys)),
        ("a stack of identical points loses one", ([20] * 8, [1] * 8), ([20] * 7 + [40], [1] * 7 + [0])),
    ]


def _recconcave_pairs(eps, delta):
    out = []
    for promise, N, base in RC_CONFIGS:
        for label, (xa, ya), (xb, yb) in _threshold_pairs():
            out.append(
                NeighbourPair(
                    f"{label} (N={N}, base_case_max={base})",
                    (_rc_data(xa, ya), promise, N, base),
                    (_rc_data(xb, yb), promise, N, base),
                )
            )
    return out


register(
    AuditCase(
        name="recconcave",
        description="RecConcave on threshold qualities over [0, 64] with forced recursion (depth 2 and 3)",
        run=_recconcave_run,
        pairs=_recconcave_pairs,
        exact=_recconcave_exact,
        trials=100_000,
        reference="Beimel, Nissim, Stemmer, Fig. 5, Lemma 3.12, Thm 3.15 (errata E2-E4, E15)",
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
    ]


_IP = RecConcaveInteriorPoint(beta=0.1, N=3, base_case_max=2)


def _ip_run(values, n, rng, epsilon, delta):
    return _IP.samples(values, 0, IP_HI, epsilon, delta, n, rng=rng)


def _ip_exact(values, epsilon, delta):
    return _IP.output_distribution(values, 0, IP_HI, epsilon, delta)


register(
    AuditCase(
        name="interior-point",
        description="RecConcave interior point on [0, 63] (depth 3), replacement and add/remove neighbours",
        run=_ip_run,
        pairs=_ip_pairs,
        exact=_ip_exact,
        trials=100_000,
        reference="Beimel, Nissim, Stemmer, Fig. 5; spec ss-rectangles 3.1 (interior-point contract)",
    )
)


def _ip_em_run(values, n, rng, epsilon, delta):
    return _step_samples(interior_point_quality(values, 0, IP_HI), epsilon, n, rng)


def _ip_em_exact(values, epsilon, delta):
    return ExponentialInteriorPoint().output_distribution(values, 0, IP_HI, epsilon)


register(
    AuditCase(
        name="interior-point-exponential",
        description="exponential-mechanism interior point on [0, 63], replacement and add/remove neighbours",
        run=_ip_em_run,
        pairs=_ip_pairs,
        exact=_ip_em_exact,
        delta=0.0,
        reference="spec ss-rectangles 3.2 (EM-IP)",
    )
)


# -- point learner ---------------------------------------------------------------------------------

POINT_SIZE = 16


def _point_run(variant, on_bottom):
    def run(data, n, rng, epsilon, delta):
        xs, ys = data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PaperLiteralWarning)
            plan = adist_plan(point_quality(xs, ys, POINT_SIZE), epsilon, delta, variant)
        if plan.release_at is None:
            released = np.ones(n, dtype=bool)
        else:
            released = discrete_laplace_array(float(plan.scale), n, rng) >= plan.release_at
        if on_bottom == "zero":
            fallback = np.full(n, ZERO_HYPOTHESIS)
        else:
            fallback = np.floor(uniform_array(n, rng) * POINT_SIZE).astype(np.int64)
        return np.where(released, plan.leader, fallback)

    return run


def _point_exact(variant, on_bottom):
    def exact(data, epsilon, delta):
        xs, ys = data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PaperLiteralWarning)
            dist = point_learner_distribution(xs, ys, POINT_SIZE, epsilon, delta, on_bottom=on_bottom, variant=variant)
        return {ZERO_HYPOTHESIS if k is None else k: v for k, v in dist.items()}

    return exact


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
        description=f"POINT learner through the corrected A_dist on a domain of {POINT_SIZE} points (random fallback)",
        run=_point_run("corrected", "random"),
        pairs=_point_pairs("corrected"),
        exact=_point_exact("corrected", "random"),
        reference="Beimel, Nissim, Stemmer, Lemma 3.2 with erratum E1",
    )
)
register(
    AuditCase(
        name="point-learner-paper-literal",
        description="POINT learner with the paper's A_dist (noise 1/eps): a moved positive shifts the gap by 2",
        run=_point_run("paper-literal", "zero"),
        pairs=_point_pairs("paper-literal"),
        exact=_point_exact("paper-literal", "zero"),
        expect_violation=True,
        reference="Beimel, Nissim, Stemmer, Lemma 3.2 (erratum E1)",
    )
)


# -- threshold learner -----------------------------------------------------------------------------

LT_CONFIGS = ((2, 32), (3, 2))


LT_ALPHA, LT_BETA = 0.5, 0.1


def _lt_run(data, n, rng, epsilon, delta):
    xs, ys, N, base = data
    return learn_thresholds_samples(
        xs, ys, T_AUDIT, LT_ALPHA, LT_BETA, epsilon, delta, n, N=N, base_case_max=base, rng=rng
    )


def _lt_exact(data, epsilon, delta):
    xs, ys, N, base = data
    probs = learn_thresholds_distribution(xs, ys, T_AUDIT, LT_ALPHA, LT_BETA, epsilon, delta, N=N, base_case_max=base)
    return dict(enumerate(probs))


def _lt_pairs(eps, delta):
    out = []
    for N, base in LT_CONFIGS:
        for label, (xa, ya), (xb, yb) in _threshold_pairs():
            out.append(NeighbourPair(f"{label} (N={N}, base_case_max={base})", (xa, ya, N, base), (xb, yb, N, base)))
    return out


register(
    AuditCase(
        name="threshold-learner",
        description="LearnThresholds over [0, 64] with forced recursion (depth 2 and 3)",
        run=_lt_run,
        pairs=_lt_pairs,
        exact=_lt_exact,
        trials=100_000,
        reference="Beimel, Nissim, Stemmer, Thm 3.18",
    )
)


# -- exponential-mechanism learner -------------------------------------------------------------------


def _em_quality(data):
    kind, xs, ys = data
    if kind == "thresholds":
        return threshold_quality(xs, ys, T_AUDIT)
    return em_point_quality(xs, ys, POINT_SIZE)


def _em_run(data, n, rng, epsilon, delta):
    if data[0] == "finite":
        _, P, ys = data
        scores = (np.asarray(P) == np.asarray(ys)[None, :]).sum(axis=1)
        return sample_log_weights(epsilon * scores / 2.0, rng, size=n)
    return _step_samples(_em_quality(data), epsilon, n, rng)


def _em_exact(data, epsilon, delta):
    if data[0] == "finite":
        _, P, ys = data
        scores = (np.asarray(P) == np.asarray(ys)[None, :]).sum(axis=1)
        return dict(enumerate(exponential_probabilities(scores, epsilon).tolist()))
    return _step_exact(_em_quality(data), epsilon)


def _em_pairs(eps, delta):
    (xa, ya), (xb, yb) = _threshold_pairs()[0][1:]
    # A finite class of 6 hypotheses on 4 points; the neighbour changes one label.
    P = [[0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1], [0, 1, 0, 1]]
    return [
        NeighbourPair("thresholds: a label flips", ("thresholds", xa, ya), ("thresholds", xb, yb)),
        NeighbourPair(
            "points: a positive moves", ("points", [3, 3, 5, 9], [1, 1, 0, 0]), ("points", [3, 7, 5, 9], [1, 1, 0, 0])
        ),
        NeighbourPair("finite class: one label flips", ("finite", P, [1, 1, 0, 0]), ("finite", P, [1, 0, 0, 0])),
    ]


register(
    AuditCase(
        name="em-learner",
        description="generic exponential-mechanism learner: thresholds, points (step functions), a finite class",
        run=_em_run,
        pairs=_em_pairs,
        exact=_em_exact,
        delta=0.0,
        reference="Kasiviswanathan et al. 2008; Beimel, Nissim, Stemmer, section 2.5.2",
    )
)
