"""Mutation suite: bugs injected into the release path only must be flagged by the registered audits.

Each mutant changes what the shipped code does (never the audit's own instruments) and is
required to make ``privpac audit NAME`` exit 1. A mutant that survived would mean the audit
cannot see that kind of bug. Trial counts are small: the exact laws, enumerated from the shipped
code, catch most mutants on their own.
"""

import dataclasses
import importlib
import inspect
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from privpac.accounting import PrivacyLedger
from privpac.audit import list_cases
from privpac.cli import main
from privpac.estimators import PrivateThresholdClassifier
from privpac.optimize import ExponentialInteriorPoint
from privpac.random import discrete_laplace, discrete_laplace_exceeds, discrete_laplace_vector

# The registered cases are imported before any mutant runs, so that what they import for themselves
# (pair sizes from the plans, borrowed laws) is the shipped code, never a mutant.
list_cases()

# The modules themselves (the package re-exports functions under some of the same names).
adist_module = importlib.import_module("privpac.mechanisms.adist")
choosing_module = importlib.import_module("privpac.mechanisms.choosing")
base2_module = importlib.import_module("privpac.mechanisms.base2")
exponential_module = importlib.import_module("privpac.mechanisms.exponential")
grouped_module = importlib.import_module("privpac.mechanisms.exponential_grouped")
laplace_module = importlib.import_module("privpac.mechanisms.laplace")
learners_exponential = importlib.import_module("privpac.learners.exponential")
range_counts_module = importlib.import_module("privpac.learners.range_counts")
center_point_estimator = importlib.import_module("privpac.estimators.center_point")
linear_feasibility_estimator = importlib.import_module("privpac.estimators.linear_feasibility")
feasibility_halfspaces_estimator = importlib.import_module("privpac.estimators.feasibility_halfspaces")
center_point_baselines = importlib.import_module("privpac.learners.center_point_baselines")
halfspace_tukey_learner = importlib.import_module("privpac.learners.halfspace_tukey")
linear_feasibility_learner = importlib.import_module("privpac.learners.linear_feasibility")
coordinatewise_module = importlib.import_module("privpac.optimize.coordinatewise")
center_point_learner = importlib.import_module("privpac.learners.center_point")
contours_module = importlib.import_module("privpac.geometry.contours")
histogram_estimator = importlib.import_module("privpac.estimators.histogram")
point_learner = importlib.import_module("privpac.learners.point")
threshold_estimator = importlib.import_module("privpac.estimators.threshold")
recconcave_module = importlib.import_module("privpac.optimize.recconcave")
interior_point_module = importlib.import_module("privpac.optimize.interior_point")
median_estimator = importlib.import_module("privpac.estimators.median")
san_points_module = importlib.import_module("privpac.sanitizers.points")
san_thresholds_module = importlib.import_module("privpac.sanitizers.thresholds")
dp_erm_module = importlib.import_module("privpac.learners.dp_erm")
domains_module = importlib.import_module("privpac.domains")
large_margin_module = importlib.import_module("privpac.learners.large_margin")


def _halved_laplace(monkeypatch):
    monkeypatch.setattr(laplace_module, "discrete_laplace", lambda scale, rng=None: discrete_laplace(scale / 2, rng))
    monkeypatch.setattr(
        laplace_module,
        "discrete_laplace_vector",
        lambda scale, size, rng=None: discrete_laplace_vector(scale / 2, size, rng),
    )


def _halved_adist_noise(monkeypatch):
    monkeypatch.setattr(
        adist_module,
        "discrete_laplace_exceeds",
        lambda scale, threshold, rng=None: discrete_laplace_exceeds(scale / 2, threshold, rng),
    )


def _step_em_at_twice_epsilon(monkeypatch):
    original = exponential_module._step_parts
    monkeypatch.setattr(exponential_module, "_step_parts", lambda f, eps, sens: original(f, 2 * eps, sens))


def _finite_em_at_twice_epsilon(monkeypatch):
    """The finite-list mechanism's base from twice its epsilon (its draw and the law it hands an
    enumerating source both follow it: the shipped path)."""
    original = exponential_module._base_for
    monkeypatch.setattr(exponential_module, "_base_for", lambda values, eps, sens: original(values, 2 * eps, sens))


def _em_charges_nothing(monkeypatch):
    for module in (exponential_module, grouped_module):
        monkeypatch.setattr(module, "charge", lambda *args, **kwargs: None)


def _piece_count_in_the_ledger(monkeypatch):
    """A function of the records written into the ledger entry: the whole range's weight (range by
    range) or the number of pieces, a count of distinct values (the flat draw)."""
    grouped = learners_exponential.exponential_mechanism_grouped
    pieces = learners_exponential.exponential_mechanism_pieces

    def leaky_grouped(T, range_weights, epsilon, **kwargs):
        offsets, env = range_weights([0, T + 1], base2_module.exp_base(0.5))
        kwargs["over"] = f"{kwargs.get('over') or T} (weight {env.mantissa[0]:.6f} 2^{env.exponent[0]})"
        return grouped(T, range_weights, epsilon, **kwargs)

    def leaky_pieces(q, lengths, epsilon, **kwargs):
        kwargs["over"] = f"{kwargs.get('over')} ({len(q)} pieces)"
        return pieces(q, lengths, epsilon, **kwargs)

    monkeypatch.setattr(learners_exponential, "exponential_mechanism_grouped", leaky_grouped)
    monkeypatch.setattr(learners_exponential, "exponential_mechanism_pieces", leaky_pieces)


def _grouped_em_at_twice_epsilon(monkeypatch):
    """Every exponential mechanism's base (the grouped draw's included) from twice its epsilon."""
    original = base2_module.exp_base
    for module in (exponential_module, grouped_module):
        monkeypatch.setattr(module, "exp_base", lambda eps, *a, **k: original(2 * eps, *a, **k))


def _range_weights_without_offsets(monkeypatch):
    """A range's threshold weight from its local sum alone: the offset ``Q(a)`` (the label counts
    left of the range) forgotten."""
    original = range_counts_module.LabelledRanges.range_stats

    def stats(self, edges, kinds, base):
        st = original(self, edges, kinds, base)
        zero = np.zeros_like(st.zeros)
        return range_counts_module.RangeStats(zero, zero, st.local, (0, 0))

    monkeypatch.setattr(range_counts_module.LabelledRanges, "range_stats", stats)


def _count_stored_on_the_estimator(monkeypatch):
    original = PrivateThresholdClassifier.fit

    def fit(self, X, y):
        original(self, X, y)
        self.n_positive_ = int(np.sum(np.asarray(y) == 1))  # an exact count of the records
        return self

    monkeypatch.setattr(PrivateThresholdClassifier, "fit", fit)


def _depth_reached_stored_on_the_estimator(monkeypatch):
    """The leaks the center-point and feasibility estimators must not have: a depth in the training
    data kept on the fitted estimator (here at a fixed public point, so the audits' small pairs show it)."""
    from privpac.estimators import PrivateCenterPoint, PrivateLinearFeasibility
    from privpac.geometry import tukey_depth
    from privpac.geometry.feasibility import depth

    center_fit, system_fit = PrivateCenterPoint.fit, PrivateLinearFeasibility.fit

    def fit_center(self, X, y=None):
        center_fit(self, X, y)
        self.depth_reached_ = tukey_depth(np.zeros(np.asarray(X).shape[1], dtype=int), np.asarray(X))
        return self

    def fit_system(self, A, b=None):
        system_fit(self, A, b)
        self.satisfied_ = depth(np.ones(np.asarray(A).shape[1], dtype=int), np.asarray(A), np.asarray(b))
        return self

    monkeypatch.setattr(PrivateCenterPoint, "fit", fit_center)
    monkeypatch.setattr(PrivateLinearFeasibility, "fit", fit_system)


def _choosing_below_its_precondition(monkeypatch):
    monkeypatch.setattr(choosing_module, "choosing_min_size", lambda *args, **kwargs: 1.0)


def _domain_from_the_data(monkeypatch):
    original = PrivateThresholdClassifier.fit

    def fit(self, X, y):
        values = np.asarray(X).ravel()
        self.domain = (int(values.min()), int(values.max()))  # derived from the records
        return original(self, X, y)

    monkeypatch.setattr(PrivateThresholdClassifier, "fit", fit)


def _interior_point_at_four_times_its_share(monkeypatch):
    original = ExponentialInteriorPoint.__call__

    def call(self, values, lo, hi, epsilon, delta=0.0, rng=None, ledger=None):
        if ledger is not None:  # charges its share of the composition ...
            ledger.charge("interior point", epsilon, 0.0, "exponential mechanism")
        return original(self, values, lo, hi, 4 * epsilon, delta, rng=rng)  # ... and runs at four times it

    monkeypatch.setattr(ExponentialInteriorPoint, "__call__", call)


def _planar_regions_without_their_axis_constraints(monkeypatch):
    """The planar depth regions clipped by the axis constraints of level 1 at every level (each level's
    coordinate order statistics forgotten): a stack of points no longer pins the deep regions to it, so
    one point moved off the stack changes the quality by the stack's height."""
    original = contours_module._axis_constraints
    monkeypatch.setattr(contours_module, "_axis_constraints", lambda xs, ys, r: original(xs, ys, 1))


def _center_point_domain_from_the_data(monkeypatch):
    original = center_point_estimator.find_tukey

    def find_tukey(S, B, *args, **kwargs):
        B_data = max(1, int(np.abs(np.asarray(S)).max()))  # the candidate domain bound read off the records
        return original(S, B_data, *args, **kwargs)

    monkeypatch.setattr(center_point_estimator, "find_tukey", find_tukey)


def _linear_feasibility_bound_from_the_data(monkeypatch):
    original = linear_feasibility_estimator.find_deep_point

    def find_deep_point(A, b, X, *args, **kwargs):
        X_data = max(1, int(np.abs(np.asarray(A)).max()), int(np.abs(np.asarray(b)).max()))  # read off the records
        return original(A, b, X_data, *args, **kwargs)

    monkeypatch.setattr(linear_feasibility_estimator, "find_deep_point", find_deep_point)


def _truncation_level_from_the_data(monkeypatch):
    """RecConcave's truncation ``max(Q, tau)`` with ``tau`` read off the levels: the top level reached
    minus one when it reaches the promise, no truncation otherwise (the public ``tau_i`` is replaced)."""
    plans = []
    plan_original = linear_feasibility_learner.plan_find_deep_point
    quality_original = linear_feasibility_learner.coordinate_quality

    def plan_find_deep_point(*args, **kwargs):
        plans.append(plan_original(*args, **kwargs))
        return plans[-1]

    def coordinate_quality(domain, convex, prefix, D, tau=0):
        top = len(linear_feasibility_learner.level_intervals(convex, tuple(prefix), D))
        reached = top >= plans[-1].promises[len(prefix)]
        return quality_original(domain, convex, prefix, D, tau=top - 1 if tau and reached else 0)

    monkeypatch.setattr(linear_feasibility_learner, "plan_find_deep_point", plan_find_deep_point)
    monkeypatch.setattr(linear_feasibility_learner, "coordinate_quality", coordinate_quality)


def _candidate_depths_counted_twice(monkeypatch):
    """FindDeepPoint over public candidates with every depth counted twice (sensitivity 2, the levels of ``2m``)."""
    original = linear_feasibility_learner.candidate_levels

    def candidate_levels(points, depths, m, *, bound):
        return original(points, 2 * np.asarray(depths), 2 * m, bound=bound)

    monkeypatch.setattr(linear_feasibility_learner, "candidate_levels", candidate_levels)


def _one_class_shortcut(monkeypatch):
    original = feasibility_halfspaces_estimator.learn_halfspace

    def learn_halfspace(X, y, bound, *args, **kwargs):
        result = original(X, y, bound, *args, **kwargs)  # charges and draws as usual ...
        y = np.asarray(y)
        if np.all(y == y[0]):  # ... but a one-class sample gets its exact constant hypothesis (labels 0/1)
            return dataclasses.replace(result, a=(Fraction(0),) * len(result.a), w=Fraction(1 - 2 * int(y[0])))
        return result

    monkeypatch.setattr(feasibility_halfspaces_estimator, "learn_halfspace", learn_halfspace)


def _one_shot_depth_counted_twice(monkeypatch):
    original = center_point_baselines.tukey_depth
    monkeypatch.setattr(center_point_baselines, "tukey_depth", lambda x, S: 2 * original(x, S))  # sensitivity 2


def _one_shot_candidates_from_the_data(monkeypatch):
    original = center_point_baselines.one_shot_center_point

    def one_shot(S, B, epsilon, **kwargs):
        # the candidates restricted to the data's own bounding box (a data-derived candidate set)
        arr = np.asarray(S)
        P, q = center_point_baselines.candidate_vertices(B, arr.shape[1])
        keep = np.all((P >= arr.min(axis=0) * q[:, None]) & (P <= arr.max(axis=0) * q[:, None]), axis=1)
        monkeypatch.setattr(center_point_baselines, "candidate_vertices", lambda B, d: (P[keep], q[keep]))
        try:
            return original(S, B, epsilon, **kwargs)
        finally:
            monkeypatch.setattr(center_point_baselines, "candidate_vertices", candidate_vertices)

    candidate_vertices = center_point_baselines.candidate_vertices
    monkeypatch.setattr(center_point_baselines, "one_shot_center_point", one_shot)


def _halfspace_chunks_by_value(monkeypatch):
    original = halfspace_tukey_learner.chunk_halfspaces

    def chunk_halfspaces(x, y01, m, B):
        order = np.argsort(x[:, 0], kind="stable")  # chunks of neighbouring values: a partition read off the data
        return original(x[order], y01[order], m, B)

    monkeypatch.setattr(halfspace_tukey_learner, "chunk_halfspaces", chunk_halfspaces)


# -- mutants of one branch each (tests/privacy/test_audit_branches.py ties them to the branches the cases declare) --


def _at_twice_its_charge(monkeypatch, module, name, *, factor=2, when=None):
    """``module.name``, a function taking ``epsilon`` and ``ledger``, sampled at ``factor`` times its
    epsilon while its ledger is charged the epsilon it was given (``when(arguments)``: only those calls)."""
    original = getattr(module, name)
    signature = inspect.signature(original)

    def run(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        if when is not None and not when(bound.arguments):
            return original(*args, **kwargs)
        epsilon, ledger = bound.arguments["epsilon"], bound.arguments.get("ledger")
        shadow = PrivacyLedger(None, label="shadow")
        bound.arguments["epsilon"] = factor * epsilon
        bound.arguments["ledger"] = shadow
        out = original(*bound.args, **bound.kwargs)
        if ledger is not None:  # the record the release carries: the epsilon asked for
            ledger.charge(f"{name} (sampled at {factor} x this)", epsilon, shadow.spent[1], "mutant")
        return out

    monkeypatch.setattr(module, name, run)


def _piece_answered_by_its_first_point(monkeypatch):
    """The step-function exponential mechanism returns the first point of the piece it drew, not a
    uniform point inside it (piece ends are where the records are)."""
    monkeypatch.setattr(exponential_module, "uniform_int", lambda lo, hi, rng=None: lo)


def _adist_threshold_without_its_tail_term(monkeypatch):
    """A_dist releases once the noisy gap clears 2 alone: the tail index k0 (delta's part) dropped."""
    original = adist_module.adist_plan

    def plan(scores, epsilon, delta, variant="corrected"):
        p = original(scores, epsilon, delta, variant)
        if p.release_at is None:
            return p
        threshold = p.threshold - adist_module._smallest_tail_index(p.scale, delta)
        return dataclasses.replace(p, threshold=threshold, release_at=int(np.ceil(threshold - p.gap)))

    monkeypatch.setattr(adist_module, "adist_plan", plan)


def _choosing_without_its_bottom_test(monkeypatch):
    """The choosing mechanism always draws from G(S): its noisy test that some score reaches alpha m / 2
    (bottom otherwise) skipped, so a fresh singleton of G(S) is chosen with probability about 1/m."""
    original = choosing_module.choosing_plan

    def plan(scores, m, alpha, epsilon):
        return dataclasses.replace(original(scores, m, alpha, epsilon), release_at=-(10**9))

    monkeypatch.setattr(choosing_module, "choosing_plan", plan)


def _choosing_weights_without_the_quarter(monkeypatch):
    """The choosing mechanism's draw over G(S) with weights exp(epsilon q), not exp(epsilon q / 4)
    (the bottom test untouched)."""
    original = choosing_module.choosing_plan

    def plan(scores, m, alpha, epsilon):
        right = original(scores, m, alpha, epsilon)
        wrong = original(scores, m, alpha, 4 * epsilon)
        return dataclasses.replace(wrong, scale=right.scale, release_at=right.release_at)

    monkeypatch.setattr(choosing_module, "choosing_plan", plan)


def _histogram_noise_for_sensitivity_one(monkeypatch):
    """The histogram's counts noised for sensitivity 1: a moved record changes two bins (L1 sensitivity 2)."""
    original = histogram_estimator.laplace_mechanism
    monkeypatch.setattr(
        histogram_estimator, "laplace_mechanism", lambda value, sensitivity, *a, **k: original(value, 1, *a, **k)
    )


def _fallback_point_from_the_data(monkeypatch):
    """When A_dist returns bottom, the point learner falls back on the leading positive's value
    (when there is one) instead of a uniform point."""
    seen = {}
    quality, uniform = point_learner.point_quality, point_learner.uniform_int

    def point_quality(x, y, size):
        seen["q"] = quality(x, y, size)
        return seen["q"]

    def uniform_int(lo, hi, rng=None):
        leader, best, _ = seen["q"].top_two()
        return int(leader) if best > 0 else uniform(lo, hi, rng)

    monkeypatch.setattr(point_learner, "point_quality", point_quality)
    monkeypatch.setattr(point_learner, "uniform_int", uniform_int)


def _orientation_by_exact_comparison(monkeypatch):
    """The threshold classifier picks its orientation by comparing the two orientations' best
    accuracies exactly (no noise, no charge), then runs RecConcave at the full budget."""
    from privpac.learners._sample import labelled_counts
    from privpac.learners.thresholds import threshold_quality

    def choose_orientation(x, y, size, epsilon, *, ledger=None, rng=None):
        sample = labelled_counts(x, y, size)
        below = threshold_quality(sample, None, size)
        return "below" if below.max() >= sample.n - below.min() else "above"

    monkeypatch.setattr(threshold_estimator, "choose_orientation", choose_orientation)
    monkeypatch.setattr(threshold_estimator, "ORIENTATION_SHARE", 0.0)


def _coordinates_at_twice_their_charge(monkeypatch):
    """Every coordinate's exponential mechanism in FindTukey and FindDeepPoint (the shared
    coordinate-by-coordinate skeleton) sampled at twice the epsilon its block is charged."""
    _at_twice_its_charge(monkeypatch, coordinatewise_module, "exponential_mechanism_step")


def _slice_missing_a_vertex_on_the_line(monkeypatch):
    """The slice of a level's hull at ``x_1 = x*_1`` built from the crossing edges only: a hull vertex lying
    on the line itself is missed (``PointLevels._slice``), so a level whose hull only touches the line
    reads as empty there and the nested slices break."""
    from privpac.geometry import point_levels as geometry_point_levels

    def _slice(self, level, t, side):
        hull = self._projected_hulls()[level]
        for j in hull:
            if j not in side:
                side[j] = (int(self.P[j, 0]) * t.denominator > t.numerator * int(self.q[j])) - (
                    int(self.P[j, 0]) * t.denominator < t.numerator * int(self.q[j])
                )
        ys = []
        for a, j in enumerate(hull):
            r = hull[(a + 1) % len(hull)]
            if side[j] * side[r] < 0:
                (x0, y0), (x1, y1) = (
                    geometry_point_levels._point2(self.P[j], self.q[j]),
                    geometry_point_levels._point2(self.P[r], self.q[r]),
                )
                ys.append(y0 + (t - x0) * (y1 - y0) / (x1 - x0))
        return (min(ys), max(ys)) if ys else None

    monkeypatch.setattr(geometry_point_levels.PointLevels, "_slice", _slice)


def _candidates_trimmed_by_depth(monkeypatch):
    """FindDeepPoint over public candidates keeps only those of depth at least half the largest
    before it forms the levels (a pruning read off the data)."""
    original = linear_feasibility_learner.candidate_levels

    def candidate_levels(points, depths, m, *, bound):
        depths = np.asarray(depths)
        keep = 2 * depths >= depths.max()
        return original(np.asarray(points)[keep], depths[keep], m, bound=bound)

    monkeypatch.setattr(linear_feasibility_learner, "candidate_levels", candidate_levels)


def _empty_input_answered_by_its_low_end(monkeypatch):
    """The interior points answer an empty input with the domain's low end (charged as usual) instead
    of running the mechanism: the size is not public under add/remove neighbours."""
    for cls in (interior_point_module.ExponentialInteriorPoint, interior_point_module.RecConcaveInteriorPoint):
        original = cls.__call__

        def call(self, values, lo, hi, epsilon, delta=0.0, rng=None, ledger=None, _original=original):
            if len(values) == 0:
                if ledger is not None:
                    ledger.charge("interior point", epsilon, delta, "mutant: an empty input answered by lo")
                return int(lo)
            return _original(self, values, lo, hi, epsilon, delta, rng=rng, ledger=ledger)

        monkeypatch.setattr(cls, "__call__", call)


def _interior_point_range_from_the_data(monkeypatch):
    """The interior points search [min, max] of the values instead of the public [lo, hi]."""
    for cls in (interior_point_module.ExponentialInteriorPoint, interior_point_module.RecConcaveInteriorPoint):
        original = cls.__call__

        def call(self, values, lo, hi, epsilon, delta=0.0, rng=None, ledger=None, _original=original):
            v = np.asarray(values)
            if v.size:
                lo, hi = max(int(lo), int(v.min())), min(int(hi), int(v.max()))
            return _original(self, values, lo, hi, epsilon, delta, rng=rng, ledger=ledger)

        monkeypatch.setattr(cls, "__call__", call)


def _median_range_from_the_data(monkeypatch):
    """The private median's quality over [0, the largest value] instead of the public domain."""
    original = median_estimator.interior_point_quality_from_counts

    def quality(values, counts, T):
        return original(values, counts, min(int(T), int(np.max(values))))

    monkeypatch.setattr(median_estimator, "interior_point_quality_from_counts", quality)


def _semi_private_candidates_from_the_labelled_records(monkeypatch):
    """The semi-private learner builds H from the public points and the labelled records' points."""
    from privpac.estimators import LabelPrivateClassifier

    original = LabelPrivateClassifier.fit

    def fit(self, X, y, X_public=None):
        if X_public is not None:
            X_public = np.concatenate([np.asarray(X_public), np.asarray(X)])
        return original(self, X, y, X_public)

    monkeypatch.setattr(LabelPrivateClassifier, "fit", fit)


def _sanitizer_counts_without_noise(monkeypatch):
    """SanPoints and SanThresholds release the exact counts (the Laplace calls charged, their noise dropped)."""

    def exact(value, sensitivity, epsilon, *, ledger=None, label="Laplace mechanism", rng=None):
        if ledger is not None:
            ledger.charge(label, epsilon, 0.0, "mutant: the count released without noise")
        return value

    monkeypatch.setattr(san_points_module, "laplace_mechanism", exact)
    monkeypatch.setattr(san_thresholds_module, "laplace_mechanism", exact)


def _san_points_rounds_by_exact_argmax(monkeypatch):
    """Each SanPoints round takes the heaviest remaining point when its exact count reaches alpha m / 2
    (charged as a choosing call), instead of running the choosing mechanism."""

    def choosing(scores, m, alpha, beta, epsilon, delta, *, growth=1, ledger=None, label="", rng=None, **kwargs):
        if ledger is not None:
            ledger.charge(label, epsilon, delta, "mutant: an exact argmax")
        keys, counts = scores
        i = int(np.argmax(counts)) if len(keys) else -1
        return keys[i] if i >= 0 and counts[i] >= alpha * m / 2 else None

    monkeypatch.setattr(san_points_module, "choosing_mechanism", choosing)


def _san_points_below_its_precondition(monkeypatch):
    """SanPoints runs below the size its choosing calls need (its own check and theirs switched off)."""
    plan = san_points_module.san_points_plan
    monkeypatch.setattr(
        san_points_module, "san_points_plan", lambda *a, **k: dataclasses.replace(plan(*a, **k), min_size=0)
    )
    _choosing_below_its_precondition(monkeypatch)


def _rectangle_domain_from_the_data(monkeypatch):
    """The rectangle classifier's grid spans the records' own range per feature, not the public domain."""
    from privpac.domains import Grid
    from privpac.estimators import PrivateRectangleClassifier

    original = PrivateRectangleClassifier.fit

    def fit(self, X, y, counts=None):
        arr = np.asarray(X)
        low, high = arr.min(axis=0), arr.max(axis=0)
        self.domain = Grid(low.tolist(), high.tolist(), (high - low + 1).astype(int).tolist())
        return original(self, X, y, counts)

    monkeypatch.setattr(PrivateRectangleClassifier, "fit", fit)


def _gradient_noise_dropped(monkeypatch):
    """Noisy gradient descent's Gaussian noise dropped (its block charged as usual)."""
    original = dp_erm_module.gaussian_gdp_block

    def block(*args, **kwargs):
        noise = original(*args, **kwargs)
        noise.sigma = 0.0
        return noise

    monkeypatch.setattr(dp_erm_module, "gaussian_gdp_block", block)


def _bst14_noise_dropped(monkeypatch):
    """BST14's noisy SGD with a millionth of its noise (charged as usual)."""
    original = dp_erm_module.bst14_noise_std
    monkeypatch.setattr(dp_erm_module, "bst14_noise_std", lambda *a, **k: original(*a, **k) * 1e-6)


def _net_mechanism_at_twice_its_charge(monkeypatch):
    """Algorithm 2's exponential mechanism over the net sampled at twice the epsilon it is charged."""
    _at_twice_its_charge(monkeypatch, large_margin_module, "exponential_mechanism")


def _candidate_bound_from_the_data(monkeypatch):
    """Drawn candidates (``candidates=n``) bounded by the largest entry of the system, not the public bound."""
    from privpac.estimators import PrivateLinearFeasibility

    original = PrivateLinearFeasibility.fit

    def fit(self, A, b=None):
        if isinstance(self.candidates, int) and self.candidate_bound is None:
            self.candidate_bound = max(int(np.abs(np.asarray(A)).max()), int(np.abs(np.asarray(b)).max()))
        return original(self, A, b)

    monkeypatch.setattr(PrivateLinearFeasibility, "fit", fit)


def _advanced_coordinates_at_the_basic_share(monkeypatch):
    """With composition='advanced', FindTukey's block is charged at the advanced share (the DRV total)
    but each coordinate's exponential mechanism runs at the basic share epsilon/d."""
    choose, step = center_point_learner.choose_coordinates, coordinatewise_module.exponential_mechanism_step

    def choose_coordinates(plan, k, *args, **kwargs):
        if plan.composition != "advanced":
            return choose(plan, k, *args, **kwargs)
        share = plan.epsilon / k

        def run(f, epsilon, *a, ledger=None, label="", **kw):
            ledger.charge(label, epsilon, 0.0, "mutant: sampled at the basic share")
            return step(f, share, *a, **kw)

        monkeypatch.setattr(coordinatewise_module, "exponential_mechanism_step", run)
        try:
            return choose(plan, k, *args, **kwargs)
        finally:
            monkeypatch.setattr(coordinatewise_module, "exponential_mechanism_step", step)

    monkeypatch.setattr(center_point_learner, "choose_coordinates", choose_coordinates)


def _training_accuracy_stored_on_the_estimator(monkeypatch):
    """The halfspace classifiers keep their accuracy on the training records as a fitted attribute."""
    from privpac.estimators import PrivateFeasibilityHalfspaceClassifier, PrivateTukeyHalfspaceClassifier

    for cls in (PrivateFeasibilityHalfspaceClassifier, PrivateTukeyHalfspaceClassifier):
        original = cls.fit

        def fit(self, X, y, _original=original):
            _original(self, X, y)
            # the accuracy score computes, without scikit-learn's input checks (run on every path of the law)
            self.training_accuracy_ = float(np.mean(self.predict(X) == np.asarray(y)))
            return self

        monkeypatch.setattr(cls, "fit", fit)


def _gradient_noise_for_one_step(monkeypatch):
    """Noisy gradient descent's Gaussian noise calibrated (and charged) for one release, then used for
    all T steps: the composition over the steps forgotten (sqrt(T) times too little noise)."""
    original = dp_erm_module.gaussian_gdp_block

    def block(sensitivity, steps, dim, epsilon, delta, **kwargs):
        noise = original(sensitivity, 1, dim, epsilon, delta, **kwargs)
        noise.steps = steps  # the block then hands out all T releases
        return noise

    monkeypatch.setattr(dp_erm_module, "gaussian_gdp_block", block)


def _lattice_shifted_by_the_data(monkeypatch):
    # the lattice map reads the data: the lowest record is moved to the low end (a data-dependent offset)
    original = domains_module.Lattice.to_lattice

    def shifted(self, X, name="X", first_row=0):
        K = original(self, X, name, first_row)
        return K - K.min(axis=0) - self.B if K.size else K

    monkeypatch.setattr(domains_module.Lattice, "to_lattice", shifted)


MUTANTS = [
    ("halved Laplace noise", _halved_laplace, ["laplace", "histogram"]),
    (
        "halved A_dist noise in the release path",
        _halved_adist_noise,
        ["adist", "point-learner --pair from the runner-up"],
    ),
    (
        "step-function EM sampling at 2 epsilon",
        _step_em_at_twice_epsilon,
        [
            "exponential-step",
            "interior-point-exponential",
            "median --pair a stack of equal values loses one (exponential)",
            # each audit on the pair that shows it (the others take the most time to enumerate)
            "center-point --pair stack loses a point to the far end",
            "linear-feasibility --pair the last moves to x <= -2",
            "halfspace-tukey --pair twelve equal chunks",
        ],
    ),
    (
        "finite-list EM sampling at 2 epsilon",
        _finite_em_at_twice_epsilon,
        [
            "exponential",
            "label-private",
            "semi-private --pair thresholds",
            "exponential-learner --pair finite class",
            "center-point-one-shot --pair a diagonal broken",
        ],
    ),
    (
        "grouped EM sampling at 2 epsilon",
        _grouped_em_at_twice_epsilon,
        ["exponential-learner", "exponential-learner-grouped"],
    ),
    ("a threshold range weight without its offset", _range_weights_without_offsets, ["exponential-learner-grouped"]),
    ("a mechanism call that charges nothing", _em_charges_nothing, ["exponential-step", "exponential-learner"]),
    (
        "a data-dependent number in a ledger entry",
        _piece_count_in_the_ledger,
        ["exponential-learner", "exponential-learner-grouped"],
    ),
    ("an exact count stored on the estimator", _count_stored_on_the_estimator, ["exponential-learner"]),
    (
        "the depth reached stored on the estimator",
        _depth_reached_stored_on_the_estimator,
        [
            "center-point-3d --trials 300 --pair stack",
            "center-point-directional-4d --trials 300",
            "linear-feasibility-3d --trials 300",
            "feasibility-candidates --pair D=1",
            "feasibility-candidates-4d --trials 300",
        ],
    ),
    ("the choosing mechanism below its size precondition", _choosing_below_its_precondition, ["choosing"]),
    ("a domain bound derived from the data", _domain_from_the_data, ["exponential-learner"]),
    (
        "an interior point run at 4x its charged share",
        _interior_point_at_four_times_its_share,
        ["rectangle-composition --pair top corner"],
    ),
    (
        "a center-point candidate domain built from the data",
        _center_point_domain_from_the_data,
        [
            "center-point --pair the largest point moves further out",
            "center-point --pair d=1, RecConcave: a stack loses one",
            "center-point-directional",
        ],
    ),
    (
        "planar depth regions without their level's axis constraints",
        _planar_regions_without_their_axis_constraints,
        ["center-point --pair tall stack"],
    ),
    ("a one-shot quality counting depth twice", _one_shot_depth_counted_twice, ["center-point-one-shot"]),
    (
        "one-shot center-point candidates cut to the data's bounding box",
        _one_shot_candidates_from_the_data,
        ["center-point-one-shot"],
    ),
    (
        "a linear-feasibility box and domain built from the data",
        _linear_feasibility_bound_from_the_data,
        ["linear-feasibility"],
    ),
    (
        "RecConcave truncated at a level read off the data",
        _truncation_level_from_the_data,
        ["linear-feasibility --pair a hundred"],  # the pair where the data-dependent tau flattens one side
    ),
    (
        "candidate depths counted twice",
        _candidate_depths_counted_twice,
        ["feasibility-candidates --pair D=1"],  # the pair where the exponential mechanism's loss reaches epsilon
    ),
    (
        "a one-class sample answered without the mechanism",
        _one_class_shortcut,
        ["halfspace-feasibility --pair one class"],  # the pair it breaks: the others take a minute to enumerate
    ),
    ("a grid's lattice shifted by the data", _lattice_shifted_by_the_data, ["center-point-grid"]),
    (
        "gradient noise calibrated for one step of T",
        _gradient_noise_for_one_step,
        ["halfspace-logistic --trials 300 --pair label flipped"],  # empirical only: 337 steps
    ),
    (
        "halfspace-tukey chunks formed by record value",
        _halfspace_chunks_by_value,
        ["halfspace-tukey --pair a record moves to the low end"],
    ),
]

MUTANTS += [
    (
        "the first point of the drawn piece",
        _piece_answered_by_its_first_point,
        ["exponential-step --pair a record moves off"],
    ),
    (
        "A_dist's threshold without its tail term",
        _adist_threshold_without_its_tail_term,
        [
            "adist --pair the leader changes",
            "point-learner --pair the leader changes",
            "recconcave --pair two peaks",
            "threshold-learner --pair two peaks",
        ],
    ),
    (
        "the choosing mechanism without its bottom test",
        _choosing_without_its_bottom_test,
        ["choosing --pair every record a distinct point"],
    ),
    (
        "the choosing mechanism's weights without the quarter",
        _choosing_weights_without_the_quarter,
        ["choosing --pair two heavy points three apart"],
    ),
    ("histogram noise calibrated for sensitivity 1", _histogram_noise_for_sensitivity_one, ["histogram"]),
    (
        "the point learner's fallback taken from the data",
        _fallback_point_from_the_data,
        ["point-learner --pair no positive"],
    ),
    (
        "the orientation chosen by an exact comparison, RecConcave at the full budget",
        _orientation_by_exact_comparison,
        ["threshold-learner --pair better orientation"],
    ),
    (
        "every coordinate's exponential mechanism at twice its charge",
        _coordinates_at_twice_their_charge,
        [
            "center-point --pair stack loses a point to the far end",
            "center-point --pair d=2: a tall stack",
            "center-point-directional --pair tall stack",
            "linear-feasibility --pair domain=mode-c",
            "halfspace-tukey --pair twelve",
        ],
    ),
    (
        "a level's hull slice missing its vertex on the line x_1 = x*_1",
        _slice_missing_a_vertex_on_the_line,
        ["feasibility-candidates --pair d=2"],  # the d = 2 learner's dual (D = 3): hull slices at i = 2
    ),
    (
        "public candidates trimmed by their depth before the levels",
        _candidates_trimmed_by_depth,
        ["feasibility-candidates --pair six x"],
    ),
    (
        "an empty input answered by the low end",
        _empty_input_answered_by_its_low_end,
        ["interior-point --pair empty", "interior-point-exponential --pair empty"],
    ),
    (
        "the interior point's range narrowed to the data",
        _interior_point_range_from_the_data,
        ["interior-point --pair replace the largest", "rectangle-composition --pair few positives"],
    ),
    (
        "the median's range read off the data",
        _median_range_from_the_data,
        ["median --pair replace the largest value (auto)"],
    ),
    (
        "H built from the labelled records too",
        _semi_private_candidates_from_the_labelled_records,
        ["semi-private"],
    ),
    (
        "sanitizer counts released without noise",
        _sanitizer_counts_without_noise,
        [
            "san-points --trials 300 --pair two heavy points, one record moves (",
            "k-point --trials 300 --pair two heavy points, one record moves (",
            "san-thresholds --trials 300 --pair two heavy",
        ],
    ),
    (
        "SanPoints' rounds by an exact argmax",
        _san_points_rounds_by_exact_argmax,
        ["san-points --trials 300 --pair the heavier changes", "k-point --trials 300 --pair the heavier changes"],
    ),
    (
        "SanPoints below its size precondition",
        _san_points_below_its_precondition,
        ["san-points --pair below the privacy"],
    ),
    (
        "the rectangle grid read off the data",
        _rectangle_domain_from_the_data,
        ["rectangle-learner-bns --trials 300 --pair a lone positive"],
    ),
    (
        "the advanced block run at the basic share",
        _advanced_coordinates_at_the_basic_share,
        ["center-point --pair advanced composition"],
    ),
    (
        "drawn candidates bounded by the data",
        _candidate_bound_from_the_data,
        ["feasibility-candidates --trials 300 --pair drawn"],
    ),
    (
        "the training accuracy stored on the estimator",
        _training_accuracy_stored_on_the_estimator,
        [
            "feasibility-candidates --pair d=2",
            "halfspace-feasibility --pair (erm, margin-1",  # the ERM pairs one by one: two tests that run in parallel
            "halfspace-feasibility --pair (erm, paper",
            "halfspace-feasibility --trials 300 --pair (pac, paper",
            "halfspace-tukey --trials 150 --pair a threshold chunk turns constant (tukey",
        ],
    ),
    (
        "noisy gradient descent without its noise",
        _gradient_noise_dropped,
        ["margin-practical --trials 300 --pair label flipped"],
    ),
    (
        "BST14's noisy SGD with a millionth of its noise",
        _bst14_noise_dropped,
        ["margin-faithful --trials 300 --pair label flipped"],
    ),
    ("the net mechanism at twice its charge", _net_mechanism_at_twice_its_charge, ["margin-pure"]),
]


def _audit_args(audit: str) -> list[str]:
    """``privpac audit`` arguments from ``"NAME [--trials N] [--pair TEXT]"``: 20 trials unless named (the
    exact laws, enumerated from the shipped code, flag the mutants; an empirical-only case names its own)."""
    name, _, pair = audit.partition(" --pair ")
    name, _, trials = name.partition(" --trials ")
    return [name, "--trials", trials or "20", *(["--pair", pair] if pair else [])]


@pytest.mark.parametrize(
    "mutate, audit",
    [(m, a) for _, m, audits in MUTANTS for a in audits],
    ids=[f"{name}: {a}" for name, _, audits in MUTANTS for a in audits],
)
def test_every_mutant_is_flagged(monkeypatch, mutate, audit):
    mutate(monkeypatch)
    result = CliRunner().invoke(main, ["audit", *_audit_args(audit)])
    assert result.exit_code == 1, result.output
    assert "VIOLATION" in result.output


# Without a mutant every one of these audits passes: tests/privacy/test_audit_registry.py runs them all.
