"""Audit cases for the mechanisms layer, with their worst-case neighbouring pairs.

Datasets here are what the mechanism reads: a query value for Laplace, a score vector or a
step function for the exponential mechanism and A_dist, a multiplicity map for the choosing
mechanism. Each pair changes every score by at most 1 (sensitivity 1), as replacing one record
does.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import PaperLiteralWarning
from ..mechanisms.adist import adist_plan
from ..mechanisms.choosing import choosing_min_size, choosing_plan
from ..mechanisms.exponential import exponential_probabilities, sample_log_weights, step_piece_probabilities
from ..mechanisms.laplace import discrete_laplace_pmf, laplace_mechanism, laplace_scale
from ..random import discrete_laplace_array, uniform_array
from ..stepfunc import StepFunction
from .registry import AuditCase, NeighbourPair, register

BOTTOM = -1  # how bottom (None) is recorded in vectorised runs


# -- Laplace -------------------------------------------------------------------------------------


def _laplace_run(value, n, rng, epsilon, delta):
    return laplace_mechanism(np.full(n, value, dtype=np.int64), 1, epsilon, rng=rng)


def _laplace_exact(value, epsilon, delta):
    scale = float(laplace_scale(1, epsilon))
    width = int(60 * scale) + 10
    outputs = np.arange(-width, width + 2)  # one support for both datasets of a pair
    return dict(zip(outputs.tolist(), discrete_laplace_pmf(outputs - value, scale).tolist()))


register(
    AuditCase(
        name="laplace",
        description="discrete Laplace mechanism on a sensitivity-1 count",
        run=_laplace_run,
        pairs=lambda eps, delta: [NeighbourPair("count 0 vs 1", 0, 1)],
        exact=_laplace_exact,
        delta=0.0,
        reference="Beimel, Nissim, Stemmer, Thm 2.24",
    )
)


# -- exponential mechanism, finite list ----------------------------------------------------------


def _em_run(scores, n, rng, epsilon, delta):
    log_w = epsilon * np.asarray(scores, dtype=float) / 2.0
    return sample_log_weights(log_w, rng, size=n)


def _em_exact(scores, epsilon, delta):
    return dict(enumerate(exponential_probabilities(scores, epsilon).tolist()))


def _em_pairs(eps, delta):
    k = 20
    return [
        NeighbourPair("one candidate up, all others down (k=20)", [1] + [0] * k, [0] + [1] * k),
        NeighbourPair("two candidates swap", [1, 0], [0, 1]),
    ]


register(
    AuditCase(
        name="exponential",
        description="exponential mechanism over a finite candidate list",
        run=_em_run,
        pairs=_em_pairs,
        exact=_em_exact,
        delta=0.0,
        reference="McSherry and Talwar 2007; Beimel, Nissim, Stemmer, Prop 2.25",
    )
)


# -- exponential mechanism over a step function ---------------------------------------------------


def _threshold_quality(points, labels, T):
    """Q(j) = #{i : [x_i < j] == y_i} over thresholds j in [0, T] (sensitivity 1)."""
    points = np.asarray(points)
    labels = np.asarray(labels)
    base = int(np.sum(labels == 0))
    return StepFunction.from_increments(T, base, points + 1, np.where(labels == 1, 1, -1))


def _step_run(f, n, rng, epsilon, delta):
    log_w = f.log_lengths() + epsilon * f.values.astype(float) / 2.0
    pieces = sample_log_weights(log_w, rng, size=n)
    lengths = f.lengths().astype(np.int64)
    offsets = np.floor(uniform_array(n, rng) * lengths[pieces]).astype(np.int64)
    return f.starts.astype(np.int64)[pieces] + offsets


def _step_exact(f, epsilon, delta):
    probs = step_piece_probabilities(f, epsilon)
    out = {}
    for start, length, p in zip(f.starts.tolist(), f.lengths().tolist(), probs.tolist()):
        for x in range(start, start + length):
            out[x] = p / length
    return out


def _step_pairs(eps, delta):
    T = 63
    spike = StepFunction([0, 32, 33], [0, 1, 0], T)
    dip = StepFunction([0, 32, 33], [1, 0, 1], T)
    xs = [3, 9, 17, 30, 41, 50]
    ys = [1, 1, 1, 0, 0, 0]
    ys2 = [1, 1, 1, 1, 0, 0]  # one record relabelled: a replace-one neighbour
    return [
        NeighbourPair("one point up, the rest down", spike, dip),
        NeighbourPair(
            "threshold quality, one record replaced", _threshold_quality(xs, ys, T), _threshold_quality(xs, ys2, T)
        ),
    ]


register(
    AuditCase(
        name="exponential-step",
        description="exponential mechanism over every point of [0, T] with a step-function quality",
        run=_step_run,
        pairs=_step_pairs,
        exact=_step_exact,
        delta=0.0,
        reference="Beimel, Nissim, Stemmer, section 2.5.2 (piecewise sampler of spec 3.2)",
    )
)


# -- A_dist ---------------------------------------------------------------------------------------


def _adist_run(variant):
    def run(scores, n, rng, epsilon, delta):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PaperLiteralWarning)
            plan = adist_plan(scores, epsilon, delta, variant)
        if plan.release_at is None:
            return np.full(n, plan.leader)
        z = discrete_laplace_array(float(plan.scale), n, rng)
        return np.where(z >= plan.release_at, plan.leader, BOTTOM)

    return run


def _adist_exact(variant):
    def exact(scores, epsilon, delta):
        dist = adist_plan(scores, epsilon, delta, variant).output_distribution()
        return {BOTTOM if k is None else k: v for k, v in dist.items()}

    return exact


def _adist_pairs(variant):
    def pairs(eps, delta):
        g = math.ceil(adist_plan([0.0, 0.0], eps, delta, variant).threshold)
        return [
            NeighbourPair("q(S) = (5, 3) vs q(S') = (6, 2): the gap moves by 2", [5, 3], [6, 2]),
            NeighbourPair(f"gap {g - 2} vs {g} at the release threshold: the gap moves by 2", [g - 1, 1], [g, 0]),
            NeighbourPair("the leader changes: (5, 4) vs (4, 5)", [5, 4], [4, 5]),
        ]

    return pairs


register(
    AuditCase(
        name="adist",
        description="A_dist, corrected (noise 2/eps, threshold 2 + k0): the library's default",
        run=_adist_run("corrected"),
        pairs=_adist_pairs("corrected"),
        exact=_adist_exact("corrected"),
        reference="Beimel, Nissim, Stemmer, Prop 2.26 with erratum E1",
    )
)
register(
    AuditCase(
        name="adist-paper-literal",
        description="A_dist as printed (noise 1/eps, threshold ln(1/delta)/eps); gap sensitivity 2 breaks it",
        run=_adist_run("paper-literal"),
        pairs=_adist_pairs("paper-literal"),
        exact=_adist_exact("paper-literal"),
        expect_violation=True,
        reference="Beimel, Nissim, Stemmer, Prop 2.26 (erratum E1)",
    )
)


# -- choosing mechanism ---------------------------------------------------------------------------

CHOOSING_ALPHA = 0.5
CHOOSING_BETA = 0.5


def _choosing_m(eps, delta):
    return math.ceil(choosing_min_size(CHOOSING_ALPHA, CHOOSING_BETA, eps, delta, 1))


def _choosing_run(counts, n, rng, epsilon, delta):
    m = sum(counts.values())
    plan = choosing_plan(counts, m, CHOOSING_ALPHA, epsilon)
    z = discrete_laplace_array(float(plan.scale), n, rng)
    if not plan.solutions:
        return np.full(n, BOTTOM)
    picks = sample_log_weights(plan.log_weights, rng, size=n)
    chosen = np.asarray(plan.solutions)[picks]
    return np.where(z >= plan.release_at, chosen, BOTTOM)


def _choosing_exact(counts, epsilon, delta):
    m = sum(counts.values())
    dist = choosing_plan(counts, m, CHOOSING_ALPHA, epsilon).output_distribution()
    return {BOTTOM if k is None else k: v for k, v in dist.items()}


def _choosing_pairs(eps, delta):
    m = _choosing_m(eps, delta)
    half = m // 2
    border = math.ceil(CHOOSING_ALPHA * m / 4)
    return [
        NeighbourPair(f"a singleton beside a heavy point vs none (m={m})", {0: m - 1, 1: 1}, {0: m}),
        NeighbourPair(
            f"two heavy points, one record moves (m={m})", {0: half, 1: m - half}, {0: half + 1, 1: m - half - 1}
        ),
        NeighbourPair(
            f"heaviest score at alpha*m/4 with a fresh singleton (m={m})",
            {0: border, **{i: 1 for i in range(1, m - border + 1)}},
            {0: border + 1, **{i: 1 for i in range(1, m - border)}},
        ),
    ]


register(
    AuditCase(
        name="choosing",
        description=(
            f"choosing mechanism (k=1, alpha={CHOOSING_ALPHA}, beta={CHOOSING_BETA}) at the smallest "
            "m its privacy precondition allows"
        ),
        run=_choosing_run,
        pairs=_choosing_pairs,
        exact=_choosing_exact,
        reference="Beimel, Nissim, Stemmer, Fig. 8, Lemma 4.4",
    )
)
