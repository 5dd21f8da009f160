"""Exact geometry for the center-point papers: Tukey depth, directional depth, depth regions.

Beimel, Moran, Nissim and Stemmer, "Private Center Points and Learning of Halfspaces" (COLT 2019);
spec ``bmns-center-points`` sections 2, 4 (A1, A2) and 7. Every count here can feed a private choice,
so every predicate is an exact integer sign: data are integers, query points rationals
(``fractions.Fraction``), and no float enters a count.

* :func:`tukey_depth`: exact depth (d = 1 counts, d = 2 angular sweep, d >= 3 finite directions).
* :func:`tukey_depth_brute`: the finite-direction formula over ``U(S ∪ E)``, the tests' reference.
* :func:`directional_depth`: depth over a public direction set.
* :func:`depth_intervals`: the nested intervals of the partial-assignment quality ``Q_p``.
* :func:`complete_directions`, :func:`hyperplane_normals`: the direction sets ``U(S ∪ E)``, ``U(P)``.
* :func:`rational_domain`, :class:`RationalDomain`, :func:`interval_quality`: the A3-rational candidate
  domains of FindTukey (implicit, rank/select by ``floor_sum``) and the quality over their indices.
* :class:`SimplestFractionDomain`, :func:`simplest_fraction`: the integer "mode C" candidate domains
  of FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia; spec ``kmst-halfspaces`` 3.7 item 5).
"""

from .directional import directional_depth
from .directions import FINITE_DIRECTION_LIMIT, complete_directions, hyperplane_normals
from .rational_domain import (
    RationalDomain,
    SimplestFractionDomain,
    floor_sum,
    interval_quality,
    rational_domain,
    simplest_fraction,
)
from .regions import depth_intervals
from .tukey import tukey_depth, tukey_depth_brute

__all__ = [
    "FINITE_DIRECTION_LIMIT",
    "RationalDomain",
    "SimplestFractionDomain",
    "complete_directions",
    "depth_intervals",
    "directional_depth",
    "floor_sum",
    "hyperplane_normals",
    "interval_quality",
    "rational_domain",
    "simplest_fraction",
    "tukey_depth",
    "tukey_depth_brute",
]
