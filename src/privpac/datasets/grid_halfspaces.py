"""Realisable halfspace data on a public integer grid, for the grid-based halfspace learners.

The center-point learner (Beimel, Moran, Nissim, Stemmer 2019) and the linear-feasibility
learner (Kaplan, Mansour, Stemmer, Tsfadia 2020) learn halfspaces over the grid
``[[-B, B]]^d`` (integer points): their sample sizes depend on ``B`` and ``d``, their privacy on
the grid being public. :func:`make_grid_halfspace_data` draws points uniformly from that grid and
labels them by a fixed halfspace ``1[<a, x> >= w]`` with integer ``(a, w)``, so the sample is
realisable on the grid by construction; ``margin > 0`` keeps only points whose distance to the
boundary is at least ``margin`` times the grid's half-diagonal ``B sqrt(d)`` (the "with a
margin" setting of the large-margin learner). The public domain is ``IntegerDomain(-B, B)``,
fixed by the parameters.
"""

from __future__ import annotations

import numpy as np

from ..domains import IntegerDomain
from ..errors import InvalidParameterError
from ..validation import check_int, check_real
from .margin import _generator
from .real import Dataset

__all__ = ["make_grid_halfspace_data", "grid_halfspace_target"]


def grid_halfspace_target(d: int, bound: int, rng=0) -> tuple[np.ndarray, int]:
    """A random target ``(a, w)``: integer normal with entries in ``[[-bound, bound]]``, not all zero,
    and an integer offset ``w`` with ``|w| <= bound * ||a||_1 / 4`` (the boundary crosses the grid's middle).
    """
    d = check_int(d, "d", low=1)
    bound = check_int(bound, "bound", low=1)
    g = _generator(rng)
    while True:
        a = g.integers(-bound, bound + 1, size=d)
        if np.any(a != 0):
            break
    reach = int(np.abs(a).sum()) * bound // 4
    w = int(g.integers(-reach, reach + 1)) if reach > 0 else 0
    return a.astype(np.int64), w


def make_grid_halfspace_data(
    n: int, d: int, bound: int, *, margin: float = 0.0, target=None, rng=0, labels=(0, 1)
) -> Dataset:
    """``n`` uniform points of ``[[-bound, bound]]^d`` labelled by the halfspace ``<a, x> >= w``.

    Parameters
    ----------
    margin : float in [0, 1)
        Keep only points at Euclidean distance ``>= margin * bound * sqrt(d)`` from the boundary
        (rejection sampling; ``0``: every grid point).
    target : (a, w), optional
        Integer normal and offset; by default :func:`grid_halfspace_target` with the same ``rng``.
    labels : pair
        How (negative, positive) are written in ``y``.
    """
    n = check_int(n, "n", low=1)
    d = check_int(d, "d", low=1)
    bound = check_int(bound, "bound", low=1)
    margin = check_real(margin, "margin", low=0.0, high=1.0, high_open=True)
    g = _generator(rng)
    a, w = grid_halfspace_target(d, bound, g) if target is None else target
    a = np.asarray(a, dtype=np.int64)
    if a.shape != (d,) or not np.any(a != 0):
        raise InvalidParameterError(f"target normal must be a non-zero integer vector of length {d}")
    w = int(w)
    norm = float(np.linalg.norm(a))
    need = margin * bound * np.sqrt(d) * norm  # distance >= margin * B sqrt(d)  <=>  |<a,x> - w| >= need
    kept: list[np.ndarray] = []
    have = 0
    for _ in range(1000):
        batch = g.integers(-bound, bound + 1, size=(max(2 * (n - have), 64), d))
        gap = batch @ a - w
        batch = batch[np.abs(gap) >= need] if need > 0 else batch
        kept.append(batch)
        have += len(batch)
        if have >= n:
            break
    else:
        raise InvalidParameterError(f"margin {margin} leaves (almost) no grid points on either side of the target")
    X = np.concatenate(kept)[:n]
    y = np.where(X @ a >= w, labels[1], labels[0])
    return Dataset(
        X=X,
        y=y,
        domain=IntegerDomain(-bound, bound),
        feature_names=[f"x{j}" for j in range(d)],
        description=(
            f"synthetic halfspace data on the grid [[-{bound}, {bound}]]^{d}: n={n}, target a={a.tolist()}, "
            f"w={w}, margin >= {margin} of the half-diagonal"
        ),
    )
