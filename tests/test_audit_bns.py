import pytest

from privpac.audit import get_case, list_cases, run_audit

REQUIRED = {
    "recconcave",
    "interior-point",
    "interior-point-exponential",
    "point-learner",
    "point-learner-paper-literal",
    "threshold-learner",
    "em-learner",
}


def test_cases_are_registered():
    assert REQUIRED <= {c.name for c in list_cases()}
    assert get_case("point-learner-paper-literal").expect_violation


@pytest.mark.parametrize("name", sorted(REQUIRED - {"point-learner-paper-literal"}))
def test_bns_audits_pass(name):
    report = run_audit(name, trials=20_000, seed=3)
    assert not report.violation, "\n".join(report.lines())
    assert report.exact and all(e.passed for _, e in report.exact)


def test_paper_literal_point_learner_is_flagged():
    report = run_audit("point-learner-paper-literal", trials=100_000, seed=3)
    assert report.violation
    assert any(r.violation for r in report.empirical)
    assert any(not e.passed for _, e in report.exact)
