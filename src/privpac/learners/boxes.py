"""Boxes on a public grid: the hypothesis class, the direction embedding, the non-private fit.

The rectangle learners (RandMargins, the composition baseline) work on grid points
``x in {0..x_max_1} x ... x {0..x_max_d}``: integer indices into a public domain.

Classes (Sadigurschi and Stemmer, Def. 3.1 and Remark 1.8; spec ss-rectangles 2 and 3.9):

* ``"orthant"``: the paper's origin-anchored class ``REC_d``, ``h_p(x) = 1`` iff ``x_i <= p_i``
  for every ``i`` (VC dimension ``d``);
* ``"box"``: general closed boxes ``prod [a_i, b_i]`` (VC dimension ``2d``).

**Direction embedding.** A box is an anchored orthant in ``2d`` *directions*: direction ``i``
reads coordinate ``i`` as it is (its threshold is the upper bound ``b_i``), direction ``d + i``
reads it mirrored, ``x_max_i - x_i`` (its threshold ``x_max_i - a_i`` gives the lower bound).
``phi(x) = (x, x_max - x)`` maps the box ``[a, b]`` exactly onto the orthant
``(b, x_max - a)``, so realizability is preserved and the learners below only ever cut margins
from the top of one direction. The order of directions is public and fixed (uppers first).
A threshold of ``-1`` (the sentinel of RandMargins-Robust) means "below everything" and decodes
to the empty box.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..errors import DataError, InvalidParameterError
from ..validation import check_choice, check_int, check_labels

__all__ = [
    "SHAPES",
    "Directions",
    "BoxHypothesis",
    "as_grid_points",
    "check_x_max",
    "direction_values",
    "grid_positives",
    "tightest_fit",
    "grid_dtype",
]

SHAPES = ("box", "orthant")
_UINT64_MAX = 2**64 - 1


def check_x_max(x_max, dimension: int | None = None) -> tuple[int, ...]:
    """Per-feature largest grid index, as a tuple of Python ints in ``[0, 2^64 - 1]``.

    A scalar applies to every feature (``dimension`` must then be given).
    """
    if isinstance(x_max, numbers.Integral) and not isinstance(x_max, bool):
        if dimension is None:
            raise InvalidParameterError("x_max is a scalar: the dimension must be given")
        values = [int(x_max)] * check_int(dimension, "dimension", low=1)
    else:
        try:
            values = [check_int(v, "x_max") for v in list(x_max)]
        except TypeError:
            raise InvalidParameterError(f"x_max must be an integer or a sequence of integers, got {x_max!r}") from None
        if dimension is not None and len(values) != dimension:
            raise InvalidParameterError(f"x_max has {len(values)} entries but the dimension is {dimension}")
    if not values:
        raise InvalidParameterError("the dimension must be at least 1")
    for v in values:
        if v < 0 or v > _UINT64_MAX:
            raise InvalidParameterError(f"x_max must lie in [0, 2^64 - 1] (grids of at most 2^64 points), got {v}")
    return tuple(values)


def grid_dtype(x_max: tuple[int, ...]) -> np.dtype:
    """The smallest unsigned integer type holding every coordinate."""
    top = max(x_max)
    for dt in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dt).max:
            return np.dtype(dt)
    return np.dtype(np.uint64)


def as_grid_points(X, x_max: tuple[int, ...], name: str = "X") -> np.ndarray:
    """Validate grid points and return them as a Fortran-ordered unsigned array.

    ``X`` has shape ``(n, d)`` with integer entries, column ``i`` in ``[0, x_max[i]]``. Object
    arrays of Python ints (coordinates beyond int64) are accepted.
    """
    d = len(x_max)
    if isinstance(X, np.ndarray) and X.dtype == object:
        arr = X
    else:
        arr = np.asarray(X)
    if arr.ndim != 2:
        raise DataError(f"{name} must be 2-dimensional (n, {d}), got shape {arr.shape}")
    if arr.shape[1] != d:
        raise DataError(f"{name} has {arr.shape[1]} features but the domain has {d}")
    dtype = grid_dtype(x_max)
    if arr.dtype == object:
        flat = arr.ravel()
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in flat):
            raise DataError(f"{name} must contain integers (grid indices)")
        lo = min((int(v) for v in flat), default=0)
        if lo < 0:
            raise DataError(f"{name} contains {lo}, below 0")
        hi = max((int(v) for v in flat), default=0)
        if hi > _UINT64_MAX:
            raise DataError(f"{name} contains {hi}, above the domain")
        arr = np.array([[int(v) for v in row] for row in arr], dtype=np.uint64).reshape(arr.shape)
    elif np.issubdtype(arr.dtype, np.floating):
        if not np.all(np.isfinite(arr)):
            raise DataError(f"{name} contains NaN or infinite values")
        if not np.all(arr == np.round(arr)):
            raise DataError(f"{name} contains non-integer values; grid points are integer indices")
        if arr.size and (arr.min() < 0 or arr.max() >= 2.0**53):
            raise DataError(f"{name} has float entries outside [0, 2^53); pass integers")
        arr = arr.astype(np.uint64)
    elif np.issubdtype(arr.dtype, np.signedinteger):
        if arr.size and arr.min() < 0:
            raise DataError(f"{name} contains {arr.min()}, below 0")
    elif not np.issubdtype(arr.dtype, np.unsignedinteger):
        raise DataError(f"{name} must contain integers, got dtype {arr.dtype}")
    if arr.size:
        col_max = arr.max(axis=0)
        for i, (m, top) in enumerate(zip(col_max.tolist(), x_max)):
            if int(m) > top:
                raise DataError(f"{name}[:, {i}] contains {int(m)}, outside the domain [0, {top}]")
    return np.asfortranarray(arr.astype(dtype, copy=False))


def grid_positives(X, y, x_max, plan_for):
    """``(plan_for(x_max), positives)``: the rectangle learners' common reading of labelled grid points.

    Checks, in this order, that ``X`` is 2-D, the domain ``x_max`` (:func:`check_x_max`), the
    learner's public plan (``plan_for(x_max)``, so a bad budget is refused before the data is read),
    the grid points (:func:`as_grid_points`) and the labels in {0, 1}; returns the positives as a
    Fortran-ordered array (only they are read by the learners).
    """
    if np.ndim(X) != 2:
        raise DataError(f"X must be 2-dimensional (n, d), got shape {np.shape(X)} (use X.reshape(-1, 1) for d = 1)")
    x_max = check_x_max(x_max, np.shape(X)[1])
    plan = plan_for(x_max)
    P = as_grid_points(X, x_max)
    y01 = check_labels(y, (0, 1), P.shape[0])
    return plan, np.asfortranarray(P[y01 == 1])


@dataclass(frozen=True)
class Directions:
    """The public order of directions: ``d`` for orthants, ``2d`` (uppers then lowers) for boxes."""

    shape: str
    dimension: int

    def __post_init__(self):
        check_choice(self.shape, "shape", SHAPES)
        check_int(self.dimension, "dimension", low=1)

    @property
    def n_directions(self) -> int:
        return self.dimension if self.shape == "orthant" else 2 * self.dimension

    def column(self, j: int) -> int:
        return j % self.dimension

    def mirrored(self, j: int) -> bool:
        return j >= self.dimension


def direction_values(P: np.ndarray, x_max: tuple[int, ...], directions: Directions, j: int, rows=None) -> np.ndarray:
    """Coordinates of ``P`` (optionally only ``rows``) read in direction ``j``."""
    c = directions.column(j)
    col = P[:, c] if rows is None else P[rows, c]
    if directions.mirrored(j):
        return P.dtype.type(x_max[c]) - col
    return col


@dataclass(frozen=True)
class BoxHypothesis:
    """The closed box ``prod [lower_i, upper_i]`` over grid indices (empty when some lower > upper).

    ``predict(x) = 1`` iff ``lower_i <= x_i <= upper_i`` for every ``i``: a point on an edge is
    inside.
    """

    lower: tuple[int, ...]
    upper: tuple[int, ...]

    @property
    def dimension(self) -> int:
        return len(self.lower)

    @property
    def empty(self) -> bool:
        return any(lo > hi for lo, hi in zip(self.lower, self.upper))

    @classmethod
    def from_thresholds(
        cls, thresholds, x_max: tuple[int, ...], shape: str, lower_default: tuple[int, ...] | None = None
    ) -> BoxHypothesis:
        """Decode one threshold per direction (``-1`` = below everything) into a box."""
        directions = Directions(shape, len(x_max))
        if len(thresholds) != directions.n_directions:
            raise InvalidParameterError(f"expected {directions.n_directions} thresholds, got {len(thresholds)}")
        lower = list(lower_default) if lower_default is not None else [0] * len(x_max)
        upper = list(x_max)
        for j, p in enumerate(thresholds):
            c = directions.column(j)
            p = int(p)
            if directions.mirrored(j):
                lower[c] = x_max[c] - p  # p = -1 gives x_max + 1: empty
            else:
                upper[c] = p  # p = -1: empty
        return cls(tuple(lower), tuple(upper))

    @classmethod
    def empty_box(cls, dimension: int) -> BoxHypothesis:
        return cls((1,) * dimension, (0,) * dimension)

    def predict(self, P: np.ndarray) -> np.ndarray:
        """0/1 predictions (int64) for grid points ``P`` of shape ``(n, d)`` (validated by the caller)."""
        n = P.shape[0]
        if self.empty:
            return np.zeros(n, dtype=np.int64)
        inside = np.ones(n, dtype=bool)
        for i, (lo, hi) in enumerate(zip(self.lower, self.upper)):
            col = P[:, i]
            if lo > 0:
                inside &= col >= lo
            inside &= col <= hi
        return inside.astype(np.int64)

    def to_dict(self) -> dict:
        return {"lower": [str(v) for v in self.lower], "upper": [str(v) for v in self.upper]}

    @classmethod
    def from_dict(cls, d: dict) -> BoxHypothesis:
        return cls(tuple(int(v) for v in d["lower"]), tuple(int(v) for v in d["upper"]))


def tightest_fit(P: np.ndarray, y, x_max: tuple[int, ...], shape: str = "box") -> BoxHypothesis:
    """The non-private tightest fit: the bounding box of the positives (the empty box if none).

    For ``shape="orthant"`` the lower bounds stay at 0. A consistent learner for realizable
    data (Blumer, Ehrenfeucht, Haussler, Warmuth 1989). **Not private**: a benchmark reference.
    """
    check_choice(shape, "shape", SHAPES)
    y = np.asarray(y)
    pos = P[y == 1]
    d = len(x_max)
    if pos.shape[0] == 0:
        return BoxHypothesis.empty_box(d)
    upper = tuple(int(v) for v in pos.max(axis=0).tolist())
    lower = tuple(int(v) for v in pos.min(axis=0).tolist()) if shape == "box" else (0,) * d
    return BoxHypothesis(lower, upper)
