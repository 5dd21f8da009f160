"""Sample sizes of the sanitizers, reductions and label-private learners of Beimel, Nissim, Stemmer.

The bounds of the paper's consolidated table (SanPoints, k-POINT, SanThresholds, the
label-private learner, the reduction blow-up) live in :mod:`privpac.bounds.bns` when present.
This module adds what is specific to privpac's implementations and what that table omits:

* ``*-plan`` bounds: what privpac's implementation needs with ``constants="paper"`` and
  ``"tuned"``: the **privacy precondition** (below it the sanitizer refuses to run) and the size
  at which the theorem's proof gives accuracy ``alpha`` with probability ``1 - beta``. They are
  computed by the algorithms' own plan functions, so the calculator and the code cannot drift.
* ``amplification-blocks`` (Lemma 5.1) and ``reduction-sizes`` (Lemma 5.4, Thm 5.5): the sizes of
  the sanitization-to-learning chain, which show why the reduction is of theoretical interest.
* ``blr-pure-sanitizer`` (Thm 2.19): the pure-DP generic sanitizer's size, without its
  unspecified constant. The pure-DP lower bounds (Lemma 4.15, Thm 2.20) are
  ``bns-lb-sanitizer`` and ``bns-lb-blr`` in :mod:`privpac.bounds.bns`.
"""

from __future__ import annotations

import math

from ..validation import check_epsilon, check_int, check_probability
from .registry import Bound, register_bound

__all__ = ["blr_upper_bound_over_gamma", "amplification_blocks"]


def _defaults(epsilon, delta, alpha, beta):
    return (
        1.0 if epsilon is None else epsilon,
        1e-6 if delta is None else delta,
        0.1 if alpha is None else alpha,
        0.1 if beta is None else beta,
    )


def _san_points(epsilon=None, delta=None, alpha=None, beta=None, k=1):
    from ..sanitizers.points import san_points_plan

    epsilon, delta, alpha, beta = _defaults(epsilon, delta, alpha, beta)
    k = check_int(k, "k", low=1)
    out = {}
    for constants in ("paper", "tuned"):
        p = san_points_plan(alpha / k, beta, epsilon, delta, constants)
        out[f"{constants}_privacy_precondition"] = p.min_size
        out[f"{constants}_laplace_accuracy"] = p.laplace_accuracy_size()
    out["iterations"] = math.ceil(2.0 * k / alpha - 1e-12)
    return out


def _san_thresholds(epsilon=None, delta=None, alpha=None, beta=None, domain_size=2**16):
    from ..sanitizers.thresholds import san_thresholds_plan

    epsilon, delta, alpha, beta = _defaults(epsilon, delta, alpha, beta)
    out = {}
    for constants in ("paper", "tuned"):
        p = san_thresholds_plan(alpha, beta, epsilon, delta, int(domain_size), constants)
        out[f"{constants}_privacy_precondition"] = p.min_size
        out[f"{constants}_laplace_condition"] = p.laplace_size
        out[f"{constants}_recconcave_condition"] = p.recconcave_size
        out[f"{constants}_utility"] = p.utility_size
    out["calls"] = math.ceil(77.0 / alpha - 1e-12)
    return out


def _label_private(epsilon=None, alpha=None, beta=None, vc=1):
    from ..learners.label_private import label_private_sizes

    epsilon, _, alpha, beta = _defaults(epsilon, None, alpha, beta)
    paper = label_private_sizes(alpha, beta, epsilon, vc, "paper")
    tuned = label_private_sizes(alpha, beta, epsilon, vc, "tuned")
    return {
        "stated": paper.m_required,
        "paper_unlabelled_n": paper.n,
        "tuned": tuned.m_required,
        "tuned_unlabelled_n": tuned.n,
    }


def _rectangles(epsilon=None, delta=None, alpha=None, beta=None, domain_size=2**16, dimension=2):
    from ..learners.rectangles_bns import bns_rectangle_plan

    epsilon, delta, alpha, beta = _defaults(epsilon, delta, alpha, beta)
    dimension = 2 if dimension is None else check_int(dimension, "dimension", low=1)
    out = {}
    for constants in ("paper", "tuned"):
        p = bns_rectangle_plan(alpha, beta, epsilon, delta, [int(domain_size)] * dimension, constants)
        out[f"{constants}_privacy_precondition"] = p.min_size
        out[f"{constants}_utility"] = p.utility_size
    return out


def amplification_blocks(beta: float) -> float:
    """Lemma 5.1: ``q >= (18/beta) ln(1/beta)`` blocks."""
    beta = check_probability(beta, "beta")
    return (18.0 / beta) * math.log(1.0 / beta)


def _reduction(m=100, alpha=None, beta=None, epsilon=None, vc=1):
    from ..sanitizers.reductions import reduction_sizes

    epsilon, _, alpha, beta = _defaults(epsilon, None, alpha, beta)
    s = reduction_sizes(int(m), alpha, beta, epsilon, int(vc))
    return {
        "M": s.M,
        "t": s.t,
        "blow_up_t_over_m": s.t / s.m,
        "fixed_output_size_n": s.n,
        "stated_lower": 100.0 * s.m / alpha**2 * math.log(1.0 / (alpha * beta)),
        "stated_upper": 150.0 / (alpha**2 * beta) * math.log(2.0 / (alpha * beta)) * (s.m + 1.0 / epsilon),
    }


def blr_upper_bound_over_gamma(domain_size: int, alpha: float, beta: float, epsilon: float, vc: int = 1) -> float:
    """Thm 2.19 divided by its unspecified constant Gamma:
    ``log|X| VC log(1/alpha)/(alpha^3 eps) + log(1/beta)/(eps alpha)``."""
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    x = check_int(domain_size, "domain_size", low=2)
    return math.log2(x) * vc * math.log2(1.0 / alpha) / (alpha**3 * epsilon) + math.log2(1.0 / beta) / (epsilon * alpha)


register_bound(
    Bound(
        "san-points-plan",
        "SanPoints as privpac runs it: privacy precondition (choosing mechanism) and Laplace accuracy, paper and tuned",
        "Beimel, Nissim, Stemmer, Fig. 9, Thm 4.6, Lemma 4.4",
        "upper",
        lambda epsilon=None, delta=None, alpha=None, beta=None: _san_points(epsilon, delta, alpha, beta),
    )
)
register_bound(
    Bound(
        "k-point-plan",
        "k-POINT sanitizer as privpac runs it (SanPoints at alpha/k); --set k=2",
        "Beimel, Nissim, Stemmer, Fig. 10, Thm 4.7",
        "upper",
        lambda epsilon=None, delta=None, alpha=None, beta=None, k=2: _san_points(epsilon, delta, alpha, beta, k),
    )
)
register_bound(
    Bound(
        "san-thresholds-plan",
        "SanThresholds as privpac runs it: privacy precondition, Laplace, RecConcave and overall utility sizes",
        "Beimel, Nissim, Stemmer, Fig. 11, Thm 4.13 (calibration E11)",
        "upper",
        lambda epsilon=None, delta=None, alpha=None, beta=None, domain_size=2**16: _san_thresholds(
            epsilon, delta, alpha, beta, domain_size
        ),
    )
)
register_bound(
    Bound(
        "label-private-plan",
        "generic label-private learner: stated size and the corrected-proof size with Sauer's lemma; --set vc=1",
        "Beimel, Nissim, Stemmer, Fig. 13, Thm 6.2",
        "upper",
        lambda epsilon=None, alpha=None, beta=None, vc=1: _label_private(epsilon, alpha, beta, vc),
    )
)
register_bound(
    Bound(
        "rectangle-learner-bns-plan",
        "BNS rectangle learner (R-CDF reconstruction): per-axis SanThresholds privacy precondition and utility",
        "Beimel, Nissim, Stemmer, section 3.5, Thm 3.22 (spec 5.3)",
        "upper",
        lambda epsilon=None, delta=None, alpha=None, beta=None, domain_size=2**16, dimension=2: _rectangles(
            epsilon, delta, alpha, beta, domain_size, dimension
        ),
    )
)
register_bound(
    Bound(
        "amplification-blocks",
        "amplification of a sanitizer by blocks: number of blocks q (and records q m; --set m=...)",
        "Beimel, Nissim, Stemmer, Lemma 5.1",
        "upper",
        lambda beta=None, m=1: {
            "blocks": amplification_blocks(0.1 if beta is None else beta),
            "records": math.ceil(amplification_blocks(0.1 if beta is None else beta)) * int(m),
        },
    )
)
register_bound(
    Bound(
        "reduction-sizes",
        "sanitizer -> label-class sanitizer -> proper learner: M, t and the blow-up t/m for a base of m records",
        "Beimel, Nissim, Stemmer, Lemma 5.4, Thm 5.5",
        "upper",
        lambda alpha=None, beta=None, epsilon=None, m=100, vc=1: _reduction(m, alpha, beta, epsilon, vc),
    )
)
register_bound(
    Bound(
        "blr-pure-sanitizer",
        "pure-DP generic sanitizer (exponential mechanism over small databases), without its unspecified constant",
        "Beimel, Nissim, Stemmer, Thm 2.19 (Blum, Ligett, Roth)",
        "upper",
        lambda domain_size=2**16, alpha=None, beta=None, epsilon=None, vc=1: {
            "stated_over_gamma": blr_upper_bound_over_gamma(
                int(domain_size),
                0.1 if alpha is None else alpha,
                0.1 if beta is None else beta,
                1.0 if epsilon is None else epsilon,
                int(vc),
            ),
        },
    )
)
