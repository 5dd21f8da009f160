import numpy as np
import pytest

from privpac.accounting import PrivacyLedger
from privpac.audit import exact_check
from privpac.audit.enumeration import exact_law
from privpac.errors import DomainError, InvalidParameterError
from privpac.optimize import ExponentialInteriorPoint, InteriorPoint, RecConcaveInteriorPoint


def test_protocol_and_repr():
    ip = RecConcaveInteriorPoint()
    assert isinstance(ip, InteriorPoint) and not ip.is_pure
    assert "RecConcaveInteriorPoint" in repr(ip)


def _neighbour_pairs():
    # Replacement, addition/removal, and the empty dataset.
    return [
        ([10, 20, 30, 40, 50], [10, 20, 30, 40, 63]),
        ([10, 20, 30, 40, 50], [10, 20, 30, 40]),
        ([], [5]),
        ([7] * 6, [7] * 5 + [60]),
        ([0, 0, 0, 63, 63], [0, 0, 63, 63, 63]),
    ]


# (N=3, base_case_max=2 with tuned constants is the registered audit's, run in tests/privacy/test_audit_registry.py)
@pytest.mark.parametrize("kwargs", [dict(N=2, base_case_max=2, constants="paper")])
def test_exact_privacy_replacement_and_add_remove(kwargs):
    ip = RecConcaveInteriorPoint(beta=0.1, **kwargs)
    eps, delta = 1.0, 1e-3
    for a, b in _neighbour_pairs():
        P = exact_law(lambda src, v=a: ip(v, 0, 63, eps, delta, rng=src)).probabilities
        Q = exact_law(lambda src, v=b: ip(v, 0, 63, eps, delta, rng=src)).probabilities
        assert sum(P.values()) == pytest.approx(1.0)
        assert exact_check(P, Q, eps, delta).passed


def test_sample_complexity_is_proven_and_met():
    ip = RecConcaveInteriorPoint(beta=0.05, N=2, base_case_max=8)
    eps, delta, lo, hi = 1.0, 1e-6, 0, 2**20 - 1
    n = ip.sample_complexity(eps, delta, 0.05, hi - lo + 1)
    assert n == 2 * ip.promise(eps, delta, hi - lo + 1) - 1
    assert ip.sample_complexity(eps, delta, 0.2, hi - lo + 1) == n  # larger beta: same proven size
    with pytest.raises(InvalidParameterError, match="beta"):
        ip.sample_complexity(eps, delta, 0.01, hi - lo + 1)
    gen = np.random.default_rng(3)
    fails = 0
    for t in range(40):
        # Adversarial spread: half the values at the bottom, half at the top of the domain.
        vals = np.concatenate([gen.integers(0, 50, size=n // 2), gen.integers(hi - 50, hi + 1, size=n - n // 2)])
        y = ip(vals, lo, hi, eps, delta, rng=t)
        fails += not (vals.min() <= y <= vals.max())
    assert fails <= 1


def test_depth_one_matches_the_exponential_mechanism_bound():
    ip = RecConcaveInteriorPoint(N=1)
    em = ExponentialInteriorPoint()
    for size in (2**8, 2**32, 2**64):
        assert ip.sample_complexity(1.0, 0.0, 0.1, size) <= em.sample_complexity(1.0, 0.0, 0.1, size)
    # Tuned: a plain exponential mechanism on small domains, the recursion on astronomically large ones.
    assert RecConcaveInteriorPoint().plan(1.0, 1e-6, 2**64).depth == 1
    assert RecConcaveInteriorPoint().plan(1.0, 1e-6, 2**65536).depth >= 2


def test_call_ledger_empty_and_bad_inputs():
    ip = RecConcaveInteriorPoint(N=2)
    ledger = PrivacyLedger(1.0, 1e-6)
    y = ip([], -(2**70), 2**70, 1.0, 1e-6, rng=0, ledger=ledger)
    assert -(2**70) <= y <= 2**70 and ledger.spent[0] <= 1.0 + 1e-9
    with pytest.raises(DomainError):
        ip([1, 2, 300], 0, 255, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="beta"):
        RecConcaveInteriorPoint(beta=0)
    with pytest.raises(InvalidParameterError, match="constants"):
        RecConcaveInteriorPoint(constants="fast")
    with pytest.raises(InvalidParameterError, match="delta"):
        ip([1, 2], 0, 2**64, 1.0, 0.0)


def test_the_enumerated_law_is_what_the_code_draws():
    from conftest import chi_square_pvalue
    from privpac.random import SeededRandom

    ip = RecConcaveInteriorPoint(beta=0.1, N=3, base_case_max=2)
    vals = [10, 20, 30, 40, 50]
    P = exact_law(lambda src: ip(vals, 0, 63, 6.0, 1e-2, rng=src)).probabilities
    probs = [P.get(i, 0.0) for i in range(64)]
    src = SeededRandom(2)
    real = [ip(vals, 0, 63, 6.0, 1e-2, rng=src) for _ in range(800)]
    assert chi_square_pvalue(np.bincount(real, minlength=64), probs) > 1e-3
