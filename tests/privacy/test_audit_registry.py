"""Every registered audit, run through the entry point users call, and the laws it borrows.

* every case reaches its verdict (negative controls flagged, the rest not) at small trial counts:
  the exact laws, enumerated from the shipped code, carry most of the weight;
* every model of ``estimators.MODELS`` is fitted by at least one registered audit;
* a case whose exact law comes from a second implementation (``law``) agrees with the law the
  shipped entry point samples (a chi-square test on its views).
"""

import json
import warnings
from collections import Counter

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.audit import get_case, list_cases, run_audit
from privpac.audit.registry import _view
from privpac.estimators import MODELS
from privpac.random import SeededRandom

CASES = list_cases()


def _randmargins_literal(report):
    assert any(not e.passed for _, e in report.exact)  # the exact check flags it
    assert any("NOT PRIVATE" in note for note in report.notes)  # the release says so itself


def _randmargins(report):
    # four empirical pairs (top corner, window boundary, ties, few positives), each through two views
    assert len(report.empirical) == 8 and len({r.pair.split(" [")[0] for r in report.empirical}) == 4
    assert len(report.exact) == 2
    assert all(e.certified for _, e in report.exact)


def _rectangle_composition(report):
    assert len(report.exact) == 3


#: What some reports must show beyond their verdict, read off the same run (one audit per case, not two).
REPORT_CHECKS = {
    "randmargins-paper-literal": _randmargins_literal,
    "randmargins": _randmargins,
    "rectangle-composition": _rectangle_composition,
}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_registered_audit_reaches_its_verdict(case):
    report = run_audit(case, trials=min(case.trials, 200), seed=1)
    assert report.violation == case.expect_violation, "\n".join(report.lines())
    if case.expect_violation:  # flagged by a measurement, not by a broken run
        assert any(not e.passed for _, e in report.exact) or any(r.violation for r in report.empirical)
    else:
        assert not report.findings
    assert report.exact or not case.exact  # an enumerable case must give exact checks
    if case.name in REPORT_CHECKS:
        REPORT_CHECKS[case.name](report)


def test_the_report_checks_name_registered_cases():
    assert set(REPORT_CHECKS) <= {c.name for c in CASES}


def test_every_model_is_fitted_by_a_registered_audit():
    fitted = set()
    for case in CASES:
        pair = case.pairs(case.epsilon, case.delta)[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release = case.release(pair.dataset, SeededRandom(0), case.epsilon, case.delta)
        if isinstance(release, str) and '"model":{' in release:
            fitted.add(json.loads(release)["model"]["model"])
    assert fitted >= set(MODELS), sorted(set(MODELS) - fitted)


@pytest.mark.parametrize("name", sorted(c.name for c in CASES if c.law is not None))
def test_a_borrowed_law_is_the_law_the_entry_point_samples(name):
    case = get_case(name)
    n = 1500
    for pair in case.pairs(case.epsilon, case.delta)[:1]:
        for data in (pair.dataset, pair.neighbour):
            law = case.law(data, case.epsilon, case.delta)
            src = SeededRandom(7)
            seen = Counter(
                _view(case, case.release(data, src.spawn(), case.epsilon, case.delta), data)[0][1] for _ in range(n)
            )
            keys = list(law)
            assert set(seen) <= {k for k in keys if law[k] > 0}, set(seen) - set(keys)
            observed = np.array([seen.get(k, 0) for k in keys])
            assert chi_square_pvalue(observed, np.array([law[k] for k in keys])) > 1e-3


def test_an_audit_can_be_restricted_to_the_pairs_named():
    from click.testing import CliRunner

    from privpac.cli import main
    from privpac.errors import InvalidParameterError

    case = get_case("histogram")
    labels = [p.label for p in case.pairs(case.epsilon, case.delta)]
    assert len(labels) >= 2
    report = run_audit("histogram", trials=100, pair_filter=labels[-1])
    audited = {label for label, _ in report.exact} | {r.pair.split(" [")[0] for r in report.empirical}
    assert audited == {labels[-1]}
    assert report.exact or report.empirical
    with pytest.raises(InvalidParameterError, match="no pair"):
        run_audit("histogram", trials=100, pair_filter="no such pair")
    res = CliRunner().invoke(main, ["audit", "histogram", "--trials", "100", "--pair", "no such pair"])
    assert res.exit_code == 1 and "no pair" in res.output and "Traceback" not in res.output
