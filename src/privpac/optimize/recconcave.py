"""RecConcave: private approximate maximisation of quasi-concave promise problems.

Beimel, Nissim, Stemmer, "Private Learning and Sanitization: Pure vs. Approximate Differential
Privacy", section 3.3, Fig. 5, Lemmas 3.12 and 3.14, Thm 3.15 (spec bns-pure-vs-approx, section 4).
The engine of the threshold learner of the same paper, of the interior-point plug-in of the
rectangle paper and of the coordinate-wise optimisers of both halfspace papers.

Problem
-------
A quality ``Q(S, i)`` over ``i`` in ``[0, T]`` with sensitivity 1 (one changed record moves every
``Q(S, i)`` by at most 1), a *public* promise ``r`` and an accuracy ``alpha <= 1/2``. When
``Q(S, .)`` is quasi-concave and ``max_i Q(S, i) >= r``, a good output is any ``i`` with
``Q(S, i) >= (1 - alpha) r``. Privacy holds for *every* ``S``: neither quasi-concavity nor the
promise is needed for it.

Algorithm (Fig. 5, with errata)
-------------------------------
1. If ``T <= 32`` or the depth bound ``N`` is 1: exponential mechanism over ``[0, T]``.
2. Pad to ``T'`` (the smallest power of two ``>= T``) with ``min(0, Q(T))``.
3. ``L(j)``: the best minimum of ``Q`` over a window of ``2^j`` consecutive points, ``j = 0..log T'``,
   and ``L(log T' + 1) = min(0, L(log T'))``.
4. ``q(j) = min(L(j) - (1 - alpha) r, r - L(j + 1))``.
5. ``R = alpha r / 2``.
6. ``k = RecConcave(q over [0, log T'], R, alpha = 1/4)``; ``K = 2^k``.
7. Two partitions of ``[0, T']`` into blocks of ``8K`` points, the second shifted by ``4K``.
8. ``u(I) = max of Q over block I``.
9. A_dist picks a block of each partition (or bottom).
10. Exponential mechanism over the points of the chosen blocks, restricted to ``[0, T]``.

* **E2** (Lemma 3.12 speaks of "Step 11"): the final exponential mechanism is step 10.
* **E3**: step 10 is restricted to ``[0, T]``; padded points are never returned. The blocks are
  outputs of private steps and ``T`` is public, so the restriction is post-processing.
* **E4**: when A_dist returns bottom for a partition, that partition contributes nothing; when
  both do (or neither chosen block meets ``[0, T]``), the step-10 mechanism runs over all of
  ``[0, T]`` instead. Either way each level runs at most three mechanisms.
* **E1** (A_dist's gap has sensitivity 2) is fixed centrally in :func:`privpac.mechanisms.adist`.

Privacy (Lemma 3.12, Thm 3.15)
------------------------------
``L``, ``q`` and ``u`` are maxima and minima of sensitivity-1 functions, hence sensitivity 1 for
*any* ``Q`` (Obs. 3.11), whichever neighbour relation makes ``Q`` sensitivity 1 (replacement, or
addition/removal of one record). Every level runs at most two A_dist calls and one exponential
mechanism; the base level one exponential mechanism. The number of levels,
``depth = levels(T, N)``, depends on public ``T`` and ``N`` only, so by basic (adaptive)
composition the run is private with the sum of the per-mechanism budgets. The promise ``r`` must
be public (a function of the public dataset size, say): it shapes ``q``.

**E15.** Thm 3.15 charges ``3N`` mechanisms of ``(eps/3N, delta/3N)``. Only
``3 depth - 2 <= 3N - 2`` run (``depth <= log* T``, usually 3 for ``T`` up to ``2^(2^32)``).
``constants="paper"`` keeps the theorem's per-mechanism budgets, so the ledger shows the smaller
true spend; ``constants="tuned"`` spends the whole budget over the mechanisms that actually run,
split to minimise the required promise (:func:`plan_rec_concave`).

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

Efficiency
----------
Only the top level touches ``[0, T]``; it costs ``O(k log k + log T)`` for a quality with ``k``
pieces (:class:`~privpac.stepfunc.StepFunction`), whatever ``T`` is (``2^65536`` included).
Deeper levels work on ``log T' + 1`` points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..accounting import PrivacyLedger
from ..domains import ImplicitOrderedDomain, IntegerDomain
from ..errors import InvalidParameterError
from ..formatting import fmt_int
from ..mechanisms.adist import adist, adist_release_gap
from ..mechanisms.exponential import exponential_mechanism_step
from ..progress import progress
from ..random import as_random_source
from ..stepfunc import StepFunction
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability, check_real

__all__ = [
    "BASE_CASE_MAX",
    "LevelPlan",
    "RecConcavePlan",
    "RecConcaveResult",
    "iterated_log2",
    "levels",
    "log_star",
    "log_star_from_log2",
    "plan_rec_concave",
    "rec_concave",
    "rec_concave_run",
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
    ``y`` is (checked in tests/test_recconcave.py). So the first step rounds ``l2`` up and the rest is
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


# ---------------------------------------------------------------------------------------------
# The algorithm
# ---------------------------------------------------------------------------------------------


@dataclass
class RecConcaveResult:
    """Output of :func:`rec_concave_run`.

    ``value`` is the chosen domain element, ``index`` its offset in ``[0, T]``; ``depth`` the number
    of levels that ran; ``trace`` one record per level (the recursive output ``k``, the blocks
    A_dist released): every entry is an output of a private mechanism, so releasing the trace is
    covered by the same (epsilon, delta) (adaptive composition).
    """

    value: object
    index: int
    depth: int
    plan: RecConcavePlan
    ledger: PrivacyLedger
    trace: list[dict] = field(default_factory=list)


def _as_quality(quality, domain) -> tuple[StepFunction, object]:
    """The quality as a step function over offsets ``[0, T]``, and a map offset -> domain element."""
    if isinstance(quality, StepFunction):
        f = quality
    elif isinstance(quality, Sequence | np.ndarray) and not isinstance(quality, str | bytes):
        try:
            arr = np.asarray(quality, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"quality must hold numbers: {exc}") from exc
        if arr.ndim != 1 or arr.size == 0:
            raise InvalidParameterError("quality must be a StepFunction or a non-empty 1-D sequence of numbers")
        if not np.all(np.isfinite(arr)):
            raise InvalidParameterError("quality values must be finite")
        f = StepFunction.from_values(arr)
    else:
        raise InvalidParameterError(f"quality must be a privpac StepFunction or a sequence, got {type(quality)!r}")
    vals = f.values.astype(np.float64)
    if not np.all(np.isfinite(vals)):
        raise InvalidParameterError("quality values must be finite")
    if domain is None:
        return f, int
    if isinstance(domain, tuple) and len(domain) == 2:
        domain = IntegerDomain(domain[0], domain[1])
    if isinstance(domain, IntegerDomain):
        if domain.max_index != f.T:
            raise InvalidParameterError(
                f"the quality covers [0, {fmt_int(f.T)}] but the domain has {fmt_int(domain.size)} points"
            )
        return f, domain.select
    if isinstance(domain, ImplicitOrderedDomain):
        if domain.max_index != f.T:
            raise InvalidParameterError(
                f"the quality covers ranks [0, {fmt_int(f.T)}] but the domain has {fmt_int(domain.size)} elements"
            )
        return f, domain.select
    raise InvalidParameterError(
        "domain must be None, (lo, hi), an IntegerDomain or an ImplicitOrderedDomain; got " + repr(domain)
    )


def _candidate_intervals(blocks: list[tuple[int, int]], T: int) -> list[tuple[int, int]]:
    """Released blocks intersected with ``[0, T]`` (E3), merged when they overlap or touch."""
    clipped = sorted((lo, min(hi, T)) for lo, hi in blocks if lo <= T)
    merged: list[tuple[int, int]] = []
    for lo, hi in clipped:
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


@dataclass(frozen=True)
class _LevelData:
    """The data-dependent (noise-free) part of one non-base level."""

    padded: StepFunction
    q: StepFunction  # the recursive quality over [0, log2 T']


def _level_data(Q: StepFunction, r: float, alpha: float) -> _LevelData:
    T = Q.T
    Tp = _next_pow2(T)
    padded = Q.pad(Tp, min(0.0, float(Q(T))))
    L = padded.window_min_profile().astype(np.float64)  # j = 0 .. log2 T'
    L_next = np.append(L[1:], min(0.0, float(L[-1])))
    q = np.minimum(L - (1.0 - alpha) * r, r - L_next)
    return _LevelData(padded, StepFunction.from_values(q))


def _blocks_for(padded: StepFunction, k: int) -> tuple[int, StepFunction | None, StepFunction | None]:
    K = 1 << int(k)
    width = 8 * K
    return width, padded.block_max(width, 0), padded.block_max(width, 4 * K)


def _run(Q, r, plan, i, ledger, src, trace, bar) -> int:
    lp = plan.levels[i]
    tag = f"RecConcave level {lp.level}/{plan.depth}"
    if lp.base:
        out = exponential_mechanism_step(
            Q, lp.epsilon_em, ledger=ledger, label=f"{tag}: exponential mechanism over [0, {fmt_int(Q.T)}]", rng=src
        )
        trace.append({"level": lp.level, "T": Q.T, "base": True, "output": out})
        bar.update()
        return out
    data = _level_data(Q, r, lp.alpha)
    k = _run(data.q, lp.alpha * r / 2.0, plan, i + 1, ledger, src, trace, bar)
    width, u_a, u_b = _blocks_for(data.padded, k)
    released = []
    # Ledger entries name public things only: the block width follows the private output k, so
    # it stays out of the labels, and both A_dist calls and the final choice are charged on every
    # path (an empty shifted family included), so the ledger does not show which path ran.
    for name, u, offset in (("A", u_a, 0), ("B", u_b, width // 2)):
        b = adist(
            u,
            lp.epsilon_adist,
            lp.delta_adist,
            ledger=ledger,
            label=f"{tag}: A_dist over the {name} blocks",
            rng=src,
        )
        if b is not None:
            released.append(data.padded.block_interval(b, width, offset))
    intervals = _candidate_intervals(released, Q.T)
    # E4: no block released, or none meets [0, T]: choose from all of [0, T]. Otherwise the points
    # outside the released blocks are masked (weight 0) in place, keeping Q's coordinates.
    out = exponential_mechanism_step(
        Q.keep_only(intervals) if intervals else Q,
        lp.epsilon_em,
        ledger=ledger,
        label=f"{tag}: exponential mechanism over the released blocks",
        over=f"the released blocks (all of [0, {fmt_int(Q.T)}] when none, E4)",
        rng=src,
    )
    trace.append({"level": lp.level, "T": Q.T, "base": False, "k": k, "blocks": released, "output": out})
    bar.update()
    return out


def rec_concave_run(
    quality,
    promise: float,
    alpha: float,
    epsilon: float,
    delta: float,
    *,
    beta: float = 0.1,
    N: int | None = None,
    constants: str = "tuned",
    domain=None,
    ledger: PrivacyLedger | None = None,
    rng=None,
    base_case_max: int = BASE_CASE_MAX,
    label: str = "RecConcave",
) -> RecConcaveResult:
    """RecConcave with its plan, ledger and per-level trace (see :func:`rec_concave`)."""
    f, to_value = _as_quality(quality, domain)
    promise = check_real(promise, "promise")
    plan = plan_rec_concave(f.T, alpha, beta, epsilon, delta, N, constants, base_case_max)
    eps_max, delta_max = plan.max_spend
    if ledger is None:
        ledger = PrivacyLedger(plan.epsilon, plan.delta, label=label)
    book = ledger.sub_ledger(f"{label} (depth {plan.depth})", eps_max, delta_max)
    src = as_random_source(rng)
    trace: list[dict] = []
    with progress(total=plan.depth, desc=label, unit="level") as bar:
        index = _run(f, promise, plan, 0, book, src, trace, bar)
    trace.reverse()  # top level first
    return RecConcaveResult(to_value(index), int(index), plan.depth, plan, ledger, trace)


def rec_concave(
    quality,
    promise: float,
    alpha: float,
    epsilon: float,
    delta: float,
    *,
    beta: float = 0.1,
    N: int | None = None,
    constants: str = "tuned",
    domain=None,
    ledger: PrivacyLedger | None = None,
    rng=None,
    base_case_max: int = BASE_CASE_MAX,
    label: str = "RecConcave",
):
    """Privately find a point of high quality under a quasi-concave promise (Fig. 5).

    Parameters
    ----------
    quality : StepFunction or sequence of float
        ``Q(S, i)`` for ``i`` in ``[0, T]``: sensitivity 1 under the neighbour relation the caller
        claims privacy for (the caller builds it from the data and vouches for this). For a
        domain ``[lo, hi]`` give it over offsets ``i = x - lo``; for an
        :class:`~privpac.domains.ImplicitOrderedDomain` over ranks.
    promise : float
        The promise ``r`` (public: never computed from the data). Utility needs a quasi-concave
        ``Q`` with ``max Q >= r >= required_quality(...)``; privacy needs nothing.
    alpha : float
        Accuracy, ``0 < alpha <= 1/2``: a good output has ``Q >= (1 - alpha) r``.
    epsilon, delta : float
        The **total** budget of the run; it is split internally (``delta > 0`` whenever the run
        recurses). The run is (epsilon, delta)-DP.
    beta : float
        Failure probability the tuned budget split is optimised for (no effect on privacy).
    N : int or None
        Recursion-depth bound; see :func:`plan_rec_concave`.
    constants : {"tuned", "paper"}
        Budget split: tuned (default) or Thm 3.15's.
    domain : None, (lo, hi), IntegerDomain or ImplicitOrderedDomain
        Where the answer lives: ``None`` returns the offset ``i``; an integer domain returns
        ``lo + i``; an implicit domain returns ``domain.select(i)``.
    ledger : PrivacyLedger, optional
        Charged (through a sub-ledger) before any noise is drawn.
    rng : None, int or RandomSource
        ``None`` is secure randomness.
    base_case_max : int
        Test-only knob (Fig. 5 uses 32); see :func:`plan_rec_concave`.

    Returns
    -------
    The chosen element. :func:`rec_concave_run` also returns the plan, depth, ledger and trace.

    Privacy: (epsilon, delta)-DP for every input (Lemma 3.12 with the accounting of E15).
    Utility: with probability ``1 - beta`` the output has ``Q >= (1 - alpha) r`` when ``Q`` is
    quasi-concave and ``max Q >= r >= required_quality(T, alpha, beta, epsilon, delta, N)``
    (Lemma 3.14's proof). The later halfspace papers restate Thm 3.15 as
    ``r >= 8^(log* T) (12 log* T/(alpha eps)) log2(192 (log* T)^2/(beta delta))``; use
    :func:`required_quality` for the library's own numbers.
    """
    return rec_concave_run(
        quality,
        promise,
        alpha,
        epsilon,
        delta,
        beta=beta,
        N=N,
        constants=constants,
        domain=domain,
        ledger=ledger,
        rng=rng,
        base_case_max=base_case_max,
        label=label,
    ).value
