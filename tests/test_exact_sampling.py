"""Exactness of the samplers: their output laws, enumerated in rationals from the shipped code
(``tests/exact_harness.py``), equal the laws computed independently, including outputs of
probability far below what float64 can hold."""

from fractions import Fraction

import numpy as np
import pytest

import privpac.random as prandom
from exact_harness import LN2_HI, LN2_LO, Pruned, accepted_law, bit_law, draw_law, exp_neg_interval, pow2_interval
from privpac.learners._sample import labelled_counts
from privpac.learners.exponential import em_point_quality, point_range_weights, threshold_range_weights
from privpac.learners.range_counts import labelled_ranges
from privpac.learners.thresholds import threshold_quality
from privpac.mechanisms import exponential as em
from privpac.random import (
    bernoulli,
    bernoulli_exp2,
    bernoulli_half_power,
    bernoulli_ln2,
    bernoulli_pow2_ratio,
    choose_weighted,
    uniform_int,
)
from privpac.stepfunc import StepFunction


@pytest.fixture
def bitwise(monkeypatch):
    """Lazy samplers draw one bit at a time (the same law), so that bit strings can be enumerated."""
    monkeypatch.setattr(prandom, "BIT_BLOCK", 1)


def _within(p_enum: Fraction, remainder: Fraction, lo: Fraction, hi: Fraction) -> bool:
    """The enumerated mass is a lower bound, within ``remainder`` of the truth; ``[lo, hi]`` holds it."""
    return p_enum <= hi and lo <= p_enum + remainder


# -- the primitives, bit by bit ----------------------------------------------------------------------


def test_uniform_bernoulli_and_weighted_choice_are_exact(bitwise):
    law, rest = bit_law(lambda s: uniform_int(3, 8, s), max_bits=16)
    assert rest < Fraction(1, 2**10)
    assert all(_within(law.get(v, 0), rest, Fraction(1, 6), Fraction(1, 6)) for v in range(3, 9))
    law, rest = bit_law(lambda s: bernoulli(Fraction(3, 7), s))
    assert _within(law[True], rest, Fraction(3, 7), Fraction(3, 7))
    law, rest = bit_law(lambda s: choose_weighted(np.asarray([3, 0, 5, 1]), s), max_bits=12)
    assert 1 not in law
    assert all(_within(law[i], rest, Fraction(w, 9), Fraction(w, 9)) for i, w in ((0, 3), (2, 5), (3, 1)))


def test_half_powers_are_exact_to_the_last_bit(bitwise):
    law, rest = bit_law(lambda s: bernoulli_half_power(1100, s), max_bits=10**6)
    assert rest == 0 and law[True] == Fraction(1, 2**1100)  # far below float64's smallest number


def test_bernoulli_ln2_is_exact(bitwise):
    law, rest = bit_law(lambda s: bernoulli_ln2(s), max_bits=20)
    assert rest < Fraction(1, 2**10) and _within(law[True], rest, LN2_LO, LN2_HI)


@pytest.mark.parametrize("x", [Fraction(3, 8), Fraction(7, 4), Fraction(4, 3)])
def test_bernoulli_exp2_is_exact(bitwise, x):
    """The enumeration leaves a remainder (the sampler's loops are unbounded) that shrinks
    geometrically with the depth; at 16 bits it is below 1%, and the check still tells ``2^-x``
    from ``2^-(x + 1/16)``."""
    law, rest = bit_law(lambda s: bernoulli_exp2(x, s), max_bits=16)
    assert rest < Fraction(1, 2**6)
    assert _within(law.get(True, Fraction(0)), rest, *pow2_interval(-x))
    lo, hi = pow2_interval(-x - Fraction(1, 16))
    assert not _within(law.get(True, Fraction(0)), rest, lo, hi)


@pytest.mark.parametrize(
    "i, H, num, den, shift",
    [(0, 8, 3, 7, 0), (5, 8, 1, 3, 0), (1, 4096, 5, 9, 0), (4095, 4096, 1, 2, 0), (700, 4096, 2**70 + 1, 3, -75),
     (3, 8, 1, 1, -1)],
)
def test_bernoulli_pow2_ratio_is_exact(bitwise, i, H, num, den, shift):
    law, rest = bit_law(lambda s: bernoulli_pow2_ratio(i, H, num, den, shift, s), max_bits=22)
    lo, hi = pow2_interval(Fraction(i, H) + shift)
    r = Fraction(num, den)
    assert rest < Fraction(1, 2**12)
    assert _within(law.get(True, Fraction(0)), rest, lo * r, hi * r)


def test_bernoulli_pow2_ratio_refuses_a_probability_above_one():
    with pytest.raises(ValueError):
        bernoulli_pow2_ratio(1, 8, 1, 1, 0, rng=0)


def test_discrete_laplace_is_exact():
    """Its draws (uniform integers, rational and exponential Bernoullis, the sign bit) enumerated
    with their exact laws, the unbounded loops cut below ``2^-14`` (the remainder, about 10%,
    bounds the check; it shrinks with the depth, slowly: a cheap check of the loops' logic)."""
    scale = Fraction(3, 2)
    law = draw_law(lambda s: prandom._discrete_laplace(scale, s), min_mass=Fraction(1, 2**14))
    rest = law.pop(Pruned, (0, 0))[1]
    q_lo, q_hi = exp_neg_interval(1 / scale, 1 / scale)
    assert rest < Fraction(1, 8)
    for z in range(-3, 4):
        lo = (1 - q_hi) / (1 + q_hi) * q_lo ** abs(z)
        hi = (1 - q_lo) / (1 + q_lo) * q_hi ** abs(z)
        got_lo, got_hi = law[z]
        assert got_lo <= hi and lo <= got_hi + rest


# -- the exponential mechanism: its attempts, draw by draw ----------------------------------------------


def independent_law(d, lengths, eta: Fraction) -> dict:
    """``lengths_t 2^(eta d_t) / Z`` as rational intervals (nothing shared with privpac)."""
    w = {t: pow2_interval(eta * int(dt)) for t, dt in enumerate(d) if int(lengths[t]) > 0}
    w = {t: (lo * int(lengths[t]), hi * int(lengths[t])) for t, (lo, hi) in w.items()}
    z_lo, z_hi = sum(lo for lo, _ in w.values()), sum(hi for _, hi in w.values())
    return {t: (lo / z_hi, hi / z_lo) for t, (lo, hi) in w.items()}


def assert_same_law(enumerated: dict, expected: dict, rel=Fraction(1, 2**200)):
    assert set(enumerated) == set(expected)
    for o, (lo, hi) in enumerated.items():
        e_lo, e_hi = expected[o]
        assert lo <= e_hi * (1 + rel) and e_lo <= hi * (1 + rel), (o, float(lo), float(e_lo))
        assert hi - lo <= rel * hi + Fraction(1, 2**300)  # a sharp check, not a wide interval


FLAT_CASES = {
    "ties and a weight below e^-745": np.asarray([5, 5, 0, -3000, 4], dtype=np.int64),
    "every weight tiny but one": np.asarray([0, -2500, -2501, -2502, -10000], dtype=np.int64),
    "one candidate": np.asarray([7], dtype=np.int64),
    "many candidates": (np.arange(24, dtype=np.int64) * 37) % 23,
}
FLAT_RUNS = [(name, 1.0) for name in FLAT_CASES] + [
    ("ties and a weight below e^-745", 0.013),
    ("every weight tiny but one", 7.5),
]


@pytest.mark.parametrize("name, epsilon", FLAT_RUNS)
def test_flat_mechanism_is_exact(name, epsilon):
    q = FLAT_CASES[name]
    base = em.exp_base(epsilon, 1)
    ones = np.ones(q.size, dtype=np.int64)
    plan = em._flat_plan(q, ones, base)
    law = accepted_law(draw_law(lambda s: em._flat_attempt(plan, s)))
    assert_same_law(law, independent_law(q - q.max(), ones, base.eta))


STEP_CASES = {
    "lengths 2^1000 beside 1": ([0, 1, 2**1000 + 1, 2**1000 + 4], [3, 3, 2, -1500], 2**1001),
    "a huge piece at a tiny weight": ([0, 5, 6], [-4000, 10, 9], 2**64 - 1),
    "int64 lengths": ([0, 10, 2**40, 2**61], [0, 1, 0, 2], 2**62 - 2),
}


@pytest.mark.parametrize("name", STEP_CASES)
def test_step_mechanism_is_exact(name):
    starts, values, T = STEP_CASES[name]
    f = StepFunction(np.asarray(starts, dtype=object if T >= 2**62 else np.int64), np.asarray(values), T)
    q, candidate, base = em._step_parts(f, 0.8, 1.0)
    plan = em._flat_plan(q, f.lengths(), base, candidate)
    law = accepted_law(draw_law(lambda s: em._flat_attempt(plan, s)))
    assert_same_law(law, independent_law(q - q.max(), f.lengths(), base.eta))


def test_real_qualities_and_masks_are_exact():
    """Real values are rounded down on the grid 1/1024 (sensitivity 1025); -inf is not a candidate."""
    f = StepFunction(np.asarray([0, 3, 4, 9]), np.asarray([2.5, -np.inf, 0.25, -7.75]), 20)
    q, candidate, base = em._step_parts(f, 1.0, 1.0)
    assert base.sensitivity == 1025 and q.tolist() == [2560, 0, 256, -7936] and candidate.tolist() == [1, 0, 1, 1]
    plan = em._flat_plan(q, f.lengths(), base, candidate)
    law = accepted_law(draw_law(lambda s: em._flat_attempt(plan, s)))
    d = np.where(candidate, q - 2560, 0)
    assert_same_law(law, independent_law(d, np.where(candidate, f.lengths(), 0), base.eta))


def _grouped_law(T, weights, base, fan_out):
    widths = em.grouping_widths(T, fan_out)
    return accepted_law(draw_law(lambda s: em._grouped_attempt(T, widths, weights, base, s)))


@pytest.mark.parametrize("fan_out", [2, 3, 7, 64])
def test_grouped_mechanism_is_exactly_the_flat_one(fan_out):
    rng = np.random.default_rng(fan_out)
    T = 40
    starts = np.asarray([0, *sorted(rng.choice(np.arange(1, T + 1), 7, replace=False))])
    values = rng.integers(-5, 6, starts.size)
    values[2] = -3000  # a piece of weight 2^-3000 relative
    f = StepFunction(starts, values, T)
    base = em.exp_base(1.1, 1)
    law = _grouped_law(T, lambda e, b: em.step_range_weights(f, e, b), base, fan_out)
    dense = f.to_dense().astype(np.int64)
    assert_same_law(law, independent_law(dense - dense.max(), np.ones(T + 1, dtype=np.int64), base.eta))


@pytest.mark.parametrize("fan_out", [3, 5])
def test_learners_range_weights_give_the_flat_law_exactly(fan_out):
    rng = np.random.default_rng(fan_out)
    size = 13
    x, y = rng.integers(0, size, 9), rng.integers(0, 2, 9)
    counts = labelled_counts(x, y, size)
    sample = labelled_ranges(x, y, size)
    below = threshold_quality(counts, None, size)
    both = StepFunction.concat([below, StepFunction(below.starts, counts.n - below.values, below.T, validate=False)])
    base = em.exp_base(0.9, 1)
    for f, weights in [
        (both, threshold_range_weights(sample, (+1, -1))),
        (em_point_quality(counts, None, size), point_range_weights(sample)),
    ]:
        dense = f.to_dense().astype(np.int64)
        law = _grouped_law(f.T, weights, base, fan_out)
        assert_same_law(law, independent_law(dense - dense.max(), np.ones(f.T + 1, dtype=np.int64), base.eta))


def test_the_harness_catches_a_sampler_at_twice_its_epsilon(monkeypatch):
    q = FLAT_CASES["ties and a weight below e^-745"]
    base = em.exp_base(1.0, 1)
    ones = np.ones(q.size, dtype=np.int64)
    doubled = em.ExpBase(2 * base.K, base.M, 2.0, 1)
    plan = em._flat_plan(q, ones, doubled)
    law = accepted_law(draw_law(lambda s: em._flat_attempt(plan, s)))
    with pytest.raises(AssertionError):
        assert_same_law(law, independent_law(q - q.max(), ones, base.eta))


def test_the_audit_law_is_the_exact_law():
    """The float law the audits enumerate with is the exact law, rounded once."""
    for q in FLAT_CASES.values():
        base = em.exp_base(1.0, 1)
        ones = np.ones(q.size, dtype=np.int64)
        view = em._law(q - q.max(), ones, base)
        exact = independent_law(q - q.max(), ones, base.eta)
        for t, (lo, hi) in exact.items():
            assert abs(view[t] - float(lo)) <= 1e-14 * float(hi) + 1e-300


def test_eta_is_rounded_down_and_stated():
    for eps, sens in [(1.0, 1), (0.01, 1), (3.0, 1025), (50.0, 2)]:
        base = em.exp_base(eps, sens)
        assert base.eta * em.LN2_UPPER <= Fraction(eps) / (2 * sens)  # never more than epsilon
        assert base.epsilon_used > eps * (1 - 2**-14)  # and hardly less
        assert f"{base.K}/2^{base.M}" in base.describe()
