"""A_dist: release the best candidate when it wins by a stable margin (propose-test-release).

Beimel, Nissim, Stemmer, section 2.5.3, Prop 2.26 (a simplification of Smith and Thakurta's
stability-based selection). The mechanism looks at the two highest-scoring candidates
``h1`` (ties to the smallest index) and ``h2`` and at ``gap = q(S, h1) - q(S, h2)``; it releases
``h1`` when a noisy gap clears a threshold and returns ``None`` (the paper's bottom) otherwise.

Erratum (docs/errata.md, E1)
----------------------------
The paper adds ``Lap(1/epsilon)`` and compares with ``(1/epsilon) ln(1/delta)``. But ``gap`` has
sensitivity **2**: one replaced record can lower the leader's score by 1 and raise the
runner-up's by 1 (the point learner's scores do exactly this). The literal mechanism is only
(2 epsilon, e^(2 epsilon) delta / 2)-DP. privpac runs the corrected form by default and keeps the
literal one as ``variant="paper-literal"``, which warns and which the audits flag.

Corrected mechanism, with exact discrete noise
----------------------------------------------
Noise ``Z`` is discrete Laplace with scale ``b = 2/epsilon`` (ratio ``q = exp(-epsilon/2)``).
Let ``k0`` be the smallest integer ``k >= 0`` with ``Pr[Z >= k] = q^k / (1 + q) <= delta``, and
``tau = 2 + k0``. Release ``h1`` iff ``gap + Z >= tau``, i.e. iff ``Z >= ceil(tau - gap)``.
(The continuous version of the spec uses ``tau = 2 + (2/epsilon) ln(1/(2 delta))``; the discrete
tail ``q^k/(1+q)`` replaces ``exp(-k/b)/2``, hence ``k0``.)

Privacy, for replace-one neighbours ``S, S'`` and real-valued sensitivity-1 scores:

* *Same leader on S and S'.* The output is ``h1`` or ``None``, a function of the release
  decision. ``gap`` moves by at most 2, so ``ceil(tau - gap)`` moves by at most 2, and
  ``Pr[Z >= a] <= q^(-2) Pr[Z >= a + 2] = e^epsilon Pr[Z >= a + 2]`` (and the same for the
  complementary event): epsilon-DP.
* *Different leaders.* Then ``gap(S) <= q_h1(S) - q_h1'(S) <= (q_h1(S') + 1) - (q_h1'(S') - 1)
  <= 2``, and the same for ``S'``; releasing needs ``Z >= ceil(tau - 2) = k0``, which has
  probability at most ``delta`` on both sides, while ``None`` has probability at least
  ``1 - delta`` on both sides. So every event satisfies the (epsilon, delta) inequality.

With a single candidate the output does not depend on the data; the call is charged all the same,
so that the ledger of an algorithm does not depend on how many candidates a private output left.

Utility: ``h1`` is released with probability ``Pr[Z >= ceil(tau - gap)]``, at least ``1 - beta``
once ``gap >= tau + b ln(1/beta)``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..errors import InvalidParameterError, PaperLiteralWarning
from ..random import as_random_source, discrete_laplace_exceeds
from ..stepfunc import StepFunction
from ..validation import as_fraction, check_choice, check_delta, check_epsilon
from .laplace import discrete_laplace_sf

__all__ = ["adist", "adist_plan", "AdistPlan", "adist_release_gap", "adist_release_probability", "ADIST_VARIANTS"]

ADIST_VARIANTS = ("corrected", "paper-literal")
#: How the ledger records the paper-literal variant.
NOT_PRIVATE_LITERAL = "erratum E1: the paper-literal A_dist's gap has sensitivity 2"


def _smallest_tail_index(scale: Fraction, delta: float) -> int:
    """Smallest integer k >= 0 with Pr[Z >= k] = q^k / (1 + q) <= delta (q = exp(-1/scale))."""
    s = float(scale)
    q = math.exp(-1.0 / s)
    target = math.log(delta) + math.log1p(-1e-12)

    def log_tail(k: int) -> float:  # log of q^k / (1 + q), in log space so that huge scales cannot loop
        return -k / s - math.log1p(q)

    estimate = s * (-target - math.log1p(q))
    if not math.isfinite(estimate) or estimate > 2**62:
        raise InvalidParameterError(
            f"a discrete-Laplace scale of {s:.3g} is too large to compute with: epsilon is too small"
        )
    k = max(0, math.ceil(estimate))
    # Guard against rounding: the closed form is off by at most a few steps.
    while log_tail(k) > target:
        k += 1
    while k > 0 and log_tail(k - 1) <= target:
        k -= 1
    return k


@dataclass(frozen=True)
class AdistPlan:
    """Everything A_dist computes from the data before drawing noise.

    ``leader`` is released iff ``Z >= release_at`` for discrete-Laplace ``Z`` of scale ``scale``.
    ``release_at`` is ``None`` for a single candidate (released with probability 1, free).
    """

    leader: int
    gap: float | None
    scale: Fraction
    threshold: float
    release_at: int | None
    variant: str

    def release_probability(self) -> float:
        if self.release_at is None:
            return 1.0
        return float(discrete_laplace_sf(self.release_at, self.scale))

    def output_distribution(self) -> dict:
        p = self.release_probability()
        return {self.leader: p, None: 1.0 - p}


def _as_scores(scores) -> StepFunction:
    if isinstance(scores, StepFunction):
        return scores
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidParameterError("scores must be a non-empty 1-D array or a StepFunction")
    if not np.all(np.isfinite(arr)):
        raise InvalidParameterError("scores must be finite")
    return StepFunction.from_values(arr)


@lru_cache(maxsize=1024)
def _release_rule(epsilon: float, delta: float, variant: str) -> tuple[Fraction, float]:
    """``(scale, threshold)`` of the noise and the release test, from the (checked) public budget only."""
    eps_frac = as_fraction(epsilon, "epsilon")
    if variant == "corrected":
        scale = Fraction(2) / eps_frac
        return scale, 2.0 + _smallest_tail_index(scale, delta)
    return Fraction(1) / eps_frac, math.log(1.0 / delta) / epsilon


def adist_plan(scores, epsilon: float, delta: float, variant: str = "corrected") -> AdistPlan:
    """The data-dependent part of A_dist: leader, gap and the release rule (no noise drawn)."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    check_choice(variant, "variant", ADIST_VARIANTS)
    f = _as_scores(scores)
    leader, best, runner_up = f.top_two()
    scale, threshold = _release_rule(epsilon, delta, variant)
    if runner_up is None:
        return AdistPlan(leader, None, scale, threshold, None, variant)
    gap = float(best) - float(runner_up)
    return AdistPlan(leader, gap, scale, threshold, math.ceil(threshold - gap), variant)


def adist_release_gap(epsilon: float, delta: float, beta: float) -> float:
    """Smallest top-two gap at which the corrected A_dist releases its leader w.p. ``>= 1 - beta``.

    A_dist releases iff ``Z >= ceil(tau - gap)`` with ``tau = 2 + k0``, ``Z`` discrete Laplace of
    scale ``2/epsilon`` and ``k0`` the smallest ``k`` with ``q^k/(1+q) <= delta``. Since
    ``Pr[Z <= -k] = q^k/(1+q)``, a gap of at least ``1 + k0 + k_beta`` (``k_beta``: the same index
    for ``beta``) leaves probability at most ``beta`` of not releasing. Public inputs only.
    """
    scale = Fraction(2) / as_fraction(check_epsilon(epsilon), "epsilon")
    return 1.0 + _smallest_tail_index(scale, delta) + _smallest_tail_index(scale, beta)


def adist_release_probability(gap: float, epsilon: float, delta: float, variant: str = "corrected") -> float:
    """Probability that A_dist releases its leader when the top-two gap is ``gap``."""
    plan = adist_plan([float(gap), 0.0], epsilon, delta, variant)
    return plan.release_probability()


def adist(
    scores,
    epsilon: float,
    delta: float,
    *,
    variant: str = "corrected",
    ledger: PrivacyLedger | None = None,
    label: str = "A_dist",
    rng=None,
) -> int | None:
    """Stability-based selection: the best candidate, or ``None`` when its lead is not stable.

    Parameters
    ----------
    scores : array of float, StepFunction or None
        Sensitivity-1 scores of the candidates ``0 .. n-1`` (a step function for implicit
        candidate sets such as all of ``[0, 2^64]``). ``None`` is an empty family: the call
        returns bottom and is charged as any other (RecConcave's shifted blocks can be empty
        on a path that a private output chose, and the ledger must not show which).
    epsilon, delta : float
        The mechanism is (epsilon, delta)-DP (``delta > 0`` is required).
    variant : {"corrected", "paper-literal"}
        ``"paper-literal"`` reproduces the paper's ``Lap(1/epsilon)`` and threshold
        ``ln(1/delta)/epsilon``; it is *not* (epsilon, delta)-DP (erratum E1) and warns.

    Returns
    -------
    int or None
        The leader (smallest index attaining the maximum), or ``None`` for bottom.
    """
    if scores is None:  # an empty candidate family: bottom, charged as any call
        epsilon, delta = check_epsilon(epsilon), check_delta(delta, allow_zero=False)
        check_choice(variant, "variant", ADIST_VARIANTS)
        scale = (Fraction(2) if variant == "corrected" else Fraction(1)) / as_fraction(epsilon, "epsilon")
        charge(
            ledger,
            label,
            epsilon,
            delta,
            f"A_dist ({variant}), discrete Laplace scale {float(scale):.6g}",
            not_private=NOT_PRIVATE_LITERAL if variant == "paper-literal" else "",
        )
        return None
    if getattr(rng, "enumerates", False) and isinstance(scores, StepFunction):
        # An exact audit runs this once per random path: the noise-free plan is shared between
        # paths with the same scores and budget (RandomSource.reuse; the key names all it reads).
        key = ("adist_plan", scores._reuse_key(), epsilon, delta, variant)
        plan = rng.reuse(key, lambda: adist_plan(scores, epsilon, delta, variant))
    else:
        plan = adist_plan(scores, epsilon, delta, variant)
    if variant == "paper-literal":
        warnings.warn(
            "A_dist variant='paper-literal' is not (epsilon, delta)-DP: its gap has sensitivity 2 "
            "(docs/errata.md, E1). Use it only to reproduce the paper or to test audits.",
            PaperLiteralWarning,
            stacklevel=2,
        )
    # Every call is charged the same, a single candidate included: in RecConcave the number of
    # candidates follows a private output, and what a call costs must not reveal the path taken.
    charge(
        ledger,
        label,
        epsilon,
        delta,
        f"A_dist ({variant}), discrete Laplace scale {float(plan.scale):.6g}",
        not_private=NOT_PRIVATE_LITERAL if variant == "paper-literal" else "",
    )
    if plan.release_at is None:
        return plan.leader
    released = discrete_laplace_exceeds(plan.scale, plan.release_at, as_random_source(rng))
    return plan.leader if released else None
