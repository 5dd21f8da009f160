"""Choosing a point coordinate by coordinate over public rational candidate domains.

The shared skeleton of FindTukey (Beimel, Moran, Nissim, Stemmer, Fig. 1) and FindDeepPoint /
OptimizeHighDimFunc (Kaplan, Mansour, Stemmer, Tsfadia, Figs. 1-2): for ``i = 1 .. k`` a public
candidate domain (a function of public bounds and the earlier outputs only), a sensitivity-1
quality over its indices computed from the data, and one private choice, by the exponential
mechanism or by RecConcave. The ``k`` choices compose: basic composition (``epsilon/k`` each), or
the paper's advanced split charged with the Dwork-Rothblum-Vadhan bound. The whole plan is
reserved in the ledger before the data is read, and no step branches on the data, so the run is
(epsilon, delta)-DP for every input whenever each quality has sensitivity 1 (the callers argue
that for their qualities).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError
from ..mechanisms.exponential import exponential_mechanism_step
from ..optimize.recconcave import rec_concave_run
from ..optimize.recconcave_plan import levels
from ..random import as_random_source
from ..validation import check_choice

__all__ = [
    "COMPOSITIONS",
    "OPTIMIZERS",
    "check_optimizer",
    "choose_composition",
    "coordinate_budget",
    "choose_coordinates",
    "largest_domain_sizes",
]

COMPOSITIONS = ("auto", "basic", "advanced")
#: The per-coordinate optimisers of both papers' skeleton (``optimizer=``): the exponential mechanism
#: over the candidate domain (pure DP) and RecConcave ((epsilon, delta)-DP).
OPTIMIZERS = ("exponential", "recconcave")


def check_optimizer(optimizer) -> str:
    """``optimizer`` if it is one of :data:`OPTIMIZERS`; the linear-feasibility code's former value
    ``"expmech"`` is refused with the name of its replacement."""
    return check_choice(optimizer, "optimizer", OPTIMIZERS, renamed={"expmech": "exponential"})


def advanced_split(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """The papers' advanced-composition share: ``eps/(2 sqrt(2 k ln(2/delta)))``, ``delta/(2k)``."""
    return epsilon / (2.0 * math.sqrt(2.0 * k * math.log(2.0 / delta))), delta / (2.0 * k)


def _drv_total(eps0: float, delta: float, k: int) -> float:
    """Dwork-Rothblum-Vadhan: ``k`` calls of ``eps0`` with slack ``delta/2``."""
    return math.sqrt(2.0 * k * math.log(2.0 / delta)) * eps0 + k * eps0 * math.expm1(eps0)


def choose_composition(composition: str, epsilon: float, delta: float, k: int) -> str:
    """``"basic"`` or ``"advanced"`` from public parameters only (BMNS spec A4, composition choice).

    ``"auto"``: the one with the larger per-coordinate ``eps0``; basic whenever ``delta = 0``. Basic
    wins whenever ``k < 8 ln(2/delta)`` (every ``k <= 2`` here).
    """
    check_choice(composition, "composition", COMPOSITIONS)
    if composition != "auto":
        return composition
    if delta <= 0.0:
        return "basic"
    adv, _ = advanced_split(epsilon, delta, k)
    return "advanced" if adv > epsilon / k else "basic"


def coordinate_budget(
    composition: str, exponential: bool, epsilon: float, delta: float, k: int
) -> tuple[str, float, float, tuple[float, float]]:
    """``(composition, eps0, delta0, total)`` for ``k`` coordinates (public inputs only).

    ``exponential``: the per-coordinate mechanism is pure (``delta0 = 0``). RecConcave and the
    advanced split need ``delta > 0``; an advanced split whose total exceeds ``epsilon`` (the
    papers' split assumes a small epsilon) is refused.
    """
    if not exponential and delta <= 0.0:
        raise InvalidParameterError("optimizer='recconcave' needs delta > 0 (RecConcave is (epsilon, delta)-DP)")
    if composition == "advanced" and delta <= 0.0:
        raise InvalidParameterError("composition='advanced' needs delta > 0")
    composition = choose_composition(composition, epsilon, delta, k)
    if composition == "basic":
        eps0, delta0 = epsilon / k, (0.0 if exponential else delta / k)
        return composition, eps0, delta0, (eps0 * k, delta0 * k)
    eps0, delta0 = advanced_split(epsilon, delta, k)
    delta0 = 0.0 if exponential else delta0
    total = (_drv_total(eps0, delta, k), k * delta0 + delta / 2.0)
    if total[0] > epsilon * (1 + 1e-12):
        raise InvalidParameterError(
            f"advanced composition with the paper's split spends epsilon = {total[0]:.6g} > {epsilon:g} here "
            "(the split assumes a small epsilon); use composition='basic'"
        )
    return composition, eps0, delta0, total


def _select(domain, j: int) -> tuple[Fraction, int]:
    """The candidate at index ``j`` of ``domain`` and the denominator its canonical pair carries."""
    value = domain.select(j)
    return value, domain.canonical_pair(value)[1]


def choose_coordinates(
    plan,
    k: int,
    domain_for: Callable[[int, int], object],
    quality_for: Callable[[object, tuple[Fraction, ...]], object],
    *,
    exponential: bool,
    name: str,
    over_for: Callable[[object], str],
    ledger: PrivacyLedger,
    rng=None,
    data_key=None,
) -> tuple[Fraction, ...]:
    """Run the ``k`` private choices of ``plan`` and return the chosen rationals.

    ``plan`` carries the public split (``optimizer``, ``composition``, ``epsilon0``, ``delta0``,
    ``delta``, ``alpha0``, ``beta0``, ``promises``). ``domain_for(i, t)`` is coordinate ``i``'s public
    candidate domain given the running denominator ``t`` of the earlier outputs;
    ``quality_for(domain, prefix)`` its quality over the domain's indices (the only place the data
    is read, after the whole plan is charged); ``over_for(domain)`` describes the candidates in
    public terms for the ledger. ``data_key``: a hashable naming everything ``quality_for`` reads
    besides the domain and the prefix (the data's bytes); with it, a quality is a pure function of
    ``(data_key, plan, i, prefix)`` and an enumerating source may reuse it between paths
    (:meth:`~privpac.random.RandomSource.reuse`).
    """
    label = f"{name}: {k} coordinate(s), {plan.optimizer} per coordinate"
    if plan.composition == "basic":
        block = ledger.basic_block(label, k, plan.epsilon0, plan.delta0)
    else:
        block = ledger.advanced_block(label, k, plan.epsilon0, plan.delta0, plan.delta / 2.0, form="drv")
    src = as_random_source(rng)
    prefix: list[Fraction] = []
    t = 1
    for i in range(1, k + 1):
        domain = domain_for(i, t)  # public: bounds, i and the earlier outputs
        if data_key is None:
            quality = quality_for(domain, tuple(prefix))
        else:
            key = ("choose_coordinates", name, data_key, plan, i, tuple(prefix))
            quality = src.reuse(key, lambda: quality_for(domain, tuple(prefix)))  # noqa: B023 (called at once)
        what = f"{name} coordinate {i} of {k}"
        if exponential:
            j = exponential_mechanism_step(
                quality, plan.epsilon0, ledger=block, label=what, over=over_for(domain), rng=src
            )
        else:
            j = rec_concave_run(
                quality,
                float(plan.promises[i - 1]),
                plan.alpha0,
                plan.epsilon0,
                plan.delta0,
                beta=plan.beta0,
                N=levels(domain.max_index),
                domain=None,
                ledger=block,
                rng=src,
                label=f"{what}: RecConcave",
            ).index
        # The chosen candidate's value: public (the domain and the released index), reused between the
        # paths of an exact audit that reach the same index of the same domain.
        value, q = src.reuse(("choose_coordinates: select", domain, j), lambda: _select(domain, j))  # noqa: B023
        t *= q
        prefix.append(value)
    return tuple(prefix)


def largest_domain_sizes(k: int, domain_for: Callable[[int, int], object]) -> tuple[int, ...]:
    """``max |D_i|`` for ``i = 1 .. k`` over every running denominator the choices before ``i`` can produce.

    :func:`choose_coordinates` multiplies the running denominator ``t`` by the denominator of each
    chosen candidate, so the largest domain coordinate ``i`` can meet is the one built at the largest
    running denominator of the earlier coordinates. The plans of FindTukey (BMNS Thm 3.6) and
    FindDeepPoint (KMST Thm 4.6) size their utility guarantees (``ln |D_i|``, RecConcave's required
    quality) from these sizes. Public inputs only.

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
