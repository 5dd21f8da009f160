"""The Gaussian mechanism on real vectors, and its exact calibration by Gaussian differential privacy.

Dong, Roth and Su, "Gaussian Differential Privacy" (JRSS-B 2022; arXiv 1905.02383), Thm 2.7,
Cor 2.13 and Cor 3.3; Balle and Wang, "Improving the Gaussian mechanism" (ICML 2018), Thm 8.
Used by the noisy-gradient learners of Nguyen, Ullman and Zakynthinou (the large-margin
halfspace learners), whose private optimiser "F" may be any DP-ERM algorithm.

Privacy
-------
A vector query ``f`` has L2 sensitivity ``Delta`` when ``||f(S) - f(S')||_2 <= Delta`` for every
pair of replace-one neighbours. Releasing ``f(S) + N(0, sigma^2 I)`` is then ``mu``-GDP with
``mu = Delta / sigma`` (DRS Thm 2.7). ``k`` adaptively chosen releases of this kind (each query
may depend on the earlier outputs) are exactly ``sqrt(k) mu``-GDP (DRS Cor 3.3). A ``mu``-GDP
mechanism is ``(epsilon, delta(epsilon))``-DP for *every* ``epsilon >= 0`` with

    delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)

(DRS Cor 2.13, the same curve as Balle and Wang's analytic Gaussian mechanism), and this curve is
tight: no smaller ``delta`` holds for the worst pair. :func:`gdp_mu` finds, by bisection, the
largest ``mu`` with ``delta(epsilon) <= delta`` (``delta(epsilon)`` increases with ``mu``); a block
of ``k`` releases of sensitivity ``Delta`` then uses ``sigma = Delta sqrt(k) / mu``
(:func:`gaussian_sigma`). zCDP (Bun and Steinke 2016, Prop 1.3) gives a slightly looser
alternative, :func:`zcdp_rho` and :func:`zcdp_epsilon`.

A :class:`GaussianNoise` block is charged to the ledger once, *before* any noise is drawn, with
the whole cost of its ``steps`` releases, and then refuses more than ``steps`` releases. Blocks
whose calibration comes from another theorem (the noisy SGD of Bassily, Smith and Thakurta 2014,
:func:`bst14_noise_std`) are created with :func:`gaussian_noise_block`, which records the
theorem it relies on in the ledger entry.

Floating point (caveat)
-----------------------
The noise is drawn by :func:`privpac.random.gaussian_array`: inverse-CDF sampling at 53-bit
uniforms, computed in floating point. Its distribution is the normal one discretised on the
float grid with tails cut beyond about 8.2 sigma, and the noisy value is rounded when it is added.
Mironov (CCS 2012) showed that such rounding can leak for the textbook Laplace mechanism; the
same kind of attack is conceivable here, and no exact sampler for real-valued noise on real
vectors is used in privpac. This is standard practice in DP optimisation libraries and is
stated wherever these blocks are used. Sums and norms that enter a sensitivity bound are computed
in float64.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import log_ndtr, ndtr

from ..accounting import PrivacyLedger, charge
from ..errors import BudgetExceededError, InvalidParameterError
from ..random import as_random_source, gaussian_array
from ..validation import check_delta, check_epsilon, check_int, check_real

__all__ = [
    "GaussianNoise",
    "bst14_noise_std",
    "gaussian_gdp_block",
    "gaussian_mechanism",
    "gaussian_noise_block",
    "gaussian_sigma",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "zcdp_epsilon",
    "zcdp_rho",
]


# ---------------------------------------------------------------------------------------------
# Calibration
# ---------------------------------------------------------------------------------------------


def gdp_delta(mu: float, epsilon: float) -> float:
    """``delta(epsilon)`` of a ``mu``-GDP mechanism (DRS Cor 2.13), computed in log space."""
    mu = check_real(mu, "mu", low=0.0)
    epsilon = check_real(epsilon, "epsilon", low=0.0)
    if mu == 0.0:
        return 0.0
    a = -epsilon / mu + mu / 2.0
    b = -epsilon / mu - mu / 2.0
    return max(0.0, float(ndtr(a) - math.exp(epsilon + float(log_ndtr(b)))))


def _bisect(below, lo: float, hi: float) -> tuple[float, float]:
    """Narrow ``[lo, hi]`` around the point where ``below`` turns false (``below(lo)``, not ``below(hi)``)."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if below(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * hi:
            break
    return lo, hi


def gdp_mu(epsilon: float, delta: float) -> float:
    """The largest ``mu`` such that ``mu``-GDP implies (epsilon, delta)-DP (bisection, spec 3.8 item 2).

    Examples: ``gdp_mu(1, 1e-6) = 0.2367``, ``gdp_mu(0.5, 1e-6) = 0.1241``, ``gdp_mu(2, 1e-6) = 0.4483``.
    """
    return _gdp_mu(check_epsilon(epsilon), check_delta(delta, allow_zero=False))


@functools.lru_cache(maxsize=256)
def _gdp_mu(epsilon: float, delta: float) -> float:
    lo, hi = 0.0, 1.0
    while gdp_delta(hi, epsilon) <= delta:
        lo, hi = hi, 2.0 * hi
        if hi > 1e6:
            raise InvalidParameterError(f"no finite mu calibrates epsilon={epsilon}, delta={delta}")
    lo, _ = _bisect(lambda mu: gdp_delta(mu, epsilon) <= delta, lo, hi)
    return lo


def gdp_epsilon(mu: float, delta: float) -> float:
    """The smallest ``epsilon >= 0`` with ``delta(epsilon) <= delta`` for a ``mu``-GDP mechanism."""
    mu = check_real(mu, "mu", low=0.0)
    delta = check_delta(delta, allow_zero=False)
    if gdp_delta(mu, 0.0) <= delta:
        return 0.0
    lo, hi = 0.0, 1.0
    while gdp_delta(mu, hi) > delta:
        lo, hi = hi, 2.0 * hi
    _, hi = _bisect(lambda eps: gdp_delta(mu, eps) > delta, lo, hi)
    return hi


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest ``rho`` whose rho-zCDP implies (epsilon, delta)-DP via Bun-Steinke Prop 1.3.

    ``rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2``; ``zcdp_rho(1, 1e-6) = 0.01747``.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    log_term = math.log(1.0 / delta)
    return (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2


def zcdp_epsilon(rho: float, delta: float) -> float:
    """``epsilon = rho + 2 sqrt(rho ln(1/delta))`` (Bun and Steinke 2016, Prop 1.3)."""
    rho = check_real(rho, "rho", low=0.0)
    delta = check_delta(delta, allow_zero=False)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def gaussian_sigma(sensitivity: float, epsilon: float, delta: float, compositions: int = 1) -> float:
    """Noise std for ``compositions`` adaptive releases of L2 sensitivity ``sensitivity``, (epsilon, delta) in total.

    ``sigma = sensitivity * sqrt(compositions) / gdp_mu(epsilon, delta)``: exact (tight) by GDP.
    """
    sensitivity = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    compositions = check_int(compositions, "compositions", low=1)
    return sensitivity * math.sqrt(compositions) / gdp_mu(epsilon, delta)


def bst14_noise_std(lipschitz: float, n: int, epsilon: float, delta: float) -> float:
    """Noise std of Bassily, Smith and Thakurta's noisy SGD ("A_Noise-GD"), their Thm 2.1.

    ``sigma^2 = 32 L^2 n^2 ln(n/delta) ln(1/delta) / epsilon^2`` (a *variance*; natural logs), as
    Nguyen, Ullman and Zakynthinou restate it in Algorithm 3, line 13. The algorithm runs
    ``n^2 - 1`` steps, each on one record drawn uniformly with replacement, adding
    ``N(0, sigma^2 I)`` to ``n`` times the record's gradient; BST14 prove it (epsilon, delta)-DP by
    privacy amplification by sampling and advanced composition. The constant 32 is theirs and was
    not re-derived here (a textbook rebuild gives 16 to 64 depending on the amplification lemma).
    """
    lipschitz = check_real(lipschitz, "lipschitz", low=0.0, low_open=True)
    n = check_int(n, "n", low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    variance = 32.0 * lipschitz**2 * n**2 * math.log(max(n / delta, 1.0)) * math.log(1.0 / delta) / epsilon**2
    return math.sqrt(variance)


# ---------------------------------------------------------------------------------------------
# Noise blocks
# ---------------------------------------------------------------------------------------------


class GaussianNoise:
    """A charged block of ``steps`` Gaussian releases on ``dim``-dimensional vectors.

    ``runs`` independent copies of the same algorithm may draw from one block at once (the
    boosted learner's repetitions, or an audit's trials); each step then gives every run its own
    fresh noise. Create blocks with :func:`gaussian_gdp_block` or :func:`gaussian_noise_block`,
    which charge the ledger before anything is drawn.
    """

    def __init__(self, sigma: float, steps: int, dim: int, runs: int, rng, description: str):
        self.sigma = float(sigma)
        self.steps = int(steps)
        self.dim = int(dim)
        self.runs = int(runs)
        self.used = 0
        self.description = description
        self._rng = as_random_source(rng)

    @property
    def remaining(self) -> int:
        return self.steps - self.used

    def _take(self, k: int) -> None:
        if k > self.remaining:
            raise BudgetExceededError(
                f"{self.description}: asked for {k} more releases but only {self.remaining} of {self.steps} remain"
            )
        self.used += k

    def noise(self, k: int = 1) -> np.ndarray:
        """Noise for the next ``k`` releases, shape ``(k, runs, dim)`` (pre-drawn for a loop)."""
        k = check_int(k, "k", low=1)
        self._take(k)
        return gaussian_array((k, self.runs, self.dim), self.sigma, self._rng)

    def release(self, values) -> np.ndarray:
        """``values + N(0, sigma^2 I)``: one release for every run (``values`` of shape (runs, dim) or (dim,))."""
        values = np.asarray(values, dtype=np.float64)
        if values.shape not in ((self.runs, self.dim), (self.dim,)) or (values.ndim == 1 and self.runs != 1):
            raise InvalidParameterError(
                f"values must have shape ({self.runs}, {self.dim})" + (f" or ({self.dim},)" if self.runs == 1 else "")
            )
        return values + self.noise(1)[0].reshape(values.shape)

    def __repr__(self) -> str:
        return f"GaussianNoise(sigma={self.sigma:.6g}, steps={self.steps}, dim={self.dim}, runs={self.runs})"


def gaussian_noise_block(
    sigma: float,
    steps: int,
    dim: int,
    epsilon: float,
    delta: float,
    *,
    runs: int = 1,
    mechanism: str,
    ledger: PrivacyLedger | None = None,
    label: str = "Gaussian noise",
    rng=None,
) -> GaussianNoise:
    """A block whose (epsilon, delta) per run is justified by the caller's theorem (named in ``mechanism``).

    The ledger is charged ``runs * (epsilon, delta)`` (basic composition over independent runs on
    the same data) before the block is returned.
    """
    sigma = check_real(sigma, "sigma", low=0.0, low_open=True)
    steps = check_int(steps, "steps", low=0)
    dim = check_int(dim, "dim", low=1)
    runs = check_int(runs, "runs", low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    what = f"{mechanism}; {runs} run(s) of {steps} Gaussian releases, sigma={sigma:.6g}"
    charge(ledger, label, runs * epsilon, runs * delta, what)
    return GaussianNoise(sigma, steps, dim, runs, rng, f"{label} ({mechanism})")


def gaussian_gdp_block(
    sensitivity: float,
    steps: int,
    dim: int,
    epsilon: float,
    delta: float,
    *,
    runs: int = 1,
    ledger: PrivacyLedger | None = None,
    label: str = "Gaussian mechanism",
    rng=None,
) -> GaussianNoise:
    """``steps`` adaptive releases of L2 sensitivity ``sensitivity``, (epsilon, delta)-DP in total per run.

    Calibrated exactly by Gaussian DP: ``mu = gdp_mu(epsilon, delta)``,
    ``sigma = sensitivity * sqrt(steps) / mu`` (see the module docstring).
    """
    steps = check_int(steps, "steps", low=1)
    sigma = gaussian_sigma(sensitivity, epsilon, delta, steps)
    mu = gdp_mu(epsilon, delta)
    return gaussian_noise_block(
        sigma,
        steps,
        dim,
        epsilon,
        delta,
        runs=runs,
        mechanism=f"Gaussian mechanism, L2 sensitivity {sensitivity:.6g}, {mu:.6g}-GDP per run (exact conversion)",
        ledger=ledger,
        label=label,
        rng=rng,
    )


def gaussian_mechanism(
    value,
    sensitivity: float,
    epsilon: float,
    delta: float,
    *,
    ledger: PrivacyLedger | None = None,
    label: str = "Gaussian mechanism",
    rng=None,
) -> np.ndarray:
    """Release ``value + N(0, sigma^2 I)`` for a vector query of L2 sensitivity ``sensitivity``.

    (epsilon, delta)-DP with the smallest sigma the exact GDP conversion allows.
    """
    value = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if value.ndim != 1 or not np.all(np.isfinite(value)):
        raise InvalidParameterError("value must be a finite 1-D vector")
    block = gaussian_gdp_block(sensitivity, 1, value.size, epsilon, delta, ledger=ledger, label=label, rng=rng)
    return block.release(value)
