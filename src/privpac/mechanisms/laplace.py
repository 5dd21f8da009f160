"""The Laplace mechanism for integer-valued queries, with exact discrete noise.

Beimel, Nissim, Stemmer, Thm 2.24 (Dwork, McSherry, Nissim, Smith 2006), in its discrete form
(Ghosh, Roughgarden, Sundararajan 2009; sampler of Canonne, Kamath, Steinke 2020).

Privacy
-------
Let ``f`` map datasets to integer vectors with L1-sensitivity ``Delta`` over replace-one
neighbours. The mechanism releases ``f(S) + Z`` with independent ``Z_i`` discrete-Laplace of
scale ``b = Delta / epsilon``: ``Pr[Z_i = z] = (1 - q)/(1 + q) q^|z|`` with ``q = exp(-1/b)``.
For every output ``o``,
``Pr[f(S) + Z = o] / Pr[f(S') + Z = o] = prod_i q^(|o_i - f_i(S)| - |o_i - f_i(S')|)
<= q^(-||f(S) - f(S')||_1) <= exp(epsilon)``, so the release is (epsilon, 0)-DP. The sampler
uses integers and rationals only, so the released distribution is exactly this one.

A real-valued query such as a frequency ``count / m`` is released as ``(count + Z) / m``:
post-processing of the integer release.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..errors import InvalidParameterError
from ..random import as_random_source, discrete_laplace, discrete_laplace_vector
from ..validation import as_fraction, check_epsilon

__all__ = [
    "laplace_mechanism",
    "laplace_scale",
    "discrete_laplace_pmf",
    "discrete_laplace_sf",
    "discrete_laplace_cdf",
]


def laplace_scale(sensitivity, epsilon) -> Fraction:
    """The exact noise scale ``Delta / epsilon`` as a rational number."""
    check_epsilon(epsilon)
    sens = as_fraction(sensitivity, "sensitivity")
    if sens <= 0:
        raise InvalidParameterError(f"sensitivity must be > 0, got {sensitivity}")
    scale = sens / as_fraction(epsilon, "epsilon")
    if scale > 2**62:
        raise InvalidParameterError(f"a noise scale of {float(scale):.3g} is too large to sample: epsilon is too small")
    return scale


def laplace_mechanism(
    value,
    sensitivity,
    epsilon: float,
    *,
    ledger: PrivacyLedger | None = None,
    label: str = "Laplace",
    rng=None,
):
    """Release an integer (or integer vector) query with exact discrete-Laplace noise.

    Parameters
    ----------
    value : int or array of int
        The true query answer ``f(S)``.
    sensitivity : int or rational
        L1-sensitivity of ``f`` over replace-one neighbours (a histogram over disjoint bins has
        sensitivity 2: one replaced record leaves one bin and enters another).
    epsilon : float
        Privacy parameter; the release is (epsilon, 0)-DP.
    ledger : PrivacyLedger, optional
        Charged (epsilon, 0) before any noise is drawn.

    Returns
    -------
    int or numpy.ndarray of int64
    """
    epsilon = check_epsilon(epsilon)
    scale = laplace_scale(sensitivity, epsilon)
    arr = np.asarray(value)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.asarray(arr, dtype=float) == np.round(np.asarray(arr, dtype=float))):
            raise InvalidParameterError("laplace_mechanism releases integer queries only")
    charge(ledger, label, epsilon, 0.0, f"discrete Laplace, scale {float(scale):.6g}")
    src = as_random_source(rng)
    if arr.ndim == 0:
        return int(value) + discrete_laplace(scale, src)
    noise = discrete_laplace_vector(scale, arr.size, src)
    return arr.astype(np.int64) + noise.reshape(arr.shape)


# -- exact distribution (float evaluation of the closed forms, for privacy checks) -------------


def _ratio(scale) -> float:
    return math.exp(-1.0 / float(scale))


def discrete_laplace_pmf(z, scale) -> np.ndarray:
    """``Pr[Z = z]`` for discrete Laplace of the given scale."""
    q = _ratio(scale)
    z = np.abs(np.asarray(z, dtype=float))
    return (1.0 - q) / (1.0 + q) * q**z


def discrete_laplace_sf(k, scale) -> np.ndarray:
    """``Pr[Z >= k]`` for integer ``k``: ``q^k / (1 + q)`` for ``k >= 1``, else ``1 - q^(1-k)/(1+q)``."""
    q = _ratio(scale)
    k = np.asarray(k, dtype=float)
    upper = q ** np.maximum(k, 1.0) / (1.0 + q)
    lower = 1.0 - q ** np.maximum(1.0 - k, 1.0) / (1.0 + q)
    return np.where(k >= 1, upper, lower)


def discrete_laplace_cdf(k, scale) -> np.ndarray:
    """``Pr[Z <= k]``."""
    return 1.0 - discrete_laplace_sf(np.asarray(k, dtype=float) + 1.0, scale)
