import functools
import math
from fractions import Fraction

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.accounting import PrivacyLedger
from privpac.audit import exact_check
from privpac.audit.enumeration import exact_law
from privpac.domains import ImplicitOrderedDomain, IntegerDomain
from privpac.errors import BudgetExceededError, InvalidParameterError
from privpac.mechanisms import adist_release_probability
from privpac.optimize import (
    levels,
    log_star,
    plan_rec_concave,
    rec_concave,
    rec_concave_run,
    required_quality,
)
from privpac.optimize.recconcave import _level_data
from privpac.optimize.recconcave_plan import _adist_min_gap, iterated_log2, log_star_from_log2
from privpac.random import SeededRandom
from privpac.stepfunc import StepFunction


def threshold_quality(x, y, T):
    """Q(j) = #{i : [x_i < j] == y_i} over thresholds j in [0, T] (sensitivity 1)."""
    x = np.asarray(x, dtype=np.int64)
    y = np.asarray(y)
    return StepFunction.from_increments(T, int(np.sum(y == 0)), x + 1, np.where(y == 1, 1, -1))


def is_quasi_concave(v):
    v = np.asarray(v, dtype=float)
    peak = int(np.argmax(v))
    return bool(np.all(np.diff(v[: peak + 1]) >= 0) and np.all(np.diff(v[peak:]) <= 0))


# -- arithmetic -----------------------------------------------------------------------------------


def test_log_star_and_levels():
    assert [log_star(x) for x in (1, 2, 16, 32, 64, 2**16, 2**32, 2**64)] == [0, 1, 3, 4, 4, 4, 5, 5]
    assert log_star(2**65536) == 5
    assert levels(2**16) == levels(2**32) == 2
    assert levels(2**64) == levels(2**4096) == levels(2**65536) == 3
    assert levels(32) == 1 and levels(33) == 2 and levels(2**64, N=2) == 2 and levels(2**64, N=1) == 1
    assert levels(64, base_case_max=4) == 3  # 64 -> [0, 6] -> [0, 3]
    for T in (5, 100, 2**20, 2**300):
        assert levels(T) <= max(1, log_star(T))
    assert iterated_log2(2**64, 2) == pytest.approx(6.0)


def test_stated_bound_reproduces_the_spec_table():
    # Spec 4.5 (alpha = beta = 0.1, eps = 1, delta = 1e-6): Thm 3.15 for N = 1, 2, 3.
    for T, expected in ((2**16, (1.2e5, 1.4e6)), (2**32, (1.7e5, 1.5e6)), (2**64, (2.6e5, 1.5e6, 1.7e7))):
        got = [required_quality(T, 0.1, 0.1, 1.0, 1e-6, N, mode="stated") for N in range(1, len(expected) + 1)]
        for g, e in zip(got, expected):
            assert g == pytest.approx(e, rel=0.06)
    with pytest.raises(InvalidParameterError, match="log"):
        required_quality(2**16, 0.1, 0.1, 1.0, 1e-6, 5, mode="stated")


def test_adist_requirement_matches_the_mechanism():
    for eps, delta, beta in ((1.0, 1e-6, 0.1), (0.05, 1e-8, 0.01), (3.0, 1e-3, 0.2)):
        g = _adist_min_gap(eps, delta, beta)
        assert 1.0 - adist_release_probability(g, eps, delta) <= beta
        assert 1.0 - adist_release_probability(g - 1.0, eps, delta) > beta


def test_tuned_plan_spends_the_budget_and_beats_paper():
    for T in (2**16, 2**64, 2**4096):
        for N in (1, 2, 3):
            tuned = plan_rec_concave(T, 0.1, 0.1, 1.0, 1e-6, N, "tuned")
            paper = plan_rec_concave(T, 0.1, 0.1, 1.0, 1e-6, N, "paper")
            assert tuned.max_spend[0] == pytest.approx(1.0, rel=1e-9)
            assert tuned.max_spend[1] <= 1e-6 * (1 + 1e-12)
            assert tuned.required_promise() <= paper.required_promise()
            # E15: the paper's split charges (3 depth - 2) of its 3N mechanisms.
            assert paper.max_spend[0] == pytest.approx((3 * paper.depth - 2) / (3 * N))
    auto = plan_rec_concave(2**64, 0.1, 0.1, 1.0, 1e-6)
    assert auto.N == 1 and auto.depth == 1  # plain EM wins at 2^64
    huge = plan_rec_concave(2**65536, 0.1, 0.1, 1.0, 1e-6)
    assert huge.depth >= 2 and huge.required_promise() < required_quality(2**65536, 0.1, 0.1, 1.0, 1e-6, 1)
    assert plan_rec_concave(2**64, 0.1, 0.1, 1.0, 0.0).depth == 1  # delta = 0: pure DP only
    assert plan_rec_concave(2**64, 0.1, 0.1, 1.0, 1e-6, constants="paper").N == 5  # log*(2^64)


# -- derived functions ------------------------------------------------------------------------------


def test_derived_quality_is_sensitivity_one_and_quasi_concave():
    gen = np.random.default_rng(0)
    T = 200
    for _ in range(200):
        m = int(gen.integers(1, 30))
        x = gen.integers(0, T, size=m)
        y = gen.integers(0, 2, size=m)
        x2, y2 = x.copy(), y.copy()
        i = int(gen.integers(0, m))
        x2[i], y2[i] = gen.integers(0, T), gen.integers(0, 2)
        r, alpha = float(gen.integers(1, 40)), float(gen.uniform(0.05, 0.5))
        q1 = _level_data(threshold_quality(x, y, T), r, alpha).q.to_dense()
        q2 = _level_data(threshold_quality(x2, y2, T), r, alpha).q.to_dense()
        assert np.max(np.abs(q1 - q2)) <= 1 + 1e-9
        # Claim 3.13: q is quasi-concave even for non-quasi-concave Q (random data is rarely realizable).
        assert is_quasi_concave(q1)
        noise = StepFunction.from_values(gen.normal(size=T + 1))
        assert is_quasi_concave(_level_data(noise, r, alpha).q.to_dense())


# -- outputs and structure ---------------------------------------------------------------------------


@pytest.mark.parametrize("base_case_max", [2, 32])
def test_output_always_in_range_even_for_adversarial_quality(base_case_max):
    gen = np.random.default_rng(1)
    for T in (0, 1, 7, 40, 200, 1000):
        for vals in (gen.normal(size=T + 1) * 50, -np.abs(gen.normal(size=T + 1)), np.zeros(T + 1)):
            for N in (1, 2, 3):
                res = rec_concave_run(vals, 30.0, 0.5, 1.0, 1e-3, N=N, base_case_max=base_case_max, rng=T + N)
                assert 0 <= res.index <= T
                assert len(res.trace) == res.depth == levels(T, N, base_case_max)
                spent = res.ledger.spent
                assert spent[0] <= 1.0 + 1e-9 and spent[1] <= 1e-3 + 1e-15


def test_domains_integer_shift_and_implicit():
    q = threshold_quality([1, 2, 3, 8, 9], [1, 1, 1, 0, 0], 10)
    v = rec_concave(q, 5, 0.5, 20.0, 1e-3, domain=(-5, 5), rng=0)
    assert -5 <= v <= 5 and q(v + 5) >= 3
    assert rec_concave(q, 5, 0.5, 20.0, 1e-3, domain=IntegerDomain(-5, 5), rng=0) == v
    # An implicit domain of rationals k/7 listed by rank.
    dom = ImplicitOrderedDomain(11, rank=lambda f: int(f * 7), select=lambda i: Fraction(i, 7), name="sevenths")
    w = rec_concave(q, 5, 0.5, 20.0, 1e-3, domain=dom, rng=0)
    assert isinstance(w, Fraction) and w == Fraction(v + 5, 7)


@pytest.mark.parametrize("bits", [64, 4096, 65536])
def test_huge_domains(bits):
    T = 2**bits
    src = SeededRandom(bits)
    m = 400
    target = 2 ** (bits - 3)
    x = np.empty(m, dtype=object)
    x[:] = [src.randbits(bits - 1) for _ in range(m)]
    y = np.asarray([1 if v < target else 0 for v in x])
    pts = np.empty(m, dtype=object)
    pts[:] = [v + 1 for v in x]
    q = StepFunction.from_increments(T, int(np.sum(y == 0)), pts, np.where(y == 1, 1, -1))
    for N in (1, 2, 3):
        res = rec_concave_run(q, m, 0.5, 50.0, 1e-3, N=N, beta=0.01, rng=N)
        assert 0 <= res.index <= T and isinstance(res.value, int)
        assert res.depth == min(N, 3)
        # Ample budget: the output classifies almost everything correctly.
        assert q(res.index) >= 0.5 * m


def test_utility_at_the_tight_promise():
    # Realizable threshold data on [0, 2^16] with N = 2 (forced recursion) and the promise at
    # the tight requirement: failures are far rarer than beta (the bound is a union bound).
    T, alpha, beta, eps, delta = 2**16, 0.25, 0.1, 1.0, 1e-6
    r = math.ceil(required_quality(T, alpha, beta, eps, delta, 2))
    gen = np.random.default_rng(5)
    failures = 0
    trials = 60
    for t in range(trials):
        x = gen.integers(0, T, size=r)
        y = (x < 30_000).astype(int)
        q = threshold_quality(x, y, T)
        out = rec_concave(q, r, alpha, eps, delta, N=2, beta=beta, rng=1000 + t)
        failures += q(out) < (1 - alpha) * r
    assert failures <= 2


def test_ledger_paper_and_budget_errors():
    q = threshold_quality([1, 2, 3, 50, 60], [1, 1, 1, 0, 0], 100)
    ledger = PrivacyLedger(2.0, 1e-3)
    res = rec_concave_run(q, 5, 0.5, 1.0, 1e-3, N=2, constants="paper", ledger=ledger, rng=0)
    eps, delta = ledger.spent
    assert res.depth == 2 and eps == pytest.approx(4 / 6) and delta == pytest.approx(2e-3 / 6)
    assert len(ledger.entries[0].children) <= 4
    with pytest.raises(BudgetExceededError):
        rec_concave(q, 5, 0.5, 1.0, 1e-3, ledger=PrivacyLedger(0.5, 1e-3), rng=0)


def test_bad_inputs():
    q = threshold_quality([1, 2], [1, 0], 40)
    with pytest.raises(InvalidParameterError, match="alpha"):
        rec_concave(q, 2, 0.6, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        rec_concave(q, 2, 0.5, 0.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="delta"):
        rec_concave(q, 2, 0.5, 1.0, 0.0, N=2)
    with pytest.raises(InvalidParameterError, match="N"):
        rec_concave(q, 2, 0.5, 1.0, 1e-6, N=0)
    with pytest.raises(InvalidParameterError, match="constants"):
        rec_concave(q, 2, 0.5, 1.0, 1e-6, constants="fast")
    with pytest.raises(InvalidParameterError, match="quality"):
        rec_concave("abc", 2, 0.5, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="finite"):
        rec_concave([1.0, float("nan")], 2, 0.5, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="domain"):
        rec_concave(q, 2, 0.5, 1.0, 1e-6, domain=(0, 5))
    with pytest.raises(InvalidParameterError, match="promise"):
        rec_concave(q, float("inf"), 0.5, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="mode"):
        required_quality(2**16, 0.1, 0.1, 1.0, 1e-6, mode="loose")
    assert rec_concave(q, 2, 0.5, 1.0, 0.0, rng=0) in range(41)  # delta = 0 is fine at depth 1


# -- exact privacy -----------------------------------------------------------------------------------


_XS, _YS = (3, 9, 17, 30, 41, 50, 55, 60), (1, 1, 1, 1, 0, 0, 0, 0)

#: Neighbouring labelled samples (xs, ys); the first two pairs share their first sample.
_SAMPLES = [
    ((_XS, _YS), (_XS, (1, 1, 1, 1, 1, 0, 0, 0))),  # a label flips
    ((_XS, _YS), ((3, 9, 17, 30, 41, 50, 55, 2), _YS)),  # a point moves
    (((20,) * 8, (1,) * 8), ((20,) * 7 + (40,), (1,) * 7 + (0,))),
]


def _pairs(T):
    return [(threshold_quality(*a, T), threshold_quality(*b, T)) for a, b in _SAMPLES]


@functools.cache
def _sample_law(sample, promise, eps, delta, T, kw) -> np.ndarray:
    """The law of ``rec_concave`` on one sample's threshold quality, enumerated once per module (the
    tests and their parameters are public inputs: a sample met twice has the same law)."""
    law = _law(threshold_quality(*sample, T), promise, eps, delta, T, **dict(kw))
    law.flags.writeable = False
    return law


def _law(q, promise, eps, delta, T=64, **kw) -> np.ndarray:
    """The exact law of ``rec_concave`` itself, enumerated path by path (no second implementation)."""
    law = exact_law(lambda src: rec_concave(q, promise, 0.5, eps, delta, rng=src, **kw)).probabilities
    return np.array([law.get(i, 0.0) for i in range(T + 1)])


@pytest.mark.parametrize("constants", ["tuned", "paper"])
def test_exact_privacy_with_forced_recursion(constants):
    # (promise 8 at depth 2 and 3 is the registered audit's, run in tests/privacy/test_audit_registry.py)
    T, eps, delta = 64, 1.0, 1e-3
    kw = (("N", 3), ("constants", constants), ("base_case_max", 2))
    for a, b in _SAMPLES:
        for promise in (4.0,):
            P = _sample_law(a, promise, eps, delta, T, kw)
            Q = _sample_law(b, promise, eps, delta, T, kw)
            assert P.sum() == pytest.approx(1.0) and Q.sum() == pytest.approx(1.0)
            res = exact_check(P, Q, eps, delta)
            assert res.passed, str(res)


def test_the_enumerated_law_is_what_the_sampler_draws():
    T = 64
    q = _pairs(T)[0][0]
    P = _law(q, 8.0, 6.0, 1e-2, N=3, base_case_max=2)
    src = SeededRandom(11)
    draws = [rec_concave(q, 8.0, 0.5, 6.0, 1e-2, N=3, base_case_max=2, rng=src) for _ in range(1500)]
    observed = np.bincount(draws, minlength=T + 1)
    assert chi_square_pvalue(observed, P) > 1e-3


def test_exact_check_is_not_vacuous():
    from privpac.audit import exact_epsilon

    a, b = _pairs(64)[0]
    P = _law(a, 8.0, 4.0, 1e-6, N=2, constants="paper")
    Q = _law(b, 8.0, 4.0, 1e-6, N=2, constants="paper")
    assert 0.1 < exact_epsilon(P, Q, 1e-6) <= 4.0


def _spec_log_star(x: int) -> int:
    """The spec's log* (BMNS section 0): ``ceil(log2 .)`` until the value is ``<= 1``, in integers."""
    count = 0
    while x > 1:
        x, count = (x - 1).bit_length(), count + 1  # ceil(log2 x), exactly
    return count


def test_one_log_star_agrees_with_the_specs_rounded_definition():
    towers = [2, 4, 16, 2**16]
    near = [t + j for t in towers for j in (-1, 0, 1)] + [2**65536 + j for j in (-1, 0, 1)]
    for x in [*range(1, 5000), *near, 2**64, 2**1000 + 7]:
        assert log_star(x) == _spec_log_star(x), x
        if 2 <= x < 2**50:
            # from a float log2 x: exact while the float tells x from the tower next to it (the
            # docstring's caveat: log2(2^65536 + 1) rounds to 65536.0, one below the spec's answer)
            assert log_star_from_log2(math.log2(x)) == _spec_log_star(x), x
    assert log_star_from_log2(0.0) == 0 and log_star_from_log2(0.5) == 1
