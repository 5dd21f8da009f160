"""Sample-size bounds of Beimel, Nissim, Stemmer, "Private Learning and Sanitization: Pure vs.
Approximate Differential Privacy" (spec bns-pure-vs-approx, sections 4 to 10 and Appendix A).

For every theorem: the bound as the paper states it ("stated") and the smallest size meeting every
inequality its proof uses ("tight", natural-log tails, exact accounting; sufficient by the proof,
not a theorem of the paper). Where privpac's implementation differs from the paper's reading
(the corrected A_dist with discrete noise, the tuned budget split) the size that implementation
needs is reported as "library". Lower bounds are the explicit forms of their proofs; results the
paper only cites or states asymptotically are reported with their order term and no constant.

"tight" values follow the spec's Appendix A (literal A_dist utility condition
``gap >= ln(1/(beta delta))/eps``, Thm 3.15's split ``eps/3N``, ``delta/3N``, ``beta/2N``, full
epsilon at ``N = 1``), so that the spec's consolidated table (section 10) is reproduced by
``tests/papers/bns_pure_vs_approx/test_bounds_bns.py``. Every function here is plain (keyword arguments,
floats in, dicts or floats out) and is also registered with :func:`~privpac.bounds.register_bound` for
``privpac bounds NAME``.

Conventions: ``domain_size`` is ``|X| = 2^d`` (a Python int), ``d = log2 |X|``; ``epsilon, delta``
the total budget; ``alpha`` the accuracy and ``beta`` the failure probability; ``log`` base 2 where
the paper writes it (E12), ``ln`` for tail inversions.
"""

from __future__ import annotations

import math

from ..errors import InvalidParameterError
from ..optimize.recconcave_plan import log_star
from ..validation import check_delta, check_epsilon, check_int, check_probability
from .generalization import dkw_threshold_sample_size, uniform_convergence_sample_size
from .registry import Bound, register_bound

__all__ = [
    "appendix_rec_concave_promise",
    "blr_lower_bound",
    "em_learner_sample_size",
    "k_point_sanitizer_sizes",
    "label_private_sizes",
    "learn_thresholds_library",
    "learn_thresholds_stated",
    "learn_thresholds_tight",
    "log2_domain",
    "point_learner_lower_bound",
    "point_learner_sizes",
    "rec_concave_promises",
    "reduction_blowup",
    "san_points_parameters",
    "san_points_sizes",
    "san_thresholds_calibration",
    "san_thresholds_sizes",
    "sanitizer_lower_bound",
]

ln, log2 = math.log, math.log2


def _common(alpha=None, beta=None, epsilon=None, delta=None, *, delta_zero=False):
    out = []
    if alpha is not None:
        out.append(check_probability(alpha, "alpha"))
    if beta is not None:
        out.append(check_probability(beta, "beta"))
    if epsilon is not None:
        out.append(check_epsilon(epsilon))
    if delta is not None:
        out.append(check_delta(delta, allow_zero=delta_zero))
    return out


def log2_domain(domain_size: int) -> float:
    """``d = log2 |X|`` for any Python int ``|X| >= 2``."""
    size = check_int(domain_size, "domain_size", low=2)
    return math.log2(size)


def _ilog(x: float, n: int) -> float:
    for _ in range(n):
        x = log2(x)
    return x


# ---------------------------------------------------------------------------------------------
# RecConcave (Thm 3.15, Remark 3.16) and the Appendix A reading of its proof
# ---------------------------------------------------------------------------------------------


def appendix_rec_concave_promise(T, alpha, eps_c, delta_c, beta_c, N, base_case_max: int = 32) -> float:
    """Spec Appendix A's ``req_r``: the promise the proof of Lemma 3.14 needs, per-mechanism budgets.

    Base level: ``(2/(alpha eps)) ln((T+1)/beta)``; otherwise the maximum of twice the recursive
    requirement over ``alpha``, the (literal) A_dist gap ``ln(1/(beta delta))/eps`` reached by
    ``3 alpha r / 8``, and the final exponential mechanism ``(16/(3 alpha eps)) ln(16/beta)``.
    """
    if T <= base_case_max or N == 1:
        return 2.0 / (alpha * eps_c) * ln((T + 1) / beta_c)
    sub = appendix_rec_concave_promise(
        math.ceil(log2(T)), 0.25, eps_c, delta_c, beta_c, N - 1, base_case_max=base_case_max
    )
    return max(
        2.0 * sub / alpha,
        ln(1.0 / (beta_c * delta_c)) / eps_c / (3.0 * alpha / 8.0),
        16.0 / (3.0 * alpha * eps_c) * ln(16.0 / beta_c),
    )


def rec_concave_promises(domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, N: int) -> dict:
    """RecConcave on ``[0, T]`` with ``T = domain_size``: every form of the promise requirement."""
    from ..optimize.recconcave_plan import required_quality

    alpha, beta, epsilon, delta = _common(alpha, beta, epsilon, delta)
    N = check_int(N, "N", low=1)
    T = check_int(domain_size, "domain_size", low=2)
    L = max(1, log_star(T))
    out = {}
    if N <= L:
        out["stated (Thm 3.15)"] = (
            8.0**N * 36.0 * N / (alpha * epsilon) * (log2(6.0 * N / (beta * delta)) + _ilog(T, N))
        )
    out["stated, N = log* T (Remark 3.16)"] = 8.0**L * 36.0 * L / (alpha * epsilon) * log2(12.0 * L / (beta * delta))
    out["restated by the halfspace papers (12 log* T)"] = (
        8.0**L * 12.0 * L / (alpha * epsilon) * log2(192.0 * L * L / (beta * delta))
    )
    if N == 1:
        out["tight (Appendix A)"] = appendix_rec_concave_promise(T, alpha, epsilon, delta, beta / 2.0, 1)
    else:
        out["tight (Appendix A)"] = appendix_rec_concave_promise(
            T, alpha, epsilon / (3 * N), delta / (3 * N), beta / (2 * N), N
        )
    out["library, paper split"] = required_quality(T, alpha, beta, epsilon, delta, N, constants="paper")
    out["library, tuned split"] = required_quality(T, alpha, beta, epsilon, delta, N, constants="tuned")
    out["levels that run"] = float(_levels(T, N))
    return out


def _levels(T: int, N: int) -> int:
    from ..optimize.recconcave_plan import levels

    return levels(T, N)


# ---------------------------------------------------------------------------------------------
# L1: POINT learner (Lemma 3.2) and L4: the exponential-mechanism learner
# ---------------------------------------------------------------------------------------------


def point_learner_sizes(alpha: float, beta: float, epsilon: float, delta: float) -> dict:
    """Lemma 3.2: stated ``max((8/(alpha eps)) ln(4/(beta delta)), (8/alpha) ln(2/beta))``.

    Tight: the count of the target is ``>= alpha m / 2`` with probability ``1 - exp(-alpha m/8)
    >= 1 - beta/2``, and A_dist releases a gap of ``alpha m / 2`` with probability ``1 - beta/2``:
    literal A_dist ``alpha m/2 >= ln(2/(beta delta))/eps``; corrected (continuous)
    ``alpha m / 2 >= 2 + (2/eps)(ln(1/(2 delta)) + ln(1/beta))``; the library's discrete A_dist
    (exact tails). Independent of the domain size (which must be ``>= 1/(alpha beta)``).
    """
    from ..optimize.recconcave_plan import _adist_min_gap

    alpha, beta, epsilon, delta = _common(alpha, beta, epsilon, delta)
    chernoff = 8.0 / alpha * ln(2.0 / beta)
    stated = max(8.0 / (alpha * epsilon) * ln(4.0 / (beta * delta)), chernoff)
    literal = max(2.0 * ln(2.0 / (beta * delta)) / (alpha * epsilon), chernoff)
    safe = max(2.0 / alpha * (2.0 + 2.0 / epsilon * (ln(1.0 / (2.0 * delta)) + ln(1.0 / beta))), chernoff)
    library = max(2.0 / alpha * _adist_min_gap(epsilon, delta, beta / 2.0), chernoff)
    return {
        "stated": stated,
        "tight, paper-literal A_dist": literal,
        "tight, corrected A_dist": safe,
        "library (discrete corrected A_dist)": library,
        "domain size needed (random fallback)": 1.0 / (alpha * beta),
    }


def em_learner_sample_size(domain_size: int, alpha: float, beta: float, epsilon: float, classes: int = 1) -> float:
    """The empirical part of the EM learner: ``(2/(alpha' eps)) ln(|C|/beta')``, ``alpha' = alpha/2``,
    ``beta' = beta/2``, ``|C| = domain_size + classes`` (thresholds: ``2^d + 1`` concepts)."""
    alpha, beta, epsilon = _common(alpha, beta, epsilon)
    size = check_int(domain_size, "domain_size", low=1) + check_int(classes, "classes", low=0)
    return 2.0 / ((alpha / 2.0) * epsilon) * (ln(size) - ln(beta / 2.0))


# ---------------------------------------------------------------------------------------------
# L2: LearnThresholds (Thm 3.18)
# ---------------------------------------------------------------------------------------------


def learn_thresholds_stated(domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, N: int) -> dict:
    """Thm 3.18: ``max((200/alpha^2) ln(4/(alpha beta)), RecConcave term)`` with the RecConcave term
    ``8^N (72N/(alpha eps))(log2(12N/(beta delta)) + log2^(N) 2^d)`` (``N`` logarithms)."""
    alpha, beta, epsilon, delta = _common(alpha, beta, epsilon, delta)
    N = check_int(N, "N", low=1)
    T = check_int(domain_size, "domain_size", low=2)
    if N > max(1, log_star(T)):
        raise InvalidParameterError(f"Thm 3.18 needs 1 <= N <= log*(2^d) = {log_star(T)}, got N={N}")
    rc = 8.0**N * 72.0 * N / (alpha * epsilon) * (log2(12.0 * N / (beta * delta)) + _ilog(T, N))
    gen = 200.0 / alpha**2 * ln(4.0 / (alpha * beta))
    return {"RecConcave term": rc, "generalization term (Thm 2.14)": gen, "stated": max(rc, gen)}


def learn_thresholds_tight(domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, N: int) -> float:
    """Appendix A: RecConcave's tight promise at ``alpha/2``, ``eps/3N`` (full eps at ``N = 1``, E14),
    ``delta/3N``, ``(beta/2)/(2N)``; the promise is ``m``."""
    alpha, beta, epsilon, delta = _common(alpha, beta, epsilon, delta)
    N = check_int(N, "N", low=1)
    T = check_int(domain_size, "domain_size", low=2)
    eps_c = epsilon if N == 1 else epsilon / (3 * N)
    return appendix_rec_concave_promise(T, alpha / 2.0, eps_c, delta / (3 * N), (beta / 2.0) / (2 * N), N)


def learn_thresholds_library(
    domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, N: int | None, constants: str = "tuned"
) -> float:
    """The promise ``m`` privpac's LearnThresholds needs (its own RecConcave plan, exact tails)."""
    from ..learners.thresholds import learn_thresholds_plan

    return learn_thresholds_plan(domain_size, alpha, beta, epsilon, delta, N, constants).required_promise()


def _thresholds_bound(domain_size, alpha, beta, epsilon, delta, N=None):
    L = max(1, log_star(check_int(domain_size, "domain_size", low=2)))
    out = {}
    for n in sorted({1, 2, L} if N is None else {N}):
        if n <= L:
            out[f"stated RecConcave term, N={n}"] = learn_thresholds_stated(
                domain_size, alpha, beta, epsilon, delta, n
            )["RecConcave term"]
        if _levels(domain_size, n) == n or n == 1:
            out[f"tight (Appendix A), N={n}"] = learn_thresholds_tight(domain_size, alpha, beta, epsilon, delta, n)
    out["library, tuned (depth chosen)"] = learn_thresholds_library(domain_size, alpha, beta, epsilon, delta, N)
    out["generalization (Thm 2.14, alpha/2, beta/2)"] = uniform_convergence_sample_size(alpha / 2.0, beta / 2.0)
    out["generalization (DKW, not in the paper)"] = dkw_threshold_sample_size(alpha / 2.0, beta / 2.0)
    return out


# ---------------------------------------------------------------------------------------------
# S1, S2: SanPoints and the k-point sanitizer (Thm 4.6, 4.7)
# ---------------------------------------------------------------------------------------------


def san_points_parameters(alpha: float, beta: float, epsilon: float, delta: float) -> dict:
    """Fig. 9's per-mechanism budget: ``eps~ = eps/sqrt((32/alpha) ln(5/delta))``, ``delta~ = alpha delta/5``,
    ``ceil(2/alpha)`` iterations (E6)."""
    alpha, beta, epsilon, delta = _common(alpha, beta, epsilon, delta)
    return {
        "epsilon_each": epsilon / math.sqrt(32.0 / alpha * ln(5.0 / delta)),
        "delta_each": alpha * delta / 5.0,
        "iterations": float(math.ceil(2.0 / alpha)),
    }


def san_points_sizes(alpha: float, beta: float, epsilon: float, delta: float) -> dict:
    """Thm 4.6: the choosing mechanism's privacy precondition at ``(alpha/2, alpha beta/4, eps~, delta~)``
    (the binding constraint), the Laplace accuracy condition and the paper's E1 condition."""
    p = san_points_parameters(alpha, beta, epsilon, delta)
    e, d = p["epsilon_each"], p["delta_each"]
    a2 = alpha / 2.0
    choosing = 16.0 / (a2 * e) * ln(16.0 / (a2 * (alpha * beta / 4.0) * e * d))
    laplace = ln(4.0 / (alpha * beta)) / (e * alpha)
    paper_e1 = 6.0 / (alpha**1.5 * epsilon) * ln(4.0 / (alpha * beta)) * math.sqrt(ln(5.0 / delta))
    return {
        "choosing precondition (binding)": choosing,
        "Laplace accuracy condition": laplace,
        "paper's E1 condition": paper_e1,
        "stated": max(choosing, laplace, paper_e1),
    }


def k_point_sanitizer_sizes(k: int, alpha: float, beta: float, epsilon: float, delta: float) -> dict:
    """Thm 4.7: SanPoints run at accuracy ``alpha/k``."""
    k = check_int(k, "k", low=1)
    alpha = check_probability(alpha, "alpha")
    return san_points_sizes(alpha / k, beta, epsilon, delta)


# ---------------------------------------------------------------------------------------------
# S3: SanThresholds (Thm 4.13)
# ---------------------------------------------------------------------------------------------


def san_thresholds_calibration(alpha: float, beta: float, epsilon: float, delta: float) -> dict:
    """Spec 6.3's calibration: ``c = ceil(77/alpha)`` calls, ``delta_m = delta/(5c)``, ``beta_m = beta/(3c)``,
    ``eps_m`` the positive root of ``8c x^2 + sqrt(8c ln(1/(c delta_m))) x = eps`` (E7, E11)."""
    alpha, beta, epsilon, delta = _common(alpha, beta, epsilon, delta)
    c = math.ceil(77.0 / alpha)
    delta_m = delta / (5.0 * c)
    beta_m = beta / (3.0 * c)
    a, b = 8.0 * c, math.sqrt(8.0 * c * ln(1.0 / (c * delta_m)))
    eps_m = (-b + math.sqrt(b * b + 4.0 * a * epsilon)) / (2.0 * a)
    return {"calls": float(c), "epsilon_each": eps_m, "delta_each": delta_m, "beta_each": beta_m}


def san_thresholds_sizes(
    domain_size: int, alpha: float, beta: float, epsilon: float, delta: float, recconcave_N: int | None = None
) -> dict:
    """Thm 4.13's three conditions with the calibrated per-mechanism budget, and the tight RecConcave one.

    ``d = log2 |X|``; RecConcave runs on ``[0, d]`` at accuracy 1/4 with promise ``alpha m / 32`` and
    budget ``(eps_m/(3 log* d), delta_m/(3 log* d))``. ``recconcave_N`` (default ``log* d``) sets its
    depth in the tight reading (``1``: the exponential mechanism over the at most ``d + 1`` scales).
    """
    cal = san_thresholds_calibration(alpha, beta, epsilon, delta)
    d = log2_domain(domain_size)
    c, e, dm, bm = cal["calls"], cal["epsilon_each"], cal["delta_each"], cal["beta_each"]
    L = max(1, log_star(d))
    stated_rc = 8.0**L * 60.0 * c / (alpha * e) * L * log2(12.0 * L / (bm * e * dm))
    choosing = 1024.0 / (alpha * e) * ln(2048.0 / (alpha * bm * e * dm))
    laplace = 16.0 * c / (alpha * e) * ln(2.0 / bm)
    n = L if recconcave_N is None else check_int(recconcave_N, "recconcave_N", low=1)
    T = math.ceil(d)
    if n == 1:
        promise = appendix_rec_concave_promise(T, 0.25, e, dm, bm, 1)
    else:
        promise = appendix_rec_concave_promise(T, 0.25, e / (3 * L), dm / (3 * L), bm / (2 * n), n)
    tight_rc = 32.0 * promise / alpha
    return {
        "stated RecConcave condition": stated_rc,
        "choosing precondition": choosing,
        "Laplace condition (B1)": laplace,
        f"tight RecConcave condition (N={n})": tight_rc,
        "stated": max(stated_rc, choosing, laplace),
        "tight": max(tight_rc, choosing, laplace),
    }


# ---------------------------------------------------------------------------------------------
# P1: label-private learner (Thm 6.2); R2/R3: the reduction (Lemma 5.4, Thm 5.5)
# ---------------------------------------------------------------------------------------------


def label_private_sizes(alpha: float, beta: float, epsilon: float, vc: int = 1) -> dict:
    """Thm 6.2 stated ``(768/(alpha^2 eps))(VC ln(64/alpha) + 2 ln(8/beta))``; ``n`` unlabelled points
    ``ceil((32/alpha)(VC ln(64/alpha) + ln(8/beta)))``; the proof's conditions with ``|H| <= 2^n`` and with
    Sauer's lemma ``|H| <= (e n/VC)^VC`` (not in the paper)."""
    alpha, beta, epsilon = _common(alpha, beta, epsilon)
    vc = check_int(vc, "vc", low=1)
    n = math.ceil(32.0 / alpha * (vc * ln(64.0 / alpha) + ln(8.0 / beta)))

    def proof(ln_h: float) -> float:
        em = 8.0 / (alpha * epsilon) * (ln_h + ln(4.0 / beta))
        gen = 8.0 / alpha * (ln_h + ln(4.0 / beta))
        good = 24.0 / alpha * ln(4.0 / beta)
        return n + max(em, gen, good)

    return {
        "stated": 768.0 / (alpha**2 * epsilon) * (vc * ln(64.0 / alpha) + 2.0 * ln(8.0 / beta)),
        "unlabelled part n": float(n),
        "proof conditions, |H| <= 2^n": proof(n * ln(2.0)),
        "proof conditions, Sauer's lemma": proof(vc * ln(math.e * n / vc)),
    }


def reduction_blowup(alpha: float, beta: float) -> float:
    """``t/m ~ ceil(6/alpha^2) ceil((18/beta) ln(2/(alpha beta)))``: the sanitizer-to-learner blow-up."""
    alpha, beta = _common(alpha, beta)
    return float(math.ceil(6.0 / alpha**2) * math.ceil(18.0 / beta * ln(2.0 / (alpha * beta))))


# ---------------------------------------------------------------------------------------------
# Lower bounds (section 9)
# ---------------------------------------------------------------------------------------------


def sanitizer_lower_bound(domain_size: int, alpha: float, beta: float, epsilon: float) -> dict:
    """Lemma 4.15: ``(X_C - 1) exp(-3 eps alpha m)(1 - beta) <= beta``, so
    ``m >= ln((X_C - 1)(1 - beta)/beta)/(3 eps alpha)`` for proper sanitizers, ``alpha -> 2 alpha`` for
    improper ones. ``domain_size`` is the effective size ``X_C`` (``2^d`` for points and thresholds)."""
    alpha, beta, epsilon = _common(alpha, beta, epsilon)
    xc = check_int(domain_size, "domain_size", low=2)
    top = ln(xc - 1) + ln((1.0 - beta) / beta)
    return {"proper": top / (3.0 * epsilon * alpha), "improper": top / (3.0 * epsilon * 2.0 * alpha)}


def blr_lower_bound(vc: int, epsilon: float) -> dict:
    """Thm 2.20 (Blum, Ligett, Roth): with ``m <= VC/2`` and ``eps <= 1`` every sanitizer has
    ``alpha >= 1/(4 + 16 eps)``: below that accuracy ``m > VC/2`` records are necessary."""
    vc = check_int(vc, "vc", low=1)
    epsilon = check_epsilon(epsilon)
    if epsilon > 1.0:
        raise InvalidParameterError("Thm 2.20 is stated for epsilon <= 1")
    return {"records needed (m > VC/2)": vc / 2.0, "for accuracy below": 1.0 / (4.0 + 16.0 * epsilon)}


def point_learner_lower_bound(domain_size: int, alpha: float, epsilon: float, k: int = 1) -> float:
    """Lemma 5.7 (explicit form of its proof): ``m >= ln((|B| - 1)/3)/(8 alpha eps)`` with
    ``|B| >= ((2^d - 1)/(4 e^2 k))^(k/2)`` (``|B| = 2^d - 1`` for ``k = 1``); proper pure-DP learners of
    k-POINT with ``alpha < 1/5``, ``beta = 1/2``."""
    alpha, epsilon = _common(alpha, None, epsilon)
    size = check_int(domain_size, "domain_size", low=4)
    k = check_int(k, "k", low=1)
    if alpha >= 0.2:
        raise InvalidParameterError("Lemma 5.7 needs alpha < 1/5")
    if k == 1:
        ln_b_minus_1 = ln(size - 2)
    else:
        ln_b = (k / 2.0) * (ln(size - 1) - ln(4.0 * math.e**2 * k))
        if ln_b <= ln(4.0):
            return 0.0
        ln_b_minus_1 = ln_b + math.log1p(-math.exp(-ln_b))
    return max(0.0, (ln_b_minus_1 - ln(3.0)) / (8.0 * alpha * epsilon))


# ---------------------------------------------------------------------------------------------
# Registration (``privpac bounds NAME``)
# ---------------------------------------------------------------------------------------------

_REF = "Beimel, Nissim, Stemmer"


def _n(value, name="N"):
    return None if value is None else check_int(value, name, low=1)


register_bound(
    Bound(
        "bns-recconcave",
        "RecConcave's promise requirement: Thm 3.15, Remark 3.16, the halfspace papers' restatement, tight",
        f"{_REF}, Thm 3.15, Remark 3.16; spec Appendix A",
        "upper",
        lambda domain_size, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6, N=2: rec_concave_promises(
            domain_size, alpha, beta, epsilon, delta, _n(N)
        ),
    )
)
register_bound(
    Bound(
        "bns-point-learner",
        "proper (epsilon, delta) learner for POINT_d through A_dist (independent of d)",
        f"{_REF}, Lemma 3.2",
        "upper",
        lambda alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6: point_learner_sizes(alpha, beta, epsilon, delta),
    )
)
register_bound(
    Bound(
        "bns-learn-thresholds",
        "LearnThresholds (RecConcave) for THRESH_d: stated, tight and generalization terms",
        f"{_REF}, Thm 3.18, Remark 3.19",
        "upper",
        lambda domain_size, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6, N=None: _thresholds_bound(
            domain_size, alpha, beta, epsilon, delta, _n(N)
        ),
    )
)
register_bound(
    Bound(
        "bns-exponential-learner",
        "generic pure-DP exponential-mechanism learner over THRESH_d (2^d + 1 concepts): empirical part",
        f"{_REF}, section 2.5.2 (Kasiviswanathan et al.)",
        "upper",
        lambda domain_size, alpha=0.1, beta=0.1, epsilon=1.0: {
            "empirical part (alpha/2, beta/2)": em_learner_sample_size(domain_size, alpha, beta, epsilon),
            "generalization (Thm 2.14, alpha/2, beta/2)": uniform_convergence_sample_size(alpha / 2.0, beta / 2.0),
            "generalization (DKW, not in the paper)": dkw_threshold_sample_size(alpha / 2.0, beta / 2.0),
        },
    ),
    former_names=("bns-em-learner",),
)
register_bound(
    Bound(
        "bns-san-points",
        "SanPoints, (epsilon, delta) sanitizer for POINT_d (independent of d)",
        f"{_REF}, Fig. 9, Thm 4.6",
        "upper",
        lambda alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6: {
            **san_points_parameters(alpha, beta, epsilon, delta),
            **san_points_sizes(alpha, beta, epsilon, delta),
        },
    )
)
register_bound(
    Bound(
        "bns-k-point-sanitizer",
        "sanitizer for k-POINT_d (SanPoints at accuracy alpha/k)",
        f"{_REF}, Fig. 10, Thm 4.7",
        "upper",
        lambda k=2, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6: k_point_sanitizer_sizes(
            k, alpha, beta, epsilon, delta
        ),
    )
)
register_bound(
    Bound(
        "bns-san-thresholds",
        "SanThresholds, proper (epsilon, delta) sanitizer for THRESH_d",
        f"{_REF}, Fig. 11, Thm 4.13",
        "upper",
        lambda domain_size, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6, recconcave_N=None: {
            **san_thresholds_calibration(alpha, beta, epsilon, delta),
            **san_thresholds_sizes(domain_size, alpha, beta, epsilon, delta, recconcave_N),
        },
    )
)
register_bound(
    Bound(
        "bns-rectangles",
        "proper learner for RECTANGLE_d^n: the paper gives no constants; SanThresholds' cost at alpha/(8n)",
        f"{_REF}, section 3.5, Thm 3.22 (sketch)",
        "upper",
        lambda domain_size, dimension=2, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6: {
            "SanThresholds at accuracy alpha/(8n), stated": san_thresholds_sizes(
                domain_size, alpha / (8 * check_int(dimension, "dimension", low=1)), beta, epsilon, delta
            )["stated"],
            "SanThresholds at accuracy alpha/(8n), tight": san_thresholds_sizes(
                domain_size, alpha / (8 * dimension), beta, epsilon, delta
            )["tight"],
        },
    )
)
register_bound(
    Bound(
        "bns-label-private",
        "generic label-private learner (independent of |X|)",
        f"{_REF}, Fig. 13, Thm 6.2",
        "upper",
        lambda alpha=0.1, beta=0.1, epsilon=1.0, vc=1: label_private_sizes(alpha, beta, epsilon, vc),
    )
)
register_bound(
    Bound(
        "bns-reduction-blowup",
        "sanitizer -> proper learner reduction: input size t over the base sanitizer's m",
        f"{_REF}, Lemma 5.4, Thm 5.5",
        "upper",
        lambda alpha=0.1, beta=0.1: {"t/m": reduction_blowup(alpha, beta)},
    )
)
register_bound(
    Bound(
        "bns-lb-sanitizer",
        "every pure-DP sanitizer needs ln((X_C - 1)(1 - beta)/beta)/(3 eps alpha) records (alpha -> 2 alpha improper)",
        f"{_REF}, Lemma 4.15",
        "lower",
        lambda domain_size, alpha=0.1, beta=0.1, epsilon=1.0: sanitizer_lower_bound(domain_size, alpha, beta, epsilon),
    )
)
register_bound(
    Bound(
        "bns-lb-sanitizer-vc",
        "(1/8, 1/8, 1/2, m)-sanitizers need Omega(log X_C + VC): Lemma 4.15's explicit term; "
        "the VC term has no constant",
        f"{_REF}, Thm 4.16 (with Thm 2.20)",
        "lower",
        lambda domain_size, vc=1: {
            "Lemma 4.15 term (alpha = beta = 1/8, eps = 1/2)": sanitizer_lower_bound(domain_size, 0.125, 0.125, 0.5)[
                "proper"
            ],
            "VC term (order only, constant unspecified)": float(check_int(vc, "vc", low=1)),
        },
    )
)
register_bound(
    Bound(
        "bns-lb-blr",
        "with m <= VC/2 every sanitizer has alpha >= 1/(4 + 16 eps)",
        f"{_REF}, Thm 2.20 (Blum, Ligett, Roth)",
        "lower",
        lambda vc=1, epsilon=1.0: blr_lower_bound(vc, epsilon),
    )
)
register_bound(
    Bound(
        "bns-lb-point-learner",
        "proper pure-DP learners of k-POINT_d need ln((|B| - 1)/3)/(8 alpha eps) records",
        f"{_REF}, Lemma 5.7",
        "lower",
        lambda domain_size, alpha=0.1, epsilon=1.0, k=1: {
            "explicit (proof of Lemma 5.7)": point_learner_lower_bound(domain_size, alpha, epsilon, k)
        },
    )
)


def _order_only(**terms):
    return {f"{k} (order only, constant unspecified)": float(v) for k, v in terms.items()}


register_bound(
    Bound(
        "bns-lb-k-point-sanitizer",
        "(1/150, 1/150, eps, m)-sanitizers for k-POINT_d need Omega(k d / eps) (eps <= 1/8)",
        f"{_REF}, Thm 5.9 (Lemma 5.7 through Thm 5.5)",
        "lower",
        lambda domain_size, epsilon=0.125, k=1: _order_only(
            **{"k d / eps": check_int(k, "k", low=1) * log2_domain(domain_size) / check_epsilon(epsilon)}
        ),
    )
)
register_bound(
    Bound(
        "bns-lb-label-sanitizer",
        "(alpha, 1/50, eps, m)-sanitizers for k-POINT_d^label need Omega(VC d/(alpha eps)) (alpha <= 1/50, eps <= 1/8)",
        f"{_REF}, Thm 5.10",
        "lower",
        lambda domain_size, alpha=0.02, epsilon=0.125, k=1: _order_only(
            **{
                "k d/(alpha eps)": check_int(k, "k", low=1)
                * log2_domain(domain_size)
                / (check_probability(alpha, "alpha") * check_epsilon(epsilon))
            }
        ),
    )
)
register_bound(
    Bound(
        "bns-lb-cited",
        "cited lower bounds: proper pure-DP POINT_d and any pure-DP THRESH_d learner Omega(d), "
        "RECTANGLE_d^n Omega(n d), pure-DP POINT_d sanitizer Omega(d), non-private Omega(VC/alpha)",
        "Beimel, Brenner, Kasiviswanathan, Nissim; Feldman, Xiao; Ehrenfeucht et al. (Thm 2.12)",
        "lower",
        lambda domain_size, dimension=1, alpha=0.1, vc=1: _order_only(
            **{
                "d (pure-DP POINT/THRESH learners, POINT sanitizers)": log2_domain(domain_size),
                "n d (pure-DP RECTANGLE learners)": check_int(dimension, "dimension", low=1) * log2_domain(domain_size),
                "VC/alpha (any PAC learner)": check_int(vc, "vc", low=1) / check_probability(alpha, "alpha"),
            }
        ),
    )
)
