"""Private halfspace learners through linear feasibility: LearnHalfSpace (ERM) and the PAC learner.

Kaplan, Mansour, Stemmer and Tsfadia, "Private learning of halfspaces: simplifying the construction
and reducing the sample complexity" (NeurIPS 2020): Fig. 3 (LearnHalfSpace, Thm 5.1), Thm 5.2 / B.7
with Lemmas B.5 and B.6 (the PAC learner); spec ``kmst-halfspaces`` sections 3.5, 3.6, 3.7 item 1
and 10 (flags 9 and 10).

Problem
-------
The private data is a labelled sample ``S = ((x_l, y_l))_{l=1..m}`` with ``x_l in [[-X, X]]^d`` for a
*public* integer bound ``X`` (``bound=``) and labels in ``{0, 1}`` (replace-one neighbours: ``m`` is public),
read as ``y_l = 2 label - 1 in {-1, +1}`` in the constraints below. The output is a halfspace
``h(x) = +1 iff <a, x> >= w`` (label 1) with exact rational ``(a, w)``.

Duality (Fig. 3)
----------------
A halfspace ``(a, w)`` is a point of ``R^(d+1)`` and a labelled point is a linear constraint on it:
record ``l`` becomes the row ``(y_l x_l, -y_l)`` with right-hand side ``b``, i.e.
``y_l (<a, x_l> - w) >= b``. FindDeepPoint (:func:`~privpac.learners.linear_feasibility.find_deep_point`)
then runs in ``D = d + 1`` variables with the coefficient bound ``X`` unchanged.

* ``dual="margin-1"`` (default; spec 3.7 item 1): ``b = 1``. A realisable sample is strictly
  separable on the grid, so the system is feasible (all labels +1: ``(0, -1)``; all -1:
  ``(0, 1)``), the origin is infeasible, and every satisfied constraint is a correctly classified
  record: ``error_S(h) <= 1 - depth/m`` with no general-position assumption. ERM runs FindDeepPoint
  at ``alpha`` (depth ``>= (1 - alpha) m`` gives error ``<= alpha``).
* ``dual="paper"`` (Fig. 3 as printed): ``b = 0`` and ``alpha / 2``. The origin satisfies every
  homogeneous constraint, so ``(a, w) = (0, 0)`` has full depth and lies in every argmax (spec 3.5
  [FLAW]): a returned ``a* = 0`` is a constant hypothesis, and the error bound
  ``alpha/2 + d/m`` of Thm 5.1 (general position) says nothing about it. It is reported in
  :attr:`HalfspaceResult.degenerate`, a function of the private output only.

PAC learner (Thm 5.2)
---------------------
* margin-1 (spec 3.7 item 1): ERM at ``(alpha/10, beta/2)`` on the original grid, plus uniform
  convergence (Thm 2.8 at ``(alpha, beta/2)``, VC dimension ``d + 1``):
  ``s >= (48/alpha)(10 (d+1) ln(48e/alpha) + ln(10/beta))``. No noise, no general position.
* paper (Thm 5.2 with the spec's corrections 3.6 [FLAW] (i)-(iii)): with
  ``X' = 2 d^2 (d!)^(d^3) X^(d^6)`` (Lemma B.5), ``Delta_n = ceil(2 d s^d / beta)`` (corrected from
  ``d s^d / (2 beta)``: Lemma B.6 needs ``|A| >= 4 d s^d / beta`` for failure ``beta/4``) and the
  integer ``Delta' = 2 Delta_n X' ceil(sqrt d)`` (the paper's ``sqrt d`` is not an integer), every
  record is moved to ``x~ = Delta' x + z`` with ``z`` uniform on ``[[-Delta_n, Delta_n]]^d``, drawn
  per record from privpac's exact :func:`~privpac.random.uniform_int`, independently of every data
  value. Then paper-mode ERM at ``(alpha/20, beta/4)`` (FindDeepPoint at ``alpha/40``) on the grid
  ``X_noisy = Delta' X + Delta_n``, and the hypothesis is mapped back:
  ``h(x) = +1 iff <a*, Delta' x> >= w*``, i.e. ``(Delta' a*, w*)``. Uniform convergence at
  ``(alpha/2, beta/2)``: ``s >= (96/alpha)(10 (d+1) ln(96e/alpha) + ln(10/beta))``. The noisy grid
  is astronomically large for ``d >= 2`` (``X^(d^6)``); the candidate domains are implicit (the
  exponential mechanism over a step function never lists them), and a grid above
  :data:`MAX_GRID_BITS` bits is refused from the public sizes before anything runs.

Privacy
-------
* ERM: the map ``(x_l, y_l) -> ((y_l x_l, -y_l), b)`` acts on each record alone, so replacing one
  record replaces exactly one constraint: neighbouring samples give neighbouring systems of the same
  public size ``m`` with entries in the same public ``[[-X, X]]``. FindDeepPoint is
  ``(epsilon, delta)``-DP on every pair of such systems (Thm 4.6, see its module), and the
  hypothesis is its output. Both modes, both learners: ``(epsilon, delta)``-DP for every input,
  realisable or not.
* PAC noise (paper mode): the noise vectors ``z_1, ..., z_m`` are drawn i.i.d. and independently of
  the data. Couple the runs on neighbours ``S, S'`` (differing in record ``j``) through the same
  ``z``: for every fixed ``z`` the noisy samples differ in record ``j`` only, and ``X_noisy``
  depends on the public ``m, d, X, beta`` only, so for every event ``E``
  ``Pr[M(S) in E] = E_z Pr[ERM(S~_z) in E] <= E_z (e^eps Pr[ERM(S'~_z) in E] + delta)
  = e^eps Pr[M(S') in E] + delta``. Rescaling the output by the public ``Delta'`` is
  post-processing.
* The whole plan is charged to the ledger by FindDeepPoint before the first data-dependent draw;
  nothing branches on the data; no count of satisfied constraints or training error is returned.

Dimensions: FindDeepPoint's own supported dimensions decide (``D = d + 1`` must be one of
:data:`privpac.learners.linear_feasibility.FIND_DEEP_POINT_DIMENSIONS`, read at call time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DataError, InvalidParameterError
from ..random import as_random_source, gaussian_array, uniform_array, uniform_int
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
from . import linear_feasibility as _fdp
from .center_point import check_points_in_box
from .generalization import kmst_blumer_sample_size

__all__ = [
    "CANDIDATE_RESOLUTION",
    "halfspace_candidates",
    "halfspace_from_solution",
    "LEARNERS",
    "DUALS",
    "MAX_GRID_BITS",
    "HalfspaceLearnerPlan",
    "HalfspaceResult",
    "PacNoise",
    "check_learner_dimension",
    "dual_system",
    "learn_halfspace",
    "pac_noise",
    "plan_halfspace_learner",
]

LEARNERS = ("erm", "pac")
DUALS = ("margin-1", "paper")
#: Largest coefficient grid (in bits of ``X_noisy``) the paper-mode PAC learner runs FindDeepPoint on.
MAX_GRID_BITS = 4096


#: The public integer resolution of :func:`halfspace_candidates`' directions (largest ``|a_j|``).
CANDIDATE_RESOLUTION = 64


@renamed_keywords(X="bound")
def halfspace_candidates(n: int, d: int, bound: int, rng=None, *, resolution: int = CANDIDATE_RESOLUTION):
    """``n`` random public halfspaces ``(a, w)`` on the grid ``[[-X, X]]^d``, plus the two constant ones.

    A candidate set for the dual of spec 6.5 option 1 ("random public directions for the learner"),
    drawn without the data: ``a`` is a Gaussian direction scaled so its largest entry is
    ``resolution`` and rounded to integers, ``w`` the rounded ``<a, z>`` at a point ``z`` uniform in
    the public box ``[-X, X]^d`` (so the hyperplanes cross the grid's box), and the constant
    hypotheses ``(0, -1)`` (all positive) and ``(0, 1)`` (all negative) close the set. On integer
    data an integer ``(a, w)`` satisfies the margin-1 constraint ``y (<a, x> - w) >= 1`` iff it
    classifies ``x`` correctly with ``<a, x> != w``. Every entry lies in ``[-C, C]``,
    ``C = d resolution X`` (returned as the set's bound).
    """
    from .feasibility_candidates import CandidateSet

    n = check_int(n, "n_candidates", low=1)
    d = check_int(d, "d", low=1)
    X = check_int(bound, "bound", low=1)
    resolution = check_int(resolution, "resolution", low=1)
    src = as_random_source(rng)
    g = gaussian_array((n, d), 1.0, src)
    top = np.max(np.abs(g), axis=1, keepdims=True)
    a = np.rint(resolution * g / np.where(top > 0, top, 1.0)).astype(np.int64)
    z = (2.0 * uniform_array((n, d), src) - 1.0) * X
    w = np.rint(np.sum(a * z, axis=1)).astype(np.int64)
    constant = np.zeros((2, d + 1), dtype=np.int64)
    constant[:, d] = (-1, 1)
    C = d * resolution * X
    points = np.vstack([np.hstack([a, w[:, None]]), constant])
    return CandidateSet(np.clip(points, -C, C), C)


def dual_rows_bound(d: int, X: int) -> int:
    """Distinct dual rows ``(y x, -y)`` a sample on the grid ``[[-X, X]]^d`` can give: ``2 (2X + 1)^d`` (public)."""
    return 2 * (2 * X + 1) ** d


def check_learner_dimension(d, candidates: bool = False) -> int:
    """``d`` if FindDeepPoint runs in ``D = d + 1`` variables, else :class:`InvalidParameterError`.

    ``candidates``: over a public candidate set every ``d >= 1`` runs (spec 6.5 option 1).
    """
    d = check_int(d, "d", low=1)
    if candidates:
        return d
    supported = tuple(_fdp.FIND_DEEP_POINT_DIMENSIONS)
    if d + 1 not in supported:
        ds = ", ".join(str(D - 1) for D in supported if D >= 2)
        raise InvalidParameterError(
            f"the KMST halfspace learners in d = {d} dimension(s) run FindDeepPoint on the halfspace (a, w) in "
            f"D = d + 1 = {d + 1} variables; FindDeepPoint is exact for D in {supported}, so d in {{{ds}}}; any d "
            "runs over a public candidate set of halfspaces (candidates=..., spec kmst-halfspaces 6.5 option 1)"
        )
    return d


@renamed_keywords(y_pm="y", mode="dual")
def dual_system(X: np.ndarray, y, dual: str) -> tuple[np.ndarray, np.ndarray]:
    """The dual constraints ``y_l (<a, x_l> - w) >= b`` (rows ``(y_l x_l, -y_l)``), ``b = 1`` or ``0``.

    ``X`` is an exact ``(m, d)`` integer array, ``y`` holds the labels ``0``/``1``, read as
    ``y_l = 2 label - 1``. One record, one row.
    """
    check_choice(dual, "dual", DUALS)
    y = (2 * _check_labels01(y, X.shape[0]) - 1).astype(X.dtype).reshape(-1, 1)
    A = np.hstack([X * y, -y])
    b = np.full(X.shape[0], 1 if dual == "margin-1" else 0, dtype=np.int64)
    return A, b


def _check_labels01(y, m: int) -> np.ndarray:
    """``y`` as an int64 array of ``m`` labels in ``{0, 1}``; the former ``{-1, +1}`` convention is
    refused with the conversion (a silent reading of ``-1`` is never made)."""
    y = np.asarray(y)
    if y.shape != (m,):
        raise DataError(f"y must hold one label in {{0, 1}} per record ({m}), got shape {y.shape}")
    if np.any(y == -1):
        raise DataError(
            "y must hold labels in {0, 1}, as every privpac learner takes them; it holds -1: labels in {-1, +1} "
            "are no longer taken here, pass (y + 1) // 2"
        )
    if not np.all((y == 0) | (y == 1)):
        raise DataError(f"y must hold labels in {{0, 1}}, got values outside it (shape {y.shape})")
    return y.astype(np.int64)


@dataclass(frozen=True)
class PacNoise:
    """The paper-mode PAC learner's public noise parameters (Lemmas B.5, B.6; spec 3.6, corrected)."""

    x_prime: int  # X' = 2 d^2 (d!)^(d^3) X^(d^6)
    delta_n: int  # Delta_n = ceil(2 d s^d / beta)
    delta_prime: int  # Delta' = 2 Delta_n X' ceil(sqrt d)
    grid: int  # X_noisy = Delta' X + Delta_n


def pac_noise(m: int, d: int, X: int, beta: float) -> PacNoise:
    """The noise parameters of the paper's PAC learner from public inputs (exact integers)."""
    m, d, X = check_int(m, "m", low=1), check_int(d, "d", low=1), check_int(X, "X", low=1)
    beta = check_probability(beta, "beta")
    x_prime = 2 * d * d * math.factorial(d) ** (d**3) * X ** (d**6)
    num = Fraction(2 * d * m**d) / Fraction(beta)
    delta_n = -(-num.numerator // num.denominator)
    delta_prime = 2 * delta_n * x_prime * (math.isqrt(d - 1) + 1)  # ceil(sqrt d)
    return PacNoise(x_prime, delta_n, delta_prime, delta_prime * X + delta_n)


@dataclass(frozen=True)
class HalfspaceLearnerPlan(RenamedFields):
    """Everything the learner decides before reading the sample (all public)."""

    _renamed_fields = {"mode": "dual", "X": "bound", "grid": "inner_bound"}

    learner: str
    dual: str
    m: int
    d: int
    bound: int  # X: the grid is [[-X, X]]^d
    alpha: float
    beta: float
    inner_alpha: float  # the accuracy FindDeepPoint runs at
    inner_beta: float
    noise: PacNoise | None
    uniform_convergence: int  # Thm 2.8's sample size (PAC only; 0 for ERM)
    find_deep_point: _fdp.FindDeepPointPlan
    sufficient_m: int

    @property
    def inner_bound(self) -> int:
        """The coefficient bound FindDeepPoint runs on (``X``, or ``X_noisy`` for the paper's PAC)."""
        return self.find_deep_point.bound

    def describe(self) -> list[str]:
        out = [
            f"KMST halfspace learner: {self.learner}, {self.dual} dual, d={self.d}, X={self.bound}, m={self.m}; "
            f"FindDeepPoint at alpha={self.inner_alpha:g}, beta={self.inner_beta:g} on "
            f"[-{self.inner_bound}, {self.inner_bound}]"
        ]
        if self.noise is not None:
            out.append(
                f"  PAC noise: Delta_n={self.noise.delta_n}, Delta'={self.noise.delta_prime} "
                f"(X_noisy has {self.noise.grid.bit_length()} bits)"
            )
        out += self.find_deep_point.describe()
        out.append(
            f"  sufficient m for error <= {self.alpha:g} with probability 1 - {self.beta:g}: {self.sufficient_m:,}"
        )
        return out


@renamed_keywords(mode="dual", one_d_optimizer="optimizer", X="bound")
@cached_plan()
def plan_halfspace_learner(
    m: int,
    d: int,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    learner: str = "erm",
    dual: str = "margin-1",
    optimizer: str = "exponential",
    alpha: float = 0.1,
    beta: float = 0.1,
    candidates=None,
) -> HalfspaceLearnerPlan:
    """The accuracies, noise, grid and sufficient sample size of a run (public inputs only).

    ``candidates``: a public :class:`~privpac.learners.feasibility_candidates.CandidateSet` of halfspaces
    ``(a, w)`` (``d + 1`` columns; :func:`halfspace_candidates`): FindDeepPoint over it (any ``d``;
    spec 6.5 option 1). Not with the paper's PAC learner, whose noise rescales the records.
    """
    m = check_int(m, "m", low=1)
    d = check_learner_dimension(d, candidates is not None)
    X = check_int(bound, "bound", low=1)
    epsilon = check_budget_epsilon(epsilon)
    delta = check_delta(delta)
    check_choice(learner, "learner", LEARNERS)
    check_choice(dual, "dual", DUALS)
    alpha = check_real(alpha, "alpha", low=0.0, low_open=True, high=1.0)
    beta = check_probability(beta, "beta")
    noise = None
    uc = 0
    grid = X
    if learner == "erm":
        inner_alpha, inner_beta = (alpha if dual == "margin-1" else alpha / 2.0), beta
    elif dual == "margin-1":
        inner_alpha, inner_beta = alpha / 10.0, beta / 2.0
        uc = math.ceil(kmst_blumer_sample_size(alpha, beta / 2.0, d + 1))
    else:
        if candidates is not None:
            raise InvalidParameterError(
                "the paper's PAC learner moves every record to a noisy grid of astronomical size, where a public "
                "candidate set of halfspaces has no meaning; use dual='margin-1' with candidates"
            )
        inner_alpha, inner_beta = alpha / 40.0, beta / 4.0  # LearnHalfSpace(alpha/20) runs FindDeepPoint at alpha/40
        uc = math.ceil(kmst_blumer_sample_size(alpha / 2.0, beta / 2.0, d + 1))
        noise = pac_noise(m, d, X, beta)
        if noise.grid.bit_length() > MAX_GRID_BITS:
            raise InvalidParameterError(
                f"the paper's PAC learner needs the noisy grid X_noisy = Delta' X + Delta_n of "
                f"{noise.grid.bit_length():,} bits here (X' = 2 d^2 (d!)^(d^3) X^(d^6), Lemma B.5), above the "
                f"{MAX_GRID_BITS} bits FindDeepPoint is run on; use dual='margin-1' (no noise, the original grid)"
            )
        grid = noise.grid
    fdp = _fdp.plan_find_deep_point(
        m,
        d + 1,
        grid,
        epsilon,
        delta,
        alpha=inner_alpha,
        beta=inner_beta,
        optimizer=optimizer,
        max_distinct_rows=dual_rows_bound(d, grid),
        candidates=candidates,
    )
    return HalfspaceLearnerPlan(
        learner=learner,
        dual=dual,
        m=m,
        d=d,
        bound=X,
        alpha=alpha,
        beta=beta,
        inner_alpha=inner_alpha,
        inner_beta=inner_beta,
        noise=noise,
        uniform_convergence=uc,
        find_deep_point=fdp,
        sufficient_m=max(fdp.sufficient_m, uc),
    )


@dataclass(frozen=True)
class HalfspaceResult:
    """The private halfspace ``h(x) = +1 iff <a, x> >= w`` (exact, original coordinates) and its plan.

    ``degenerate``: paper mode returned ``a = 0`` (spec 3.5 [FLAW]); a function of the output only.
    """

    a: tuple[Fraction, ...]
    w: Fraction
    degenerate: bool
    plan: HalfspaceLearnerPlan


def _noisy_records(X: np.ndarray, noise: PacNoise, rng) -> np.ndarray:
    """``Delta' x + z`` with ``z`` uniform on ``[[-Delta_n, Delta_n]]^d``, drawn per record (exact ints).

    The draws never look at ``X``: ``m d`` independent uniform integers, in record order.
    """
    m, d = X.shape
    z = np.empty((m, d), dtype=object)
    for i in range(m):
        for j in range(d):
            z[i, j] = uniform_int(-noise.delta_n, noise.delta_n, rng)
    return X.astype(object) * noise.delta_prime + z


@renamed_keywords(y_pm="y", grid="bound", mode="dual", one_d_optimizer="optimizer")
def learn_halfspace(
    X,
    y,
    bound: int,
    epsilon: float,
    delta: float = 0.0,
    *,
    learner: str = "erm",
    dual: str = "margin-1",
    optimizer: str = "exponential",
    alpha: float = 0.1,
    beta: float = 0.1,
    candidates=None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> HalfspaceResult:
    """A private halfspace for the labelled sample ``(X, y)`` on ``[[-bound, bound]]^d``.

    Parameters
    ----------
    X : array-like of shape (m, d)
        Integer points in ``[-bound, bound]^d`` (private; replace-one neighbours, ``m`` public).
    y : array-like of shape (m,)
        Labels in ``{0, 1}`` (1: the side ``<a, x> >= w``), as every privpac learner takes them.
    bound : int
        The public bound ``X`` of every coordinate.
    epsilon, delta : float
        Total budget (the default optimiser spends ``(epsilon, 0)``).
    learner : {"erm", "pac"}, default="erm"
        LearnHalfSpace (Fig. 3, Thm 5.1) or the PAC learner (Thm 5.2).
    dual : {"margin-1", "paper"}, default="margin-1"
        The dual constraints (module docstring).
    optimizer : {"exponential", "recconcave"}, default="exponential"
        FindDeepPoint's per-coordinate optimiser.
    alpha, beta : float, default=0.1
        Target error and failure probability (they set FindDeepPoint's accuracy and the promises).
    candidates : CandidateSet, optional
        Public candidate halfspaces ``(a, w)`` (:func:`halfspace_candidates`): FindDeepPoint's score
        becomes ``depth 1[(a, w) in P]`` (spec 6.5 option 1), any ``d``, utility relative to the
        best candidate (it is not the paper's algorithm).
    ledger : PrivacyLedger, optional
        Charged (one composed block) before any data-dependent draw.
    rng : None, int or RandomSource
        ``None`` is secure randomness.
    """
    grid = check_int(bound, "bound", low=1)
    arr = check_points_in_box(X, grid)
    m, d = arr.shape
    y01 = _check_labels01(y, m)
    plan = plan_halfspace_learner(
        m,
        d,
        grid,
        epsilon,
        delta,
        learner=learner,
        dual=dual,
        optimizer=optimizer,
        alpha=alpha,
        beta=beta,
        candidates=candidates,
    )
    src = as_random_source(rng)
    if ledger is None:
        ledger = PrivacyLedger(plan.find_deep_point.epsilon, plan.find_deep_point.delta, label="KMST halfspace")
    points = arr if plan.noise is None else _noisy_records(arr, plan.noise, src)
    A, b = dual_system(points, y01, "paper" if plan.noise is not None else dual)
    fdp = _fdp.find_deep_point(
        A,
        b,
        plan.inner_bound,
        plan.find_deep_point.epsilon,
        plan.find_deep_point.delta,
        alpha=plan.inner_alpha,
        beta=plan.inner_beta,
        optimizer=optimizer,
        max_distinct_rows=dual_rows_bound(d, plan.inner_bound),
        candidates=candidates,
        ledger=ledger,
        rng=src,
    )
    return halfspace_from_solution(plan, fdp.solution)


def halfspace_from_solution(plan: HalfspaceLearnerPlan, solution) -> HalfspaceResult:
    """The hypothesis of FindDeepPoint's private output ``(a*, w*)`` (post-processing, public plan only)."""
    d = plan.d
    a, w = solution[:d], solution[d]
    if plan.noise is not None:  # h(x) = +1 iff <a*, Delta' x> >= w*: post-processing by a public scale
        a = tuple(v * plan.noise.delta_prime for v in a)
    degenerate = plan.dual == "paper" and all(v == 0 for v in a)
    return HalfspaceResult(tuple(a), w, degenerate, plan)


#: Names this module no longer defines, and what replaced them: importing one raises ImportError naming the new one.
_RENAMED = {"blumer_sample_size": "privpac.learners.generalization.kmst_blumer_sample_size"}


def __getattr__(name: str):
    return renamed_attribute(__name__, name, _RENAMED)
