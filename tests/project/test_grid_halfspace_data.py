"""The grid-halfspace data of the halfspace comparison: realisable, on the grid, with its margin."""

import numpy as np
import pytest

from privpac.datasets import grid_halfspace_target, make_grid_halfspace_data
from privpac.errors import InvalidParameterError


@pytest.mark.parametrize("d, bound, margin", [(1, 8, 0.0), (2, 128, 0.1), (3, 2**15, 0.05), (5, 4, 0.0)])
def test_points_on_grid_labelled_by_target_with_margin(d, bound, margin):
    target = grid_halfspace_target(d, bound, rng=3)
    ds = make_grid_halfspace_data(500, d, bound, margin=margin, target=target, rng=4)
    a, w = target
    assert ds.X.shape == (500, d) and ds.X.dtype.kind == "i"
    assert ds.X.min() >= -bound and ds.X.max() <= bound
    assert np.array_equal(ds.y, (ds.X @ a >= w).astype(int))
    distance = np.abs(ds.X @ a - w) / np.linalg.norm(a)
    assert distance.min() >= margin * bound * np.sqrt(d) - 1e-9
    assert (ds.domain.lo, ds.domain.hi) == (-bound, bound)


def test_same_seed_same_data_and_labels_choice():
    one = make_grid_halfspace_data(50, 2, 16, rng=7, labels=(-1, 1))
    two = make_grid_halfspace_data(50, 2, 16, rng=7, labels=(-1, 1))
    assert np.array_equal(one.X, two.X) and set(np.unique(one.y)) <= {-1, 1}


def test_bad_target_and_margin_refused():
    with pytest.raises(InvalidParameterError):
        make_grid_halfspace_data(10, 2, 4, target=(np.zeros(2, dtype=int), 0))
    with pytest.raises(InvalidParameterError):
        make_grid_halfspace_data(10, 1, 4, margin=1.0)
