"""The composition baseline for boxes: one private interior point per side, composed.

Sadigurschi and Stemmer, section 1.2 ("Baseline Construction using Composition", algorithm
``B``); spec ss-rectangles 3.3. The paper's point of comparison for RandMargins.

Algorithm
---------
For each direction ``j`` (each coordinate for upper bounds, each mirrored coordinate for lower
bounds; :mod:`privpac.learners.boxes`), take the ``Delta_0`` largest positive keys and return a
private interior point of them as the threshold. Nothing is deleted, so the ``D`` calls read
overlapping data and privacy comes from composition. If fewer than ``Delta_0`` positives exist,
the window is padded with dummies at ``-1`` (below everything; spec 3.3 [OURS]): a short window
then gives a threshold of ``-1`` (the empty box) with high probability, and no count of private
data is ever tested (the paper instead "assumes enough positives").

Privacy
-------
With padding every window holds exactly ``Delta_0`` keys. Replacing one record (or adding or
removing one) changes the top-``Delta_0`` multiset of a direction by at most one substitution:
if the old record was in the window its place goes to the new record or to the next point, if
only the new record enters it pushes out the lowest key. Each interior point is
(epsilon_0, delta_0)-DP for substitutions (:class:`~privpac.optimize.InteriorPoint` contract), so
the ``D`` adaptive-free calls compose: basic composition gives ``(D epsilon_0, D delta_0)``,
advanced composition (Dwork, Rothblum, Vadhan 2010) ``(sqrt(2 D ln(1/delta')) epsilon_0 +
D epsilon_0 (e^epsilon_0 - 1), D delta_0 + delta')``. The plan takes whichever gives the larger
``epsilon_0`` for the total budget (spec 3.3): for a pure interior point ``delta_0 = 0`` and
``delta' = delta``; otherwise ``delta' = delta/2`` and ``delta_0 = delta/(2D)``. The guarantee
holds for replace-one and add/remove neighbours alike.

Utility
-------
If every call succeeds (probability ``>= 1 - D beta_0`` with ``beta_0 = beta/(2D)``), each
threshold lies between the smallest and largest key of its window: the box lies inside the
positives' bounding box (no false positives) and excludes at most ``D Delta_0`` training
positives. ``n >= max(2 D Delta_0 / alpha, n_gen)`` gives an ``alpha``-accurate box with
probability ``1 - beta`` (spec 5.2 item 7; :mod:`privpac.bounds.rectangles`). Sample complexity
``~ d^1.5`` (advanced composition) against RandMargins' ``~ d``; time ``O(n D)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..accounting import Calibration, PrivacyLedger, advanced_composition_inverse, calibrate
from ..errors import InvalidParameterError
from ..optimize.interior_point import ExponentialInteriorPoint, InteriorPoint
from ..random import as_random_source
from ..validation import check_choice, check_delta, check_epsilon, check_probability
from .boxes import BoxHypothesis, Directions, check_x_max, direction_values, grid_positives

__all__ = [
    "CompositionPlan",
    "CompositionResult",
    "composition_calibration",
    "plan_composition",
    "run_composition",
    "run_composition_tops",
    "top_keys",
    "merge_top_keys",
    "rectangles_composition",
]

DUMMY = -1


def composition_calibration(epsilon: float, delta: float, k: int, *, pure: bool, form: str = "drv") -> Calibration:
    """Split (epsilon, delta) over ``k`` interior-point calls: the better of basic and advanced.

    A pure interior point gets ``delta_each = 0`` and the whole ``delta`` as the advanced
    theorem's slack; an approximate one gets :func:`privpac.accounting.calibrate`'s half-half
    split. Depends only on public parameters.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if not pure:
        return calibrate(epsilon, delta, k, form=form)
    basic = Calibration(epsilon / k, 0.0, k, "basic")
    if delta == 0.0 or k == 1:
        return basic
    eps_adv = advanced_composition_inverse(epsilon, k, delta, form)
    if eps_adv <= basic.epsilon_each:
        return basic
    return Calibration(eps_adv, 0.0, k, "advanced", delta, form)


@dataclass(frozen=True)
class CompositionPlan:
    """Public parameters of the composition baseline."""

    shape: str
    x_max: tuple[int, ...]
    calibration: Calibration
    beta_call: float
    window: int
    ip: InteriorPoint
    epsilon: float
    delta: float

    @property
    def directions(self) -> Directions:
        return Directions(self.shape, len(self.x_max))

    def lines(self) -> list[str]:
        c = self.calibration
        return [
            f"composition baseline: {c.k} interior points ({self.shape}), {c.composition} composition, "
            f"interior point: {getattr(self.ip, 'name', type(self.ip).__name__)}",
            f"  per call: epsilon={c.epsilon_each:.6g}, delta={c.delta_each:.3g}, beta={self.beta_call:.3g}; "
            f"window Delta_0={self.window}",
            f"  guarantee: ({self.epsilon:.6g}, {self.delta:.3g})-DP",
        ]


def plan_composition(
    epsilon: float,
    delta: float,
    x_max,
    *,
    shape: str = "box",
    beta: float = 0.1,
    ip: InteriorPoint | None = None,
    form: str = "drv",
    dimension: int | None = None,
) -> CompositionPlan:
    """Fix the public parameters of the baseline for a total (epsilon, delta).

    ``form`` is the advanced-composition formula (``"drv"``, or the papers' ``"paper"``).
    """
    ip = ExponentialInteriorPoint() if ip is None else ip
    if not isinstance(ip, InteriorPoint):
        raise InvalidParameterError(f"ip must follow privpac.optimize.InteriorPoint, got {ip!r}")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    beta = check_probability(beta, "beta")
    check_choice(shape, "shape", ("box", "orthant"))
    check_choice(form, "form", ("drv", "paper"))
    if not ip.is_pure and delta == 0.0:
        raise InvalidParameterError("this interior point needs delta > 0")
    x_max = check_x_max(x_max, dimension)
    k = Directions(shape, len(x_max)).n_directions
    cal = composition_calibration(epsilon, delta, k, pure=ip.is_pure, form=form)
    beta_call = beta / (2.0 * k)
    window = int(ip.sample_complexity(cal.epsilon_each, cal.delta_each, beta_call, max(x_max) + 2))
    return CompositionPlan(shape, x_max, cal, beta_call, window, ip, epsilon, delta)


@dataclass
class CompositionResult:
    hypothesis: BoxHypothesis
    thresholds: list[int]  # per direction, -1 = below everything
    plan: CompositionPlan


def top_keys(P: np.ndarray, x_max: tuple[int, ...], directions: Directions, m: int) -> list[np.ndarray]:
    """For every direction, the ``m`` largest keys of the points ``P`` in ascending order (fewer
    when ``P`` has fewer rows): the baseline's only statistic of the data. Exact and mergeable
    (:func:`merge_top_keys`), so it is computed block by block where the data lives."""
    out = []
    for j in range(directions.n_directions):
        v = direction_values(P, x_max, directions, j)
        if v.size > m:
            v = np.partition(v, v.size - m)[v.size - m :] if v.dtype != object else np.sort(v)[v.size - m :]
        out.append(np.sort(v))
    return out


def merge_top_keys(parts, m: int) -> list[np.ndarray] | None:
    """The top-``m`` keys per direction of the union of disjoint blocks (``None`` parts skipped)."""
    from ..sanitizers.database import concat_indices

    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    return [np.sort(concat_indices([p[j] for p in parts]))[-m:] if m else parts[0][j][:0] for j in range(len(parts[0]))]


def run_composition(
    P: np.ndarray, plan: CompositionPlan, *, rng=None, ledger: PrivacyLedger | None = None
) -> CompositionResult:
    """Run the baseline on validated positives ``P`` (grid points, shape ``(n+, d)``).

    One random stream per call, spawned from ``rng``. ``ledger`` is charged the composed cost
    once (a block whose children are the calls).
    """
    if P.ndim != 2 or P.shape[1] != len(plan.x_max):
        raise InvalidParameterError(f"P must have shape (n, {len(plan.x_max)}), got {P.shape}")
    return run_composition_tops(top_keys(P, plan.x_max, plan.directions, plan.window), plan, rng=rng, ledger=ledger)


def run_composition_tops(
    tops: list[np.ndarray], plan: CompositionPlan, *, rng=None, ledger: PrivacyLedger | None = None
) -> CompositionResult:
    """Run the baseline from the positives' top-``Delta_0`` keys per direction (:func:`top_keys`,
    possibly merged from blocks): the same draws as :func:`run_composition`, whose interior points
    read these keys only (an interior point's output law depends on the multiset of its keys)."""
    directions = plan.directions
    if len(tops) != directions.n_directions:
        raise InvalidParameterError(f"expected the top keys of {directions.n_directions} directions, got {len(tops)}")
    src = as_random_source(rng)
    streams = [src.spawn() for _ in range(directions.n_directions)]
    cal = plan.calibration
    block = cal.open_block(ledger, "composition baseline") if ledger is not None else None
    m = plan.window
    thresholds = []
    for j in range(directions.n_directions):
        top = tops[j]
        pad = m - top.size  # dummies below everything fill a short window
        if max(plan.x_max) < 2**62:
            keys = np.concatenate([np.full(pad, DUMMY, dtype=np.int64), top.astype(np.int64)])
        else:
            keys = [DUMMY] * pad + [int(v) for v in top.tolist()]
        c = directions.column(j)
        p = plan.ip(keys, DUMMY, plan.x_max[c], cal.epsilon_each, cal.delta_each, rng=streams[j], ledger=block)
        thresholds.append(int(p))
    return CompositionResult(BoxHypothesis.from_thresholds(thresholds, plan.x_max, plan.shape), thresholds, plan)


def rectangles_composition(
    X,
    y,
    x_max,
    *,
    epsilon: float = 1.0,
    delta: float = 1e-6,
    shape: str = "box",
    beta: float = 0.1,
    ip: InteriorPoint | None = None,
    form: str = "drv",
    rng=None,
    ledger: PrivacyLedger | None = None,
) -> CompositionResult:
    """Learn a box with the composition baseline from labelled grid points (positives only are read)."""
    plan, positives = grid_positives(
        X, y, x_max, lambda x_max: plan_composition(epsilon, delta, x_max, shape=shape, beta=beta, ip=ip, form=form)
    )
    return run_composition(positives, plan, rng=rng, ledger=ledger)
