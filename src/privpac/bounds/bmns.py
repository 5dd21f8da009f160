"""Sample sizes of Beimel, Moran, Nissim, Stemmer, "Private Center Points and Learning of
Halfspaces" (COLT 2019; spec bmns-center-points, sections 3, 4, 6, 8 and Appendix A).

Conventions
-----------
``domain_size`` is ``|X|``, the *total* number of points of the public domain ``X ⊂ R^d`` (the
spec's ``T = |X|``, the ``abs(X)`` column of its section 6 tables), not the number of values per
coordinate: a ``16 x 16`` grid is ``domain_size=256, dimension=2``. The lower bound of Thm 5.1 is
about the grid ``X = [T]^d``; there ``T`` is the integer ``d``-th root of ``domain_size`` (rounded
down: the bound for the largest grid ``[T]^d`` with ``T^d <= |X|``). ``log`` is base 2 where the
paper writes it (RecConcave's bound), ``ln`` for tail inversions; ``log*`` is the spec's iterated
logarithm with ``ceil(log2 .)`` at each step (``log*(2^16) = 4``, ``log*(2^65536) = 5``).

FindTukey (Fig. 1, Thm 3.6)
---------------------------
With ``alpha0 = 1/(2d)``, ``beta0 = beta/d`` and RecConcave's promise in the BMNS restatement
(Prop 2.11, the "stated" form here)
``R(N, alpha, eps, beta, delta) = 8^N (12N/(alpha eps)) log2(192 N^2/(beta delta))``:

* "stated": ``2(d+1) R(N, alpha0, eps0, beta0, delta0)`` with the paper's advanced composition
  (``eps0 = eps/(2 sqrt(2d ln(2/delta)))``, ``delta0 = delta/(2d)``) and ``N = log* T~`` of the
  paper's extended domain, ``log2 T~ <= 2^d (log2 d + d^2 (d+1) log2|X|)`` (Claim 3.5);
* "tight factor 2d": the same with ``2d``: the smallest promise is ``r_d = n/(2d)``;
* RecConcave with basic composition (``eps/d``, ``delta/d``) over the A3-adaptive domain
  ``|D| <= 2 |X|^(d^2)``: the restatement (factor ``2(d+1)``, the spec's table) and the library's
  tight requirement (:func:`~privpac.optimize.recconcave_plan.required_quality`, factor ``2d``);
* B3, the exponential mechanism per coordinate: ``2(d+1) (2/(alpha0 eps0)) (ln|D| + ln(d/beta))``
  with basic and with advanced composition;
* B1, the one-shot exponential mechanism over all candidate vertices:
  ``4(d+1)/eps (ln|D| + ln(1/beta))``;
* "as privpac runs it": :attr:`FindTukeyPlan.sufficient_n` of
  :func:`~privpac.learners.center_point.plan_find_tukey` (the number ``PrivateCenterPoint`` warns
  about) for ``d <= 3``, on the smallest box ``[-B, B]^d`` with at least ``|X|`` points (or the
  ``box`` given).

LearnHalfSpace (Fig. 2, Thm 4.2, Cor 4.3)
-----------------------------------------
``m`` = FindTukey's size in dimension ``d+1`` on ``|H| <= 2|X|^(d+1)`` at ``beta/2``; chunk size
``k`` from Blumer et al. (1989), ``max((4/a) log2(2/b), (8(d+1)/a) log2(13/a))`` at
``a = alpha/(2(d+2))``, ``b = beta/(2m)``; total ``s = m k``.

Lower bounds (Thm 5.1) and the later upper bound of Nissim, Tsfadia, Yan (2025)
-------------------------------------------------------------------------------
The paper gives Thm 5.1 asymptotically only; its expressions are reported without a constant, with
the smallest ``m`` the proof's final inequality allows next to them. The NTY bound is a reference
line, ``d^5.5 log*|X|`` with every hidden factor dropped.
"""

from __future__ import annotations

import math

from ..errors import InvalidParameterError, PrivpacError
from ..formatting import fmt_int
from ..learners.generalization import behw_sample_size
from ..optimize.recconcave_plan import log_star, log_star_from_log2
from ..validation import check_delta, check_epsilon, check_int, check_probability
from .registry import Bound, register_bound

__all__ = [
    "adaptive_log2_domain",
    "box_for_domain",
    "find_tukey_sizes",
    "integer_root",
    "lb_convex_hull",
    "learn_halfspace_sizes",
    "nty_reference",
    "paper_log2_extended_domain",
    "privpac_find_tukey_sizes",
    "privpac_learn_halfspace_sizes",
    "rec_concave_restated",
]

ln, log2 = math.log, math.log2
_PAPER = "Beimel, Moran, Nissim, Stemmer, COLT 2019"


# ---------------------------------------------------------------------------------------------
# Public arithmetic
# ---------------------------------------------------------------------------------------------


def integer_root(x: int, d: int, *, up: bool = False) -> int:
    """``floor(x^(1/d))`` (``ceil`` with ``up=True``) for Python ints ``x >= 1``, ``d >= 1`` (exact)."""
    x, d = check_int(x, "x", low=1), check_int(d, "d", low=1)
    # Newton's iteration on integers from above (2^ceil(bits/d) > x^(1/d)): it decreases to the floor
    # in O(log bits) steps, where bisection took one big power per bit of the root.
    root = 1 << -(-x.bit_length() // d)
    while True:
        below = ((d - 1) * root + x // root ** (d - 1)) // d
        if below >= root:
            break
        root = below
    return root + 1 if up and root**d < x else root


def box_for_domain(domain_size: int, d: int) -> int:
    """The smallest ``B >= 1`` whose box ``Z^d ∩ [-B, B]^d`` has at least ``domain_size`` points."""
    side = integer_root(domain_size, d, up=True)
    return max(1, side // 2)  # 2B + 1 >= side


def paper_log2_extended_domain(d: int, log2_x: float) -> float:
    """``log2 T~ <= 2^d (log2 d + d^2 (d+1) log2|X|)``: Claim 3.5's ``(d T^(d^2(d+1)))^(2^d)``."""
    return 2.0**d * (log2(d) + d * d * (d + 1) * log2_x)


def adaptive_log2_domain(d: int, log2_x: float) -> float:
    """``log2 |D| <= d^2 log2|X| + 1``: the A3-adaptive candidate set (spec A3, B1)."""
    return d * d * log2_x + 1.0


def rec_concave_restated(N: int, alpha: float, epsilon: float, beta: float, delta: float) -> float:
    """Prop 2.11 as BMNS (and KMST) restate BNS: ``8^N (12N/(alpha eps)) log2(192 N^2/(beta delta))``."""
    return 8.0**N * 12.0 * N / (alpha * epsilon) * log2(192.0 * N * N / (beta * delta))


def _advanced(epsilon: float, delta: float, d: int) -> tuple[float, float]:
    """The paper's split (section 5): ``eps/(2 sqrt(2d ln(2/delta)))``, ``delta/(2d)``."""
    from ..optimize.coordinatewise import advanced_split

    return advanced_split(epsilon, delta, d)


def _split(epsilon: float, delta: float, d: int, composition: str) -> tuple[float, float]:
    return _advanced(epsilon, delta, d) if composition == "advanced" else (epsilon / d, delta / d)


def _check(epsilon, delta, beta, domain_size, dimension, alpha=None):
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    beta = check_probability(beta, "beta")
    size = check_int(domain_size, "domain_size", low=2)
    d = check_int(dimension, "dimension", low=1)
    if alpha is not None:
        alpha = check_probability(alpha, "alpha")
    return epsilon, delta, beta, size, d, alpha


# ---------------------------------------------------------------------------------------------
# FindTukey (Thm 3.6) and its baselines, from log2 |X| (also used by the learner in dimension d+1)
# ---------------------------------------------------------------------------------------------


def _n_rec_restated(d, log2_x, epsilon, delta, beta, composition, domain) -> tuple[float, int]:
    """``(2(d+1) R, N)``: FindTukey with RecConcave in the restated form (spec Appendix A, ``n_rec``)."""
    l2 = paper_log2_extended_domain(d, log2_x) if domain == "paper" else adaptive_log2_domain(d, log2_x)
    N = log_star_from_log2(l2)
    eps0, delta0 = _split(epsilon, delta, d, composition)
    return 2 * (d + 1) * rec_concave_restated(N, 1.0 / (2 * d), eps0, beta / d, delta0), N


def _n_b3(d, log2_x, epsilon, delta, beta, composition) -> float:
    """Spec B3: ``2(d+1) (2/(alpha0 eps0)) (ln|D| + ln(d/beta))`` over the adaptive domain."""
    eps0, _ = _split(epsilon, delta, d, composition)
    return 2 * (d + 1) * 2.0 / ((1.0 / (2 * d)) * eps0) * (adaptive_log2_domain(d, log2_x) * ln(2.0) + ln(d / beta))


def _n_b1(d, log2_x, epsilon, beta) -> float:
    """Spec B1 (footnote 1): ``4(d+1)/eps (ln|V| + ln(1/beta))``, ``log2|V| <= d^2 log2|X| + 1``."""
    return 4 * (d + 1) / epsilon * (adaptive_log2_domain(d, log2_x) * ln(2.0) + ln(1.0 / beta))


def _library_tight(d, log2_domain_int: int, epsilon, delta, beta, composition) -> float:
    """``2d`` times privpac's tight RecConcave promise on ``[0, T]``, ``T + 1 = 2^log2_domain_int``.

    The requirement is RecConcave's own (:func:`required_quality`, tuned budgets, full recursion
    depth ``levels(T)``, as :func:`plan_find_tukey` asks it), not a re-derivation.
    """
    from ..optimize.recconcave_plan import levels, required_quality

    T = (1 << log2_domain_int) - 1
    eps0, delta0 = _split(epsilon, delta, d, composition)
    return 2 * d * required_quality(T, 1.0 / (2 * d), beta / d, eps0, delta0, levels(T))


def find_tukey_sizes(
    epsilon: float, delta: float, beta: float, domain_size: int, dimension: int, box: int | None = None
) -> dict:
    """Thm 3.6 (stated, tight factor), RecConcave/B3/B1 variants and privpac's own plan (``d <= 3``)."""
    epsilon, delta, beta, size, d, _ = _check(epsilon, delta, beta, domain_size, dimension)
    l2x = log2(size)
    l2_paper = paper_log2_extended_domain(d, l2x)
    stated, n_paper = _n_rec_restated(d, l2x, epsilon, delta, beta, "advanced", "paper")
    adaptive, n_adapt = _n_rec_restated(d, l2x, epsilon, delta, beta, "basic", "adaptive")
    # |D| <= 2 |X|^(d^2) <= 2^(d^2 ceil(log2 |X|) + 1): an integer exponent for RecConcave's range.
    l2_dom_int = d * d * (size - 1).bit_length() + 1
    out = {
        "log2 T~ (paper's extended domain, Claim 3.5)": l2_paper,
        "N = log* T~": n_paper,
        "stated (Thm 3.6: 2(d+1), paper's T~, advanced composition)": stated,
        "tight factor 2d (Thm 3.6, paper's T~, advanced composition)": stated * d / (d + 1),
        "N (adaptive domain)": n_adapt,
        "RecConcave, basic composition, adaptive domain (restated Prop 2.11)": adaptive,
        "RecConcave, basic composition, adaptive domain (library tight, 2d)": _library_tight(
            d, l2_dom_int, epsilon, delta, beta, "basic"
        ),
        "B3, basic composition": _n_b3(d, l2x, epsilon, delta, beta, "basic"),
        "B3, advanced composition": _n_b3(d, l2x, epsilon, delta, beta, "advanced"),
        "B1 one-shot": _n_b1(d, l2x, epsilon, beta),
    }
    out.update(privpac_find_tukey_sizes(epsilon, delta, beta, size, d, box))
    return out


def privpac_find_tukey_sizes(
    epsilon: float, delta: float, beta: float, domain_size: int, dimension: int, box: int | None = None
) -> dict:
    """``plan_find_tukey(...).sufficient_n`` with both optimisers: what ``PrivateCenterPoint`` warns about.

    The box is ``[-B, B]^d`` with ``B = box`` or the smallest ``B`` with ``(2B+1)^d >= |X|``;
    composition ``"auto"`` (the estimator's default). Only ``d <= 3`` is implemented.
    """
    from ..learners.center_point import FIND_TUKEY_DIMENSIONS, plan_find_tukey

    d = check_int(dimension, "dimension", low=1)
    if d not in FIND_TUKEY_DIMENSIONS:
        return {"as privpac runs it": f"not implemented for d = {d} (PrivateCenterPoint runs d = 1, 2, 3)"}
    B = box_for_domain(domain_size, d) if box is None else check_int(box, "box", low=1)
    # A text, not a number: B can be huge (2^32767 at |X| = 2^65536) and is not a sample size.
    out: dict = {"privpac box": f"[-{fmt_int(B)}, {fmt_int(B)}]^{d}"}
    for optimizer in ("exponential", "recconcave"):
        plan = plan_find_tukey(1, d, B, epsilon, delta, beta=beta, optimizer=optimizer, composition="auto")
        out[f"as privpac runs it: {optimizer} ({plan.composition} composition)"] = plan.sufficient_n
    return out


# ---------------------------------------------------------------------------------------------
# LearnHalfSpace (Thm 4.2, Cor 4.3)
# ---------------------------------------------------------------------------------------------


def learn_halfspace_sizes(
    epsilon: float, delta: float, alpha: float, beta: float, domain_size: int, dimension: int
) -> dict:
    """``m`` chunks (FindTukey in dimension ``d+1`` on ``2|X|^(d+1)``), chunk size ``k``, total ``s = m k``."""
    epsilon, delta, beta, size, d, alpha = _check(epsilon, delta, beta, domain_size, dimension, alpha)
    l2h = 1.0 + (d + 1) * log2(size)  # |H| <= 2 |X|^(d+1) (Claim 4.1)
    inner = {
        "paper's inner (Thm 3.6)": _n_rec_restated(d + 1, l2h, epsilon, delta, beta / 2, "advanced", "paper")[0],
        "B3 inner": _n_b3(d + 1, l2h, epsilon, delta, beta / 2, "basic"),
        "B1 inner": _n_b1(d + 1, l2h, epsilon, beta / 2),
    }
    a = alpha / (2 * (d + 2))
    out: dict = {}
    for name, n in inner.items():
        m = math.ceil(n)
        k = math.ceil(behw_sample_size(a, beta / (2 * m), d + 1))
        out[f"m, {name}"] = m
        out[f"k, {name}"] = k
        out[f"s = m k, {name}"] = float(m) * k
    out.update(privpac_learn_halfspace_sizes(epsilon, delta, alpha, beta, size, d))
    return out


def privpac_learn_halfspace_sizes(
    epsilon: float, delta: float, alpha: float, beta: float, domain_size: int, dimension: int
) -> dict:
    """``plan_learn_halfspace(...).sufficient_s`` in both depth modes (exponential FindTukey, composition
    ``"auto"``): what ``PrivateTukeyHalfspaceClassifier`` warns about, on the smallest grid
    ``[-B, B]^d`` with at least ``|X|`` points. Only where FindTukey runs in dimension ``d + 1``.
    """
    from ..learners.center_point import FIND_TUKEY_DIMENSIONS
    from ..learners.halfspace_tukey import plan_learn_halfspace

    d = check_int(dimension, "dimension", low=1)
    if d + 1 not in FIND_TUKEY_DIMENSIONS:
        return {"as privpac runs it": f"not implemented for d = {d} (needs FindTukey in dimension {d + 1})"}
    B = box_for_domain(domain_size, d)
    out: dict = {"privpac grid": f"[-{fmt_int(B)}, {fmt_int(B)}]^{d}"}
    for depth in ("tukey", "directional"):
        try:
            plan = plan_learn_halfspace(1, d, B, epsilon, delta, alpha=alpha, beta=beta, depth=depth, n_chunks=1)
        except PrivpacError as exc:  # a public size the exact geometry refuses (e.g. too many directions)
            out[f"as privpac runs it: {depth} depth"] = f"refused: {str(exc).split(':')[0]}"
            continue
        out[f"as privpac runs it: {depth} depth, m"] = plan.sufficient_chunks
        out[f"as privpac runs it: {depth} depth, s = m k"] = plan.sufficient_s
    return out


# ---------------------------------------------------------------------------------------------
# Lower bounds (Thm 5.1) and the NTY reference line
# ---------------------------------------------------------------------------------------------


def _thm51_min_m(d: int, T: int, epsilon: float, delta: float) -> float:
    """Smallest real ``m`` with ``1/(2d) <= e^(2 eps m/d) (T^(-d/2) + (2m/d) delta)`` (the proof's end)."""
    target = -ln(2.0 * d)

    def ok(m: float) -> bool:
        head = 2.0 * epsilon * m / d
        tail = math.exp(-(d / 2.0) * ln(T)) + (2.0 * m / d) * delta
        return head + ln(tail) >= target

    if ok(0.0):
        return 0.0
    hi = 1.0
    while not ok(hi):
        hi *= 2.0
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def lb_convex_hull(epsilon: float, delta: float, domain_size: int, dimension: int) -> dict:
    """Thm 5.1 for ``X = [T]^d``: the asymptotic expressions (no constants) and the proof's explicit ``m``."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    size = check_int(domain_size, "domain_size", low=2)
    d = check_int(dimension, "dimension", low=1)
    T = integer_root(size, d)
    if T < 2:
        raise InvalidParameterError(
            f"Thm 5.1 is about the grid [T]^d with T >= 2: domain_size must be at least 2^d = {2**d}, got {size}"
        )
    l2T = log2(T)
    approx = min(d * d * l2T, d * log2(1.0 / delta)) / epsilon if delta > 0 else d * d * l2T / epsilon
    out: dict = {
        "grid side T (X = [T]^d)": T,
        "approximate DP: min(d^2 log2 T, d log2(1/delta))/epsilon (no constant)": approx,
        "pure DP: d log2|X|/epsilon = d^2 log2 T/epsilon (no constant)": d * d * l2T / epsilon,
        "Bun et al. 2015: log* T (no constant)": log_star(T),
    }
    # The proof needs d >= 10 and d/2 points; an odd d uses the (d-1)-dimensional instance (embedded).
    de = d - d % 2
    if de >= 10:
        out["explicit (proof of Thm 5.1), delta as given"] = float(math.ceil(_thm51_min_m(de, T, epsilon, delta)))
        out["explicit (proof of Thm 5.1), pure (delta = 0)"] = float(math.ceil(_thm51_min_m(de, T, epsilon, 0.0)))
    else:
        out["explicit (proof of Thm 5.1)"] = "needs d >= 10"
    return out


def nty_reference(domain_size: int, dimension: int) -> dict:
    """Nissim, Tsfadia, Yan (2025): ``O~(d^5.5 log*|X|)``, with every hidden factor dropped."""
    size = check_int(domain_size, "domain_size", low=2)
    d = check_int(dimension, "dimension", low=1)
    ls = log_star(size)
    return {
        "d^5.5 log*|X| (asymptotic, no constants)": float(d**5.5 * ls),
        "log*|X|": ls,
        "note": "O~ hides constants, polylog factors and the epsilon, delta, alpha, beta terms: "
        "a growth rate, not a sample size",
    }


# ---------------------------------------------------------------------------------------------
# Registration
# ---------------------------------------------------------------------------------------------

register_bound(
    Bound(
        "bmns-find-tukey",
        "private center point (FindTukey): Thm 3.6 stated and with the tight 2d, RecConcave over the "
        "adaptive domain (restated and library tight), B3 (basic, advanced), B1 one-shot, and privpac's own "
        "plan (d <= 3); domain_size = |X|, the total number of domain points",
        f"{_PAPER}, Thm 3.6, Prop 2.11, footnote 1; spec bmns-center-points sections 4, 6",
        "upper",
        lambda epsilon, delta, beta, domain_size, dimension, box=None: find_tukey_sizes(
            epsilon, delta, beta, domain_size, dimension, box
        ),
    )
)
register_bound(
    Bound(
        "bmns-learn-halfspace",
        "private halfspace learner (LearnHalfSpace): chunks m (FindTukey in dimension d+1), chunk size k "
        "(Blumer et al.), total s = m k, for the paper's, B3 and B1 inner center-point finders",
        f"{_PAPER}, Thm 4.2, Cor 4.3; spec bmns-center-points sections 4 (A5), 6",
        "upper",
        lambda epsilon, delta, alpha, beta, domain_size, dimension: learn_halfspace_sizes(
            epsilon, delta, alpha, beta, domain_size, dimension
        ),
    )
)
register_bound(
    Bound(
        "bmns-lb-convex-hull",
        "every (epsilon, delta)-DP algorithm finding a point in the convex hull over X = [T]^d: the paper's "
        "Omega(min(d^2 log T, d log(1/delta))/epsilon), pure Omega(d log|X|/epsilon) and Omega(log* T) as "
        "expressions WITHOUT constants (the paper gives none), plus the smallest m its proof's inequality allows",
        f"{_PAPER}, Thm 5.1; Bun, Nissim, Stemmer, Vadhan 2015; spec bmns-center-points section 8",
        "lower",
        lambda epsilon, delta, domain_size, dimension: lb_convex_hull(epsilon, delta, domain_size, dimension),
    )
)
register_bound(
    Bound(
        "bmns-nty-reference",
        "reference line: the later O~(d^5.5 log*|X|) center point / halfspace bound, as the expression "
        "d^5.5 log*|X| without its hidden factors (asymptotic, no constants: not a sample size)",
        "Nissim, Tsfadia, Yan 2025, arXiv 2504.19001",
        "upper",
        lambda domain_size, dimension: nty_reference(domain_size, dimension),
    )
)
