"""Private linear feasibility in one, two or three variables (``privpac fit linear-feasibility``).

The estimator over :func:`~privpac.learners.linear_feasibility.find_deep_point` (Kaplan, Mansour,
Stemmer, Tsfadia, NeurIPS 2020, Fig. 2 and Thm 4.6, with the corrections of spec
``kmst-halfspaces`` 3.7 and 6.2). Each record is one integer constraint ``<a_l, x> >= b_l``; the
release is a point ``x*`` that satisfies most of them when the system is feasible.

On the command line, a CSV row is a constraint: the ``--label`` column is ``b`` and every other
column (or the ``--features`` columns, in order) a coefficient of ``A``; ``--domain`` is the public
bound (``X`` or ``-X:X``), or for real-valued entries a grid symmetric about 0 (``-1:1:201``)::

    privpac fit linear-feasibility constraints.csv --label b --domain -3:3 -o model.json

Real-valued entries on a public grid symmetric about 0 run on its integer lattice: column ``j`` of
``A`` (and ``b``) is scaled by its own lattice step ``s_j`` (``s_b``), which keeps every constraint
(:meth:`~privpac.domains.Lattice.system_solution`: the lattice system holds in ``z_j = s_j x_j / s_b``),
and the solution comes back as ``x_j = s_b z_j / s_j``, exact. A grid off centre is refused: the
constraints are linear, and an offset on the entries would change which ``x`` satisfy them.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..domains import Grid, IntegerDomain, Lattice, box_lattice, domain_text, integer_box
from ..errors import DataError, DomainError, InvalidParameterError
from ..learners.feasibility_candidates import (
    CandidateSet,
    candidate_set,
    check_candidate_size,
    engine_candidate_depths,
    engine_constraints,
    random_candidates,
)
from ..learners.linear_feasibility import (
    CANDIDATE_DOMAINS,
    OPTIMIZERS,
    candidate_levels_of,
    check_find_deep_point_size,
    check_system,
    find_deep_point,
    plan_find_deep_point,
    run_find_deep_point,
)
from ..validation import check_probability, is_engine_collection, refuses_renamed_parameters, renamed_keywords
from ._exact_geometry import ExactGeometryMixin, box_text, exact_text, grid_advice
from .base import PrivateEstimatorBase, engine_rows, private_fit

__all__ = [
    "ENGINE_MAX_CONSTRAINTS",
    "PrivateLinearFeasibility",
    "check_engine_size",
    "entry_domain",
    "resolve_candidates",
]

#: Largest number of constraints a fit on Dask or Spark brings to the driver, by ``D``, where the exact
#: algorithm has no envelope of its own (``D = 3`` has ``MAX_CONSTRAINTS_3D``). Public caps set from the
#: measured in-memory fit on the driver (docs/scale.md): ``D = 1`` took 11 s and an ``m x m`` integer
#: array (0.8 GB) at ``m = 10^4``; in ``D = 2`` the oracle's cost follows the distinct rows, capped by
#: ``MAX_DISTINCT_ROWS_2D = 45,000`` (159 s of CPU and 6.5 GB there on a loaded machine at ``X = 128``,
#: docs/algorithms/linear-feasibility.md; 17.5 s and 1.0 GB at ``10^4``), and the rest is linear
#: in ``m``: 3.7 s at ``m = 10^5`` (``X = 3``).
ENGINE_MAX_CONSTRAINTS = {1: 10**4, 2: 10**5}


@renamed_keywords(X="bound")
def check_engine_size(m: int, D: int, who: str = "PrivateLinearFeasibility", bound: int | None = None) -> None:
    """Refuse engine data above what a fit brings to the driver, from the public ``(m, D)`` (and the
    entry bound ``X``, ``bound``) alone: the estimator's own envelope
    (:func:`~privpac.learners.linear_feasibility.check_find_deep_point_size`: ``D <= 3``, ``MAX_CONSTRAINTS_3D``
    in ``D = 3``, ``MAX_DISTINCT_ROWS_2D`` in ``D = 2``), then :data:`ENGINE_MAX_CONSTRAINTS` in
    ``D = 1, 2``."""
    check_find_deep_point_size(m, D, bound)
    cap = ENGINE_MAX_CONSTRAINTS.get(D)
    if cap is not None and m > cap:
        raise InvalidParameterError(
            f"{who} on Dask or Spark brings the constraints to the driver (FindDeepPoint's exact levels read "
            f"every constraint): at most ENGINE_MAX_CONSTRAINTS[{D}] = {cap:,} constraints in D = {D}, got "
            f"m = {m:,}; fit on a public random subsample of the records (docs/scale.md)"
        )


#: The accuracy the estimator's sufficient-size warning and RecConcave promises are computed for.
ALPHA = 0.1


def entry_domain(domain):
    """The public bound on every entry of ``A`` and ``b``, validated before the data is read: the int ``X``
    (an int ``X >= 1`` or ``IntegerDomain(-X, X)``: exact integers), or a grid symmetric about 0 (a
    :class:`~privpac.domains.Grid`, per-column bounds) that runs on its integer lattice
    (:func:`~privpac.domains.box_lattice` with ``centred=True``)."""
    if domain is None:
        raise DomainError(
            "domain is required: the public bound X on every entry of A and b (|A_ij|, |b_i| <= X), stated by "
            "the user and never read off the constraints (e.g. domain=3, or --domain -3:3 on the command line)"
        )
    space = integer_box(domain, "domain", "X", "the entries of A and b")
    if isinstance(space, IntegerDomain):  # an integer range off centre: the lattice would shift the entries
        raise InvalidParameterError(
            f"domain must be symmetric about 0, IntegerDomain(-X, X); got [{space.lo}, {space.hi}]: the constraints "
            "<a, x> >= b are linear, not affine, so an offset on the entries of A and b would change which x "
            "satisfy them"
        )
    return space


class _LatticeSystem:
    """The per-record map of a constraint ``(a, b)`` to the integer lattice of a public grid symmetric about 0
    (columns of ``A``, then ``b``): each entry to its nearest grid point, scaled by its column's step.
    Deterministic, draws nothing, picklable (it runs where engine blocks live)."""

    def __init__(self, lattice: Lattice):
        g = lattice.grid
        self.lattice = lattice
        self.A = Lattice(Grid(g.low[:-1], g.high[:-1], g.n_points[:-1], clip=g.clip))
        self.b = Lattice(Grid(g.low[-1:], g.high[-1:], g.n_points[-1:], clip=g.clip))

    def __call__(self, A, b, first_row: int = 0) -> tuple[np.ndarray, np.ndarray]:
        K_A = self.A.to_lattice(A, "A", first_row=first_row)
        b = np.asarray(b)
        if b.ndim != 1 or b.shape[0] != K_A.shape[0]:
            raise DataError(f"b must hold one right-hand side per row of A ({K_A.shape[0]}), got shape {b.shape}")
        return K_A, self.b.to_lattice(b.reshape(-1, 1), "b", first_row=first_row)[:, 0]


def resolve_candidates(candidates, candidate_bound, D: int, default_bound: int, rng, draw=None) -> CandidateSet | None:
    """The public candidate set a fit runs over (spec 6.5 option 1), from the estimator's parameters.

    ``None``: the exact oracle. An int ``n``: ``n`` public random candidates, ``draw(n, rng)`` (default:
    uniform integer points in ``[[-C, C]]^D``, ``C = candidate_bound`` or ``default_bound``), drawn
    before the data is read. An array: the user's own public points (``D`` columns). Never the data.
    """
    if candidates is None:
        if candidate_bound is not None:
            raise InvalidParameterError("candidate_bound applies only with candidates (an int or an array of points)")
        return None
    if isinstance(candidates, numbers.Integral) and not isinstance(candidates, bool):
        if draw is not None:
            return draw(int(candidates), rng)
        bound = default_bound if candidate_bound is None else candidate_bound
        return random_candidates(int(candidates), D, bound, rng)
    if isinstance(candidates, (str, bytes, bool, float)):
        raise InvalidParameterError(
            f"candidates must be None, a number of random public candidates, or an (n, {D}) array of integer "
            f"points, got {candidates!r}"
        )
    cs = candidate_set(candidates, candidate_bound)
    if cs.dimension != D:
        raise InvalidParameterError(f"candidates have {cs.dimension} coordinate(s); this fit needs {D}")
    return cs


class _SystemBlock:
    """One engine block's constraints ``(A, b)``, validated against the public bound ``X`` (mapped to the
    lattice of a public grid first, when ``system`` is given)."""

    def __init__(self, X: int, system: _LatticeSystem | None = None):
        self.X, self.system = X, system

    def __call__(self, start, A_block, b_block):
        if len(A_block) == 0:
            return None
        if self.system is not None:
            A_block, b_block = self.system(A_block, b_block, first_row=start)
        return check_system(np.asarray(A_block), np.asarray(b_block), self.X, first_row=start)


class PrivateLinearFeasibility(ExactGeometryMixin, PrivateEstimatorBase):
    """A private point satisfying most constraints of a system ``A x >= b``, ``x in Q^D``, with public entry bounds.

    FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia, NeurIPS 2020, Fig. 2, Thm 4.6) with the spec's
    corrections: the boxed convexified depth as the score, the exact per-coordinate quality from the
    nested level intervals (never the paper's App. B.2 list), public A3-rational candidate domains
    that provably hold a maximiser, and the public promise ``M = m``.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget. Neighbouring systems differ in one constraint (replace-one: ``m`` is
        public).
    delta : float, default=0.0
        Total delta. The default optimiser is pure ``epsilon``-DP; ``optimizer="recconcave"``
        needs ``delta > 0``.
    domain : int, IntegerDomain, Grid, tuple, str or mapping
        The public bound on the entries, required (never read off the data). Integer entries: ``X``
        or ``IntegerDomain(-X, X)``, every entry of ``A`` and ``b`` in ``[-X, X]``. Real-valued
        entries: a grid symmetric about 0, ``Grid(-h, h, n_points)`` for every column or with
        per-column arrays over the ``D`` columns of ``A`` then ``b`` (or a mapping of ``A``'s column
        names and ``b``'s name, ``"b"`` when it has none, to bounds): each entry is mapped to its
        nearest grid point (a per-record public map, no privacy cost) and FindDeepPoint runs on the
        integer lattice (module docstring); ``solution_`` is in the data's units.
    optimizer : {"exponential", "recconcave"}, default="exponential"
        Per-coordinate (1-D) optimiser: the exponential mechanism over the candidate domain (pure DP,
        spec 3.7 item 6) or RecConcave (the paper's Fig. 1).
    candidate_domain : {"a3-rational", "mode-c"}, default="a3-rational"
        The public candidate domains: the A3-rational values ``p/(t q)``, or the spec's integer
        mode C domains decoded by the simplest fraction of their cell (spec 3.7 item 5).
    truncate : bool or None, default=None
        Feed RecConcave the truncated quality ``max(Q_i, tau_i)`` with public ``tau_i`` (spec 3.7
        item 3). ``None``: on for RecConcave, off for the exponential mechanism (where it is refused).
    beta : float, default=0.1
        Failure probability the sufficient number of constraints is computed for.
    candidates : None, int or array-like of shape (n, D), default=None
        ``None``: the exact oracle (``D <= 3``). Otherwise FindDeepPoint runs over a public finite
        candidate set ``P`` with the score ``depth 1[x in P]`` (spec 6.5 option 1), in any ``D`` and
        at sizes the exact oracle cannot reach; it is *not* the paper's algorithm: the guarantee is
        relative to the deepest candidate, so ``P`` must hold a point satisfying (nearly) every
        constraint. An int ``n``: ``n`` integer points drawn uniformly from ``[[-C, C]]^D`` without
        the data (on a real grid: points of its lattice system); an array: your own public integer
        points (a grid, a net; integer bounds only). On Dask and Spark only the
        ``n`` candidate depths reach the driver.
    candidate_bound : int, optional
        ``C`` for the candidates: the range of random candidates (default the bound ``X``), or a bound
        the given points must respect (default their largest entry).
    random_state : None, int or RandomSource, default=None
        ``None``: operating-system entropy; an int: a reproducible run (not for releases).
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release.

    Attributes
    ----------
    solution_ : tuple of fractions.Fraction
        The private point (exact).
    solution_float_ : numpy.ndarray
        The same point as floats (a view).
    composition_ : str
        The composition over the ``D`` coordinates (a function of the parameters).
    n_samples_, n_features_in_ : int
        ``m`` and ``D``, the public shape.
    ledger_, privacy_spent_ : the privacy accounting.

    No count of satisfied constraints is stored: it is a function of the private system. Measure
    the depth on held-out constraints (:func:`privpac.geometry.feasibility.depth`).

    Warns
    -----
    UtilityWarning
        When ``m`` is below the size that guarantees ``depth >= 0.9 m`` with probability
        ``1 - beta`` on a feasible system (public inputs only).

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> A = np.array([[1], [-1]] * 150)               # x >= 0 and -x >= -1: feasible on [0, 1]
    >>> b = np.array([0, -1] * 150)
    >>> est = PrivateLinearFeasibility(epsilon=1.0, domain=1, random_state=0).fit(A, b)
    >>> 0 <= est.solution_[0] <= 1
    True
    """

    algorithm_name = "private linear feasibility (FindDeepPoint, Kaplan, Mansour, Stemmer, Tsfadia 2020)"

    @refuses_renamed_parameters
    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        domain=None,
        optimizer="exponential",
        candidate_domain="a3-rational",
        truncate=None,
        beta=0.1,
        candidates=None,
        candidate_bound=None,
        random_state=None,
        accountant=None,
    ):
        self._store_parameters(locals())

    _renamed_parameters = {"bound": "domain", "one_d_optimizer": "optimizer"}
    _choices = {"optimizer": OPTIMIZERS, "candidate_domain": CANDIDATE_DOMAINS}
    _needs_delta = (("optimizer", "recconcave", " (RecConcave is (epsilon, delta)-DP)"),)
    _public_space = staticmethod(entry_domain)
    _exact_point = ("solution_", "solution", "coordinates", "variables")

    def _check_parameters(self) -> None:
        if self.truncate is not None and not isinstance(self.truncate, bool):
            raise InvalidParameterError(f"truncate must be None, True or False, got {self.truncate!r}")
        if self.truncate is True and self.optimizer == "exponential":
            raise InvalidParameterError(
                "truncate=True applies to optimizer='recconcave' only: truncating the exponential mechanism's "
                "quality raises the weight of bad candidates"
            )
        check_probability(self.beta, "beta")

    #: reads A through privpac.backends: engine data are counted, then brought to the driver
    _fits_on_engines = True

    @private_fit
    def fit(self, A, b=None):
        """Fit on the system ``A x >= b``: ``A`` of shape ``(m, D)``, ``b`` of shape ``(m,)``.

        Exact oracle: ``D in {1, 2, 3}``; for ``D = 3`` at most ``MAX_CONSTRAINTS_3D`` constraints
        (refused from the shape). With ``candidates``: any ``D``, up to ``MAX_CANDIDATE_WORK``.
        ``A`` may be a Dask collection (``b`` from the same collection) or a Spark DataFrame (``b`` the
        name of its right-hand-side column): its rows are counted exactly where they live (every block
        validated), refused above :func:`check_engine_size`, and only then brought to the driver in
        row order (:func:`~privpac.estimators.base.engine_rows`), where the fit runs as in memory.
        With ``candidates`` the records never leave their partitions: one pass returns the
        candidates' exact depths (:func:`~privpac.learners.feasibility_candidates.engine_candidate_depths`).
        """
        ledger, rng, space = self._begin_fit()
        if b is None:
            raise DataError("PrivateLinearFeasibility requires b (the right-hand sides, one per row of A)")
        # the name of b's column (per-feature bounds keyed by name include it), read before b becomes an array
        rhs = b if isinstance(b, str) else getattr(b, "name", None)
        rhs = "b" if rhs is None or rhs == "" else str(rhs)  # a polars Series without a name has the name ""
        A, b = self._check_features(A, reset=True, y=b, y_name="b")
        names = self._feature_names()
        shape = np.shape(A)
        if not is_engine_collection(A) and len(shape) != 2:
            check_system(A, b, space if isinstance(space, int) else 1)  # raises, naming what is wrong with the shape
        D = int(self.n_features_in_) if is_engine_collection(A) else int(shape[1])
        if D == 0:
            raise DataError(f"0 feature(s) (shape={shape}) while a minimum of 1 is required: A needs at least 1 column")
        X, lattice = box_lattice(space, D + 1, None if names is None else [*names, rhs], name="domain", centred=True)
        system = None if lattice is None else _LatticeSystem(lattice)
        if lattice is not None and self.candidates is not None and not isinstance(self.candidates, numbers.Integral):
            raise InvalidParameterError(
                "candidates as points are integer points of an integer system; with a real-valued Grid domain pass a "
                "number of random candidates (drawn on the lattice)"
            )
        candidates = resolve_candidates(self.candidates, self.candidate_bound, D, X, rng)  # public, before the data
        engine = None
        if is_engine_collection(A):
            if candidates is None:
                A, b = engine_rows(A, b, lambda m: check_engine_size(m, D, bound=X))
            else:  # the records stay where they live: one validating count pass, then one depth pass
                engine = engine_constraints((A, b), _SystemBlock(X, system), D)
                check_candidate_size(engine.m, candidates.size, D)
        if engine is None:
            shape = np.shape(A)
            if len(shape) == 2:  # public sizes: an unsupported D or m is refused before any entry is read
                if candidates is None:
                    check_find_deep_point_size(int(shape[0]) or 1, int(shape[1]), X)
                else:
                    check_candidate_size(int(shape[0]) or 1, candidates.size, int(shape[1]))
            if system is not None:
                A, b = system(A, b)  # each entry to its grid point, scaled by its column's step
            A_arr, b_arr = check_system(A, b, X)  # names a bad entry; refuses entries outside [-X, X]
            m, D = A_arr.shape
        else:
            m = engine.m
        # One set of public choices for the plan (the warning below) and the run.
        choices = dict(
            alpha=ALPHA,
            beta=self.beta,
            optimizer=self.optimizer,
            candidate_domain=self.candidate_domain,
            truncate=self.truncate,
            candidates=candidates,
        )
        plan = plan_find_deep_point(m, D, X, ledger.budget_epsilon, ledger.budget_delta, **choices)
        self._warn_few_records(
            m,
            plan.sufficient_m,
            f"a point satisfying {1 - ALPHA:g} m of the constraints in D = {D} with entries in "
            f"{box_text(X, lattice)} by FindDeepPoint ({plan.optimizer}, {plan.composition} composition) at "
            f"epsilon={plan.epsilon:g}, beta={plan.beta:g}",
            "Use more constraints, a larger epsilon or a smaller bound X" + grid_advice(lattice),
            proven=True,
        )
        if engine is None:
            result = find_deep_point(
                A_arr, b_arr, X, ledger.budget_epsilon, ledger.budget_delta, ledger=ledger, rng=rng, **choices
            )
        else:
            points = candidates.points
            result = run_find_deep_point(
                plan,
                candidate_levels_of(plan, points, lambda: engine_candidate_depths(engine, points)),
                ledger=ledger,
                rng=rng,
            )
        solution = result.solution if lattice is None else lattice.system_solution(result.solution)
        return self._finish_exact_fit(solution, X, lattice, plan.composition, m, D, ledger)

    @property
    def solution_float_(self) -> np.ndarray:
        """The solution as floats (rounded; ``solution_`` is exact)."""
        return self._exact_float()

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        # 0 lies in every public bound (symmetric about 0); off a grid's points it maps to the nearest one
        return np.zeros((n_samples, n_features), dtype=np.int64), np.zeros(n_samples, dtype=np.int64)

    def summary(self) -> list[str]:
        self._check_fitted()
        exact, approx = exact_text(self.solution_)
        domain = getattr(self, "domain_", None)
        domain = entry_domain(self.domain) if domain is None else domain
        bounds = f"-{domain}:{domain}" if isinstance(domain, int) else domain_text(domain).removesuffix(" per feature")
        over = "" if self.candidates is None else ", over a public candidate set (spec 6.5 option 1)"
        return [
            f"{self.algorithm_name}: {self.optimizer} per coordinate, {self.composition_} composition{over}",
            f"  solution x = ({exact}) ~ ({approx})",
            f"  m = {self.n_samples_} constraints, D = {self.n_features_in_}, entries in {bounds}",
        ]
