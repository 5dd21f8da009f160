"""LearnHalfSpace: a private halfspace learner by sample-and-aggregate over FindTukey.

Beimel, Moran, Nissim and Stemmer, "Private Center Points and Learning of Halfspaces" (COLT 2019),
Fig. 2, Thm 4.2 and Cor 4.3; spec ``bmns-center-points`` sections 4 (A5, A6, B2), 5, 6, 9 and 11
(erratum 6).

Algorithm
---------
For a labelled sample ``(x_1, y_1), ..., (x_s, y_s)`` of integer points of the public grid
``X = Z^d ∩ [-B, B]^d`` with labels in ``{0, 1}``:

1. **Chunks** (public rule): ``m`` chunks of ``k = floor(s/m)`` consecutive records, by position,
   the tail of ``s - m k`` records dropped; optionally (``permute=True``) after a uniformly random
   permutation drawn from privpac's :class:`~privpac.random.RandomSource`, independent of the data.
   ``m`` and ``k`` are functions of ``s``, ``d``, ``B`` and the parameters only
   (:func:`plan_learn_halfspace`). The sample may live in memory or on Dask or Spark: the chunks
   are cut by row position where the rows live (:func:`sample_chunk_points`, through
   :meth:`~privpac.backends.NumpyBackend.map_chunks`, the in-memory fit included) and only the
   ``m`` chunk points reach the driver. ``permute=True`` is in memory only
   (:func:`learn_halfspace`); the estimator chunks by position.
2. **One consistent halfspace per chunk** (spec A5 [ENG], the figure's "uniformly at random" replaced
   by a deterministic rule, erratum 6): a primitive integer vector ``(a, w)`` with
   ``a.x >= w`` exactly on the chunk's positives and ``a.x < w`` on its negatives, entries at most
   :func:`hypothesis_bound` ``M_h``. ``d = 1``: an exact sorted scan of every chunk at once
   (vectorised), the threshold halfway between the classes. ``d >= 2``: HiGHS's dual simplex on
   ``min sum |a_j| + |w|`` subject to ``a.x - w >= 0`` (label 1) and ``a.x - w <= -1`` (label 0),
   the solution rounded to rationals of denominator at most ``M_h``, scaled to a primitive integer
   vector and checked exactly in integer arithmetic. A chunk of one class gets the constant
   classifier ``(0, ..., 0, 0)`` (all 1) or ``(0, ..., 0, 1)`` (all 0); a non-realisable chunk, or
   one whose rounded solution fails the exact check or the bound, gets the default
   ``(0, ..., 0, 1)`` (spec A5: "a fixed default, such as the constant-0 classifier").
3. **A deep point** ``(a*, w*)`` of the ``m`` chunk points in dimension ``d + 1``:
   ``depth="tukey"``: :func:`~privpac.learners.center_point.find_tukey` on the box
   ``[-M_h, M_h]^(d+1)``; ``depth="directional"``: FindTukey's coordinate-by-coordinate choice
   with the directional depth over ``U = {±(x, -1) : x in X}`` (spec A5, last bullet), over public
   A3-rational domains for the directional depth regions (:func:`learner_directional_domain`).
4. Output ``x -> 1[a* . x >= w*]`` (exact rationals).

Privacy
-------
* The partition is by position (or by a permutation drawn independently of the data), never by
  values, and every chunk point is a function of its own chunk alone: replacing one record changes
  at most one chunk, so the chunk multisets ``H0(S)``, ``H0(S')`` are replace-one neighbours of the
  same public size ``m``. Any deterministic rule that reads one chunk only keeps this, including the
  LP's rounding, the exact check and the default; so does a non-realisable chunk.
* FindTukey is (epsilon, delta)-DP in its points for every input (its module docstring: exact
  sensitivity-1 qualities, public domains, the plan charged before the data is read). In
  directional depth the quality is the partial-assignment quality of ``depth_U``, a minimum of
  sensitivity-1 counts over a public ``U`` (spec section 7: sensitivity 1, quasi-concave), computed
  exactly by :func:`~privpac.geometry.depth_intervals`, and the candidate domains depend on ``B``,
  ``d``, the coordinate and the earlier outputs only. Post-processing the output into a classifier
  costs nothing. The learner is therefore (epsilon, delta)-DP (spec section 5), for all inputs.
* ``m``, ``k``, ``M_h``, the direction set and every refusal are functions of the public
  ``(s, d, B)`` and parameters. Nothing about the chunks (how many were realisable, their error,
  the depth reached) is returned.

Utility
-------
Thm 4.2 (with erratum 6: "Tukey rank at least r", ``(a, w) in R^(d+1)``): if ``(a*, w*)`` has depth
``r`` among the chunk points, every example it errs on is also erred on by at least ``r`` of them
(the error region of an example is a halfspace of parameter space with normal ``±(x, -1)``), so
``err(h*) <= (m/r) max_j err(h_j)``. FindTukey gives ``r = m/(2(d+2))``, so with chunks of the
realisable VC size at accuracy ``alpha/(2(d+2))`` and confidence ``beta/(2m)`` the error is at most
``alpha`` with probability ``1 - beta``: :attr:`LearnHalfSpacePlan.sufficient_s`. The directional
depth ``depth_U >= td`` keeps the promise, and ``depth_U(h*) >= r`` is exactly what the proof uses.

B2, the generic learner (spec "Baselines"): :func:`generic_halfspace_learner`, the exponential
mechanism over one halfspace per labelling of the public grid, for tiny grids.

Length: about 510 lines of code (LearnHalfSpace, its planner and the baseline B2, which shares the
grid and the sample checks); the rest is the argument above and in the functions' docstrings.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DataError, InvalidParameterError
from ..geometry._exact import as_integer_points, exact_affine_scores
from ..geometry.directions import FINITE_DIRECTION_LIMIT
from ..geometry.rational_domain import RationalDomain, interval_quality
from ..geometry.regions import depth_intervals
from ..optimize.coordinatewise import check_optimizer, choose_coordinates, largest_domain_sizes
from ..random import as_random_source, data_key
from ..validation import (
    RenamedFields,
    cached_plan,
    check_budget_epsilon,
    check_choice,
    check_delta,
    check_int,
    check_labels,
    check_probability,
    renamed_attribute,
    renamed_keywords,
)
from .center_point import (
    COMPOSITIONS,
    FIND_TUKEY_DIMENSIONS,
    MAX_POINTS_3D,
    OPTIMIZERS,
    FindTukeyPlan,
    check_points_in_box,
    find_tukey,
    n_net_directions,
    plan_find_tukey,
    sufficient_n_over,
)
from .exponential import em_learner
from .generalization import behw_sample_size

__all__ = [
    "COMPOSITIONS",
    "DEPTHS",
    "DIRECTION_LIMIT",
    "GENERIC_LIMIT",
    "OPTIMIZERS",
    "LearnHalfSpacePlan",
    "GROUP_ROWS",
    "LearnHalfSpaceResult",
    "aggregate_chunk_points",
    "chunk_halfspaces",
    "consistent_halfspace",
    "generic_halfspace_learner",
    "grid_halfspace_class",
    "halfspace_predict",
    "hypothesis_bound",
    "learn_halfspace",
    "learner_directional_domain",
    "learner_directions",
    "max_default_chunks",
    "plan_learn_halfspace",
    "sample_chunk_points",
]

DEPTHS = ("tukey", "directional")
#: Largest ``|U| * m`` (directions times chunk points) the directional depth accepts.
DIRECTION_LIMIT = 20_000_000
#: Largest ``(candidate halfspaces) * |X|`` the generic learner's class enumeration accepts.
GENERIC_LIMIT = 20_000_000
#: Rows of whole chunks one kernel call of :func:`sample_chunk_points` receives (public).
GROUP_ROWS = 2**16


# ---------------------------------------------------------------------------------------------
# Public sizes
# ---------------------------------------------------------------------------------------------


def hypothesis_bound(d: int, B: int) -> int:
    """``M_h``: every chunk point ``(a, w)`` has entries in ``[-M_h, M_h]`` (public).

    ``d = 1``: ``B + 1`` (the scan's thresholds ``a = ±1``, ``|w| <= B + 1``, and the constants).
    ``d >= 2``: the Hadamard-type bound ``floor((sqrt(d+1) B)^(d+1))`` of spec A5: a vertex of the
    LP solves ``d + 1`` of the equations ``(x, -1).z in {0, -1}`` and ``z_j = 0``, whose matrix has
    rows of norm at most ``sqrt(d+1) B``, so by Cramer's rule the primitive vector's entries are
    minors at most that bound.
    """
    d = check_int(d, "d", low=1)
    B = check_int(B, "B", low=1)
    if d == 1:
        return B + 1
    return max(B + 1, math.isqrt((d + 1) ** (d + 1) * B ** (2 * (d + 1))))


def _grid(d: int, B: int) -> np.ndarray:
    """The points of ``Z^d ∩ [-B, B]^d`` in ``meshgrid`` (row-major) order, the order of ``U`` and of the
    generic learner's labellings (public)."""
    axis = np.arange(-B, B + 1, dtype=np.int64)
    return np.stack(np.meshgrid(*([axis] * d), indexing="ij"), axis=-1).reshape(-1, d)


def learner_directions(d: int, B: int) -> np.ndarray:
    """``U = {(x, -1) : x in Z^d ∩ [-B, B]^d}`` (the ``-`` orientations are counted by the depth), public."""
    d = check_int(d, "d", low=1)
    B = check_int(B, "B", low=1)
    grid = _grid(d, B)
    return np.column_stack([grid, -np.ones(len(grid), dtype=np.int64)])


def _directional_value_bound(M: int, B: int) -> int:
    """A bound on every coordinate of ``T_U(1)`` for points in ``[-M, M]^(d+1)``.

    ``±(0, -1)`` give ``|w| <= M``; ``(B e_i, -1)`` with ``w >= -M`` give
    ``a_i <= (B M + M + M)/B``, and symmetrically below.
    """
    return M + -(-2 * M // B)


def learner_directional_domain(M: int, B: int, D: int, i: int, t: int = 1) -> RationalDomain:
    """Public A3-rational candidates for coordinate ``i`` of the directional depth regions ``T_U(r)``.

    ``D = d + 1`` is the dimension of the chunk points (entries in ``[-M, M]``), ``U`` as in
    :func:`learner_directions`. A vertex coordinate of ``T_U(r) ∩ {z_<i = prefix}`` solves
    ``k = D - i + 1`` equations ``u.z = c`` with ``u in U`` restricted to the free coordinates:
    ``k - 1`` columns with entries at most ``B`` and the last column ``-1``, so its determinant is
    at most ``Q = floor(sqrt(k)^k B^(k-1))`` (Hadamard over the columns), the right-hand side has the
    running denominator ``t``, and the value lies in ``[-B', B']`` (:func:`_directional_value_bound`):
    it is ``p/(t q)`` with ``q <= Q`` (property (P) of spec A3). Depends on ``M``, ``B``, ``D``,
    ``i`` and ``t`` only.
    """
    k = check_int(D, "D", low=2) - check_int(i, "i", low=1) + 1
    if k < 1:
        raise InvalidParameterError(f"coordinate i = {i} must be at most D = {D}")
    Q = math.isqrt(k**k * B ** (2 * (k - 1)))
    return RationalDomain(_directional_value_bound(M, B), check_int(t, "t", low=1), Q)


@dataclass(frozen=True)
class LearnHalfSpacePlan(RenamedFields):
    """Everything LearnHalfSpace decides before reading the data (all public)."""

    _renamed_fields = {"B": "bound"}

    s: int
    d: int
    bound: int  # B: the grid is Z^d ∩ [-B, B]^d
    n_chunks: int  # m
    chunk_size: int  # k
    hypothesis_bound: int  # M_h
    depth: str
    find_tukey: FindTukeyPlan
    sufficient_chunks: int  # FindTukey's sufficient size in dimension d + 1 (beta/2)
    sufficient_chunk_size: int  # the realisable VC size at alpha/(2(d+2)), beta/(2m)
    sufficient_s: int
    alpha: float
    beta: float

    def describe(self) -> list[str]:
        return [
            f"LearnHalfSpace plan: d={self.d}, B={self.bound}, s={self.s}, depth={self.depth}, "
            f"optimizer={self.find_tukey.optimizer}",
            f"  {self.n_chunks} chunk(s) of {self.chunk_size} record(s) by position, "
            f"{self.s - self.n_chunks * self.chunk_size} dropped; chunk points in [-{self.hypothesis_bound}, "
            f"{self.hypothesis_bound}]^{self.d + 1}",
            f"  sufficient for error <= alpha={self.alpha:g} with probability 1 - beta={1 - self.beta:g}: "
            f"{self.sufficient_chunks:,} chunks of {self.sufficient_chunk_size:,}, s = {self.sufficient_s:,}",
        ]


def _sufficient_directional(plan: FindTukeyPlan, M: int, B: int, D: int) -> int:
    """FindTukey's sufficient size over the directional domains (the formula of ``plan_find_tukey``)."""
    return sufficient_n_over(
        largest_domain_sizes(D, lambda i, t: learner_directional_domain(M, B, D, i, t)),
        plan.optimizer,
        D,
        beta=plan.beta,
        eps0=plan.epsilon0,
        delta0=plan.delta0,
        alpha0=plan.alpha0,
        beta0=plan.beta0,
        promises=plan.promises,
        n=plan.n,
    )


def max_default_chunks(d: int, B: int, depth: str = "tukey") -> int:
    """The most chunk points the default ``n_chunks`` uses: what FindTukey runs on in dimension ``d + 1``
    (``MAX_POINTS_3D`` in Tukey depth for ``d = 2``; in directional depth the limits on ``|U| m`` and on
    the net's directions times ``m``). A function of public parameters only; at least 1."""
    D = d + 1
    if depth == "tukey":
        return MAX_POINTS_3D if D == 3 else 2**62
    by_grid = DIRECTION_LIMIT // (2 * B + 1) ** d
    by_net = FINITE_DIRECTION_LIMIT // n_net_directions(D)
    return max(1, min(by_grid, by_net))


@renamed_keywords(mode="optimizer", B="bound")
@cached_plan()
def plan_learn_halfspace(
    s: int,
    d: int,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    optimizer: str = "exponential",
    depth: str = "tukey",
    composition: str = "auto",
    n_chunks: int | None = None,
) -> LearnHalfSpacePlan:
    """Chunks, bounds, FindTukey's budget split and the sufficient sample size (public inputs only).

    ``n_chunks=None``: the paper's ``m`` (FindTukey's sufficient size in dimension ``d + 1`` at
    ``beta/2``) when ``s`` reaches :attr:`~LearnHalfSpacePlan.sufficient_s`; below it, a public
    balance ``min(m, floor(sqrt(s)))`` between the number of chunks (the deep point's margin) and
    their size (each chunk's accuracy); either capped at :func:`max_default_chunks`, the most chunk
    points FindTukey runs on here, so that more records never make the default fail. Raises
    :class:`~privpac.errors.InvalidParameterError` when
    FindTukey does not run in dimension ``d + 1`` in Tukey depth (directional depth runs in any
    dimension), and :class:`~privpac.errors.DataError` when
    ``s < m`` (no chunk possible) or the directional depth's ``|U| m`` exceeds
    :data:`DIRECTION_LIMIT`.
    """
    s = check_int(s, "s", low=1)
    d = check_int(d, "d", low=1)
    B = check_int(bound, "bound", low=1)
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    check_optimizer(optimizer)
    check_choice(depth, "depth", DEPTHS)
    check_choice(composition, "composition", COMPOSITIONS)
    D = d + 1
    # Directional depth runs in any dimension (certified LPs over the public U); Tukey depth needs the
    # exact regions, which FindTukey has in FIND_TUKEY_DIMENSIONS only.
    if depth == "tukey" and D not in FIND_TUKEY_DIMENSIONS:
        raise InvalidParameterError(
            f"LearnHalfSpace for d = {d} runs FindTukey in dimension d + 1 = {D}, which privpac's FindTukey does "
            f"not implement in Tukey depth (it runs d in {FIND_TUKEY_DIMENSIONS}): use d <= "
            f"{max(FIND_TUKEY_DIMENSIONS) - 1}, or depth='directional' (any d, over the public directions U)"
        )
    M = hypothesis_bound(d, B)
    probe = plan_find_tukey(
        1, D, M, epsilon, delta, beta=beta / 2, optimizer=optimizer, composition=composition, depth=depth
    )
    m_need = probe.sufficient_n if depth == "tukey" else _sufficient_directional(probe, M, B, D)
    a = alpha / (2 * (d + 2))
    k_need = math.ceil(behw_sample_size(a, beta / (2 * m_need), D))
    s_need = m_need * k_need
    if n_chunks is None:
        m = m_need if s >= s_need else max(1, min(m_need, math.isqrt(s)))
        m = min(m, max_default_chunks(d, B, depth))
    else:
        m = check_int(n_chunks, "n_chunks", low=1)
    if s < m:
        raise DataError(
            f"LearnHalfSpace needs at least one record per chunk: s = {s} records for {m} chunks (use more records "
            "or fewer chunks)"
        )
    if depth == "directional" and (2 * B + 1) ** d * m > DIRECTION_LIMIT:
        raise DataError(
            f"the directional depth over U = {{±(x, -1) : x in [-{B}, {B}]^{d}}} has {(2 * B + 1) ** d:,} directions; "
            f"with {m} chunk points that is above DIRECTION_LIMIT = {DIRECTION_LIMIT:,} steps: use depth='tukey', "
            "a smaller B or fewer chunks"
        )
    ft = plan_find_tukey(
        m, D, M, epsilon, delta, beta=beta / 2, optimizer=optimizer, composition=composition, depth=depth
    )
    return LearnHalfSpacePlan(
        s=s,
        d=d,
        bound=B,
        n_chunks=m,
        chunk_size=s // m,
        hypothesis_bound=M,
        depth=depth,
        find_tukey=ft,
        sufficient_chunks=m_need,
        sufficient_chunk_size=k_need,
        sufficient_s=s_need,
        alpha=alpha,
        beta=beta,
    )


# ---------------------------------------------------------------------------------------------
# One consistent halfspace per chunk (spec A5 [ENG])
# ---------------------------------------------------------------------------------------------


def _scan_thresholds(x: np.ndarray, y: np.ndarray, B: int) -> np.ndarray:
    """``d = 1``: the consistent ``(a, w)`` of every row of ``x`` (shape ``(m, k)``) at once."""
    lo, hi = -B - 1, B + 1
    pos, neg = y == 1, y == 0
    pos_min = np.where(pos, x, hi).min(axis=1)
    pos_max = np.where(pos, x, lo).max(axis=1)
    neg_min = np.where(neg, x, hi).min(axis=1)
    neg_max = np.where(neg, x, lo).max(axis=1)
    has_pos, has_neg = pos.any(axis=1), neg.any(axis=1)
    both = has_pos & has_neg
    up = both & (neg_max < pos_min)  # x >= w with w halfway in (neg_max, pos_min]
    down = both & ~up & (pos_max < neg_min)  # -x >= w, i.e. x <= -w, -w halfway in [pos_max, neg_min)
    out = np.zeros((x.shape[0], 2), dtype=np.int64)
    out[:, 1] = 1  # the default and the all-0 chunk: 0 >= 1 is false everywhere
    out[~has_neg, 1] = 0  # all 1: 0 >= 0 everywhere
    out[up, 0] = 1
    out[up, 1] = (neg_max[up] + pos_min[up] + 1) // 2
    out[down, 0] = -1
    out[down, 1] = -((pos_max[down] + neg_min[down]) // 2)
    return out


def _primitive(values: list[Fraction]) -> list[int]:
    lcm = 1
    for v in values:
        lcm = lcm * v.denominator // math.gcd(lcm, v.denominator)
    ints = [int(v * lcm) for v in values]
    g = 0
    for v in ints:
        g = math.gcd(g, v)
    return [v // g for v in ints] if g > 0 else ints


def _lp_halfspace(x: np.ndarray, y: np.ndarray, M: int) -> tuple[int, ...]:
    """``d >= 2``: HiGHS on the chunk, rounded, scaled to a primitive vector and checked exactly."""
    from scipy.optimize import linprog

    k, d = x.shape
    D = d + 1
    default = (0,) * d + (1,)
    rows = np.column_stack([x, -np.ones(k, dtype=np.int64)]).astype(np.float64)
    sign = np.where(y == 1, -1.0, 1.0)  # label 1: -(a.x - w) <= 0; label 0: a.x - w <= -1
    A = rows * sign[:, None]
    b = np.where(y == 1, 0.0, -1.0)
    res = linprog(np.ones(2 * D), A_ub=np.hstack([A, -A]), b_ub=b, bounds=(0, None), method="highs-ds")
    if res.status != 0 or res.x is None:
        return default
    z = res.x[:D] - res.x[D:]
    z = _primitive([Fraction(float(v)).limit_denominator(M) for v in z])
    if max(abs(v) for v in z) > M:
        return default
    a = np.asarray(z[:d], dtype=object)
    margin = x.astype(object) @ a - z[d]  # exact Python integers
    ok = np.all(np.where(y == 1, margin >= 0, margin < 0))
    return tuple(int(v) for v in z) if ok else default


def consistent_halfspace(x, y, B: int) -> tuple[int, ...]:
    """The deterministic consistent halfspace ``(a, w)`` of one chunk (spec A5 [ENG]; module docstring).

    ``x``: integer points of ``[-B, B]^d``; ``y``: labels in ``{0, 1}``. Returns a primitive integer
    vector with entries at most :func:`hypothesis_bound` ``(d, B)``, with ``a.x >= w`` exactly on
    the label-1 points and ``a.x < w`` on the label-0 points, or the default ``(0, ..., 0, 1)`` when
    no such vector is found (a non-realisable chunk). A function of the chunk alone.
    """
    B = check_int(B, "B", low=1)
    arr = check_points_in_box(x, B, name="x")
    y = np.asarray(y, dtype=np.int64)
    if y.shape != (arr.shape[0],) or not np.all((y == 0) | (y == 1)):
        raise DataError(f"y must hold one label in {{0, 1}} per point ({arr.shape[0]}), got shape {y.shape}")
    return tuple(int(v) for v in chunk_halfspaces(arr, y, 1, B)[0])


def _check_sample(X, y, B: int, labels=(0, 1)) -> tuple[np.ndarray, np.ndarray]:
    """``X`` as integer points of ``[-B, B]^d`` and ``y`` as labels in ``{0, 1}`` (read off the public ``labels``)."""
    arr = check_points_in_box(X, check_int(B, "B", low=1), name="X")
    y01 = check_labels(y, labels, arr.shape[0])
    return arr, y01


def _group_points(k: int, B: int, labels: tuple, points, X_rows, y_rows) -> np.ndarray:
    """The chunk points of consecutive whole chunks of ``k`` rows: a kernel of
    :meth:`~privpac.backends.NumpyBackend.map_chunks`, run where the rows live. Deterministic, no
    randomness, reads its own rows only; returns ``len/k`` integer vectors of ``d + 1`` entries."""
    arr, y01 = _check_sample(X_rows if points is None else points(X_rows), y_rows, B, labels)
    return chunk_halfspaces(arr, y01, arr.shape[0] // k, B)


def sample_chunk_points(X, y, plan: LearnHalfSpacePlan, *, labels=(0, 1), points=None) -> np.ndarray:
    """The ``(m, d+1)`` chunk points ``H0`` of Fig. 2, computed where the sample lives.

    ``X``, ``y``: the sample in memory (NumPy, pandas) or on an engine (a Dask collection, or a
    Spark DataFrame with ``y`` the name of its label column; :mod:`privpac.backends`), ``labels``
    the public label set ``(negative, positive)`` of ``y``; ``points`` (optional) a public per-record
    map of the rows to integer points, applied where they live (a grid's
    :meth:`~privpac.domains.Lattice.to_lattice`). Chunk ``j`` is the rows at positions
    ``j k .. (j+1) k - 1`` (``k = plan.chunk_size``), exactly as in :func:`chunk_halfspaces`; the
    tail of ``s - m k`` rows reaches no kernel. :meth:`~privpac.backends.NumpyBackend.map_chunks`
    hands each kernel call :data:`GROUP_ROWS` rows' worth of whole chunks (a public grouping; the
    ``d = 1`` scan is vectorised over a group), by row position, never by value: only the chunk
    points travel to the driver, ``(d + 1) m`` integers. Every chunk point is a function of its own
    chunk, so the multiset ``H0`` is the same for every partitioning and engine.
    """
    from ..backends import backend_for

    k, m = plan.chunk_size, plan.n_chunks
    group = max(1, GROUP_ROWS // k) * k
    kernel = functools.partial(_group_points, k, plan.bound, tuple(labels), points)
    parts = backend_for(X).map_chunks(kernel, group, plan.s, X, y, stop=m * k)
    H0 = np.concatenate(parts, axis=0).astype(np.int64)
    if H0.shape != (m, plan.d + 1):  # guards the grouping arithmetic; a public shape
        raise RuntimeError(f"LearnHalfSpace: {H0.shape[0]} chunk points for {m} chunks")
    return H0


def chunk_halfspaces(x: np.ndarray, y01: np.ndarray, m: int, B: int) -> np.ndarray:
    """The ``(m, d+1)`` chunk points: chunk ``j`` is records ``j k .. (j+1) k - 1``, ``k = floor(s/m)``."""
    s, d = x.shape
    k = s // m
    xs, ys = x[: m * k], y01[: m * k]
    if d == 1:
        return _scan_thresholds(xs[:, 0].reshape(m, k).astype(np.int64), ys.reshape(m, k), B)
    M = hypothesis_bound(d, B)
    xs, ys = xs.reshape(m, k, d), ys.reshape(m, k)
    return np.asarray([_lp_halfspace(xs[j], ys[j], M) for j in range(m)], dtype=np.int64)


def halfspace_predict(a, w, X) -> np.ndarray:
    """``1[a.x >= w]`` for integer points ``X`` and exact rationals ``a``, ``w`` (integer arithmetic)."""
    arr, _ = as_integer_points(X, "X", d=len(a))
    scores, _ = exact_affine_scores(a, -Fraction(w), arr)
    return (scores >= 0).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# LearnHalfSpace (Fig. 2)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LearnHalfSpaceResult:
    """The private output ``x -> 1[a . x >= w]`` (exact) and the public plan."""

    a: tuple[Fraction, ...]
    w: Fraction
    plan: LearnHalfSpacePlan

    def predict(self, X) -> np.ndarray:
        return halfspace_predict(self.a, self.w, X)


@renamed_keywords(mode="optimizer", B="bound")
def learn_halfspace(
    X,
    y,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    alpha: float = 0.1,
    beta: float = 0.1,
    optimizer: str = "exponential",
    depth: str = "tukey",
    composition: str = "auto",
    n_chunks: int | None = None,
    permute: bool = False,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> LearnHalfSpaceResult:
    """LearnHalfSpace (Fig. 2, Thm 4.2): a private halfspace ``1[a.x >= w]`` over ``Z^d ∩ [-B, B]^d``.

    Parameters
    ----------
    X : array-like of shape (s, d)
        Integer points of the public box (private; replace-one neighbours, ``s`` public).
    y : array-like of shape (s,)
        Labels in ``{0, 1}``.
    bound : int
        The public bound ``B`` of the grid ``Z^d ∩ [-B, B]^d``.
    epsilon, delta : float
        Total budget (FindTukey's: the chunking costs nothing).
    alpha, beta : float
        Accuracy and confidence the sufficient size and the paper's ``m`` are computed for.
    optimizer : {"exponential", "recconcave"}
        FindTukey's per-coordinate optimiser.
    depth : {"tukey", "directional"}
        The depth FindTukey maximises: exact Tukey depth, or ``depth_U`` with
        ``U = {±(x, -1) : x in X}`` (spec A5, last bullet).
    composition : {"auto", "basic", "advanced"}
        FindTukey's composition over the ``d + 1`` coordinates.
    n_chunks : int, optional
        The number of chunks ``m`` (public); default in :func:`plan_learn_halfspace`.
    permute : bool, default=False
        Chunk after a uniformly random permutation drawn from ``rng`` (independent of the data; in
        memory: the estimator, which also fits on engines, has no such option).
    ledger : PrivacyLedger, optional
        Charged by FindTukey (one composed block) before any data-dependent draw.
    rng : None, int or RandomSource

    Privacy: (epsilon, delta)-DP for every input (module docstring). Utility: error at most
    ``alpha`` with probability ``1 - beta`` on realisable data once ``s >= plan.sufficient_s``.
    """
    B = check_int(bound, "bound", low=1)
    arr, y01 = _check_sample(X, y, B)
    s, d = arr.shape
    plan = plan_learn_halfspace(
        s,
        d,
        B,
        epsilon,
        delta,
        alpha=alpha,
        beta=beta,
        optimizer=optimizer,
        depth=depth,
        composition=composition,
        n_chunks=n_chunks,
    )
    src = as_random_source(rng)
    if permute:
        # A uniformly random order from the RandomSource, drawn before and independently of the data.
        order = np.argsort(src.random_words(s), kind="stable")
        arr, y01 = arr[order], y01[order]
    return aggregate_chunk_points(sample_chunk_points(arr, y01, plan), plan, ledger=ledger, rng=src)


def aggregate_chunk_points(
    H0: np.ndarray, plan: LearnHalfSpacePlan, *, ledger: PrivacyLedger | None = None, rng=None
) -> LearnHalfSpaceResult:
    """Steps 3 and 4 of Fig. 2 on the driver: a private deep point ``(a*, w*)`` of the ``m`` chunk
    points ``H0`` (:func:`sample_chunk_points`) by FindTukey, charged to ``ledger`` before any
    draw. ``H0`` is a function of the chunks only, one chunk per point, so its replace-one
    neighbours are the chunk-point multisets FindTukey is (epsilon, delta)-DP on (module docstring).
    """
    src = as_random_source(rng)
    ft = plan.find_tukey
    d, B = plan.d, plan.bound
    if ledger is None:
        ledger = PrivacyLedger(ft.epsilon, ft.delta, label="LearnHalfSpace")
    M = plan.hypothesis_bound
    if plan.depth == "tukey":
        point = find_tukey(
            H0,
            M,
            ft.epsilon,
            ft.delta,
            beta=ft.beta,
            optimizer=ft.optimizer,
            composition=ft.composition,
            ledger=ledger,
            rng=src,
        ).center
    else:
        U = learner_directions(d, B)
        D = d + 1
        point = choose_coordinates(
            ft,
            D,
            lambda i, t: learner_directional_domain(M, B, D, i, t),
            lambda domain, prefix: interval_quality(domain, depth_intervals(H0, prefix, directions=U)),
            exponential=ft.optimizer == "exponential",
            name="FindTukey (directional depth)",
            over_for=lambda domain: (
                f"the rational candidates p/(t q) in [-{domain.B}, {domain.B}], q <= {domain.Q} (directional "
                "depth regions of the chunk points, spec A5)"
            ),
            ledger=ledger,
            rng=src,
            data_key=data_key(H0, U),
        )
    return LearnHalfSpaceResult(tuple(point[:d]), point[d], plan)


# ---------------------------------------------------------------------------------------------
# B2: the generic learner over the halfspaces of a tiny public grid
# ---------------------------------------------------------------------------------------------


def _candidate_normals(d: int, B: int) -> np.ndarray:
    """Normals that realise every halfspace labelling of the grid (with all thresholds).

    ``d = 1``: ``±1`` and ``0``. ``d = 2``: the projection order of the grid changes only at the
    normals of lines through two grid points (primitive vectors with entries at most ``2B``); these,
    both orientations, sorted by angle, plus the sum of each angularly adjacent pair (a direction
    strictly inside every open cell) give every order, hence every labelling.
    """
    if d == 1:
        return np.array([[1], [-1], [0]], dtype=np.int64)
    if d != 2:
        raise InvalidParameterError(f"the generic learner's class is enumerated for d <= 2 only, got d = {d}")
    m = 2 * B
    crit = [(a, b) for a in range(-m, m + 1) for b in range(-m, m + 1) if (a, b) != (0, 0) and math.gcd(a, b) == 1]
    crit.sort(key=lambda v: math.atan2(v[1], v[0]))
    mids = [(u[0] + v[0], u[1] + v[1]) for u, v in itertools.pairwise(crit + crit[:1])]
    return np.asarray(crit + mids + [(0, 0)], dtype=np.int64)


def grid_halfspace_class(d: int, B: int) -> tuple[np.ndarray, np.ndarray]:
    """One representative ``(a, w)`` per halfspace labelling of ``X = Z^d ∩ [-B, B]^d`` (spec A6, B2).

    Returns ``(H, labels)``: ``H`` of shape ``(|class|, d+1)`` integer rows ``(a, w)`` and
    ``labels[h, j] = 1[a_h . x_j >= w_h]`` over the grid points in ``meshgrid`` order. Public:
    built from ``d`` and ``B`` only. Refused (before anything is built) for
    ``(candidates) * |X|`` above :data:`GENERIC_LIMIT`.
    """
    d = check_int(d, "d", low=1)
    B = check_int(B, "B", low=1)
    size = (2 * B + 1) ** d
    n_normals = 3 if d == 1 else 2 * (4 * B + 1) ** 2 + 1
    if n_normals * (size + 1) * size > GENERIC_LIMIT:
        raise DataError(
            f"the generic learner enumerates one halfspace per labelling of the {size:,} points of [-{B}, {B}]^{d}: "
            f"about {n_normals * (size + 1) * size:,} steps, above GENERIC_LIMIT = {GENERIC_LIMIT:,} (it is a baseline "
            "for tiny grids)"
        )
    pts = _grid(d, B)
    normals = _candidate_normals(d, B)
    proj = pts @ normals.T  # (|X|, K)
    rows, labs = [], []
    for j, u in enumerate(normals):
        ws = np.unique(np.concatenate([proj[:, j], [proj[:, j].max() + 1]]))
        rows.append(np.column_stack([np.repeat(u[None, :], len(ws), axis=0), ws]))
        labs.append((proj[:, j][None, :] >= ws[:, None]).astype(np.int8))
    H, L = np.vstack(rows), np.vstack(labs)
    _, first = np.unique(L, axis=0, return_index=True)
    first = np.sort(first)
    return H[first], L[first].astype(np.int64)


def generic_halfspace_learner(
    X, y, B: int, epsilon: float, *, ledger: PrivacyLedger | None = None, rng=None
) -> tuple[tuple[int, ...], int]:
    """B2 (spec "Baselines"; BMNS section 4 intro): the exponential mechanism over one halfspace per
    labelling of the public grid, with the number of correctly labelled records as quality.

    ``(epsilon, 0)``-DP (McSherry-Talwar: the quality has sensitivity 1 and the class is public);
    ``O(log|H|/(alpha epsilon)) = O(d log|X|/(alpha epsilon))`` records suffice. Runs over the
    class of :func:`grid_halfspace_class` (tiny grids only). Returns ``(a, w)`` with prediction
    ``1[a.x >= w]``.
    """
    B = check_int(B, "B", low=1)
    epsilon = check_budget_epsilon(epsilon)
    arr, y01 = _check_sample(X, y, B)
    d = arr.shape[1]
    H, L = grid_halfspace_class(d, B)
    # Index of each record in the grid's meshgrid order.
    idx = np.zeros(arr.shape[0], dtype=np.int64)
    for c in range(d):
        idx = idx * (2 * B + 1) + (arr[:, c].astype(np.int64) + B)
    j = em_learner(L[:, idx], y01, epsilon, ledger=ledger, rng=rng)
    h = H[j]
    return tuple(int(v) for v in h[:d]), int(h[d])


#: Names this module no longer defines, and what replaced them: importing one raises ImportError naming the new one.
_RENAMED = {
    "MODES": "OPTIMIZERS",
    "directional_domain": "learner_directional_domain",
    "blumer_realizable": "privpac.learners.generalization.behw_sample_size",
}


def __getattr__(name: str):
    return renamed_attribute(__name__, name, _RENAMED)
