"""RecConcave's public plan: the recursion depth, the per-mechanism budgets and the promise the
utility proof needs, all fixed from public parameters before any data is read.

Beimel, Nissim, Stemmer, "Private Learning and Sanitization: Pure vs. Approximate Differential
Privacy", section 3.3, Fig. 5, Lemma 3.14, Thm 3.15, Remark 3.16 (spec bns-pure-vs-approx, section 4).
:mod:`privpac.optimize.recconcave` runs the algorithm on these plans and holds its privacy argument
(Lemma 3.12). Here:

* :func:`log_star`, :func:`log_star_from_log2`, :func:`iterated_log2`, :func:`levels`: the public
  arithmetic of the recursion (``depth = levels(T, N)`` depends on ``T`` and ``N`` only);
* :class:`LevelPlan`, :class:`RecConcavePlan`, :func:`plan_rec_concave`: the budget of every
  mechanism a run can spend, Thm 3.15's (``constants="paper"``) or tuned (E15);
* :func:`required_quality`: the promise ``r`` the run needs to fail with probability at most ``beta``.

Budgets (E15)
-------------
Thm 3.15 charges ``3N`` mechanisms of ``(eps/3N, delta/3N)``; only ``3 depth - 2 <= 3N - 2`` run.
``constants="paper"`` keeps the theorem's per-mechanism budgets; ``constants="tuned"`` spends the
whole budget over the mechanisms that actually run, split to minimise the required promise.
Either way the budgets sum to at most the run's ``(epsilon, delta)`` and depend on public parameters
only, which is all the privacy argument (Lemma 3.12, in :mod:`privpac.optimize.recconcave`) needs.

Utility (Lemma 3.14, Thm 3.15)
------------------------------
Thm 3.15 as stated: with budgets ``(eps/3N, delta/3N)`` the failure probability is at most
``beta`` when ``r >= 8^N (36N/(alpha eps)) (log2(6N/(beta delta)) + log2 ... log2 T)``
(``N`` logarithms). :func:`required_quality` gives this (``mode="stated"``) and the smallest
promise meeting every inequality of the proof for the mechanisms privpac actually runs
(``mode="tight"``; discrete Laplace tails, natural logarithms, E12):

* base level on ``[0, T_b]``: ``T_b exp(-eps alpha r / 2) <= beta``;
* A_dist: the good block wins by ``3 alpha r / 8``; A_dist releases it with probability at least
  ``1 - beta`` (exact discrete-Laplace tail);
* final exponential mechanism: a window of ``K`` points scoring ``>= (1 - 5 alpha/8) r`` inside at
  most ``16K`` candidates: ``15 exp(-eps (3 alpha/8) r / 2) <= beta``;
* recursion: promise ``alpha r / 2`` at accuracy ``1/4``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import InvalidParameterError
from ..formatting import fmt_int
from ..mechanisms.adist import adist_release_gap
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability, check_real

__all__ = [
    "BASE_CASE_MAX",
    "LevelPlan",
    "RecConcavePlan",
    "iterated_log2",
    "levels",
    "log_star",
    "log_star_from_log2",
    "plan_rec_concave",
    "required_quality",
]

#: Fig. 5, step 1: ranges of at most this many points (plus one) go straight to the exponential mechanism.
BASE_CASE_MAX = 32

CONSTANTS = ("tuned", "paper")
MODES = ("tight", "stated")

# Accuracy of every recursive call (Fig. 5, step 6).
_SUB_ALPHA = 0.25


# ---------------------------------------------------------------------------------------------
# Public arithmetic: log*, iterated logarithms, recursion depth
# ---------------------------------------------------------------------------------------------


def log_star(x) -> int:
    """How many times ``log2`` must be applied to ``x`` before the result is ``<= 1``.

    ``log_star(16) = 3``, ``log_star(2**16) = 4``, ``log_star(2**64) = 5``; any Python int works,
    exactly (``log_star(2**65536 + 1) = 6``, where a float ``log2`` would round to the tower and say 5).
    """
    if isinstance(x, bool) or not isinstance(x, int | float | np.integer | np.floating):
        raise InvalidParameterError(f"log_star needs a number, got {x!r}")
    count = 0
    if isinstance(x, int | np.integer):
        x = int(x)
        while x > 1:  # exact for any int: log* x = 1 + log* ceil(log2 x) (see log_star_from_log2)
            x, count = (x - 1).bit_length(), count + 1
        return count
    while x > 1:
        x = math.log2(x)
        count += 1
    return count


def log_star_from_log2(l2: float) -> int:
    """``log* T`` from ``l2 = log2 T`` (``0`` when ``l2 <= 0``): ``1 + log_star(l2)``.

    The spec's definition rounds up at every step (``ceil(log2 .)`` until the value is ``<= 1``, BMNS
    section 0); it gives the same number, because ``log* y <= k`` exactly when ``y`` is at most the
    tower ``2^2^...^2`` of height ``k``, an integer, and ``ceil(y)`` is at most an integer exactly when
    ``y`` is (checked in tests/papers/bns_pure_vs_approx/test_recconcave.py). So the first step rounds ``l2``
    up and the rest is
    exact integer arithmetic; only a ``l2`` already rounded by its caller (``log2`` of ``2^65536 + 1`` is
    the float ``65536.0``) can land on a tower: pass exact sizes to :func:`log_star`.
    """
    return 0 if l2 <= 0 else 1 + log_star(math.ceil(l2))


def iterated_log2(x, n: int) -> float:
    """``log2(log2(... log2(x)))`` with ``n`` logarithms (plain, not rounded up), for any Python int."""
    n = check_int(n, "n", low=0)
    value = x
    for _ in range(n):
        if value <= 0:
            raise InvalidParameterError(f"the {n}-fold logarithm of {fmt_int(int(x))} is undefined")
        value = math.log2(value)
    return float(value)


def _next_pow2(T: int) -> int:
    """The smallest power of two ``>= T`` (``T >= 1``)."""
    return 1 << (T - 1).bit_length()


def _sub_range(T: int) -> int:
    """The range ``[0, log2 T']`` of the recursive call on ``[0, T]``."""
    return _next_pow2(T).bit_length() - 1


def levels(T: int, N: int | None = None, base_case_max: int = BASE_CASE_MAX) -> int:
    """Number of levels RecConcave runs on ``[0, T]`` with depth bound ``N`` (``None``: no bound).

    Public: it depends on ``T`` and ``N`` only. ``levels(2**16) = levels(2**32) = 2``,
    ``levels(2**64) = levels(2**65536) = 3``; always ``<= max(1, log_star(T))``.
    """
    T = check_int(T, "T", low=0)
    base_case_max = check_int(base_case_max, "base_case_max", low=1)
    bound = math.inf if N is None else check_int(N, "N", low=1)
    depth = 1
    while T > base_case_max and depth < bound:
        T = _sub_range(T)
        depth += 1
    return depth


def _level_ranges(T: int, depth: int) -> list[int]:
    out = [T]
    for _ in range(depth - 1):
        out.append(_sub_range(out[-1]))
    return out


# ---------------------------------------------------------------------------------------------
# Plans: per-level budgets, chosen from public parameters only
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LevelPlan:
    """Budgets of one level. ``T`` is the level's range ``[0, T]``, ``alpha`` its accuracy.

    A non-base level runs two A_dist calls of ``(epsilon_adist, delta_adist)`` and one
    exponential mechanism of ``epsilon_em``; the base level one exponential mechanism.
    ``beta_adist`` and ``beta_em`` are the failure probabilities the calculators assign.
    """

    level: int
    T: int
    alpha: float
    base: bool
    epsilon_em: float
    epsilon_adist: float = 0.0
    delta_adist: float = 0.0
    beta_em: float = 0.0
    beta_adist: float = 0.0

    @property
    def max_spend(self) -> tuple[float, float]:
        if self.base:
            return self.epsilon_em, 0.0
        return self.epsilon_em + 2.0 * self.epsilon_adist, 2.0 * self.delta_adist


@dataclass(frozen=True)
class RecConcavePlan:
    """Everything RecConcave decides before looking at data (all public)."""

    T: int
    alpha: float
    beta: float
    epsilon: float
    delta: float
    N: int
    depth: int
    constants: str
    base_case_max: int
    levels: tuple[LevelPlan, ...]

    @property
    def max_spend(self) -> tuple[float, float]:
        """The most the run can charge: ``(3 depth - 2)`` mechanisms' worth (E15)."""
        eps = math.fsum(lp.max_spend[0] for lp in self.levels)
        delta = math.fsum(lp.max_spend[1] for lp in self.levels)
        return min(eps, self.epsilon), min(delta, self.delta)

    @property
    def is_pure(self) -> bool:
        return self.depth == 1

    def promise_factor(self, level: int) -> float:
        """``r_level / r``: the promise at level ``level`` (1 = top) relative to the top promise."""
        factor = 1.0
        for lp in self.levels[: level - 1]:
            factor *= lp.alpha / 2.0
        return factor

    def required_promise(self) -> float:
        """Smallest top-level promise meeting every inequality of the utility proof (``mode="tight"``)."""
        need = 0.0
        for lp in self.levels:
            need = max(need, _level_need(lp) / self.promise_factor(lp.level))
        return need

    def describe(self) -> list[str]:
        lines = [
            f"RecConcave plan: T={fmt_int(self.T)}, alpha={self.alpha:g}, beta={self.beta:g}, "
            f"epsilon={self.epsilon:g}, delta={self.delta:g}, constants={self.constants}, "
            f"N={self.N}, depth={self.depth}",
        ]
        for lp in self.levels:
            if lp.base:
                lines.append(
                    f"  level {lp.level} (base) on [0, {fmt_int(lp.T)}]: exponential mechanism eps={lp.epsilon_em:.4g}"
                )
            else:
                lines.append(
                    f"  level {lp.level} on [0, {fmt_int(lp.T)}]: 2 x A_dist (eps={lp.epsilon_adist:.4g}, "
                    f"delta={lp.delta_adist:.3g}), exponential mechanism eps={lp.epsilon_em:.4g}"
                )
        return lines


def _em_base_need(T: int, alpha: float, epsilon: float, beta: float) -> float:
    """Promise for the base exponential mechanism: ``T exp(-eps alpha r / 2) <= beta``."""
    if T < 1:
        return 0.0
    return max(0.0, 2.0 * (math.log(T) - math.log(beta)) / (alpha * epsilon))


def _em_final_need(alpha: float, epsilon: float, beta: float) -> float:
    """Promise for the step-10 mechanism: ``15 exp(-eps (3 alpha/8) r / 2) <= beta``."""
    return 16.0 * math.log(15.0 / beta) / (3.0 * alpha * epsilon)


def _adist_min_gap(epsilon: float, delta: float, beta: float) -> float:
    """See :func:`privpac.mechanisms.adist.adist_release_gap`."""
    return adist_release_gap(epsilon, delta, beta)


@lru_cache(maxsize=4096)
def _adist_need(alpha: float, epsilon: float, delta: float, beta: float) -> float:
    """Promise for A_dist: the gap ``3 alpha r / 8`` must make it release with probability ``1 - beta``."""
    return _adist_min_gap(epsilon, delta, beta) / (3.0 * alpha / 8.0)


def _level_need(lp: LevelPlan) -> float:
    if lp.base:
        return _em_base_need(lp.T, lp.alpha, lp.epsilon_em, lp.beta_em)
    return max(
        _adist_need(lp.alpha, lp.epsilon_adist, lp.delta_adist, lp.beta_adist),
        _em_final_need(lp.alpha, lp.epsilon_em, lp.beta_em),
    )


def _adist_min_epsilon(gap: float, delta: float, beta: float) -> float:
    """Smallest A_dist epsilon (to relative 1e-9) whose release gap is at most ``gap``."""
    if gap < 2.0:  # 1 + k0 + k_beta >= 2 for delta, beta < 1/2
        return math.inf
    hi = 1.0
    while _adist_min_gap(hi, delta, beta) > gap:
        hi *= 2.0
        if hi > 1e9:
            return math.inf
    lo = hi / 2.0
    while _adist_min_gap(lo, delta, beta) <= gap:
        lo /= 2.0
    for _ in range(40):
        mid = math.sqrt(lo * hi)
        if _adist_min_gap(mid, delta, beta) <= gap:
            hi = mid
        else:
            lo = mid
    return hi


def _paper_plan(T, alpha, beta, epsilon, delta, N, depth, base_case_max) -> RecConcavePlan:
    """Thm 3.15: every mechanism gets ``(eps/3N, delta/3N)``; Lemma 3.14's ``beta/(2N)`` per event."""
    eps_c, delta_c, beta_c = epsilon / (3 * N), delta / (3 * N), beta / (2 * N)
    ranges = _level_ranges(T, depth)
    lvls = []
    for i, t in enumerate(ranges):
        a = alpha if i == 0 else _SUB_ALPHA
        base = i == depth - 1
        lvls.append(
            LevelPlan(
                level=i + 1,
                T=t,
                alpha=a,
                base=base,
                epsilon_em=eps_c,
                epsilon_adist=0.0 if base else eps_c,
                delta_adist=0.0 if base else delta_c,
                beta_em=beta_c,
                beta_adist=0.0 if base else beta_c,
            )
        )
    return RecConcavePlan(T, alpha, beta, epsilon, delta, N, depth, "paper", base_case_max, tuple(lvls))


def _tuned_plan(T, alpha, beta, epsilon, delta, N, depth, base_case_max) -> RecConcavePlan:
    """Split the whole budget over the ``3 depth - 2`` mechanisms that run, minimising the promise.

    For a candidate promise ``r`` every mechanism has a smallest epsilon meeting its inequality;
    the smallest ``r`` whose epsilons sum to at most ``epsilon`` is found by bisection, and the
    epsilons are then scaled up to spend exactly ``epsilon``. ``delta`` goes to the A_dist calls
    in equal parts, ``beta`` to the ``2 depth - 1`` failure events in equal parts.
    """
    ranges = _level_ranges(T, depth)
    alphas = [alpha] + [_SUB_ALPHA] * (depth - 1)
    beta_e = beta / (2 * depth - 1)
    delta_a = delta / (2 * (depth - 1)) if depth > 1 else 0.0
    factors = [1.0]
    for a in alphas[:-1]:
        factors.append(factors[-1] * a / 2.0)

    def epsilons(r: float) -> list[tuple[float, float]]:
        out = []
        for i in range(depth):
            r_l, a = r * factors[i], alphas[i]
            if i == depth - 1:
                need = 2.0 * (math.log(ranges[i]) - math.log(beta_e)) / (a * r_l) if ranges[i] >= 1 else 0.0
                out.append((max(need, 0.0), 0.0))
            else:
                em = 16.0 * math.log(15.0 / beta_e) / (3.0 * a * r_l)
                ad = _adist_min_epsilon(3.0 * a * r_l / 8.0, delta_a, beta_e)
                out.append((em, ad))
        return out

    def total(eps_list) -> float:
        return math.fsum(em + 2.0 * ad for em, ad in eps_list)

    hi = 1.0
    while total(epsilons(hi)) > epsilon:
        hi *= 2.0
    lo = hi / 2.0
    while lo > 1e-12 and total(epsilons(lo)) <= epsilon:
        lo /= 2.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if total(epsilons(mid)) <= epsilon:
            hi = mid
        else:
            lo = mid
    eps_list = epsilons(hi)
    spent = total(eps_list)
    if spent <= 0.0:  # a one-point range: nothing to meet, the single mechanism takes everything
        eps_list = [(epsilon, 0.0)]
        spent = epsilon
    scale = epsilon / spent
    lvls = []
    for i in range(depth):
        em, ad = eps_list[i]
        base = i == depth - 1
        lvls.append(
            LevelPlan(
                level=i + 1,
                T=ranges[i],
                alpha=alphas[i],
                base=base,
                epsilon_em=em * scale,
                epsilon_adist=0.0 if base else ad * scale,
                delta_adist=0.0 if base else delta_a,
                beta_em=beta_e,
                beta_adist=0.0 if base else beta_e,
            )
        )
    return RecConcavePlan(T, alpha, beta, epsilon, delta, N, depth, "tuned", base_case_max, tuple(lvls))


@lru_cache(maxsize=1024)
def _plan_cached(T, alpha, beta, epsilon, delta, N, constants, base_case_max) -> RecConcavePlan:
    if constants == "paper":
        n = max(1, log_star(T)) if N is None else N
        depth = levels(T, n, base_case_max)
        if depth > 1 and delta <= 0.0:
            raise InvalidParameterError(
                f"delta must be > 0 when RecConcave recurses (depth {depth}); pass N=1 for a pure-DP run"
            )
        return _paper_plan(T, alpha, beta, epsilon, delta, n, depth, base_case_max)
    if N is not None:
        depth = levels(T, N, base_case_max)
        if depth > 1 and delta <= 0.0:
            raise InvalidParameterError(
                f"delta must be > 0 when RecConcave recurses (depth {depth}); pass N=1 for a pure-DP run"
            )
        return _tuned_plan(T, alpha, beta, epsilon, delta, N, depth, base_case_max)
    best = None
    max_depth = levels(T, None, base_case_max) if delta > 0.0 else 1
    for n in range(1, max_depth + 1):
        plan = _tuned_plan(T, alpha, beta, epsilon, delta, n, n, base_case_max)
        if best is None or plan.required_promise() < best.required_promise():
            best = plan
    return best


def _check_common(T, alpha, beta, epsilon, delta, N, constants, base_case_max):
    T = check_int(T, "T", low=0)
    alpha = check_real(alpha, "alpha", low=0.0, low_open=True, high=0.5)
    beta = check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if N is not None:
        N = check_int(N, "N", low=1)
    check_choice(constants, "constants", CONSTANTS)
    base_case_max = check_int(base_case_max, "base_case_max", low=1)
    return T, alpha, beta, epsilon, delta, N, constants, base_case_max


def plan_rec_concave(
    T: int,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    N: int | None = None,
    constants: str = "tuned",
    base_case_max: int = BASE_CASE_MAX,
) -> RecConcavePlan:
    """The depth and per-mechanism budgets RecConcave will use on ``[0, T]`` (public parameters only).

    Parameters
    ----------
    T : int
        The range is ``[0, T]`` (any Python int).
    alpha, beta : float
        Accuracy (``0 < alpha <= 1/2``) and failure probability the budgets are tuned for.
    epsilon, delta : float
        The *total* budget of the run.
    N : int or None
        Bound on the recursion depth. ``None``: ``log*(T)`` with ``constants="paper"`` (Remark
        3.16); with ``"tuned"``, the depth in ``1 .. levels(T)`` with the smallest tight
        required promise (``N = 1`` is the plain exponential mechanism).
    constants : {"tuned", "paper"}
        ``"paper"``: Thm 3.15's ``(eps/3N, delta/3N)`` per mechanism. ``"tuned"``: the whole budget
        split over the mechanisms that run so as to minimise the required promise (E15).
    base_case_max : int
        Ranges with at most this ``T`` go to the exponential mechanism (Fig. 5 uses 32). Lower it
        only to force recursion on small ranges in tests and audits: privacy holds for every
        value, the utility calculators account for it, but the paper's constants assume 32.
    """
    args = _check_common(T, alpha, beta, epsilon, delta, N, constants, base_case_max)
    return _plan_cached(*args)


def required_quality(
    T: int,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    N: int | None = None,
    mode: str = "tight",
    *,
    constants: str = "tuned",
    base_case_max: int = BASE_CASE_MAX,
) -> float:
    """The promise ``r`` RecConcave needs on ``[0, T]`` to fail with probability at most ``beta``.

    ``mode="stated"``: Thm 3.15 as printed, ``8^N (36N/(alpha eps)) (log2(6N/(beta delta)) +
    log2^(N)(T))`` (``N`` defaults to ``log*(T)``; needs ``delta > 0`` and ``N <= log*(T)``).

    ``mode="tight"``: the smallest promise meeting every inequality of the proof of Lemma 3.14
    for the mechanisms privpac runs, with the budgets of ``constants`` (module docstring). This
    is a proven sufficient promise (the proof's argument with exact constants), not a theorem
    statement of the paper.
    """
    check_choice(mode, "mode", MODES)
    if mode == "stated":
        T, alpha, beta, epsilon, delta, N, _, _ = _check_common(
            T, alpha, beta, epsilon, delta, N, constants, base_case_max
        )
        if delta <= 0.0:
            raise InvalidParameterError("Thm 3.15's bound needs delta > 0")
        n = max(1, log_star(T)) if N is None else N
        if T < 2 or n > max(1, log_star(T)):
            raise InvalidParameterError(
                f"Thm 3.15's bound needs 1 <= N <= log*(T) = {log_star(T)} (got N={n}, T={fmt_int(T)})"
            )
        return 8.0**n * (36.0 * n / (alpha * epsilon)) * (math.log2(6.0 * n / (beta * delta)) + iterated_log2(T, n))
    return plan_rec_concave(T, alpha, beta, epsilon, delta, N, constants, base_case_max).required_promise()
