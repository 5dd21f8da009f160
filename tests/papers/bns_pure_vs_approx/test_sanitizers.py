import math
import warnings

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.accounting import PrivacyLedger
from privpac.audit import exact_check, run_audit
from privpac.audit.cases_sanitizers import san_points_key_distribution
from privpac.domains import Grid, IntegerDomain
from privpac.errors import DataError, InvalidParameterError, PreconditionError, UnsafeConfigurationWarning
from privpac.mechanisms.laplace import discrete_laplace_pmf
from privpac.mechanisms.lazy_laplace import LazyLaplaceVector
from privpac.sanitizers.baselines import LaplaceHistogram, TreeCDF, dense_histogram_sanitizer
from privpac.sanitizers.database import CountedData, SanitizedDatabase, fixed_output_size
from privpac.sanitizers.points import k_point_sanitizer, san_points, san_points_plan
from privpac.sanitizers.queries import answer_query, parse_query

# Parameters at which the precondition is ~1e4 records (large alpha keeps tests fast).
SMALL = dict(alpha=0.5, beta=0.1, epsilon=1.0, delta=1e-3)


# -- sanitized databases --------------------------------------------------------------------------


def test_database_queries_and_roundtrip():
    db = SanitizedDatabase(np.array([2, 5, 9]), np.array([1.0, 2.0, 1.0]), 4.0, 10)
    assert db.below(0) == 0 and db.below(3) == 0.25 and db.below(10) == 1.0
    assert db.range(3, 9) == 0.75 and db.range(6, 8) == 0 and db.range(5, 4) == 0
    assert db.point(5) == 0.5 and db.point(4) == 0 and db.point_set([2, 9, 9]) == 0.5
    assert np.allclose(db.below_many(np.array([0, 3, 6, 10])), [0, 0.25, 0.75, 1])
    assert np.allclose(db.point_many(np.array([2, 3, 9])), [0.25, 0, 0.25])
    again = SanitizedDatabase.from_dict(db.to_dict())
    assert again.below(6) == db.below(6) and again.proper and again.guarantee == db.guarantee


def test_database_on_a_huge_domain():
    size = 2**64
    db = SanitizedDatabase.from_weights({0: 1.0, 2**63: 3.0, size - 1: -2.0}, size)
    assert db.points.size == 2 and db.total == 4.0  # negative weight clipped and dropped
    assert db.below(2**63) == 0.25 and db.below(size) == 1.0
    assert SanitizedDatabase.from_dict(db.to_dict()).below(2**63 + 1) == 1.0
    s = db.sample(50, rng=1)
    assert set(int(v) for v in s) <= {0, 2**63}


def test_database_bad_inputs():
    with pytest.raises(InvalidParameterError):
        SanitizedDatabase(np.array([1, 1]), np.array([1.0, 1.0]), 2.0, 5)
    with pytest.raises(InvalidParameterError):
        SanitizedDatabase(np.array([1]), np.array([-1.0]), 1.0, 5)
    with pytest.raises(InvalidParameterError):
        SanitizedDatabase(np.array([7]), np.array([1.0]), 1.0, 5)
    with pytest.raises(InvalidParameterError):
        SanitizedDatabase(np.array([1]), np.array([1.0]), 1.0, 5).below(6)
    with pytest.raises(DataError):
        SanitizedDatabase(np.array([], dtype=np.int64), np.array([]), 0.0, 5).sample(3)
    with pytest.raises(DataError):
        CountedData.from_indices(np.array([], dtype=np.int64), 4)
    with pytest.raises(DataError):
        CountedData.from_indices(np.array([5]), 4)


def test_every_sanitizer_refuses_counts_built_for_another_domain_size():
    from privpac.sanitizers.pure import blr_sanitizer

    counted = CountedData.from_indices(np.array([0, 1, 1, 3]), 4)
    assert CountedData.of(counted, 4) is counted
    again = CountedData.of(np.array([0, 1, 1, 3]), 4)
    assert again.values.tolist() == [0, 1, 3] and again.counts.tolist() == [1, 2, 1] and again.size == 4
    for release in (
        lambda: san_points(counted, alpha=0.5, beta=0.5, epsilon=1.0, delta=1e-6, domain_size=8),
        lambda: dense_histogram_sanitizer(counted, epsilon=1.0, domain_size=8),
        lambda: LaplaceHistogram(counted, epsilon=1.0, domain_size=8),
        lambda: TreeCDF(counted, epsilon=1.0, domain_size=8),
        lambda: blr_sanitizer(counted, epsilon=1.0, domain_size=8, output_size=2),
    ):
        with pytest.raises(DataError, match="another domain size"):
            release()


def test_improper_completion_keeps_point_answers_within_alpha():
    db = SanitizedDatabase.from_weights({3: 60.0, 7: 20.0}, 100, total=100.0, proper=False, info={"alpha": 0.1})
    pts, probs = db.distribution()
    assert math.isclose(probs.sum(), 1.0)
    released = dict(zip(pts.tolist(), probs.tolist()))
    assert released[3] == 0.6 and released[7] == 0.2
    fillers = [p for x, p in released.items() if x not in (3, 7)]
    assert len(fillers) == 10 and max(fillers) <= 0.1 + 1e-12
    s = db.sample(2000, rng=0)
    assert abs(np.mean(s == 3) - 0.6) < 0.05
    assert fixed_output_size(0.1, 0.1, 1) == math.ceil(5000 * math.log(200))


# -- SanPoints ------------------------------------------------------------------------------------


def test_san_points_paper_constants_match_the_spec():
    plan = san_points_plan(0.1, 0.1, 1.0, 1e-6, "paper")
    assert plan.iterations == 20
    assert math.isclose(plan.epsilon_each, 1.0 / math.sqrt(320 * math.log(5e6)), rel_tol=1e-12)
    assert math.isclose(plan.delta_each, 2e-8, rel_tol=1e-12)
    assert 758_000 < plan.min_size < 759_000  # spec 6.1: 758,535
    tuned = san_points_plan(0.1, 0.1, 1.0, 1e-6, "tuned")
    assert tuned.min_size < plan.min_size / 1.9
    assert san_points_plan(0.3, 0.1, 1.0, 1e-6, "paper").iterations == 7  # ceil(2/0.3), erratum E6


def test_san_points_precondition_is_enforced():
    plan = san_points_plan(**SMALL)
    m = math.ceil(plan.min_size)
    with pytest.raises(PreconditionError, match="choosing-mechanism"):
        san_points(np.zeros(m - 1, dtype=np.int64), domain_size=8, rng=0, **SMALL)
    out = san_points(np.zeros(m, dtype=np.int64), domain_size=8, rng=0, **SMALL)
    assert out.point(0) > 0.9
    with pytest.warns(UnsafeConfigurationWarning, match="NO privacy"):
        unsafe = san_points(np.zeros(10, dtype=np.int64), domain_size=8, rng=0, unsafe_skip_precondition=True, **SMALL)
    assert unsafe.info["unsafe"]


def test_the_mechanism_precondition_is_checked_inside_too(monkeypatch):
    """If SanPoints' own check were bypassed, the choosing mechanism would still refuse."""
    import privpac.sanitizers.points as points

    real = points._plan.__wrapped__
    monkeypatch.setattr(points, "_plan", lambda *a: real(*a).__class__(**{**real(*a).__dict__, "min_size": 0.0}))
    with pytest.raises(PreconditionError, match="choosing mechanism"):
        points.san_points(np.zeros(50, dtype=np.int64), domain_size=8, rng=0, **SMALL)


def test_san_points_utility_and_structure():
    plan = san_points_plan(**SMALL)
    m = math.ceil(plan.min_size) + 1000
    rng = np.random.default_rng(3)
    x = np.concatenate([np.full(m // 2, 2**40), np.full(m // 4, 17), rng.integers(0, 2**48, m - m // 2 - m // 4)])
    ledger = PrivacyLedger(1.0, 1e-3)
    out = san_points(x, domain_size=2**48, ledger=ledger, rng=5, **SMALL)
    assert abs(out.point(2**40) - 0.5) <= 0.05 and abs(out.point(17) - 0.25) <= 0.05
    assert set(int(v) for v in out.points) <= set(int(v) for v in np.unique(x))
    assert out.points.size <= plan.iterations
    assert out.point(123456789) == 0.0
    eps, delta = ledger.spent
    assert eps <= 1.0 + 1e-9 and delta <= 1e-3 + 1e-15
    # all-distinct points: every frequency is below alpha, so the estimate is 0 everywhere w.h.p.
    distinct = san_points(np.arange(m), domain_size=2**20, rng=6, **SMALL)
    assert distinct.points.size == 0


def test_k_point_sanitizer_sums_point_estimates():
    params = dict(SMALL, alpha=0.9)
    plan = san_points_plan(0.45, 0.1, 1.0, 1e-3)
    m = math.ceil(plan.min_size)
    x = np.concatenate([np.full(m // 2, 3), np.full(m - m // 2, 11)])
    out = k_point_sanitizer(x, k=2, domain_size=16, rng=2, **params)
    assert out.guarantee == "k-point" and out.info["alpha"] == 0.45
    assert math.isclose(out.point_set([3, 11]), out.point(3) + out.point(11))
    assert abs(out.point_set([3, 11]) - 1.0) <= 0.9


def test_san_points_exact_privacy_on_released_points():
    a, b, e, d = SMALL["alpha"], SMALL["beta"], SMALL["epsilon"], SMALL["delta"]
    m = math.ceil(san_points_plan(a, b, e, d).min_size)
    for S, T in [({0: m - 1, 1: 1}, {0: m}), ({0: m // 2, 1: m - m // 2}, {0: m // 2 + 1, 1: m - m // 2 - 1})]:
        P = san_points_key_distribution(S, a, b, e, d)
        Q = san_points_key_distribution(T, a, b, e, d)
        assert math.isclose(sum(P.values()), 1.0) and exact_check(P, Q, e, d).passed


def test_san_points_below_precondition_leaks_exactly():
    """Erratum E18: below the precondition the same computation is far from (eps, delta)-DP."""
    a, b, e, d = SMALL["alpha"], SMALL["beta"], SMALL["epsilon"], SMALL["delta"]
    P = san_points_key_distribution({0: 7, 1: 1}, a, b, e, d)
    Q = san_points_key_distribution({0: 8}, a, b, e, d)
    assert exact_check(P, Q, e, d).worst_delta > 100 * d


def test_san_points_bad_inputs():
    with pytest.raises(InvalidParameterError, match="alpha"):
        san_points([1, 2], alpha=1.5, beta=0.1, epsilon=1.0, delta=1e-6, domain_size=4)
    with pytest.raises(InvalidParameterError, match="delta"):
        san_points([1, 2], alpha=0.1, beta=0.1, epsilon=1.0, delta=0.0, domain_size=4)
    with pytest.raises(InvalidParameterError, match="constants"):
        san_points([1, 2], alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6, domain_size=4, constants="x")
    with pytest.raises(DataError):
        san_points([], alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6, domain_size=4)
    with pytest.raises(InvalidParameterError, match="k"):
        k_point_sanitizer([1], k=0, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-6, domain_size=4)


def test_san_points_audits():
    assert not run_audit("san-points", trials=300).violation
    assert run_audit("san-points-below-precondition", trials=300).violation


# -- pure-DP baselines ----------------------------------------------------------------------------


def test_lazy_laplace_vector_is_memoised_and_laplace_distributed():
    ledger = PrivacyLedger(1.0)
    vec = LazyLaplaceVector(lambda keys: np.zeros(len(keys), dtype=np.int64), 1, 0.5, ledger=ledger, rng=4)
    first = vec.values(list(range(3000)))
    assert np.array_equal(vec.values(list(range(3000))), first) and vec.n_drawn == 3000
    assert ledger.spent == (0.5, 0.0) and len(ledger.entries) == 1
    support = np.arange(-12, 13)
    observed = [np.sum(first == z) for z in support]
    assert (
        chi_square_pvalue(observed, discrete_laplace_pmf(support, 2.0) / discrete_laplace_pmf(support, 2.0).sum())
        > 1e-3
    )


def test_tree_cdf_decomposition_is_exact_without_noise_and_huge_domains_are_cheap():
    x = np.array([0, 3, 3, 5, 12, 15])
    tree = TreeCDF(x, epsilon=1e9, domain_size=16, rng=0)
    truth = [np.mean(x < j) for j in range(17)]
    assert np.allclose(tree.below_many(range(17)), truth, atol=1e-6)
    assert tree.levels == 5 and math.isclose(tree.range(3, 5), 0.5, abs_tol=1e-6)
    big = TreeCDF(np.array([2**63, 5]), epsilon=1.0, domain_size=2**64, rng=1)
    big.below_many([0, 2**63, 2**64, 12345])
    assert big.levels == 65 and big._vector.n_drawn <= 4 * 65
    hist = LaplaceHistogram(np.array([2**63, 2**63, 7]), epsilon=1.0, domain_size=2**64, rng=2)
    a = hist.point(2**63)
    assert hist.point(2**63) == a and hist.noise_scale == 2.0


def test_dense_histogram_sanitizer():
    db = dense_histogram_sanitizer(np.array([1, 1, 2]), epsilon=1e9, domain_size=4, rng=0)
    assert db.proper and math.isclose(db.below(2), 2 / 3)
    with pytest.raises(InvalidParameterError, match="max_size"):
        dense_histogram_sanitizer(np.array([1]), epsilon=1.0, domain_size=2**30)


# -- queries --------------------------------------------------------------------------------------


def test_query_parsing_and_answers():
    db = SanitizedDatabase(np.array([0, 5, 10]), np.array([1.0, 1.0, 2.0]), 4.0, 11)
    dom = IntegerDomain(100, 110)  # index i is value 100 + i
    assert answer_query(db, dom, "x<=105") == 0.5
    assert answer_query(db, dom, "x < 105") == 0.25
    assert answer_query(db, dom, "x>=105") == 0.75 and answer_query(db, dom, "x>105") == 0.5
    assert answer_query(db, dom, "101<=x<=110") == 0.75 and answer_query(db, dom, "105<x<110") == 0
    assert answer_query(db, dom, "x==110") == 0.5 and answer_query(db, dom, "105=x") == 0.25
    assert answer_query(db, dom, "x in {100, 110, 3}") == 0.75
    assert answer_query(db, dom, "x<=2**10") == 1.0 and answer_query(db, dom, "x<=99") == 0
    grid = Grid(0.0, 1.0, 11)
    assert answer_query(db, grid, "x<=0.5") == 0.5 and answer_query(db, grid, "x<0.5") == 0.25
    assert parse_query("x>=3").lo == 3
    for bad in ["", "y<3", "x<=", "3<x", "x in {}"]:
        if bad == "3<x":
            assert parse_query(bad).lo == 3  # reversed comparisons are fine
            continue
        with pytest.raises(InvalidParameterError):
            parse_query(bad)


def test_unsafe_warning_is_raised_once(recwarn):
    warnings.simplefilter("always")
    san_points(np.zeros(10, dtype=np.int64), domain_size=8, rng=0, unsafe_skip_precondition=True, **SMALL)
    assert sum(issubclass(w.category, UnsafeConfigurationWarning) for w in recwarn.list) == 1


# -- pure-DP generic sanitizer (Thm 2.19) ---------------------------------------------------------


def test_blr_sanitizer_exact_privacy_and_accuracy():
    from privpac.sanitizers.pure import blr_distribution, blr_sanitizer

    x = np.array([0, 1, 1, 2, 5, 5, 5, 7])
    for concept in ("thresholds", "points"):
        P = blr_distribution(x, epsilon=1.0, domain_size=8, output_size=4, concept=concept)
        assert math.isclose(sum(P.values()), 1.0)
        for i in range(x.size):
            for v in range(8):
                y = x.copy()
                y[i] = v
                Q = blr_distribution(y, epsilon=1.0, domain_size=8, output_size=4, concept=concept)
                assert exact_check(P, Q, 1.0, 0.0).passed
        y = x.copy()
        y[0] = 7
        Q = blr_distribution(y, epsilon=1.0, domain_size=8, output_size=4, concept=concept)
        assert not exact_check(P, Q, 0.05, 0.0).passed  # the check can fail
    big = np.repeat(np.arange(8), [50, 0, 100, 0, 0, 200, 0, 50])
    db = blr_sanitizer(big, epsilon=2.0, domain_size=8, output_size=8, rng=3)
    truth = [np.mean(big < j) for j in range(9)]
    assert max(abs(db.below(j) - truth[j]) for j in range(9)) <= 0.2 and db.total == 8
    with pytest.raises(InvalidParameterError, match="max_candidates"):
        blr_sanitizer(big, epsilon=1.0, domain_size=8, output_size=30)
