import math

import numpy as np
import pytest

from privpac.accounting import PrivacyLedger
from privpac.audit import run_audit
from privpac.errors import DataError, InvalidParameterError, PreconditionError
from privpac.learners.rectangles_bns import bns_rectangle_plan, box_from_cdf, learn_rectangle_bns
from privpac.random import audit_source
from privpac.sanitizers.database import SanitizedDatabase


def test_plan_composes_within_budget():
    for constants in ("paper", "tuned"):
        plan = bns_rectangle_plan(0.1, 0.1, 1.0, 1e-6, [2**16, 2**16], constants)
        assert plan.alpha_axis == 0.1 / 16 and plan.beta_axis == 0.1 / 4
        ledger = PrivacyLedger(1.0, 1e-6)
        plan.calibration.open_block(ledger, "axes")
        assert ledger.spent[0] <= 1.0 + 1e-12 and ledger.spent[1] <= 1e-6 * (1 + 1e-12)
        assert plan.utility_size > 1e11  # astronomically large, as the spec warns
    paper = bns_rectangle_plan(0.1, 0.1, 1.0, 1e-6, [16], "paper")
    assert math.isclose(paper.calibration.epsilon_each, 1 / (2 * math.sqrt(2 * math.log(2e6))))


def test_box_from_cdf():
    # positives at 2 (weight 1), 5 (weight 8), 9 (weight 1); sentinel N = 12 carries the negatives (10)
    db = SanitizedDatabase(np.array([2, 5, 9, 12]), np.array([1.0, 8.0, 1.0, 10.0]), 20.0, 13)
    assert box_from_cdf(db, 12, 0.02) == (2, 9)  # every positive kept
    assert box_from_cdf(db, 12, 0.04) == (2, 5)  # the right end tolerates 2 alpha_s
    assert box_from_cdf(db, 12, 0.06) == (5, 5)  # the light ends are cut (each 0.05 of the sample)
    empty = SanitizedDatabase(np.array([], dtype=np.int64), np.array([]), 0.0, 13)
    a, b = box_from_cdf(empty, 12, 0.05)
    assert a > b


def test_learner_recovers_a_box_at_theorem_size():
    rng = np.random.default_rng(0)
    plan = bns_rectangle_plan(0.5, 0.5, 1.0, 1e-3, [64, 64])
    m = math.ceil(plan.utility_size)
    X = np.unique(rng.integers(0, 64, (300, 2)), axis=0)
    y = ((X[:, 0] >= 10) & (X[:, 0] <= 40) & (X[:, 1] >= 5) & (X[:, 1] <= 50)).astype(int)
    counts = rng.multinomial(m, np.ones(len(X)) / len(X))
    ledger = PrivacyLedger(1.0, 1e-3)
    box = learn_rectangle_bns(X, y, counts=counts, axis_sizes=[64, 64], alpha=0.5, beta=0.5, epsilon=1.0,
                              delta=1e-3, ledger=ledger, rng=audit_source(1))  # fmt: skip
    pred = box.predict(X)
    assert np.all(pred <= y)  # no false positives: the box lies inside the target
    assert np.sum(counts * (pred != y)) / counts.sum() <= 0.75 * 0.5
    assert ledger.spent[0] <= 1.0 + 1e-9


def test_learner_bad_inputs_and_precondition():
    X = np.array([[1, 2], [3, 4]])
    kw = dict(axis_sizes=[8, 8], alpha=0.5, beta=0.5, epsilon=1.0, delta=1e-3)
    with pytest.raises(PreconditionError):
        learn_rectangle_bns(X, [1, 0], **kw)
    with pytest.raises(DataError):
        learn_rectangle_bns(X, [1, 2], **kw)
    with pytest.raises(DataError):
        learn_rectangle_bns(X[:, :1], [1, 0], **kw)
    with pytest.raises(DataError):
        learn_rectangle_bns(X, [1, 0], counts=[0, 0], **kw)


def test_rectangle_audit():
    assert not run_audit("rectangle-learner-bns", trials=60).violation


def test_estimator_method_bns_with_counts_and_cli_name():
    from privpac.errors import PreconditionError
    from privpac.estimators import PrivateRectangleClassifier

    rng = np.random.default_rng(3)
    plan = bns_rectangle_plan(0.5, 0.5, 1.0, 1e-3, [64, 64])
    m = math.ceil(plan.utility_size)
    X = np.unique(rng.integers(0, 64, (300, 2)), axis=0)
    y = ((X[:, 0] >= 10) & (X[:, 0] <= 40) & (X[:, 1] >= 5) & (X[:, 1] <= 50)).astype(int)
    counts = rng.multinomial(m, np.ones(len(X)) / len(X))
    est = PrivateRectangleClassifier(
        epsilon=1.0, delta=1e-3, domain=(0, 63), method="bns", alpha=0.5, beta=0.5, random_state=2
    ).fit(X, y, counts=counts)
    pred = est.predict(X)
    assert np.all(pred <= y)
    assert np.sum(counts * (pred != y)) / counts.sum() <= 0.75 * 0.5
    assert est.privacy_spent_[0] <= 1.0 + 1e-9 and "Beimel" in est.algorithm_name
    # An ordinary dataset is far below the privacy precondition: a clear error, nothing released.
    with pytest.raises(PreconditionError):
        PrivateRectangleClassifier(epsilon=1.0, delta=1e-3, domain=(0, 63), method="bns").fit(X, y)
    with pytest.raises(InvalidParameterError, match="counts"):
        PrivateRectangleClassifier(domain=(0, 63)).fit(X, y, counts=counts)
