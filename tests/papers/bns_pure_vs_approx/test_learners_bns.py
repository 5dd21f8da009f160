import math
import warnings

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.accounting import PrivacyLedger
from privpac.audit import exact_check
from privpac.audit.enumeration import exact_law
from privpac.bounds.bns import learn_thresholds_library, point_learner_sizes
from privpac.errors import DataError, DomainError, InvalidParameterError, PaperLiteralWarning, UtilityWarning
from privpac.learners import (
    PointHypothesis,
    ThresholdHypothesis,
    em_learn_points,
    em_learn_thresholds,
    em_learner,
    learn_point,
    learn_thresholds,
    point_learner_distribution,
    point_quality,
    threshold_quality,
)
from privpac.learners.exponential import em_point_quality
from privpac.random import SeededRandom

# -- qualities --------------------------------------------------------------------------------------


def _brute_threshold(x, y, size):
    return np.array([sum(int((xi < j) == yi) for xi, yi in zip(x, y)) for j in range(size + 1)])


def _brute_point_em(x, y, size):
    return np.array([sum(int((xi == j) == yi) for xi, yi in zip(x, y)) for j in range(size)])


def test_qualities_match_brute_force():
    gen = np.random.default_rng(0)
    for _ in range(50):
        size = int(gen.integers(1, 30))
        m = int(gen.integers(0, 20))
        x = gen.integers(0, size, size=m)
        y = gen.integers(0, 2, size=m)
        assert np.array_equal(threshold_quality(x, y, size).to_dense(), _brute_threshold(x, y, size))
        assert np.array_equal(em_point_quality(x, y, size).to_dense(), _brute_point_em(x, y, size))
        pos = np.bincount(x[y == 1], minlength=size)
        assert np.array_equal(point_quality(x, y, size).to_dense(), pos)
    assert ThresholdHypothesis(3).predict([0, 2, 3, 9]).tolist() == [1, 1, 0, 0]
    assert PointHypothesis(2).predict([2, 3]).tolist() == [1, 0]
    assert PointHypothesis(None).predict([2, 3]).tolist() == [0, 0]


# -- point learner ----------------------------------------------------------------------------------


def test_point_learner_utility_at_the_library_size():
    alpha, beta, eps, delta = 0.1, 0.1, 1.0, 1e-6
    m = math.ceil(point_learner_sizes(alpha, beta, eps, delta)["library (discrete corrected A_dist)"])
    size = 2**64
    target = 123456789123456789
    gen = np.random.default_rng(1)
    fails = 0
    for t in range(100):
        # D puts mass 0.2 on the target and spreads the rest.
        is_target = gen.random(m) < 0.2
        x = np.where(is_target, target, gen.integers(0, 2**62, size=m)).astype(object)
        y = is_target.astype(int)
        h, _ = learn_point(x, y, size, eps, delta, rng=t)
        fails += h.point != target
    assert fails <= 2


def test_point_learner_all_negative_is_uniform_and_zero_option():
    x, y = [3, 3, 5], [0, 0, 0]
    dist = point_learner_distribution(x, y, 16, 1.0, 1e-3)
    assert max(dist.values()) <= 1 / 16 + 1e-3
    h, released = learn_point(x, y, 16, 1.0, 1e-3, on_bottom="zero", rng=0)
    assert h.point is None and not released
    # A stack of positives at one point is released.
    h, released = learn_point([7] * 300, [1] * 300, 2**64, 1.0, 1e-6, rng=0)
    assert h.point == 7 and released


def test_point_learner_exact_privacy_and_literal_failure(no_literal_warnings):
    pairs = [
        (([3] * 15 + [5], [1] * 16), ([3] * 16, [1] * 16)),
        (([3] * 5 + [5] * 4, [1] * 9), ([3] * 4 + [5] * 5, [1] * 9)),
        (([3, 5], [0, 0]), ([3, 5], [1, 0])),
    ]
    for (xa, ya), (xb, yb) in pairs:
        for on_bottom in ("random", "zero"):
            P = point_learner_distribution(xa, ya, 16, 1.0, 1e-3, on_bottom=on_bottom)
            Q = point_learner_distribution(xb, yb, 16, 1.0, 1e-3, on_bottom=on_bottom)
            assert exact_check(P, Q, 1.0, 1e-3).passed
    (xa, ya), (xb, yb) = ([3] * 7 + [5], [1] * 8), ([3] * 8, [1] * 8)  # gap 6 vs 8 at the literal threshold
    P = point_learner_distribution(xa, ya, 16, 1.0, 1e-3, on_bottom="zero", variant="paper-literal")
    Q = point_learner_distribution(xb, yb, 16, 1.0, 1e-3, on_bottom="zero", variant="paper-literal")
    assert not exact_check(P, Q, 1.0, 1e-3).passed


def test_point_learner_bad_inputs_and_warnings():
    with pytest.raises(DataError, match="empty"):
        learn_point([], [], 16, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="delta"):
        learn_point([1], [1], 16, 1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="on_bottom"):
        learn_point([1], [1], 16, 1.0, 1e-6, on_bottom="none")
    with pytest.raises(DomainError):
        learn_point([16], [1], 16, 1.0, 1e-6)
    with pytest.raises(DataError, match="labels"):
        learn_point([1], [2], 16, 1.0, 1e-6)
    with pytest.warns(UtilityWarning, match="1/\\(alpha beta\\)"):
        learn_point([1], [1], 2, 1.0, 1e-6, alpha=0.1, beta=0.1, rng=0)
    with pytest.warns(PaperLiteralWarning):
        learn_point([1], [1], 16, 1.0, 1e-6, variant="paper-literal", rng=0)
    ledger = PrivacyLedger(1.0, 1e-6)
    learn_point([1, 1], [1, 1], 16, 1.0, 1e-6, ledger=ledger, rng=0)
    assert ledger.spent == (1.0, 1e-6)


# -- LearnThresholds --------------------------------------------------------------------------------


def _realizable(gen, m, size, target, kind):
    if kind == "uniform":
        x = gen.integers(0, size, size=m)
    elif kind == "near":
        x = np.clip(target + gen.integers(-50, 50, size=m), 0, size - 1)
    else:  # all mass on one point
        x = np.full(m, max(target - 1, 0))
    return x, (x < target).astype(int)


def _true_error(kind, size, target, k):
    if kind == "uniform":
        return abs(k - target) / size
    if kind == "near":
        lo, hi = max(target - 50, 0), min(target + 49, size - 1)
        inside = max(0, min(max(k, target), hi + 1) - max(min(k, target), lo))
        return inside / (hi - lo + 1)
    point = max(target - 1, 0)
    return float((point < k) != (point < target))


@pytest.mark.parametrize("kind", ["uniform", "near", "point"])
def test_learn_thresholds_utility_tuned(kind):
    # Tuned constants at 2^32 run the exponential mechanism (depth 1); m at the library's tight
    # size plus the DKW generalization term, alpha = beta = 0.1.
    size, alpha, beta, eps, delta = 2**32, 0.1, 0.1, 1.0, 1e-6
    m = max(math.ceil(learn_thresholds_library(size, alpha, beta, eps, delta, None)), 2952)
    gen = np.random.default_rng(2)
    fails = 0
    for t in range(20):
        target = int(gen.integers(1, size))
        x, y = _realizable(gen, m, size, target, kind)
        res = learn_thresholds(x, y, size, alpha, beta, eps, delta, rng=t)
        fails += _true_error(kind, size, target, res.threshold) > alpha
    assert fails <= 1


def test_learn_thresholds_recursion_utility():
    # N = 2 forced on 2^16 at the library's tight promise for that depth.
    size, alpha, beta, eps, delta = 2**16, 0.2, 0.1, 1.0, 1e-6
    m = math.ceil(learn_thresholds_library(size, alpha, beta, eps, delta, 2))
    gen = np.random.default_rng(3)
    fails = 0
    for t in range(20):
        target = int(gen.integers(1, size))
        x, y = _realizable(gen, m, size, target, "uniform")
        res = learn_thresholds(x, y, size, alpha, beta, eps, delta, N=2, rng=t)
        assert res.depth == 2
        q = threshold_quality(x, y, size)
        fails += q(res.threshold) < (1 - alpha / 2) * m
    assert fails <= 1


def test_learn_thresholds_degenerate_and_edges():
    size = 2**64
    res = learn_thresholds([5, 6, 7] * 200, [0] * 600, size, 0.1, 0.1, 1.0, 1e-6, rng=0)
    assert res.threshold <= 5  # all labels 0: any k <= min x is consistent
    res = learn_thresholds([5, 6, 7] * 200, [1] * 600, size, 0.1, 0.1, 1.0, 1e-6, rng=0)
    assert res.threshold > 7
    res = learn_thresholds([size - 1] * 600, [1] * 600, size, 0.1, 0.1, 1.0, 1e-6, rng=0)
    assert res.threshold == size  # the all-ones hypothesis c_{2^d}
    res = learn_thresholds([0] * 200, [1] * 200, 1, 0.1, 0.1, 1.0, 1e-6, rng=0)  # d = 0: two thresholds
    assert res.threshold == 1  # c_1 labels the one point 1: 200 correct against 0
    res = learn_thresholds([0] * 200, [0] * 200, 1, 0.1, 0.1, 1.0, 1e-6, rng=0)
    assert res.threshold == 0
    paper = learn_thresholds([1, 2, 3], [1, 0, 0], 2**64, 0.1, 0.1, 1.0, 1e-6, constants="paper", rng=0)
    assert paper.plan.N == 5 and paper.depth == 3
    with pytest.raises(DataError, match="empty"):
        learn_thresholds([], [], 16, 0.1, 0.1, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="alpha"):
        learn_thresholds([1], [1], 16, 0.0, 0.1, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="delta"):
        learn_thresholds([1], [1], 2**64, 0.1, 0.1, 1.0, 0.0, N=2)


def test_learn_thresholds_draws_its_enumerated_law():
    x = [3, 9, 17, 30, 41, 50, 55, 60]
    y = [1, 1, 1, 1, 0, 0, 0, 0]
    kw = dict(N=3, base_case_max=2)
    law = exact_law(lambda src: learn_thresholds(x, y, 64, 0.5, 0.1, 8.0, 1e-2, rng=src, **kw).threshold)
    P = np.array([law.probabilities.get(j, 0.0) for j in range(65)])
    assert P.sum() == pytest.approx(1.0, abs=1e-9)
    src = SeededRandom(4)
    real = [learn_thresholds(x, y, 64, 0.5, 0.1, 8.0, 1e-2, rng=src, **kw).threshold for _ in range(1200)]
    assert chi_square_pvalue(np.bincount(real, minlength=65), P) > 1e-3


# -- exponential-mechanism learner ------------------------------------------------------------------


def test_em_learners():
    x = np.arange(0, 1000)
    y = (x < 300).astype(int)
    h = em_learn_thresholds(x, y, 2**64, 1.0, rng=0)
    assert abs(h.threshold - 300) <= 20
    h = em_learn_points([7] * 200 + [9] * 10, [1] * 200 + [0] * 10, 2**64, 1.0, rng=0)
    assert h.point == 7
    P = [[0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1]]
    counts = np.bincount([em_learner(P, [1, 1, 0, 0], 5.0, rng=s) for s in range(200)], minlength=3)
    assert counts[1] > 150
    ledger = PrivacyLedger(1.0)
    em_learn_thresholds([1], [1], 16, 1.0, ledger=ledger, rng=0)
    assert ledger.spent == (1.0, 0.0)
    with pytest.raises(DataError):
        em_learner([[0, 1]], [1], 1.0)
    with pytest.raises(DataError):
        em_learner([[0, 2]], [1, 0], 1.0)
    with pytest.raises(DataError, match="empty"):
        em_learn_thresholds([], [], 16, 1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        em_learn_points([1], [1], 16, -1.0)


def test_no_warning_by_default():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        learn_point([1, 1], [1, 1], 2**32, 1.0, 1e-6, alpha=0.1, beta=0.1, rng=0)


def test_qualities_on_wide_domains_and_uint64_edges():
    size = 2**64
    x = np.array([0, 5, 5, 2**64 - 1, 2**63, 7], dtype=np.uint64)
    y = np.array([1, 1, 0, 0, 1, 0])
    q = threshold_quality(x, y, size)
    xs = [int(v) for v in x]
    for j in (0, 1, 5, 6, 7, 8, 2**63, 2**63 + 1, 2**64 - 1, 2**64):
        assert q(j) == sum(int((xi < j) == yi) for xi, yi in zip(xs, y)), j
    p = point_quality(x, y, size)
    e = em_point_quality(x, y, size)
    for j in (0, 1, 4, 5, 6, 7, 2**63, 2**64 - 2, 2**64 - 1):
        assert p(j) == sum(int(xi == j and yi == 1) for xi, yi in zip(xs, y)), j
        assert e(j) == sum(int((xi == j) == yi) for xi, yi in zip(xs, y)), j
    obj = np.empty(3, dtype=object)
    obj[:] = [2**100, 2**100 + 1, 3]
    q2 = threshold_quality(obj, [1, 0, 1], 2**200)
    assert q2(2**100 + 1) == 3 and q2(0) == 1 and q2(2**200) == 2
