"""The interior-point contract of spec ss-rectangles 3.1 (checklist item 8), for every plug-in."""

import math

import numpy as np
import pytest

from privpac.audit import exact_check
from privpac.audit.cases_rectangles import NoisyCountInteriorPoint
from privpac.errors import DomainError, InvalidParameterError
from privpac.optimize import ExponentialInteriorPoint, InteriorPoint
from privpac.random import SeededRandom

PLUGINS = [ExponentialInteriorPoint(), NoisyCountInteriorPoint()]


def _dense(ip, values, lo, hi, eps):
    """Exact point probabilities from output_pieces (pieces may overlap)."""
    starts, ends, probs = ip.output_pieces(values, lo, hi, eps)
    out = {}
    for s, e, p in zip(starts, ends, np.asarray(probs).tolist()):
        for x in range(s, e + 1):
            out[x] = out.get(x, 0.0) + p / (e - s + 1)
    return out


def _piecewise_hockey_stick(ip, a, b, lo, hi, eps, check_eps):
    """Exact H at ``check_eps`` between outputs on two inputs of a huge domain (piecewise-constant ratio)."""
    pa, pb = ip.output_pieces(a, lo, hi, eps), ip.output_pieces(b, lo, hi, eps)
    cuts = sorted({lo, *pa[0], *pb[0], *(e + 1 for e in pa[1] if e < hi), *(e + 1 for e in pb[1] if e < hi)})
    bounds = cuts + [hi + 1]

    def density(pieces, x):
        return sum(p / (e - s + 1) for s, e, p in zip(pieces[0], pieces[1], pieces[2]) if s <= x <= e)

    fwd = bwd = 0.0
    for i, c in enumerate(cuts):
        length = bounds[i + 1] - c
        da, db = density(pa, c), density(pb, c)
        fwd += length * max(0.0, da - math.exp(check_eps) * db)
        bwd += length * max(0.0, db - math.exp(check_eps) * da)
    return max(fwd, bwd)


@pytest.mark.parametrize("ip", PLUGINS, ids=lambda ip: type(ip).__name__)
def test_plugins_follow_the_protocol(ip):
    assert isinstance(ip, InteriorPoint)
    assert ip.is_pure


@pytest.mark.parametrize("ip", PLUGINS, ids=lambda ip: type(ip).__name__)
@pytest.mark.parametrize(
    "a, b",
    [
        ([2, 2, 5], [2, 2, 5, 9]),  # add one
        ([2, 2, 5], [2, 7, 5]),  # replace one
        ([], [4]),  # from the empty input
        ([0, 0, 0, 0], [0, 0, 0]),  # remove one of a tie
        ([-1, -1, 3], [-1, 3, 3]),  # the sentinel value as data
    ],
)
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_exact_privacy_under_both_neighbour_notions(ip, a, b, eps):
    lo, hi = -1, 12
    P, Q = _dense(ip, a, lo, hi, eps), _dense(ip, b, lo, hi, eps)
    assert math.isclose(sum(P.values()), 1.0) and math.isclose(sum(Q.values()), 1.0)
    assert exact_check(P, Q, eps, 0.0, tolerance=1e-12).passed
    # the check can fail: half the budget is not enough for one of these pairs
    assert not all(
        exact_check(_dense(ip, x, lo, hi, eps), _dense(ip, y, lo, hi, eps), eps / 2.5, 0.0).passed
        for x, y in [([2, 2, 5], [2, 2, 5, 9]), ([], [4])]
    )


@pytest.mark.parametrize("ip", PLUGINS, ids=lambda ip: type(ip).__name__)
def test_exact_privacy_on_a_domain_beyond_2_64(ip):
    lo, hi = -1, 2**70
    spread = ([5, 2**66, 2**69], [5, 2**66, 2**69, 2**64])
    for a, b in [spread, ([], [2**65]), ([2**65] * 3, [2**65] * 4)]:
        assert _piecewise_hockey_stick(ip, a, b, lo, hi, 1.0, 1.0) <= 1e-12
    assert _piecewise_hockey_stick(ip, *spread, lo, hi, 1.0, 0.2) > 1e-6  # the check can fail


def test_exponential_output_pieces_match_the_dense_distribution():
    ip = ExponentialInteriorPoint()
    values = [1, 4, 4, 9]
    dense = ip.output_distribution(values, -1, 10, 0.7)
    assert all(math.isclose(dense[x], p) for x, p in _dense(ip, values, -1, 10, 0.7).items())


@pytest.mark.parametrize("ip", PLUGINS, ids=lambda ip: type(ip).__name__)
def test_sampler_matches_the_exact_law(ip):
    values, lo, hi, eps = [3, 5, 5, 8], 0, 11, 2.0
    exact = _dense(ip, values, lo, hi, eps)
    src = SeededRandom(7)
    n = 6000
    draws = np.array([ip(values, lo, hi, eps, 0.0, rng=src) for _ in range(n)])
    assert draws.min() >= lo and draws.max() <= hi
    counts = np.bincount(draws - lo, minlength=hi - lo + 1)
    expected = np.array([exact[x] for x in range(lo, hi + 1)]) * n
    big = expected > 20
    chi2 = float((((counts - expected) ** 2)[big] / expected[big]).sum())
    assert chi2 < 45.0  # about 12 cells: far below any plausible 1e-5 quantile


@pytest.mark.parametrize("ip", PLUGINS, ids=lambda ip: type(ip).__name__)
def test_interior_rate_at_the_stated_sample_complexity(ip):
    # Worst case for the exponential mechanism: every value equal (the interior is one point).
    eps, beta, lo, hi = 1.0, 0.1, -1, 2**20
    m = ip.sample_complexity(eps, 0.0, beta, hi - lo + 1)
    values = [777] * m
    starts, ends, probs = ip.output_pieces(values, lo, hi, eps)
    exact_fail = sum(p * (1 - (s <= 777 <= e) / (e - s + 1)) for s, e, p in zip(starts, ends, np.asarray(probs)))
    assert exact_fail <= beta
    src = SeededRandom(3)
    hits = sum(ip(values, lo, hi, eps, 0.0, rng=src) == 777 for _ in range(400))
    assert hits / 400 >= 1 - beta - 0.05


@pytest.mark.parametrize("ip", PLUGINS, ids=lambda ip: type(ip).__name__)
def test_empty_input_and_huge_ranges(ip):
    src = SeededRandom(1)
    hi = 2**64 + 5
    assert -1 <= ip([], -1, hi, 1.0, 0.0, rng=src) <= hi
    m = ip.sample_complexity(2.0, 0.0, 1e-9, hi + 2)
    out = ip([2**64, 2**64 + 1] * (m // 2 + 1), -1, hi, 2.0, 0.0, rng=src)
    assert 2**64 <= out <= 2**64 + 1  # big-integer keys come back exactly


def test_bad_inputs():
    ip = ExponentialInteriorPoint()
    with pytest.raises(InvalidParameterError, match="epsilon"):
        ip([1, 2], 0, 5, 0.0)
    with pytest.raises(InvalidParameterError, match="beta"):
        ip.sample_complexity(1.0, 0.0, 1.5, 10)
    with pytest.raises(InvalidParameterError, match="domain_size"):
        ip.sample_complexity(1.0, 0.0, 0.1, 0)
    with pytest.raises(DomainError):
        ip([1, 9], 0, 5, 1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        NoisyCountInteriorPoint().sample_complexity(-1.0, 0.0, 0.1, 10)
