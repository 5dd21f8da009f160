"""Sample sizes for learning boxes: RandMargins, the composition baseline, and two references.

Sadigurschi and Stemmer, Theorem 3.2 and Lemma 3.5 (RandMargins), section 1.2 (baseline);
spec ss-rectangles 5.2 (explicit accounting from the paper's proofs) and 5.3 (tables).

Every private calculator uses the exponential-mechanism interior point by default (the only one
with explicit constants; any :class:`~privpac.optimize.InteriorPoint` can be passed from Python).
``D`` is the number of directions: ``2d`` for boxes, ``d`` for the paper's anchored class, and
the VC dimension is ``D`` as well.

* **RandMargins** (spec 5.2 items 1-6): ``beta' = beta/(4D)``, ``Delta = IP(eps_call, delta_call,
  beta')``, ``E = D ceil(6 Delta ln(1/beta'))`` misclassified training points at most, and
  ``n = max(ceil(2E/alpha), n_gen)``. Reported for the ``"paper"`` and the ``"explicit"``
  calibrations (:func:`~privpac.learners.randmargins_plan.calibrate_randmargins`).
* **Composition baseline** (item 7): ``k = D`` calls at the better of basic and advanced
  composition, ``Delta_0 = IP(eps_0, delta_0, beta/(2k))``, ``n = max(ceil(2 k Delta_0/alpha), n_gen)``.
* **Generic pure learner** (item 8; Kasiviswanathan et al. 2011): the exponential mechanism over
  every grid box, ``n = max(ceil((4/(alpha eps)) (ln|H| + ln(2/beta))), n_gen)`` (exponential
  time: a reference, not an algorithm privpac runs).
* **Non-private** (item 9; Blumer et al. 1989): ``max((4/alpha) log2(2/beta), (8 VC/alpha) log2(13/alpha))``.

``n_gen`` is the relative-deviation bound (Vapnik; Anthony and Shawe-Taylor 1993):
``n >= (16/alpha)(VC ln(2en/VC) + ln(8/beta))``, solved by fixed-point iteration.
"""

from __future__ import annotations

import math

from ..errors import InvalidParameterError
from ..learners.generalization import behw_sample_size
from ..learners.randmargins_plan import NEIGHBOURS, _ip_domain_size, _to_add_remove, calibrate_randmargins
from ..learners.rectangles_composition import composition_calibration
from ..optimize.interior_point import ExponentialInteriorPoint
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability
from .registry import Bound, register_bound
from .search import first_feasible

__all__ = [
    "generalization_sample_size",
    "randmargins_sample_size",
    "composition_sample_size",
    "generic_pure_sample_size",
    "nonprivate_box_sample_size",
    "randmargins_crossover",
    "plan_sample_size",
]


def _directions(dimension: int, shape: str) -> int:
    check_choice(shape, "shape", ("box", "orthant"))
    d = check_int(dimension, "dimension", low=1)
    return 2 * d if shape == "box" else d


def _domain(domain_size) -> int:
    size = check_int(domain_size, "domain_size", low=2)
    return size


def generalization_sample_size(alpha: float, beta: float, vc: int) -> int:
    """Smallest integer ``n`` with ``n >= (16/alpha)(vc ln(2en/vc) + ln(8/beta))`` (fixed point)."""
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    vc = check_int(vc, "vc", low=1)
    n = 16.0 * vc / alpha
    for _ in range(200):
        nxt = (16.0 / alpha) * (vc * math.log(2.0 * math.e * n / vc) + math.log(8.0 / beta))
        if abs(nxt - n) < 1e-9 * n:
            n = nxt
            break
        n = nxt
    return math.ceil(n)


def randmargins_sample_size(
    epsilon: float = 1.0,
    delta: float = 1e-6,
    alpha: float = 0.1,
    beta: float = 0.1,
    domain_size: int = 2**16,
    dimension: int = 1,
    shape: str = "box",
    calibration: str = "explicit",
    tie_break_bits: int = 0,
    neighbours: str = "add-remove",
    ip=None,
) -> dict:
    """RandMargins' sufficient sample size with its window ``Delta`` and per-call parameters.

    ``tie_break_bits=0`` matches the spec's tables (no tags); the library's default learner uses
    32 bits, which enlarges the interior point's domain by ``2^32``.
    """
    ip = ExponentialInteriorPoint() if ip is None else ip
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, allow_zero=False)
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    check_choice(neighbours, "neighbours", NEIGHBOURS)
    D = _directions(dimension, shape)
    size = _domain(domain_size)
    bits = check_int(tie_break_bits, "tie_break_bits", low=0, high=64)
    eps_ar, delta_ar = _to_add_remove(epsilon, delta, neighbours)
    cal = calibrate_randmargins(eps_ar, delta_ar, D, pure=ip.is_pure, mode=calibration)
    beta_call = beta / (4.0 * D)
    window = int(
        ip.sample_complexity(cal.epsilon_call, cal.delta_call, beta_call, _ip_domain_size((size - 1,), bits, "robust"))
    )
    deletions = D * math.ceil(6.0 * window * math.log(1.0 / beta_call))
    n = max(math.ceil(2.0 * deletions / alpha), generalization_sample_size(alpha, beta, D))
    return {
        "n": n,
        "window": window,
        "mean_margin": 4.0 * window * math.log(1.0 / beta_call),
        "deletions": deletions,
        "epsilon_call": cal.epsilon_call,
        "delta_call": cal.delta_call,
        "directions": D,
    }


def composition_sample_size(
    epsilon: float = 1.0,
    delta: float = 1e-6,
    alpha: float = 0.1,
    beta: float = 0.1,
    domain_size: int = 2**16,
    dimension: int = 1,
    shape: str = "box",
    composition: str = "best",
    ip=None,
) -> dict:
    """The composition baseline's sufficient sample size (``composition="best"`` or ``"basic"``)."""
    ip = ExponentialInteriorPoint() if ip is None else ip
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    check_choice(composition, "composition", ("best", "basic"))
    k = _directions(dimension, shape)
    size = _domain(domain_size)
    if composition == "basic":
        eps0, delta0 = epsilon / k, (0.0 if ip.is_pure else delta / k)
        kind = "basic"
    else:
        cal = composition_calibration(epsilon, delta, k, pure=ip.is_pure)
        eps0, delta0, kind = cal.epsilon_each, cal.delta_each, cal.composition
    window = int(ip.sample_complexity(eps0, delta0, beta / (2.0 * k), size + 1))
    n = max(math.ceil(2.0 * k * window / alpha), generalization_sample_size(alpha, beta, k))
    return {"n": n, "window": window, "epsilon_call": eps0, "delta_call": delta0, "composition": kind, "calls": k}


def generic_pure_sample_size(
    epsilon: float = 1.0,
    alpha: float = 0.1,
    beta: float = 0.1,
    domain_size: int = 2**16,
    dimension: int = 1,
    shape: str = "box",
) -> int:
    """The exponential mechanism over all grid boxes (pure DP, exponential time)."""
    epsilon = check_epsilon(epsilon)
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    D = _directions(dimension, shape)
    size = _domain(domain_size)
    d = D // 2 if shape == "box" else D
    log_h = d * (math.log(size) + math.log(size + 1) - math.log(2)) if shape == "box" else d * math.log(size + 1)
    n = math.ceil((4.0 / (alpha * epsilon)) * (log_h + math.log(2.0 / beta)))
    return max(n, generalization_sample_size(alpha, beta, D))


def nonprivate_box_sample_size(alpha: float = 0.1, beta: float = 0.1, dimension: int = 1, shape: str = "box") -> int:
    """Any consistent learner (Blumer, Ehrenfeucht, Haussler, Warmuth 1989)."""
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    return math.ceil(behw_sample_size(alpha, beta, _directions(dimension, shape)))


def randmargins_crossover(
    epsilon: float = 1.0,
    delta: float = 1e-6,
    alpha: float = 0.1,
    beta: float = 0.1,
    domain_size: int = 2**16,
    calibration: str = "explicit",
    max_directions: int = 10**12,
) -> int | None:
    """The smallest number of directions ``D`` at which RandMargins' bound beats the baseline's.

    Both bounds are evaluated for the anchored class with ``D`` directions (boxes with ``D/2``
    coordinates give the same numbers). ``None`` if the crossover lies beyond ``max_directions``.
    """

    def rm_wins(D: int) -> bool:
        rm = randmargins_sample_size(epsilon, delta, alpha, beta, domain_size, D, "orthant", calibration)["n"]
        return rm < composition_sample_size(epsilon, delta, alpha, beta, domain_size, D, "orthant")["n"]

    if not rm_wins(max_directions):
        return None
    if rm_wins(1):
        return 1
    return first_feasible(rm_wins, 1, max_directions)


def _safe(fn, **kw):
    try:
        return fn(**kw)
    except InvalidParameterError as exc:
        return {"n": None, "unavailable": str(exc)}


def _randmargins_bound(
    epsilon=1.0,
    delta=1e-6,
    alpha=0.1,
    beta=0.1,
    domain_size=2**16,
    dimension=1,
    shape="box",
    tie_break_bits=0,
    neighbours="add-remove",
):
    kw = dict(
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        beta=beta,
        domain_size=domain_size,
        dimension=dimension,
        shape=shape,
        tie_break_bits=tie_break_bits,
        neighbours=neighbours,
    )
    paper = _safe(randmargins_sample_size, calibration="paper", **kw)
    explicit = randmargins_sample_size(calibration="explicit", **kw)
    return {
        "stated": paper["n"],
        "explicit": explicit["n"],
        "window_stated": paper.get("window"),
        "window_explicit": explicit["window"],
        "epsilon_call_stated": paper.get("epsilon_call"),
        "epsilon_call_explicit": explicit["epsilon_call"],
        "directions": explicit["directions"],
    }


def _composition_bound(epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, domain_size=2**16, dimension=1, shape="box"):
    kw = dict(
        epsilon=epsilon, delta=delta, alpha=alpha, beta=beta, domain_size=domain_size, dimension=dimension, shape=shape
    )
    best = composition_sample_size(**kw)
    basic = composition_sample_size(composition="basic", **kw)
    return {
        "stated": best["n"],
        "basic_composition": basic["n"],
        "window": best["window"],
        "epsilon_call": best["epsilon_call"],
        "composition": best["composition"],
    }


register_bound(
    Bound(
        "randmargins",
        "RandMargins: stated = the paper's calibration, explicit = privpac's (add/remove neighbours by default; "
        "--set neighbours=replace-one for the estimator's)",
        "Sadigurschi and Stemmer, Thm 3.2, Lemma 3.5; spec ss-rectangles 5.2",
        "upper",
        _randmargins_bound,
    )
)
register_bound(
    Bound(
        "rectangle-composition",
        "composition baseline: one interior point per side, basic or advanced composition",
        "Sadigurschi and Stemmer, section 1.2; spec ss-rectangles 5.2 item 7",
        "upper",
        _composition_bound,
    )
)
register_bound(
    Bound(
        "rectangle-pure-em",
        "generic pure-DP learner: exponential mechanism over every grid box (exponential time)",
        "Kasiviswanathan et al. 2011; spec ss-rectangles 5.2 item 8",
        "upper",
        lambda epsilon=1.0, alpha=0.1, beta=0.1, domain_size=2**16, dimension=1, shape="box": {
            "stated": generic_pure_sample_size(epsilon, alpha, beta, domain_size, dimension, shape)
        },
    )
)
register_bound(
    Bound(
        "rectangle-non-private",
        "any consistent learner of boxes (no privacy)",
        "Blumer, Ehrenfeucht, Haussler, Warmuth 1989; spec ss-rectangles 5.2 item 9",
        "upper",
        lambda alpha=0.1, beta=0.1, dimension=1, shape="box": {
            "stated": nonprivate_box_sample_size(alpha, beta, dimension, shape)
        },
    )
)
register_bound(
    Bound(
        "randmargins-crossover",
        "number of directions D (2d for boxes) from which RandMargins' bound beats the baseline's",
        "spec ss-rectangles 5.4",
        "upper",
        lambda epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, domain_size=2**16, calibration="explicit": {
            "directions": randmargins_crossover(epsilon, delta, alpha, beta, domain_size, calibration)
        },
    )
)


def plan_sample_size(plan, alpha: float, beta: float) -> int:
    """The sufficient sample size of spec 5.2 for a fixed plan (RandMargins or the baseline).

    For RandMargins the plan's per-round failure probability must be at most ``beta/(4D)`` (it is
    for :func:`~privpac.learners.randmargins_plan.plan_randmargins`); for the baseline ``beta/(2D)``.
    """
    from ..learners.randmargins_plan import RandMarginsPlan
    from ..learners.rectangles_composition import CompositionPlan

    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    D = plan.directions.n_directions
    if isinstance(plan, RandMarginsPlan):
        if plan.beta_call > beta / (4.0 * D) * (1 + 1e-12):
            raise InvalidParameterError(
                f"the plan's beta_call={plan.beta_call:.3g} exceeds beta/(4D)={beta / (4 * D):.3g}"
            )
        deletions = D * math.ceil(6.0 * plan.window * math.log(1.0 / plan.beta_call))
    elif isinstance(plan, CompositionPlan):
        if plan.beta_call > beta / (2.0 * D) * (1 + 1e-12):
            raise InvalidParameterError(
                f"the plan's beta_call={plan.beta_call:.3g} exceeds beta/(2D)={beta / (2 * D):.3g}"
            )
        deletions = D * plan.window
    else:
        raise InvalidParameterError(f"plan must be a RandMarginsPlan or a CompositionPlan, got {type(plan).__name__}")
    return max(math.ceil(2.0 * deletions / alpha), generalization_sample_size(alpha, beta, D))
