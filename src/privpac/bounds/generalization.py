"""Generalization bounds the private learners' utility proofs use (Beimel, Nissim, Stemmer, 2.3).

* Thm 2.13 (realizable): ``m >= (8/alpha)(VC ln(16/alpha) + ln(2/beta))`` makes every hypothesis
  consistent with the sample alpha-good with probability ``1 - beta``.
* Thm 2.14 (uniform convergence): ``m >= (50 VC/alpha^2) ln(1/(alpha beta))`` makes empirical and
  true errors agree within alpha for every hypothesis.
* DKW (Dvoretzky, Kiefer, Wolfowitz; Massart's constant; not in the paper): for the VC-1 class
  of thresholds, ``m >= ln(2/beta) / (2 alpha^2)`` gives uniform convergence of the empirical CDF
  within alpha, hence of every threshold's error within ``2 alpha``; reported at accuracy
  ``alpha/2`` so that it is comparable with Thm 2.14.
"""

from __future__ import annotations

import math

from ..validation import check_int, check_probability
from .registry import Bound, register_bound

__all__ = ["realizable_sample_size", "uniform_convergence_sample_size", "dkw_threshold_sample_size"]


def realizable_sample_size(alpha: float, beta: float, vc: int = 1) -> float:
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    vc = check_int(vc, "vc", low=1)
    return (8.0 / alpha) * (vc * math.log(16.0 / alpha) + math.log(2.0 / beta))


def uniform_convergence_sample_size(alpha: float, beta: float, vc: int = 1) -> float:
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    vc = check_int(vc, "vc", low=1)
    return (50.0 * vc / alpha**2) * math.log(1.0 / (alpha * beta))


def dkw_threshold_sample_size(alpha: float, beta: float) -> float:
    """Records so that every threshold's empirical error is within alpha of its true error."""
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    return math.log(2.0 / beta) / (2.0 * (alpha / 2.0) ** 2)


register_bound(
    Bound(
        "vc-realizable",
        "non-private realizable PAC: every consistent hypothesis is alpha-good",
        "Beimel, Nissim, Stemmer, Thm 2.13",
        "upper",
        lambda alpha, beta, vc=1: {"stated": realizable_sample_size(alpha, beta, vc)},
    )
)
register_bound(
    Bound(
        "vc-uniform-convergence",
        "uniform convergence: empirical and true errors within alpha for every hypothesis",
        "Beimel, Nissim, Stemmer, Thm 2.14",
        "upper",
        lambda alpha, beta, vc=1: {"stated": uniform_convergence_sample_size(alpha, beta, vc)},
    )
)
register_bound(
    Bound(
        "dkw-thresholds",
        "uniform convergence for thresholds via the DKW inequality (not in the paper)",
        "Dvoretzky, Kiefer, Wolfowitz 1956; Massart 1990",
        "upper",
        lambda alpha, beta: {"stated": dkw_threshold_sample_size(alpha, beta)},
    )
)
