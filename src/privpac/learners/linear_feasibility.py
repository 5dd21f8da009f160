"""FindDeepPoint: private linear feasibility, exact in dimension D = 1, 2 and 3, with the spec's corrections.

Kaplan, Mansour, Stemmer and Tsfadia, "Private learning of halfspaces: simplifying the construction
and reducing the sample complexity" (NeurIPS 2020), Fig. 1 (OptimizeHighDimFunc, Thm 3.7) and
Fig. 2 (FindDeepPoint, Thm 4.6); spec ``kmst-halfspaces`` sections 2-4, 3.7, 6.2, 6.3 and 10.

Problem
-------
The private data is a system ``S = ((a_l, w_l))_{l=1..m}`` of integer constraints
``<a_l, x> >= w_l`` with ``a_l in [[-X, X]]^D`` and ``w_l in [[-X, X]]`` for a *public* bound ``X``.
Neighbouring systems differ in one constraint (replace-one: ``m`` is public). The goal is a point
``x* in Q^D`` that satisfies at least ``(1 - alpha) m`` constraints when ``S`` is feasible.

Algorithm (corrected, spec 3.3 with 3.7 items 2, 4, 5 and 6.2)
---------------------------------------------------------------
The score is the boxed depth ``f_B(S, x) = depth_S(x) 1[x in B]``, ``B = [-R, R]^D``,
``R = ceil(D^(D/2)) X^D`` (spec 3.7 item 4, :func:`~privpac.geometry.feasibility.bounding_box_radius`;
flag 6 of spec section 10: without the box the convex hulls need not be closed). A feasible system
has a feasible point in ``B``, so ``max f_B = m`` and the public ``M = m`` is the right promise
(flag 3: never a computed maximum). For ``i = 1 .. D``, with the earlier outputs
``p = (x*_1, ..., x*_{i-1})`` fixed:

1. the quality of a value ``t`` is ``Q_i(t) = max over completions z of cdepth_B(S, (p, t, z))``
   (Def 3.3), computed exactly from the nested level intervals
   ``I_k = {t : (p, t) in pi_{<=i}(conv(V_k))}`` (spec 6.2: ``V_k`` are the arrangement vertices of
   depth ``>= k``, box facets included): the level interval itself for ``D = 1``
   (:func:`~privpac.geometry.convexified.convex_levels`); for ``D = 2, 3`` the vertices and their
   depths come from line sweeps (:mod:`privpac.geometry.arrangement`) and
   :class:`~privpac.geometry.point_levels.PointLevels` answers the ``x_1``-range of ``conv(V_k)`` for
   ``i = 1``, the slice at ``x_1 = x*_1`` of the 2-D hull of its projection for ``i = 2``, and exact
   LPs for ``i = 3``. Never the paper's App. B.2 breakpoint list, which computes a different
   function (flag 5: Lemma 4.3/B.2 are false for ``i >= 2``);
2. the candidate domain is public, one of two (``candidate_domain=``), both with bound ``R``, the running
   denominator ``t`` and the denominator bound ``Q_i`` of :func:`denominator_bounds`:

   * ``"a3-rational"`` (default): the A3-rational domain
     :class:`~privpac.geometry.rational_domain.RationalDomain`, the pairs ``(p, q)``, ``q <= Q_i``,
     valued ``p/(t q)`` (the pattern of FindTukey, :mod:`privpac.learners.center_point`);
   * ``"mode-c"``: the spec's integer domain (3.7 item 5, 6.3),
     :class:`~privpac.geometry.rational_domain.SimplestFractionDomain`: the integers
     ``z in [[-R t U^2, R t U^2]]``, ``U = Q_i``, decoded by ``phi(z) = c(z)/t`` with ``c(z)`` the
     fraction of denominator ``<= U`` in ``[z/U^2, (z+1)/U^2)`` (unique), else ``z/U^2``. The spec
     takes ``U_i = ceil(i^(i/2)) V_max^i``; any ``U`` that bounds the denominators of the
     level-interval ends times ``t`` gives property (P), and ``Q_i`` is the bound proved below
     (smaller, so the domain is smaller);

   the quality is turned into a :class:`~privpac.stepfunc.StepFunction` over the domain's indices
   by :func:`~privpac.geometry.rational_domain.interval_quality`;
3. ``x*_i`` is drawn by the exponential mechanism over the domain (``optimizer="exponential"``,
   spec 3.7 item 6, pure DP, the default) or by RecConcave with promise
   ``r_i = (1 - alpha~)^(i-1) m``, accuracy ``alpha~ = alpha/(2 D (D+1))`` and failure probability
   ``beta/D`` (``optimizer="recconcave"``, Fig. 1), fed the truncated quality below;
4. ``x*_i`` is written as ``s/(t q)`` (A3-rational: the smallest ``q``; mode C: ``q`` the denominator
   ``phi`` produced, ``U^2`` for a value of the fallback) and ``t <- t q``, so the denominator of
   every earlier output divides ``t``.

Truncation from below (spec 3.7 item 3, 8 item 8; RecConcave only)
-------------------------------------------------------------------
RecConcave is fed ``Q^tau_i = max(Q_i, tau_i)`` with the public
``tau_i = ceil((1 - alpha~) r_i) - 1`` (:func:`truncation_levels`, exact): the levels ``k <= tau_i``
of the step function collapse to the constant ``tau_i`` (``interval_quality(..., floor=tau_i)``).

* *Privacy*: ``tau_i`` is a function of ``m``, ``D`` and ``alpha`` only, all public;
  ``t -> max(t, tau)`` is 1-Lipschitz, so ``|Q^tau_S - Q^tau_S'| <= |Q_S - Q_S'| <= 1`` on
  neighbours, and RecConcave is ``(eps0, delta0)``-DP for every sensitivity-1 input. A ``tau`` read
  off the data is not covered (the mutant "RecConcave truncated at a level read off the data" in
  ``tests/privacy/test_mutations.py`` is flagged by the exact audit).
* *Utility*: ``max(Q, tau)`` is quasi-concave (its superlevel sets are the whole domain or those of
  ``Q``) with the same maximum when ``max Q > tau``; RecConcave's guarantee for it,
  ``Q^tau(x*) >= (1 - alpha~) r_i > tau_i``, forces ``Q(x*) = Q^tau(x*)``, so Thm 3.7's chain is
  unchanged (the recursion's quality ``L`` no longer sees the levels far below the promise).
* *Not for the exponential mechanism*: raising every candidate of quality ``<= tau`` to weight
  ``exp(eps0 tau / 2)`` multiplies the mass of the bad candidates by up to
  ``exp(eps0 tau / 2)``, which on the huge domains here swamps the good ones: ``truncate=True``
  with ``optimizer="exponential"`` is refused. ``truncate=False`` reproduces the untruncated
  RecConcave run.

The levels at or below ``tau_i`` get no LP (``coordinate_quality`` passes ``tau_i`` on to
:meth:`~privpac.geometry.point_levels.PointLevels.intervals`, whose entries there are never read by
the truncated quality); the vertices and their depths are still all computed.

Why the domain holds a maximiser (property (P), Requirement 3.6)
-----------------------------------------------------------------
Every end of a non-empty level interval is a member of the domain, so the top non-empty level
interval (the argmax set of ``Q_i``) holds one. The vertices are solutions of two of the lines
``<a_l, x> = w_l``, ``+-x_j = -R`` (entries at most ``X``, and 1 for the box), so by Cramer's rule
they are ``P/q`` with ``1 <= q <= Qv = D! X^D`` (``2 X^2`` for ``D = 2``; ``X`` for ``D = 1``) and
``|P| <= R q``. Hence:

* ``D = 1``: the ends are vertices: ``Q_1 = X`` (and ``R = X``);
* ``D = 2``, ``i = 1``: the ends are vertex abscissae: ``Q_1 = 2 X^2``;
* ``D = 2``, ``i = 2``: an end is a vertex on the line ``x_1 = x*_1`` (denominator ``q <= Qv``) or the
  crossing of that line with a hull edge through vertices ``u = P/q``, ``v = P'/q'``. That edge lies
  on ``n_1 x_1 + n_2 x_2 = c`` with the integers ``n_1 = P'_2 q - P_2 q'``,
  ``n_2 = P_1 q' - P'_1 q`` and ``c = P_1 P'_2 - P'_1 P_2``, and ``x*_1 = s/t`` with ``t`` the
  running denominator, so the end is ``(c t - n_1 s)/(n_2 t)``: a value ``p/(t q)`` with
  ``q = |n_2| <= 2 R Qv^2 = 16 X^6``.
* ``D = 3`` (``R = 6 X^3``, ``Qv = 3! X^3 = 6 X^3``): ``i = 1``: vertex abscissae, ``Q_1 = Qv``;
  ``i = 2``: a projected vertex on ``x_1 = x*_1`` or the crossing of that line with an edge of the
  projected hull, the ``D = 2`` argument word for word: ``Q_2 = 2 R Qv^2``; ``i = 3``: the optimum of
  the LP ``min / max sum_v y_v P_v,3 / t`` over ``sum_v y_v (P_v,1, P_v,2, q_v) = (s_1, s_2, t)``,
  ``y >= 0`` (vertices ``P_v / q_v``, prefix ``s / t``) is attained at a basic solution, so by
  Cramer's rule it is ``p / (t q)`` with ``q`` the absolute value of a (square, at most 3 x 3) minor
  of the matrix with rows ``P_1``, ``P_2``, ``q``: each term picks entries of at most
  ``R Qv``, ``R Qv`` and ``Qv``, so ``q <= Q_3 = 6 R^2 Qv^3`` (a smaller minor, when a row is
  redundant, is bounded by the same number).

All values lie in ``[-R, R]`` (the hulls are inside the box). The argument uses only that every
earlier output is an integer over the running denominator ``t``, which both chains keep (step 4).
So an end ``p/(t q)``, ``q <= Q_i``, is a pair of the A3-rational domain, and, since ``end * t = p/q``
has denominator at most ``Q_i = U``, it is the fraction ``c(z)`` of its cell ``z = floor(end t U^2)``
in mode C: both domains hold every end.
``tests/papers/kmst_linear_feasibility/test_linear_feasibility.py`` checks (P) for both domains on random systems
and prefixes in ``D = 1, 2, 3`` (and that the ends' indices decode exactly to them),
and on the spec's counterexample to Lemma 4.3, whose argmax ``[3/10, 209/140]`` at ``x*_1 = -6/5``
holds no slice-arrangement point.

Privacy
-------
* Sensitivity of the quality (Claim 3.5, spec 2.2): replacing one constraint changes ``f_B`` by at
  most 1 at every point, so ``{f_B(S') >= y} ⊆ {f_B(S) >= y - 1}``, their hulls and the projections
  of the slices are nested the same way, and ``|Q_i(S, t) - Q_i(S', t)| <= 1`` for every prefix and
  every ``t``. The computed ``Q_i`` *is* this function: integer vertices and depths, Fraction hull
  and slice, exact index breakpoints (spec 4 (a)); the key fact ``conv(D_k ∩ B) = conv(V_k)``
  (spec 6.2 step 3) holds because the constraints are closed.
* The domain depends on ``X``, ``D``, ``i`` and the earlier outputs only; ``R``, the promises
  ``r_i`` and ``M = m`` on public parameters and the public ``m`` (spec 4 (b)). Neighbours are
  replace-one (spec 4 (c)).
* Each coordinate is one ``(eps0, delta0)``-DP call: the exponential mechanism is ``(eps0, 0)``-DP
  for a sensitivity-1 quality; RecConcave is ``(eps0, delta0)``-DP for every input (quasi-concave or
  not, promise kept or not; spec 2.4). The ``D`` calls are adaptive (the ``i``-th domain and quality
  follow the earlier outputs) and composed by the basic theorem (``eps0 = eps/D``,
  ``delta0 = delta/D``) or the advanced one (Thm 4.6's split, spec 4); ``composition="auto"`` takes
  the larger ``eps0`` from public parameters (spec 3.7 item 2: basic for every ``D <= 3``), so the
  default is pure ``eps``-DP (Thm 4.6's privacy, with the spec's corrections 3 and 5).
* The whole plan is charged before any draw; nothing branches or aborts on the data: infeasible
  systems run the same ``D`` draws (RecConcave's failures only lower the output's quality). No
  count of satisfied constraints is returned.

Utility
-------
If ``S`` is feasible and ``m >= plan.sufficient_m``, with probability ``1 - beta`` the output has
``depth >= (1 - alpha) m`` (Thm 3.7 with Claim 4.1 for ``f_B``, ``Delta = D + 1``). For the
exponential mechanism ``sufficient_m`` is
``max_i 2 (ln |D_i| + ln(D/beta)) / (eps0 alpha~ (1 - alpha~)^(i-1))``; for RecConcave the smallest
``m`` whose promises meet :func:`~privpac.optimize.recconcave_plan.required_quality`.

Size envelope
-------------
``D = 2`` keeps ``O(r^2)`` vertices of ``r`` distinct rows and is refused above
:data:`MAX_DISTINCT_ROWS_2D` possibly distinct rows; ``D = 3`` sweeps ``C(m + 6, 2)`` lines, keeps
up to ``C(m + 6, 3)`` vertices and solves one LP per level for ``i = 3``, and is refused from the
public ``m`` above :data:`MAX_CONSTRAINTS_3D` (spec 6.5; measured fit times in
``docs/algorithms/linear-feasibility.md``). Both refusals come before any entry of the system is read. ``D >= 4``
is refused the same way; the message points to the large-margin learner
(:class:`~privpac.estimators.PrivateHalfspaceClassifier`).

Over a public candidate set (spec 6.5 option 1; not the paper's algorithm)
--------------------------------------------------------------------------
Beyond the exact envelope (``D >= 4``, or more constraints than the ``D = 2, 3`` caps), the score is
``f_P(S, x) = depth_S(x) 1[x in P]`` for a *public* finite set ``P`` of integer points in
``[[-C, C]]^D`` (``candidates=``: :func:`candidate_set`, :func:`random_candidates`, or
:func:`~privpac.learners.feasibility_halfspaces.halfspace_candidates` for the halfspace dual). Section 3
of the paper applies verbatim to this score:

* *Levels*: ``conv{z : f_P(S, z) >= k} = conv(P_k)``, ``P_k = {p in P : depth_S(p) >= k}``: the same
  nested-hull machinery as the exact oracle (:class:`~privpac.geometry.point_levels.PointLevels`:
  prefix extrema, exact 2-D hull slices, certified LPs; for a prefix of three or more coordinates an
  exact feasibility LP by binary search over the nested levels).
* *Domains* (property (P)): an end of coordinate ``i``'s level interval at the prefix ``s/t`` is a
  basic solution of the slice LP, ``p / (t q)`` with ``q`` a minor of an ``i x i`` matrix whose columns
  are ``(p_(<i), 1)``, so Hadamard's bound gives ``Q_i = floor(((i - 1) C^2 + 1)^(i/2))``
  (:func:`candidate_denominator_bounds`); the two domain families above take ``R = C`` and these
  ``Q_i``. Every end is a member, so the argmax of ``Q_i`` is reachable (Requirement 3.6 relative to
  ``P``).
* *Privacy*: ``f_P`` has sensitivity 1 under replace-one neighbours (one constraint changes every
  candidate's depth by at most 1), so Claim 3.5 holds, and ``P``, ``C``, the domains and the plan are
  public: the argument of the exact oracle carries over word for word. ``P`` must not depend on the
  data: a given array, or random points drawn from the fit's randomness before the data is read. The
  depths are exact integer counts (:func:`~privpac.geometry.feasibility.candidate_depths`, a sum
  over records: on Dask and Spark each block returns its counts and only ``|P|`` integers reach the
  driver, :func:`engine_candidate_depths`). Audited exactly through the estimators
  (``feasibility-candidates``: ``D = 1`` and the ``d = 2`` learner, whose dual has ``D = 3``) and
  empirically in ``D = 4``.
* *Utility*: Claim 4.1 holds for any point set (Caratheodory), so ``Delta = D + 1`` and Thm 3.7 gives
  ``depth(x*) >= (1 - alpha) m`` when some candidate is feasible and ``m >= plan.sufficient_m``. When
  no candidate is, the shortfall ``m - max_p depth(p)`` is multiplied by up to ``D + 1`` (the output is
  a point of the candidates' hull, not a candidate); RecConcave's promise needs a public
  ``depth_promise`` below ``m`` chosen in advance.
* *Cost*: ``|P| m (D + 1)`` multiply-adds for the depths (refused above :data:`MAX_CANDIDATE_WORK`
  from public sizes) plus hulls and LPs per distinct depth value (at most ``min(|P|, m + 1)`` of them):
  ``benchmarks/feasibility_candidates.py``.

Not implemented: ``D >= 4`` exactly, and Def 4.4's domains (replaced by the two above; Lemma 4.3,
their justification, is false for ``i >= 2``). LearnHalfSpace and the PAC learner (Fig. 3, Thm 5.2)
are in :mod:`privpac.learners.feasibility_halfspaces`.

Length: about 440 lines of code; the rest is the argument above and in the functions' docstrings,
beside the code it argues for (candidate sets: :mod:`privpac.learners.feasibility_candidates`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DataError, DomainError, InvalidParameterError
from ..geometry._exact import as_integer_points
from ..geometry.convexified import convex_levels
from ..geometry.feasibility import bounding_box_radius, candidate_depths
from ..geometry.point_levels import arrangement_levels_2d, arrangement_levels_3d, candidate_levels
from ..geometry.rational_domain import RationalDomain, SimplestFractionDomain, interval_quality
from ..optimize.coordinatewise import (
    OPTIMIZERS,
    check_optimizer,
    choose_coordinates,
    coordinate_budget,
    largest_domain_sizes,
)
from ..optimize.recconcave_plan import levels, required_quality
from ..random import data_key
from ..stepfunc import StepFunction
from ..validation import (
    RenamedFields,
    cached_plan,
    check_budget_epsilon,
    check_choice,
    check_delta,
    check_int,
    check_probability,
    check_real,
    renamed_attribute,
    renamed_keywords,
)
from .center_point import check_points_in_box
from .feasibility_candidates import (
    LARGE_MARGIN_HINT,
    CandidateSet,
    candidate_denominator_bounds,
    check_candidate_size,
)

__all__ = [
    "CANDIDATE_DOMAINS",
    "FIND_DEEP_POINT_DIMENSIONS",
    "OPTIMIZERS",
    "FindDeepPointPlan",
    "FindDeepPointResult",
    "candidate_levels_of",
    "check_find_deep_point_size",
    "distinct_rows_bound",
    "check_system",
    "coordinate_quality",
    "denominator_bounds",
    "find_deep_point",
    "level_intervals",
    "plan_find_deep_point",
    "run_find_deep_point",
    "system_levels",
    "truncation_levels",
]

#: The public candidate domains: the A3-rational values ``p/(t q)`` (default) and the spec's integer
#: "mode C" domain (3.7 item 5) decoded by the simplest fraction of its cell.
CANDIDATE_DOMAINS = ("a3-rational", "mode-c")
#: Dimensions with an exact implementation.
FIND_DEEP_POINT_DIMENSIONS = (1, 2, 3)
#: Public envelope of the exact ``D = 3`` oracle: at most this many constraints (spec 6.5 puts the
#: feasible exact range near ``m = 10^3`` for a vectorised implementation). The line sweep takes
#: ``O(m^3 log m)`` time; the kept vertices (up to ``C(m + 6, 3)``) set the memory: each is held as its
#: three planes and depth until the sweep ends, then once as exact coordinates that the levels share, and
#: the ``Q_3`` programs price them in float blocks. Measured at ``m = 1,000`` on a planted feasible
#: system with entries in ``[-128, 128]`` (``benchmarks/linear_feasibility.py --only envelope``;
#: docs/algorithms/linear-feasibility.md): 8.2e7 vertices kept and an 8.5 GB peak, within the 12 GB this
#: cap is set for; about 29 minutes of CPU, mostly the exact ``Q_3`` programs.
MAX_CONSTRAINTS_3D = 1_000
#: Public envelope of the exact ``D = 2`` oracle: at most this many *possibly distinct* rows
#: (``min(m, number of distinct rows the entry bound allows)``). ``O(r^2)`` arrangement vertices of
#: ``r`` distinct rows, each line swept once (``O(r^2 log r)``), then one exact hull per level, on a planted
#: system with entries in ``[-128, 128]`` (``benchmarks/linear_feasibility.py --only envelope``, a loaded
#: machine; docs/algorithms/linear-feasibility.md): 17.5 s of CPU and 1.0 GB at ``m = 10,000`` (2.5e7
#: vertices kept, 14 bytes each), 51 s and 2.4 GB at ``20,000``, 132 s and 5.7 GB at ``40,000``, 159 s and
#: 6.5 GB at ``45,000``, past the guarantee's ``sufficient_m`` (42,382 at ``X = 128``, epsilon = 1). The
#: memory grows with ``r^2``: within the 12 GB this cap is set for up to about 60,000 by that square (not run).
MAX_DISTINCT_ROWS_2D = 45_000


def _check_dimension(D: int) -> int:
    D = check_int(D, "D", low=1)
    if D not in FIND_DEEP_POINT_DIMENSIONS:
        raise InvalidParameterError(
            f"FindDeepPoint is implemented exactly for D <= 3 only, got D = {D} (A has {D} columns): for D >= 4 "
            "the exact level sets (convex hulls of an arrangement's levels) are out of reach (spec kmst-halfspaces "
            f"6.2, 6.5); {LARGE_MARGIN_HINT}"
        )
    return D


def distinct_rows_bound(X: int, D: int) -> int:
    """How many distinct rows ``(a, w)`` with entries in ``[[-X, X]]`` exist: ``(2X + 1)^(D + 1)`` (public)."""
    return (2 * check_int(X, "X", low=1) + 1) ** (D + 1)


def check_find_deep_point_size(m: int, D: int, bound: int | None = None, max_distinct_rows: int | None = None) -> None:
    """Refuse, from the public sizes alone (before any entry is read), what is not implemented or
    cannot finish: ``D >= 4``, ``D = 3`` above :data:`MAX_CONSTRAINTS_3D` constraints, and (when the
    entry bound ``X`` is given) ``D = 2`` with more than :data:`MAX_DISTINCT_ROWS_2D` possibly distinct
    rows, ``min(m, max_distinct_rows)`` (default :func:`distinct_rows_bound`; a caller whose rows have
    more structure passes a smaller public bound, as the halfspace learner does)."""
    D = _check_dimension(D)
    X = bound
    if D == 2 and X is not None:
        rows = min(m, distinct_rows_bound(X, D) if max_distinct_rows is None else int(max_distinct_rows))
        if rows > MAX_DISTINCT_ROWS_2D:
            raise InvalidParameterError(
                f"FindDeepPoint in D = 2 is exact up to {MAX_DISTINCT_ROWS_2D:,} distinct constraints: m = {m:,} "
                f"constraints with entries in [-{X}, {X}] can hold {rows:,}, and the exact oracle's vertices grow with "
                f"their square (6.5 GB at 45,000, entries in [-128, 128]); use a public random subsample of at most "
                f"{MAX_DISTINCT_ROWS_2D:,} constraints, a coarser grid, or {LARGE_MARGIN_HINT}"
            )
    if D == 3 and m > MAX_CONSTRAINTS_3D:
        raise InvalidParameterError(
            f"FindDeepPoint in D = 3 is exact up to m = {MAX_CONSTRAINTS_3D} constraints, got m = {m}: the exact "
            f"oracle keeps up to C(m + 6, 3) = {math.comb(m + 6, 3):,} arrangement vertices and solves an LP per level "
            f"(spec kmst-halfspaces 6.2, 6.5); use a public random subsample of at most {MAX_CONSTRAINTS_3D} "
            f"constraints, or {LARGE_MARGIN_HINT}"
        )


def denominator_bounds(X: int, D: int) -> tuple[int, ...]:
    """``(Q_1, ..., Q_D)``: denominator bounds under which every level-interval end is a domain member.

    ``D = 1``: ``(X,)``; ``D = 2``: ``(2 X^2, 16 X^6)``; ``D = 3``: ``(Qv, 2 R Qv^2, 6 R^2 Qv^3)`` with
    ``Qv = 6 X^3`` and ``R = 6 X^3`` (module docstring, property (P)).
    """
    X = check_int(X, "X", low=1)
    D = _check_dimension(D)
    if D == 1:
        return (X,)
    R = bounding_box_radius(D, X)
    Qv = math.factorial(D) * X**D
    if D == 2:
        return (Qv, 2 * R * Qv * Qv)
    return (Qv, 2 * R * Qv * Qv, 6 * R * R * Qv**3)


def _domain(X: int, D: int, i: int, t: int, domain: str = "a3-rational") -> RationalDomain | SimplestFractionDomain:
    """The public candidate domain of coordinate ``i`` for running denominator ``t``.

    ``"a3-rational"``: the values ``p/(t q)``, ``q <= Q_i``, in ``[-R, R]``; ``"mode-c"``: the integers
    ``z in [[-R t U^2, R t U^2]]`` decoded by the fraction of denominator ``<= U`` in
    ``[z/U^2, (z+1)/U^2)`` (else ``z/U^2``) over ``t``, with ``U = Q_i`` (module docstring).
    """
    return _make_domain(bounding_box_radius(D, X), denominator_bounds(X, D)[i - 1], t, domain)


def _make_domain(R: int, Q: int, t: int, domain: str) -> RationalDomain | SimplestFractionDomain:
    """The candidates of one coordinate in ``[-R, R]`` with denominator bound ``Q`` over the running ``t``."""
    return RationalDomain(R, t, Q) if domain == "a3-rational" else SimplestFractionDomain(R, t, Q)


def truncation_levels(m: int, D: int, alpha: float) -> tuple[int, ...]:
    """``(tau_1, ..., tau_D)``, ``tau_i = max(0, ceil((1 - alpha~) r_i) - 1)``: spec 3.7 item 3, exactly.

    ``r_i = (1 - alpha~)^(i-1) m`` is coordinate ``i``'s public promise and
    ``alpha~ = alpha / (2 D (D + 1))``, both in exact ``Fraction`` arithmetic (``alpha`` is read as
    the exact binary value of the float), so ``tau_i = ceil(m (1 - alpha~)^i) - 1``: the largest
    integer below RecConcave's guaranteed quality ``(1 - alpha~) r_i``. Public inputs only.
    """
    alpha0 = Fraction(alpha) / (2 * D * (D + 1))
    return tuple(max(0, math.ceil(m * (1 - alpha0) ** i) - 1) for i in range(1, D + 1))


@dataclass(frozen=True)
class FindDeepPointPlan(RenamedFields):
    """Everything FindDeepPoint decides before reading the constraints (all public)."""

    _renamed_fields = {"one_d_optimizer": "optimizer", "mode": "optimizer", "X": "bound", "domain": "candidate_domain"}

    m: int
    D: int
    bound: int  # X: every entry of A and b in [-X, X]
    R: int
    epsilon: float
    delta: float
    alpha: float
    beta: float
    optimizer: str
    composition: str
    candidate_domain: str  # "a3-rational" or "mode-c"
    truncation: tuple[int, ...]  # the public tau_i of Q^tau = max(Q, tau) (all 0: no truncation)
    epsilon0: float
    delta0: float
    alpha0: float  # alpha~ = alpha / (2 D (D + 1))
    beta0: float
    total: tuple[float, float]
    promises: tuple[float, ...]  # r_i = (1 - alpha~)^(i-1) m, with the public M = m
    denominator_bounds: tuple[int, ...]
    domain_sizes: tuple[int, ...]
    sufficient_m: int
    candidates: int = 0  # the size of the public candidate set (0: the exact arrangement oracle)
    depth_promise: int = 0  # the public M of the promises r_i (m unless given)

    def domain_for(self, i: int, t: int) -> RationalDomain | SimplestFractionDomain:
        """Coordinate ``i``'s public candidate domain for the running denominator ``t``."""
        return _make_domain(self.R, self.denominator_bounds[i - 1], t, self.candidate_domain)

    def describe(self) -> list[str]:
        where = (
            f"{self.candidates:,} public candidates in [-{self.R}, {self.R}]^{self.D} (spec 6.5 option 1, "
            "utility relative to the best candidate)"
            if self.candidates
            else f"box R={self.R}"
        )
        return [
            f"FindDeepPoint plan: D={self.D}, X={self.bound}, {where}, m={self.m}, "
            f"optimizer={self.optimizer}, composition={self.composition}, candidate_domain={self.candidate_domain}",
            f"  truncation from below: tau={list(self.truncation)}"
            if any(self.truncation)
            else "  no truncation from below",
            f"  per coordinate: epsilon0={self.epsilon0:.6g}, delta0={self.delta0:.3g}, alpha~={self.alpha0:.6g}, "
            f"beta0={self.beta0:g}",
            f"  total: epsilon={self.total[0]:.6g}, delta={self.total[1]:.3g}",
            f"  sufficient m for depth >= (1 - {self.alpha:g}) m with probability 1 - beta: {self.sufficient_m:,}",
        ]


@renamed_keywords(one_d_optimizer="optimizer", X="bound", domain="candidate_domain")
@cached_plan()
def plan_find_deep_point(
    m: int,
    D: int,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    optimizer: str = "exponential",
    composition: str = "auto",
    candidate_domain: str = "a3-rational",
    truncate: bool | None = None,
    max_distinct_rows: int | None = None,
    candidates: CandidateSet | None = None,
    depth_promise: int | None = None,
) -> FindDeepPointPlan:
    """The budget split, promises and sufficient number of constraints (public inputs only).

    ``candidates``: run over a public candidate set (spec 6.5 option 1; any ``D``, refused above
    :data:`MAX_CANDIDATE_WORK`) instead of the exact arrangement (``D <= 3``). ``depth_promise``: the
    public ``M`` of the promises ``r_i`` and of the truncation (default ``m``; a candidate set with no
    feasible point needs a smaller one chosen in advance, spec 6.5).

    Raises :class:`~privpac.errors.InvalidParameterError` for ``D >= 4`` without candidates,
    ``optimizer="recconcave"`` or ``composition="advanced"`` with ``delta = 0``, or an advanced
    split whose total exceeds ``epsilon``.
    """
    m = check_int(m, "m", low=1)
    X = check_int(bound, "bound", low=1)
    if candidates is None:
        D = _check_dimension(D)
        check_find_deep_point_size(m, D, X, max_distinct_rows)
        R, Q = bounding_box_radius(D, X), denominator_bounds(X, D)
    else:
        D = check_int(D, "D", low=1)
        if candidates.dimension != D:
            raise InvalidParameterError(
                f"the candidates have {candidates.dimension} coordinate(s) but the system has D = {D} variables"
            )
        check_candidate_size(m, candidates.size, D)
        R, Q = candidates.bound, candidate_denominator_bounds(candidates.bound, D)
    M = m if depth_promise is None else check_int(depth_promise, "depth_promise", low=1, high=m)
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    alpha = check_real(alpha, "alpha", low=0.0, low_open=True, high=1.0)
    beta = check_probability(beta, "beta")
    check_optimizer(optimizer)
    check_choice(candidate_domain, "candidate_domain", CANDIDATE_DOMAINS)
    em = optimizer == "exponential"
    if truncate is None:
        truncate = not em
    elif not isinstance(truncate, bool):
        raise InvalidParameterError(f"truncate must be True, False or None, got {truncate!r}")
    if truncate and em:
        raise InvalidParameterError(
            "truncate=True is for optimizer='recconcave' only: the exponential mechanism would give every "
            "candidate of quality <= tau the weight of tau, raising the chance of bad outputs (spec 3.7 item 3 "
            "truncates RecConcave's input, whose guarantee only concerns qualities above tau)"
        )
    composition, eps0, delta0, total = coordinate_budget(composition, em, epsilon, delta, D)
    alpha0 = alpha / (2 * D * (D + 1))
    beta0 = beta / D
    promises = tuple(M * (1.0 - alpha0) ** i for i in range(D))
    # max |D_i| over the running denominators (mode C: a fallback value z/U^2 multiplies t by U^2)
    sizes = largest_domain_sizes(len(Q), lambda i, t: _make_domain(R, Q[i - 1], t, candidate_domain))
    need = 0.0
    for i, size in enumerate(sizes):
        shrink = (1.0 - alpha0) ** i
        if em:
            req = 2.0 * (math.log(size) + math.log(1.0 / beta0)) / (eps0 * alpha0)
        else:
            req = required_quality(size - 1, alpha0, beta0, eps0, delta0, levels(size - 1))
        need = max(need, req / shrink)
    return FindDeepPointPlan(
        m=m,
        D=D,
        bound=X,
        R=R,
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        beta=beta,
        optimizer=optimizer,
        composition=composition,
        candidate_domain=candidate_domain,
        truncation=truncation_levels(M, D, alpha) if truncate else (0,) * D,
        epsilon0=eps0,
        delta0=delta0,
        alpha0=alpha0,
        beta0=beta0,
        total=total,
        promises=promises,
        denominator_bounds=Q,
        domain_sizes=sizes,
        sufficient_m=math.ceil(need),
        candidates=0 if candidates is None else candidates.size,
        depth_promise=M,
    )


def check_system(A, b, X: int, first_row: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(A, b)`` as exact integer arrays of shapes ``(m, D)`` and ``(m,)`` with every entry in ``[-X, X]``.

    Raises :class:`~privpac.errors.DataError` (shape, non-integer, NaN, empty) or
    :class:`~privpac.errors.DomainError` naming the first entry outside the public bound (rows counted
    from ``first_row``: a block's position in a sample read block by block).
    """
    X = check_int(X, "X", low=1)
    A_arr = check_points_in_box(A, X, name="A", what="bound", first_row=first_row)
    m = A_arr.shape[0]
    b_flat = np.asarray(b, dtype=object) if not isinstance(b, np.ndarray) else b
    if b_flat.ndim != 1:
        raise DataError(f"b must be one-dimensional with one entry per constraint, got shape {b_flat.shape}")
    if b_flat.shape[0] != m:
        raise DataError(f"A has {m} row(s) but b has {b_flat.shape[0]} entries: one right-hand side per constraint")
    b_arr, b_bound = as_integer_points(b_flat.reshape(-1, 1), "b", d=1)
    if b_bound > X:
        r = int(np.argwhere(np.abs(b_arr[:, 0].astype(object)) > X)[0][0])
        raise DomainError(f"b[{first_row + r}] = {b_arr[r, 0]} lies outside the declared bound [-{X}, {X}]")
    return A_arr, b_arr[:, 0]


def level_intervals(convex, prefix: tuple[Fraction, ...], D: int, floor: int = 0) -> list[tuple[Fraction, Fraction]]:
    """The nested level intervals ``I_1 ⊇ I_2 ⊇ ...`` of ``Q_i``, ``i = len(prefix) + 1``, up to the first empty one.

    ``convex`` is :func:`system_levels` of the system: the boxed levels of
    :func:`~privpac.geometry.convexified.convex_levels` for ``D = 1``, a
    :class:`~privpac.geometry.point_levels.PointLevels` (:func:`~privpac.geometry.point_levels.arrangement_levels_2d`,
    :func:`~privpac.geometry.point_levels.arrangement_levels_3d`) for ``D = 2, 3`` and for a candidate
    set. Exact. ``floor``: the public truncation level of :func:`coordinate_quality`; the entries at
    levels ``<= floor`` may then be any nested value (no LP is solved there,
    :meth:`~privpac.geometry.point_levels.PointLevels.intervals`), which the truncated quality never reads.
    """
    if not isinstance(convex, list):  # PointLevels: D = 2, 3, or a candidate set in any D
        return convex.intervals(tuple(prefix), floor)
    out: list[tuple[Fraction, Fraction]] = []
    for level in convex:
        if level.empty:
            break
        lo, hi = level.interval  # finite: the score is boxed
        out.append((lo, hi))
    return out


def coordinate_quality(domain, convex, prefix, D: int, tau: int = 0) -> StepFunction:
    """``Q^tau_i = max(Q_i, tau)`` over the indices of ``domain`` (``tau = 0``: ``Q_i`` itself).

    ``Q_i(k) = max{level : domain.select(k) in I_level}`` (0 in none), from the level intervals
    (:func:`level_intervals`); the levels ``<= tau`` collapse to the constant ``tau`` (spec 3.7
    item 3). ``tau`` must be public: :func:`truncation_levels`, never a function of the levels.
    """
    return interval_quality(domain, level_intervals(convex, tuple(prefix), D, floor=tau), floor=tau)


def system_levels(A, b, R: int):
    """The boxed levels of a system, in the form :func:`level_intervals` reads for its dimension."""
    A_arr = np.asarray(A)
    D = A_arr.shape[1] if A_arr.ndim == 2 else 1
    if D == 3:
        return arrangement_levels_3d(A, b, box=R)
    if D == 2:
        return arrangement_levels_2d(A, b, box=R)
    return convex_levels(A, b, box=R)


def _describe_domain(domain, R: int) -> str:
    """The candidates of a coordinate in public terms, for the ledger."""
    if isinstance(domain, SimplestFractionDomain):
        return (
            f"the integers z in [-{R} t U^2, {R} t U^2], U = {domain.U}, each read as the fraction of denominator "
            "<= U in [z/U^2, (z+1)/U^2) (else z/U^2) over t (mode C), t from the earlier coordinates"
        )
    return f"the rational candidates p/(t q) in [-{R}, {R}], q <= {domain.Q}, t from the earlier coordinates"


@dataclass(frozen=True)
class FindDeepPointResult:
    """The private output ``solution`` (exact) and the public plan it ran."""

    solution: tuple[Fraction, ...]
    plan: FindDeepPointPlan


@renamed_keywords(one_d_optimizer="optimizer", X="bound", domain="candidate_domain")
def find_deep_point(
    A,
    b,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    optimizer: str = "exponential",
    composition: str = "auto",
    candidate_domain: str = "a3-rational",
    truncate: bool | None = None,
    max_distinct_rows: int | None = None,
    candidates: CandidateSet | None = None,
    depth_promise: int | None = None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> FindDeepPointResult:
    """A private point satisfying most constraints of ``A x >= b`` (Fig. 2): ``D = A.shape[1] in {1, 2, 3}``
    exactly, or any ``D`` over a public candidate set (spec 6.5 option 1).

    Parameters
    ----------
    A : array-like of shape (m, D)
        Integer constraint rows in ``[-X, X]`` (private; replace-one neighbours, ``m`` public).
    b : array-like of shape (m,)
        Integer right-hand sides in ``[-X, X]``.
    bound : int
        The public bound ``X`` of every entry.
    epsilon, delta : float
        Total budget; the default optimiser and composition spend ``(epsilon, 0)``.
    alpha : float, default=0.1
        Accuracy the promises (RecConcave) and ``plan.sufficient_m`` are computed for.
    beta : float, default=0.1
        Failure probability (``beta/D`` per coordinate).
    optimizer : {"exponential", "recconcave"}, default="exponential"
        The per-coordinate optimiser (module docstring).
    composition : {"auto", "basic", "advanced"}, default="auto"
    candidate_domain : {"a3-rational", "mode-c"}, default="a3-rational"
        The public candidate domains (module docstring): the A3-rational values ``p/(t q)`` or the
        spec's integer mode C (3.7 item 5). Both hold every level-interval end (property (P)).
    truncate : bool or None, default=None
        Feed RecConcave ``Q^tau_i = max(Q_i, tau_i)`` with the public ``tau_i`` of
        :func:`truncation_levels` (spec 3.7 item 3). ``None``: on for RecConcave, off for the
        exponential mechanism; ``False`` reproduces the untruncated run; ``True`` with the
        exponential mechanism is refused (module docstring).
    max_distinct_rows : int, optional
        A public bound on the number of distinct rows (default: every row the entry bound allows),
        for the ``D = 2`` envelope (:func:`check_find_deep_point_size`).
    candidates : CandidateSet, optional
        Run on the score ``f_P(S, x) = depth_S(x) 1[x in P]`` of a public finite set ``P``
        (:func:`candidate_set`, :func:`random_candidates`) instead of the exact boxed depth: any
        ``D``, cost ``|P| m D`` for the depths plus the exact hull and LP machinery over ``P``
        (:func:`~privpac.geometry.point_levels.candidate_levels`). Not the paper's algorithm: its
        utility is relative to ``max_(p in P) depth_S(p)`` (module docstring, "Over a public
        candidate set").
    depth_promise : int, optional
        The public ``M`` of RecConcave's promises and the truncation (default ``m``).
    ledger : PrivacyLedger, optional
        Charged (one composed block) before any draw.
    rng : None, int or RandomSource
        ``None`` is secure randomness.

    Returns
    -------
    FindDeepPointResult
        ``solution``: a tuple of ``D`` Fractions; ``plan``: the public plan.
    """
    X = check_int(bound, "bound", low=1)
    shape = np.shape(A)
    if len(shape) == 2:  # the public sizes first: nothing unsupported reads an entry
        m0, D0 = max(int(shape[0]), 1), max(int(shape[1]), 1)
        if candidates is None:
            check_find_deep_point_size(m0, D0, X, max_distinct_rows)
        else:
            check_candidate_size(m0, candidates.size, D0)
    A_arr, b_arr = check_system(A, b, X)
    m, D = A_arr.shape
    plan = plan_find_deep_point(
        m,
        D,
        X,
        epsilon,
        delta,
        alpha=alpha,
        beta=beta,
        optimizer=optimizer,
        composition=composition,
        candidate_domain=candidate_domain,
        truncate=truncate,
        max_distinct_rows=max_distinct_rows,
        candidates=candidates,
        depth_promise=depth_promise,
    )
    if candidates is None:
        return run_find_deep_point(
            plan,
            lambda: system_levels(A_arr, b_arr, plan.R),
            ledger=ledger,
            rng=rng,
            levels_key=data_key(A_arr, b_arr),
        )
    return run_find_deep_point(
        plan,
        candidate_levels_of(plan, candidates.points, lambda: candidate_depths(A_arr, b_arr, candidates.points)),
        ledger=ledger,
        rng=rng,
        levels_key=data_key(A_arr, b_arr, candidates.points),
    )


def run_find_deep_point(
    plan: FindDeepPointPlan, levels_of, *, ledger: PrivacyLedger | None = None, rng=None, levels_key=None
):
    """The ``D`` private choices of ``plan`` (Fig. 1) over the levels ``levels_of()`` returns.

    ``levels_of`` is the only place the constraints are read: it is called once, after the whole
    plan is charged to ``ledger``, and returns the system's levels in the form
    :func:`level_intervals` reads (:func:`system_levels`, or
    :func:`~privpac.geometry.point_levels.candidate_levels` of depths computed in memory or merged over
    an engine's blocks). Everything else is public. ``levels_key``: a hashable naming everything
    ``levels_of`` reads (:func:`~privpac.random.data_key`), which lets an exact audit
    reuse the qualities between its paths (:meth:`~privpac.random.RandomSource.reuse`).
    """
    if ledger is None:
        ledger = PrivacyLedger(plan.epsilon, plan.delta, label="FindDeepPoint")
    convex: list = []
    D = plan.D

    def quality_for(domain, prefix):
        if not convex:  # the data enters here, after the whole plan is charged
            convex.append(levels_of())
        return coordinate_quality(domain, convex[0], list(prefix), D, tau=plan.truncation[len(prefix)])

    solution = choose_coordinates(
        plan,
        D,
        plan.domain_for,
        quality_for,
        exponential=plan.optimizer == "exponential",
        name="FindDeepPoint",
        over_for=lambda domain: _describe_domain(domain, plan.R),
        ledger=ledger,
        rng=rng,
        data_key=levels_key,
    )
    return FindDeepPointResult(solution, plan)


def candidate_levels_of(plan: FindDeepPointPlan, points, depths_of):
    """The ``levels_of`` of :func:`run_find_deep_point` for the score ``f_P(S, x) = depth_S(x) 1[x in P]`` of the
    public candidates ``points`` (spec 6.5 option 1; module docstring, "Over a public candidate set").

    ``depths_of()`` returns the exact depth of every candidate (:func:`~privpac.geometry.feasibility.candidate_depths`
    in memory, or the counts merged over an engine's blocks,
    :func:`~privpac.learners.feasibility_candidates.engine_candidate_depths`); it runs only when the levels are
    asked for, after the whole plan is charged. The levels are
    :func:`~privpac.geometry.point_levels.candidate_levels` of those depths at the plan's public ``m`` and box ``R``.
    """
    return lambda: candidate_levels(points, depths_of(), plan.m, bound=plan.R)


#: Names this module no longer defines, and what replaced them (one name per concept across the two
#: halfspace papers' modules): importing an old one raises ImportError naming the new one.
_RENAMED = {
    "DOMAINS": "CANDIDATE_DOMAINS",
    "SUPPORTED_DIMENSIONS": "FIND_DEEP_POINT_DIMENSIONS",
    "check_public_size": "check_find_deep_point_size",
}


def __getattr__(name: str):
    return renamed_attribute(__name__, name, _RENAMED)
