"""LearnHalfSpace (Beimel, Moran, Nissim, Stemmer, COLT 2019, Fig. 2, Thm 4.2) and its estimator.

Spec ``bmns-center-points`` section 9, learner items: the per-chunk consistent halfspace (item 10:
exact consistency, determinism, the public bound, the default on non-realisable chunks), the
duality lemma for the released point (item 9), utility on realisable data at the sufficient size
(generous epsilon), non-realisable input, one class, a vertical boundary, too few records for one
chunk (item 20), property (P) of the directional domains, and the generic learner B2.
"""

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest

from privpac.errors import DataError, DomainError, InvalidParameterError, UtilityWarning
from privpac.estimators import PrivateTukeyHalfspaceClassifier
from privpac.geometry import depth_intervals, directional_depth, interval_quality
from privpac.learners.center_point import FIND_TUKEY_DIMENSIONS
from privpac.learners.halfspace_tukey import (
    chunk_halfspaces,
    consistent_halfspace,
    generic_halfspace_learner,
    grid_halfspace_class,
    halfspace_predict,
    hypothesis_bound,
    learn_halfspace,
    learner_directional_domain,
    learner_directions,
    plan_learn_halfspace,
)


def _consistent(h, x, y) -> bool:
    a, w = np.asarray(h[:-1], dtype=object), h[-1]
    margin = np.asarray(x, dtype=object) @ a - w
    return bool(np.all(np.where(np.asarray(y) == 1, margin >= 0, margin < 0)))


def _realisable_1d(x, y) -> bool:
    x, y = np.asarray(x)[:, 0], np.asarray(y)
    pos, neg = x[y == 1], x[y == 0]
    if pos.size == 0 or neg.size == 0:
        return True
    return bool(neg.max() < pos.min() or pos.max() < neg.min())


# -- the consistent halfspace of one chunk ----------------------------------------------------------


def test_d1_chunk_halfspaces_are_consistent_bounded_and_default_exactly_when_not_realisable():
    gen = np.random.default_rng(0)
    B = 3
    M = hypothesis_bound(1, B)
    for _ in range(300):
        k = int(gen.integers(1, 7))
        x = gen.integers(-B, B + 1, size=(k, 1))
        y = gen.integers(0, 2, size=k)
        h = consistent_halfspace(x, y, B)
        assert max(abs(v) for v in h) <= M
        if _realisable_1d(x, y):
            assert _consistent(h, x, y), (x.tolist(), y.tolist(), h)
        else:
            assert h == (0, 1)  # the fixed default


def test_chunks_are_by_position_and_each_point_depends_on_its_chunk_only():
    gen = np.random.default_rng(1)
    x = gen.integers(-4, 5, size=(23, 1))
    y = (x[:, 0] >= 1).astype(int)
    H = chunk_halfspaces(x, y, 5, 4)  # k = 4, three records dropped
    assert H.shape == (5, 2)
    for j in range(5):
        assert tuple(H[j]) == consistent_halfspace(x[4 * j : 4 * j + 4], y[4 * j : 4 * j + 4], 4)
    # deterministic, and changing one record changes at most its own chunk's point
    assert np.array_equal(H, chunk_halfspaces(x, y, 5, 4))
    x2 = x.copy()
    x2[6, 0] = -x2[6, 0] - 1 if abs(x2[6, 0]) < 4 else 0
    y2 = y.copy()
    y2[6] = 1 - y2[6]
    H2 = chunk_halfspaces(x2, y2, 5, 4)
    assert [j for j in range(5) if not np.array_equal(H[j], H2[j])] in ([], [1])
    # the tail is ignored
    x3 = x.copy()
    x3[-1, 0] = -x3[-1, 0]
    assert np.array_equal(H, chunk_halfspaces(x3, y, 5, 4))


def test_d2_lp_halfspace_is_exactly_consistent_or_the_default():
    gen = np.random.default_rng(2)
    B = 3
    M = hypothesis_bound(2, B)
    seen_default = seen_fit = 0
    for trial in range(60):
        x = gen.integers(-B, B + 1, size=(8, 2))
        if trial % 3 == 0:
            y = gen.integers(0, 2, size=8)  # mostly not realisable
        else:
            a = gen.integers(-3, 4, size=2)
            y = (x @ a >= int(gen.integers(-2, 3))).astype(int)
        h = consistent_halfspace(x, y, B)
        assert len(h) == 3 and max(abs(v) for v in h) <= M
        assert h == consistent_halfspace(x, y, B)  # deterministic
        if _consistent(h, x, y):
            seen_fit += 1
        else:
            assert h == (0, 0, 1)
            seen_default += 1
        if trial % 3 != 0:
            assert _consistent(h, x, y), (x.tolist(), y.tolist(), h)  # realisable: always found
    assert seen_fit > 30 and seen_default > 0


def test_one_class_chunks_get_the_constant_classifiers():
    x = np.array([[-2], [0], [3]])
    assert consistent_halfspace(x, [1, 1, 1], 3) == (0, 0)  # 0 >= 0: all 1
    assert consistent_halfspace(x, [0, 0, 0], 3) == (0, 1)  # 0 >= 1: all 0
    x2 = np.array([[1, 2], [-1, 0]])
    assert consistent_halfspace(x2, [1, 1], 2) == (0, 0, 0)
    assert consistent_halfspace(x2, [0, 0], 2) == (0, 0, 1)


# -- the duality lemma (spec section 9 item 9) --------------------------------------------------------


def test_a_deep_point_errs_only_where_that_many_chunk_points_err():
    """If ``h*`` has ``depth_U >= r`` among the ``h_j`` (``U = {(x, -1)}``), every ``x`` it errs on is
    erred on by at least ``r`` of the ``h_j`` (Thm 4.2's argument, for both labels)."""
    gen = np.random.default_rng(3)
    B = 2
    U = learner_directions(1, B)
    grid = np.arange(-B, B + 1)[:, None]
    for _ in range(40):
        H0 = gen.integers(-3, 4, size=(7, 2))
        h = (Fraction(int(gen.integers(-6, 7)), 2), Fraction(int(gen.integers(-6, 7)), 2))
        r = directional_depth(h, H0, U)
        pred = halfspace_predict(h[:1], h[1], grid)
        chunk_preds = np.stack([halfspace_predict((int(a),), int(w), grid) for a, w in H0])
        for label in (0, 1):
            errs = chunk_preds != label
            for j in range(len(grid)):
                if pred[j] != label:
                    assert errs[:, j].sum() >= r


# -- property (P) of the directional domains -----------------------------------------------------------


def test_directional_domains_hold_every_interval_end():
    gen = np.random.default_rng(4)
    for B in (1, 2, 3):
        M = hypothesis_bound(1, B)
        U = learner_directions(1, B)
        for _ in range(15):
            H0 = gen.integers(-M, M + 1, size=(int(gen.integers(1, 9)), 2))
            D1 = learner_directional_domain(M, B, 2, 1)
            for lo, hi in depth_intervals(H0, (), directions=U):
                for v in (lo, hi):
                    assert v is not None and D1.select(D1.rank(v)) == v
            v1 = D1.select(int(gen.integers(0, D1.size)))
            _, q = D1.canonical_pair(v1)
            D2 = learner_directional_domain(M, B, 2, 2, q)
            for lo, hi in depth_intervals(H0, (v1,), directions=U):
                for v in (lo, hi):
                    assert D2.select(D2.rank(v)) == v


def test_directional_domains_hold_every_interval_end_in_higher_dimensions():
    """d = 3 (FindTukey in dimension 4 over U = {(x, -1)}): every level-interval end of every
    coordinate is a member of the learner's directional domain, along an argmax prefix."""
    gen = np.random.default_rng(5)
    checked = 0
    for _ in range(4):
        B, d = 1, 3
        M, D = hypothesis_bound(d, B), d + 1
        U = learner_directions(d, B)
        H0 = gen.integers(-M, M + 1, size=(int(gen.integers(2, 7)), D))
        prefix, t = (), 1
        for i in range(1, D + 1):
            dom = learner_directional_domain(M, B, D, i, t)
            ints = depth_intervals(H0, prefix, directions=U)
            for lo, hi in ints:
                for v in (lo, hi):
                    assert v is not None and dom.select(dom.rank(v)) == v, (H0.tolist(), prefix, v)
                    checked += 1
            v = dom.select(int(interval_quality(dom, ints).argmax()))
            _, q = dom.canonical_pair(v)
            prefix, t = (*prefix, v), t * q
    assert checked > 20


def test_directional_learner_runs_in_three_dimensions_and_tukey_depth_is_refused():
    X = np.random.default_rng(6).integers(-1, 2, size=(60, 3))
    y = (X @ np.array([1, 1, -1]) >= 0).astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PrivateTukeyHalfspaceClassifier(epsilon=1.0, domain=1, depth="directional", random_state=2).fit(X, y)
    assert len(est.coef_exact_) == 3 and est.predict(X).shape == (60,)
    with pytest.raises(InvalidParameterError, match="depth='directional'"):
        PrivateTukeyHalfspaceClassifier(epsilon=1.0, domain=1).fit(X, y)


# -- the learner --------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", ["tukey", "directional"])
def test_realisable_data_gives_test_error_below_alpha_at_the_sufficient_size(depth):
    """Generous epsilon: at epsilon = 200 the sufficient size of Thm 4.2 is reachable."""
    B, alpha = 2, 0.1
    plan = plan_learn_halfspace(10**6, 1, B, 200.0, alpha=alpha, depth=depth)
    s = plan.sufficient_s
    assert s <= 500_000
    gen = np.random.default_rng(5)
    grid = np.arange(-B, B + 1)[:, None]
    fails = 0
    for trial in range(5):
        x = gen.integers(-B, B + 1, size=(s, 1))
        y = (x[:, 0] <= 0).astype(int)  # x <= 0: the downward orientation
        res = learn_halfspace(x, y, B, 200.0, alpha=alpha, depth=depth, rng=trial)
        assert res.plan.n_chunks == plan.sufficient_chunks
        err = np.mean(res.predict(grid) != (grid[:, 0] <= 0))  # uniform test distribution: exact error
        fails += err > alpha
    assert fails <= 1


def test_estimator_learns_a_threshold_at_epsilon_one():
    gen = np.random.default_rng(6)
    X = gen.integers(-8, 9, size=(5000, 1))
    y = np.where(X[:, 0] >= 3, "pos", "neg")
    for depth in ("tukey", "directional"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UtilityWarning)
            est = PrivateTukeyHalfspaceClassifier(domain=8, depth=depth, labels=("neg", "pos"), random_state=0)
            est.fit(X, y)
        grid = np.arange(-8, 9)[:, None]
        assert np.mean(est.predict(grid) == np.where(grid[:, 0] >= 3, "pos", "neg")) >= 0.9
        assert isinstance(est.coef_exact_[0], Fraction) and isinstance(est.intercept_exact_, Fraction)
        assert est.coef_[0] == float(est.coef_exact_[0]) and est.intercept_ == float(est.intercept_exact_)
        assert np.all((est.decision_function(grid) >= 0) == (est.predict(grid) == "pos"))


def test_non_realisable_input_runs_and_one_class_learns_the_constant():
    gen = np.random.default_rng(7)
    X = gen.integers(-3, 4, size=(400, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        est = PrivateTukeyHalfspaceClassifier(domain=3, random_state=0).fit(X, gen.integers(0, 2, size=400))
        assert est.predict(X).shape == (400,)
        est = PrivateTukeyHalfspaceClassifier(domain=3, epsilon=5.0, random_state=0).fit(X, np.ones(400, dtype=int))
    assert np.all(est.predict(np.arange(-3, 4)[:, None]) == 1)


def test_a_vertical_boundary_in_parameter_space():
    """All chunks agree on one threshold: the chunk points coincide (a degenerate, zero-width
    point set); the deep point is that threshold."""
    x = np.tile(np.arange(-4, 5), 60)[:, None]
    y = (x[:, 0] >= 0).astype(int)
    for depth in ("tukey", "directional"):
        res = learn_halfspace(x, y, 4, 4.0, depth=depth, n_chunks=60, rng=0)
        assert np.array_equal(res.predict(np.arange(-4, 5)[:, None]), (np.arange(-4, 5) >= 0).astype(int))


def test_too_few_records_for_the_chunks_is_refused_from_public_sizes():
    with pytest.raises(DataError, match="at least one record per chunk"):
        learn_halfspace(np.zeros((3, 1), dtype=int), [0, 1, 0], 2, 1.0, n_chunks=4)
    est = PrivateTukeyHalfspaceClassifier(domain=2, random_state=0)
    with pytest.warns(UtilityWarning, match="guaranteed \\(by the analysis\\) from about"):
        est.fit(np.zeros((10, 1), dtype=int), np.zeros(10, dtype=int))


def test_bad_inputs_are_refused():
    with pytest.raises(DomainError):
        PrivateTukeyHalfspaceClassifier(domain=2).fit([[3]], [1])
    with pytest.raises(InvalidParameterError):
        PrivateTukeyHalfspaceClassifier(domain=2, depth="random").fit([[1]], [1])
    with pytest.raises(InvalidParameterError):
        PrivateTukeyHalfspaceClassifier(domain=2, optimizer="recconcave").fit([[1]], [1])
    with pytest.raises(DataError):
        PrivateTukeyHalfspaceClassifier(domain=2).fit([[1], [2]], [1, 2])
    with pytest.raises(DataError, match="integers"):
        PrivateTukeyHalfspaceClassifier(domain=2).fit([[0.5]], [1])


@pytest.mark.skipif(3 in FIND_TUKEY_DIMENSIONS, reason="FindTukey runs in dimension 3: d = 2 is supported")
def test_d2_is_refused_until_findtukey_runs_in_dimension_three():
    with pytest.raises(InvalidParameterError, match="dimension d \\+ 1 = 3"):
        learn_halfspace(np.zeros((10, 2), dtype=int), np.zeros(10, dtype=int), 2, 1.0)


def test_directional_mode_refuses_large_grids_from_public_sizes():
    with pytest.raises(DataError, match="DIRECTION_LIMIT"):
        plan_learn_halfspace(10**8, 1, 10**6, 1.0, depth="directional", n_chunks=10**3)


def test_same_seed_same_output_and_recconcave_mode_runs():
    gen = np.random.default_rng(8)
    x = gen.integers(-3, 4, size=(300, 1))
    y = (x[:, 0] >= 0).astype(int)
    a = learn_halfspace(x, y, 3, 1.0, rng=11)
    b = learn_halfspace(x, y, 3, 1.0, rng=11)
    assert (a.a, a.w) == (b.a, b.w)
    c = learn_halfspace(x, y, 3, 1.0, 1e-6, optimizer="recconcave", depth="directional", rng=1)
    assert len(c.a) == 1


def test_a_public_permutation_changes_nothing_in_the_plan():
    gen = np.random.default_rng(9)
    x = gen.integers(-3, 4, size=(300, 1))
    y = (x[:, 0] >= 0).astype(int)
    res = learn_halfspace(x, y, 3, 2.0, permute=True, n_chunks=30, rng=3)
    assert res.plan.n_chunks == 30 and res.plan.chunk_size == 10


# -- B2 -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d, B", [(1, 2), (2, 1), (2, 2)])
def test_the_generic_class_holds_every_halfspace_labelling_once(d, B):
    H, L = grid_halfspace_class(d, B)
    assert len({tuple(r) for r in L}) == len(L)
    axis = np.arange(-B, B + 1)
    pts = np.stack(np.meshgrid(*([axis] * d), indexing="ij"), axis=-1).reshape(-1, d)
    for h, lab in zip(H, L, strict=True):
        assert np.array_equal((pts @ h[:d] >= h[d]).astype(int), lab)
    # a brute force over small integer vectors finds no labelling outside the class
    seen = {tuple(r) for r in L}
    for v in itertools.product(range(-3, 4), repeat=d + 1):
        lab = tuple((pts @ np.asarray(v[:d]) >= v[d]).astype(int))
        assert lab in seen


def test_generic_learner_learns_and_refuses_large_grids():
    gen = np.random.default_rng(10)
    X = gen.integers(-2, 3, size=(400, 2))
    y = (X[:, 0] - X[:, 1] >= 1).astype(int)
    a, w = generic_halfspace_learner(X, y, 2, 2.0, rng=0)
    assert np.mean(halfspace_predict(a, w, X) == y) >= 0.9
    with pytest.raises(DataError, match="GENERIC_LIMIT"):
        grid_halfspace_class(2, 30)


# -- the command line ---------------------------------------------------------------------------------


def test_cli_fit_predict_show_and_registration(tmp_path):
    from click.testing import CliRunner

    from privpac.cli import main
    from privpac.estimators import MODELS

    assert MODELS["halfspace-tukey"] is PrivateTukeyHalfspaceClassifier
    gen = np.random.default_rng(11)
    x = gen.integers(-8, 9, size=3000)
    data = tmp_path / "d.csv"
    data.write_text("x,y\n" + "".join(f"{a},{1 if a >= 3 else -1}\n" for a in x))
    model = tmp_path / "m.json"
    runner = CliRunner()
    fit = ["fit", "halfspace-tukey", str(data), "--label", "y", "--domain", "-8:8", "--seed", "1"]
    result = runner.invoke(main, [*fit, "--set", "labels=[-1, 1]", "--set", "depth=directional", "-o", str(model)])
    assert result.exit_code == 0, result.output
    assert "LearnHalfSpace" in result.output
    result = runner.invoke(main, ["predict", str(model), str(data)])
    assert result.exit_code == 0, result.output
    predicted = np.asarray([int(v) for v in result.output.split()[1:]])
    assert np.mean(predicted == np.where(x >= 3, 1, -1)) >= 0.9
    result = runner.invoke(main, ["show", str(model), "--plot", str(data)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "m.png").exists()
    result = runner.invoke(main, [*fit, "-o", str(tmp_path / "bad.json")])  # labels -1/1 outside (0, 1)
    assert result.exit_code != 0


def test_the_bounds_calculator_reports_what_the_estimator_warns_about():
    from privpac.bounds.bmns import learn_halfspace_sizes

    got = learn_halfspace_sizes(1.0, 1e-6, 0.1, 0.1, 17, 1)
    for depth in ("tukey", "directional"):
        plan = plan_learn_halfspace(10, 1, 8, 1.0, 1e-6, depth=depth, n_chunks=1)
        assert got[f"as privpac runs it: {depth} depth, s = m k"] == plan.sufficient_s
        est = PrivateTukeyHalfspaceClassifier(epsilon=1.0, delta=1e-6, domain=8, depth=depth, random_state=0)
        with pytest.warns(UtilityWarning, match=f"{plan.sufficient_s:,}"):
            est.fit(np.zeros((100, 1), dtype=int), np.zeros(100, dtype=int))


@pytest.mark.parametrize("params", [{"alpha": 0.0}, {"alpha": 1.0}, {"beta": 0.0}, {"beta": 1.5}, {"epsilon": -1.0}])
def test_accuracy_and_confidence_outside_the_unit_interval_are_refused_before_the_data(params):
    # Spec section 9 item 20 for the learner: alpha, beta in (0, 1), checked before the (bad) records.
    with pytest.raises(InvalidParameterError, match=next(iter(params))):
        PrivateTukeyHalfspaceClassifier(domain=2, **params).fit([[0.5]], [1])


def test_the_d2_learning_curve_page_states_the_plan_s_sufficient_size():
    """docs/algorithms/halfspace-tukey.md sets the measured d = 2 curve beside the analysis: the numbers it
    quotes are the plan's, and the chunks FindTukey runs on that box are the envelope's."""
    from pathlib import Path

    from privpac.learners.center_point import MAX_POINTS_3D

    page = (Path(__file__).resolve().parents[3] / "docs" / "algorithms" / "halfspace-tukey.md").read_text()
    plan = plan_learn_halfspace(10**5, 2, 5, 1.0)
    quoted = f"{plan.sufficient_chunks:,} chunks of {plan.sufficient_chunk_size:,} records, s = {plan.sufficient_s:,}"
    assert quoted in page
    assert plan.n_chunks == MAX_POINTS_3D and f"{round(plan.sufficient_chunks / plan.n_chunks)} times" in page
