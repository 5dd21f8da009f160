"""Sample sizes of Kaplan, Mansour, Stemmer, Tsfadia (private halfspaces via linear feasibility).

Kaplan, Mansour, Stemmer, Tsfadia, "Private learning of halfspaces: simplifying the construction and
reducing the sample complexity" (NeurIPS 2020); spec ``kmst-halfspaces`` sections 3.3, 3.6, 3.7,
5 and 7. The paper states its theorems only up to ``O(.)``; the explicit numbers here are the
spec's section 5.1 calculator, which chains the paper's own ingredients with their constants:

* RecConcave's promise as KMST restate it (Prop 2.12), natural logarithm (the paper's ``log`` has
  no base; spec section 0)::

      r_min = 8^L * 12 L / (alpha~ eps~) * ln(192 L^2 / (beta~ delta~)),   L = log*(|X~|)

* OptimizeHighDimFunc's split (Thm 3.7): ``alpha~ = alpha / (2 D (D + 1))`` (``Delta = D + 1``,
  Claim 4.1), ``beta~ = beta / D`` and either advanced composition (the paper's:
  ``eps~ = eps / (2 sqrt(2 D ln(2/delta)))``, ``delta~ = delta / (2D)``) or basic composition
  (``eps / D``, ``delta / D``; spec 3.7 item 2, equally private);
* the smallest promise ``r_D = (1 - alpha~)^(D-1) m`` must clear ``r_min``:
  ``m_min = r_min / (1 - alpha~)^(D-1)``;
* ``|X~|`` is Def 4.4's largest domain (``i = D``):
  ``(2 (D D!)^D X^(D^2) + 1) (2 D! X^D)`` on the grid ``[[-X, X]]``.

The grid is given as ``domain_size = |G|``, the number of values per coordinate, and
``X = |G| // 2`` (the spec's table: ``|G| = 2^8`` is ``X = 2^7``).

Learners (spec 5.1): ERM (Thm 5.1) is FindDeepPoint with ``D = d + 1`` at ``alpha / 2``. The paper's
PAC learner (Thm 5.2) runs it at ``alpha / 40``, ``beta / 4`` on the noisy grid ``X_noisy`` (whose
size depends on the sample size, so the value is a fixed point) and also needs Thm 2.8 at
``(alpha / 2, beta / 2)``. The margin-1 PAC learner (spec 3.7 item 1) runs it at ``alpha / 10``,
``beta / 2`` on the original grid, plus Thm 2.8 at ``(alpha, beta / 2)``.

Also here: the exponential-mechanism swap of spec 3.7 item 6 and 5.3 (pure DP, basic composition)
and the lower bounds the paper cites (section 7: order only, no constants).
"""

from __future__ import annotations

import math

from ..errors import InvalidParameterError
from ..learners.generalization import kmst_blumer_sample_size
from ..optimize.recconcave_plan import log_star, log_star_from_log2
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability, renamed_attribute
from .registry import Bound, register_bound

__all__ = [
    "def44_domain_log2",
    "find_deep_point_exponential_sample_size",
    "find_deep_point_sample_size",
    "kmst_erm_sample_size",
    "kmst_lower_bounds",
    "kmst_pac_sample_size",
    "kmst_rec_concave_promise",
]

_REF = "Kaplan, Mansour, Stemmer, Tsfadia 2020"
COMPOSITIONS = ("advanced", "basic")


def _grid_X(domain_size) -> int:
    G = check_int(domain_size, "domain_size", low=2)
    return G // 2


def def44_domain_log2(D: int, log2_X: float, i: int | None = None) -> float:
    """``log2 |X~_i|`` of Def 4.4 (spec 3.2) on the grid ``[[-X, X]]``; ``i`` defaults to ``D``.

    ``|X~_i| <= (2 (D D!)^i X^(D i) + 1) (2 D! X^D)``. Computed in floats from ``log2 X`` so that
    the PAC learner's noisy grid (millions of bits) is handled; the ``+ 1`` is dropped (it moves
    the result by less than ``2^-30`` for every grid here).
    """
    D = check_int(D, "D", low=1)
    i = D if i is None else check_int(i, "i", low=1, high=D)
    lf = math.lgamma(D + 1) / math.log(2.0)  # log2 D!
    return 1.0 + i * (math.log2(D) + lf) + D * i * log2_X + 1.0 + lf + D * log2_X


def kmst_rec_concave_promise(log2_domain: float, alpha: float, beta: float, epsilon: float, delta: float) -> float:
    """Prop 2.12 as KMST state it: ``8^L 12 L/(alpha eps) ln(192 L^2/(beta delta))``, ``L = log*|X~|``."""
    L = max(1, log_star_from_log2(log2_domain))
    return 8.0**L * 12.0 * L / (alpha * epsilon) * math.log(192.0 * L * L / (beta * delta))


def _per_call(D: int, alpha: float, beta: float, epsilon: float, delta: float, composition: str):
    alpha_t = alpha / (2.0 * D * (D + 1))
    beta_t = beta / D
    if composition == "advanced":
        eps_t = epsilon / (2.0 * math.sqrt(2.0 * D * math.log(2.0 / delta)))
        delta_t = delta / (2.0 * D)
    else:
        eps_t, delta_t = epsilon / D, delta / D
    return alpha_t, beta_t, eps_t, delta_t


def _fdp(D, log2_X, alpha, beta, epsilon, delta, composition) -> dict:
    alpha_t, beta_t, eps_t, delta_t = _per_call(D, alpha, beta, epsilon, delta, composition)
    bits = def44_domain_log2(D, log2_X)
    r_min = kmst_rec_concave_promise(bits, alpha_t, beta_t, eps_t, delta_t)
    return {
        "m_min": r_min / (1.0 - alpha_t) ** (D - 1),
        "r_min": r_min,
        "log_star_domain": log_star_from_log2(bits),
        "domain_bits": bits,
        "alpha_per_call": alpha_t,
        "beta_per_call": beta_t,
        "epsilon_per_call": eps_t,
        "delta_per_call": delta_t,
    }


def _check(alpha, beta, epsilon, delta, composition):
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    if delta >= 0.5:
        raise InvalidParameterError(f"delta must be in (0, 1/2) (Thm 3.7), got {delta}")
    check_choice(composition, "composition", COMPOSITIONS)
    return alpha, beta, epsilon, delta


def find_deep_point_sample_size(
    dimension: int, domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, composition="advanced"
) -> dict:
    """FindDeepPoint (Thm 4.6) in dimension ``D = dimension``: spec 5.1's ``m_min`` and its parts."""
    alpha, beta, epsilon, delta = _check(alpha, beta, epsilon, delta, composition)
    D = check_int(dimension, "dimension", low=1)
    return _fdp(D, math.log2(_grid_X(domain_size)), alpha, beta, epsilon, delta, composition)


def kmst_erm_sample_size(
    dimension: int, domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, composition="advanced"
) -> dict:
    """LearnHalfSpace (Thm 5.1): FindDeepPoint with ``D = d + 1`` at ``alpha / 2`` (paper's dual).

    The margin-1 dual (spec 3.7 item 1) needs only ``alpha``: reported as ``margin-1 m_min``.
    """
    alpha, beta, epsilon, delta = _check(alpha, beta, epsilon, delta, composition)
    d = check_int(dimension, "dimension", low=1)
    log2_X = math.log2(_grid_X(domain_size))
    out = _fdp(d + 1, log2_X, alpha / 2.0, beta, epsilon, delta, composition)
    out["margin-1 m_min"] = _fdp(d + 1, log2_X, alpha, beta, epsilon, delta, composition)["m_min"]
    return out


def _noisy_grid_log2(d: int, log2_X: float, s: float, beta: float) -> float:
    """``log2 X_noisy`` of the PAC learner (spec 3.6, corrected ``Delta_n = ceil(2 d s^d / beta)``).

    ``X' = 2 d^2 (d!)^(d^3) X^(d^6)`` (Lemma B.5), ``Delta' = 2 Delta_n X' ceil(sqrt d)``,
    ``X_noisy = Delta' X + Delta_n``. Only ``log*`` of the domain uses it, so floats suffice.
    """
    lf = math.lgamma(d + 1) / math.log(2.0)
    log2_Xp = 1.0 + 2.0 * math.log2(d) + d**3 * lf + d**6 * log2_X
    log2_dn = math.log2(2.0 * d / beta) + d * math.log2(s)
    log2_dp = 1.0 + log2_dn + log2_Xp + math.log2(math.isqrt(d - 1) + 1)
    return log2_dp + log2_X + math.log2(1.0 + 2.0 ** (log2_dn - log2_dp - log2_X))


def kmst_pac_sample_size(
    dimension: int, domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, composition="advanced"
) -> dict:
    """PAC learners: the paper's (Thm 5.2, noisy grid) and the margin-1 one (spec 3.7 item 1).

    Paper: ``max(FindDeepPoint(D = d + 1, alpha/40, beta/4) on X_noisy, Thm 2.8 at (alpha/2,
    beta/2))``; ``X_noisy`` grows with the sample size ``s``, so ``s`` is iterated until ``log*``
    of the domain is stable. Margin-1: ``max(FindDeepPoint(d + 1, alpha/10, beta/2) on X,
    Thm 2.8 at (alpha, beta/2))``. VC dimension ``d + 1``. Both use ``composition``; the spec's
    table (5.2) shows the paper's learner with advanced and the margin-1 learner with basic
    composition.
    """
    alpha, beta, epsilon, delta = _check(alpha, beta, epsilon, delta, composition)
    d = check_int(dimension, "dimension", low=1)
    log2_X = math.log2(_grid_X(domain_size))
    vc = d + 1
    uc_paper = kmst_blumer_sample_size(alpha / 2.0, beta / 2.0, vc)
    s = uc_paper
    fdp: dict = {}
    for _ in range(20):
        log2_noisy = _noisy_grid_log2(d, log2_X, s, beta)
        fdp = _fdp(d + 1, log2_noisy, alpha / 40.0, beta / 4.0, epsilon, delta, composition)
        new = max(fdp["m_min"], uc_paper)
        if new == s:
            break
        s = new
    margin = _fdp(d + 1, log2_X, alpha / 10.0, beta / 2.0, epsilon, delta, composition)
    uc_margin = kmst_blumer_sample_size(alpha, beta / 2.0, vc)
    return {
        "paper s_min": s,
        "paper log_star_domain": fdp["log_star_domain"],
        "paper noisy grid bits": log2_noisy,
        "paper uniform convergence": uc_paper,
        "margin-1 s_min": max(margin["m_min"], uc_margin),
        "margin-1 log_star_domain": margin["log_star_domain"],
        "margin-1 uniform convergence": uc_margin,
        "non-private reference (Thm 2.8 at alpha, beta)": kmst_blumer_sample_size(alpha, beta, vc),
    }


def _tower(n: int) -> float:
    """``T(0) = 1``, ``T(n) = 2^T(n-1)`` (``inf`` beyond floats): ``log*(N) = L`` iff ``T(L-1) < N <= T(L)``."""
    t = 1.0
    for _ in range(n):
        t = math.inf if t > 1023 else 2.0**t
    return t


def find_deep_point_exponential_sample_size(
    dimension: int, domain_size: int, alpha: float, beta: float, epsilon: float, delta: float = 1e-6
) -> dict:
    """Spec 3.7 item 6 and 5.3: FindDeepPoint with the exponential mechanism as 1-D optimiser
    (``optimizer="exponential"``; the bound ``kmst-find-deep-point-exponential``).

    Pure ``epsilon``-DP, basic composition (``eps~ = eps / D``), ``Delta = D + 1``, Def 4.4's
    domain at ``i = D``: each call needs ``r >= 2 (ln|X~| + ln(1/beta~)) / (alpha~ eps~)`` (the
    exponential mechanism's tail: every point of quality below ``(1 - alpha~) r`` together has
    probability at most ``|X~| exp(-eps~ alpha~ r / 2)``), and ``m = r / (1 - alpha~)^(D-1)``.

    ``delta`` is used only for the comparison with RecConcave at the same per-call budget
    (``delta / D``): ``RecConcave / exponential`` is the ratio of the two ``m``; ``crossover bits`` is
    the smallest ``log2 |X~|`` at which RecConcave's requirement is below the exponential
    mechanism's (same ``alpha~, beta~, eps~``).
    """
    alpha, beta, epsilon, delta = _check(alpha, beta, epsilon, delta, "basic")
    D = check_int(dimension, "dimension", low=1)
    alpha_t, beta_t, eps_t, delta_t = _per_call(D, alpha, beta, epsilon, delta, "basic")
    bits = def44_domain_log2(D, math.log2(_grid_X(domain_size)))
    ln_dom = bits * math.log(2.0)
    r = 2.0 * (ln_dom + math.log(1.0 / beta_t)) / (alpha_t * eps_t)
    m = r / (1.0 - alpha_t) ** (D - 1)
    rc = kmst_rec_concave_promise(bits, alpha_t, beta_t, eps_t, delta_t) / (1.0 - alpha_t) ** (D - 1)
    crossover = None
    for L in range(1, 12):
        # RecConcave <= exponential  <=>  8^L 12 L ln(192 L^2/(beta~ delta~)) <= 2 (ln N + ln(1/beta~))
        need_ln = 8.0**L * 12.0 * L * math.log(192.0 * L * L / (beta_t * delta_t)) / 2.0 - math.log(1.0 / beta_t)
        lo, hi = _tower(L - 2) if L >= 2 else 0.0, _tower(L - 1)  # log2 N range where log* N = L
        need_bits = max(need_ln / math.log(2.0), lo)
        if need_bits <= hi:
            crossover = need_bits
            break
    return {
        "m": m,
        "r_per_call": r,
        "domain_bits": bits,
        "RecConcave m (same split)": rc,
        "RecConcave / exponential": rc / m,
        "crossover bits": crossover,
    }


def kmst_lower_bounds(dimension: int, domain_size: int) -> dict:
    """Section 7: the lower bounds the paper cites, order terms only (no constants are given).

    ``X = |G| // 2``; ``log`` is base 2. Pure DP (Feldman, Xiao 2015): ``d^2 log X`` (tight,
    Kasiviswanathan et al.). Approximate DP, ``d = 1`` (Bun, Nissim, Stemmer, Vadhan 2015;
    Alon, Livni, Malliaris, Moran 2019): ``log* X``. ``d`` dimensions (Bun et al. 2015, cited in
    the open questions): ``d log* X`` for proper and ``d + log* X`` for improper learners.
    Non-private: ``VC = d + 1``.
    """
    d = check_int(dimension, "dimension", low=1)
    X = _grid_X(domain_size)
    log2_X = math.log2(X) if X > 1 else 0.0
    ls = float(log_star(X))
    terms = {
        "pure DP: d^2 log X (Feldman-Xiao)": d * d * log2_X,
        "approximate DP, d = 1: log* X": ls,
        "approximate DP, proper: d log* X": d * ls,
        "approximate DP, improper: d + log* X": d + ls,
        "non-private: VC = d + 1": float(d + 1),
    }
    return {f"{k} (order only, constant unspecified)": v for k, v in terms.items()}


register_bound(
    Bound(
        "kmst-find-deep-point",
        "private linear feasibility FindDeepPoint in dimension D = --dimension on [[+-|G|/2]] "
        "(spec 5.1 calculator; --set composition=basic)",
        f"{_REF}, Thm 4.6 with Prop 2.12 and Thm 3.7 (spec kmst-halfspaces 5.1)",
        "upper",
        find_deep_point_sample_size,
    )
)
register_bound(
    Bound(
        "kmst-erm",
        "private ERM LearnHalfSpace for d = --dimension (FindDeepPoint, D = d + 1, alpha/2; margin-1: alpha)",
        f"{_REF}, Thm 5.1 (spec kmst-halfspaces 5.1, 3.7 item 1)",
        "upper",
        kmst_erm_sample_size,
    )
)
register_bound(
    Bound(
        "kmst-pac",
        "private PAC learner of halfspaces: the paper's (noisy grid, alpha/40) and margin-1 (alpha/10)",
        f"{_REF}, Thm 5.2 / B.7 (spec kmst-halfspaces 3.6, 3.7 item 1, 5.1)",
        "upper",
        kmst_pac_sample_size,
    )
)
register_bound(
    Bound(
        "kmst-find-deep-point-exponential",
        "FindDeepPoint with the exponential mechanism as 1-D optimiser (optimizer=exponential: pure DP, "
        "basic composition; a baseline, not the paper)",
        f"{_REF}, Fig. 1 framework (spec kmst-halfspaces 3.7 item 6, 5.3)",
        "upper",
        find_deep_point_exponential_sample_size,
    ),
    former_names=("kmst-expmech",),
)
register_bound(
    Bound(
        "kmst-lower",
        "cited lower bounds for halfspaces on a grid: pure DP d^2 log X, approximate DP log* X, "
        "d log* X (proper), d + log* X (improper)",
        f"{_REF}, section 1 and Open Questions (Feldman, Xiao 2015; Bun et al. 2015; Alon et al. 2019)",
        "lower",
        kmst_lower_bounds,
    )
)


#: Names this module no longer defines, and what replaced them: importing one raises ImportError naming the new one.
_RENAMED = {"expmech_swap_sample_size": "find_deep_point_exponential_sample_size"}


def __getattr__(name: str):
    return renamed_attribute(__name__, name, _RENAMED)
