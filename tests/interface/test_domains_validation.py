import inspect
import math

import numpy as np
import pytest

from privpac.domains import Grid, IntegerDomain, as_domain
from privpac.errors import DataError, DomainError, InvalidParameterError
from privpac.learners.linear_feasibility import plan_find_deep_point
from privpac.validation import (
    cached_plan,
    check_array,
    check_delta,
    check_epsilon,
    check_labels,
    check_probability,
)


def test_integer_domain_indices_and_errors():
    d = IntegerDomain(-5, 10)
    assert list(d.to_index([-5, 0, 10])) == [0, 5, 15]
    with pytest.raises(DomainError, match="outside the domain"):
        d.to_index([11])
    with pytest.raises(DataError, match="not an integer"):
        d.to_index([1.5])
    with pytest.raises(DataError, match="NaN"):
        d.to_index([np.nan])
    big = IntegerDomain.bits(70)
    idx = big.to_index([0, 2**69, 2**70 - 1])
    assert idx.dtype == object and idx[2] == 2**70 - 1
    with pytest.raises(DomainError):
        big.to_index([2**70])
    with pytest.raises(InvalidParameterError, match="lo <= hi"):
        IntegerDomain(3, 2)


def test_grid_indices_and_errors():
    g = Grid(0.0, 1.0, 11)
    assert list(g.to_index([0.0, 0.5, 1.0, 0.04])) == [0, 5, 10, 0]
    assert g.from_index(5) == pytest.approx(0.5)
    with pytest.raises(DomainError, match=r"X\[0, 0\] = 1.2 lies outside the declared domain \[0.0, 1.0\]"):
        g.to_index([1.2])
    # every digit printed (a MinMaxScaler's 1.0000000000000002 is not "1"), and the scaler's leak named
    with pytest.raises(DomainError, match=r"= 1.0000000000000002 lies outside .* \[0.0, 1.0\].*scaler fitted on the"):
        g.to_index([0.5, 1.0000000000000002])
    assert list(Grid(0.0, 1.0, 11, clip=True).to_index([1.2, -3])) == [10, 0]
    g2 = Grid([0, 0], [1, 10], [11, 101])
    assert g2.to_index(np.array([[0.5, 5.0]])).tolist() == [[5, 50]]
    with pytest.raises(DataError, match="features"):
        g2.to_index(np.ones((2, 3)))
    with pytest.raises(InvalidParameterError, match="low < high"):
        Grid(1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="n_points"):
        Grid(0.0, 1.0, 1)


def test_as_domain_never_guesses():
    with pytest.raises(DomainError, match="never derives"):
        as_domain(None)
    assert as_domain((0, 255)) == IntegerDomain(0, 255)
    assert isinstance(as_domain((0.0, 1.0, 64)), Grid)
    assert as_domain("0:255") == IntegerDomain(0, 255)  # the command line's text forms
    assert as_domain("0:2**64-1") == IntegerDomain(0, 2**64 - 1)
    assert as_domain("-1.5:2:8") == Grid(-1.5, 2.0, 8)
    assert as_domain((0.0, 40.0)) == Grid(0.0, 40.0)  # real bounds: the grid's default resolution
    for bad in ("0:255:1:2", "a:b", ":3", (0, 1, 2, 3), 3.5):
        with pytest.raises(InvalidParameterError):
            as_domain(bad)


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "1", True])
def test_epsilon_validation(bad):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        check_epsilon(bad)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2, float("nan")])
def test_delta_validation(bad):
    with pytest.raises(InvalidParameterError, match="delta"):
        check_delta(bad)
    assert check_delta(0.0) == 0.0
    with pytest.raises(InvalidParameterError, match="delta"):
        check_delta(0.0, allow_zero=False)


def test_probability_array_and_labels():
    with pytest.raises(InvalidParameterError, match="alpha"):
        check_probability(1.0, "alpha")
    with pytest.raises(DataError, match="reshape"):
        check_array([1, 2, 3])
    with pytest.raises(DataError, match="empty"):
        check_array(np.zeros((0, 2)))
    with pytest.raises(DataError, match="NaN"):
        check_array([[1.0], [np.nan]])
    assert list(check_labels(["no", "yes", "yes"], ("no", "yes"))) == [0, 1, 1]
    with pytest.raises(DataError, match="outside the declared labels"):
        check_labels([0, 2], (0, 1))
    with pytest.raises(DataError, match="entries"):
        check_labels([0, 1], (0, 1), n_samples=3)


def test_cached_plan_shares_calls_with_plain_scalars_only():
    calls = []

    @cached_plan(maxsize=2)
    def plan(x, *, y=0.0):
        calls.append((x, y))
        if x < 0:
            raise InvalidParameterError("x must be >= 0")
        return (x, y)

    assert plan(1) is plan(1) and len(calls) == 1
    assert plan(1.0) == (1.0, 0.0) and len(calls) == 2  # keyed on the types: 1 and 1.0 may print apart
    for _ in range(2):  # -0.0 equals 0.0 but prints apart, nan equals nothing, numpy scalars are not plain
        plan(1, y=-0.0), plan(1, y=float("nan")), plan(np.int64(1)), plan(1, y=np.float64(0.5))
    assert len(calls) == 2 + 8
    for _ in range(2):  # a refusal is raised again on every call
        with pytest.raises(InvalidParameterError):
            plan(-1)
    assert len(calls) == 12 and plan.cache_info().maxsize == 2


def test_find_deep_point_plan_is_shared_and_equal_to_a_fresh_one():
    raw = inspect.unwrap(plan_find_deep_point)
    first = plan_find_deep_point(5, 2, 1, 1.0, 0.0, alpha=0.2)
    assert plan_find_deep_point(5, 2, 1, 1.0, 0.0, alpha=0.2) is first
    assert first == raw(5, 2, 1, 1.0, 0.0, alpha=0.2)
    negative_zero = plan_find_deep_point(5, 2, 1, 1.0, -0.0, alpha=0.2)
    assert math.copysign(1.0, negative_zero.delta) == -1.0  # not the cached plan of delta = 0.0
    assert plan_find_deep_point(np.int64(5), 2, 1, 1.0, 0.0, alpha=0.2) == first
