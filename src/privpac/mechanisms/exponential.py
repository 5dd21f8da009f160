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

Drawn range by range
--------------------
:func:`exponential_mechanism_grouped` draws the same point law without ever holding every
piece: the points of ``[0, T]`` are grouped into public ranges (``fan_out`` equal ranges of the
current range, :func:`grouping_widths`), a range is drawn with probability proportional to its
total weight (the sum of its points' weights), then a sub-range of it, and so on down to one
point. For a point ``j`` in the chosen ranges ``R_1 > R_2 > ... > R_L = {j}`` the probability is
``W(R_1)/W([0, T]) * W(R_2)/W(R_1) * ... * W({j})/W(R_{L-1}) = w(j) / Z``: the product telescopes
to the flat mechanism's probability, for any grouping, so the law is exactly the exponential
mechanism's (a piece that straddles a range edge is simply split in two: same score, the same
total weight). The range weights are computed by the caller (for the counting learners, where the
data lives, one pass per level: :class:`privpac.learners.range_counts.LabelledRanges`); the
driver holds ``O(fan_out)`` numbers per level. The ranges are public; the range drawn at a level is
a function of the output (the range that contains it), so nothing is released beyond the point;
the number of levels is a function of ``T`` and ``fan_out`` alone (a level whose range holds one
sub-range is skipped without a draw: a function of the output only). The ledger is charged once,
for one exponential mechanism at ``epsilon``, before the first range weight is computed. Floating
point: each level draws with :func:`sample_log_weights` from log weights that equal the flat
ones' sums up to rounding, so the output law equals the flat sampler's up to rounding (of order
``L`` times the flat sampler's relative error); neither is exact.
"""

from __future__ import annotations

import contextlib
import math

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
    "FAN_OUT",
    "fan_out",
    "grouping",
    "grouping_widths",
    "range_edges",
    "exponential_mechanism_grouped",
    "grouped_interval_probability",
    "step_range_log_weights",
    "log_of_lengths",
    "segment_log_sum_exp",
]

#: The number of public ranges :func:`exponential_mechanism_grouped` splits its current range into.
FAN_OUT = 4096
_fan_out = [FAN_OUT]


def fan_out() -> int:
    """The fan-out the grouped draws use now (:data:`FAN_OUT` unless inside :func:`grouping`)."""
    return _fan_out[-1]


@contextlib.contextmanager
def grouping(fan_out: int):
    """Draw with another public fan-out inside the ``with`` block (the law does not depend on it;
    audits use a small one so that a tiny domain still goes through several levels)."""
    from ..validation import check_int

    _fan_out.append(check_int(fan_out, "fan_out", low=2))
    try:
        yield
    finally:
        _fan_out.pop()


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


# -- drawn range by range ------------------------------------------------------------------------


def grouping_widths(T: int, fan_out: int) -> list[int]:
    """The range widths ``w_1 > ... > w_L = 1`` of a grouped draw over ``[0, T]`` (public).

    ``w_1 = ceil((T + 1) / fan_out)`` and ``w_{l+1} = ceil(w_l / fan_out)``: level ``l`` splits a
    range of at most ``w_{l-1}`` points into at most ``fan_out`` ranges of ``w_l`` points (the last
    one shorter). ``L = ceil(log_fan_out (T + 1))`` up to one; empty when ``T = 0``.
    """
    out = []
    w = int(T) + 1
    while w > 1:
        w = -(-w // fan_out)
        out.append(w)
    return out


def range_edges(lo: int, hi: int, width: int) -> list[int]:
    """``[lo, lo + width, ..., hi + 1]``: the ranges of ``width`` points of ``[lo, hi]`` (Python ints)."""
    return [*range(lo, hi + 1, width), hi + 1]


def log_of_lengths(lengths: np.ndarray) -> np.ndarray:
    """``log`` of positive integer lengths (int64, or Python ints of any size)."""
    if lengths.dtype == object:
        return np.fromiter((math.log(v) for v in lengths), dtype=np.float64, count=lengths.size)
    return np.log(lengths.astype(np.float64))


def segment_log_sum_exp(terms: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``log sum exp`` of each segment ``terms[starts[i] : starts[i + 1]]`` (the last to the end).

    Segments must be non-empty and hold at least one finite term. Deterministic: each segment's
    value depends on its own terms only, summed in order, so the same integers give the same bits.
    """
    top = np.maximum.reduceat(terms, starts)
    counts = np.diff(np.append(starts, terms.size))
    return top + np.log(np.add.reduceat(np.exp(terms - np.repeat(top, counts)), starts))


def step_range_log_weights(f: StepFunction, edges, scale: float) -> np.ndarray:
    """``log sum_{j in R_i} exp(scale f(j))`` for the ranges ``R_i = [edges[i], edges[i + 1] - 1]``.

    The range weights of a quality held as a whole step function (pieces split at the edges);
    the reference the counting learners' range statistics are tested against.
    """
    edges = [int(e) for e in edges]
    lo, hi = edges[0], edges[-1] - 1
    g = f.restrict(lo, hi)  # positions relative to lo
    rel = np.asarray([e - lo for e in edges], dtype=object if hi - lo >= 2**62 else np.int64)
    starts = np.union1d(g.starts.astype(rel.dtype), rel[:-1]) if rel.dtype != object else None
    if starts is None:
        starts = np.asarray(sorted(set(g.starts.tolist()) | set(rel[:-1].tolist())), dtype=object)
    values = g.values[np.searchsorted(g.starts, starts, side="right") - 1].astype(np.float64)
    bounds = np.empty(starts.size + 1, dtype=starts.dtype)
    bounds[:-1], bounds[-1] = starts, rel[-1]
    terms = log_of_lengths(np.diff(bounds)) + scale * values
    return segment_log_sum_exp(terms, np.searchsorted(starts, rel[:-1]))


def _check_range_weights(log_w, n: int) -> np.ndarray:
    log_w = np.asarray(log_w, dtype=np.float64)
    if log_w.shape != (n,):
        raise InvalidParameterError(f"range_log_weights returned shape {log_w.shape}, not ({n},)")
    return log_w


def exponential_mechanism_grouped(
    T: int,
    range_log_weights,
    epsilon: float,
    *,
    sensitivity: float = 1.0,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism (grouped)",
    over: str | None = None,
    rng=None,
) -> int:
    """The exponential mechanism over every point of ``[0, T]``, drawn range by range.

    ``range_log_weights(edges, scale)`` returns, for the public ranges
    ``[edges[i], edges[i + 1] - 1]``, ``log sum_{j in range} exp(scale q(j))`` with
    ``scale = epsilon / (2 sensitivity)``, for a quality ``q`` of sensitivity ``sensitivity``
    point-wise. The law is the flat mechanism's (:func:`exponential_mechanism_step` on the step
    function ``q``; the module docstring has the argument): (epsilon, 0)-DP, one ledger entry.
    The fan-out is :func:`fan_out`; ``range_log_weights`` is called at most
    ``len(grouping_widths(T, fan_out()))`` times, with at most ``fan_out()`` ranges.
    Returns a Python int in ``[0, T]``.
    """
    from ..validation import check_int

    T = check_int(T, "T", low=0)
    epsilon = check_epsilon(epsilon)
    sensitivity = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    scale = epsilon / (2.0 * sensitivity)
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {over or f'[0, {fmt_int(T)}]'}")
    src = as_random_source(rng)
    lo, hi = 0, T
    for width in grouping_widths(T, fan_out()):
        edges = range_edges(lo, hi, width)
        if len(edges) == 2:  # one range (the chosen range was the short last one): nothing to draw
            continue
        k = sample_log_weights(_check_range_weights(range_log_weights(edges, scale), len(edges) - 1), src)
        lo, hi = edges[k], edges[k + 1] - 1
    return lo


def grouped_interval_probability(T: int, range_log_weights, scale: float, a: int, b: int) -> float:
    """The probability that :func:`exponential_mechanism_grouped` (at the current fan-out) returns
    a point of ``[a, b]``, computed from its own range weights level by level (for tests)."""

    def inside(lo: int, hi: int, level: int) -> float:
        if a <= lo and hi <= b:
            return 1.0
        if hi < a or b < lo:
            return 0.0
        edges = range_edges(lo, hi, widths[level])
        if len(edges) == 2:
            return inside(lo, hi, level + 1)
        p = _normalised(_check_range_weights(range_log_weights(edges, scale), len(edges) - 1))
        return math.fsum(p[i] * inside(edges[i], edges[i + 1] - 1, level + 1) for i in range(p.size))

    widths = grouping_widths(T, fan_out())
    return inside(0, int(T), 0) if widths else float(a <= 0 <= b)
