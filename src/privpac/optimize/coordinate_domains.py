"""The largest candidate domain each coordinate of a coordinate-by-coordinate choice can get.

:func:`~privpac.optimize.coordinatewise.choose_coordinates` asks ``domain_for(i, t)`` for coordinate
``i``'s public candidates given the running denominator ``t`` of the earlier outputs, and multiplies
``t`` by the denominator the chosen candidate carries, at most ``domain.max_denominator / t``. A
domain grows with ``t``, so the largest one coordinate ``i`` can meet is the one built at the largest
running denominator the earlier coordinates can produce. The plans of FindTukey (Beimel, Moran,
Nissim, Stemmer, Fig. 1, Thm 3.6) and FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia, Fig. 2,
Thm 4.6) size their utility guarantees (``ln |D_i|``, RecConcave's required quality) from these
sizes. Public inputs only.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["largest_domain_sizes"]


def largest_domain_sizes(k: int, domain_for: Callable[[int, int], object]) -> tuple[int, ...]:
    """``max |D_i|`` for ``i = 1 .. k`` over every running denominator the choices before ``i`` can produce.

    ``domain_for(i, t)`` is the public domain the run uses (a
    :class:`~privpac.geometry.rational_domain.RationalDomain` or
    :class:`~privpac.geometry.rational_domain.SimplestFractionDomain`, anything with ``size`` and
    ``max_denominator``): the same builder gives the run's candidates and the plan's sizes. The
    largest running denominator after coordinate ``i`` is the largest denominator its domain holds
    (A3-rational: ``t Q_i``; mode C: ``t U_i^2``).
    """
    sizes, t_max = [], 1
    for i in range(1, k + 1):
        domain = domain_for(i, t_max)
        sizes.append(domain.size)
        t_max = domain.max_denominator
    return tuple(sizes)
