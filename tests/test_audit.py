import math

import numpy as np
import pytest

from privpac.audit import (
    AuditCase,
    NeighbourPair,
    audit_outputs,
    clopper_pearson,
    get_case,
    list_cases,
    run_audit,
)
from privpac.errors import InvalidParameterError
from privpac.mechanisms import choosing_plan, laplace_scale, sample_log_weights
from privpac.random import discrete_laplace_array

REQUIRED = {"laplace", "exponential", "exponential-step", "adist", "adist-paper-literal", "choosing"}


def test_registry_lists_the_required_audits():
    names = {c.name for c in list_cases()}
    assert REQUIRED <= names
    with pytest.raises(InvalidParameterError, match="no audit named"):
        get_case("nope")
    assert get_case("adist").pairs(1.0, 1e-6)[0].dataset == [5, 3]
    assert get_case("adist").pairs(1.0, 1e-6)[0].neighbour == [6, 2]


@pytest.mark.parametrize("name", sorted(REQUIRED - {"adist-paper-literal"}))
def test_correct_mechanisms_pass(name):
    report = run_audit(name, trials=100_000, seed=1)
    assert not report.violation, "\n".join(report.lines())
    assert all(r.epsilon_lower_bound <= report.epsilon for r in report.empirical)


def test_paper_literal_adist_is_flagged_empirically_and_exactly():
    report = run_audit("adist-paper-literal", trials=100_000, seed=1)
    assert report.violation
    assert any(r.violation for r in report.empirical)
    assert any(not e.passed for _, e in report.exact)
    assert report.max_lower_bound > 1.5


def _under_noised_laplace(value, n, rng, epsilon, delta):
    # Half the noise the sensitivity needs: epsilon-DP is claimed, 2 epsilon is delivered.
    return value + discrete_laplace_array(float(laplace_scale(1, epsilon)) / 2, n, rng)


def _correct_laplace(value, n, rng, epsilon, delta):
    return value + discrete_laplace_array(float(laplace_scale(1, epsilon)), n, rng)


def test_under_noised_laplace_is_flagged():
    pairs = lambda eps, delta: [NeighbourPair("0 vs 1", 0, 1)]  # noqa: E731
    bad = AuditCase("laplace-half-noise", "negative control", _under_noised_laplace, pairs, delta=0.0)
    good = AuditCase("laplace-correct", "control", _correct_laplace, pairs, delta=0.0)
    assert run_audit(bad, trials=100_000, seed=2).violation
    assert not run_audit(good, trials=100_000, seed=2).violation


def test_choosing_without_precondition_is_flagged():
    m = 6

    def run(counts, n, rng, eps, delta):
        plan = choosing_plan(counts, m, 0.5, eps)
        z = discrete_laplace_array(float(plan.scale), n, rng)
        picks = np.asarray(plan.solutions)[sample_log_weights(plan.log_weights, rng, size=n)]
        return np.where(z >= plan.release_at, picks, -1)

    case = AuditCase(
        "choosing-small-m",
        "choosing mechanism below its precondition",
        run,
        lambda eps, delta: [NeighbourPair("singleton vs none", {0: 5, 1: 1}, {0: 6})],
    )
    assert run_audit(case, trials=50_000, seed=3).violation


def test_scalar_events():
    rng = np.random.default_rng(0)
    a = rng.laplace(0.0, 1.0, 100_000)
    b = rng.laplace(1.0, 1.0, 100_000)
    ok = audit_outputs(a, b, 1.0, 0.0, kind="scalar")
    assert not ok.violation and ok.epsilon_lower_bound > 0.5
    bad = audit_outputs(a, rng.laplace(3.0, 1.0, 100_000), 1.0, 0.0, kind="scalar")
    assert bad.violation


def test_clopper_pearson_bounds():
    lo, hi = clopper_pearson(50, 100, 0.025)
    assert 0.39 < lo < 0.5 < hi < 0.61
    assert clopper_pearson(0, 10, 0.05)[0] == 0.0
    assert clopper_pearson(10, 10, 0.05)[1] == 1.0
    assert math.isclose(clopper_pearson(0, 100, 0.05)[1], 1 - 0.05 ** (1 / 100), rel_tol=1e-9)


def test_audit_input_validation():
    with pytest.raises(InvalidParameterError, match="20 runs"):
        audit_outputs([1] * 5, [1] * 5, 1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="kind"):
        audit_outputs([1] * 50, [1] * 50, 1.0, 0.0, kind="vector")
