"""SanPoints and the k-POINT sanitizer (Beimel, Nissim, Stemmer, section 4.2, Figs. 9 and 10).

SanPoints (Fig. 9, Thm 4.6) is an (epsilon, delta) *improper* sanitizer for POINT_d whose sample
size does not depend on the domain size. Only points of frequency above ``alpha`` need a non-zero
estimate, and there are fewer than ``1/alpha`` of them, so it repeats ``ceil(2/alpha)`` times:

1. ``b = Choosing(S, q_R, alpha/2, alpha beta/4, eps~, delta~, k=1)`` with ``q_R(S, x)`` the
   multiplicity of ``x`` if ``x`` has not been picked yet, else 0 (1-bounded growth);
2. if ``b`` is not bottom: ``Est(b) = (#b + Lap(1/eps~)) / m`` and ``b`` leaves ``R``.

Every point never picked is estimated as 0. The k-POINT sanitizer (Fig. 10, Thm 4.7) runs
SanPoints at accuracy ``alpha/k`` and answers a set ``I`` of ``k`` points with
``e(I) = sum_{i in I} Est(i)``.

Privacy
-------
The data is read only by the ``ceil(2/alpha)`` choosing calls and at most as many Laplace calls,
each (eps~, delta~)-DP, composed by the advanced composition theorem (Thm 2.5) with slack
``delta'``. The choosing calls are private **only when** ``m`` meets their precondition
(Lemma 4.4, erratum E18): SanPoints checks it before anything is spent and raises
:class:`~privpac.errors.PreconditionError` naming the bound; ``unsafe_skip_precondition=True``
runs anyway with an :class:`~privpac.errors.UnsafeConfigurationWarning` and **no privacy
guarantee**. The per-call budget:

* ``constants="paper"``: ``eps~ = eps / (2 sqrt(2 k ln(5/delta)))``, ``delta~ = (4 delta/5)/k``,
  ``delta' = delta/5`` with ``k = 2 ceil(2/alpha)`` calls, composed in the paper's form
  ``sqrt(2k ln(1/delta')) eps~ + 2 k eps~^2 = eps/2 + eps^2/(4 ln(5/delta)) <= eps``. When
  ``2/alpha`` is an integer this is the paper's ``eps / sqrt((32/alpha) ln(5/delta))`` and
  ``alpha delta / 5`` exactly (erratum E6: ``ceil`` otherwise, with the same composition).
* ``constants="tuned"``: the largest ``eps~`` whose advanced composition (Dwork, Rothblum,
  Vadhan form) over the same ``k`` calls stays within ``eps``, with the split of ``delta``
  between ``delta~`` and ``delta'`` chosen to minimise the choosing precondition. A
  data-independent choice; the ledger checks the composed total against the budget.

Utility (Thm 4.6)
-----------------
With probability ``1 - beta`` every point estimate is within ``alpha``: the released estimates
are within ``alpha`` when ``(2/alpha) exp(-eps~ alpha m) <= beta/2`` (event E1 of the proof),
and no unpicked point has frequency above ``alpha`` when every choosing call is
``alpha/2``-good (event E2; erratum E5: the proof's "for every iteration ``1 <= i <= alpha/2``"
reads ``2/alpha``). Size ``O(sqrt(ln(1/delta)) ln(1/(alpha beta eps delta)) / (alpha^1.5 eps))``;
the choosing precondition binds: about 7.6e5 records at ``alpha = 0.1``, ``eps = 1``,
``delta = 1e-6`` with the paper's constants (``privpac bounds``).

Cost ``O(m log m + m / alpha)``: counts are computed once by sorting.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..accounting import Calibrated, Calibration, PrivacyLedger, calibrate_for
from ..mechanisms.choosing import choosing_mechanism, choosing_min_size
from ..mechanisms.laplace import laplace_mechanism
from ..progress import progress
from ..validation import (
    check_int,
    check_probability,
)
from ._entry import check_budget, open_run, refuse_below_choosing_size, unsafe_warned_once
from .database import CountedData, SanitizedDatabase

__all__ = ["SanPointsPlan", "san_points_plan", "san_points", "k_point_sanitizer"]


@dataclass(frozen=True)
class SanPointsPlan(Calibrated):
    """The data-independent parameters of a SanPoints run (all public)."""

    alpha: float
    beta: float
    epsilon: float
    delta: float
    iterations: int  # ceil(2/alpha), erratum E6
    calibration: Calibration  # per-call (eps~, delta~) over 2 * iterations calls
    choosing_alpha: float  # alpha/2
    choosing_beta: float  # alpha beta/4
    min_size: float  # the choosing precondition (Lemma 4.4) at these parameters
    constants: str

    def laplace_accuracy_size(self) -> float:
        """``m`` with ``iterations * Pr[|Z| > alpha m] <= beta/2`` for discrete Laplace(1/eps~)."""
        q = math.exp(-self.epsilon_each)
        # Pr[|Z| > t] = 2 q^(floor(t)+1)/(1+q) <= 2 q^t/(1+q)
        t = math.log(self.iterations * 2.0 / ((1.0 + q) * self.beta / 2.0)) / self.epsilon_each
        return t / self.alpha


def _paper_calibration(epsilon: float, delta: float, k: int) -> Calibration:
    slack = delta / 5.0
    eps_each = epsilon / (2.0 * math.sqrt(2.0 * k * math.log(5.0 / delta)))
    return Calibration(eps_each, (4.0 * delta / 5.0) / k, k, "advanced", slack, "paper")


def san_points_plan(alpha: float, beta: float, epsilon: float, delta: float, constants: str = "tuned") -> SanPointsPlan:
    """Per-call budgets, iteration count and the privacy precondition of SanPoints."""
    alpha, beta, epsilon, delta = check_budget(alpha, beta, epsilon, delta, constants)
    return _plan(alpha, beta, epsilon, delta, constants)


@functools.lru_cache(maxsize=256)
def _plan(alpha: float, beta: float, epsilon: float, delta: float, constants: str) -> SanPointsPlan:
    iterations = math.ceil(2.0 / alpha - 1e-12)
    k = 2 * iterations
    a_c, b_c = alpha / 2.0, alpha * beta / 4.0
    if constants == "paper":
        cal = _paper_calibration(epsilon, delta, k)
    else:
        cal = calibrate_for(epsilon, delta, k, lambda c: choosing_min_size(a_c, b_c, c.epsilon_each, c.delta_each, 1))
    need = choosing_min_size(a_c, b_c, cal.epsilon_each, cal.delta_each, 1)
    return SanPointsPlan(alpha, beta, epsilon, delta, iterations, cal, a_c, b_c, need, constants)


def san_points(
    data,
    *,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    domain_size: int,
    constants: str = "tuned",
    ledger: PrivacyLedger | None = None,
    rng=None,
    unsafe_skip_precondition: bool = False,
) -> SanitizedDatabase:
    """SanPoints (Fig. 9, Thm 4.6): an (epsilon, delta) improper sanitizer for POINT_d.

    Parameters
    ----------
    data : array of int or CountedData
        The database as domain indices in ``[0, domain_size - 1]`` (or already counted).
    alpha, beta : float
        Accuracy and failure probability of the point estimates.
    epsilon, delta : float
        Total budget; the run is (epsilon, delta)-DP under replace-one neighbours when ``m``
        meets the choosing mechanism's precondition (checked; see the module docstring).
    domain_size : int
        ``|X|`` (public; any Python int).
    constants : {"tuned", "paper"}
        Per-call budget (module docstring); both give the same total privacy.
    ledger : PrivacyLedger, optional
        Charged the composed cost up front; a fresh ledger of budget (epsilon, delta) otherwise.
    unsafe_skip_precondition : bool
        Run below the privacy precondition. **Voids the privacy guarantee**: for experiments
        and for the audits that demonstrate the leak.

    Returns
    -------
    SanitizedDatabase
        Improper output: ``point(x)`` is ``Est(x)`` (noisy frequency clipped at 0; 0 off the
        released points). ``info`` holds the plan, the released points in order and the ledger.

    Raises
    ------
    PreconditionError
        When ``m`` is below the choosing mechanism's privacy precondition.
    """
    plan = san_points_plan(alpha, beta, epsilon, delta, constants)
    domain_size = check_int(domain_size, "domain_size", low=1)
    counted = CountedData.of(data, domain_size)
    m = counted.m
    refuse_below_choosing_size(
        "SanPoints",
        "Fig. 9",
        plan,
        m,
        f"(Lemma 4.4, alpha={plan.choosing_alpha:.4g}, beta={plan.choosing_beta:.4g}, "
        f"epsilon={plan.epsilon_each:.4g}, delta={plan.delta_each:.3g}) need it",
        unsafe=unsafe_skip_precondition,
    )
    ledger, src, block = open_run(
        plan, ledger, rng, "SanPoints", f"SanPoints: {plan.iterations} choosing + Laplace rounds"
    )
    remaining = np.ones(counted.values.size, dtype=bool)
    released: dict[int, float] = {}
    order: list[int] = []
    with unsafe_warned_once(unsafe_skip_precondition):
        for it in progress(range(plan.iterations), desc="SanPoints", unit="round"):
            keys = counted.values[remaining].tolist()
            b = choosing_mechanism(
                (keys, counted.counts[remaining]),
                m,
                plan.choosing_alpha,
                plan.choosing_beta,
                plan.epsilon_each,
                plan.delta_each,
                growth=1,
                ledger=block,
                label=f"round {it + 1}: choosing a heavy point",
                unsafe_skip_precondition=unsafe_skip_precondition,
                rng=src,
            )
            if b is None:
                continue
            pos = int(np.searchsorted(counted.values, b))
            noisy = laplace_mechanism(
                int(counted.counts[pos]), 1, plan.epsilon_each, ledger=block, label=f"round {it + 1}: count", rng=src
            )
            released[int(b)] = float(noisy)
            order.append(int(b))
            remaining[pos] = False
    out = SanitizedDatabase.from_weights(
        released,
        domain_size,
        total=float(m),
        proper=False,
        guarantee="point",
        info={
            "algorithm": "SanPoints (Beimel, Nissim, Stemmer, Fig. 9)",
            "alpha": plan.alpha,
            "beta": plan.beta,
            "epsilon": plan.epsilon,
            "delta": plan.delta,
            "m": m,
            "constants": plan.constants,
            "iterations": plan.iterations,
            "epsilon_each": plan.epsilon_each,
            "delta_each": plan.delta_each,
            "min_size": plan.min_size,
            "chosen": [str(v) if abs(v) > 2**53 else v for v in order],
            "unsafe": bool(unsafe_skip_precondition and m < plan.min_size),
        },
    )
    out.ledger = ledger
    return out


def k_point_sanitizer(data, *, k: int, alpha: float, **kwargs) -> SanitizedDatabase:
    """The k-POINT_d sanitizer (Fig. 10, Thm 4.7): SanPoints at accuracy ``alpha/k``.

    Answer a set ``I`` of ``k`` points with ``point_set(I) = sum_{i in I} Est(i)``, which is
    within ``alpha`` of the true fraction when every point estimate is within ``alpha/k``.
    Privacy is SanPoints' (same arguments; ``kwargs`` are those of :func:`san_points`).
    Size ``O(k^1.5 sqrt(ln(1/delta)) ln(k/(alpha beta eps delta)) / (alpha^1.5 eps))``.
    """
    k = check_int(k, "k", low=1)
    alpha = check_probability(alpha, "alpha")
    out = san_points(data, alpha=alpha / k, **kwargs)
    out.guarantee = "k-point"
    out.info["algorithm"] = "k-POINT sanitizer (Beimel, Nissim, Stemmer, Fig. 10)"
    out.info["k"] = k
    out.info["set_alpha"] = alpha
    return out
