"""Sample sizes of the large-margin halfspace learners (Nguyen, Ullman, Zakynthinou 2020) and the pure-DP lower bound.

Upper bounds (spec 5.1; the paper states only O~(1/(alpha epsilon gamma^2)))
-----------------------------------------------------------------------------
"stated" is the headline rate ``1 / (alpha epsilon gamma^2)`` with every polylog dropped (what
Thms 2 and 4 say up to polylogs; not a sufficient size). "explicit" is the smallest ``n`` meeting
every inequality of the proof with the paper's constants and standard constants for the cited
lemmas (spec 5.1):

* projection: ``m = m_paper(gamma, alpha beta^2 / (64 n))`` (Achlioptas, distortion gamma/100);
* generalisation (Anthony-Bartlett Thm 5.7, VC dimension m + 1):
  ``ln 4 + (m + 1) ln(2n) - alpha n / 32 <= ln(beta / 4)``;
* pure learner (Thm 4), exponential mechanism over the (1 + 20/gamma)^m net:
  ``(2 / (n epsilon)) (m ln(1 + 20/gamma) + ln(4/beta)) <= alpha / 4``;
* approximate learner (Thm 2), Shamir-Zhang last iterate of BST14's SGD, Markov, and the
  selection: ``[16 L (1 + ln n) sqrt(1 + 32 m ln(n/delta') ln(1/delta') / epsilon'^2)
  + (2 Delta / epsilon_EM) ln(8k / beta)] / n <= alpha / 4`` with the corrected split
  ``epsilon_GD = epsilon_EM = epsilon/2``, ``epsilon' = epsilon_GD / k``, ``delta' = delta / k``,
  ``k = ceil(log2(8/beta))``.

At gamma = 0.3, epsilon = 1, alpha = beta = 0.1 these give about 6e11 (approximate) and 1.4e11
(pure): the constants, not the algorithms, make them huge (spec 5.2).

Lower bound (Thm 6) with corrected constants
--------------------------------------------
Any (epsilon, 0)-DP (alpha, beta, gamma)-learner of halfspaces needs ``n >= ln((K-1)(1-beta)/beta) / epsilon``
when there are ``K`` margin-gamma distributions no classifier can learn two of at once (packing
and group privacy over ``n`` replaced records). The paper takes ``d = 1/(1000 gamma^2)``,
``K = 2^(d/20)`` codewords at Hamming distance ``d/10`` and claims disjointness (Claim 6.1), but
its proof swaps agreement and disagreement: two halfspaces at inner product 4/5 *disagree* on a
fraction ``acos(0.8)/pi = 0.205`` of the sphere, so one classifier can be 0.1-good for both
(erratum E-NUZ2). privpac's "corrected" value redoes the argument: with ``p(d)`` the exact
uniform-sphere mass of the band ``|<w, x>| < gamma`` (a regularised incomplete beta function),
the good sets of two codewords at angle ``theta`` are disjoint when ``theta / pi > 2 alpha + 2 p(d)``
(triangle inequality for the disagreement metric, and ``err_U <= err_D + p``); the codewords
(``{+-1/sqrt(d)}^d``, Hamming distance ``t``, inner product ``<= 1 - 2t/d``) come from the
Gilbert-Varshamov bound ``K >= 2^d / V(d, t - 1)``. The value is maximised over ``d`` (at most the
given ``dimension``) and ``t``. The paper's own formula is reported as "stated" (``None`` when its
``d < 20`` makes ``K < 2``); it is vacuous at margins above 0.007.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import betainc, gammaln

from ..learners.dp_erm import MarginHingeLoss, boosting_rounds
from ..learners.jl_projection import paper_projection_dim
from ..validation import check_delta, check_epsilon, check_int, check_probability, check_real
from .registry import Bound, register_bound
from .search import smallest_feasible

__all__ = [
    "margin_approx_sample_size",
    "margin_pure_sample_size",
    "margin_pure_lower_bound",
    "band_mass",
]


def _gen_ok(n: int, m: int, alpha: float, beta: float) -> bool:
    return math.log(4.0) + (m + 1) * math.log(2.0 * n) - alpha * n / 32.0 <= math.log(beta / 4.0)


def _explicit_size(epsilon: float, alpha: float, beta: float, gamma: float, fits) -> dict:
    """The headline rate and the smallest ``n`` at which the learner's bound ``fits(n, m)`` holds
    together with the generalisation bound, ``m`` the paper's projection dimension at ``n``."""

    def ok(n: int) -> bool:
        m = paper_projection_dim(gamma, alpha, beta, n)
        return _gen_ok(n, m, alpha, beta) and fits(n, m)

    n = smallest_feasible(ok)
    return {
        "stated": 1.0 / (alpha * epsilon * gamma**2),
        "explicit": n,
        "projection_dim_at_explicit": paper_projection_dim(gamma, alpha, beta, n),
    }


def margin_pure_sample_size(epsilon: float, alpha: float, beta: float, margin: float) -> dict:
    """Theorem 4 (pure learner): headline rate and the explicit n of spec 5.1."""
    epsilon = check_epsilon(epsilon)
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    gamma = check_real(margin, "margin", low=0.0, low_open=True, high=1.0)

    def fits(n: int, m: int) -> bool:
        em = (2.0 / (n * epsilon)) * (m * math.log(1.0 + 20.0 / gamma) + math.log(4.0 / beta))
        return em <= alpha / 4.0

    return _explicit_size(epsilon, alpha, beta, gamma, fits)


def margin_approx_sample_size(epsilon: float, delta: float, alpha: float, beta: float, margin: float) -> dict:
    """Theorem 2 (approximate learner, corrected budget split): headline rate and the explicit n of spec 5.1."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    gamma = check_real(margin, "margin", low=0.0, low_open=True, high=1.0)
    loss = MarginHingeLoss(gamma)
    k = boosting_rounds(beta)
    eps_run, eps_em, delta_run = epsilon / 2.0 / k, epsilon / 2.0, delta / k

    def fits(n: int, m: int) -> bool:
        noise = 32.0 * m * math.log(max(n / delta_run, 1.0)) * math.log(1.0 / delta_run) / eps_run**2
        sgd = 16.0 * loss.lipschitz * (1.0 + math.log(n)) * math.sqrt(1.0 + noise)
        select = (2.0 * loss.value_range / eps_em) * math.log(8.0 * k / beta)
        return (sgd + select) / n <= alpha / 4.0

    return {**_explicit_size(epsilon, alpha, beta, gamma, fits), "boosting_rounds": k}


def band_mass(d, margin: float) -> np.ndarray:
    """``Pr[|<w, x>| < gamma]`` for ``x`` uniform on the unit sphere of ``R^d`` (exact; d = 1 gives 0)."""
    d = np.atleast_1d(np.asarray(d, dtype=np.float64))
    gamma = check_real(margin, "margin", low=0.0, low_open=True, high=1.0)
    out = np.zeros_like(d)
    big = d > 1
    # <w, x>^2 ~ Beta(1/2, (d - 1)/2) on the sphere.
    out[big] = betainc(0.5, (d[big] - 1.0) / 2.0, gamma * gamma)
    return out


def _log_hamming_ball(d: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``ln sum_{i <= r} C(d, i)`` for arrays ``d`` and ``0 <= r <= d`` (no underflow).

    The sum is ``C(d, r) (1 + r/(d-r+1) + ...)``; the ratios of successive terms are summed until
    they no longer change the total (or computed from the symmetric side when ``r >= d/2``).
    """
    d = np.asarray(d, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    out = np.empty_like(d)
    half = r >= d / 2.0
    # sum_{i <= r} C(d, i) = 2^d - sum_{i <= d - r - 1} C(d, i)
    ln2d = d[half] * math.log(2.0)
    out[half] = ln2d + np.log1p(-np.exp(_log_tail(d[half], d[half] - r[half] - 1.0) - ln2d))
    lo = ~half
    out[lo] = _log_tail(d[lo], r[lo])
    return out


def _log_tail(d: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``ln sum_{i <= r} C(d, i)`` for ``r < d/2`` (``-inf`` where ``r < 0``)."""
    out = np.full_like(d, -np.inf)
    ok = r >= 0
    d, r = d[ok], r[ok]
    log_top = gammaln(d + 1.0) - gammaln(r + 1.0) - gammaln(d - r + 1.0)
    total = np.ones_like(d)
    term = np.ones_like(d)
    for j in range(1, 100_000):
        factor = np.where(r - j + 1.0 > 0, (r - j + 1.0) / (d - r + j), 0.0)
        term = term * factor
        total += term
        if np.all(term <= 1e-17 * total):
            break
    out[ok] = log_top + np.log(total)
    return out


def margin_pure_lower_bound(
    epsilon: float, margin: float, alpha: float = 0.1, beta: float = 0.1, dimension: int | None = None
) -> dict:
    """Theorem 6: samples every (epsilon, 0)-DP (alpha, beta, gamma)-learner needs (paper's and corrected constants)."""
    epsilon = check_epsilon(epsilon)
    gamma = check_real(margin, "margin", low=0.0, low_open=True, high=1.0)
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    # The paper's constants (its Claim 6.1 does not hold with them; kept for reference).
    d_paper = 1.0 / (1000.0 * gamma * gamma)
    stated = None
    if d_paper >= 20.0:
        log_k = (d_paper / 20.0) * math.log(2.0)
        stated = (math.log(9.0) + log_k + math.log1p(-math.exp(-log_k))) / epsilon
    # Corrected: scan the dimension, pick the smallest admissible code distance t, Gilbert-Varshamov.
    cap = 200_000 if dimension is None else check_int(dimension, "dimension", low=1)
    dims = np.arange(1, cap + 1, dtype=np.float64)
    need = 2.0 * alpha + 2.0 * band_mass(dims, gamma)  # theta / pi must exceed this
    ok = need < 1.0
    best = (0.0, 0, 0)  # (log2 K, d, t)
    if np.any(ok):
        dims, need = dims[ok], need[ok]
        # smallest integer t with acos(1 - 2t/d) / pi > need  <=>  t > d (1 - cos(pi need)) / 2
        t = np.floor(dims * (1.0 - np.cos(np.pi * need)) / 2.0) + 1.0
        valid = t <= dims
        dims, t = dims[valid], t[valid]
        log2_k = (dims * math.log(2.0) - _log_hamming_ball(dims, t - 1.0)) / math.log(2.0)  # 2^d / V(d, t-1)
        if log2_k.size:
            i = int(np.argmax(log2_k))
            best = (float(log2_k[i]), int(dims[i]), int(t[i]))
    log2_k, d_best, t_best = best
    corrected = 0.0
    if log2_k >= 1.0:
        k_codes = math.floor(2.0 ** min(log2_k, 1000.0)) if log2_k < 1000 else None
        log_km1 = math.log(k_codes - 1) if k_codes is not None else log2_k * math.log(2.0)
        corrected = max(0.0, (log_km1 + math.log((1.0 - beta) / beta)) / epsilon)
    return {
        "stated": stated,
        "corrected": corrected,
        "corrected_dimension": d_best,
        "corrected_code_distance": t_best,
        "corrected_log2_codewords": log2_k,
    }


register_bound(
    Bound(
        "margin-approx",
        "large-margin halfspaces, (epsilon, delta)-DP learner (JL + BST14 SGD + charged selection)",
        "Nguyen, Ullman, Zakynthinou 2020, Thm 2 (explicit constants: spec 5.1)",
        "upper",
        lambda epsilon, delta, alpha, beta, margin: margin_approx_sample_size(epsilon, delta, alpha, beta, margin),
    )
)
register_bound(
    Bound(
        "margin-pure",
        "large-margin halfspaces, (epsilon, 0)-DP learner (JL + exponential mechanism over a net)",
        "Nguyen, Ullman, Zakynthinou 2020, Thm 4 (explicit constants: spec 5.1)",
        "upper",
        lambda epsilon, alpha, beta, margin: margin_pure_sample_size(epsilon, alpha, beta, margin),
    )
)
register_bound(
    Bound(
        "margin-pure-lower",
        "every (epsilon, 0)-DP learner of margin-gamma halfspaces (packing; corrected constants)",
        "Nguyen, Ullman, Zakynthinou 2020, Thm 6 (Claim 6.1 corrected, docs/errata.md)",
        "lower",
        lambda epsilon, margin, alpha=0.1, beta=0.1, dimension=None: margin_pure_lower_bound(
            epsilon, margin, alpha, beta, dimension
        ),
    )
)
