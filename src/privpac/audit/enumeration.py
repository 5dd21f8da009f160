"""The exact output law of the code that ships, by enumerating its random choices.

Every sampler in :mod:`privpac.random` (and the exponential mechanism's index draw) hands an
*enumerating* source the law of the draw it is about to make instead of sampling it
(:attr:`privpac.random.RandomSource.enumerates`). :func:`exact_law` runs a program (an estimator's
``fit`` followed by everything it releases, say) once per path through its random choices, in
depth-first order, and adds up the probability of each output. Nothing is re-implemented: the
law is that of the program as it runs, so a bug in a release path (noise at the wrong scale, a
mechanism at twice its epsilon, a data-dependent field in the release) changes the law the
exact check sees.

Laws of the draws (floating-point evaluations of their closed forms):

* ``uniform_int(lo, hi)``: uniform over ``hi - lo + 1`` outcomes (at most ``max_outcomes``);
* ``bernoulli(p)``, ``bernoulli_exp(x)``: two outcomes, ``p`` and ``exp(-x)``;
* ``discrete_laplace(scale)``: ``(1 - q)/(1 + q) q^|z|``, listed by decreasing probability until
  the remaining tail is below ``min_probability``;
* ``discrete_laplace_exceeds(scale, k)``: two outcomes, ``Pr[Z >= k]``;
* ``exponential(d, lengths, base)``: index ``i`` with the exponential mechanism's exact law
  ``lengths_i 2^(eta d_i) / Z`` (:mod:`privpac.mechanisms.base2`, the same function its float
  views use; ``tests/mechanisms/test_exact_sampling.py`` proves the samplers realise it);
* ``weighted(W)``: ``W_i / sum W``; ``bernoulli_exp2(x)``: ``2^-x``; ``bernoulli_ln2``: ``ln 2``;
  ``bernoulli_pow2_ratio(i, H, num, den, s)``: ``2^(i/H + s) num / den``.

A program may mark a pure computation for reuse (:meth:`privpac.random.RandomSource.reuse`, with a
key naming everything it reads): the enumeration then computes it on the first path that asks and
hands the value to the later paths, so the exact qualities of the geometric learners are not
rebuilt for every outcome of a uniform index, nor RecConcave's noise-free steps (window profile,
block maxima, the mechanisms' preparation) for every path through its noise. The program runs the
same code either way (``tests/privacy/test_enumeration.py`` checks the laws agree).

Paths whose probability falls below ``min_probability`` are not run; their mass is reported as
``lost`` and added to the tolerance of the hockey-stick check, which stays sound (the unseen mass
could at most add ``lost`` to a divergence). A program that draws real-valued noise (Gaussian
noise, uniform floats, raw random words) is not enumerable: :class:`NotEnumerable` is raised.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import NotEnumerable
from ..mechanisms.base2 import _law as exponential_law
from ..mechanisms.laplace import discrete_laplace_pmf, discrete_laplace_sf
from ..random import RandomSource, memoised

__all__ = ["NotEnumerable", "ExactLaw", "exact_law"]


@dataclass
class ExactLaw:
    """An output law: ``probabilities[output]``, the mass ``lost`` to pruning, the paths run."""

    probabilities: dict = field(default_factory=dict)
    lost: float = 0.0
    paths: int = 0

    @property
    def total(self) -> float:
        return math.fsum(self.probabilities.values())


def _laplace_outcomes(scale: Fraction, min_probability: float) -> tuple[list, list]:
    """``0, 1, -1, 2, -2, ...`` with their probabilities, until the two tails hold < min_probability."""
    s = float(scale)
    # Pr[|Z| > K] = 2 q^(K+1) / (1 + q): solve for the smallest K with it below the bound.
    q = math.exp(-1.0 / s)
    k_max = max(0, math.ceil(s * math.log(2.0 / ((1.0 + q) * min_probability))))
    z = np.arange(1, k_max + 1)
    values = [0] + np.column_stack([z, -z]).ravel().tolist()
    probs = discrete_laplace_pmf(np.asarray(values), s).tolist()
    return values, probs


_EXPONENTIAL_LAWS = object()  # the memo's key of the laws of the exponential draws seen last


class _ScriptedSource(RandomSource):
    """Follows a script of outcome indices, then takes the most likely outcome, recording every law."""

    seeded = True
    enumerates = True

    def __init__(self, script: tuple[int, ...], min_probability: float, max_outcomes: int, memo: dict):
        self._script = script
        self._memo = memo  # shared by every path of one exact_law: see RandomSource.reuse
        self._min_probability = min_probability
        self._max_outcomes = max_outcomes
        self.draws: list[tuple[list[float], int]] = []  # (probabilities, index chosen) per draw

    def _law(self, kind: str, params) -> tuple[list, list[float]]:
        if kind == "uniform_int":
            lo, hi = params
            n = hi - lo + 1
            if n > self._max_outcomes:
                raise NotEnumerable(f"a uniform draw over {n} values exceeds max_outcomes={self._max_outcomes}")
            return list(range(lo, hi + 1)), [1.0 / n] * n
        if kind == "bernoulli":
            p = float(params[0])
            return [True, False], [p, 1.0 - p]
        if kind == "bernoulli_exp":
            p = math.exp(-float(params[0]))
            return [True, False], [p, 1.0 - p]
        if kind == "discrete_laplace":
            return _laplace_outcomes(params[0], self._min_probability)
        if kind == "discrete_laplace_exceeds":
            scale, k = params
            p = float(discrete_laplace_sf(k, scale))
            return [True, False], [p, 1.0 - p]
        if kind in ("exponential", "weighted"):
            if kind == "exponential":
                p = self._exponential_law(params)
            else:
                w = np.asarray(params[0], dtype=np.float64)
                p = w / w.sum()
            if p.size > self._max_outcomes:
                raise NotEnumerable(f"a choice among {p.size} candidates exceeds max_outcomes={self._max_outcomes}")
            return list(range(p.size)), p.tolist()
        if kind == "bernoulli_exp2":
            p = 2.0 ** -float(params[0])
            return [True, False], [p, 1.0 - p]
        if kind == "bernoulli_ln2":
            return [True, False], [math.log(2.0), 1.0 - math.log(2.0)]
        if kind == "bernoulli_pow2_ratio":
            i, H, num, den, shift = params
            p = math.exp2(i / H + shift + math.log2(num) - math.log2(den))
            return [True, False], [p, 1.0 - p]
        raise NotEnumerable(f"no law for draws of kind {kind!r}")

    def _exponential_law(self, params) -> np.ndarray:
        # The step mechanism hands every path the same (reused) arrays: their law is computed once. The
        # entry keeps its arrays alive, so no other object can take their ids while it is there.
        recent = self._memo.setdefault(_EXPONENTIAL_LAWS, {})
        key = tuple(map(id, params))
        hit = recent.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], params)):
            return hit[1]
        if len(recent) >= 64:  # arrays built afresh on every path (the finite-list mechanism's) never hit
            recent.clear()
        p = exponential_law(*params)
        recent[key] = (params, p)
        return p

    def choose(self, kind: str, *params):
        outcomes, probs = self._law(kind, params)
        position = len(self.draws)
        if position < len(self._script):
            index = self._script[position]
        else:
            index = int(np.argmax(probs))
        self.draws.append((probs, index))
        return outcomes[index]

    def reuse(self, key, compute):
        return memoised(self._memo, key, compute)

    def randbits(self, k: int) -> int:
        raise NotEnumerable("the program draws raw random bits, whose use the enumeration cannot see")

    def random_words(self, n: int) -> np.ndarray:
        raise NotEnumerable("the program draws real-valued or raw random numbers (not enumerable)")

    def spawn(self) -> _ScriptedSource:
        return self  # one script for the whole program: draws are numbered in the order they happen

    def __repr__(self) -> str:
        return "EnumeratingSource()"


def exact_law(
    program: Callable[[RandomSource], Hashable],
    *,
    min_probability: float = 1e-14,
    max_paths: int = 200_000,
    max_outcomes: int = 4096,
) -> ExactLaw:
    """The output law of ``program(rng)`` over all paths through its random choices.

    ``program`` must be deterministic given its draws and return a hashable output (the release
    text of an estimator, say). Raises :class:`NotEnumerable` when a draw cannot be listed or the
    paths exceed ``max_paths``.
    """
    law = ExactLaw()
    stack: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
    memo: dict = {}  # values of pure computations the program asks to reuse between its paths
    while stack:
        script, _ = stack.pop()
        src = _ScriptedSource(script, min_probability, max_outcomes, memo)
        output = program(src)
        law.paths += 1
        if law.paths > max_paths:
            raise NotEnumerable(f"more than {max_paths} random paths")
        p = 1.0
        for position, (probs, index) in enumerate(src.draws):
            if position >= len(script):
                # Every other outcome of a draw taken for the first time starts a new path.
                for other, q in enumerate(probs):
                    if other == index or q == 0.0:
                        continue
                    mass = p * q
                    if mass < min_probability:
                        law.lost += mass
                    else:
                        prefix = tuple(i for _, i in src.draws[:position]) + (other,)
                        stack.append((prefix, mass))
                law.lost += p * max(0.0, 1.0 - math.fsum(probs))  # a truncated tail
            p *= probs[index]
        law.probabilities[output] = law.probabilities.get(output, 0.0) + p
    return law
