"""Real-valued features on a public grid: :class:`Grid` maps values to the indices of ``n_points``
equally spaced values per dimension between public bounds, and :class:`Lattice` maps the grid onto the
integer lattice ``[-B, B]^d`` that the exact geometric learners run on (Beimel, Moran, Nissim, Stemmer
2019; Kaplan, Mansour, Stemmer, Tsfadia 2020), and their answers back to the grid's units."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import DataError, DomainError, InvalidParameterError
from ..validation import check_array, refuse_unsupported

#: Said by every refusal of a real value outside its public domain: the usual cause is a scaler.
SCALER_NOTE = (
    "if a scaler fitted on the private data (MinMaxScaler, StandardScaler) produced these values, it read its "
    "bounds from that data, which leaks them, and its rounding can land just outside: scale by public bounds instead"
)


def outside_message(where: str, value, low, high, clip_hint: str = "pass clip=True to clip to the bounds") -> str:
    """The refusal of a real ``value`` outside ``[low, high]``, every number printed repr-exact."""
    return (
        f"{where} = {float(value)!r} lies outside the declared domain [{float(low)!r}, {float(high)!r}] (refused, "
        f"never silently accepted: {clip_hint}); {SCALER_NOTE}"
    )


class Grid:
    """Real-valued features discretised on a public grid.

    Parameters
    ----------
    low, high : float or array-like
        Public bounds per dimension (a scalar applies to every dimension).
    n_points : int or array-like
        Number of grid points per dimension (>= 2), including both bounds.
    clip : bool
        Values outside ``[low, high]`` raise a :class:`~privpac.errors.DomainError` by default.
        With ``clip=True`` they are moved to the nearest bound: a data-independent map applied
        to each record, so it is free for privacy, but it changes the data and must be a
        conscious choice.

    A value ``x`` maps to the nearest grid index ``round((x - low) / step)``.
    """

    def __init__(self, low, high, n_points=2**16, clip: bool = False):
        low = np.atleast_1d(np.asarray(low, dtype=float))
        high = np.atleast_1d(np.asarray(high, dtype=float))
        n_points = np.atleast_1d(np.asarray(n_points))
        if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            raise InvalidParameterError("domain bounds low and high must be finite")
        dim = max(low.size, high.size, n_points.size)
        try:
            low, high, n_points = (np.broadcast_to(a, (dim,)).copy() for a in (low, high, n_points))
        except ValueError as exc:
            raise InvalidParameterError(f"low, high and n_points have incompatible shapes: {exc}") from exc
        if np.any(high <= low):
            raise InvalidParameterError("every domain bound needs low < high")
        with np.errstate(over="ignore"):
            span = high - low
        if not np.all(np.isfinite(span)):
            raise InvalidParameterError(
                f"the grid from {low.tolist()} to {high.tolist()} is too wide for floating point (high - low overflows)"
            )
        if not np.issubdtype(n_points.dtype, np.integer) or np.any(n_points < 2):
            raise InvalidParameterError("n_points must be integers >= 2")
        self.low = low
        self.high = high
        self.n_points = n_points.astype(np.int64)
        self.clip = bool(clip)

    def broadcast(self, d: int) -> Grid:
        """A one-dimensional grid as the same grid on each of ``d`` features (itself otherwise)."""
        if self.dim == d or self.dim != 1:
            return self
        return Grid(np.repeat(self.low, d), np.repeat(self.high, d), np.repeat(self.n_points, d), clip=self.clip)

    @property
    def dim(self) -> int:
        return self.low.size

    @property
    def step(self) -> np.ndarray:
        return (self.high - self.low) / (self.n_points - 1)

    @property
    def size(self) -> int:
        """Number of grid points (a Python int; the product over dimensions)."""
        out = 1
        for n in self.n_points:
            out *= int(n)
        return out

    @property
    def max_index(self) -> int:
        """Largest index along a dimension (one-dimensional grids only)."""
        if self.dim != 1:
            raise InvalidParameterError("max_index is defined for one-dimensional grids only")
        return int(self.n_points[0]) - 1

    def to_index(self, X, name: str = "X", first_row: int = 0) -> np.ndarray:
        """Indices of the nearest grid points; shape (n,) for 1-D grids on 1-D input, else (n, d).

        Values outside ``[low, high]`` raise :class:`~privpac.errors.DomainError` naming the entry
        (rows counted from ``first_row``), or are clipped with ``clip=True``."""
        refuse_unsupported(X, name)
        X = np.asarray(X) if not isinstance(X, np.ndarray) else X
        refuse_unsupported(X, name)
        X = X.astype(float)
        one_d = X.ndim == 1
        if one_d:
            if self.dim != 1:
                raise DataError(f"{name} must have shape (n, {self.dim}), got {X.shape}")
            X = X.reshape(-1, 1)
        X = check_array(X, name, ndim=2, allow_empty=True)
        if X.shape[1] != self.dim:
            raise DataError(f"{name} has {X.shape[1]} features but the domain has {self.dim}")
        if self.clip:
            X = np.clip(X, self.low, self.high)
        else:
            outside = (X < self.low) | (X > self.high)
            if np.any(outside):
                r, c = np.argwhere(outside)[0]
                raise DomainError(outside_message(f"{name}[{first_row + r}, {c}]", X[r, c], self.low[c], self.high[c]))
        idx = np.rint((X - self.low) / self.step).astype(np.int64)
        np.clip(idx, 0, self.n_points - 1, out=idx)
        return idx[:, 0] if one_d else idx

    def lattice(self, d: int | None = None) -> Lattice:
        """The integer lattice of this grid (broadcast to ``d`` features): :class:`Lattice`."""
        return Lattice(self if d is None else self.broadcast(d))

    def from_index(self, idx) -> np.ndarray:
        """Grid values of indices (array-like, same shapes as :meth:`to_index` returns)."""
        idx = np.asarray(idx, dtype=float)
        if idx.ndim <= 1 and self.dim == 1:
            return self.low[0] + idx * self.step[0]
        return self.low + idx * self.step

    def to_dict(self) -> dict:
        return {
            "type": "grid",
            "low": self.low.tolist(),
            "high": self.high.tolist(),
            "n_points": self.n_points.tolist(),
            "clip": self.clip,
        }

    def __eq__(self, other) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return (
            np.array_equal(self.low, other.low)
            and np.array_equal(self.high, other.high)
            and np.array_equal(self.n_points, other.n_points)
            and self.clip == other.clip
        )

    def __hash__(self) -> int:
        return hash((tuple(self.low), tuple(self.high), tuple(self.n_points), self.clip))

    def __repr__(self) -> str:
        if self.dim == 1:
            return f"Grid(low={self.low[0]}, high={self.high[0]}, n_points={self.n_points[0]})"
        return f"Grid(dim={self.dim}, n_points={self.n_points.tolist()})"


class Lattice:
    """A public grid mapped onto the integer lattice ``[-B, B]^d`` of the exact geometric learners.

    Feature ``j`` of :class:`Grid` ``(low_j, high_j, n_j)`` is written ``x_j = c_j + s_j k_j`` with
    ``c_j = (low_j + high_j)/2`` and an integer ``k_j``: for ``n_j`` odd ``s_j`` is the grid step
    and ``k_j in [-(n_j - 1)/2, (n_j - 1)/2]``; for ``n_j`` even ``s_j`` is half the step and ``k_j``
    runs over the odd integers of ``[-(n_j - 1), n_j - 1]`` (the centre is then no grid point). ``B``
    is the largest ``B_j``: a function of the public grid only.

    :meth:`to_lattice` maps each record by itself (nearest grid point, then ``k``; a value outside
    the grid refused, or clipped with ``clip=True``): a per-record, data-independent map, so
    running a private algorithm on the mapped records has the algorithm's own privacy. The map is
    affine and invertible per feature, so Tukey depth and halfspaces carry over exactly:
    :meth:`point` and :meth:`halfspace` give the answer in the grid's units as exact rationals
    (``c_j`` and ``s_j`` are exact: a float bound is a binary rational). For a linear system whose
    grid is symmetric about 0 (``c = 0``), :meth:`system_solution` undoes the column scaling.
    """

    def __init__(self, grid: Grid):
        if not isinstance(grid, Grid):
            raise InvalidParameterError(f"a Lattice is built from a Grid, got {grid!r}")
        n = grid.n_points.astype(np.int64)
        self.grid = grid
        self._odd = n % 2 == 1
        self._half = (n - 1) // 2
        self._n = n
        self.bounds = np.where(self._odd, (n - 1) // 2, n - 1).astype(np.int64)
        self.B = int(self.bounds.max())
        lows = [Fraction(float(v)) for v in grid.low]
        highs = [Fraction(float(v)) for v in grid.high]
        self.centre = tuple((lo + hi) / 2 for lo, hi in zip(lows, highs))
        self.scale = tuple(
            (hi - lo) / (int(m) - 1) if odd else (hi - lo) / (2 * (int(m) - 1))
            for lo, hi, m, odd in zip(lows, highs, n, self._odd)
        )

    @property
    def dim(self) -> int:
        return self.grid.dim

    def to_lattice(self, X, name: str = "X", first_row: int = 0) -> np.ndarray:
        """The integer lattice points (an int64 array of shape ``(n, d)``) of records ``X`` of shape ``(n, d)``."""
        idx = self.grid.to_index(check_array(X, name, ndim=2, allow_empty=True), name, first_row=first_row)
        return np.where(self._odd, idx - self._half, 2 * idx - (self._n - 1)).astype(np.int64)

    def point(self, k) -> tuple[Fraction, ...]:
        """The point ``c + s k`` in the grid's units (exact) of a lattice point ``k`` (rationals)."""
        return tuple(c + s * Fraction(v) for c, s, v in zip(self.centre, self.scale, k, strict=True))

    def halfspace(self, coef, intercept) -> tuple[tuple[Fraction, ...], Fraction]:
        """The halfspace ``<coef, k> + intercept >= 0`` on the lattice, in the grid's units (exact):
        ``k_j = (x_j - c_j)/s_j`` gives coefficients ``coef_j / s_j`` and intercept
        ``intercept - sum_j coef_j c_j / s_j`` (the same set of points, as ``s_j > 0``)."""
        a = tuple(Fraction(v) / s for v, s in zip(coef, self.scale, strict=True))
        return a, Fraction(intercept) - sum((v * c for v, c in zip(a, self.centre)), Fraction(0))

    def system_solution(self, z) -> tuple[Fraction, ...]:
        """``x`` from the solution ``z`` of the lattice system of ``A x >= b`` (columns of ``A`` then ``b``).

        With the entries ``A_lj = s_j K_lj`` and ``b_l = s_b K_l`` (a grid symmetric about 0), row ``l``
        reads ``sum_j K_lj (s_j x_j / s_b) >= K_l``: the lattice system in ``z_j = s_j x_j / s_b``, so
        ``x_j = s_b z_j / s_j`` satisfies exactly the constraints ``z`` satisfies."""
        *cols, s_b = self.scale
        return tuple(s_b * Fraction(v) / s for v, s in zip(z, cols, strict=True))

    def describe(self) -> str:
        """The lattice and the grid it comes from, for messages."""
        points = sorted({int(v) for v in self._n})
        per = f"{points[0]:,}" if len(points) == 1 else f"{points[0]:,} to {points[-1]:,}"
        return f"the lattice [-{self.B}, {self.B}]^{self.dim} of the public grid ({per} points per feature)"

    def __eq__(self, other) -> bool:
        return isinstance(other, Lattice) and self.grid == other.grid

    def __hash__(self) -> int:
        return hash(self.grid)
