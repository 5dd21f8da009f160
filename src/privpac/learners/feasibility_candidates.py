"""FindDeepPoint over a public candidate set (spec ``kmst-halfspaces`` 6.5 option 1), and the engine passes
that feed it.

Beyond the exact envelope (``D >= 4``, or more constraints than the ``D = 2, 3`` caps) FindDeepPoint runs
on the score ``f_P(S, x) = depth_S(x) 1[x in P]`` of a public finite set ``P`` of integer points
(:class:`CandidateSet`): the depths are exact integer counts, so the qualities keep sensitivity 1 and the
privacy argument of :mod:`privpac.learners.linear_feasibility` holds unchanged. Not the paper's
algorithm: the paper's guarantee is relative to ``P`` (spec 6.5).

On Dask and Spark the records never leave their partitions: :func:`engine_constraints` validates and
counts every block in one pass before any budget is spent, and :func:`engine_candidate_depths` brings
only ``|P|`` integers to the driver.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, DomainError, InvalidParameterError
from ..geometry._exact import as_integer_points
from ..geometry.feasibility import candidate_depths
from ..random import as_random_source, uniform_array
from ..validation import check_int

__all__ = [
    "LARGE_MARGIN_HINT",
    "MAX_CANDIDATE_WORK",
    "CandidateSet",
    "EngineConstraints",
    "candidate_denominator_bounds",
    "candidate_set",
    "check_candidate_size",
    "engine_candidate_depths",
    "engine_constraints",
    "random_candidates",
]

#: Where a refusal points users whose data is beyond the exact envelopes.
LARGE_MARGIN_HINT = (
    "for larger or higher-dimensional data with a margin use the large-margin learner "
    "(privpac.estimators.PrivateHalfspaceClassifier; spec kmst-halfspaces 6.5 option 3)"
)

#: Public envelope of the candidate-set oracle (spec 6.5 option 1): at most this many integer
#: multiply-adds ``n_candidates * m * (D + 1)`` for the depths (one BLAS product in blocks). Measured
#: (``benchmarks/feasibility_candidates.py --only scale``): 7e10 took 33 s and 835 MB (``m = 10^6``,
#: ``10^4`` candidates, ``D = 6``), so a fit at the cap takes one to two minutes of one core.
MAX_CANDIDATE_WORK = 2 * 10**11


@dataclass(frozen=True)
class CandidateSet:
    """A public finite candidate set ``P`` for the score ``f_P(S, x) = depth_S(x) 1[x in P]`` (spec 6.5 option 1).

    Attributes
    ----------
    points : numpy.ndarray
        ``(n, D)`` exact integers (``int64``, or Python ints beyond ``2**62``).
    bound : int
        A public ``C >= max |entry|``: every level set is inside ``[-C, C]^D``.
    """

    points: np.ndarray
    bound: int

    @property
    def size(self) -> int:
        return int(self.points.shape[0])

    @property
    def dimension(self) -> int:
        return int(self.points.shape[1])


def candidate_set(points, bound: int | None = None) -> CandidateSet:
    """A :class:`CandidateSet` from public integer points (``bound``: default their largest entry, at least 1).

    The candidates are public (a grid, a net, random points drawn without the data): reading their
    largest entry reads nothing private. Raises :class:`~privpac.errors.DataError` for non-integer or
    empty input, :class:`~privpac.errors.DomainError` for an entry beyond a given ``bound``.
    """
    P, largest = as_integer_points(points, "candidates")
    if bound is None:
        return CandidateSet(P, max(1, int(largest)))
    bound = check_int(bound, "candidate_bound", low=1)
    if largest > bound:
        raise DomainError(f"a candidate has an entry {largest} outside [-{bound}, {bound}] (candidate_bound)")
    return CandidateSet(P, bound)


def random_candidates(n: int, D: int, bound: int, rng=None) -> CandidateSet:
    """``n`` public integer points drawn uniformly from ``[[-bound, bound]]^D`` (independently of any data)."""
    n = check_int(n, "n_candidates", low=1)
    D = check_int(D, "D", low=1)
    bound = check_int(bound, "candidate_bound", low=1)
    u = uniform_array((n, D), as_random_source(rng))
    P = np.minimum(np.floor(u * (2 * bound + 1)), 2 * bound).astype(np.int64) - bound
    return CandidateSet(P, bound)


def candidate_denominator_bounds(C: int, D: int) -> tuple[int, ...]:
    """``(Q_1, ..., Q_D)`` for a candidate set in ``[[-C, C]]^D``: every level-interval end is in the domains.

    An end of coordinate ``i``'s level interval at the prefix ``s / t`` is the optimum of the LP
    ``min / max sum_j y_j p_j,i / t`` over ``sum_j y_j (p_j,(<i), 1) = (s, t)``, ``y >= 0``
    (:func:`~privpac.geometry.hull_lp.hull_slice_range` with denominators 1), attained at a basic
    solution: by Cramer's rule ``p / (t q)`` with ``q`` the absolute value of a minor of the
    ``i x i`` matrix whose columns are ``(p_j,(<i), 1)``. Hadamard's bound (each column's norm at
    most ``sqrt((i - 1) C^2 + 1)``, and at least 1, so smaller minors obey it too) gives
    ``Q_i = floor(((i - 1) C^2 + 1)^(i / 2))``; ``Q_1 = 1`` (the ends are candidate coordinates).
    """
    C = check_int(C, "candidate_bound", low=1)
    D = check_int(D, "D", low=1)
    return tuple(math.isqrt(((i - 1) * C * C + 1) ** i) for i in range(1, D + 1))


def check_candidate_size(m: int, n_candidates: int, D: int) -> None:
    """Refuse, from public sizes, a candidate-set run above :data:`MAX_CANDIDATE_WORK`."""
    work = int(n_candidates) * int(m) * (int(D) + 1)
    if work > MAX_CANDIDATE_WORK:
        raise InvalidParameterError(
            f"FindDeepPoint over {n_candidates:,} public candidates and m = {m:,} constraints in D = {D} needs "
            f"{work:.3g} multiply-adds for the depths, above MAX_CANDIDATE_WORK = {MAX_CANDIDATE_WORK:.3g}: use "
            f"fewer candidates, a public random subsample of the constraints, or {LARGE_MARGIN_HINT}"
        )


@dataclass(frozen=True)
class EngineConstraints:
    """Constraints that live on an engine, read only through :mod:`privpac.backends` passes.

    ``prepare(start, *block)`` is the caller's public per-record map, applied to every row block where
    it lives (``start``: the block's first row, for error messages): it validates the block (an entry
    outside the public bound raises) and returns the block's constraints ``(A, b)`` as exact integer
    arrays (``None`` for an empty block). Deterministic, no randomness. Build with
    :func:`engine_constraints`, which counts ``m`` exactly.
    """

    backend: object
    columns: tuple
    prepare: object
    m: int
    D: int


class _BlockRows:
    """How many constraints a block holds, after ``prepare`` validated it."""

    def __init__(self, prepare):
        self.prepare = prepare

    def __call__(self, start, *block) -> int:
        system = self.prepare(start, *block)
        return 0 if system is None else int(system[0].shape[0])


class _BlockDepths:
    """The exact depths of the candidates on one block's constraints (a sum over records)."""

    def __init__(self, prepare, points: np.ndarray):
        self.prepare, self.points = prepare, points

    def __call__(self, *block) -> np.ndarray:
        system = self.prepare(0, *block)  # validated by the count pass already
        if system is None:
            return np.zeros(self.points.shape[0], dtype=np.int64)
        return candidate_depths(system[0], system[1], self.points)


def _sum_counts(parts) -> np.ndarray:
    return np.sum([np.asarray(p, dtype=np.int64) for p in parts], axis=0)


def engine_constraints(columns: tuple, prepare, D: int) -> EngineConstraints:
    """Wrap engine data, validating and counting every block in one exact pass (before any budget is spent)."""
    from ..backends import backend_for

    backend = backend_for(columns[0])
    m = int(backend.map_merge_rows(_BlockRows(prepare), sum, *columns))
    if m == 0:
        raise DataError("the constraints are empty: at least one is needed")
    return EngineConstraints(backend, tuple(columns), prepare, m, check_int(D, "D", low=1))


def engine_candidate_depths(data: EngineConstraints, points: np.ndarray) -> np.ndarray:
    """``depth_S(p)`` of every public candidate, one pass: each block returns its exact integer counts,
    merged by sums (the same bits on every engine and partitioning). Only ``|P|`` integers reach the
    driver, whatever ``m`` is."""
    return np.asarray(data.backend.map_merge(_BlockDepths(data.prepare, points), _sum_counts, *data.columns))
