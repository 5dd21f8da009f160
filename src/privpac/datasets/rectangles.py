"""Synthetic realizable distributions for box learners (spec ss-rectangles, section 8).

A :class:`RectangleDistribution` draws points of the grid ``{0..x_max}^d`` and labels them by a
target box (realizable: the target has zero error). Its domain, target and law are fixed by the
generator's parameters, never by the data. Kinds:

* ``"uniform"``: points uniform on the grid, a centred target box of the given mass (50% by
  default) -- the benchmark's distribution; the error of any box is computed exactly;
* ``"ties"``: the same on a coarse grid (``x_max = 15`` unless given): heavy ties per axis;
* ``"skewed"``: uniform with a target of mass 1% (rare positives);
* ``"clustered"``: half the points from a tight cluster around the target's centre (positives
  concentrated), half uniform; errors by Monte Carlo;
* ``"boundary"``: uniform, plus 20% of the points drawn on the target's faces (positives exactly on
  the boundary); errors by Monte Carlo.

``shape="orthant"`` makes the target the paper's anchored box ``[0, u]``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..domains import IntegerDomain
from ..errors import InvalidParameterError
from ..learners.boxes import BoxHypothesis, grid_dtype
from ..random import as_random_source
from ..validation import check_choice, check_int, check_probability
from .real import Dataset

__all__ = ["RectangleDistribution", "RectangleDataset", "make_rectangle_distribution", "make_rectangles"]

KINDS = ("uniform", "ties", "skewed", "clustered", "boundary")
_EXACT_KINDS = ("uniform", "ties", "skewed")


def _generator(rng) -> np.random.Generator:
    """A local numpy generator seeded from a privpac random source (never the global state)."""
    return np.random.default_rng(as_random_source(rng).randbits(128))


@dataclass(frozen=True)
class RectangleDistribution:
    """Points on ``{0..x_max}^d`` labelled 1 inside the target box ``[lower, upper]``."""

    dimension: int
    x_max: int
    lower: tuple[int, ...]
    upper: tuple[int, ...]
    kind: str
    shape: str

    @property
    def target(self) -> BoxHypothesis:
        return BoxHypothesis(self.lower, self.upper)

    @property
    def domain(self) -> IntegerDomain:
        return IntegerDomain(0, self.x_max)

    @property
    def dtype(self) -> np.dtype:
        return grid_dtype((self.x_max,))

    def _box_mass(self, lower, upper) -> float:
        """Uniform mass of a box on the grid (0 for an empty box)."""
        mass = 1.0
        for lo, hi in zip(lower, upper):
            if hi < lo:
                return 0.0
            mass *= (hi - lo + 1) / (self.x_max + 1)
        return mass

    @property
    def positive_mass(self) -> float:
        """Probability of a positive label (exact for the uniform kinds)."""
        if self.kind in _EXACT_KINDS:
            return self._box_mass(self.lower, self.upper)
        _, y = self.sample(200_000, rng=0)
        return float(y.mean())

    def _uniform(self, n: int, gen, lower=None, upper=None) -> np.ndarray:
        lower = (0,) * self.dimension if lower is None else lower
        upper = (self.x_max,) * self.dimension if upper is None else upper
        X = np.empty((n, self.dimension), dtype=self.dtype, order="F")
        for i, (lo, hi) in enumerate(zip(lower, upper)):
            X[:, i] = gen.integers(lo, hi, size=n, endpoint=True, dtype=np.uint64)
        return X

    def sample(self, n: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` labelled points: grid indices (smallest unsigned dtype, Fortran order) and 0/1 labels."""
        n = check_int(n, "n", low=0)
        gen = _generator(rng)
        X = self._uniform(n, gen)
        if self.kind == "clustered":
            centre = np.asarray([(lo + hi) / 2.0 for lo, hi in zip(self.lower, self.upper)])
            spread = np.asarray([max((hi - lo) / 6.0, 0.5) for lo, hi in zip(self.lower, self.upper)])
            pick = gen.random(n) < 0.5
            pts = np.rint(centre + spread * gen.standard_normal(size=(int(pick.sum()), self.dimension)))
            X[pick] = np.clip(pts, 0, self.x_max).astype(self.dtype)
        elif self.kind == "boundary":
            pick = np.flatnonzero(gen.random(n) < 0.2)
            face = gen.integers(0, self.dimension, size=pick.size)
            side = gen.random(pick.size) < 0.5
            inner = self._uniform(pick.size, gen, self.lower, self.upper)
            for i in range(self.dimension):
                rows = face == i
                inner[rows, i] = np.where(side[rows], self.upper[i], self.lower[i])
            X[pick] = inner
        return X, self.target.predict(X)

    def sample_positives(self, n_positive: int, rng=None) -> np.ndarray:
        """Positives only, uniform on the target (uniform kinds): what RandMargins and the baseline read.

        A labelled sample of size ``n`` has ``Binomial(n, positive_mass)`` positives distributed
        exactly like this, and those learners never read negatives, so drawing the positives
        alone gives the same output distribution at a fraction of the memory.
        """
        if self.kind not in _EXACT_KINDS:
            raise InvalidParameterError(f"positives-only sampling is for the uniform kinds, not {self.kind!r}")
        return self._uniform(check_int(n_positive, "n_positive", low=0), _generator(rng), self.lower, self.upper)

    def error(self, hypothesis: BoxHypothesis, n_test: int = 200_000, rng=0) -> float:
        """``Pr[h(x) != target(x)]``: exact for the uniform kinds, Monte Carlo otherwise."""
        if self.kind in _EXACT_KINDS:
            inter_lo = tuple(max(a, b) for a, b in zip(self.lower, hypothesis.lower))
            inter_hi = tuple(min(a, b) for a, b in zip(self.upper, hypothesis.upper))
            h = self._box_mass(hypothesis.lower, hypothesis.upper)
            t = self._box_mass(self.lower, self.upper)
            both = self._box_mass(inter_lo, inter_hi)
            return max(h + t - 2.0 * both, 0.0)
        X, y = self.sample(n_test, rng)
        return float(np.mean(hypothesis.predict(X) != y))


def make_rectangle_distribution(
    dimension: int,
    x_max: int | None = None,
    *,
    kind: str = "uniform",
    positive_mass: float | None = None,
    shape: str = "box",
) -> RectangleDistribution:
    """A realizable distribution with a target box of (about) the given mass.

    ``x_max`` defaults to ``2^16 - 1`` (``15`` for ``kind="ties"``); ``positive_mass`` to 0.5
    (0.01 for ``"skewed"``). The target's side along each axis is ``positive_mass^(1/d)`` of the
    grid, centred (boxes) or starting at 0 (orthants).
    """
    d = check_int(dimension, "dimension", low=1)
    check_choice(kind, "kind", KINDS)
    check_choice(shape, "shape", ("box", "orthant"))
    x_max = (15 if kind == "ties" else 2**16 - 1) if x_max is None else check_int(x_max, "x_max", low=1, high=2**64 - 1)
    mass = (
        (0.01 if kind == "skewed" else 0.5)
        if positive_mass is None
        else check_probability(positive_mass, "positive_mass")
    )
    size = x_max + 1
    side = max(1, min(size, int(round(size * mass ** (1.0 / d)))))
    if shape == "orthant":
        lower, upper = (0,) * d, (side - 1,) * d
    else:
        lo = (size - side) // 2
        lower, upper = (lo,) * d, (lo + side - 1,) * d
    return RectangleDistribution(d, x_max, lower, upper, kind, shape)


@dataclass
class RectangleDataset(Dataset):
    """A labelled sample with the distribution it came from."""

    distribution: RectangleDistribution | None = None


def make_rectangles(
    n: int,
    dimension: int,
    x_max: int | None = None,
    *,
    kind: str = "uniform",
    positive_mass: float | None = None,
    shape: str = "box",
    rng=None,
) -> RectangleDataset:
    """``n`` labelled points from :func:`make_rectangle_distribution` (public domain ``[0, x_max]``)."""
    dist = make_rectangle_distribution(dimension, x_max, kind=kind, positive_mass=positive_mass, shape=shape)
    X, y = dist.sample(n, rng)
    return RectangleDataset(
        X=X,
        y=y,
        domain=dist.domain,
        feature_names=[f"x{i}" for i in range(dist.dimension)],
        description=(
            f"synthetic {kind} rectangle data: {n} points on {{0..{dist.x_max}}}^{dist.dimension}, "
            f"target {shape} [{list(dist.lower)}, {list(dist.upper)}]"
        ),
        distribution=dist,
    )
