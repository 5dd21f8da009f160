"""The A3-rational candidate domains of FindTukey and the quality over their indices.

* ``floor_sum`` against the plain sum;
* rank/select are inverse, and agree with listing and sorting every pair on tiny domains;
* property (P): every end of every depth interval of random data in [-B, B]^2 (first coordinate,
  and second coordinate after a member of D_1) is a member of the domain;
* the step-function quality equals the pointwise quality (and the exact depth) at every index of
  tiny domains, gives every pair of one rational the same value, is quasi-concave and has
  sensitivity 1;
* the simplest-fraction search against a brute force, and the integer "mode C" domain
  (Kaplan, Mansour, Stemmer, Tsfadia; spec ``kmst-halfspaces`` 3.7 item 5): strictly monotone
  decoding, ranks and counts against the listed values, every ``p/(t q)`` with ``q <= U`` a member,
  the denominator chain, and the truncated quality ``max(Q, floor)``.
"""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from privpac.errors import InvalidParameterError
from privpac.geometry import depth_intervals, tukey_depth
from privpac.geometry.rational_domain import (
    RationalDomain,
    SimplestFractionDomain,
    floor_sum,
    hadamard_bounds,
    interval_quality,
    rational_domain,
    simplest_fraction,
)
from privpac.learners.center_point import box_directions


def test_floor_sum_matches_the_plain_sum():
    rnd = random.Random(0)
    for _ in range(3000):
        n, m = rnd.randint(0, 40), rnd.randint(1, 30)
        a, b = rnd.randint(-100, 100), rnd.randint(-100, 100)
        assert floor_sum(n, m, a, b) == sum((a * j + b) // m for j in range(n))
    big = 2**200 + 7
    assert floor_sum(50, big, 3 * big + 1, -big) == sum(((3 * big + 1) * j - big) // big for j in range(50))


def test_hadamard_bounds_follow_the_spec():
    assert hadamard_bounds(15, 2) == (30, [1800, 30])  # spec A3-rational example: M_u = 30, Q_1 = 1800
    assert hadamard_bounds(7, 1) == (1, [1])
    D = rational_domain(15, 2, 1)
    assert D.size == 15 * 1800 * 1801 + 1800  # about 4.9e7
    assert [rational_domain(4, 1, 1).select(k) for k in range(9)] == list(range(-4, 5))  # d = 1: the integers


def _brute(B, t, Q):
    pairs = [(p, q) for q in range(1, Q + 1) for p in range(-B * t * q, B * t * q + 1)]
    pairs.sort(key=lambda pq: (Fraction(pq[0], t * pq[1]), pq[1]))
    return pairs


@pytest.mark.parametrize("B, t, Q", [(1, 1, 1), (1, 1, 8), (2, 3, 4), (3, 2, 5), (1, 7, 2), (2, 6, 3)])
def test_ranks_agree_with_the_sorted_list_of_pairs(B, t, Q):
    D = RationalDomain(B, t, Q)
    pairs = _brute(B, t, Q)
    assert len(pairs) == D.size == B * t * Q * (Q + 1) + Q
    values = [Fraction(p, t * q) for p, q in pairs]
    for k, (p, q) in enumerate(pairs):
        v = values[k]
        assert D.select(k) == v
        assert D.index_of_pair(p, q) == k
        assert D.first_index(v) == values.index(v)
        assert D.last_index(v) == len(values) - 1 - values[::-1].index(v)
        assert v in D
        assert D.canonical_pair(v) == (v * t).as_integer_ratio()
    # counts at non-members and outside the range
    for v in (Fraction(-B - 1), Fraction(1, 10**6), Fraction(B) + Fraction(1, 3)):
        assert D.count_le(v) == sum(1 for w in values if w <= v)
        assert D.count_lt(v) == sum(1 for w in values if w < v)


def test_rank_and_select_are_inverse_on_large_domains():
    rnd = random.Random(1)
    for B, d, i, t in [(15, 2, 1, 1), (15, 2, 2, 1799), (1000, 2, 1, 1), (10**6, 2, 2, 7919), (2**40, 1, 1, 1)]:
        D = rational_domain(B, d, i, t)
        for k in [0, 1, D.size - 1, D.size // 2] + [rnd.randrange(D.size) for _ in range(60)]:
            v = D.select(k)
            assert D.first_index(v) <= k <= D.last_index(v)
            assert D.select(D.rank(v)) == v and D.select(D.last_index(v)) == v
            if D.rank(v) > 0:
                assert D.select(D.rank(v) - 1) < v
            p, q = D.canonical_pair(v)
            assert Fraction(p, t * q) == v and q <= D.Q


def test_non_members_and_bad_indices_are_refused():
    D = rational_domain(1, 2, 1)  # denominators up to 8 in [-1, 1]
    assert Fraction(1, 9) not in D and Fraction(3, 2) not in D and Fraction(1, 8) in D
    with pytest.raises(InvalidParameterError):
        D.rank(Fraction(1, 9))
    with pytest.raises(InvalidParameterError):
        D.select(D.size)
    with pytest.raises(InvalidParameterError):
        D.count_le(0.5)  # floats are not exact
    with pytest.raises(InvalidParameterError):
        rational_domain(1, 2, 3)


def _data(rnd, B, n):
    S = np.array([[rnd.randint(-B, B), rnd.randint(-B, B)] for _ in range(n)], dtype=np.int64)
    if rnd.random() < 0.3:  # degenerate: collinear data
        a, b = rnd.randint(-1, 1), rnd.randint(-1, 1)
        S = np.array([[k * a, k * b] for k in (rnd.randint(-B, B) for _ in range(n))], dtype=np.int64)
    return S


def _ends(intervals):
    return [e for lo_hi in intervals for e in lo_hi]


def test_property_p_every_interval_end_is_a_candidate():
    rnd = random.Random(2)
    checked = 0
    for _ in range(60):
        B = rnd.choice([1, 2, 3])
        S = _data(rnd, B, rnd.randint(1, 9))
        D1 = rational_domain(B, 2, 1)
        first = depth_intervals(S, ())
        assert all(e is not None for e in _ends(first))
        for e in _ends(first):
            assert e in D1, (S.tolist(), e)
            checked += 1
        # second coordinate, after vertex coordinates and random members of D_1
        prefixes = set(_ends(first)) | {D1.select(rnd.randrange(D1.size)) for _ in range(3)}
        for x1 in prefixes:
            _, q = D1.canonical_pair(x1)
            D2 = rational_domain(B, 2, 2, q)
            for e in _ends(depth_intervals(S, (x1,))):
                assert e is not None and e in D2, (S.tolist(), x1, e)
                checked += 1
    assert checked > 300


def _pointwise(intervals, v):
    return max((r for r, (lo, hi) in enumerate(intervals, start=1) if lo <= v <= hi), default=0)


def test_quality_matches_the_pointwise_quality_and_the_depth():
    rnd = random.Random(3)
    for _ in range(25):
        B = rnd.choice([1, 2])
        S = _data(rnd, B, rnd.randint(1, 7))
        D1 = rational_domain(B, 2, 1)
        I1 = depth_intervals(S, ())
        f1 = interval_quality(D1, I1)
        assert f1.T == D1.max_index
        dense = f1.to_dense()
        for k in range(D1.size):
            v = D1.select(k)
            assert dense[k] == _pointwise(I1, v)
        assert dense.max() == len(I1)  # (P): the real maximum is reached on the domain
        # quasi-concave over the index order: no strict dip
        peak = int(np.argmax(dense))
        assert np.all(np.diff(dense[: peak + 1]) >= 0) and np.all(np.diff(dense[peak:]) <= 0)
        # second coordinate: the quality is the exact depth of (x1, v) (i = d)
        x1 = D1.select(rnd.randrange(D1.size))
        D2 = rational_domain(B, 2, 2, D1.canonical_pair(x1)[1])
        f2 = interval_quality(D2, depth_intervals(S, (x1,)))
        for k in range(D2.size):
            assert f2(k) == tukey_depth((x1, D2.select(k)), S)


def test_quality_with_public_box_directions_equals_the_exact_one():
    rnd = random.Random(4)
    for _ in range(20):
        B = rnd.choice([1, 2, 3])
        S = _data(rnd, B, rnd.randint(1, 10))
        U = box_directions(B)
        assert depth_intervals(S, (), directions=U) == depth_intervals(S, ())
        x1 = rational_domain(B, 2, 1).select(rnd.randrange(rational_domain(B, 2, 1).size))
        assert depth_intervals(S, (x1,), directions=U) == depth_intervals(S, (x1,))


def test_ties_share_their_quality_and_sensitivity_is_one():
    # the spec's square with its centre: Q_1 = 1 on [0, 2], 3 at the spike v = 1 (every pair of 1)
    S = np.array([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]])
    D = rational_domain(3, 2, 1)
    f = interval_quality(D, depth_intervals(S, ()))
    ones = range(D.first_index(Fraction(1)), D.last_index(Fraction(1)) + 1)
    assert len(ones) == D.Q and all(f(k) == 3 for k in ones)
    assert f(D.first_index(Fraction(1)) - 1) == 1 and f(D.last_index(Fraction(1)) + 1) == 1
    assert f(D.first_index(Fraction(0)) - 1) == 0 and f(D.last_index(Fraction(2)) + 1) == 0
    rnd = random.Random(5)
    for _ in range(20):
        S = _data(rnd, 1, rnd.randint(2, 7))
        T = S.copy()
        T[rnd.randrange(len(S))] = [rnd.randint(-1, 1), rnd.randint(-1, 1)]
        D = rational_domain(1, 2, 1)
        a = interval_quality(D, depth_intervals(S, ())).to_dense()
        b = interval_quality(D, depth_intervals(T, ())).to_dense()
        assert np.max(np.abs(a - b)) <= 1


def test_interval_quality_refuses_bad_input():
    D = rational_domain(1, 1, 1)
    with pytest.raises(InvalidParameterError):
        interval_quality(D, [(Fraction(0), Fraction(1)), (Fraction(-1), Fraction(0))])  # not nested
    with pytest.raises(InvalidParameterError):
        interval_quality("not a domain", [])
    assert interval_quality(D, []).max() == 0


# -- the simplest fraction and the mode C domain ----------------------------------------------------


def _brute_simplest(lo, hi, lo_closed, hi_closed):
    """The fraction of smallest denominator (then smallest |value|) in the interval, by listing."""
    for q in range(1, 500):
        found = [
            Fraction(p, q)
            for p in range(math.floor(lo * q) - 1, math.ceil(hi * q) + 2)
            if (Fraction(p, q) > lo or (Fraction(p, q) == lo and lo_closed))
            and (Fraction(p, q) < hi or (Fraction(p, q) == hi and hi_closed))
        ]
        if found:
            return min(found, key=abs)
    return None


def test_simplest_fraction_matches_a_brute_force():
    rnd = random.Random(5)
    for _ in range(800):
        lo = Fraction(rnd.randint(-60, 60), rnd.randint(1, 15))
        hi = lo + Fraction(rnd.randint(0, 20), rnd.randint(1, 30))
        lc, hc = rnd.random() < 0.5, rnd.random() < 0.5
        assert simplest_fraction(lo, hi, lo_closed=lc, hi_closed=hc) == _brute_simplest(lo, hi, lc, hc), (lo, hi)
    assert simplest_fraction(Fraction(1, 2), Fraction(1, 2), hi_closed=False) is None
    assert simplest_fraction(Fraction(7, 3), None, lo_closed=False) == 3
    assert simplest_fraction(Fraction(10**40 + 1, 10**40), Fraction(10**40 + 2, 10**40)).denominator > 10**19


@pytest.mark.parametrize("B, t, U", [(1, 1, 1), (2, 3, 4), (3, 1, 5), (1, 6, 3)])
def test_mode_c_decoding_is_strictly_monotone_and_ranks_agree_with_the_list(B, t, U):
    dom = SimplestFractionDomain(B, t, U)
    values = [dom.select(k) for k in range(dom.size)]
    assert dom.size == 2 * B * t * U * U + 1 and values[0] == -B and values[-1] == B
    assert all(x < y for x, y in zip(values, values[1:]))  # monotone decoding: Q o phi keeps its shape
    for k, v in enumerate(values):
        z = k - B * t * U * U
        assert Fraction(z, U * U) <= v * t < Fraction(z + 1, U * U)  # phi(z) t lies in the cell of z
        assert dom.rank(v) == dom.first_index(v) == dom.last_index(v) == k
        s, u = dom.canonical_pair(v)
        assert Fraction(s, u * t) == v and (u <= U or u == U * U)
    for q in range(1, U + 1):  # every p/(t q), q <= U, in [-B, B] is a member
        for p in range(-B * t * q, B * t * q + 1):
            assert Fraction(p, t * q) in dom
    rnd = random.Random(B * 100 + t * 10 + U)
    for _ in range(300):
        v = Fraction(rnd.randint(-40 * B, 40 * B), rnd.randint(1, 37))
        assert dom.count_lt(v) == sum(x < v for x in values)
        assert dom.count_le(v) == sum(x <= v for x in values)
    with pytest.raises(InvalidParameterError):
        dom.select(dom.size)
    with pytest.raises(InvalidParameterError, match="not in the domain"):
        dom.canonical_pair(Fraction(1, 2 * U * U * t + 1))


def test_mode_c_denominator_chain_divides_every_earlier_output():
    """``t_i = u t_(i-1)``: the denominator of every chosen value divides the running denominator."""
    rnd = random.Random(8)
    for _ in range(50):
        t, outputs = 1, []
        for U in (3, 7, 5):
            dom = SimplestFractionDomain(2, t, U)
            v = dom.select(rnd.randrange(dom.size))
            _, u = dom.canonical_pair(v)
            t *= u
            outputs.append(v)
            assert all(t % x.denominator == 0 for x in outputs)


@pytest.mark.parametrize("make", [lambda: RationalDomain(2, 1, 3), lambda: SimplestFractionDomain(2, 1, 3)])
def test_the_truncated_quality_is_max_of_the_quality_and_the_floor(make):
    dom = make()
    intervals = [(Fraction(-2), Fraction(2)), (Fraction(-1), Fraction(3, 2)), (Fraction(0), Fraction(1))]
    intervals += [(Fraction(1, 3), Fraction(1, 2)), (Fraction(1, 3), Fraction(1, 3))]
    base = interval_quality(dom, intervals)
    for floor in range(0, 7):
        truncated = interval_quality(dom, intervals, floor=floor)
        for k in range(dom.size):
            q = int(base(k))
            assert int(truncated(k)) == (q if q > floor else floor)
    with pytest.raises(InvalidParameterError):
        interval_quality(dom, intervals, floor=-1)


def test_every_coordinates_quality_is_quasi_concave_over_its_domain():
    # Spec section 9 item 4, for the second coordinate (d = 2) and the first of d = 3 as well: the
    # quality over the sorted candidates rises to its maximum and then falls, with no strict dip.
    rnd = random.Random(6)
    checked = 0
    for trial in range(30):
        B = rnd.choice([1, 2])
        if trial % 3 == 2:
            S = np.array([[rnd.randint(-1, 1) for _ in range(3)] for _ in range(rnd.randint(1, 5))])
            dom, prefix = rational_domain(1, 3, 1), ()
        else:
            S = _data(rnd, B, rnd.randint(1, 8))
            D1 = rational_domain(B, 2, 1)
            x1 = D1.select(rnd.randrange(D1.size))
            dom, prefix = rational_domain(B, 2, 2, D1.canonical_pair(x1)[1]), (x1,)
        f = interval_quality(dom, depth_intervals(S, prefix))
        # on the pieces of the step function (a dense view is too large for d = 3)
        values = [int(v) for v in f.values]
        peak = int(np.argmax(values))
        assert all(a <= b for a, b in zip(values[:peak], values[1 : peak + 1])), (S.tolist(), prefix, values)
        assert all(a >= b for a, b in zip(values[peak:], values[peak + 1 :])), (S.tolist(), prefix, values)
        checked += len(values) > 1
    assert checked > 10


def test_the_candidate_domains_are_built_without_the_data():
    # Spec section 9 item 6: D_i is a function of (B, d, i, t) only, so it is the same for S and S'.
    import inspect

    from privpac.learners.center_point import find_tukey

    assert list(inspect.signature(rational_domain).parameters) == ["B", "d", "i", "t"]
    import privpac.learners.center_point as cp

    built = []
    original = cp.rational_domain

    def spy(*args):
        built.append(args)
        return original(*args)

    cp.rational_domain = spy
    try:
        S = np.array([[0, 0], [1, 1], [-1, -1], [1, -1]])
        S2 = np.array([[0, 0], [1, 1], [-1, -1], [-1, 1]])
        for data in (S, S2):
            find_tukey(data, 1, 1.0, rng=3)
    finally:
        cp.rational_domain = original
    assert len(built) == 4 and all(all(isinstance(a, int) for a in args) for args in built)
    assert built[0] == built[2] == (1, 2, 1, 1)  # D_1: the same public arguments on both neighbours
    assert built[1][:3] == built[3][:3] == (1, 2, 2)  # D_2: only t, the first output's denominator, moves
