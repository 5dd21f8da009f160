"""SanThresholds: an (epsilon, delta) proper sanitizer for THRESH_d (Beimel, Nissim, Stemmer, section 4.3).

Fig. 11, Lemma 4.8, Claims 4.9 to 4.11, Lemma 4.12, Thm 4.13. It cuts the line into at most
``c = ceil(77/alpha)`` intervals ``[a, b]``, each either holding a noticeable share of the data
(at least ``5 alpha m/128``) or closing a branch with little data, such that no interval hides
more than ``alpha m/2`` records in ``[a, b - 1]``; it then puts a noisy count of each interval
at its right end ``b``. A threshold query ``c_j`` (``x < j``) is then off only by the records of
the interval holding ``j`` that lie below ``j``, plus the noise.

One call on a range ``[k, l]`` (``m`` is always the full dataset size; ``calls`` is global):

1. if ``calls == 0`` halt; ``calls -= 1``;
2. ``c_hat = #_S[k, l] + Lap(1/eps)``;
3. if ``c_hat < alpha m/8``: weight ``c_hat`` at ``l``; halt;
4. ``T`` := the smallest power of two ``>= l - k + 1``;
5. ``I(j)`` := the largest count of a window of ``<= 2^j`` points inside ``[k, l]``,
   ``j = 0 .. log2 T``;
6. ``Q(j) = min(I(j) - alpha m/32, 3 alpha m/32 - I(j - 1))`` with ``I(-1) = 0``;
7. ``z = RecConcave(Q over [0, log2 T], r = alpha m/32, alpha = 1/4)``;
8. ``Z = 2^z``;
9. ``z = 0``: ``[a, b] = [p, p]`` with ``p`` chosen by the choosing mechanism among the points of
   ``[k, l]`` (multiplicity, 1-bounded growth, accuracy ``alpha/64``);
10. ``z >= 1``: ``[a, b]`` chosen by the choosing mechanism among the blocks of two partitions of
    ``[k, l]`` into ``2Z`` points, the second shifted by ``Z`` (block counts, 2-bounded growth);
11. weight ``#_S[a, b] + Lap(1/eps)`` at ``b``;
12. recurse on ``[k, a - 1]``;
13. recurse on ``[b + 1, l]``.

The top call covers the whole domain. The release is the weighted database ``S_hat``; a query
``c_j`` is answered by ``Q_{c_j}(S_hat)`` = (weight below ``j``) / (total weight).

Errata and reconstructions (docs/errata.md)
-------------------------------------------
* **E7** ``calls := 77/alpha`` is ``ceil(77/alpha)``.
* **E8** "add ``c_hat`` copies of ``b``" with a real, possibly negative noisy count: a weight,
  clipped at 0 (post-processing; a true count is never negative).
* **E9** the choosing mechanism may return bottom (steps 9 and 10): the branch closes as in step
  3, with ``[a, b] = [k, l]`` and weight ``#_S[k, l] + Lap(1/eps)`` at ``l``. This noisy count
  replaces step 11's, so a call still runs at most 2 Laplace draws.
* **E10** Claim 4.11's proof writes ``L(S, z - 1)``; it means ``I(S, z - 1)``.
* **E11** the calibration of the per-mechanism budget to an overall (epsilon, delta, beta), left
  "immediate" by the paper, is explicit below.
* The recursion runs on an explicit stack (left range first): ``c`` can exceed Python's
  recursion limit.

Privacy (Lemma 4.8)
-------------------
Every call runs at most four mechanisms, each (eps_m, delta_m)-DP: two Laplace counts
(sensitivity 1), one RecConcave (itself (eps_m, delta_m) in total, for *every* quality: ``I`` is
a maximum of counts, so ``Q`` has sensitivity 1 whatever the data), one choosing mechanism
(private when ``m`` meets its precondition at accuracy ``alpha/64`` with growth 2, erratum E18:
checked before anything runs, :class:`~privpac.errors.PreconditionError` otherwise). The number
of calls is at most ``c``, a public bound, so advanced composition (Thm 2.5) over ``4c``
adaptive mechanisms with slack ``delta'`` gives the total.

* ``constants="paper"`` (spec 6.3): ``delta_m = delta/(5c)``, ``beta_m = beta/(3c)`` and
  ``eps_m`` the positive root of ``8c x^2 + sqrt(8c ln(1/(c delta_m))) x = epsilon`` (the paper
  form with ``k = 4c``, ``delta' = c delta_m``); RecConcave with Thm 3.15's split.
* ``constants="tuned"``: the same ``c`` and ``4c`` mechanisms, composed with the Dwork, Rothblum,
  Vadhan form, the split of ``delta`` between ``delta_m`` and ``delta'`` chosen to minimise the
  sample size, and RecConcave with its tuned plan. A data-independent choice; the ledger checks
  the composed total against the budget.

Utility (Thm 4.13)
------------------
With probability ``1 - 3 c beta_m = 1 - beta`` every threshold query is answered within
``alpha`` when ``m`` meets the choosing precondition, the Laplace condition
``m >= (16c/(alpha eps_m)) ln(2/beta_m)`` and RecConcave's promise ``alpha m/32 >=`` its required
quality. At ``alpha = 0.1``, ``epsilon = 1``, ``delta = 1e-6`` this is ``>= 4e8`` records with the
tightest reading (``privpac bounds san-thresholds-plan``); the counts are held per distinct
value, so such sizes run in seconds when the data has few distinct values.

Cost ``O(c (p d + p log p))`` for ``p`` distinct values and ``d = log2 |X|``; never ``O(|X|)``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..accounting import Calibrated, Calibration, PrivacyLedger, calibrate_for
from ..mechanisms.choosing import choosing_mechanism, choosing_min_size
from ..mechanisms.laplace import laplace_mechanism
from ..optimize.recconcave import rec_concave_run
from ..optimize.recconcave_plan import required_quality
from ..progress import progress
from ..validation import (
    check_int,
)
from ._entry import check_budget, open_run, refuse_below_choosing_size, unsafe_warned_once
from .database import CountedData, SanitizedDatabase

__all__ = ["SanThresholdsPlan", "san_thresholds_plan", "san_thresholds", "window_counts"]


@dataclass(frozen=True)
class SanThresholdsPlan(Calibrated):
    """The data-independent parameters of a SanThresholds run (all public)."""

    alpha: float
    beta: float
    epsilon: float
    delta: float
    domain_size: int
    calls: int  # c = ceil(77/alpha), erratum E7
    calibration: Calibration  # per-mechanism (eps_m, delta_m) over 4c mechanisms
    beta_each: float  # beta/(3c)
    constants: str
    min_size: float  # the choosing precondition (privacy): alpha/64, growth 2
    laplace_size: float  # (16c/(alpha eps_m)) ln(2/beta_m)
    recconcave_size: float  # 32 r_needed / alpha on the top range

    @property
    def utility_size(self) -> float:
        """The ``m`` at which Thm 4.13's proof gives accuracy ``alpha`` with probability ``1 - beta``."""
        return max(self.min_size, self.laplace_size, self.recconcave_size)


def _scales(domain_size: int) -> int:
    """``log2 T`` for the top range: the number of window scales minus one."""
    return max(domain_size - 1, 0).bit_length()


def _sizes(alpha, beta_m, cal: Calibration, c: int, domain_size: int, rc_constants: str):
    eps_m, delta_m = cal.epsilon_each, cal.delta_each
    need_choose = choosing_min_size(alpha / 64.0, beta_m, eps_m, delta_m, 2)
    need_lap = (16.0 * c / (alpha * eps_m)) * math.log(2.0 / beta_m)
    T_rc = _scales(domain_size)
    r_need = required_quality(T_rc, 0.25, beta_m, eps_m, delta_m, None, "tight", constants=rc_constants)
    return need_choose, need_lap, 32.0 * r_need / alpha


def san_thresholds_plan(
    alpha: float, beta: float, epsilon: float, delta: float, domain_size: int, constants: str = "tuned"
) -> SanThresholdsPlan:
    """Calls, per-mechanism budgets and the sizes SanThresholds needs (section 6.3 of the spec)."""
    alpha, beta, epsilon, delta = check_budget(alpha, beta, epsilon, delta, constants)
    domain_size = check_int(domain_size, "domain_size", low=1)
    return _plan(alpha, beta, epsilon, delta, domain_size, constants)


@functools.lru_cache(maxsize=128)
def _plan(alpha, beta, epsilon, delta, domain_size, constants) -> SanThresholdsPlan:
    c = math.ceil(77.0 / alpha - 1e-12)
    k = 4 * c
    beta_m = beta / (3.0 * c)
    if constants == "paper":
        delta_m = delta / (5.0 * c)
        b = math.sqrt(8.0 * c * math.log(1.0 / (c * delta_m)))
        a = 8.0 * c
        eps_m = (-b + math.sqrt(b * b + 4.0 * a * epsilon)) / (2.0 * a)
        cal = Calibration(eps_m, delta_m, k, "advanced", c * delta_m, "paper")
        sizes = _sizes(alpha, beta_m, cal, c, domain_size, "paper")
    else:
        cal = calibrate_for(epsilon, delta, k, lambda cand: max(_sizes(alpha, beta_m, cand, c, domain_size, "tuned")))
        sizes = _sizes(alpha, beta_m, cal, c, domain_size, "tuned")
    return SanThresholdsPlan(alpha, beta, epsilon, delta, domain_size, c, cal, beta_m, constants, *sizes)


def window_counts(counted: CountedData, lo: int, hi: int, n_scales: int) -> np.ndarray:
    """``I(j)`` for ``0 <= j <= n_scales``: the largest number of records in a window of at most
    ``2^j`` consecutive points inside ``[lo, hi]`` (Fig. 11, step 5).

    A best window can be taken to start at a record or to end at ``hi``, so ``O(p)`` per scale
    for the ``p`` distinct values in range. ``I`` is a maximum of counts: sensitivity 1.
    """
    i0 = int(np.searchsorted(counted.values, lo, side="left"))
    i1 = int(np.searchsorted(counted.values, hi, side="right"))
    vals = counted.values[i0:i1]
    cum = np.concatenate([[0], np.cumsum(counted.counts[i0:i1])])
    width = hi - lo + 1
    out = np.zeros(n_scales + 1, dtype=np.int64)
    if vals.size == 0:
        return out
    for j in range(n_scales + 1):
        w = 1 << j
        if w >= width:
            out[j:] = cum[-1]
            break
        ends = np.searchsorted(vals, vals + w, side="left")  # first value >= v + w
        fits = (vals + (w - 1)) <= hi
        best = int((cum[ends] - cum[:-1])[fits].max()) if np.any(fits) else 0
        tail = cum[-1] - cum[int(np.searchsorted(vals, hi - w + 1, side="left"))]
        out[j] = max(best, int(tail))
    return out


def _block_scores(counted: CountedData, lo: int, hi: int, Z: int) -> dict:
    """Counts of the blocks of two partitions of ``[lo, hi]`` into ``2Z`` points (shift ``Z``)
    that hold records: the 2-bounded-growth quality of step 10. Keys ``("A", i)``, ``("B", i)``."""
    i0 = int(np.searchsorted(counted.values, lo, side="left"))
    i1 = int(np.searchsorted(counted.values, hi, side="right"))
    scores: dict = {}
    for v, cnt in zip(counted.values[i0:i1].tolist(), counted.counts[i0:i1].tolist()):
        a = ("A", (v - lo) // (2 * Z))
        scores[a] = scores.get(a, 0) + cnt
        if v >= lo + Z:
            b = ("B", (v - lo - Z) // (2 * Z))
            scores[b] = scores.get(b, 0) + cnt
    return scores


def _block_interval(key, lo: int, hi: int, Z: int) -> tuple[int, int]:
    family, i = key
    start = lo + 2 * Z * i + (Z if family == "B" else 0)
    return start, min(start + 2 * Z - 1, hi)


def san_thresholds(
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
    """SanThresholds (Fig. 11, Thm 4.13): an (epsilon, delta) proper sanitizer for THRESH_d.

    Parameters
    ----------
    data : array of int or CountedData
        Domain indices in ``[0, domain_size - 1]`` (or counts per distinct value).
    alpha, beta : float
        Every threshold query within ``alpha`` with probability ``1 - beta`` at the sizes of
        :func:`san_thresholds_plan`.
    epsilon, delta : float
        Total budget: (epsilon, delta)-DP under replace-one neighbours when ``m`` meets the
        choosing mechanism's precondition (checked).
    constants : {"tuned", "paper"}
        Budget calibration (module docstring); the same total privacy.
    unsafe_skip_precondition : bool
        Run below the privacy precondition. **Voids the privacy guarantee** (warns).

    Returns
    -------
    SanitizedDatabase
        Proper output: weights at the right ends of the intervals. ``info["intervals"]`` lists
        the intervals ``[a, b]`` (outputs of private steps) and how each call ended.
    """
    plan = san_thresholds_plan(alpha, beta, epsilon, delta, domain_size, constants)
    counted = CountedData.of(data, plan.domain_size)
    m = counted.m
    refuse_below_choosing_size(
        "SanThresholds",
        "Fig. 11",
        plan,
        m,
        f"(Lemma 4.4 with alpha={alpha / 64:.4g}, k=2, epsilon={plan.epsilon_each:.4g}, delta={plan.delta_each:.3g})",
        unsafe=unsafe_skip_precondition,
    )
    ledger, src, block = open_run(
        plan, ledger, rng, "SanThresholds", f"SanThresholds: at most {plan.calls} calls x 4 mechanisms"
    )
    eps_m, delta_m = plan.epsilon_each, plan.delta_each
    rc_constants = "paper" if plan.constants == "paper" else "tuned"
    weights: dict[int, float] = {}
    intervals: list[dict] = []
    calls = plan.calls
    stack = [(0, plan.domain_size - 1)]
    bar = progress(total=plan.calls, desc="SanThresholds", unit="call")
    with bar, unsafe_warned_once(unsafe_skip_precondition):
        while stack:
            lo, hi = stack.pop()
            if calls == 0:  # step 1
                intervals.append({"range": [lo, hi], "end": "no calls left"})
                continue
            calls -= 1
            bar.update()
            n_call = plan.calls - calls
            c_hat = laplace_mechanism(
                counted.count_range(lo, hi), 1, eps_m, ledger=block, label=f"call {n_call}: range count", rng=src
            )
            if c_hat < alpha * m / 8.0:  # step 3
                weights[hi] = weights.get(hi, 0.0) + float(c_hat)
                intervals.append({"interval": [lo, hi], "end": "little data"})
                continue
            n_scales = max(hi - lo, 0).bit_length()  # log2 T, T = next power of two >= hi - lo + 1
            I = window_counts(counted, lo, hi, n_scales)
            I_prev = np.concatenate([[0], I[:-1]])
            Q = np.minimum(I - alpha * m / 32.0, 3.0 * alpha * m / 32.0 - I_prev)
            z = rec_concave_run(
                Q.astype(float),
                alpha * m / 32.0,
                0.25,
                eps_m,
                delta_m,
                beta=plan.beta_each,
                constants=rc_constants,
                ledger=block,
                rng=src,
                label=f"call {n_call}: RecConcave over scales",
            ).index
            if z == 0:  # step 9
                i0 = int(np.searchsorted(counted.values, lo, side="left"))
                i1 = int(np.searchsorted(counted.values, hi, side="right"))
                scores = dict(zip(counted.values[i0:i1].tolist(), counted.counts[i0:i1].tolist()))
                growth = 1
            else:  # step 10
                Z = 1 << z
                scores = _block_scores(counted, lo, hi, Z)
                growth = 2
            choice = choosing_mechanism(
                scores,
                m,
                alpha / 64.0,
                plan.beta_each,
                eps_m,
                delta_m,
                growth=growth,
                ledger=block,
                label=f"call {n_call}: choosing {'a point' if growth == 1 else 'a block'}",
                unsafe_skip_precondition=unsafe_skip_precondition,
                rng=src,
            )
            if choice is None:  # E9: close the branch like step 3
                a, b = lo, hi
            elif z == 0:
                a = b = int(choice)
            else:
                a, b = _block_interval(choice, lo, hi, 1 << z)
            c_ab = laplace_mechanism(
                counted.count_range(a, b), 1, eps_m, ledger=block, label=f"call {n_call}: interval count", rng=src
            )
            weights[b] = weights.get(b, 0.0) + float(c_ab)
            intervals.append({"interval": [a, b], "end": "bottom" if choice is None else f"scale 2^{z}"})
            if choice is None:
                continue
            if b < hi:  # step 13 (pushed first: the left range runs first)
                stack.append((b + 1, hi))
            if a > lo:  # step 12
                stack.append((lo, a - 1))
    out = SanitizedDatabase.from_weights(
        weights,
        plan.domain_size,
        proper=True,
        guarantee="threshold",
        info={
            "algorithm": "SanThresholds (Beimel, Nissim, Stemmer, Fig. 11)",
            "alpha": plan.alpha,
            "beta": plan.beta,
            "epsilon": plan.epsilon,
            "delta": plan.delta,
            "m": m,
            "constants": plan.constants,
            "calls_allowed": plan.calls,
            "calls_used": plan.calls - calls,
            "epsilon_each": eps_m,
            "delta_each": delta_m,
            "min_size": plan.min_size,
            "intervals": [
                {k: [_j(v) for v in val] if isinstance(val, list) else val for k, val in iv.items()} for iv in intervals
            ],
            "unsafe": bool(unsafe_skip_precondition and m < plan.min_size),
        },
    )
    out.ledger = ledger
    return out


def _j(v: int):
    return str(v) if abs(int(v)) > 2**53 else int(v)
