"""Mutation suite: bugs injected into the release path only must be flagged by the registered audits.

Each mutant changes what the shipped code does (never the audit's own instruments) and is
required to make ``privpac audit NAME`` exit 1. A mutant that survived would mean the audit
cannot see that kind of bug. Trial counts are small: the exact laws, enumerated from the shipped
code, catch most mutants on their own.
"""

import dataclasses
import importlib
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from privpac.cli import main
from privpac.estimators import PrivateThresholdClassifier
from privpac.optimize import ExponentialInteriorPoint
from privpac.random import discrete_laplace, discrete_laplace_exceeds, discrete_laplace_vector

# The modules themselves (the package re-exports functions under some of the same names).
adist_module = importlib.import_module("privpac.mechanisms.adist")
choosing_module = importlib.import_module("privpac.mechanisms.choosing")
exponential_module = importlib.import_module("privpac.mechanisms.exponential")
laplace_module = importlib.import_module("privpac.mechanisms.laplace")
learners_exponential = importlib.import_module("privpac.learners.exponential")
range_counts_module = importlib.import_module("privpac.learners.range_counts")
center_point_estimator = importlib.import_module("privpac.estimators.center_point")
domains_module = importlib.import_module("privpac.domains")
linear_feasibility_estimator = importlib.import_module("privpac.estimators.linear_feasibility")
feasibility_halfspaces_estimator = importlib.import_module("privpac.estimators.feasibility_halfspaces")
center_point_baselines = importlib.import_module("privpac.learners.center_point_baselines")
halfspace_tukey_learner = importlib.import_module("privpac.learners.halfspace_tukey")
linear_feasibility_learner = importlib.import_module("privpac.learners.linear_feasibility")
dp_erm_module = importlib.import_module("privpac.learners.dp_erm")


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
    monkeypatch.setattr(exponential_module, "charge", lambda *args, **kwargs: None)


def _piece_count_in_the_ledger(monkeypatch):
    """A function of the records written into the ledger entry: the whole range's weight (range by
    range) or the number of pieces, a count of distinct values (the flat draw)."""
    grouped = learners_exponential.exponential_mechanism_grouped
    pieces = learners_exponential.exponential_mechanism_pieces

    def leaky_grouped(T, range_weights, epsilon, **kwargs):
        offsets, env = range_weights([0, T + 1], exponential_module.exp_base(0.5))
        kwargs["over"] = f"{kwargs.get('over') or T} (weight {env.mantissa[0]:.6f} 2^{env.exponent[0]})"
        return grouped(T, range_weights, epsilon, **kwargs)

    def leaky_pieces(q, lengths, epsilon, **kwargs):
        kwargs["over"] = f"{kwargs.get('over')} ({len(q)} pieces)"
        return pieces(q, lengths, epsilon, **kwargs)

    monkeypatch.setattr(learners_exponential, "exponential_mechanism_grouped", leaky_grouped)
    monkeypatch.setattr(learners_exponential, "exponential_mechanism_pieces", leaky_pieces)


def _grouped_em_at_twice_epsilon(monkeypatch):
    """Every exponential mechanism's base (the grouped draw's included) from twice its epsilon."""
    original = exponential_module.exp_base
    monkeypatch.setattr(exponential_module, "exp_base", lambda eps, *a, **k: original(2 * eps, *a, **k))


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

    def learn_halfspace(X, y_pm, grid, *args, **kwargs):
        result = original(X, y_pm, grid, *args, **kwargs)  # charges and draws as usual ...
        y = np.asarray(y_pm)
        if np.all(y == y[0]):  # ... but a one-class sample gets its exact constant hypothesis
            return dataclasses.replace(result, a=(Fraction(0),) * len(result.a), w=Fraction(-int(y[0])))
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
    ("halved A_dist noise in the release path", _halved_adist_noise, ["adist", "point-learner"]),
    (
        "step-function EM sampling at 2 epsilon",
        _step_em_at_twice_epsilon,
        [
            "exponential-step",
            "interior-point-exponential",
            # each audit on the pair that shows it (the others take the most time to enumerate)
            "center-point --pair stack loses a point to the far end",
            "linear-feasibility --pair the last moves to x <= -2",
            "halfspace-tukey --pair twelve equal chunks",
        ],
    ),
    (
        "finite-list EM sampling at 2 epsilon",
        _finite_em_at_twice_epsilon,
        ["exponential", "label-private", "center-point-one-shot --pair a diagonal broken"],
    ),
    ("grouped EM sampling at 2 epsilon", _grouped_em_at_twice_epsilon, ["em-learner", "em-learner-grouped"]),
    ("a threshold range weight without its offset", _range_weights_without_offsets, ["em-learner-grouped"]),
    ("a mechanism call that charges nothing", _em_charges_nothing, ["exponential-step", "em-learner"]),
    ("a data-dependent number in a ledger entry", _piece_count_in_the_ledger, ["em-learner", "em-learner-grouped"]),
    ("an exact count stored on the estimator", _count_stored_on_the_estimator, ["em-learner"]),
    (
        "the depth reached stored on the estimator",
        _depth_reached_stored_on_the_estimator,
        [
            "center-point-3d",
            "center-point-directional-4d",
            "linear-feasibility-3d",
            "feasibility-candidates --pair D=1",
        ],
    ),
    ("the choosing mechanism below its size precondition", _choosing_below_its_precondition, ["choosing"]),
    ("a domain bound derived from the data", _domain_from_the_data, ["em-learner"]),
    (
        "an interior point run at 4x its charged share",
        _interior_point_at_four_times_its_share,
        ["rectangle-composition"],
    ),
    (
        "a center-point candidate domain built from the data",
        _center_point_domain_from_the_data,
        ["center-point --pair the largest point moves further out", "center-point-directional"],
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
        ["halfspace-logistic --pair label flipped"],  # the default halfspace learner: 337 steps
    ),
    (
        "halfspace-tukey chunks formed by record value",
        _halfspace_chunks_by_value,
        ["halfspace-tukey --pair a record moves to the low end"],
    ),
]


@pytest.mark.parametrize(
    "mutate, audit",
    [(m, a) for _, m, audits in MUTANTS for a in audits],
    ids=[f"{name}: {a}" for name, _, audits in MUTANTS for a in audits],
)
def test_every_mutant_is_flagged(monkeypatch, mutate, audit):
    mutate(monkeypatch)
    name, _, pair = audit.partition(" --pair ")
    result = CliRunner().invoke(main, ["audit", name, "--trials", "300", *(["--pair", pair] if pair else [])])
    assert result.exit_code == 1, result.output
    assert "VIOLATION" in result.output


# Without a mutant every one of these audits passes: tests/test_audit_registry.py runs them all.
