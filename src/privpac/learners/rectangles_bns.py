"""The Beimel-Nissim-Stemmer rectangle learner, R-CDF reconstruction (section 3.5, Thm 3.22; spec 5.3).

**Reconstruction (erratum E16).** The paper only sketches this learner: follow Kearns'
statistical-query learner, find the per-axis partitions privately with the threshold sanitizer
at accuracy about ``alpha/n``, and compose the ``n`` sanitizer runs with advanced composition;
it gives no thresholds, bin counts or constants. privpac implements the concrete variant
"R-CDF" of the spec, which uses only those components and matches Thm 3.22's asymptotics:

::

    n := dimension; alpha_s := alpha/(8n)
    for each axis i:
        D_i := (x_{j,i} if y_j = 1 else SENTINEL)_{j <= m}     # SENTINEL = |X_i|, one extra point
        S_i := SanThresholds(D_i, alpha_s, beta0, eps0, delta0)
        F_i(a) := Q_{c_a}(S_i)                                   # ~ fraction positive with x_i < a
        a_i := max{a : F_i(a) <= alpha_s}
        b_i := min{b : F_i(|X_i|) - F_i(b + 1) <= 2 alpha_s}
    return the box prod_i [a_i, b_i]                             # empty if some a_i > b_i

*Privacy.* Replacing one labelled example changes one entry of every ``D_i``, so each run is
``(eps0, delta0)``-DP on its input; the ``n`` runs compose (advanced composition, Thm 2.5):
``constants="paper"`` uses the spec's ``eps0 = eps/(2 sqrt(2n ln(2/delta)))``,
``delta0 = delta/(2n)`` with slack ``delta/2`` (paper form: at most
``eps/2 + eps^2/(4 ln(2/delta)) <= eps``); ``constants="tuned"`` the largest ``eps0`` whose
Dwork-Rothblum-Vadhan composition fits. The box is post-processing of the ``n`` releases. Each
run is subject to SanThresholds' privacy precondition (checked; raises
:class:`~privpac.errors.PreconditionError`).

*Utility (sketch, spec 5.3).* With every sanitizer within ``alpha_s``, no positive example lies
left of ``a_i`` or right of ``b_i`` beyond ``2 alpha_s`` and ``4 alpha_s`` of the sample, so the
box misses at most ``6 n alpha_s = 0.75 alpha`` of the sample's positives and contains no
negative outside the target; a VC-dimension margin (VC = 2n) carries it to the distribution.
The size is dominated by SanThresholds at accuracy ``alpha/(8n)`` and budget ``~eps/sqrt(n)``:
``O~(n^3 8^{log* d}/(alpha^2.5 eps))`` as in Thm 3.22, i.e. astronomically many records
(``privpac bounds rectangle-learner-bns-plan``). For fidelity; Sadigurschi and Stemmer's learner
is the practical one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..accounting import Calibration, PrivacyLedger, calibrate
from ..errors import DataError
from ..sanitizers.database import CountedData, SanitizedDatabase, aggregate
from ..sanitizers.thresholds import san_thresholds, san_thresholds_plan
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability

__all__ = [
    "BNSRectanglePlan",
    "bns_rectangle_plan",
    "BNSRectangle",
    "learn_rectangle_bns",
    "learn_rectangle_bns_counted",
    "axis_counts",
    "merge_axis_counts",
    "box_from_cdf",
]


@dataclass(frozen=True)
class BNSRectanglePlan:
    """Public parameters of a run: per-axis sanitizer accuracy and budget."""

    dimension: int
    alpha: float
    beta: float
    epsilon: float
    delta: float
    alpha_axis: float  # alpha/(8n)
    beta_axis: float  # beta/(2n)
    calibration: Calibration  # (eps0, delta0) over n sanitizer runs
    sizes: tuple  # per axis: (privacy precondition, utility size) of SanThresholds
    constants: str

    @property
    def min_size(self) -> float:
        return max(s[0] for s in self.sizes)

    @property
    def utility_size(self) -> float:
        return max(s[1] for s in self.sizes)


def bns_rectangle_plan(
    alpha: float, beta: float, epsilon: float, delta: float, axis_sizes, constants: str = "tuned"
) -> BNSRectanglePlan:
    """The per-axis budgets and the sample sizes of the R-CDF learner (all public)."""
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    check_choice(constants, "constants", ("tuned", "paper"))
    sizes = [check_int(s, "axis size", low=1) for s in axis_sizes]
    n = len(sizes)
    if n == 0:
        raise DataError("at least one axis is needed")
    if constants == "paper":
        eps0 = epsilon / (2.0 * math.sqrt(2.0 * n * math.log(2.0 / delta)))
        cal = Calibration(eps0, delta / (2.0 * n), n, "advanced", delta / 2.0, "paper")
    else:
        cal = calibrate(epsilon, delta, n, form="drv")
    a_s, b_s = alpha / (8.0 * n), beta / (2.0 * n)
    per_axis = []
    for s in sizes:
        p = san_thresholds_plan(a_s, b_s, cal.epsilon_each, cal.delta_each, s + 1, constants)
        per_axis.append((p.min_size, p.utility_size))
    return BNSRectanglePlan(n, alpha, beta, epsilon, delta, a_s, b_s, cal, tuple(per_axis), constants)


def box_from_cdf(db: SanitizedDatabase, axis_size: int, alpha_s: float) -> tuple[int, int]:
    """``(a, b)`` from one axis' sanitized database (the sentinel is the point ``axis_size``).

    ``a = max{a : F(a) <= alpha_s}`` and ``b = min{b : F(N) - F(b + 1) <= 2 alpha_s}`` with
    ``F(a) = Q_{c_a}`` (weights are non-negative, so ``F`` is non-decreasing: one pass).
    """
    N = axis_size
    total = db.total
    if total <= 0:
        return N - 1, 0  # no information: the empty box
    pts = [int(p) for p in db.points]
    w = db.weights / total
    below = np.concatenate([[0.0], np.cumsum(w)])  # mass of the first t points
    a = N - 1
    for t, p in enumerate(pts):  # smallest point whose inclusion pushes F past alpha_s
        if below[t + 1] > alpha_s:
            a = min(p, N - 1)
            break
    inside = [(p, wt) for p, wt in zip(pts, w.tolist()) if p < N]
    b, tail = 0, 0.0
    for p, wt in reversed(inside):  # largest point with more than 2 alpha_s of mass from it up
        tail += wt
        if tail > 2 * alpha_s:
            b = p
            break
    return a, b


@dataclass
class BNSRectangle:
    """A learned axis-aligned box ``prod_i [lower_i, upper_i]`` (indices; empty if any lower > upper)."""

    lower: list
    upper: list
    databases: list = field(default_factory=list, repr=False)
    ledger: PrivacyLedger | None = field(default=None, repr=False)
    info: dict = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return any(a > b for a, b in zip(self.lower, self.upper))

    def predict(self, X_idx) -> np.ndarray:
        X = np.asarray(X_idx)
        if X.ndim != 2 or X.shape[1] != len(self.lower):
            raise DataError(f"X must have shape (n, {len(self.lower)})")
        if self.empty:
            return np.zeros(X.shape[0], dtype=np.int8)
        inside = np.ones(X.shape[0], dtype=bool)
        for i, (a, b) in enumerate(zip(self.lower, self.upper)):
            inside &= (X[:, i] >= a) & (X[:, i] <= b)
        return inside.astype(np.int8)


def learn_rectangle_bns(
    X_idx,
    y,
    *,
    axis_sizes,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    counts=None,
    constants: str = "tuned",
    ledger: PrivacyLedger | None = None,
    rng=None,
    unsafe_skip_precondition: bool = False,
) -> BNSRectangle:
    """The R-CDF rectangle learner (module docstring): (epsilon, delta)-DP, proper.

    Parameters
    ----------
    X_idx : array (m, n) of int
        Grid indices of the examples (axis ``i`` in ``[0, axis_sizes[i] - 1]``).
    y : array (m,) of 0/1
    counts : array (m,) of int, optional
        Multiplicities (0 allowed): row ``j`` stands for ``counts[j]`` identical examples (how theorem-size
        datasets are held). Default: one each.
    unsafe_skip_precondition : bool
        Passed to SanThresholds. **Voids the privacy guarantee.**
    """
    plan = bns_rectangle_plan(alpha, beta, epsilon, delta, axis_sizes, constants)
    X = np.asarray(X_idx)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != plan.dimension:
        raise DataError(f"X must have shape (m, {plan.dimension})")
    if y.shape != (X.shape[0],) or X.shape[0] == 0:
        raise DataError("y must be a non-empty 1-D array with one label per row of X")
    if not np.all((y == 0) | (y == 1)):
        raise DataError("labels must be 0 or 1")
    w = np.ones(X.shape[0], dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
    if w.shape != y.shape or np.any(w < 0) or w.sum() == 0:
        raise DataError("counts must hold one multiplicity >= 0 per row, not all 0")
    return learn_rectangle_bns_counted(
        axis_counts(X, y, w, axis_sizes),
        axis_sizes=axis_sizes,
        alpha=alpha,
        beta=beta,
        epsilon=epsilon,
        delta=delta,
        constants=constants,
        ledger=ledger,
        rng=rng,
        unsafe_skip_precondition=unsafe_skip_precondition,
    )


def axis_counts(X_idx, y, w, axis_sizes) -> list[CountedData | None]:
    """Per axis ``i``, the counts of ``D_i`` (the positives' coordinate ``i``, every negative at the
    sentinel ``|X_i|``), weighted by the multiplicities ``w``: the learner's only statistic of the
    data. Exact; merged across blocks with :meth:`CountedData.merge` axis by axis (``None``: no
    record with a positive multiplicity)."""
    out = []
    for i, N in enumerate(axis_sizes):
        N = int(N)
        # Negatives go to the sentinel N (one past the axis): replace-one neighbours stay neighbours.
        column = X_idx[:, i] if N < 2**62 else X_idx[:, i].astype(object)
        vals = np.where(y == 1, column, N)
        keys, totals = aggregate(vals, w)
        keep = totals > 0
        out.append(CountedData.from_counts(keys[keep].tolist(), totals[keep].tolist(), N + 1) if keep.any() else None)
    return out


def learn_rectangle_bns_counted(
    counted_axes,
    *,
    axis_sizes,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    constants: str = "tuned",
    ledger: PrivacyLedger | None = None,
    rng=None,
    unsafe_skip_precondition: bool = False,
) -> BNSRectangle:
    """The R-CDF learner from its per-axis counts (:func:`axis_counts`, possibly merged from
    blocks): the same computation and draws as :func:`learn_rectangle_bns`."""
    plan = bns_rectangle_plan(alpha, beta, epsilon, delta, axis_sizes, constants)
    if len(counted_axes) != plan.dimension or any(c is None for c in counted_axes):
        raise DataError("the per-axis counts must hold one non-empty CountedData per axis")
    if ledger is None:
        ledger = PrivacyLedger(plan.epsilon, plan.delta, label="BNS rectangle learner (R-CDF)")
    block = plan.calibration.open_block(ledger, f"{plan.dimension} SanThresholds runs, one per axis")
    lower, upper, dbs = [], [], []
    for N, counted in zip(axis_sizes, counted_axes):
        N = int(N)
        db = san_thresholds(
            counted,
            alpha=plan.alpha_axis,
            beta=plan.beta_axis,
            epsilon=plan.calibration.epsilon_each,
            delta=plan.calibration.delta_each,
            domain_size=N + 1,
            constants=constants,
            ledger=block,
            rng=rng,
            unsafe_skip_precondition=unsafe_skip_precondition,
        )
        a, b = box_from_cdf(db, N, plan.alpha_axis)
        lower.append(a)
        upper.append(b)
        dbs.append(db)
    return BNSRectangle(
        lower,
        upper,
        dbs,
        ledger,
        info={"alpha_axis": plan.alpha_axis, "epsilon_axis": plan.calibration.epsilon_each, "m": counted_axes[0].m},
    )


def merge_axis_counts(parts, sizes):
    """The per-axis counts of blocks (:func:`axis_counts`) merged exactly; ``None`` for no records."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return [CountedData.merge([p[i] for p in parts], size) for i, size in enumerate(sizes)]
