"""Audit cases for the mechanisms layer: each calls the mechanism's public function.

Datasets here are what the mechanism reads: a query value for Laplace, a score vector or a step
function for the exponential mechanism and A_dist, a multiplicity map for the choosing mechanism.
Each pair changes every score by at most 1 (sensitivity 1), as replacing one record does. The
release is the output with the ledger the call charged (:func:`~privpac.audit.release.call_release`).
"""

from __future__ import annotations

import math
import warnings

from ..errors import PaperLiteralWarning, PreconditionError
from ..mechanisms.adist import adist, adist_plan
from ..mechanisms.choosing import choosing_mechanism, choosing_min_size
from ..mechanisms.exponential import exponential_mechanism, exponential_mechanism_step
from ..mechanisms.laplace import laplace_mechanism
from ..stepfunc import StepFunction
from .registry import AuditCase, Branch, NeighbourPair, register
from .release import call_release

# -- Laplace -------------------------------------------------------------------------------------


register(
    AuditCase(
        name="laplace",
        description="laplace_mechanism: discrete Laplace on a sensitivity-1 count",
        release=lambda value, rng, eps, delta: call_release(
            laplace_mechanism, value, 1, eps, budget=(eps, delta), rng=rng
        ),
        pairs=lambda eps, delta: [NeighbourPair("count 0 vs 1", 0, 1)],
        delta=0.0,
        trials=20_000,
        reference="Beimel, Nissim, Stemmer, Thm 2.24",
        branches=(
            Branch("discrete Laplace noise of scale sensitivity/epsilon", ("count 0 vs 1",), ("halved Laplace noise",)),
        ),
    )
)


# -- exponential mechanism, finite list ----------------------------------------------------------


def _em_pairs(eps, delta):
    k = 20
    return [
        NeighbourPair("one candidate up, all others down (k=20)", [1] + [0] * k, [0] + [1] * k),
        NeighbourPair("two candidates swap", [1, 0], [0, 1]),
    ]


register(
    AuditCase(
        name="exponential",
        description="exponential_mechanism over a finite candidate list",
        release=lambda scores, rng, eps, delta: call_release(
            exponential_mechanism, scores, eps, budget=(eps, delta), rng=rng
        ),
        pairs=_em_pairs,
        delta=0.0,
        trials=20_000,
        reference="McSherry and Talwar 2007; Beimel, Nissim, Stemmer, Prop 2.25",
        branches=(
            Branch(
                "one draw over a finite list",
                ("one candidate up", "two candidates swap"),
                ("finite-list EM sampling at 2 epsilon",),
            ),
        ),
    )
)


# -- exponential mechanism over a step function ---------------------------------------------------


def threshold_quality_step(points, labels, T):
    """Q(j) = #{i : [x_i < j] == y_i} over thresholds j in [0, T] (sensitivity 1)."""
    base = sum(1 for y in labels if y == 0)
    return StepFunction.from_increments(T, base, [x + 1 for x in points], [1 if y == 1 else -1 for y in labels])


def _step_pairs(eps, delta):
    T = 63
    spike = StepFunction([0, 32, 33], [0, 1, 0], T)
    dip = StepFunction([0, 32, 33], [1, 0, 1], T)
    xs = [3, 9, 17, 30, 41, 50]
    ys = [1, 1, 1, 0, 0, 0]
    ys2 = [1, 1, 1, 1, 0, 0]  # one record relabelled: a replace-one neighbour
    # Distinct values: 3 pieces against 5 (a piece count in the release would show at once).
    merged = threshold_quality_step([10, 10, 40], [1, 1, 0], T)
    apart = threshold_quality_step([10, 20, 40], [1, 1, 0], T)
    return [
        NeighbourPair("one point up, the rest down", spike, dip),
        NeighbourPair(
            "threshold quality, one record relabelled",
            threshold_quality_step(xs, ys, T),
            threshold_quality_step(xs, ys2, T),
        ),
        NeighbourPair("a record moves off a shared value (the piece count changes)", merged, apart),
    ]


register(
    AuditCase(
        name="exponential-step",
        description="exponential_mechanism_step: every point of [0, T] with a step-function quality",
        release=lambda f, rng, eps, delta: call_release(
            exponential_mechanism_step, f, eps, budget=(eps, delta), rng=rng
        ),
        pairs=_step_pairs,
        delta=0.0,
        trials=10_000,
        reference="Beimel, Nissim, Stemmer, section 2.5.2 (piecewise sampler of spec 3.2)",
        branches=(
            Branch(
                "the piece, drawn with weight length x exp(epsilon q / 2)",
                ("one point up",),
                ("step-function EM sampling at 2 epsilon",),
            ),
            Branch(
                "a uniform point inside the drawn piece (piece ends follow the records)",
                ("a record moves off a shared value",),
                ("the first point of the drawn piece",),
            ),
        ),
    )
)


# -- A_dist ---------------------------------------------------------------------------------------


def _adist_release(variant):
    def release(scores, rng, eps, delta):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PaperLiteralWarning)
            return call_release(adist, scores, eps, delta, variant=variant, budget=(eps, delta), rng=rng)

    return release


def _adist_pairs(variant):
    def pairs(eps, delta):
        g = math.ceil(adist_plan([0.0, 0.0], eps, delta, variant).threshold)
        return [
            NeighbourPair("q(S) = (5, 3) vs q(S') = (6, 2): the gap moves by 2", [5, 3], [6, 2]),
            NeighbourPair(f"gap {g - 2} vs {g} at the release threshold: the gap moves by 2", [g - 1, 1], [g, 0]),
            NeighbourPair(f"gap {g + 2} vs {g}, released about half the time", [g + 1, 0], [g, 1]),
            NeighbourPair("the leader changes: (5, 4) vs (4, 5)", [5, 4], [4, 5]),
        ]

    return pairs


register(
    AuditCase(
        name="adist",
        description="adist, corrected (noise 2/eps, threshold 2 + k0): the library's default",
        release=_adist_release("corrected"),
        pairs=_adist_pairs("corrected"),
        trials=10_000,
        reference="Beimel, Nissim, Stemmer, Prop 2.26 with erratum E1",
        branches=(
            Branch(
                "the leader released: the noisy gap (scale 2/epsilon) against the threshold",
                ("released about half the time", "q(S) = (5, 3)"),
                ("halved A_dist noise in the release path",),
            ),
            Branch(
                "the leader changes: the threshold's tail term k0 keeps it at delta",
                ("the leader changes",),
                ("A_dist's threshold without its tail term",),
            ),
        ),
    )
)
register(
    AuditCase(
        name="adist-paper-literal",
        description="adist as printed (noise 1/eps, threshold ln(1/delta)/eps); gap sensitivity 2 breaks it",
        release=_adist_release("paper-literal"),
        pairs=_adist_pairs("paper-literal"),
        trials=10_000,
        expect_violation=True,
        reference="Beimel, Nissim, Stemmer, Prop 2.26 (erratum E1)",
        branches=(Branch("the paper's noise 1/epsilon on a gap of sensitivity 2", ("the gap moves by 2",)),),
    )
)


# -- choosing mechanism ---------------------------------------------------------------------------

CHOOSING_ALPHA = 0.5
CHOOSING_BETA = 0.5


def _choosing_m(eps, delta):
    return math.ceil(choosing_min_size(CHOOSING_ALPHA, CHOOSING_BETA, eps, delta, 1))


def _choosing_release(counts, rng, eps, delta):
    m = sum(counts.values())
    return call_release(
        choosing_mechanism, counts, m, CHOOSING_ALPHA, CHOOSING_BETA, eps, delta, budget=(eps, delta), rng=rng
    )


def heavy_point_pairs(m: int, a: int = 0, b: int = 1) -> list[NeighbourPair]:
    """Two neighbours of ``m`` records on the points ``a`` and ``b`` that every choosing-based release is
    audited on: a singleton beside a heavy point against none, and two heavy points one record apart."""
    half = m // 2
    return [
        NeighbourPair(f"a singleton beside a heavy point vs none (m={m})", {a: m - 1, b: 1}, {a: m}),
        NeighbourPair(
            f"two heavy points, one record moves (m={m})", {a: half, b: m - half}, {a: half + 1, b: m - half - 1}
        ),
    ]


def refused_pair(m: int) -> NeighbourPair:
    """The singleton pair at ``m - 1`` records, one below a size precondition ``m``: it must be refused."""
    return NeighbourPair(
        f"one record below the privacy precondition (m={m - 1}): must be refused",
        {0: m - 2, 1: 1},
        {0: m - 1},
        refuse=PreconditionError,
    )


def _choosing_pairs(eps, delta):
    m = _choosing_m(eps, delta)
    half = m // 2
    border = math.ceil(CHOOSING_ALPHA * m / 4)
    return [
        *heavy_point_pairs(m),
        NeighbourPair(
            f"heaviest score at alpha*m/4 with a fresh singleton (m={m})",
            {0: border, **{i: 1 for i in range(1, m - border + 1)}},
            {0: border + 1, **{i: 1 for i in range(1, m - border)}},
        ),
        NeighbourPair(
            f"two heavy points three apart, one record moves to the runner-up (m={m})",
            {0: half + 2, 1: m - half - 2},
            {0: half + 1, 1: m - half - 1},
            empirical=False,  # the exponential draw's branch: its exact law shows the bugs there
        ),
        NeighbourPair(
            f"every record a distinct point; one joins another (m={m})",
            {i: 1 for i in range(m)},
            {**{i: 1 for i in range(m - 2)}, m - 2: 2},
            empirical=False,  # a fresh singleton is chosen with probability about delta: checked exactly
        ),
        refused_pair(m),
    ]


register(
    AuditCase(
        name="choosing",
        description=(
            f"choosing_mechanism (k=1, alpha={CHOOSING_ALPHA}, beta={CHOOSING_BETA}) at the smallest m its privacy "
            "precondition allows, and one below it (must be refused)"
        ),
        release=_choosing_release,
        pairs=_choosing_pairs,
        trials=4_000,
        reference="Beimel, Nissim, Stemmer, Fig. 8, Lemma 4.4",
        branches=(
            Branch(
                "the noisy test that some score reaches alpha m / 2 (bottom otherwise)",
                ("every record a distinct point",),
                ("the choosing mechanism without its bottom test",),
            ),
            Branch(
                "the exponential draw over G(S), weights exp(epsilon q / 4)",
                ("two heavy points three apart",),
                ("the choosing mechanism's weights without the quarter",),
            ),
            Branch(
                "the size precondition of Lemma 4.4 (refused below it)",
                ("below the privacy precondition",),
                ("the choosing mechanism below its size precondition",),
            ),
        ),
    )
)
