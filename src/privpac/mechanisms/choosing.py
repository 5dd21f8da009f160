"""The choosing mechanism: an exponential mechanism for bounded-growth quality functions.

Beimel, Nissim, Stemmer, section 4.1, Fig. 8, Lemmas 4.4 and 4.5.

A quality ``q(S, f)`` (non-negative integers) is *k-bounded-growth* when ``q(empty, f) = 0`` and
adding one record raises each score by 0 or 1 and raises at most ``k`` scores (Def. 4.2). Example:
the multiplicity of a point (k = 1). Only the solutions with score >= 1, the set ``G(S)`` with
``|G(S)| <= k m``, can be heavy, so the exponential mechanism runs over ``G(S)`` alone, after a
noisy test that some solution is heavy:

1. ``best = max(0, max_f q(S, f)) + Z`` with ``Z`` discrete Laplace of scale ``4/epsilon``;
   if ``best < alpha m / 2`` return ``None`` (bottom).
2. return ``f in G(S)`` with probability proportional to ``exp(epsilon q(S, f) / 4)``
   (the exponential mechanism with parameter ``epsilon / 2``, sampled exactly in base 2 with
   ``eta <= epsilon / (4 ln 2)``: :mod:`privpac.mechanisms.exponential`).

Privacy precondition (Lemma 4.4)
--------------------------------
The mechanism is (epsilon, delta)-DP **only when** ``m >= (16/(alpha epsilon))
ln(16 k / (alpha beta epsilon delta))``: for small ``m`` a score-1 solution that appears in
``G(S)`` but not in ``G(S')`` is chosen with non-negligible probability. ``m`` is public under
replace-one neighbours, so :func:`choosing_mechanism` checks the precondition and raises
:class:`~privpac.errors.PreconditionError` when it fails.

The proof uses three inequalities, which privpac checks explicitly beside the paper's bound
because the noise here is the *discrete* Laplace (tail ``Pr[Z >= k] = q^k/(1+q) <= exp(-epsilon
k/4)`` for ``k >= 1``, ``q = exp(-epsilon/4)``), so each must hold for that tail:

* case (a), every score below ``alpha m / 4``: releasing needs ``Z > alpha m / 4``, probability
  ``<= exp(-epsilon alpha m / 16) <= delta`` when ``m >= 16 ln(1/delta)/(alpha epsilon)``;
* Fact 1, a solution of ``G(S) \\ G(S')`` (score exactly 1) is chosen with probability
  ``<= exp(epsilon/4) / exp(epsilon alpha m / 16) <= delta / k``;
* Fact 3, the normaliser moves by at most ``exp(epsilon/2)``:
  ``exp(epsilon alpha m / 16) >= k / (exp(epsilon/4) - 1)``.

The bottom decision is ``epsilon/4``-DP (``max q`` has sensitivity 1, noise scale 4/epsilon), the
exponential mechanism ``epsilon/2``-DP, and Facts 1 to 3 combine them as in the paper.

If ``G(S)`` is empty every score is 0; a neighbour has maximum score at most 1 and releases with
probability at most ``delta`` (case (a)), so returning ``None`` there is private too.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..errors import DataError, InvalidParameterError
from ..random import as_random_source, discrete_laplace_exceeds
from ..validation import (
    as_fraction,
    check_delta,
    check_epsilon,
    check_int,
    check_probability,
    refuse_below_precondition,
)
from .exponential import exponential_mechanism, exponential_probabilities
from .laplace import discrete_laplace_sf

#: How the ledger records a run below the privacy precondition (``unsafe_skip_precondition``).
NOT_PRIVATE_BELOW = "erratum E18: the choosing mechanism ran below its privacy precondition"

__all__ = ["choosing_mechanism", "choosing_min_size", "choosing_plan", "ChoosingPlan"]


def choosing_min_size(alpha: float, beta: float, epsilon: float, delta: float, growth: int = 1) -> float:
    """Smallest dataset size for which the choosing mechanism is (epsilon, delta)-DP.

    The maximum of the paper's bound ``(16/(alpha eps)) ln(16 k/(alpha beta eps delta))`` and the
    three proof inequalities for the discrete-Laplace tail (module docstring).
    """
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    k = check_int(growth, "growth", low=1)
    c = 16.0 / (alpha * epsilon)
    paper = c * math.log(16.0 * k / (alpha * beta * epsilon * delta))
    case_a = c * math.log(1.0 / delta)
    fact1 = c * (epsilon / 4.0 + math.log(k / delta))
    fact3 = c * math.log(k / math.expm1(epsilon / 4.0))
    return max(paper, case_a, fact1, fact3)


@dataclass(frozen=True)
class ChoosingPlan:
    """The data-dependent part of the choosing mechanism (no noise drawn yet)."""

    solutions: list
    scores: np.ndarray  # q over G(S) (int64), chosen by the exponential mechanism at epsilon / 2
    epsilon_em: float
    release_at: int  # bottom unless Z >= release_at
    scale: Fraction  # of the discrete Laplace in step 1

    def bottom_probability(self) -> float:
        return 1.0 - float(discrete_laplace_sf(self.release_at, self.scale))

    def output_distribution(self) -> dict:
        p_bottom = self.bottom_probability() if self.solutions else 1.0
        out = {None: p_bottom}
        if self.solutions:
            w = exponential_probabilities(self.scores, self.epsilon_em)
            for f, p in zip(self.solutions, w):
                out[f] = (1.0 - p_bottom) * float(p)
        return out


def _as_score_map(scores) -> tuple[list, np.ndarray]:
    if isinstance(scores, Mapping):
        keys = list(scores.keys())
        vals = np.asarray([scores[k] for k in keys])
    elif isinstance(scores, tuple) and len(scores) == 2:
        keys = list(scores[0])
        vals = np.asarray(scores[1])
        if len(keys) != vals.size:
            raise InvalidParameterError("solutions and counts must have equal length")
        if len(set(keys)) != len(keys):
            raise InvalidParameterError("solutions must be distinct")
    else:
        raise InvalidParameterError("scores must be a mapping solution -> count or a pair (solutions, counts)")
    if vals.size and (not np.issubdtype(vals.dtype, np.integer) or np.any(vals < 0)):
        raise DataError("bounded-growth scores must be non-negative integers")
    for key in keys:
        if not isinstance(key, Hashable):
            raise InvalidParameterError("solutions must be hashable")
    return keys, vals.astype(np.int64)


def choosing_plan(scores, m: int, alpha: float, epsilon: float) -> ChoosingPlan:
    keys, counts = _as_score_map(scores)
    keep = counts >= 1
    solutions = [k for k, good in zip(keys, keep) if good]
    heavy = counts[keep]
    best = int(heavy.max()) if heavy.size else 0
    if best > m:
        raise DataError(f"a score ({best}) exceeds the dataset size m = {m}: not a bounded-growth quality")
    scale = Fraction(4) / as_fraction(epsilon, "epsilon")
    release_at = math.ceil(alpha * m / 2.0 - best)
    return ChoosingPlan(solutions, heavy, epsilon / 2.0, release_at, scale)


def choosing_mechanism(
    scores,
    m: int,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    *,
    growth: int = 1,
    ledger: PrivacyLedger | None = None,
    label: str = "choosing mechanism",
    unsafe_skip_precondition: bool = False,
    rng=None,
) -> Hashable | None:
    """Choose a heavy solution of a ``growth``-bounded-growth quality, or ``None``.

    Parameters
    ----------
    scores : mapping or (solutions, counts)
        The scores ``q(S, f) >= 1`` of the solutions in ``G(S)``; unlisted solutions score 0.
    m : int
        The dataset size (public under replace-one neighbours).
    alpha, beta : float
        Approximation and confidence parameters (Lemma 4.5): with probability ``1 - beta`` the
        output scores at least ``max q - alpha m`` (bottom counts when every score is
        ``< alpha m``).
    epsilon, delta : float
        The call is (epsilon, delta)-DP when ``m >= choosing_min_size(...)``.
    growth : int
        The bounded-growth constant ``k``.
    unsafe_skip_precondition : bool
        Run even when ``m`` is too small. **Voids the privacy guarantee**; for experiments and
        for the audits that demonstrate the failure.

    Raises
    ------
    PreconditionError
        When ``m`` is below the privacy precondition.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    m = check_int(m, "m", low=1)
    growth = check_int(growth, "growth", low=1)
    needed = choosing_min_size(alpha, beta, epsilon, delta, growth)
    if m < needed:
        refuse_below_precondition(
            f"the choosing mechanism is (epsilon, delta)-DP only for m >= {needed:.1f} "
            f"(Lemma 4.4 with alpha={alpha}, beta={beta}, epsilon={epsilon}, delta={delta}, "
            f"k={growth}); got m = {m}",
            f"choosing mechanism run with m = {m} < {needed:.1f}: no privacy guarantee",
            unsafe=unsafe_skip_precondition,
        )
    plan = choosing_plan(scores, m, alpha, epsilon)
    charge(
        ledger,
        label,
        epsilon,
        delta,
        f"choosing mechanism (k={growth}, m={m})",
        not_private=NOT_PRIVATE_BELOW if m < needed else "",
    )
    src = as_random_source(rng)
    if not discrete_laplace_exceeds(plan.scale, plan.release_at, src) or not plan.solutions:
        return None
    # the exponential mechanism at epsilon/2 (weights exp(epsilon q / 4)), sampled exactly; charged above
    return plan.solutions[exponential_mechanism(plan.scores, plan.epsilon_em, rng=src)]
