"""FindTukey: a private point of high Tukey depth (a private center point), for d = 1, 2 and 3.

Beimel, Moran, Nissim and Stemmer, "Private Center Points and Learning of Halfspaces" (COLT 2019),
Fig. 1 and Thm 3.6; spec ``bmns-center-points`` sections 4 (A2-A4, B3), 5 and 11.

Algorithm
---------
For a multiset ``S`` of ``n`` integer points of the public box ``X = Z^d ∩ [-B, B]^d``, pick the
output coordinate by coordinate. For ``i = 1 .. d``, with the earlier outputs
``p = (x*_1, ..., x*_{i-1})`` fixed:

1. ``D_i`` = the A3-rational candidate domain (:func:`~privpac.geometry.rational_domain.rational_domain`)
   for ``B``, ``d``, ``i`` and the running denominator ``t`` (a function of the earlier outputs);
2. the quality of a candidate ``v`` is the partial-assignment quality
   ``Q_p(v) = max over z of td((p, v, z); S)`` (Def 3.1), computed exactly as a step function over
   the indices of ``D_i`` from the nested depth intervals ``I_r`` (:func:`~privpac.geometry.depth_intervals`
   and :func:`~privpac.geometry.rational_domain.interval_quality`);
3. ``x*_i`` is chosen by the exponential mechanism over ``D_i`` (``optimizer="exponential"``, spec B3,
   the default) or by RecConcave with the proof's promise
   ``r_i = (n/(d+1)) (1 - (i-1)/(2d))``, accuracy ``alpha0 = 1/(2d)`` and failure probability
   ``beta0 = beta/d`` (``optimizer="recconcave"``, Fig. 1 with erratum 1 of spec section 11: the figure
   prints ``n/(d+1) - (i-1) n/(d(d+1))``; only the proof's value gives depth ``n/(2(d+1))``);
4. ``x*_i`` is written as its canonical pair ``p/(t q)`` and ``t <- t q``.

The output is a tuple of exact :class:`~fractions.Fraction` values, generally not a point of ``X``.

Privacy
-------
* For every fixed prefix and candidate ``v``, ``S -> Q_p(v)`` has sensitivity 1 under replace-one
  neighbours (Obs 2.16 for the depth, Lemma 3.4 for the maximum over completions). It is computed
  exactly: integer projections, Fraction interval ends, integer index breakpoints; in ``d = 2`` the
  regions are exact convex polygons (:mod:`privpac.geometry.contours`: the intersection of the pair
  halfplanes and axis constraints valid at each level, certified by integer signs), in ``d = 3`` exact
  LP optima certified by exact depths (:mod:`privpac.geometry.solids`), or over ``U(S ∪ E)`` for large
  boxes (spec A1), so the computed value *is* the true value and keeps sensitivity 1.
* ``D_i`` depends on ``B``, ``d``, ``i`` and the earlier private outputs only; the promise
  ``r_i`` on the public ``n``. Which computation runs and every refusal depend on ``(n, d)`` only.
* Each coordinate is one ``(eps0, delta0)``-DP call (the exponential mechanism is
  ``(eps0, 0)``-DP for a sensitivity-1 quality; RecConcave is ``(eps0, delta0)``-DP for *every*
  input, quasi-concave or not, promise kept or not: BNS Lemma 3.12). The ``d`` calls are adaptive
  (the ``i``-th domain and quality follow the earlier outputs) and composed by the basic theorem
  (``eps0 = eps/d``, ``delta0 = delta/d``; pure ``eps``-DP with the exponential mechanism) or the advanced one
  (``eps0 = eps/(2 sqrt(2 d ln(2/delta)))``, ``delta0 = delta/(2d)``, slack ``delta/2``, charged at
  the Dwork-Rothblum-Vadhan total). ``composition="auto"`` takes the larger ``eps0`` (public
  parameters only; basic for every ``d <= 3``).
* The whole plan is charged before any noise, on every path; nothing branches or aborts on the
  data (a failed promise changes nothing but the output's quality). No count of the records is
  returned.

Utility
-------
With probability ``1 - beta`` the output has depth ``>= n/(2(d+1))`` (in particular it lies in
``conv(S)``) once ``n`` reaches :attr:`FindTukeyPlan.sufficient_n`: for B3 the spec's
``2(d+1) (2/(alpha0 eps0)) (ln |D| + ln(d/beta))``; for RecConcave the smallest ``n`` whose
promises meet :func:`~privpac.optimize.recconcave_plan.required_quality` at every coordinate.

Dimension 3
-----------
The depth regions ``T(r)`` are intersections of the closed halfspaces ``u.x <= c_r(u)`` over the
normals ``U(S ∪ E)`` of the planes through three points of ``S ∪ E`` (spec A1); the ``x_i``-range
of ``T(r)`` given the prefix is an exact LP (:func:`~privpac.geometry.depth_intervals`, through
:mod:`privpac.geometry.exact_lp`: a HiGHS basis certified in rationals). Property (P) is the
A3-rational argument for ``d = 3``: an interval end is a vertex coordinate of
``T(r) ∩ {x_(<i) = p}``, a solution of ``4 - i`` equations ``u.x = c`` with normals of entries at
most ``M_u = 8 B^2`` and right-hand sides of denominator ``t``, so by Cramer's rule it is
``p/(t q)`` with ``q`` a minor bounded by Hadamard's ``Q_i``. Computed this way (``C(n + 4, 3)`` normals
times ``n`` points, work like ``n^4``) only for boxes with ``B >= 2**16``, up to :data:`MAX_POINTS_3D`.
Below that bound the same intervals come from certified cutting planes
(:class:`~privpac.geometry.solids.SpatialDepthRegions`: each interval end an exact LP over a small set of
valid constraints, its optimum certified by an exact Tukey depth, ``O(m^2 log m)`` for ``m`` distinct
points), up to :data:`MAX_POINTS_3D_SOLID` for ``B <= SOLID_MEASURED_BOX`` (measured) and :data:`MAX_POINTS_3D` above.
Both envelopes are :func:`max_points_3d` ``(B)``, checked from
the public ``(n, d, B)`` by :func:`check_find_tukey_size` before any point is read.

Directional depth (any dimension, ``depth="directional"``)
----------------------------------------------------------
Spec section 7 (the scalable variant): the exact depth regions need ``U(S ∪ E)``, about ``n^d``
normals, out of reach for ``d >= 4``. Over a *public* direction set ``U`` the same algorithm runs
on the directional depth ``depth_U`` (:func:`~privpac.geometry.directional_depth`): here ``U`` is
the net :func:`net_directions` of the primitive integer vectors with entries in ``[-K, K]``
(``K = 1`` by default: ``(3^d - 1)/2`` directions, 121 in ``d = 5``), which holds the coordinate
axes, so every region ``T_U(r)`` lies in the data's bounding box.

* Privacy: unchanged. ``depth_U`` is a minimum of sensitivity-1 counts, so it has sensitivity 1,
  and Lemma 3.4 (sensitivity and quasi-concavity of the partial-assignment quality) holds for any
  fixed ``U`` (spec section 7); ``U`` depends on ``(d, K)`` only. The quality is computed exactly
  (integer projections, the ``x_i``-ranges of the polytopes ``T_U(r) ∩ {x_(<i) = p}`` by certified
  LPs, :func:`~privpac.geometry.depth_intervals`).
* Domains (property (P)): an interval end is a vertex coordinate of ``T_U(r) ∩ {x_(<i) = p}``,
  the solution of ``k = d - i + 1`` equations ``u_(>=i) . z = c - u_(<i) . p`` with ``u`` in
  ``U`` (entries at most ``K``) and right-hand sides of denominator ``t``; by Cramer's rule it is
  ``p/(t q)`` with ``q <= Q_i = floor(sqrt(k^k K^(2k)))`` (Hadamard), inside ``[-B, B]``:
  :func:`net_directional_domain`.
* Utility: Thm 3.6's argument gives ``depth_U >= n/(2(d+1))`` with probability ``1 - beta`` for
  ``n >= sufficient_n`` (the promise holds because ``depth_U >= td`` and a center point of Tukey
  depth ``n/(d+1)`` exists). ``depth_U`` is only an upper bound of the Tukey depth: the output need
  **not** lie in ``conv(S)`` (a point can be deep in every direction of the net and still outside
  the hull). This is the price of the scalable variant; the exact Tukey depth keeps ``d <= 3``.
* Size: ``|U| n`` is bounded by :data:`~privpac.geometry.FINITE_DIRECTION_LIMIT` from the public
  ``(n, d, K)`` before any point is read.

Not implemented: the exact Tukey depth in ``d >= 4``, the lower bounds of section 5. LearnHalfSpace
(Fig. 2) is :mod:`privpac.learners.halfspace_tukey`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DomainError, InvalidParameterError
from ..geometry._exact import as_integer_points
from ..geometry.contours import PlanarDepthRegions
from ..geometry.directions import FINITE_DIRECTION_LIMIT, n_hyperplanes
from ..geometry.rational_domain import RationalDomain, hadamard_bounds, interval_quality, rational_domain
from ..geometry.regions import depth_intervals
from ..geometry.solids import SOLID_INT64_BOUND, SpatialDepthRegions
from ..optimize.coordinatewise import (
    COMPOSITIONS,
    OPTIMIZERS,
    check_optimizer,
    choose_coordinates,
    coordinate_budget,
    largest_domain_sizes,
)
from ..optimize.recconcave_plan import levels, required_quality
from ..random import data_key
from ..validation import (
    RenamedFields,
    cached_plan,
    check_budget_epsilon,
    check_choice,
    check_delta,
    check_int,
    check_probability,
    renamed_attribute,
    renamed_keywords,
)

__all__ = [
    "COMPOSITIONS",
    "DEPTHS",
    "FIND_TUKEY_DIMENSIONS",
    "MAX_POINTS_2D",
    "MAX_POINTS_3D",
    "MAX_POINTS_3D_SOLID",
    "SOLID_MEASURED_BOX",
    "OPTIMIZERS",
    "FindTukeyPlan",
    "FindTukeyResult",
    "box_directions",
    "check_find_tukey_size",
    "find_tukey",
    "max_points_3d",
    "net_directional_domain",
    "net_directions",
    "plan_find_tukey",
    "sufficient_n_over",
    "promise_values",
]

#: The largest ``n`` with ``C(n + 4, 3) n <= FINITE_DIRECTION_LIMIT`` (the public ``d = 3`` envelope).
MAX_POINTS_3D = max(k for k in range(1, 400) if n_hyperplanes(k + 4, 3) * k <= FINITE_DIRECTION_LIMIT)
#: The public ``d = 3`` envelope of the certified cutting planes (:class:`~privpac.geometry.solids.SpatialDepthRegions`,
#: coordinates below ``SOLID_INT64_BOUND = 2**16``): ``O(R m^2 log m)`` work per coordinate for ``R <= n`` levels
#: and ``m <= n`` distinct points; measured in ``docs/algorithms/center-points.md``.
MAX_POINTS_3D_SOLID = 1_000
#: The largest box bound on which ``n = MAX_POINTS_3D_SOLID`` was measured within five minutes: the work grows with
#: the distinct points (at most ``(2B + 1)^3``), and at ``B = 16`` a fit of 1,000 Gaussian points ran past 400 s of
#: wall time (docs/algorithms/center-points.md). Larger boxes keep ``MAX_POINTS_3D``.
SOLID_MEASURED_BOX = 5
#: The public ``d = 2`` envelope: the exact regions (:class:`~privpac.geometry.contours.PlanarDepthRegions`) keep
#: about ``n^2 / 2`` pair halfplanes (12 bytes each) and take ``O(n^2 log n)`` time; measured 3.3 GB and a few
#: minutes at ``n = 10^4`` (``benchmarks/center_points.py --only scale``).
MAX_POINTS_2D = 10_000
#: Dimensions with an exact implementation.
FIND_TUKEY_DIMENSIONS = (1, 2, 3)
#: The depth FindTukey maximises: the exact Tukey depth, or the directional depth over the public net.
DEPTHS = ("tukey", "directional")


def n_net_directions(d: int, K: int = 1) -> int:
    """``|net_directions(d, K)|`` without building it: at most ``((2K + 1)^d - 1) / 2`` (equal for ``K = 1``)."""
    return ((2 * K + 1) ** d - 1) // 2


def net_directions(d: int, K: int = 1) -> np.ndarray:
    """The primitive integer vectors with entries in ``[-K, K]``, one of each ``±`` pair (public).

    Contains the coordinate axes (so the directional regions stay in the data's bounding box). For
    ``K = 1``: the ``(3^d - 1)/2`` nonzero vectors of ``{-1, 0, 1}^d`` whose first nonzero entry is 1.
    """
    d = check_int(d, "d", low=1)
    K = check_int(K, "K", low=1)
    if n_net_directions(d, K) > FINITE_DIRECTION_LIMIT:
        raise InvalidParameterError(
            f"the direction net of d = {d}, K = {K} has about {n_net_directions(d, K):,} directions, above "
            f"FINITE_DIRECTION_LIMIT = {FINITE_DIRECTION_LIMIT:,}"
        )
    axis = np.arange(-K, K + 1, dtype=np.int64)
    grid = np.stack(np.meshgrid(*([axis] * d), indexing="ij"), axis=-1).reshape(-1, d)
    nonzero = grid[np.any(grid != 0, axis=1)]
    first = nonzero[np.arange(len(nonzero)), np.argmax(nonzero != 0, axis=1)]
    half = nonzero[first > 0]
    primitive = np.gcd.reduce(np.abs(half), axis=1) == 1
    return half[primitive]


def net_directional_domain(B: int, d: int, i: int, t: int = 1, K: int = 1) -> RationalDomain:
    """Public A3-rational candidates for coordinate ``i`` of the directional regions over :func:`net_directions`.

    ``p/(t q)`` in ``[-B, B]`` with ``q <= Q_i = floor(sqrt(k^k K^(2k)))``, ``k = d - i + 1`` (module
    docstring, "Directional depth"). Depends on ``B``, ``d``, ``i``, ``t`` and ``K`` only.
    """
    d = check_int(d, "d", low=1)
    i = check_int(i, "i", low=1)
    if i > d:
        raise InvalidParameterError(f"coordinate i = {i} must be at most d = {d}")
    k = d - i + 1
    K = check_int(K, "K", low=1)
    return RationalDomain(check_int(B, "B", low=1), check_int(t, "t", low=1), math.isqrt(k**k * K ** (2 * k)))


def promise_values(n: int, d: int) -> list[Fraction]:
    """The proof's promises ``r_i = (n/(d+1)) (1 - (i-1)/(2d))``, ``i = 1 .. d`` (exact).

    Spec section 4 (A4) and erratum 1 of section 11: Fig. 1 prints ``n/(d+1) - (i-1) n/(d(d+1))``,
    but the induction of Thm 3.6 uses ``(1 - 1/(2d)) (1 - (i-1)/(2d)) >= 1 - i/(2d)``, which only
    the proof's value satisfies. ``r_d = n/(2d) >= n/(2(d+1))``.
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=1)
    return [Fraction(n, d + 1) * (1 - Fraction(i - 1, 2 * d)) for i in range(1, d + 1)]


@dataclass(frozen=True)
class FindTukeyPlan(RenamedFields):
    """Everything FindTukey decides before reading the data (all public)."""

    _renamed_fields = {"mode": "optimizer", "B": "bound"}

    n: int
    d: int
    bound: int  # B: the box is [-B, B]^d
    epsilon: float
    delta: float
    beta: float
    optimizer: str
    composition: str
    epsilon0: float
    delta0: float
    alpha0: float
    beta0: float
    total: tuple[float, float]
    promises: tuple[Fraction, ...]
    domain_bounds: tuple[int, ...]  # largest |D_i| over every possible running denominator
    sufficient_n: int
    depth: str = "tukey"

    def describe(self) -> list[str]:
        return [
            f"FindTukey plan: d={self.d}, B={self.bound}, n={self.n}, optimizer={self.optimizer}, "
            f"composition={self.composition}, depth={self.depth}",
            f"  per coordinate: epsilon0={self.epsilon0:.6g}, delta0={self.delta0:.3g}, alpha0={self.alpha0:g}, "
            f"beta0={self.beta0:g}",
            f"  total: epsilon={self.total[0]:.6g}, delta={self.total[1]:.3g}",
            f"  sufficient n for depth >= n/(2(d+1)) with probability 1 - beta: {self.sufficient_n:,}",
        ]


def max_points_3d(B: int | None = None) -> int:
    """The public ``d = 3`` envelope for the box ``[-B, B]^3``: :data:`MAX_POINTS_3D_SOLID` up to
    :data:`SOLID_MEASURED_BOX` (the certified cutting planes, measured there), else :data:`MAX_POINTS_3D` (computed
    by the cutting planes below :data:`~privpac.geometry.solids.SOLID_INT64_BOUND`, by the planes through three
    points of ``S ∪ E`` above). ``B=None`` (not yet known) gives the larger."""
    if B is None or check_int(B, "B", low=1) <= SOLID_MEASURED_BOX:
        return MAX_POINTS_3D_SOLID
    return MAX_POINTS_3D


def check_find_tukey_size(n: int, d: int, depth: str = "tukey", B: int | None = None) -> None:
    """Refuse, from the public ``(n, d, B)`` alone, what is not implemented: the Tukey depth in ``d >= 4``,
    in ``d = 2`` above :data:`MAX_POINTS_2D`, and in ``d = 3`` above :func:`max_points_3d` ``(B)``
    (:data:`MAX_POINTS_3D_SOLID` for ``B <= SOLID_MEASURED_BOX``; :data:`MAX_POINTS_3D` for larger boxes, where
    above ``2**16`` ``C(n + 4, 3) n`` reaches :data:`~privpac.geometry.FINITE_DIRECTION_LIMIT`);
    the directional depth with ``|U| n`` above the same limit."""
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=1)
    check_choice(depth, "depth", DEPTHS)
    if depth == "directional":
        if n_net_directions(d) * n > FINITE_DIRECTION_LIMIT:
            raise InvalidParameterError(
                f"FindTukey over the directional net in d = {d} needs |U| * n = {n_net_directions(d) * n:,} steps, "
                f"above FINITE_DIRECTION_LIMIT = {FINITE_DIRECTION_LIMIT:,}: use a public random subsample"
            )
        return
    if d not in FIND_TUKEY_DIMENSIONS:
        raise InvalidParameterError(
            f"FindTukey is implemented exactly for d <= 3 only, got d = {d}: for d >= 4 the exact depth regions "
            "of a partial assignment (spec A2) are out of reach; use depth='directional' (the directional depth "
            "over a public net of directions: the same algorithm and privacy, but the output need not lie in the "
            "convex hull), or for classification with a margin the large-margin learner "
            "(privpac.estimators.PrivateHalfspaceClassifier)"
        )
    if d == 2 and n > MAX_POINTS_2D:
        raise InvalidParameterError(
            f"FindTukey in d = 2 builds the exact depth regions from about n^2 / 2 pair halfplanes: n = {n:,} is above "
            f"MAX_POINTS_2D = {MAX_POINTS_2D:,} (memory grows as n^2); use a public random subsample of the points"
        )
    if d == 3 and n > max_points_3d(B):
        if B is not None and B >= SOLID_INT64_BOUND:
            raise InvalidParameterError(
                f"FindTukey in d = 3 on a box of bound B = {B} (at least SOLID_INT64_BOUND = {SOLID_INT64_BOUND:,}) is "
                f"exact for small n only: n = {n} needs C(n + 4, 3) * n = {n_hyperplanes(n + d + 1, d) * n:,} steps "
                f"(planes through three points times points), above FINITE_DIRECTION_LIMIT = "
                f"{FINITE_DIRECTION_LIMIT:,} (n <= MAX_POINTS_3D = {MAX_POINTS_3D}); use a public random subsample of "
                "the points or a smaller box"
            )
        if B is not None and B > SOLID_MEASURED_BOX:
            raise InvalidParameterError(
                f"FindTukey in d = 3 on a box of bound B = {B} runs up to n = MAX_POINTS_3D = {MAX_POINTS_3D} points "
                f"(got n = {n:,}): its certified cutting planes grow with the distinct points, and "
                f"MAX_POINTS_3D_SOLID = {MAX_POINTS_3D_SOLID:,} points were measured within five minutes only on boxes "
                f"with B <= SOLID_MEASURED_BOX = {SOLID_MEASURED_BOX}; use a public random subsample of the points or "
                "a coarser public grid"
            )
        raise InvalidParameterError(
            f"FindTukey in d = 3 certifies every level's extent by exact depths, O(n^3 log n) work: n = {n:,} is above "
            f"MAX_POINTS_3D_SOLID = {MAX_POINTS_3D_SOLID:,}; use a public random subsample of the points"
        )


def _domain_bounds(B: int, d: int, depth: str = "tukey") -> tuple[int, ...]:
    """``max |D_i|`` over every running denominator ``t <= Q_1 ... Q_{i-1}`` (public)."""
    if depth == "directional":
        return largest_domain_sizes(d, lambda i, t: net_directional_domain(B, d, i, t))
    _, Q = hadamard_bounds(B, d)  # the bounds of rational_domain(B, d, i, t), computed once
    return largest_domain_sizes(d, lambda i, t: RationalDomain(B, t, Q[i - 1]))


def sufficient_n_over(bounds, optimizer: str, d: int, *, beta, eps0, delta0, alpha0, beta0, promises, n: int) -> int:
    """FindTukey's sufficient sample size over per-coordinate domains of sizes ``bounds`` (public inputs only).

    ``optimizer="exponential"`` (spec B3): ``n >= 2(d+1) (2/(alpha0 eps0)) (ln |D| + ln(d/beta))`` for the
    largest domain; ``"recconcave"``: RecConcave's required quality over each domain, scaled by that
    coordinate's promise ``promises[i] / n``. One formula for the exact domains
    (:func:`plan_find_tukey`) and the directional ones (:func:`privpac.learners.halfspace_tukey.plan_learn_halfspace`).
    """
    if optimizer == "exponential":
        log_d = max(math.log(b) for b in bounds)
        need = 2 * (d + 1) * (2.0 / (alpha0 * eps0)) * (log_d + math.log(d / beta))
    else:
        need = 0.0
        for i, size in enumerate(bounds):
            req = required_quality(size - 1, alpha0, beta0, eps0, delta0, levels(size - 1))
            need = max(need, req / float(promises[i] / n))
    return math.ceil(need)


@renamed_keywords(mode="optimizer", B="bound")
@cached_plan()
def plan_find_tukey(
    n: int,
    d: int,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    beta: float = 0.1,
    optimizer: str = "exponential",
    composition: str = "auto",
    depth: str = "tukey",
) -> FindTukeyPlan:
    """The budget split, promises and sufficient sample size of FindTukey (public inputs only).

    ``depth="directional"`` plans the run over the public net (:func:`net_directions`, module
    docstring). Raises :class:`~privpac.errors.InvalidParameterError` for an unsupported size
    (:func:`check_find_tukey_size`),
    ``optimizer="recconcave"`` with ``delta = 0``, ``composition="advanced"`` with ``delta = 0``, or an
    advanced composition whose total exceeds ``epsilon`` (large ``epsilon``; use basic).
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=1)
    B = check_int(bound, "bound", low=1)
    check_find_tukey_size(n, d, depth, B)
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    beta = check_probability(beta, "beta")
    check_optimizer(optimizer)
    composition, eps0, delta0, total = coordinate_budget(composition, optimizer == "exponential", epsilon, delta, d)
    alpha0, beta0 = 1.0 / (2 * d), beta / d
    promises = tuple(promise_values(n, d))
    bounds = _domain_bounds(B, d, depth)
    need = sufficient_n_over(
        bounds, optimizer, d, beta=beta, eps0=eps0, delta0=delta0, alpha0=alpha0, beta0=beta0, promises=promises, n=n
    )
    return FindTukeyPlan(
        n=n,
        d=d,
        bound=B,
        epsilon=epsilon,
        delta=delta,
        beta=beta,
        optimizer=optimizer,
        composition=composition,
        epsilon0=eps0,
        delta0=delta0,
        alpha0=alpha0,
        beta0=beta0,
        total=total,
        promises=promises,
        domain_bounds=bounds,
        sufficient_n=need,
        depth=depth,
    )


@dataclass(frozen=True)
class FindTukeyResult:
    """The private output ``center`` (exact) and the public plan it ran."""

    center: tuple[Fraction, ...]
    plan: FindTukeyPlan


def box_directions(B: int) -> np.ndarray:
    """One of each ``±`` pair of primitive integer vectors ``(a, b)`` with ``|a|, |b| <= 2B``.

    This is ``U(X ∪ E)`` for the box ``X = Z^2 ∩ [-B, B]^2`` (``E ⊂ X`` for ``B >= 1``): the normal
    of the line through two points of ``X`` is their difference turned by 90 degrees, and every
    primitive vector with entries at most ``2B`` is such a difference. It contains ``U(S ∪ E)`` for
    every ``S ⊆ X``, so the depth over it is exact (spec A1), and it is public.
    """
    B = check_int(B, "B", low=1)
    m = 2 * B
    rows = [(1, 0)]
    for a in range(0, m + 1):
        for b in range(-m, m + 1):
            if (a > 0 or b > 0) and math.gcd(a, b) == 1 and (a, b) != (1, 0):
                rows.append((a, b))
    return np.asarray(sorted(set(rows)), dtype=np.int64)


def check_points_in_box(
    X, B: int, d: int | None = None, name: str = "X", what: str = "domain", first_row: int = 0
) -> np.ndarray:
    """``X`` as an exact ``(n, d)`` integer array inside ``[-B, B]^d``; DataError or DomainError otherwise
    (naming the first entry outside the declared ``what``, rows counted from ``first_row``)."""
    arr, bound = as_integer_points(X, name, d=d, first_row=first_row)
    if bound > B:
        bad = np.argwhere(np.abs(arr.astype(object)) > B)[0]
        r, c = int(bad[0]), int(bad[1])
        raise DomainError(f"{name}[{first_row + r}, {c}] = {arr[r, c]} lies outside the declared {what} [-{B}, {B}]")
    return arr


@renamed_keywords(mode="optimizer", B="bound")
def find_tukey(
    S,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    beta: float = 0.1,
    optimizer: str = "exponential",
    composition: str = "auto",
    depth: str = "tukey",
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> FindTukeyResult:
    """A private point of high Tukey depth of ``S ⊆ Z^d ∩ [-B, B]^d``, ``d in {1, 2, 3}`` (Fig. 1),
    or of high directional depth in any ``d`` (``depth="directional"``, module docstring).

    Parameters
    ----------
    S : array-like of shape (n, d)
        Integer points (the private data; replace-one neighbours, ``n`` public).
    bound : int
        The public bound ``B`` of the box ``[-B, B]^d`` (``B >= 1``).
    epsilon, delta : float
        Total budget. ``optimizer="exponential"`` with basic composition spends ``(epsilon, 0)``.
    beta : float, default=0.1
        Failure probability of the utility guarantee (``beta0 = beta/d`` per coordinate).
    optimizer : {"exponential", "recconcave"}, default="exponential"
        The per-coordinate optimiser: the exponential mechanism (spec B3) or RecConcave with its
        full recursion (Fig. 1).
    composition : {"auto", "basic", "advanced"}, default="auto"
        How the ``d`` coordinates are composed (module docstring).
    depth : {"tukey", "directional"}, default="tukey"
        The exact Tukey depth (``d <= 3``), or the directional depth over the public net
        :func:`net_directions` (any ``d``; the output need not lie in ``conv(S)``).
    ledger : PrivacyLedger, optional
        Charged (one composed block) before any noise.
    rng : None, int or RandomSource
        ``None`` is secure randomness.

    Returns
    -------
    FindTukeyResult
        ``center``: the output, a tuple of ``d`` Fractions; ``plan``: the public plan.

    Privacy: (epsilon, delta)-DP for every input (module docstring). Utility: depth
    ``>= n/(2(d+1))`` with probability ``1 - beta`` when ``n >= plan.sufficient_n``.
    """
    B = check_int(bound, "bound", low=1)
    shape = np.shape(S)
    check_choice(depth, "depth", DEPTHS)
    if len(shape) == 2 and shape[0] and shape[1]:  # the public sizes first: nothing unsupported reads a point
        check_find_tukey_size(int(shape[0]), int(shape[1]), depth, B)
    arr = check_points_in_box(S, B, name="S")
    n, d = arr.shape
    plan = plan_find_tukey(
        n, d, B, epsilon, delta, beta=beta, optimizer=optimizer, composition=composition, depth=depth
    )
    if depth == "directional":
        directions = net_directions(d)
        domain_for = lambda i, t: net_directional_domain(B, d, i, t)  # noqa: E731
    else:
        # d = 1: the one direction; d = 2: the regions as exact polygons, built once for both coordinates
        # (PlanarDepthRegions); d = 3: certified cutting planes, or U(S ∪ E) for B >= 2**16 (the size was
        # checked from (n, d, B) by check_find_tukey_size).
        directions = np.ones((1, 1), dtype=np.int64) if d == 1 else None
        domain_for = lambda i, t: rational_domain(B, d, i, t)  # noqa: E731
    built: list = []  # the regions, built on the first quality asked for (an exact audit may reuse every quality)

    def regions(build):
        if not built:
            built.append(build(arr))
        return built[0]

    if depth == "tukey" and d == 2:
        intervals = lambda prefix: regions(PlanarDepthRegions).intervals(prefix)  # noqa: E731
    elif depth == "tukey" and d == 3 and B < SOLID_INT64_BOUND:
        # the regions by certified cutting planes; the working set of constraints carries over between levels
        # and prefixes (the same exact intervals as over U(S ∪ E))
        intervals = lambda prefix: regions(SpatialDepthRegions).intervals(prefix)  # noqa: E731
    else:
        intervals = lambda prefix: depth_intervals(arr, prefix, directions=directions)  # noqa: E731
    if ledger is None:
        ledger = PrivacyLedger(plan.epsilon, plan.delta, label="FindTukey")
    center = choose_coordinates(
        plan,
        d,
        domain_for,
        lambda domain, prefix: interval_quality(domain, intervals(prefix)),
        exponential=plan.optimizer == "exponential",
        name="FindTukey",
        over_for=lambda domain: (
            f"the rational candidates p/(t q) in [-{B}, {B}], q <= {domain.Q}, t from the earlier coordinates "
            "(spec A3-rational)"
        ),
        ledger=ledger,
        rng=rng,
        data_key=data_key(arr),
    )
    return FindTukeyResult(center, plan)


#: Names this module no longer defines, and what replaced them (one name per concept across the two
#: halfspace papers' modules): importing an old one raises ImportError naming the new one.
_RENAMED = {
    "MODES": "OPTIMIZERS",
    "SUPPORTED_DIMENSIONS": "FIND_TUKEY_DIMENSIONS",
    "check_public_size": "check_find_tukey_size",
    "directional_domain": "net_directional_domain",
}


def __getattr__(name: str):
    return renamed_attribute(__name__, name, _RENAMED)
