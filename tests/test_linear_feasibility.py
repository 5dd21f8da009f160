"""FindDeepPoint (Kaplan, Mansour, Stemmer, Tsfadia 2020, Fig. 2) and ``PrivateLinearFeasibility``.

* property (P): every end of a level interval of ``Q_i`` is a member of the public candidate domain,
  on random systems and prefixes, and on the spec's counterexample to Lemma 4.3;
* the quality is the boxed convexified depth's best completion (cross-checked with ``cdepth`` and
  the level polygons), quasi-concave, and of sensitivity 1 between neighbouring systems;
* utility at the sufficient size (seeded runs), the single-point feasible set, the ERM dual's
  degenerate origin and the margin-1 fix (spec 3.5, 3.7 item 1);
* bad inputs, the ledger, determinism, row order, the saved model and the command line.
"""

import json
import warnings
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from privpac.cli import main
from privpac.errors import DataError, DomainError, InvalidParameterError, UtilityWarning
from privpac.estimators import MODELS, PrivateLinearFeasibility
from privpac.geometry.feasibility import (
    arrangement_levels_3d,
    bounding_box_radius,
    cdepth,
    convex_levels,
    convex_superlevel_set,
    depth,
)
from privpac.io import load_model, save_model
from privpac.learners.linear_feasibility import (
    MAX_CONSTRAINTS_3D,
    _domain,
    coordinate_quality,
    denominator_bounds,
    find_deep_point,
    level_intervals,
    plan_find_deep_point,
    system_levels,
)

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


def _random_prefix(gen, X):
    dom = _domain(X, 2, 1, 1)
    v = dom.select(int(gen.integers(0, dom.size)))
    _, q = dom.canonical_pair(v)
    return v, q


# -- property (P) and the quality ----------------------------------------------------------------


@pytest.mark.parametrize("D", [1, 2])
def test_every_level_interval_end_is_a_domain_member(D):
    gen = np.random.default_rng(10 + D)
    for _ in range(40):
        X = int(gen.integers(1, 4))
        m = int(gen.integers(1, 9))
        A, b = gen.integers(-X, X + 1, size=(m, D)), gen.integers(-X, X + 1, size=m)
        levels = convex_levels(A, b, box=bounding_box_radius(D, X))
        prefixes = [((), 1)]
        if D == 2:
            for _ in range(3):
                v, q = _random_prefix(gen, X)
                prefixes.append(((v,), q))
            # and the abscissae of the level polygons' vertices, where the slices are the thinnest
            for level in levels:
                for p in level.polygon[:2]:
                    prefixes.append(((p[0],), _domain(X, 2, 1, 1).canonical_pair(p[0])[1]))
        for prefix, t in prefixes:
            dom = _domain(X, D, len(prefix) + 1, t)
            ints = level_intervals(levels, prefix, D)
            for lo, hi in ints:
                assert lo in dom and hi in dom, (A, b, prefix, lo, hi)
            q = coordinate_quality(dom, levels, prefix, D)
            if ints:  # the argmax set holds a member: the domain attains max Q (Requirement 3.6)
                assert q.max() == len(ints)


def test_the_counterexample_to_lemma_4_3_is_handled_exactly():
    X = 3
    levels = convex_levels(CE_A, CE_b, box=bounding_box_radius(2, X))
    prefix = (Fraction(-6, 5),)
    ints = level_intervals(levels, prefix, 2)
    assert len(ints) == 6 and ints[-1] == (Fraction(3, 10), Fraction(209, 140))
    # the lines meet x_1 = -6/5 only outside the argmax: the paper's breakpoint list misses it
    crossings = {(w - a1 * prefix[0]) / a2 for (a1, a2), w in zip(CE_A, CE_b) if a2 != 0}
    assert not any(Fraction(3, 10) <= c <= Fraction(209, 140) for c in crossings)
    dom = _domain(X, 2, 2, 5)  # -6/5 has denominator 5
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
        levels = convex_levels(A, b, box=R)
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


@pytest.mark.parametrize("D", [1, 2])
def test_the_quality_is_quasi_concave_and_has_sensitivity_one(D):
    gen = np.random.default_rng(20 + D)
    for _ in range(30):
        X = int(gen.integers(1, 3))
        m = int(gen.integers(1, 7))
        A, b = gen.integers(-X, X + 1, size=(m, D)), gen.integers(-X, X + 1, size=m)
        A2, b2 = A.copy(), b.copy()
        j = int(gen.integers(0, m))
        A2[j], b2[j] = gen.integers(-X, X + 1, size=D), gen.integers(-X, X + 1)
        R = bounding_box_radius(D, X)
        L, L2 = convex_levels(A, b, box=R), convex_levels(A2, b2, box=R)
        prefixes = [((), 1)] + ([((v,), t) for v, t in [_random_prefix(gen, X) for _ in range(2)]] if D == 2 else [])
        for prefix, t in prefixes:
            dom = _domain(X, D, len(prefix) + 1, t)
            f, g = coordinate_quality(dom, L, prefix, D), coordinate_quality(dom, L2, prefix, D)
            for h in (f, g):  # unimodal over the index order
                vals = _values(h)
                top = vals.index(max(vals))
                assert vals[: top + 1] == sorted(vals[: top + 1]) and vals[top:] == sorted(vals[top:], reverse=True)
            points = {int(s) for s in f.starts} | {int(s) for s in g.starts}
            points |= {p - 1 for p in points if p > 0}
            assert all(abs(int(f(p)) - int(g(p))) <= 1 for p in points)


# -- utility ------------------------------------------------------------------------------------


def test_depth_at_the_sufficient_size_in_one_dimension():
    plan = plan_find_deep_point(10, 1, 2, 1.0, alpha=0.2)
    m = plan.sufficient_m
    gen = np.random.default_rng(0)
    A, b = _feasible(gen, m, 1, 2, (Fraction(1, 2),))
    A[A == 0] = 1
    for seed in range(20):
        x = find_deep_point(A, b, 2, 1.0, alpha=0.2, rng=seed).solution
        assert depth(x, A, b) >= 0.8 * m


def test_depth_at_the_sufficient_size_in_two_dimensions():
    plan = plan_find_deep_point(10, 2, 2, 20.0, alpha=0.5)
    m = plan.sufficient_m
    gen = np.random.default_rng(1)
    A, b = _feasible(gen, m, 2, 2, (Fraction(1, 3), Fraction(-1, 2)))
    for seed in range(10):
        x = find_deep_point(A, b, 2, 20.0, alpha=0.5, rng=seed).solution
        assert depth(x, A, b) >= 0.5 * m


def test_recconcave_mode_runs_and_reaches_its_promise_in_one_dimension():
    plan = plan_find_deep_point(10, 1, 2, 1.0, 1e-6, alpha=0.2, one_d_optimizer="recconcave")
    m = plan.sufficient_m
    gen = np.random.default_rng(2)
    A, b = _feasible(gen, m, 1, 2, (Fraction(-1, 2),))
    for seed in range(10):
        x = find_deep_point(A, b, 2, 1.0, 1e-6, alpha=0.2, one_d_optimizer="recconcave", rng=seed).solution
        assert depth(x, A, b) >= 0.8 * m
    # D = 2 runs too (no utility claim at this size)
    A2, b2 = _feasible(gen, 30, 2, 1, (Fraction(0), Fraction(0)))
    (x1, x2) = find_deep_point(A2, b2, 1, 1.0, 1e-6, one_d_optimizer="recconcave", rng=0).solution
    assert abs(x1) <= 2 and abs(x2) <= 2


def test_a_single_point_feasible_set_is_found_exactly():
    """``2x >= 1`` and ``-2x >= -1``: the feasible set is the point 1/2 (spec section 8, item 17).

    A dyadic or integer grid misses it; the public domain holds it (property (P)), so the output is
    exactly 1/2 with high probability."""
    m = plan_find_deep_point(10, 1, 2, 1.0, alpha=0.2).sufficient_m
    A = np.array([[2], [-2]] * (m // 2 + 1))
    b = np.array([1, -1] * (m // 2 + 1))
    hits = sum(find_deep_point(A, b, 2, 1.0, alpha=0.2, rng=s).solution == (Fraction(1, 2),) for s in range(20))
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
        est = PrivateLinearFeasibility(epsilon=20.0, bound=2, random_state=0).fit(A[:200], b[:200])
    assert depth(est.solution_, A[200:], b[200:]) >= 0.8 * 100


# -- the plan, the ledger, bad inputs -----------------------------------------------------------


def test_the_plan_is_public_and_uses_m_as_the_promise():
    plan = plan_find_deep_point(500, 2, 3, 1.0, 1e-6, alpha=0.1, one_d_optimizer="recconcave")
    assert plan.composition == "basic" and plan.epsilon0 == 0.5 and plan.delta0 == 5e-7
    assert plan.alpha0 == pytest.approx(0.1 / 12) and plan.beta0 == 0.05
    assert plan.promises == (500.0, 500.0 * (1 - 0.1 / 12))  # M = m, never a computed maximum
    assert plan.denominator_bounds == denominator_bounds(3, 2) == (18, 16 * 3**6)
    assert plan_find_deep_point(500, 2, 3, 1.0).delta0 == 0.0  # the exponential mechanism is pure


def test_the_ledger_records_one_block_and_nothing_from_the_data():
    gen = np.random.default_rng(4)
    A, b = _feasible(gen, 40, 2, 2, (Fraction(0), Fraction(1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        e1 = PrivateLinearFeasibility(bound=2, random_state=0).fit(A, b)
        e2 = PrivateLinearFeasibility(bound=2, random_state=1).fit(np.zeros_like(A), np.zeros_like(b))
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
    with pytest.raises(DomainError, match="bound is required"):
        PrivateLinearFeasibility().fit(_Untouchable(), _Untouchable())  # before the data is touched
    with pytest.raises(DomainError, match=r"A\[1, 1\] = 5 lies outside the declared bound \[-2, 2\]"):
        PrivateLinearFeasibility(bound=2).fit(np.array([[1, 0], [0, 5]]), b)
    with pytest.raises(DomainError, match=r"b\[0\] = -3"):
        PrivateLinearFeasibility(bound=2).fit(A, np.array([-3, 0]))
    with pytest.raises(InvalidParameterError, match="D <= 3 only, got D = 4.*PrivateHalfspaceClassifier"):
        PrivateLinearFeasibility(bound=2).fit(np.ones((4, 4), dtype=int), np.zeros(4, dtype=int))
    with pytest.raises(DataError, match="requires b"):
        PrivateLinearFeasibility(bound=2).fit(A)
    with pytest.raises(DataError, match="2 row"):
        PrivateLinearFeasibility(bound=2).fit(A, np.array([0, 0, 0]))
    with pytest.raises(DataError, match="integers"):
        PrivateLinearFeasibility(bound=2).fit(np.array([[0.5, 0.0], [0.0, 1.0]]), b)
    with pytest.raises(DataError):
        PrivateLinearFeasibility(bound=2).fit(np.array([[np.nan, 0.0], [0.0, 1.0]]), b)
    with pytest.raises(InvalidParameterError, match="one_d_optimizer"):
        PrivateLinearFeasibility(bound=2, one_d_optimizer="rec").fit(A, b)
    with pytest.raises(InvalidParameterError, match="needs delta > 0"):
        PrivateLinearFeasibility(bound=2, one_d_optimizer="recconcave").fit(A, b)
    with pytest.raises(InvalidParameterError, match="bound"):
        PrivateLinearFeasibility(bound=(0, 3)).fit(A, b)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PrivateLinearFeasibility(bound=2, epsilon=0).fit(A, b)
    with pytest.raises(InvalidParameterError, match="D <= 3 only"):
        plan_find_deep_point(10, 4, 2, 1.0)
    m = MAX_CONSTRAINTS_3D + 1  # refused from the public sizes, before the data is read
    with pytest.raises(InvalidParameterError, match=f"up to m = {MAX_CONSTRAINTS_3D}.*PrivateHalfspaceClassifier"):
        plan_find_deep_point(m, 3, 2, 1.0)
    plan_find_deep_point(MAX_CONSTRAINTS_3D, 3, 2, 1.0)
    with pytest.raises(InvalidParameterError, match=f"up to m = {MAX_CONSTRAINTS_3D}"):
        PrivateLinearFeasibility(bound=2).fit(np.full((m, 3), 9), np.full(m, 9))  # sizes first, not the bound


def test_saved_model_round_trip_and_the_command_line(tmp_path):
    assert MODELS["linear-feasibility"] is PrivateLinearFeasibility
    gen = np.random.default_rng(6)
    A, b = _feasible(gen, 60, 2, 2, (Fraction(1, 2), Fraction(0)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        est = PrivateLinearFeasibility(epsilon=4.0, bound=2, random_state=0).fit(A, b)
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


def test_the_optimiser_is_one_d_optimizer_as_in_the_classifier(tmp_path):
    """One name and one spelling for FindDeepPoint's 1-D optimiser in both estimators, the CLI and saved models."""
    from privpac.estimators import PrivateFeasibilityHalfspaceClassifier

    assert "mode" not in PrivateLinearFeasibility().get_params()  # pre-1.0: no alias
    for cls in (PrivateLinearFeasibility, PrivateFeasibilityHalfspaceClassifier):
        assert cls().get_params()["one_d_optimizer"] == "expmech"
    with pytest.raises(TypeError):
        PrivateLinearFeasibility(bound=1, mode="recconcave")
    A, b = [[1], [-1]] * 5, [0, -1] * 5
    csv = tmp_path / "c.csv"
    csv.write_text("a,b\n" + "".join(f"{r[0]},{v}\n" for r, v in zip(A, b)))
    out = tmp_path / "m.json"
    args = ["fit", "linear-feasibility", str(csv), "--label", "b", "--domain", "-1:1", "--delta", "1e-6", "--seed", "0"]
    result = CliRunner().invoke(main, [*args, "--set", "one_d_optimizer=recconcave", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "recconcave per coordinate" in result.output
    assert json.loads(out.read_text())["params"]["one_d_optimizer"] == "recconcave"
    assert load_model(out).one_d_optimizer == "recconcave"
    result = CliRunner().invoke(main, [*args, "--set", "mode=recconcave", "-o", str(out)])
    assert result.exit_code == 1 and "no parameter 'mode'" in result.output


# -- D = 3: the exact LP levels ------------------------------------------------------------------


def _member_near(dom, lo, hi):
    """A domain member in ``[lo, hi]`` (the end ``lo`` itself, or the member nearest the midpoint)."""
    mid = dom.select(dom.first_index((lo + hi) / 2))
    return mid if lo <= mid <= hi else lo


def _prefixes_3d(gen, X, levels):
    """Prefixes ``((), t=1)``, ``((v1,), t)`` and ``((v1, v2), t)`` built as FindDeepPoint builds them:
    domain members inside (or at the ends of) the previous coordinate's level intervals."""
    out = [((), 1)]
    dom1 = _domain(X, 3, 1, 1)
    ints1 = levels.intervals(())
    for k in sorted({0, len(ints1) - 1, int(gen.integers(0, len(ints1)))}) if ints1 else []:
        lo, hi = ints1[k]
        for v1 in {lo, hi, _member_near(dom1, lo, hi)}:
            _, q1 = dom1.canonical_pair(v1)
            out.append(((v1,), q1))
            dom2 = _domain(X, 3, 2, q1)
            ints2 = levels.intervals((v1,))
            if ints2:
                lo2, hi2 = ints2[int(gen.integers(0, len(ints2)))]
                for v2 in {lo2, hi2, _member_near(dom2, lo2, hi2)}:
                    _, q2 = dom2.canonical_pair(v2)
                    out.append(((v1, v2), q1 * q2))
    return out


def test_d3_every_level_interval_end_is_a_domain_member():
    gen = np.random.default_rng(31)
    checked = 0
    for _ in range(8):
        X = int(gen.integers(1, 3))
        m = int(gen.integers(1, 6))
        A, b = gen.integers(-X, X + 1, size=(m, 3)), gen.integers(-X, X + 1, size=m)
        levels = arrangement_levels_3d(A, b, box=bounding_box_radius(3, X))
        for prefix, t in _prefixes_3d(gen, X, levels):
            dom = _domain(X, 3, len(prefix) + 1, t)
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


def test_d3_the_quality_is_quasi_concave_and_has_sensitivity_one():
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
        for prefix, t in _prefixes_3d(gen, X, L)[:6]:
            dom = _domain(X, 3, len(prefix) + 1, t)
            f, g = coordinate_quality(dom, L, prefix, 3), coordinate_quality(dom, L2, prefix, 3)
            for h in (f, g):
                vals = _values(h)
                top = vals.index(max(vals))
                assert vals[: top + 1] == sorted(vals[: top + 1]) and vals[top:] == sorted(vals[top:], reverse=True)
            points = {int(s) for s in f.starts} | {int(s) for s in g.starts}
            points |= {p - 1 for p in points if p > 0}
            assert all(abs(int(f(p)) - int(g(p))) <= 1 for p in points)


def test_depth_at_the_sufficient_size_in_three_dimensions():
    plan = plan_find_deep_point(10, 3, 1, 200.0, alpha=0.5)
    m = plan.sufficient_m
    assert 40 <= m <= MAX_CONSTRAINTS_3D
    gen = np.random.default_rng(34)
    A, b = _feasible(gen, m, 3, 1, (Fraction(1, 4), Fraction(-1, 3), Fraction(1, 4)))
    for seed in range(3):
        x = find_deep_point(A, b, 1, 200.0, alpha=0.5, rng=seed).solution
        assert len(x) == 3 and depth(x, A, b) >= 0.5 * m


def test_d3_a_single_point_feasible_set_is_found_exactly():
    """``2 x_j >= 1``, ``-2 x_j >= -1`` for ``j = 1, 2, 3``: the feasible set is ``(1/2, 1/2, 1/2)``."""
    rows = [[2, 0, 0], [-2, 0, 0], [0, 2, 0], [0, -2, 0], [0, 0, 2], [0, 0, -2]]
    A = np.array(rows * 5)
    b = np.array([1, -1] * 15)
    half = Fraction(1, 2)
    for seed in range(3):
        assert find_deep_point(A, b, 2, 5000.0, alpha=0.5, rng=seed).solution == (half, half, half)


def test_system_levels_dispatches_on_the_dimension():
    A, b = np.array([[1, 0, 0], [0, 1, 0]]), np.array([0, 0])
    assert system_levels(A, b, bounding_box_radius(3, 1)).top == 2
    assert len(system_levels(A[:, :2], b, bounding_box_radius(2, 1))) == 2
