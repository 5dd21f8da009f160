"""The exponential mechanism over a finite list and over a step function on ``[0, T]``.

McSherry and Talwar (2007); Beimel, Nissim, Stemmer, section 2.5.2 and Prop 2.25.

Privacy
-------
Let ``q(S, h)`` have sensitivity ``Delta`` (``|q(S, h) - q(S', h)| <= Delta`` for every ``h`` and
replace-one neighbours). Output ``h`` with probability
``w_S(h) / Z_S`` where ``w_S(h) = mu(h) exp(epsilon q(S, h) / (2 Delta))`` and ``mu`` is a
data-independent base measure (1 for a finite list; the piece length for a step function, so
every *point* of ``[0, T]`` has weight ``exp(epsilon q / (2 Delta))``). Each weight moves by at
most ``exp(epsilon/2)`` between neighbours, and so does the normaliser, so
``Pr[h | S] <= exp(epsilon) Pr[h | S']``: (epsilon, 0)-DP. Over a step function the mechanism
picks a piece with probability proportional to ``length * exp(epsilon q / (2 Delta))`` and then a
uniform point inside it, which is exactly the point-wise exponential mechanism on ``[0, T]``.

Utility: ``Pr[q(S, h) <= max q - t] <= (number of points) exp(-epsilon t / (2 Delta))``.

Floating point
--------------
Weights live in log space (``log length + epsilon q / (2 Delta)``, with ``math.log`` of big
integers for lengths up to ``2^65536``), are normalised by their maximum and the piece is drawn
by inverting the cumulative sum at a 53-bit uniform. The piece probabilities are therefore
accurate to floating-point rounding (relative error of order ``k 2^-52`` for ``k`` pieces),
which is the only deviation from the ideal mechanism; the point inside the piece is drawn
exactly with big-integer arithmetic.
"""

from __future__ import annotations

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..errors import InvalidParameterError
from ..formatting import fmt_int
from ..random import as_random_source, uniform_array, uniform_int
from ..stepfunc import StepFunction
from ..validation import check_epsilon, check_real

__all__ = [
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_mechanism_step",
    "step_piece_probabilities",
    "sample_log_weights",
]


def _normalised(log_weights: np.ndarray) -> np.ndarray:
    w = np.exp(log_weights - np.max(log_weights))
    return w / w.sum()


def sample_log_weights(log_weights: np.ndarray, rng=None, size: int | None = None):
    """Indices drawn with probability proportional to ``exp(log_weights)``.

    Inverse-CDF sampling at 53-bit uniforms; ``size=None`` returns one Python int.
    """
    log_weights = np.asarray(log_weights, dtype=np.float64)
    if log_weights.ndim != 1 or log_weights.size == 0:
        raise InvalidParameterError("log_weights must be a non-empty 1-D array")
    if np.any(np.isnan(log_weights)) or np.all(np.isneginf(log_weights)):
        raise InvalidParameterError("log_weights must not be NaN and not all -inf")
    if size is None:
        src = as_random_source(rng)
        if src.enumerates:
            return src.choose("log_weights", log_weights)
        rng = src
    cum = np.cumsum(np.exp(log_weights - np.max(log_weights)))
    u = uniform_array(1 if size is None else size, rng) * cum[-1]
    idx = np.searchsorted(cum, u, side="right")
    np.minimum(idx, log_weights.size - 1, out=idx)
    return int(idx[0]) if size is None else idx


def _check_scores(scores) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1 or scores.size == 0:
        raise InvalidParameterError("scores must be a non-empty 1-D array")
    if not np.all(np.isfinite(scores)):
        raise InvalidParameterError("scores must be finite")
    return scores


def exponential_probabilities(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Exact (up to rounding) output distribution of :func:`exponential_mechanism`."""
    epsilon = check_epsilon(epsilon)
    sensitivity = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    return _normalised(epsilon * _check_scores(scores) / (2.0 * sensitivity))


def exponential_mechanism(
    scores,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism",
    over: str | None = None,
    rng=None,
) -> int:
    """Pick an index of ``scores`` with probability proportional to ``exp(eps * score / (2 Delta))``.

    (epsilon, 0)-DP when every score has sensitivity ``Delta`` (see the module docstring).
    Returns the chosen index. ``over`` describes the candidates in the ledger entry (default: their
    number); callers whose candidate list is built from data describe it in public terms.
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    scores = _check_scores(scores)
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {over or f'{scores.size} candidates'}")
    return sample_log_weights(epsilon * scores / (2.0 * sensitivity), as_random_source(rng))


def _step_log_weights(f: StepFunction, epsilon: float, sensitivity: float) -> np.ndarray:
    if not isinstance(f, StepFunction):
        raise InvalidParameterError("the quality must be a privpac.stepfunc.StepFunction")
    values = f.values.astype(np.float64)
    # -inf marks points that are not candidates (StepFunction.keep_only); they get weight 0.
    candidate = np.isfinite(values)
    if not np.all(candidate | np.isneginf(values)) or not candidate.any():
        raise InvalidParameterError("step-function values must be finite, or -inf for points that are not candidates")
    log_w = f.log_lengths(None if candidate.all() else candidate)
    log_w[candidate] += epsilon * values[candidate] / (2.0 * sensitivity)
    return log_w


def step_piece_probabilities(f: StepFunction, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Probability that :func:`exponential_mechanism_step` lands in each piece of ``f``.

    A point inside piece ``t`` then has probability ``p[t] / length[t]``.
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    return _normalised(_step_log_weights(f, epsilon, sensitivity))


def exponential_mechanism_step(
    f: StepFunction,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism (step function)",
    over: str | None = None,
    rng=None,
) -> int:
    """The exponential mechanism over every point of ``[0, f.T]`` with quality ``f``.

    Cost ``O(k)`` for ``k`` pieces, whatever ``T`` is. (epsilon, 0)-DP when ``f`` has sensitivity
    ``Delta`` point-wise. Returns a Python int in ``[0, T]``.

    ``over`` describes the candidate range in the ledger entry (default ``[0, T]``); callers whose
    range follows a private output (RecConcave's chosen blocks) describe it in public terms.
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    log_w = _step_log_weights(f, epsilon, sensitivity)
    # The entry names public sizes only (the range [0, T]): the number of pieces is a count of
    # distinct data values and must never reach the ledger.
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {over or f'[0, {fmt_int(f.T)}]'}")
    src = as_random_source(rng)
    t = sample_log_weights(log_w, src)
    lo = int(f.starts[t])
    hi = int(f.starts[t + 1]) - 1 if t + 1 < f.n_pieces else f.T
    return uniform_int(lo, hi, src)
