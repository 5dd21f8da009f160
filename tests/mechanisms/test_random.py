from fractions import Fraction

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.errors import InvalidParameterError
from privpac.mechanisms.laplace import discrete_laplace_pmf
from privpac.random import (
    SecureRandom,
    SeededRandom,
    as_random_source,
    audit_source,
    bernoulli,
    bernoulli_exp,
    discrete_laplace,
    discrete_laplace_array,
    gaussian_array,
    uniform_array,
    uniform_int,
)


def test_default_source_is_secure_and_seeds_reproduce():
    assert isinstance(as_random_source(None), SecureRandom)
    a = [uniform_int(0, 10**30, 7) for _ in range(1)]
    b = [uniform_int(0, 10**30, 7) for _ in range(1)]
    assert a == b
    s1, s2 = SeededRandom(3), SeededRandom(3)
    assert [discrete_laplace(Fraction(3), s1) for _ in range(50)] == [
        discrete_laplace(Fraction(3), s2) for _ in range(50)
    ]
    assert not np.array_equal(SeededRandom(3).random_words(8), SeededRandom(4).random_words(8))


def test_bad_rng_argument():
    with pytest.raises(InvalidParameterError, match="rng"):
        as_random_source("seed")
    with pytest.raises(InvalidParameterError, match="seed"):
        SeededRandom(-1)


@pytest.mark.parametrize("bits", [1, 7, 64, 65, 4096, 65536])
def test_uniform_int_range_and_top_bit(bits):
    src = SeededRandom(bits)
    hi = 2**bits - 1
    draws = [uniform_int(0, hi, src) for _ in range(400)]
    assert all(0 <= x <= hi for x in draws)
    # The top bit is set half of the time: the whole range is reached, not only a prefix.
    top = sum(x >> (bits - 1) for x in draws)
    assert 140 < top < 260


def test_uniform_int_small_range_is_uniform():
    src = SeededRandom(11)
    draws = np.array([uniform_int(-3, 3, src) for _ in range(14000)])
    counts = np.bincount(draws + 3, minlength=7)
    assert chi_square_pvalue(counts, np.full(7, 1 / 7)) > 1e-3


def test_uniform_int_bad_range():
    with pytest.raises(InvalidParameterError):
        uniform_int(5, 4)


def test_bernoulli_rational_frequency():
    src = SeededRandom(5)
    p = Fraction(1, 3)
    hits = sum(bernoulli(p, src) for _ in range(30000))
    assert abs(hits / 30000 - 1 / 3) < 0.015
    assert bernoulli(0, src) is False and bernoulli(1, src) is True
    with pytest.raises(InvalidParameterError):
        bernoulli(Fraction(3, 2), src)


@pytest.mark.parametrize("x", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_frequency(x):
    src = SeededRandom(9)
    n = 30000
    hits = sum(bernoulli_exp(x, src) for _ in range(n))
    expected = float(np.exp(-float(x)))
    assert abs(hits / n - expected) < 4 * np.sqrt(expected * (1 - expected) / n) + 1e-9


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(2), Fraction(7, 3), 2 / 0.3])
def test_discrete_laplace_matches_pmf(scale):
    src = SeededRandom(21)
    draws = np.array([discrete_laplace(scale, src) for _ in range(20000)])
    lo, hi = draws.min(), draws.max()
    support = np.arange(lo, hi + 1)
    counts = np.bincount(draws - lo, minlength=support.size)
    probs = discrete_laplace_pmf(support, float(scale))
    probs = probs / probs.sum()
    assert chi_square_pvalue(counts, probs) > 1e-3
    assert abs(draws.mean()) < 0.1 * float(scale) + 0.05


def test_fast_path_matches_pmf_and_audit_source_uses_it():
    draws = discrete_laplace_array(2.0, 200000, SeededRandom(2))
    lo = draws.min()
    counts = np.bincount(draws - lo)
    probs = discrete_laplace_pmf(np.arange(lo, lo + counts.size), 2.0)
    assert chi_square_pvalue(counts, probs / probs.sum()) > 1e-3
    src = audit_source(1)
    assert src.fast_noise and src.seeded
    draws = np.array([discrete_laplace(Fraction(2), src) for _ in range(5000)])
    assert abs(draws.var() - 2 * np.exp(-0.5) / (1 - np.exp(-0.5)) ** 2) < 0.8


def test_float_samplers():
    u = uniform_array(10000, 1)
    assert u.min() > 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    g = gaussian_array(20000, 3.0, 1)
    assert abs(g.std() - 3.0) < 0.1
    with pytest.raises(InvalidParameterError):
        discrete_laplace_array(0.0, 3)
    with pytest.raises(InvalidParameterError):
        discrete_laplace(Fraction(-1))
