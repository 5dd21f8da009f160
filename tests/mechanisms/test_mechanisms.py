import math
import warnings

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.accounting import PrivacyLedger
from privpac.audit import exact_check, exact_epsilon
from privpac.errors import (
    DataError,
    InvalidParameterError,
    PaperLiteralWarning,
    PreconditionError,
    UnsafeConfigurationWarning,
)
from privpac.mechanisms import (
    adist,
    adist_plan,
    adist_release_probability,
    choosing_mechanism,
    choosing_min_size,
    choosing_plan,
    discrete_laplace_pmf,
    discrete_laplace_sf,
    exponential_mechanism,
    exponential_mechanism_step,
    exponential_probabilities,
    laplace_mechanism,
    step_piece_probabilities,
)
from privpac.random import SeededRandom
from privpac.stepfunc import StepFunction

# -- Laplace ---------------------------------------------------------------------------------------


def laplace_dist(value, scale, width=400):
    outputs = np.arange(-width, width + 2)  # the same support for every value
    return dict(zip(outputs.tolist(), discrete_laplace_pmf(outputs - value, scale).tolist()))


def test_laplace_exact_privacy_and_under_noise_failure():
    eps = 0.7
    ok = exact_check(laplace_dist(0, 1 / eps), laplace_dist(1, 1 / eps), eps, 0.0)
    assert ok.passed
    bad = exact_check(laplace_dist(0, 0.5 / eps), laplace_dist(1, 0.5 / eps), eps, 0.0)
    assert not bad.passed
    assert exact_epsilon(laplace_dist(0, 1 / eps), laplace_dist(1, 1 / eps), 0.0) == pytest.approx(eps, rel=1e-6)


def test_laplace_mechanism_outputs_and_ledger():
    ledger = PrivacyLedger(1.0)
    out = laplace_mechanism(np.array([3, 4, 5]), 2, 0.5, ledger=ledger, rng=1)
    assert out.shape == (3,) and out.dtype == np.int64
    assert ledger.spent == (0.5, 0.0)
    assert isinstance(laplace_mechanism(10, 1, 1.0, rng=2), int)
    with pytest.raises(InvalidParameterError, match="integer"):
        laplace_mechanism(1.5, 1, 1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        laplace_mechanism(1, 1, -1.0)
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        laplace_mechanism(1, 0, 1.0)


def test_discrete_laplace_sf_matches_pmf():
    scale = 1.7
    zs = np.arange(-200, 201)
    pmf = discrete_laplace_pmf(zs, scale)
    for k in (-3, 0, 1, 4):
        assert discrete_laplace_sf(k, scale) == pytest.approx(pmf[zs >= k].sum(), rel=1e-9)


# -- exponential mechanism ----------------------------------------------------------------------------


def test_exponential_exact_privacy_on_worst_pair():
    eps = 1.0
    k = 30
    p = exponential_probabilities([1] + [0] * k, eps)
    q = exponential_probabilities([0] + [1] * k, eps)
    assert exact_check(p, q, eps, 0.0).passed
    # Treating the sensitivity as 1/2 doubles the privacy loss: the check must catch it.
    p2 = exponential_probabilities([1] + [0] * k, eps, sensitivity=0.5)
    q2 = exponential_probabilities([0] + [1] * k, eps, sensitivity=0.5)
    assert not exact_check(p2, q2, eps, 0.0).passed


def test_exponential_sampling_frequencies():
    scores = np.array([0, 3, 1, 3, 2])
    probs = exponential_probabilities(scores, 1.0)
    src = SeededRandom(4)
    draws = [exponential_mechanism(scores, 1.0, rng=src) for _ in range(20000)]
    assert chi_square_pvalue(np.bincount(draws, minlength=5), probs) > 1e-3


def test_step_exponential_is_pointwise_exponential():
    T = 40
    f = StepFunction([0, 10, 11, 25], [0, 3, 1, 2], T)
    pieces = step_piece_probabilities(f, 0.8)
    point_probs = np.repeat(pieces / f.lengths(), f.lengths())
    dense = exponential_probabilities(f.to_dense(), 0.8)
    assert np.allclose(point_probs, dense)
    src = SeededRandom(8)
    draws = [exponential_mechanism_step(f, 0.8, rng=src) for _ in range(20000)]
    assert chi_square_pvalue(np.bincount(draws, minlength=T + 1), dense) > 1e-3


def test_step_exponential_exact_privacy_on_neighbours():
    T = 63
    xs, ys = np.array([3, 9, 17, 30]), np.array([1, 1, 0, 0])
    ys2 = np.array([1, 1, 1, 0])

    def quality(y):
        return StepFunction.from_increments(T, int((y == 0).sum()), xs + 1, np.where(y == 1, 1, -1))

    def dist(f):
        return exponential_probabilities(f.to_dense(), 1.0)

    assert exact_check(dist(quality(ys)), dist(quality(ys2)), 1.0, 0.0).passed


def test_step_exponential_huge_domain():
    T = 2**65536
    f = StepFunction([0, 2**65535, 2**65535 + 1], [0, 10**6, 0], T)
    ledger = PrivacyLedger(1.0)
    x = exponential_mechanism_step(f, 1.0, ledger=ledger, rng=3)
    assert x == 2**65535  # weight e^(500000) beats 2^65536 = e^(45426)
    y = exponential_mechanism_step(StepFunction.constant(T, 0), 1.0, rng=4)
    assert 0 <= y <= T and y.bit_length() > 65000


def test_step_exponential_reads_huge_lengths_a_chunk_at_a_time(monkeypatch):
    import privpac.stepfunc as stepfunc
    from privpac.mechanisms.base2 import _length_parts, _StepLengths

    monkeypatch.setattr(stepfunc, "CHUNK", 3)
    monkeypatch.setattr("privpac.mechanisms.base2.STEP_CHUNK", 3)
    src = SeededRandom(5)
    starts = np.empty(11, dtype=object)
    starts[:] = [0, *sorted(src.randbits(4000) for _ in range(10))]
    f = StepFunction(starts, [0, 3, 1, 4, 1, 5, 9, 2, 6, 5, 3], 2**4000)
    g = StepFunction(starts - 1, f.values, f.T, shift=1)  # positions stored shifted: the same function
    full = _length_parts(f.lengths())
    for h in (f, g):  # the same proposal bits as the full conversion, so the same draws
        chunked = _length_parts(_StepLengths(h))
        assert all(np.array_equal(a, b) for a, b in zip(chunked, full))
        assert [_StepLengths(h)[t] for t in range(11)] == list(f.lengths())
    assert [exponential_mechanism_step(g, 0.5, rng=k) for k in range(5)] == [
        exponential_mechanism_step(f, 0.5, rng=k) for k in range(5)
    ]


def test_exponential_bad_inputs():
    with pytest.raises(InvalidParameterError, match="finite"):
        exponential_mechanism([1.0, float("inf")], 1.0)
    with pytest.raises(InvalidParameterError, match="non-empty"):
        exponential_mechanism([], 1.0)
    with pytest.raises(InvalidParameterError, match="StepFunction"):
        exponential_mechanism_step([1, 2], 1.0)


# -- A_dist ------------------------------------------------------------------------------------------


def adist_dist(scores, eps, delta, variant):
    return adist_plan(scores, eps, delta, variant).output_distribution()


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-6), (0.5, 1e-3), (2.0, 1e-9), (0.1, 1e-5)])
def test_adist_corrected_exact_privacy(eps, delta, no_literal_warnings):
    thr = math.ceil(adist_plan([0, 0], eps, delta, "corrected").threshold)
    pairs = [
        ([5, 3], [6, 2]),
        ([thr - 1, 1], [thr, 0]),
        ([5, 4], [4, 5]),
        ([thr, thr - 1], [thr - 1, thr]),
        ([3, 3], [4, 2]),
    ]
    for s, t in pairs:
        res = exact_check(adist_dist(s, eps, delta, "corrected"), adist_dist(t, eps, delta, "corrected"), eps, delta)
        assert res.passed, (s, t, res)


def test_adist_paper_literal_fails_exact_check(no_literal_warnings):
    eps, delta = 1.0, 1e-6
    res = exact_check(
        adist_dist([5, 3], eps, delta, "paper-literal"), adist_dist([6, 2], eps, delta, "paper-literal"), eps, delta
    )
    assert not res.passed
    g = math.ceil(math.log(1 / delta) / eps)
    res = exact_check(
        adist_dist([g - 1, 1], eps, delta, "paper-literal"), adist_dist([g, 0], eps, delta, "paper-literal"), eps, delta
    )
    assert res.worst_delta > 100 * delta


def test_adist_literal_warns_and_corrected_does_not():
    with pytest.warns(PaperLiteralWarning):
        adist([9, 1], 1.0, 1e-6, variant="paper-literal", rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        adist([9, 1], 1.0, 1e-6, rng=1)


def test_adist_sampling_matches_plan_and_every_call_is_charged():
    scores = [20, 4, 3]
    plan = adist_plan(scores, 1.0, 1e-3)
    src = SeededRandom(6)
    released = sum(adist(scores, 1.0, 1e-3, rng=src) == 0 for _ in range(4000))
    p = plan.release_probability()
    assert abs(released / 4000 - p) < 4 * math.sqrt(p * (1 - p) / 4000) + 1e-3
    # One candidate, or none: the answer is data-independent, yet the call is charged like any
    # other, so a ledger never shows how many candidates a private output left.
    ledger = PrivacyLedger(2.0, 2e-6)
    assert adist([7], 1.0, 1e-6, ledger=ledger, rng=1) == 0
    assert adist(None, 1.0, 1e-6, ledger=ledger, rng=1) is None
    assert ledger.spent == (2.0, 2e-6)
    assert [e.mechanism for e in ledger.entries] == [ledger.entries[0].mechanism] * 2


def test_adist_over_step_function_candidates():
    # Point-learner style scores over a domain of 2^64 candidates: counts at a few points.
    T = 2**64 - 1
    f = StepFunction([0, 2**40, 2**40 + 1, 2**50, 2**50 + 1], [0, 200, 0, 3, 0], T)
    assert adist(f, 1.0, 1e-6, rng=2) == 2**40
    assert adist_release_probability(200 - 3, 1.0, 1e-6) > 0.999999
    # A wide maximal piece means a tie: gap 0, bottom almost surely.
    flat = StepFunction([0, 5], [0, 50], T)
    assert adist_plan(flat, 1.0, 1e-6).gap == 0.0


def test_adist_bad_inputs():
    with pytest.raises(InvalidParameterError, match="delta"):
        adist([1, 2], 1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="variant"):
        adist([1, 2], 1.0, 1e-6, variant="safe")
    with pytest.raises(InvalidParameterError, match="finite"):
        adist([1, float("nan")], 1.0, 1e-6)


# -- choosing mechanism -------------------------------------------------------------------------------


def choosing_dist(counts, alpha, eps):
    m = sum(counts.values())
    return choosing_plan(counts, m, alpha, eps).output_distribution()


@pytest.mark.parametrize("eps,delta,k", [(1.0, 1e-3, 1), (0.5, 1e-6, 1), (1.0, 1e-4, 2)])
def test_choosing_exact_privacy_at_the_precondition(eps, delta, k):
    alpha, beta = 0.5, 0.5
    m = math.ceil(choosing_min_size(alpha, beta, eps, delta, k))
    border = math.ceil(alpha * m / 4)
    pairs = [
        ({0: m - 1, 1: 1}, {0: m}),
        ({0: m // 2, 1: m - m // 2}, {0: m // 2 + 1, 1: m - m // 2 - 1}),
        (
            {0: border, **{i: 1 for i in range(1, m - border + 1)}},
            {0: border + 1, **{i: 1 for i in range(1, m - border)}},
        ),
        ({i: 1 for i in range(m)}, {0: 2, **{i: 1 for i in range(1, m - 1)}}),
    ]
    for s, t in pairs:
        res = exact_check(choosing_dist(s, alpha, eps), choosing_dist(t, alpha, eps), eps, delta)
        assert res.passed, res


def test_choosing_without_its_precondition_leaks():
    # m = 6: a singleton beside a heavy point is chosen with large probability on S, never on S'.
    eps, delta, alpha = 1.0, 1e-3, 0.5
    s, t = {0: 5, 1: 1}, {0: 6}
    res = exact_check(choosing_dist(s, alpha, eps), choosing_dist(t, alpha, eps), eps, delta)
    assert not res.passed and res.worst_delta > 10 * delta


def test_choosing_precondition_is_enforced():
    with pytest.raises(PreconditionError, match="m >="):
        choosing_mechanism({0: 5, 1: 1}, 6, 0.5, 0.5, 1.0, 1e-3)
    with pytest.warns(UnsafeConfigurationWarning):
        choosing_mechanism({0: 5, 1: 1}, 6, 0.5, 0.5, 1.0, 1e-3, unsafe_skip_precondition=True, rng=1)
    paper = 16 / (0.5 * 1.0) * math.log(16 / (0.5 * 0.5 * 1.0 * 1e-3))
    assert choosing_min_size(0.5, 0.5, 1.0, 1e-3) >= paper


def test_choosing_outputs_come_from_G_and_ledger():
    m = math.ceil(choosing_min_size(0.5, 0.5, 1.0, 1e-3))
    counts = {"a": m - 3, "b": 2, "c": 1}
    ledger = PrivacyLedger(1.0, 1e-3)
    src = SeededRandom(3)
    outs = {choosing_mechanism(counts, m, 0.5, 0.5, 1.0, 1e-3, rng=src) for _ in range(200)}
    assert outs <= {"a", "b", "c", None} and "a" in outs
    choosing_mechanism(counts, m, 0.5, 0.5, 1.0, 1e-3, ledger=ledger, rng=src)
    assert ledger.spent == (1.0, 1e-3)
    with pytest.raises(DataError, match="non-negative"):
        choosing_mechanism({"a": -1}, m, 0.5, 0.5, 1.0, 1e-3)
    with pytest.raises(DataError, match="exceeds"):
        choosing_mechanism({"a": m + 1}, m, 0.5, 0.5, 1.0, 1e-3)
