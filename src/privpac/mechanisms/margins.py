"""Random margins: the noisy window sizes of RandMargins.

Sadigurschi and Stemmer, "On the Sample Complexity of Privately Learning Axis-Aligned
Rectangles", Algorithm 1 and footnote 3. Round ``j`` of RandMargins looks at the top
``k_j = ceil(mu + w_j)`` remaining points of one direction, with ``w_j ~ Lap(2 Delta)``. The noise
does not hide a statistic of the data: it is drawn before any data is read, so releasing it costs
no privacy (the proof releases it with the output). It *masks the domino effect*: the privacy
proof (section 4 and Appendix A of the paper) uses exactly two properties of the law of ``k``,

1. **survival ratio**: ``Pr[k >= t + Delta] >= exp(-1/2) Pr[k >= t]`` for every ``t`` (a record
   inside the window is in its outer part, above the ``Delta`` points the interior-point
   algorithm reads, with probability at least ``e^(-1/2)``, and is then deleted);
2. **no heavy window**: ``Pr[t <= k <= t + Delta - 1] <= 1/4`` for every ``t`` (a record lands
   among those ``Delta`` points with probability at most 1/4).

privpac draws ``k = ceil(mu) + Z`` with ``Z`` discrete Laplace of scale ``2 Delta``
(``Pr[Z = z]`` proportional to ``exp(-|z| / (2 Delta))``), with the exact sampler of Canonne,
Kamath and Steinke (2020). Both properties hold exactly: the discrete Laplace is log-concave, so
``Pr[Z >= t + Delta] / Pr[Z >= t]`` decreases in ``t`` towards its tail value
``q^Delta = exp(-1/2)`` (``q = exp(-1/(2 Delta))``), and its largest mass is
``(1 - q)/(1 + q) = tanh(1/(4 Delta)) <= 1/(4 Delta)``. The utility tails the paper uses
(``Pr[k > mu + 2 Delta ln(1/beta)] <= beta/2`` and ``Pr[k < Delta]`` of order ``beta^2``) are the
continuous ones up to one unit of rounding (:func:`margin_window_sf`).

No ledger is charged: the draw reads no data. The audit source (:func:`privpac.random.audit_source`)
takes the vectorised floating-point path, as for every discrete-Laplace draw.
"""

from __future__ import annotations

import math

import numpy as np

from ..random import as_random_source, discrete_laplace_vector
from ..validation import check_int
from .laplace import discrete_laplace_cdf, discrete_laplace_pmf, discrete_laplace_sf

__all__ = ["margin_window_sizes", "margin_window_pmf", "margin_window_sf", "margin_window_cdf", "margin_center"]


def margin_center(mu: float) -> int:
    """``ceil(mu)``: the integer centre of the window sizes."""
    return int(math.ceil(mu))


def margin_window_sizes(mu: float, window: int, size: int, rng=None) -> np.ndarray:
    """``size`` independent window sizes ``ceil(mu) + Z``, ``Z`` discrete Laplace of scale ``2 window``.

    Parameters
    ----------
    mu : float
        Mean window size (``4 Delta ln(1/beta)`` in Algorithm 1).
    window : int
        ``Delta``, the number of points the interior-point algorithm reads.
    size : int
        Number of rounds.

    Returns
    -------
    numpy.ndarray of int64 (may contain values <= 0: an empty window).
    """
    window = check_int(window, "window", low=1)
    size = check_int(size, "size", low=0)
    z = discrete_laplace_vector(2 * window, size, as_random_source(rng))
    return margin_center(mu) + np.asarray(z, dtype=np.int64)


def margin_window_pmf(k, mu: float, window: int) -> np.ndarray:
    """``Pr[k_j = k]`` (exact closed form, evaluated in floating point)."""
    return discrete_laplace_pmf(np.asarray(k, dtype=float) - margin_center(mu), 2 * int(window))


def margin_window_sf(k, mu: float, window: int) -> np.ndarray:
    """``Pr[k_j >= k]``."""
    return discrete_laplace_sf(np.asarray(k, dtype=float) - margin_center(mu), 2 * int(window))


def margin_window_cdf(k, mu: float, window: int) -> np.ndarray:
    """``Pr[k_j <= k]``."""
    return discrete_laplace_cdf(np.asarray(k, dtype=float) - margin_center(mu), 2 * int(window))
