"""Exactness of the samplers: their output laws, enumerated in rationals from the shipped code
(``tests/exact_harness.py``), equal the laws computed independently, including outputs of
probability far below what float64 can hold."""

from fractions import Fraction

import numpy as np
import pytest

import privpac.random as prandom
from exact_harness import (
    LN2_HI,
    LN2_LO,
    Pruned,
    accepted_law,
    bit_law,
    draw_law,
    exp_neg_bounds,
    exp_neg_interval,
    exponential_law,
    pow2_interval,
)
from privpac.learners._sample import labelled_counts
from privpac.learners.exponential import em_point_quality, point_range_weights, threshold_range_weights
from privpac.learners.range_counts import labelled_ranges
from privpac.learners.thresholds import threshold_quality
from privpac.mechanisms import base2 as b2
from privpac.mechanisms import exponential as em
from privpac.mechanisms import exponential_grouped as eg
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
    [
        (0, 8, 3, 7, 0),
        (5, 8, 1, 3, 0),
        (1, 4096, 5, 9, 0),
        (4095, 4096, 1, 2, 0),
        (700, 4096, 2**70 + 1, 3, -75),
        (3, 8, 1, 1, -1),
    ],
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


@pytest.mark.parametrize("x", [Fraction(1, 3), Fraction(5, 2)])
def test_bernoulli_exp_is_exact(bitwise, x):
    """Canonne, Kamath and Steinke's Bernoulli(e^-x), bit by bit (its loops leave a remainder)."""
    law, rest = bit_law(lambda s: prandom.bernoulli_exp(x, s), max_bits=18)
    assert rest < Fraction(1, 2**5)
    assert _within(law.get(True, Fraction(0)), rest, *exp_neg_bounds(x))
    assert not _within(law.get(True, Fraction(0)), rest, *exp_neg_bounds(x + Fraction(1, 8)))


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


#: ``lengths_t 2^(eta d_t) / Z`` as rational intervals (nothing shared with privpac).
independent_law = exponential_law


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
    base = b2.exp_base(epsilon, 1)
    ones = np.ones(q.size, dtype=np.int64)
    plan = b2._flat_plan(q, ones, base)
    law = accepted_law(draw_law(lambda s: b2._flat_attempt(plan, s)))
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
    plan = b2._flat_plan(q, f.lengths(), base, candidate)
    law = accepted_law(draw_law(lambda s: b2._flat_attempt(plan, s)))
    assert_same_law(law, independent_law(q - q.max(), f.lengths(), base.eta))


def test_step_lengths_read_in_chunks_convert_as_the_lengths_do():
    """The proposal reads a huge function's lengths from their ends' top bits: the same (e, m) as
    the exact lengths give, for lengths of every size and positions stored shifted."""
    rng = np.random.default_rng(5)
    bits = 4000
    gaps = [1, 2, 7, 2**52, 2**53 - 1, 2**53, 2**53 + 1, 2**200, 2**(bits - 12), 2**(bits - 30) - 1]
    gaps += [int(g) << int(s) for g, s in zip(rng.integers(1, 2**62, 40), rng.integers(0, bits - 80, 40))]
    gaps = [g + int(rng.integers(0, 3)) for g in gaps] + [2**(bits - 20) - 1]  # a borrow below the top bits
    starts = np.cumsum(np.asarray([0, *rng.permutation(np.asarray(gaps, dtype=object))], dtype=object))
    T = (1 << bits) - 1
    for shift in (0, 3):
        stored = np.asarray([int(v) - shift for v in starts], dtype=object)
        f = StepFunction(stored, np.arange(starts.size) % 5, T, merge=False, shift=shift)
        e, m, r = b2._length_parts(b2._StepLengths(f))
        e0, m0, r0 = b2._length_parts(f.lengths())
        assert r == r0 == 0 and e.tolist() == e0.tolist() and m.tolist() == m0.tolist()


def test_real_qualities_and_masks_are_exact():
    """Real values are rounded down on the grid 1/1024 (sensitivity 1025); -inf is not a candidate."""
    f = StepFunction(np.asarray([0, 3, 4, 9]), np.asarray([2.5, -np.inf, 0.25, -7.75]), 20)
    q, candidate, base = em._step_parts(f, 1.0, 1.0)
    assert base.sensitivity == 1025 and q.tolist() == [2560, 0, 256, -7936] and candidate.tolist() == [1, 0, 1, 1]
    plan = b2._flat_plan(q, f.lengths(), base, candidate)
    law = accepted_law(draw_law(lambda s: b2._flat_attempt(plan, s)))
    d = np.where(candidate, q - 2560, 0)
    assert_same_law(law, independent_law(d, np.where(candidate, f.lengths(), 0), base.eta))


def _grouped_law(T, weights, base, fan_out):
    widths = eg.grouping_widths(T, fan_out)
    return accepted_law(draw_law(lambda s: eg._grouped_attempt(T, widths, weights, base, s)))


@pytest.mark.parametrize("fan_out", [2, 3, 7, 64])
def test_grouped_mechanism_is_exactly_the_flat_one(fan_out):
    rng = np.random.default_rng(fan_out)
    T = 40
    starts = np.asarray([0, *sorted(rng.choice(np.arange(1, T + 1), 7, replace=False))])
    values = rng.integers(-5, 6, starts.size)
    values[2] = -3000  # a piece of weight 2^-3000 relative
    f = StepFunction(starts, values, T)
    base = b2.exp_base(1.1, 1)
    law = _grouped_law(T, lambda e, b: eg.step_range_weights(f, e, b), base, fan_out)
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
    base = b2.exp_base(0.9, 1)
    for f, weights in [
        (both, threshold_range_weights(sample, (+1, -1))),
        (em_point_quality(counts, None, size), point_range_weights(sample)),
    ]:
        dense = f.to_dense().astype(np.int64)
        law = _grouped_law(f.T, weights, base, fan_out)
        assert_same_law(law, independent_law(dense - dense.max(), np.ones(f.T + 1, dtype=np.int64), base.eta))


def test_the_harness_catches_a_sampler_at_twice_its_epsilon(monkeypatch):
    q = FLAT_CASES["ties and a weight below e^-745"]
    base = b2.exp_base(1.0, 1)
    ones = np.ones(q.size, dtype=np.int64)
    doubled = b2.ExpBase(2 * base.K, base.M, 2.0, 1)
    plan = b2._flat_plan(q, ones, doubled)
    law = accepted_law(draw_law(lambda s: b2._flat_attempt(plan, s)))
    with pytest.raises(AssertionError):
        assert_same_law(law, independent_law(q - q.max(), ones, base.eta))


def test_the_audit_law_is_the_exact_law():
    """The float law the audits enumerate with is the exact law, rounded once."""
    for q in FLAT_CASES.values():
        base = b2.exp_base(1.0, 1)
        ones = np.ones(q.size, dtype=np.int64)
        view = b2._law(q - q.max(), ones, base)
        exact = independent_law(q - q.max(), ones, base.eta)
        for t, (lo, hi) in exact.items():
            assert abs(view[t] - float(lo)) <= 1e-14 * float(hi) + 1e-300


def test_eta_is_rounded_down_and_stated():
    for eps, sens in [(1.0, 1), (0.01, 1), (3.0, 1025), (50.0, 2)]:
        base = b2.exp_base(eps, sens)
        assert base.eta * b2.LN2_UPPER <= Fraction(eps) / (2 * sens)  # never more than epsilon
        assert base.epsilon_used > eps * (1 - 2**-14)  # and hardly less
        assert f"{base.K}/2^{base.M}" in base.describe()


# -- the callers: public functions enumerated over the mechanism's exact draws ------------------------


def _public_law(program) -> dict:
    """The law of a public function whose draws are the exponential mechanism's, uniform points and
    discrete-Laplace tests (no rejection loop at this level: each is one draw of its exact law)."""
    law = draw_law(program)
    assert Pruned not in law
    return law


X_SMALL, Y_SMALL, SIZE_SMALL = [1, 4, 4, 9, 11, 2, 4], [1, 1, 0, 0, 0, 1, 1], 13


def test_flat_threshold_learner_gives_the_threshold_law():
    """Both orientations drawn flat from the sample's pieces, then a point inside the piece: the
    law over the ``2 (size + 1)`` thresholds is ``2^(eta q)`` normalised, ``q`` counted here."""
    from privpac.learners.exponential import em_learn_oriented_thresholds

    def program(s):
        h, orientation = em_learn_oriented_thresholds(X_SMALL, Y_SMALL, SIZE_SMALL, 0.7, rng=s)
        return h.threshold, orientation

    x, y = np.asarray(X_SMALL), np.asarray(Y_SMALL)
    below = [int(np.sum((x < j) == (y == 1))) for j in range(SIZE_SMALL + 1)]
    q = np.asarray(below + [x.size - v for v in below])
    outs = [(j, "below") for j in range(SIZE_SMALL + 1)] + [(j, "above") for j in range(SIZE_SMALL + 1)]
    expected = {outs[t]: p for t, p in exponential_law(q - q.max(), np.ones(q.size), b2.exp_base(0.7).eta).items()}
    assert_same_law(_public_law(program), expected)


def test_flat_point_learner_gives_the_point_law():
    from privpac.learners.exponential import em_learn_points

    x, y = np.asarray(X_SMALL), np.asarray(Y_SMALL)
    q = np.asarray([int(np.sum((x == j) == (y == 1))) for j in range(SIZE_SMALL)])
    expected = exponential_law(q - q.max(), np.ones(q.size), b2.exp_base(1.3).eta)
    assert_same_law(_public_law(lambda s: em_learn_points(X_SMALL, Y_SMALL, SIZE_SMALL, 1.3, rng=s).point), expected)


def test_choosing_mechanism_gives_its_law():
    """Bottom unless ``Z >= ceil(alpha m / 2 - best)`` (discrete Laplace of scale ``4 / epsilon``),
    else the exponential mechanism at ``epsilon / 2`` over the solutions of positive score."""
    import warnings

    from exact_harness import laplace_exceeds_interval
    from privpac.mechanisms.choosing import choosing_mechanism

    scores, m, alpha, eps = {"a": 5, "b": 3, "c": 1, "d": 0}, 16, 0.5, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # m is below the precondition: the law is what is checked
        law = _public_law(
            lambda s: choosing_mechanism(scores, m, alpha, 0.1, eps, 1e-3, unsafe_skip_precondition=True, rng=s)
        )
    go_lo, go_hi = laplace_exceeds_interval(Fraction(4) / Fraction(eps), -(-int(alpha * m) // 2) - 5)
    em_law = exponential_law(np.asarray([0, -2, -4]), np.ones(3), b2.exp_base(eps / 2).eta)
    expected = {None: (1 - go_hi, 1 - go_lo)}
    expected.update({k: (go_lo * lo, go_hi * hi) for k, (lo, hi) in zip("abc", em_law.values())})
    assert set(law) == set(expected)
    for o, (lo, hi) in law.items():
        assert lo <= expected[o][1] and expected[o][0] <= hi, o


def test_real_qualities_far_from_zero_keep_their_sensitivity():
    """Counts of 10^11 records (the BNS learner on multiplicities): shifted by their top and clamped
    2^40 grid steps below it, a quality whose neighbours still differ by at most DISCRETISATION + 1."""
    from privpac.mechanisms.base2 import DISCRETISATION, integer_qualities

    rng = np.random.default_rng(0)
    for _ in range(200):
        q = rng.choice([1.1e11, 3.7e10, 2.5, -4.0e9], 6) + rng.uniform(-1, 1, 6)
        moved = q + rng.uniform(-1, 1, 6)  # every quality moves by at most the sensitivity 1
        a, sens, _ = integer_qualities(q, 1.0)
        b, _, _ = integer_qualities(moved, 1.0)
        top_a, top_b = np.floor(q * DISCRETISATION).max(), np.floor(moved * DISCRETISATION).max()
        assert sens == DISCRETISATION + 1 and a.max() == 0 and a.min() > -(2**40)
        # before the common shift (which changes no probability) the clamped qualities are neighbours
        assert np.abs((a + top_a) - (b + top_b)).max() <= sens
        near = np.floor(q * DISCRETISATION) >= top_a - 2**40 + 1
        assert np.array_equal(a[near], (np.floor(q * DISCRETISATION) - top_a)[near])  # exact where it matters
    with pytest.raises(b2.InvalidParameterError, match="too large"):
        integer_qualities(np.array([2.0**50]), 1.0)
