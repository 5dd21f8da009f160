"""Utility warnings: a fit below the records its learner needs says so, from public inputs only."""

import warnings

import numpy as np
import pytest

from privpac.datasets import make_margin_data, make_rectangles
from privpac.errors import UtilityWarning
from privpac.estimators import (
    PrivateHalfspaceClassifier,
    PrivateMedian,
    PrivatePointClassifier,
    PrivateRectangleClassifier,
    PrivateThresholdClassifier,
)


def _utility_messages(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, UtilityWarning)]


def _threshold_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2**63, size=n, dtype=np.uint64).reshape(-1, 1)
    return X, (X[:, 0] > np.uint64(2**62)).astype(int)


def test_a_threshold_on_two_to_the_64_with_wine_sized_data_warns_and_names_the_figure():
    X, y = _threshold_data(124, 0)
    clf = PrivateThresholdClassifier(domain=(0, 2**64 - 1), method="exponential", random_state=0)
    (message,) = _utility_messages(lambda: clf.fit(X, y))
    assert "got n = 124" in message and "2^64" in message and "smaller domain" in message
    needed = int(message.split("needs about ")[1].split(" records")[0].replace(",", ""))
    assert 124 < needed < 1000


def test_enough_records_give_no_warning():
    X, y = _threshold_data(5000, 0)
    clf = PrivateThresholdClassifier(domain=(0, 2**64 - 1), method="exponential", random_state=0)
    assert _utility_messages(lambda: clf.fit(X, y)) == []


@pytest.mark.parametrize("make_fit", ["threshold", "median", "rectangle", "halfspace", "halfspace-logistic", "point"])
def test_the_warning_depends_on_public_inputs_only(make_fit):
    """Two datasets of the same public shape give the same warning text (or none), never a data figure."""

    def fit(seed):
        if make_fit == "threshold":
            X, y = _threshold_data(124, seed)
            est = PrivateThresholdClassifier(domain=(0, 2**64 - 1), random_state=0)
            return lambda: est.fit(X, y)
        if make_fit == "median":
            X = np.random.default_rng(seed).integers(0, 100 * (seed + 1), size=442).reshape(-1, 1)
            est = PrivateMedian(delta=1e-6, domain=(0, 2**64 - 1), method="recconcave", random_state=0)
            return lambda: est.fit(X)
        if make_fit == "rectangle":
            ds = make_rectangles(150, 4, 15, rng=seed)
            est = PrivateRectangleClassifier(domain=(0, 15), random_state=0)
            return lambda: est.fit(ds.X, ds.y)
        if make_fit == "halfspace":
            ds = make_margin_data(200, 3, 0.1 + 0.2 * seed, rng=seed)
            est = PrivateHalfspaceClassifier(epsilon=0.1, domain=1.0, margin=0.1, variant="practical", random_state=0)
            return lambda: est.fit(ds.X, ds.y)
        if make_fit == "halfspace-logistic":
            ds = make_margin_data(100, 3, 0.1 + 0.2 * seed, rng=seed)
            est = PrivateHalfspaceClassifier(epsilon=0.1, domain=1.0, random_state=0)
            return lambda: est.fit(ds.X, ds.y)
        X = np.random.default_rng(seed).integers(0, 2**40, size=30).reshape(-1, 1)
        est = PrivatePointClassifier(domain=(0, 2**40), random_state=0)
        return lambda: est.fit(X, (X[:, 0] == X[0, 0]).astype(int))

    first, second = _utility_messages(fit(0)), _utility_messages(fit(1))
    assert first == second
    assert len(first) == 1, first  # each of these settings is below its learner's need


def test_the_median_warns_below_recconcave_requirement():
    X = np.arange(442).reshape(-1, 1)
    (message,) = _utility_messages(
        lambda: PrivateMedian(delta=1e-6, domain=(0, 2**64 - 1), method="recconcave", random_state=0).fit(X)
    )
    assert "got 442" in message and "median" in message


def test_rectangles_below_the_measured_size_warn_that_the_box_may_be_empty():
    ds = make_rectangles(150, 4, 15, rng=0)
    (message,) = _utility_messages(lambda: PrivateRectangleClassifier(domain=(0, 15), random_state=0).fit(ds.X, ds.y))
    assert "got n = 150" in message and "empty" in message
