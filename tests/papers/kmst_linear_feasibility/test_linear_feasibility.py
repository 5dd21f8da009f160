"""FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia 2020, Fig. 2) and ``PrivateLinearFeasibility``.

* property (P): every end of a level interval of ``Q_i`` is a member of the public candidate domain,
  on random systems and prefixes, and on the spec's counterexample to Lemma 4.3;
* the quality is the boxed convexified depth's best completion (cross-checked with ``cdepth`` and
  the level polygons), quasi-concave, and of sensitivity 1 between neighbouring systems;
* utility at the sufficient size (seeded runs), the single-point feasible set, the ERM dual's
  degenerate origin and the margin-1 fix (spec 3.5, 3.7 item 1);
* bad inputs, the ledger, determinism, row order, the saved model and the command line.
"""

import importlib
import itertools
import json
import math
import warnings
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from privpac.cli import main
from privpac.errors import DataError, DomainError, InvalidParameterError, UtilityWarning
from privpac.estimators import MODELS, PrivateFeasibilityHalfspaceClassifier, PrivateLinearFeasibility
from privpac.geometry.convexified import cdepth, convex_levels, convex_superlevel_set
from privpac.geometry.feasibility import bounding_box_radius, depth
from privpac.geometry.point_levels import arrangement_levels_3d
from privpac.io import load_model, save_model
from privpac.learners.linear_feasibility import (
    MAX_CONSTRAINTS_3D,
    MAX_DISTINCT_ROWS_2D,
    _domain,
    coordinate_quality,
    denominator_bounds,
    distinct_rows_bound,
    find_deep_point,
    level_intervals,
    plan_find_deep_point,
    system_levels,
    truncation_levels,
)

linear_feasibility_learner = importlib.import_module("privpac.learners.linear_feasibility")

# The spec's counterexample to Lemma 4.3 (kmst-halfspaces 3.2): D = 2, m = 7, x*_1 = -6/5.
CE_A = [[2, 2], [0, 2], [-1, -1], [-3, -3], [-3, -1], [-1, 0], [3, -2]]
CE_b = [-3, -1, -2, -3, 0, 3, 1]


def _feasible(gen, m, D, X, x0):
    """Random rows in [-X, X]^D with right-hand sides that keep ``x0`` feasible (and inside [-X, X])."""
    A = gen.integers(-X, X + 1, size=(m, D))
    lhs = [sum(Fraction(int(a)) * x for a, x in zip(row, x0)) for row in A]
    b = np.array([min(X, max(-X, int(np.floor(v)) - int(gen.integers(0, 2)))) for v in lhs])
    assert depth(x0, A, b) == m  # |<a, x0>| <= X for the x0 used here, so clipping keeps x0 feasible
    return A, b


def _random_prefix(gen, X, domain="a3-rational"):
    dom = _domain(X, 2, 1, 1, domain)
    v = dom.select(int(gen.integers(0, dom.size)))
    _, q = dom.canonical_pair(v)
    return v, q


DOMAIN_CHOICES = ["a3-rational", "mode-c"]


def _points(*functions):
    """Every breakpoint of the step functions and the index before it: where they can differ."""
    points = set().union(*({int(s) for s in f.starts} for f in functions))
    return sorted(points | {p - 1 for p in points if p > 0})


def _check_truncation(f, tau_values, quality):
    """``Q^tau = max(Q, tau)``: equal to ``Q`` where ``Q > tau``, the constant ``tau`` elsewhere."""
    for tau in tau_values:
        g = quality(tau)
        for p in _points(f, g):
            q = int(f(p))
            assert int(g(p)) == (q if q > tau else tau), (tau, p)


# -- property (P) and the quality ----------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
@pytest.mark.parametrize("D", [1, 2])
def test_every_level_interval_end_is_a_domain_member(D, domain):
    gen = np.random.default_rng(10 + D)
    for _ in range(40):
        X = int(gen.integers(1, 4))
        m = int(gen.integers(1, 9))
        A, b = gen.integers(-X, X + 1, size=(m, D)), gen.integers(-X, X + 1, size=m)
        levels = system_levels(A, b, bounding_box_radius(D, X))
        prefixes = [((), 1)]
        if D == 2:
            for _ in range(3):
                v, q = _random_prefix(gen, X, domain)
                prefixes.append(((v,), q))
            # and the abscissae of the level polygons' vertices, where the slices are the thinnest
            for level in convex_levels(A, b, box=bounding_box_radius(D, X)):
                for p in level.polygon[:2]:
                    prefixes.append(((p[0],), _domain(X, 2, 1, 1, domain).canonical_pair(p[0])[1]))
        for prefix, t in prefixes:
            dom = _domain(X, D, len(prefix) + 1, t, domain)
            ints = level_intervals(levels, prefix, D)
            for lo, hi in ints:
                assert lo in dom and hi in dom, (A, b, prefix, lo, hi)
                # the indices zlo, zhi of the level's ends decode exactly to them (spec 8 item 6)
                assert dom.select(dom.first_index(lo)) == lo and dom.select(dom.last_index(hi)) == hi
            q = coordinate_quality(dom, levels, prefix, D)
            if ints:  # the argmax set holds a member: the domain attains max Q (Requirement 3.6)
                assert q.max() == len(ints)


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_the_counterexample_to_lemma_4_3_is_handled_exactly(domain):
    X = 3
    levels = system_levels(CE_A, CE_b, bounding_box_radius(2, X))
    prefix = (Fraction(-6, 5),)
    ints = level_intervals(levels, prefix, 2)
    assert len(ints) == 6 and ints[-1] == (Fraction(3, 10), Fraction(209, 140))
    # the lines meet x_1 = -6/5 only outside the argmax: the paper's breakpoint list misses it
    crossings = {(w - a1 * prefix[0]) / a2 for (a1, a2), w in zip(CE_A, CE_b) if a2 != 0}
    assert not any(Fraction(3, 10) <= c <= Fraction(209, 140) for c in crossings)
    assert _domain(X, 2, 1, 1, domain).canonical_pair(prefix[0])[1] == 5  # the running denominator
    dom = _domain(X, 2, 2, 5, domain)  # -6/5 has denominator 5
    assert Fraction(209, 140) in dom and Fraction(3, 10) in dom
    q = coordinate_quality(dom, levels, prefix, 2)
    assert q.max() == 6
    assert dom.select(q.argmax()) == Fraction(3, 10)


def test_the_quality_is_the_best_completion_of_the_boxed_cdepth():
    gen = np.random.default_rng(3)
    for _ in range(15):
        X = int(gen.integers(1, 3))
        m = int(gen.integers(2, 7))
        A, b = gen.integers(-X, X + 1, size=(m, 2)), gen.integers(-X, X + 1, size=m)
        R = bounding_box_radius(2, X)
        levels = system_levels(A, b, R)
        v, t = _random_prefix(gen, X)
        dom2 = _domain(X, 2, 2, t)
        q2 = coordinate_quality(dom2, levels, (v,), 2)
        dom1 = _domain(X, 2, 1, 1)
        q1 = coordinate_quality(dom1, levels, (), 2)
        k1 = int(q1(dom1.first_index(v)))
        for _ in range(5):
            idx = int(gen.integers(0, dom2.size))
            y = dom2.select(idx)
            assert int(q2(idx)) == cdepth([v, y], A, b, box=R)  # i = D: Q_2 is cdepth on the slice
            assert k1 >= cdepth([v, y], A, b, box=R)  # Q_1 is the best completion
        # ... and is attained: the level-k1 hull meets the line x_1 = v, the next one does not
        if k1 > 0:
            assert convex_superlevel_set(A, b, k1, box=R).slice(v) is not None
        if k1 < m:
            assert convex_superlevel_set(A, b, k1 + 1, box=R).slice(v) is None


def _values(f):
    return [int(v) for v in f.values]


def _neighbouring_levels(gen, X: int, m: int, D: int):
    """A random system of ``m`` rows in ``[[-X, X]]``, a neighbour (one row replaced) and both systems' boxed levels."""
    A, b = gen.integers(-X, X + 1, size=(m, D)), gen.integers(-X, X + 1, size=m)
    A2, b2 = A.copy(), b.copy()
    j = int(gen.integers(0, m))
    A2[j], b2[j] = gen.integers(-X, X + 1, size=D), gen.integers(-X, X + 1)
    R = bounding_box_radius(D, X)
    return A, b, A2, b2, system_levels(A, b, R), system_levels(A2, b2, R)


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
@pytest.mark.parametrize("D", [1, 2])
def test_the_quality_is_quasi_concave_and_has_sensitivity_one(D, domain):
    """Claims 3.4 and 3.5 for ``Q_i`` and for the truncated ``Q^tau_i = max(Q_i, tau)`` of RecConcave
    (spec 3.7 item 3, 8 item 8), on random neighbouring systems, over both candidate domains."""
    gen = np.random.default_rng(20 + D)
    for _ in range(30):
        X = int(gen.integers(1, 3))
        m = int(gen.integers(1, 7))
        A, b, A2, b2, L, L2 = _neighbouring_levels(gen, X, m, D)
        prefixes = [((), 1)]
        if D == 2:
            prefixes += [((v,), t) for v, t in [_random_prefix(gen, X, domain) for _ in range(2)]]
        taus = sorted({0, 1, m - 1, int(gen.integers(0, m + 1)), *truncation_levels(m, D, 0.5)})
        for prefix, t in prefixes:
            dom = _domain(X, D, len(prefix) + 1, t, domain)
            for tau in taus:
                f, g = coordinate_quality(dom, L, prefix, D, tau), coordinate_quality(dom, L2, prefix, D, tau)
                for h in (f, g):  # unimodal over the index order
                    vals = _values(h)
                    top = vals.index(max(vals))
                    assert vals[: top + 1] == sorted(vals[: top + 1])
                    assert vals[top:] == sorted(vals[top:], reverse=True)
                assert all(abs(int(f(p)) - int(g(p))) <= 1 for p in _points(f, g))
            f = coordinate_quality(dom, L, prefix, D)
            _check_truncation(
                f, taus, lambda tau, dom=dom, L=L, prefix=prefix: coordinate_quality(dom, L, prefix, D, tau)
            )


# -- utility ------------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_depth_at_the_sufficient_size_in_one_dimension(domain):
    plan = plan_find_deep_point(10, 1, 2, 1.0, alpha=0.2, candidate_domain=domain)
    m = plan.sufficient_m
    gen = np.random.default_rng(0)
    A, b = _feasible(gen, m, 1, 2, (Fraction(1, 2),))
    A[A == 0] = 1
    for seed in range(20):
        x = find_deep_point(A, b, 2, 1.0, alpha=0.2, rng=seed, candidate_domain=domain).solution
        assert depth(x, A, b) >= 0.8 * m


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_depth_at_the_sufficient_size_in_two_dimensions(domain):
    plan = plan_find_deep_point(10, 2, 2, 20.0, alpha=0.5, candidate_domain=domain)
    m = plan.sufficient_m
    gen = np.random.default_rng(1)
    A, b = _feasible(gen, m, 2, 2, (Fraction(1, 3), Fraction(-1, 2)))
    for seed in range(10):
        x = find_deep_point(A, b, 2, 20.0, alpha=0.5, rng=seed, candidate_domain=domain).solution
        assert depth(x, A, b) >= 0.5 * m


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_recconcave_mode_runs_and_reaches_its_promise_in_one_dimension(domain):
    plan = plan_find_deep_point(10, 1, 2, 1.0, 1e-6, alpha=0.2, optimizer="recconcave", candidate_domain=domain)
    m = plan.sufficient_m
    gen = np.random.default_rng(2)
    A, b = _feasible(gen, m, 1, 2, (Fraction(-1, 2),))
    # The promise holds with probability 1 - beta (beta = 0.1): about 6 % of runs fall short here
    # (measured over 200 seeds, before and after the exact sampler), so count the runs that do.
    short = 0
    for seed in range(40):
        x = find_deep_point(
            A, b, 2, 1.0, 1e-6, alpha=0.2, optimizer="recconcave", rng=seed, candidate_domain=domain
        ).solution
        short += depth(x, A, b) < 0.8 * m
    assert short <= plan.beta * 40
    # D = 2 runs too (no utility claim at this size)
    A2, b2 = _feasible(gen, 30, 2, 1, (Fraction(0), Fraction(0)))
    (x1, x2) = find_deep_point(A2, b2, 1, 1.0, 1e-6, optimizer="recconcave", rng=0, candidate_domain=domain).solution
    assert abs(x1) <= 2 and abs(x2) <= 2


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_a_single_point_feasible_set_is_found_exactly(domain):
    """``2x >= 1`` and ``-2x >= -1``: the feasible set is the point 1/2 (spec section 8, item 17).

    A dyadic or integer grid misses it; the public domain holds it (property (P)), so the output is
    exactly 1/2 with high probability."""
    m = plan_find_deep_point(10, 1, 2, 1.0, alpha=0.2, candidate_domain=domain).sufficient_m
    A = np.array([[2], [-2]] * (m // 2 + 1))
    b = np.array([1, -1] * (m // 2 + 1))
    hits = sum(
        find_deep_point(A, b, 2, 1.0, alpha=0.2, rng=s, candidate_domain=domain).solution == (Fraction(1, 2),)
        for s in range(20)
    )
    assert hits >= 18


def _dual(points, labels, margin):
    """The ERM dual of spec 3.5 / 3.7 item 1: ``y (a x - w) >= margin`` on ``(a, w)``."""
    A = np.array([[y * x, -y] for x, y in zip(points, labels)])
    return A, np.full(len(points), margin)


def test_the_d1_degenerate_example_and_the_margin_1_fix():
    """Spec 3.5: positives at ``x >= 5``, negatives at ``x <= 3``. With the paper's homogeneous dual
    (``b = 0``) the origin ``(a, w) = (0, 0)`` satisfies every constraint, so a maximiser of every
    ``Q_i`` is the useless ``h = +1``; with the margin-1 dual (spec 3.7 item 1) the origin satisfies
    none, and a deep point classifies the sample correctly with ``a* > 0``."""
    points = [5, 6, 7, 1, 2, 3] * 15
    labels = [1, 1, 1, -1, -1, -1] * 15
    A0, b0 = _dual(points, labels, 0)
    assert depth([0, 0], A0, b0) == len(points)  # the degenerate origin has full depth
    A1, b1 = _dual(points, labels, 1)
    assert depth([0, 0], A1, b1) == 0
    m = len(points)
    assert m >= plan_find_deep_point(m, 2, 7, 50.0, alpha=0.5).sufficient_m
    for seed in range(5):
        a, w = find_deep_point(A1, b1, 7, 50.0, alpha=0.5, rng=seed).solution
        assert depth([a, w], A1, b1) >= 0.5 * m
        assert a > 0  # more than half the constraints rule out a = 0
        correct = sum((1 if a * x >= w else -1) == y for x, y in zip(points, labels))
        assert correct >= depth([a, w], A1, b1)  # every satisfied constraint is a correct label


def test_held_out_depth_on_a_feasible_system():
    """The estimator stores no count of satisfied constraints; depth is measured on held-out ones."""
    gen = np.random.default_rng(7)
    x0 = (Fraction(1, 2), Fraction(-1, 3))
    A, b = _feasible(gen, 300, 2, 2, x0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        est = PrivateLinearFeasibility(epsilon=20.0, domain=2, random_state=0).fit(A[:200], b[:200])
    assert depth(est.solution_, A[200:], b[200:]) >= 0.8 * 100


# -- the plan, the ledger, bad inputs -----------------------------------------------------------


def test_the_plan_is_public_and_uses_m_as_the_promise():
    plan = plan_find_deep_point(500, 2, 3, 1.0, 1e-6, alpha=0.1, optimizer="recconcave")
    assert plan.composition == "basic" and plan.epsilon0 == 0.5 and plan.delta0 == 5e-7
    assert plan.alpha0 == pytest.approx(0.1 / 12) and plan.beta0 == 0.05
    assert plan.promises == (500.0, 500.0 * (1 - 0.1 / 12))  # M = m, never a computed maximum
    assert plan.denominator_bounds == denominator_bounds(3, 2) == (18, 16 * 3**6)
    assert plan_find_deep_point(500, 2, 3, 1.0).delta0 == 0.0  # the exponential mechanism is pure


def test_the_truncation_levels_are_public_and_only_for_recconcave():
    """Spec 3.7 item 3: ``tau_i = ceil((1 - alpha~) r_i) - 1`` with ``r_i = (1 - alpha~)^(i-1) m``, exact."""
    a0 = Fraction(0.1) / 12
    assert truncation_levels(500, 2, 0.1) == (math.ceil(500 * (1 - a0)) - 1, math.ceil(500 * (1 - a0) ** 2) - 1)
    assert truncation_levels(500, 2, 0.1) == (495, 491)
    assert truncation_levels(4, 1, 0.1) == (3,) and truncation_levels(1, 3, 1.0) == (0, 0, 0)
    for m in range(1, 60):  # the largest integer below RecConcave's guarantee (1 - alpha~) r_i
        for i, tau in enumerate(truncation_levels(m, 2, 0.5), start=1):
            guarantee = m * (1 - Fraction(0.5) / 12) ** i
            assert tau < guarantee and (tau + 1 >= guarantee or tau == 0)
    rc = plan_find_deep_point(500, 2, 3, 1.0, 1e-6, optimizer="recconcave")
    assert rc.truncation == (495, 491) and "tau=[495, 491]" in "\n".join(rc.describe())
    assert plan_find_deep_point(500, 2, 3, 1.0, 1e-6, optimizer="recconcave", truncate=False).truncation == (0, 0)
    assert plan_find_deep_point(500, 2, 3, 1.0).truncation == (0, 0)  # never for the exponential mechanism
    with pytest.raises(InvalidParameterError, match="exponential mechanism would give every"):
        plan_find_deep_point(500, 2, 3, 1.0, truncate=True)
    with pytest.raises(InvalidParameterError, match="domain"):
        plan_find_deep_point(500, 2, 3, 1.0, candidate_domain="dyadic")


@pytest.mark.parametrize("D", [1, 2])
def test_truncation_reproduces_the_untruncated_run_where_it_changes_nothing(D):
    """Where every ``tau_i`` is 0 the truncated and untruncated (``truncate=False``) runs coincide draw for
    draw; where ``tau_1 > 0`` RecConcave is fed ``max(Q, tau)``."""
    gen = np.random.default_rng(40 + D)
    A, b = _feasible(gen, 1, D, 1, (Fraction(0),) * D)
    assert truncation_levels(1, D, 1.0) == (0,) * D
    for seed in range(3):
        runs = [
            find_deep_point(A, b, 1, 1.0, 1e-6, alpha=1.0, optimizer="recconcave", truncate=tr, rng=seed)
            for tr in (None, False)
        ]
        assert runs[0].solution == runs[1].solution
    A = np.array([[1] + [0] * (D - 1)] * 3 + [[-1] + [0] * (D - 1)] * 3)  # 0 <= x_1 <= 1, three times each
    b = np.array([0] * 3 + [-1] * 3)
    plan = plan_find_deep_point(6, D, 1, 1.0, 1e-6, alpha=1.0, optimizer="recconcave")
    tau = plan.truncation[0]
    assert tau == {1: 4, 2: 5}[D]  # ceil(6 (1 - 1/(2 D (D+1)))) - 1
    levels = system_levels(A, b, plan.R)
    dom = _domain(1, D, 1, 1)
    fed = coordinate_quality(dom, levels, (), D, tau)
    plain = coordinate_quality(dom, levels, (), D)
    assert plain.min() < tau and fed.min() == tau and fed.max() == plain.max() == 6
    assert all(int(fed(p)) == max(int(plain(p)), tau) for p in _points(fed, plain))


def test_the_ledger_records_one_block_and_nothing_from_the_data():
    gen = np.random.default_rng(4)
    A, b = _feasible(gen, 40, 2, 2, (Fraction(0), Fraction(1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        e1 = PrivateLinearFeasibility(domain=2, random_state=0).fit(A, b)
        e2 = PrivateLinearFeasibility(domain=2, random_state=1).fit(np.zeros_like(A), np.zeros_like(b))
    assert e1.ledger_.lines() == e2.ledger_.lines()
    assert e1.privacy_spent_ == (1.0, 0.0)


def test_same_seed_same_output_and_row_order_does_not_matter():
    gen = np.random.default_rng(5)
    A, b = _feasible(gen, 30, 2, 2, (Fraction(1, 2), Fraction(1, 2)))
    perm = gen.permutation(30)
    x = find_deep_point(A, b, 2, 2.0, rng=11).solution
    assert find_deep_point(A, b, 2, 2.0, rng=11).solution == x
    assert find_deep_point(A[perm], b[perm], 2, 2.0, rng=11).solution == x


def test_an_infeasible_system_runs_privately():
    A = np.array([[1], [-1]] * 5)
    b = np.array([2, 2] * 5)  # x >= 2 and x <= -2
    (x,) = find_deep_point(A, b, 2, 1.0, rng=0).solution
    assert abs(x) <= 2


class _Untouchable:
    def __array__(self, *args, **kwargs):
        raise AssertionError("the data was read")

    def __len__(self):
        raise AssertionError("the data was read")


def test_bad_inputs_are_refused_with_clear_errors():
    A, b = np.array([[1, 0], [0, 1]]), np.array([0, 0])
    with pytest.raises(DomainError, match="domain is required"):
        PrivateLinearFeasibility().fit(_Untouchable(), _Untouchable())  # before the data is touched
    with pytest.raises(DomainError, match=r"A\[1, 1\] = 5 lies outside the declared bound \[-2, 2\]"):
        PrivateLinearFeasibility(domain=2).fit(np.array([[1, 0], [0, 5]]), b)
    with pytest.raises(DomainError, match=r"b\[0\] = -3"):
        PrivateLinearFeasibility(domain=2).fit(A, np.array([-3, 0]))
    with pytest.raises(InvalidParameterError, match="D <= 3 only, got D = 4.*PrivateHalfspaceClassifier"):
        PrivateLinearFeasibility(domain=2).fit(np.ones((4, 4), dtype=int), np.zeros(4, dtype=int))
    with pytest.raises(DataError, match="requires b"):
        PrivateLinearFeasibility(domain=2).fit(A)
    with pytest.raises(DataError, match="2 row"):
        PrivateLinearFeasibility(domain=2).fit(A, np.array([0, 0, 0]))
    with pytest.raises(DataError, match="integers"):
        PrivateLinearFeasibility(domain=2).fit(np.array([[0.5, 0.0], [0.0, 1.0]]), b)
    with pytest.raises(DataError):
        PrivateLinearFeasibility(domain=2).fit(np.array([[np.nan, 0.0], [0.0, 1.0]]), b)
    with pytest.raises(InvalidParameterError, match="optimizer"):
        PrivateLinearFeasibility(domain=2, optimizer="rec").fit(A, b)
    with pytest.raises(InvalidParameterError, match="needs delta > 0"):
        PrivateLinearFeasibility(domain=2, optimizer="recconcave").fit(A, b)
    with pytest.raises(InvalidParameterError, match="domain must be symmetric"):
        PrivateLinearFeasibility(domain=(0, 3)).fit(A, b)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PrivateLinearFeasibility(domain=2, epsilon=0).fit(A, b)
    with pytest.raises(InvalidParameterError, match="D <= 3 only"):
        plan_find_deep_point(10, 4, 2, 1.0)
    m = MAX_CONSTRAINTS_3D + 1  # refused from the public sizes, before the data is read
    with pytest.raises(InvalidParameterError, match=f"up to m = {MAX_CONSTRAINTS_3D}.*PrivateHalfspaceClassifier"):
        plan_find_deep_point(m, 3, 2, 1.0)
    plan_find_deep_point(MAX_CONSTRAINTS_3D, 3, 2, 1.0)
    with pytest.raises(InvalidParameterError, match=f"up to m = {MAX_CONSTRAINTS_3D}"):
        PrivateLinearFeasibility(domain=2).fit(np.full((m, 3), 9), np.full(m, 9))  # sizes first, not the bound


def test_d2_refuses_more_possibly_distinct_rows_than_its_envelope_from_public_sizes():
    """The D = 2 oracle's cost grows with the square of the distinct rows: min(m, rows the bound allows)
    above MAX_DISTINCT_ROWS_2D is refused from (m, X) before any entry is read; a coarse grid whose
    rows repeat is not."""
    m = MAX_DISTINCT_ROWS_2D + 1
    assert distinct_rows_bound(32, 2) == 65**3 > m
    with pytest.raises(InvalidParameterError, match=f"up to {MAX_DISTINCT_ROWS_2D:,} distinct"):
        PrivateLinearFeasibility(domain=32).fit(np.full((m, 2), 99), np.full(m, 99))  # out of range: never read
    with pytest.raises(InvalidParameterError, match="distinct constraints"):
        plan_find_deep_point(m, 2, 32, 1.0)
    plan_find_deep_point(MAX_DISTINCT_ROWS_2D, 2, 32, 1.0)
    plan_find_deep_point(10 * m, 2, 1, 1.0)  # [-1, 1]: at most 27 distinct rows
    plan_find_deep_point(10 * m, 2, 32, 1.0, max_distinct_rows=100)  # a caller's smaller public bound
    # The halfspace learner's dual rows (y x, -y) on [-X, X] take 2 (2X + 1) values in d = 1.
    x = np.tile(np.arange(-8, 9), 150).reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PrivateFeasibilityHalfspaceClassifier(domain=8, random_state=0).fit(x, (x[:, 0] > 2).astype(int))
    with pytest.raises(InvalidParameterError, match="distinct constraints"):
        PrivateFeasibilityHalfspaceClassifier(domain=16384).fit(np.zeros((m, 1), dtype=int), np.zeros(m, dtype=int))


def test_saved_model_round_trip_and_the_command_line(tmp_path):
    assert MODELS["linear-feasibility"] is PrivateLinearFeasibility
    gen = np.random.default_rng(6)
    A, b = _feasible(gen, 60, 2, 2, (Fraction(1, 2), Fraction(0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        est = PrivateLinearFeasibility(epsilon=4.0, domain=2, random_state=0).fit(A, b)
    path = save_model(est, tmp_path / "lf.json")
    back = load_model(path)
    assert back.solution_ == est.solution_ and all(isinstance(v, Fraction) for v in back.solution_)
    assert np.array_equal(back.solution_float_, est.solution_float_)
    assert back.summary() == est.summary() and back.privacy_spent_ == est.privacy_spent_
    saved = path.read_text()
    assert "depth" not in saved and "satisf" not in saved  # no count of satisfied constraints
    csv = tmp_path / "c.csv"
    csv.write_text("a1,a2,b\n" + "".join(f"{r[0]},{r[1]},{v}\n" for r, v in zip(A, b)))
    out = tmp_path / "m.json"
    args = ["fit", "linear-feasibility", str(csv), "--label", "b", "--domain", "-2:2", "--epsilon", "4"]
    result = CliRunner().invoke(main, args + ["--seed", "0", "-o", str(out)])
    assert result.exit_code == 0, result.output
    cli = load_model(out)
    assert cli.solution_ == est.solution_ and cli.n_features_in_ == 2 and cli.n_samples_ == 60
    result = CliRunner().invoke(main, ["fit", "linear-feasibility", str(csv), "--label", "b", "--domain", "0:2"])
    assert result.exit_code != 0


def test_the_optimiser_is_optimizer_as_in_every_geometric_estimator(tmp_path):
    """One name and one spelling for FindDeepPoint's 1-D optimiser in both estimators, the CLI and saved models."""
    from privpac.estimators import PrivateFeasibilityHalfspaceClassifier

    assert "mode" not in PrivateLinearFeasibility().get_params()  # no alias
    for cls in (PrivateLinearFeasibility, PrivateFeasibilityHalfspaceClassifier):
        assert cls().get_params()["optimizer"] == "exponential"
    with pytest.raises(TypeError, match="unexpected keyword argument 'mode'"):
        PrivateLinearFeasibility(domain=1, mode="recconcave")
    A, b = [[1], [-1]] * 5, [0, -1] * 5
    csv = tmp_path / "c.csv"
    csv.write_text("a,b\n" + "".join(f"{r[0]},{v}\n" for r, v in zip(A, b)))
    out = tmp_path / "m.json"
    args = ["fit", "linear-feasibility", str(csv), "--label", "b", "--domain", "-1:1", "--delta", "1e-6", "--seed", "0"]
    result = CliRunner().invoke(main, [*args, "--set", "optimizer=recconcave", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "recconcave per coordinate" in result.output
    assert json.loads(out.read_text())["params"]["optimizer"] == "recconcave"
    assert load_model(out).optimizer == "recconcave"
    result = CliRunner().invoke(main, [*args, "--set", "mode=recconcave", "-o", str(out)])
    assert result.exit_code == 1 and "no parameter 'mode'" in result.output
    result = CliRunner().invoke(main, [*args, "--set", "one_d_optimizer=recconcave", "-o", str(out)])
    assert result.exit_code == 1 and "calls one_d_optimizer optimizer now" in result.output


# -- D = 3: the exact LP levels ------------------------------------------------------------------


def _member_near(dom, lo, hi):
    """A domain member in ``[lo, hi]`` (the end ``lo`` itself, or the member nearest the midpoint)."""
    mid = dom.select(dom.first_index((lo + hi) / 2))
    return mid if lo <= mid <= hi else lo


def _prefixes_3d(gen, X, levels, domain="a3-rational"):
    """Prefixes ``((), t=1)``, ``((v1,), t)`` and ``((v1, v2), t)`` built as FindDeepPoint builds them:
    domain members inside (or at the ends of) the previous coordinate's level intervals."""
    out = [((), 1)]
    dom1 = _domain(X, 3, 1, 1, domain)
    ints1 = levels.intervals(())
    for k in sorted({0, len(ints1) - 1, int(gen.integers(0, len(ints1)))}) if ints1 else []:
        lo, hi = ints1[k]
        for v1 in {lo, hi, _member_near(dom1, lo, hi)}:
            _, q1 = dom1.canonical_pair(v1)
            out.append(((v1,), q1))
            dom2 = _domain(X, 3, 2, q1, domain)
            ints2 = levels.intervals((v1,))
            if ints2:
                lo2, hi2 = ints2[int(gen.integers(0, len(ints2)))]
                for v2 in {lo2, hi2, _member_near(dom2, lo2, hi2)}:
                    _, q2 = dom2.canonical_pair(v2)
                    out.append(((v1, v2), q1 * q2))
    return out


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_d3_every_level_interval_end_is_a_domain_member(domain):
    gen = np.random.default_rng(31)
    checked = 0
    for _ in range(8):
        X = int(gen.integers(1, 3))
        m = int(gen.integers(1, 6))
        A, b = gen.integers(-X, X + 1, size=(m, 3)), gen.integers(-X, X + 1, size=m)
        levels = arrangement_levels_3d(A, b, box=bounding_box_radius(3, X))
        for prefix, t in _prefixes_3d(gen, X, levels, domain):
            dom = _domain(X, 3, len(prefix) + 1, t, domain)
            ints = level_intervals(levels, prefix, 3)
            for (lo, hi), (lo2, hi2) in zip(ints, ints[1:]):
                assert lo <= lo2 <= hi2 <= hi  # nested
            for lo, hi in ints:
                assert lo in dom and hi in dom, (A, b, prefix, lo, hi)
                checked += 1
            q = coordinate_quality(dom, levels, prefix, 3)
            if ints:
                assert q.max() == len(ints)
    assert checked > 100


def test_d3_the_quality_is_the_best_completion_and_claim_4_1_holds():
    gen = np.random.default_rng(32)
    for _ in range(4):
        X = 1
        m = int(gen.integers(2, 6))
        A, b = gen.integers(-X, X + 1, size=(m, 3)), gen.integers(-X, X + 1, size=m)
        R = bounding_box_radius(3, X)
        levels = arrangement_levels_3d(A, b, box=R)
        for prefix, t in _prefixes_3d(gen, X, levels):
            i = len(prefix) + 1
            dom = _domain(X, 3, i, t)
            q = coordinate_quality(dom, levels, prefix, 3)
            for _ in range(2):
                idx = int(gen.integers(0, dom.size)) if gen.random() < 0.3 else int(q.argmax())
                v = dom.select(idx)
                k = int(q(idx))
                if i < 3:  # Q_i(v) = the number of non-empty levels of the next coordinate at (prefix, v)
                    assert k == len(levels.intervals((*prefix, v)))
                else:  # Q_3 is the boxed cdepth on the slice ...
                    x = (*prefix, v)
                    assert k == levels.cdepth(x)
                    # ... which is at least the boxed depth, and Claim 4.1 bounds it from above
                    inside = all(abs(c) <= R for c in x)
                    assert k >= (depth(x, A, b) if inside else 0)
                    assert (depth(x, A, b) if inside else 0) >= 4 * k - 3 * m


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_d3_the_quality_is_quasi_concave_and_has_sensitivity_one(domain):
    gen = np.random.default_rng(33)
    for _ in range(8):
        X = 1
        m = int(gen.integers(2, 6))
        A, b = gen.integers(-X, X + 1, size=(m, 3)), gen.integers(-X, X + 1, size=m)
        A2, b2 = A.copy(), b.copy()
        j = int(gen.integers(0, m))
        A2[j], b2[j] = gen.integers(-X, X + 1, size=3), gen.integers(-X, X + 1)
        R = bounding_box_radius(3, X)
        L, L2 = arrangement_levels_3d(A, b, box=R), arrangement_levels_3d(A2, b2, box=R)
        taus = sorted({0, m - 1, *truncation_levels(m, 3, 1.0)})
        for prefix, t in _prefixes_3d(gen, X, L, domain)[:6]:
            dom = _domain(X, 3, len(prefix) + 1, t, domain)
            for tau in taus:
                f, g = coordinate_quality(dom, L, prefix, 3, tau), coordinate_quality(dom, L2, prefix, 3, tau)
                for h in (f, g):
                    vals = _values(h)
                    top = vals.index(max(vals))
                    assert vals[: top + 1] == sorted(vals[: top + 1])
                    assert vals[top:] == sorted(vals[top:], reverse=True)
                assert all(abs(int(f(p)) - int(g(p))) <= 1 for p in _points(f, g))
            f = coordinate_quality(dom, L, prefix, 3)
            _check_truncation(
                f, taus, lambda tau, dom=dom, L=L, prefix=prefix: coordinate_quality(dom, L, prefix, 3, tau)
            )


def test_depth_at_the_sufficient_size_in_three_dimensions():
    plan = plan_find_deep_point(10, 3, 1, 200.0, alpha=0.5)
    m = plan.sufficient_m
    assert 40 <= m <= MAX_CONSTRAINTS_3D
    gen = np.random.default_rng(34)
    A, b = _feasible(gen, m, 3, 1, (Fraction(1, 4), Fraction(-1, 3), Fraction(1, 4)))
    for seed in range(3):
        x = find_deep_point(A, b, 1, 200.0, alpha=0.5, rng=seed).solution
        assert len(x) == 3 and depth(x, A, b) >= 0.5 * m


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_d3_a_single_point_feasible_set_is_found_exactly(domain):
    """``2 x_j >= 1``, ``-2 x_j >= -1`` for ``j = 1, 2, 3``: the feasible set is ``(1/2, 1/2, 1/2)``."""
    rows = [[2, 0, 0], [-2, 0, 0], [0, 2, 0], [0, -2, 0], [0, 0, 2], [0, 0, -2]]
    A = np.array(rows * 5)
    b = np.array([1, -1] * 15)
    half = Fraction(1, 2)
    for seed in range(3):
        assert find_deep_point(A, b, 2, 5000.0, alpha=0.5, rng=seed, candidate_domain=domain).solution == (
            half,
            half,
            half,
        )


def test_system_levels_dispatches_on_the_dimension():
    A, b = np.array([[1, 0, 0], [0, 1, 0]]), np.array([0, 0])
    assert system_levels(A, b, bounding_box_radius(3, 1)).top == 2
    assert system_levels(A[:, :2], b, bounding_box_radius(2, 1)).top == 2
    assert len(system_levels(A[:, :1], b, bounding_box_radius(1, 1))) == 2  # D = 1: one ConvexLevel per level


# -- spec section 8: L and block maxima, the deterministic skeleton, edge cases ---------------------


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
def test_l_and_the_block_maxima_have_sensitivity_one(domain):
    """Spec 8 item 4: RecConcave's ``L(j)`` (max over windows of ``2^j`` indices of min ``Q``) and its block
    maxima move by at most 1 between neighbouring systems, truncated or not."""
    gen = np.random.default_rng(50)
    for _ in range(12):
        X, m, D = 1, int(gen.integers(2, 7)), int(gen.integers(1, 3))
        A, b, A2, b2, L, L2 = _neighbouring_levels(gen, X, m, D)
        dom = _domain(X, D, 1, 1, domain)
        for tau in (0, *truncation_levels(m, D, 1.0)[:1]):
            f, g = coordinate_quality(dom, L, (), D, tau), coordinate_quality(dom, L2, (), D, tau)
            pf, pg = f.window_min_profile(), g.window_min_profile()
            assert np.all(np.abs(pf.astype(np.int64) - pg.astype(np.int64)) <= 1)
            for width in (1, 2, 4, 8, 64):
                for offset in (0, width // 2):
                    bf, bg = f.block_max(width, offset), g.block_max(width, offset)
                    if bf is None:
                        assert bg is None
                        continue
                    assert all(abs(int(bf(p)) - int(bg(p))) <= 1 for p in _points(bf, bg))


def _oracle(adversarial):
    """A non-private stand-in for RecConcave (spec 8 items 9, 10): the first index of maximum quality, or
    the worst index RecConcave's guarantee allows (the first one with ``Q >= (1 - alpha~) r``)."""

    def run(quality, promise, alpha, *args, **kwargs):
        threshold = (1 - alpha) * promise if adversarial else quality.max()
        good = np.flatnonzero(quality.values >= threshold)
        if not good.size:  # the promise failed: nothing to be adversarial about
            return SimpleNamespace(index=int(quality.argmax()))
        worst = good[np.argmin(quality.values[good])]  # the lowest allowed piece, at its first index
        return SimpleNamespace(index=int(quality.starts[worst]))

    return run


@pytest.mark.parametrize("domain", DOMAIN_CHOICES)
@pytest.mark.parametrize("adversarial", [False, True])
@pytest.mark.parametrize("D", [1, 2, 3])
def test_the_skeleton_with_an_exact_or_adversarial_oracle_reaches_its_depth(monkeypatch, D, adversarial, domain):
    """Spec 8 items 5, 9, 10: with RecConcave replaced by the exact argmax oracle, FindDeepPoint returns a point
    of depth ``m`` on every feasible system (``max Q_1 = m``, and each ``max Q_i`` is the previous ``Q_(i-1)``);
    with the adversarial ``alpha~``-oracle the whole ``Delta = D + 1`` chain still gives ``depth >= (1 - alpha) m``.
    Lower-dimensional feasible sets included (the last system is a single point)."""
    coordinatewise = importlib.import_module("privpac.optimize.coordinatewise")
    monkeypatch.setattr(coordinatewise, "rec_concave_run", _oracle(adversarial))
    seen = []
    original = linear_feasibility_learner.coordinate_quality

    def quality(domain_, convex, prefix, D_, tau=0):
        q = original(domain_, convex, prefix, D_, tau)
        seen.append(int(q.max()))
        return q

    monkeypatch.setattr(linear_feasibility_learner, "coordinate_quality", quality)
    gen = np.random.default_rng(60 + D)
    x0 = (Fraction(1, 2), Fraction(-1, 3), Fraction(1, 4))[:D]
    systems = [_feasible(gen, int(gen.integers(3, 9 if D == 3 else 15)), D, 1, x0) for _ in range(2 if D == 3 else 4)]
    rows = [[2 if k == j else 0 for k in range(D)] for j in range(D)]
    systems.append((np.array(rows + [[-v for v in r] for r in rows]), np.array([1] * D + [-1] * D)))  # x = 1/2
    alpha = 0.5
    for A, b in systems:
        m = len(b)
        seen.clear()
        x = find_deep_point(A, b, 2, 1.0, 1e-6, alpha=alpha, optimizer="recconcave", candidate_domain=domain, rng=0)
        x = x.solution
        if adversarial:
            assert depth(x, A, b) >= (1 - alpha) * m
        else:
            assert depth(x, A, b) == m and seen[0] == m and all(s == m for s in seen)


def test_m_below_the_sufficient_size_warns_and_still_runs():
    """Spec 8 item 16: allowed, with a warning that the guarantee does not hold there (public inputs only)."""
    A, b = np.array([[1], [-1]] * 5), np.array([0, -1] * 5)
    with pytest.warns(UtilityWarning, match="guaranteed .* from about"):
        est = PrivateLinearFeasibility(epsilon=1.0, domain=1, random_state=0).fit(A, b)
    assert len(est.solution_) == 1


@pytest.mark.parametrize("D", [1, 2])
def test_degenerate_systems_run(D):
    """Spec 8 item 17: all constraints identical; every ``a_l = 0`` (feasible when every ``b_l <= 0``, and not);
    the output is a point of the box, and identical feasible constraints are satisfied."""
    R = bounding_box_radius(D, 2)
    same_A, same_b = np.array([[1] * D] * 40), np.array([1] * 40)
    x = find_deep_point(same_A, same_b, 2, 50.0, rng=0).solution
    assert depth(x, same_A, same_b) == 40
    for b0 in (-1, 1):
        zero_A, zero_b = np.zeros((20, D), dtype=np.int64), np.full(20, b0)
        x = find_deep_point(zero_A, zero_b, 2, 50.0, rng=0).solution
        assert all(abs(v) <= R for v in x) and depth(x, zero_A, zero_b) == (20 if b0 <= 0 else 0)


def test_theadvanced_split_above_its_epsilon_is_refused():
    """Spec 8 item 20 and section 4: the paper's advanced split covers small epsilon only; privpac refuses a split
    whose Dwork-Rothblum-Vadhan total exceeds the budget (basic composition, the auto choice for D <= 3, holds for
    every epsilon)."""
    with pytest.raises(InvalidParameterError, match="use composition='basic'"):
        plan_find_deep_point(100, 2, 2, 60.0, 1e-6, composition="advanced")
    assert plan_find_deep_point(100, 2, 2, 60.0, 1e-6).composition == "basic"
    with pytest.raises(InvalidParameterError, match="needs delta > 0"):
        plan_find_deep_point(100, 2, 2, 1.0, 0.0, composition="advanced")


@pytest.mark.parametrize("adversarial", [False, True])
@pytest.mark.parametrize("d", [1, 2])
def test_the_margin_1_learner_with_either_oracle_has_error_at_most_alpha(monkeypatch, d, adversarial):
    """Spec 8 item 11: LearnHalfSpace (margin-1 dual, no general position) on realisable data, with RecConcave
    replaced by the exact or the adversarial oracle: training error ``<= alpha`` (0 with the exact one)."""
    from privpac.learners.feasibility_halfspaces import learn_halfspace

    coordinatewise = importlib.import_module("privpac.optimize.coordinatewise")
    monkeypatch.setattr(coordinatewise, "rec_concave_run", _oracle(adversarial))
    gen = np.random.default_rng(70 + d)
    alpha = 0.5
    n = 12 if d == 2 else 30
    samples = [gen.integers(-2, 3, size=(n, d)) for _ in range(2)]
    samples.append(np.repeat(gen.integers(-2, 3, size=(n, 1)), d, axis=1))  # all on one line (spec 8 item 17)
    samples.append(np.ones((n, d), dtype=np.int64))  # all points identical
    for X in samples:
        y = np.where(X @ np.arange(1, d + 1) >= 1, 1, -1)  # realisable
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UtilityWarning)
            h = learn_halfspace(X, (y + 1) // 2, 2, 1.0, 1e-6, optimizer="recconcave", alpha=alpha, rng=0)
        predicted = np.array([1 if sum(Fraction(int(v)) * c for v, c in zip(row, h.a)) >= h.w else -1 for row in X])
        error = float(np.mean(predicted != y))
        assert error <= alpha and (adversarial or error == 0)


def _in_general_position(X) -> bool:
    """No ``d + 1`` of the points on one hyperplane (their lifted rows ``(y x, -y)`` are then independent)."""
    d = X.shape[1]
    for idx in itertools.combinations(range(len(X)), d + 1):
        M = [[Fraction(int(v)) for v in X[i]] + [Fraction(1)] for i in idx]
        if _det(M) == 0:
            return False
    return True


def _det(M):
    """Exact determinant by fraction elimination (tiny matrices)."""
    M = [row[:] for row in M]
    n, det = len(M), Fraction(1)
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return Fraction(0)
        if p != c:
            M[c], M[p], det = M[p], M[c], -det
        det *= M[c][c]
        for r in range(c + 1, n):
            f = M[r][c] / M[c][c]
            M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    return det


@pytest.mark.parametrize("adversarial", [False, True])
def test_the_paper_dual_with_either_oracle_meets_its_bound_unless_degenerate(monkeypatch, adversarial):
    """Spec 8 item 11, paper mode: on realisable data in general position, with RecConcave replaced by the exact
    or the adversarial oracle, the training error is ``<= alpha/2 + d/m`` unless the output is ``a* = 0``
    (spec 3.5 [FLAW], reported as ``degenerate``), which is a constant hypothesis with no such bound."""
    from privpac.learners.feasibility_halfspaces import learn_halfspace

    coordinatewise = importlib.import_module("privpac.optimize.coordinatewise")
    monkeypatch.setattr(coordinatewise, "rec_concave_run", _oracle(adversarial))
    gen = np.random.default_rng(82)
    alpha, d, n = 0.5, 2, 12
    outcomes = []
    for trial in range(3):
        X = gen.integers(-4, 5, size=(n, d))
        while not _in_general_position(X):
            X = gen.integers(-4, 5, size=(n, d))
        y = np.where(X @ np.arange(1, d + 1) >= 1, 1, -1)  # realisable
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UtilityWarning)
            h = learn_halfspace(
                X, (y + 1) // 2, 4, 1.0, 1e-6, dual="paper", optimizer="recconcave", alpha=alpha, rng=trial
            )
        predicted = np.array([1 if sum(Fraction(int(v)) * c for v, c in zip(row, h.a)) >= h.w else -1 for row in X])
        error = float(np.mean(predicted != y))
        assert h.degenerate == all(c == 0 for c in h.a)
        assert h.degenerate or error <= alpha / 2 + d / n, (trial, error)
        outcomes.append(h.degenerate)
    assert not all(outcomes) and any(outcomes)  # both cases met: the bound is exercised, the flaw is shown


def test_the_estimator_exposes_mode_c_domains_and_truncation():
    """candidate_domain= and truncate= reach FindDeepPoint unchanged: the estimator's solution is the function's
    with the same seed; bad values are refused before the budget is reserved."""
    A = np.array([[1, 1], [1, -1], [-1, 2], [2, 1], [1, 0]] * 4)
    b = np.array([1, -1, 0, 1, 0] * 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        for params in (
            {"candidate_domain": "mode-c"},
            {"optimizer": "recconcave", "delta": 1e-6, "truncate": False},
        ):
            est = PrivateLinearFeasibility(domain=2, random_state=3, **params).fit(A, b)
            kwargs = {k: v for k, v in params.items() if k != "delta"}  # the same names as the function's
            ref = find_deep_point(A, b, 2, 1.0, params.get("delta", 0.0), rng=3, **kwargs)
            assert est.solution_ == ref.solution
            assert all(est.get_params()[k] == v for k, v in params.items())
    refusals = (
        ({"candidate_domain": "dyadic"}, "candidate_domain"),
        ({"truncate": 1}, "truncate"),
        ({"truncate": True}, "recconcave"),
    )
    for bad, match in refusals:
        with pytest.raises(InvalidParameterError, match=match):
            PrivateLinearFeasibility(domain=2, **bad).fit(A, b)
