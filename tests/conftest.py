import warnings

import pytest

from privpac.accountant import reset_default
from privpac.errors import PaperLiteralWarning


def pytest_collection_modifyitems(items):
    """An expected failure (``xfail``: scikit-learn's declared expected failures, 264 of them) formats
    its traceback natively. pytest's default style parses the source of every frame to show it,
    which for scikit-learn's checks cost about 50 of the 54 seconds their file took; a test that is
    not expected to fail keeps pytest's full report."""
    for item in items:
        if item.get_closest_marker("xfail") is not None:
            item.repr_failure = _native_failure


def _native_failure(excinfo):
    return excinfo.getrepr(style="native")


def pytest_runtest_setup(item):
    """A test marked ``xdist_group`` fails when ``--dist loadgroup`` did not group it (pytest-xdist
    marks a grouped test's node id with ``@group``): the engine tests share one Dask cluster or Spark
    session per group, and without the grouping both workers rebuild them, silently slower."""
    if getattr(item.config.option, "loadgroup", False) and item.get_closest_marker("xdist_group"):
        if "@" not in item.nodeid:
            pytest.fail(
                "pytest-xdist's --dist loadgroup did not group this test (pytest 9.2 with pytest-xdist 3.8, "
                "pytest-dev/pytest-xdist#1386): install the test extra's pytest (pip install -e '.[test]')"
            )


@pytest.fixture(autouse=True)
def fresh_default_accountant():
    """Every test starts with a fresh default accountant and leaves none behind."""
    reset_default()
    yield
    reset_default()


@pytest.fixture
def no_literal_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PaperLiteralWarning)
        yield


def chi_square_pvalue(observed, expected_probs):
    """Pearson goodness-of-fit p-value, pooling cells with small expected counts."""
    import numpy as np
    from scipy.stats import chi2

    observed = np.asarray(observed, dtype=float)
    n = observed.sum()
    expected = np.asarray(expected_probs, dtype=float) * n
    order = np.argsort(expected)
    obs_sorted, exp_sorted = observed[order], expected[order]
    cells_o, cells_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(obs_sorted, exp_sorted):
        acc_o += o
        acc_e += e
        if acc_e >= 5:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 and cells_e:
        cells_o[-1] += acc_o
        cells_e[-1] += acc_e
    cells_o, cells_e = np.asarray(cells_o), np.asarray(cells_e)
    stat = float(((cells_o - cells_e) ** 2 / cells_e).sum())
    return float(chi2.sf(stat, max(len(cells_e) - 1, 1)))
