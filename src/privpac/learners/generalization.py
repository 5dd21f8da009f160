"""Non-private realizable sample sizes of VC classes that the learners' plans use (public arithmetic).

Two forms of Blumer, Ehrenfeucht, Haussler and Warmuth's theorem, each as its source states it; the
constants differ because the statements differ, so each keeps its own and is named by its source.
Both take ``(alpha, beta, vc)``, the order of :mod:`privpac.bounds.generalization`.

* :func:`behw_sample_size`: Blumer, Ehrenfeucht, Haussler, Warmuth (J. ACM 36(4), 1989):
  ``m >= max((4/alpha) log2(2/beta), (8 VC/alpha) log2(13/alpha))`` makes every hypothesis
  *consistent* with the sample alpha-good with probability ``1 - beta``. BMNS state only
  ``Omega((VC log(1/alpha') + log(1/beta')) / alpha')`` for LearnHalfSpace's chunks (proof of
  Thm 4.2); privpac takes this explicit form (spec bmns-center-points, [ENG]), as the
  Sadigurschi-Stemmer non-private baseline does (spec ss-rectangles 5.2 item 9).
* :func:`kmst_blumer_sample_size`: Kaplan, Mansour, Stemmer, Tsfadia, Thm 2.8 (Blumer et al. as they
  state it): ``m >= (48/alpha)(10 VC ln(48e/alpha) + ln(5/beta))`` makes every hypothesis of
  empirical error at most ``alpha/10`` have error below alpha with probability ``1 - beta``: a
  stronger claim than consistency, which the KMST PAC learners need (their ERM step leaves up to
  ``alpha/10`` of the sample misclassified).

Beimel, Nissim and Stemmer's own forms (Thm 2.13 and 2.14) are in :mod:`privpac.bounds.generalization`,
registered as bounds; the learners do not use them.
"""

from __future__ import annotations

import math

from ..validation import check_int, check_probability, check_real

__all__ = ["behw_sample_size", "kmst_blumer_sample_size"]


def _check(alpha, beta, vc) -> tuple[float, float, int]:
    alpha = check_real(alpha, "alpha", low=0.0, low_open=True, high=1.0)
    return alpha, check_probability(beta, "beta"), check_int(vc, "vc", low=1)


def behw_sample_size(alpha: float, beta: float, vc: int) -> float:
    """Blumer, Ehrenfeucht, Haussler, Warmuth 1989: ``max((4/alpha) log2(2/beta), (8 vc/alpha) log2(13/alpha))``
    records make every hypothesis consistent with them alpha-good with probability ``1 - beta``.

    ``alpha`` in ``(0, 1]``, ``beta`` in ``(0, 1)``, ``vc >= 1``. Not rounded (callers take the ceiling).
    """
    alpha, beta, vc = _check(alpha, beta, vc)
    return max(4.0 / alpha * math.log2(2.0 / beta), 8.0 * vc / alpha * math.log2(13.0 / alpha))


def kmst_blumer_sample_size(alpha: float, beta: float, vc: int) -> float:
    """Kaplan, Mansour, Stemmer, Tsfadia, Thm 2.8: ``(48/alpha)(10 vc ln(48e/alpha) + ln(5/beta))`` records
    make every hypothesis of empirical error at most ``alpha/10`` have error below alpha, with probability
    ``1 - beta``.

    ``alpha`` in ``(0, 1]``, ``beta`` in ``(0, 1)``, ``vc >= 1``. Not rounded (callers take the ceiling).
    """
    alpha, beta, vc = _check(alpha, beta, vc)
    return (48.0 / alpha) * (10.0 * vc * math.log(48.0 * math.e / alpha) + math.log(5.0 / beta))
