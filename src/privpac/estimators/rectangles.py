"""A private axis-aligned box classifier (scikit-learn compatible).

``PrivateRectangleClassifier(method=...)`` learns a box ``prod [lower_i, upper_i]`` from labelled
points on a public domain: label 1 inside, 0 outside. Methods (one table entry each,
:data:`RECTANGLE_METHODS`):

* ``"randmargins"`` (default): RandMargins-Robust, Sadigurschi and Stemmer (NeurIPS 2021),
  Algorithm 1 with the library's errata fixes (:mod:`privpac.learners.randmargins`). Its sample
  complexity grows like ``d`` rather than ``d^1.5``, but with explicit constants it needs far more
  samples than the baseline for every practical ``d`` (see ``docs/algorithms/randmargins.md``);
* ``"composition"``: the paper's baseline, one private interior point per side under composition
  (:mod:`privpac.learners.rectangles_composition`).

Neighbouring datasets are replace-one (the library's convention): RandMargins, proved for
add/remove neighbours, is planned at ``(epsilon/2, delta/(1 + e^(epsilon/2)))`` add/remove, which
is ``(epsilon, delta)`` replace-one by group privacy; the baseline is replace-one private as it is.
Only positive examples are read; the label set ``labels`` and the ``domain`` are public.

The sample is read through a :class:`BoxSample` (in memory, on Dask or on Spark, one code path,
:mod:`privpac.backends`): ``"composition"`` reads the positives' top ``Delta_0`` keys per direction
and ``"bns"`` the per-axis counts, both exact and merged across blocks, so a fixed
``random_state`` gives the same box and ledger on every engine. ``"randmargins"`` reads one window
per round (:meth:`BoxSample.randmargins_window`: the alive positives' count and top keys, the
deletions replayed where the rows live, tags by row position), the same on every engine too
(``docs/scale.md``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..accounting import PrivacyLedger
from ..bounds.measured import box_records
from ..bounds.rectangles import plan_sample_size
from ..domains import Grid, as_domain, public_rows, resolve_domain
from ..errors import InvalidParameterError
from ..learners.boxes import SHAPES, BoxHypothesis, Directions
from ..learners.randmargins import run_randmargins
from ..learners.randmargins_plan import VARIANTS, plan_randmargins
from ..learners.rectangles_bns import axis_counts, learn_rectangle_bns_counted, merge_axis_counts
from ..learners.rectangles_composition import merge_top_keys, plan_composition, run_composition_tops, top_keys
from ..optimize.interior_point import ExponentialInteriorPoint, RecConcaveInteriorPoint
from ..random import RandomSource
from ..validation import check_choice, check_probability, is_engine_collection
from ._boxes import BoxSample, box_x_max, grid_points
from .base import PrivateClassifierBase, private_fit

__all__ = ["PrivateRectangleClassifier", "RECTANGLE_METHODS", "RectangleMethod", "RectangleFit", "INTERIOR_POINTS"]

#: interior-point plug-ins by name (names keep models savable), each built for the per-call beta
INTERIOR_POINTS: dict[str, Callable[[float], object]] = {
    "exponential": lambda beta_call: ExponentialInteriorPoint(),
    "recconcave": lambda beta_call: RecConcaveInteriorPoint(beta=beta_call),
}


@dataclass
class RectangleFit:
    """What a method returns: the box, JSON-able details, and lines for ``summary()``."""

    hypothesis: BoxHypothesis
    details: dict = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RectangleMethod:
    """One learning method: ``fit(estimator, sample, x_max, ledger, rng) -> RectangleFit``.

    ``sample`` is the :class:`BoxSample` (the labelled grid points where they live: the method
    reads the one exact statistic it needs through it, then ``sample.n``); ``x_max`` the largest
    index per feature; ``ledger`` holds the whole budget and must be charged by the method.
    ``on_engines``: whether the method's statistic is an exact mergeable one (Dask and Spark data).
    """

    title: str
    fit: Callable[..., RectangleFit]
    requires_delta: bool
    reference: str
    on_engines: bool = True


def _interior_point(name, beta_call: float = 0.5):
    if name not in INTERIOR_POINTS:
        raise InvalidParameterError(f"interior_point must be one of {sorted(INTERIOR_POINTS)}, got {name!r}")
    return INTERIOR_POINTS[name](beta_call)


def _directions(est, x_max) -> int:
    return Directions(est.shape, len(x_max)).n_directions


def _fit_randmargins(est, sample: BoxSample, x_max, ledger: PrivacyLedger, rng: RandomSource) -> RectangleFit:
    plan = plan_randmargins(
        est.epsilon,
        est.delta,
        x_max,
        shape=est.shape,
        beta=est.beta,
        ip=_interior_point(est.interior_point, est.beta / (4.0 * _directions(est, x_max))),
        calibration="paper" if est.constants == "paper" else "explicit",
        variant=est.variant,
        tie_break_bits=est.tie_break_bits,
        neighbours="replace-one",
    )
    _warn_box(est, "randmargins", plan, sample.n)  # the count pass checks every record before anything is spent
    result = run_randmargins(None, plan, rng=rng, ledger=ledger, window_reader=sample.randmargins_window(plan))
    details = {"thresholds": result.thresholds, "window_sizes": result.window_sizes.tolist()}
    return RectangleFit(result.hypothesis, details, plan.lines())


def _fit_composition(est, sample: BoxSample, x_max, ledger: PrivacyLedger, rng: RandomSource) -> RectangleFit:
    if est.variant != "robust":
        raise InvalidParameterError("variant applies to method='randmargins' only")
    plan = plan_composition(
        est.epsilon,
        est.delta,
        x_max,
        shape=est.shape,
        beta=est.beta,
        ip=_interior_point(est.interior_point, est.beta / (2.0 * _directions(est, x_max))),
        form="paper" if est.constants == "paper" else "drv",
    )
    window, directions = plan.window, plan.directions
    tops = sample.statistic(
        lambda P, y01, w, x_max: top_keys(np.asfortranarray(P[y01 == 1]), x_max, directions, window),
        functools.partial(merge_top_keys, m=window),
    )
    _warn_box(est, "composition", plan, sample.n)
    result = run_composition_tops(tops, plan, rng=rng, ledger=ledger)
    return RectangleFit(result.hypothesis, {"thresholds": result.thresholds}, plan.lines())


def _warn_box(est, method: str, plan, n: int) -> None:
    """A warning when n (public) is below the measured need of the plan (spec 5.2's size, scaled)."""
    needed = box_records(method, plan_sample_size(plan, est.alpha, est.beta))
    est._warn_few_records(
        n,
        needed,
        f"{'RandMargins' if method == 'randmargins' else 'the composition baseline'} at epsilon={est.epsilon:g}, "
        f"alpha={est.alpha:g} with {plan.directions.n_directions} box sides (measured, benchmarks/rectangles.py)",
        "Use more data, a larger epsilon or alpha, or fewer features; below this size the box is often empty.",
    )


def _fit_bns(est, sample: BoxSample, x_max, ledger: PrivacyLedger, rng: RandomSource) -> RectangleFit:
    if est.variant != "robust" or est.shape != "box":
        raise InvalidParameterError("variant and shape apply to method='randmargins' only")
    sizes = [v + 1 for v in x_max]
    counted = sample.statistic(
        lambda P, y01, w, x_max: axis_counts(P, y01, w, sizes),
        functools.partial(merge_axis_counts, sizes=[v + 1 for v in sizes]),
        counts=True,
    )
    result = learn_rectangle_bns_counted(
        counted,
        axis_sizes=sizes,
        alpha=est.alpha,
        beta=est.beta,
        epsilon=est.epsilon,
        delta=est.delta,
        constants=est.constants,
        ledger=ledger,
        rng=rng,
    )
    box = BoxHypothesis(tuple(int(v) for v in result.lower), tuple(int(v) for v in result.upper))
    lines = [
        f"per-axis SanThresholds accuracy alpha/(8n) = {result.info['alpha_axis']:.4g}, "
        f"epsilon per axis = {result.info['epsilon_axis']:.4g}, m = {result.info['m']}"
    ]
    return RectangleFit(box, {"alpha_axis": result.info["alpha_axis"]}, lines)


#: learning methods by name; adding one is one entry here
RECTANGLE_METHODS: dict[str, RectangleMethod] = {
    "randmargins": RectangleMethod(
        "RandMargins-Robust (Sadigurschi-Stemmer)",
        _fit_randmargins,
        True,
        "Sadigurschi and Stemmer 2021, Algorithm 1, Thm 3.2 (with errata R4, R5)",
    ),
    "composition": RectangleMethod(
        "composition baseline (interior point per side)",
        _fit_composition,
        False,
        "Sadigurschi and Stemmer 2021, section 1.2",
    ),
    "bns": RectangleMethod(
        "Beimel-Nissim-Stemmer rectangle learner (R-CDF reconstruction of section 3.5)",
        _fit_bns,
        True,
        "Beimel, Nissim, Stemmer, section 3.5, Thm 3.22 (sketch; reconstruction E16)",
    ),
}


class PrivateRectangleClassifier(PrivateClassifierBase):
    """Differentially private axis-aligned box classifier.

    Parameters
    ----------
    epsilon, delta : float
        Total privacy budget, replace-one neighbours (RandMargins needs ``delta > 0``).
    domain : IntegerDomain, Grid, tuple, str or mapping
        Public domain. An :class:`~privpac.domains.IntegerDomain` applies to every feature; a
        :class:`~privpac.domains.Grid` gives per-feature bounds and resolution (a one-dimensional
        grid applies to every feature); a mapping of column names to bounds gives them per feature of
        a DataFrame (:func:`~privpac.domains.resolve_domain`, docs/domains.md). At most ``2^64``
        points per feature.
    constants : {"tuned", "paper"}
        ``"tuned"``: the explicit calibration (RandMargins) and the DRV advanced-composition
        formula (baseline); ``"paper"``: Theorem 3.2's calibration and the papers' formula.
    method : str
        A key of :data:`RECTANGLE_METHODS`: ``"randmargins"`` (Sadigurschi and Stemmer),
        ``"composition"`` (their baseline) or ``"bns"`` (Beimel, Nissim, Stemmer's learner through
        one threshold sanitizer per axis; needs about 10^10 records even in two dimensions).
    shape : {"box", "orthant"}
        General boxes or the paper's boxes anchored at the domain's lower corner.
    beta : float
        Failure probability of the learner's accuracy guarantee.
    interior_point : {"exponential", "recconcave"}
        Interior-point plug-in, a key of :data:`INTERIOR_POINTS`: the exponential mechanism (pure;
        the best constants below domains of about 2^600) or RecConcave (Beimel, Nissim, Stemmer;
        (epsilon, delta)-DP, ``2^O(log*|X|)`` samples asymptotically).
    tie_break_bits : int
        RandMargins' random tie-break tags (``2^bits`` of them; 0 assumes distinct coordinates).
    variant : {"robust", "paper-literal"}
        RandMargins as fixed by the library, or as printed (not private with few positives;
        warns).
    alpha : float
        Accuracy target of ``method="bns"`` (it sets the per-axis sanitizer's accuracy
        ``alpha/(8d)``); the other methods' accuracy follows from the data size.
    random_state : None or int
        ``None``: secure randomness; an int: a reproducible run.
    labels : pair
        Public ``(negative, positive)`` labels.
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Attributes
    ----------
    lower_, upper_ : list or None
        The learned box in data units (``None`` when the box is empty).
    empty_ : bool
    box_ : BoxHypothesis
        The box over grid indices.
    thresholds_ : list of int
        Per direction (uppers, then lowers for boxes), in grid indices; -1 is "below everything".
    ledger_, privacy_spent_
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        domain=None,
        constants="tuned",
        random_state=None,
        labels=(0, 1),
        method="randmargins",
        shape="box",
        beta=0.1,
        interior_point="exponential",
        tie_break_bits=32,
        variant="robust",
        alpha=0.1,
        accountant=None,
    ):
        self._store_parameters(locals())

    @property
    def _fits_on_engines(self) -> bool:
        method = RECTANGLE_METHODS.get(self.method)
        return method is None or method.on_engines

    def _engine_refusal(self) -> str:
        return (
            "PrivateRectangleClassifier(method='randmargins') does not fit on Dask or Spark data: RandMargins "
            "reads the positive records themselves, not a mergeable statistic (each round deletes records by "
            "their whole point after the previous rounds' thresholds, and the robust variant draws a random "
            "tie-break tag per positive in row order); use method='composition' or method='bns', which fit on "
            "engines, or compute X into memory first"
        )

    def _method(self) -> RectangleMethod:
        check_choice(self.method, "method", RECTANGLE_METHODS)
        return RECTANGLE_METHODS[self.method]

    @property
    def algorithm_name(self) -> str:
        method = RECTANGLE_METHODS.get(self.method)
        return method.title if method is not None else "private rectangle classifier"

    @property
    def requires_delta(self) -> bool:
        method = RECTANGLE_METHODS.get(self.method)
        return True if method is None else method.requires_delta

    # -- data to grid indices ---------------------------------------------------------------------

    def _grid(self, X, name: str = "X") -> tuple[np.ndarray, tuple[int, ...]]:
        P, x_max = grid_points(as_domain(self.domain_), X, name)  # a loaded model may hold the JSON short form
        if hasattr(self, "x_max_") and x_max != self.x_max_:
            raise InvalidParameterError(f"{name} has {len(x_max)} features, the model {len(self.x_max_)}")
        return P, x_max

    def _to_data_units(self, idx: tuple[int, ...]):
        domain = as_domain(self.domain_)
        if isinstance(domain, Grid):
            domain = domain.broadcast(len(idx))
            return [float(domain.low[i] + v * domain.step[i]) for i, v in enumerate(idx)]
        return [domain.from_index(v) for v in idx]

    # -- fit / predict ------------------------------------------------------------------------------

    @private_fit
    def fit(self, X, y, counts=None):
        """Learn the box.

        ``counts`` (method ``"bns"`` only): integer multiplicities, row ``j`` standing for
        ``counts[j]`` identical examples, how datasets of the BNS theorem's size (10^10 records
        and more) are held. The number of records ``sum(counts)`` is public as usual.
        """
        method = self._method()
        ledger, rng = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        check_choice(self.shape, "shape", SHAPES)
        check_choice(self.variant, "variant", VARIANTS)
        check_probability(self.beta, "beta")
        check_probability(self.alpha, "alpha")
        _interior_point(self.interior_point)
        if counts is not None and self.method != "bns":
            raise InvalidParameterError("counts is supported by method='bns' only")
        domain = as_domain(self.domain_)
        if not is_engine_collection(X) and (np.ndim(X) != 2 or np.shape(X)[1] == 0):  # the validation's own message
            grid_points(domain, X)
        d = int(self.n_features_in_) if is_engine_collection(X) else int(np.shape(X)[1])
        domain = self.domain_ = resolve_domain(domain, d)  # a one-dimensional grid for every feature: saved so
        x_max = box_x_max(domain, d)
        self.classes_ = np.asarray(self.labels)
        sample = BoxSample(domain, self.labels, x_max, X, y, counts)
        result = method.fit(self, sample, x_max, ledger, rng)
        self.x_max_ = x_max
        self.n_features_in_ = len(x_max)
        self.n_samples_ = sample.n
        self._set_box(result.hypothesis)
        self.thresholds_ = list(result.details.get("thresholds", []))
        self.details_ = result.details
        self.plan_lines_ = result.lines
        self._end_fit(ledger)
        return self

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        X = public_rows(self.domain, n_samples if self.method != "bns" else 1, n_features)
        y = np.full(X.shape[0], self.labels[0])
        if self.method == "bns":  # theorem-size datasets: one public row held n times
            return X, y, np.array([n_samples])
        return X, y

    def _set_box(self, box: BoxHypothesis) -> None:
        self.box_ = box
        self.empty_ = box.empty
        self.lower_ = None if box.empty else self._to_data_units(box.lower)
        self.upper_ = None if box.empty else self._to_data_units(box.upper)

    def predict(self, X) -> np.ndarray:
        self._check_fitted()
        X = self._check_features(X, reset=False)
        P, _ = self._grid(X)
        return self._decode(self.box_.predict(P))

    # -- persistence ----------------------------------------------------------------------------

    def _fitted_state(self) -> dict:
        return {
            "box": self.box_.to_dict(),
            "x_max": [str(v) for v in self.x_max_],
            "thresholds": [str(v) for v in self.thresholds_],
            "details": {k: v for k, v in self.details_.items() if k != "thresholds"},
            "plan": self.plan_lines_,
            "n_samples": self.n_samples_,
        }

    def _restore_state(self, state: dict) -> None:
        self.x_max_ = tuple(int(v) for v in state["x_max"])
        self.n_features_in_ = len(self.x_max_)
        self.n_samples_ = int(state["n_samples"])
        self.thresholds_ = [int(v) for v in state["thresholds"]]
        self.details_ = dict(state.get("details", {}))
        self.details_["thresholds"] = self.thresholds_
        self.plan_lines_ = list(state.get("plan", []))
        self.domain_ = as_domain(self.domain)
        self._set_box(BoxHypothesis.from_dict(state["box"]))

    def summary(self) -> list[str]:
        self._check_fitted()
        if self.empty_:
            box = "the empty box (predicts the negative label everywhere)"
        else:
            box = ", ".join(f"[{lo}, {hi}]" for lo, hi in zip(self.lower_, self.upper_))
        return [f"{self.algorithm_name}: {box}", *self.plan_lines_]
