"""The exponential mechanism over every point of ``[0, T]``, drawn range by range, exactly.

McSherry and Talwar (2007); Beimel, Nissim, Stemmer, section 2.5.2 and Prop 2.25; the base-2
exponential mechanism of Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential
Privacy" (CCS 2020). The same law as the flat mechanism of :mod:`privpac.mechanisms.exponential`
over a step function, for qualities held where the data lives (:mod:`privpac.learners.range_counts`),
on the exact sampler of :mod:`privpac.mechanisms.base2`.

Drawn range by range
--------------------
:func:`exponential_mechanism_grouped` never holds every piece: the points of ``[0, T]`` are grouped
into public ranges (``fan_out`` equal ranges of the current range, :func:`grouping_widths`), and
the proposal descends: at each level the caller returns, for the public ranges, an exact integer
*offset* ``o_R`` and float upper bounds of ``sum_{j in R} 2^(eta (q_j - o_R))`` (:func:`envelope_sums`;
for a one-point range ``o_R`` is that point's quality and the sum is 1), a range is drawn in
proportion to its units, then a sub-range, down to one point ``j``. With ``U_l`` the units of the
range drawn at level ``l`` and ``S_l`` the total units of the ranges offered at level ``l`` (each in
absolute scale), the attempt is accepted with probability

    ``w_j / U_L  *  prod_{l >= 2} S_l / (c U_{l-1})``,   ``c = LEVEL_SLACK = 1 + 2^-10``.

The proposal gives ``j`` probability ``prod_l U_l / S_l``, so an attempt returns ``j`` with
probability ``w_j / (S_1 c^(L-1))``: proportional to ``w_j`` whatever the grouping, so the law is
exactly the flat mechanism's (a level with a single range, below a short last range, draws nothing
but still accepts with ``1/c``, so that ``L`` is the same public number for every point). Each
factor is at most 1 because every point's envelope lies in
``[w_j, 2^(3/H) (1 + 2^-20) w_j]`` at every level (three grid ceilings at most: the offset, the
local exponent, a merge of parts) and ``2^(3/H) (1 + 2^-19) < c``; a factor above 1 would be a bug and
raises. The ranges are public and the range drawn at a level is a function of the output, so
nothing is released beyond the point; the number of levels is a function of ``T`` and ``fan_out``
alone. The ledger is charged once, for one exponential mechanism at ``epsilon``, before the first
range weight is computed. Each level is one pass over the data where it lives
(:class:`privpac.learners.range_counts.LabelledRanges`); the driver holds ``O(fan_out)`` numbers.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..errors import InvalidParameterError, NotEnumerable
from ..formatting import fmt_int
from ..random import as_random_source, bernoulli, choose_weighted
from ..stepfunc import StepFunction
from .base2 import (
    Envelope,
    ExactSamplingError,
    ExpBase,
    _accept_leaf,
    _grid_exponents,
    _to_units,
    envelope_scale,
    envelope_sums,
    exp_base,
)

__all__ = [
    "LEVEL_SLACK",
    "FAN_OUT",
    "fan_out",
    "grouping",
    "grouping_requested",
    "grouping_widths",
    "range_edges",
    "exponential_mechanism_grouped",
    "step_range_weights",
]

#: The per-level slack of the grouped draw (module docstring).
LEVEL_SLACK = Fraction(1025, 1024)


#: Largest ``T + 1`` whose grouped law an enumerating source is handed point by point.
_ENUMERATE_POINTS = 1 << 16

#: The number of public ranges :func:`exponential_mechanism_grouped` splits its current range into.
FAN_OUT = 4096
_fan_out = [FAN_OUT]


def fan_out() -> int:
    """The fan-out the grouped draws use now (:data:`FAN_OUT` unless inside :func:`grouping`)."""
    return _fan_out[-1]


def grouping_requested() -> bool:
    """True inside :func:`grouping`: callers that could draw flat draw range by range instead
    (audits and tests of the grouped draw)."""
    return len(_fan_out) > 1


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


def _check_range_weights(out, n: int) -> tuple[np.ndarray, Envelope]:
    try:
        offsets, env = out
        offsets = np.asarray(offsets)
        env = Envelope(np.asarray(env[0]), np.asarray(env[1], dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"range_weights must return (offsets, Envelope): {exc}") from exc
    if offsets.shape != (n,) or env.exponent.shape != (n,) or env.mantissa.shape != (n,):
        raise InvalidParameterError(f"range_weights returned shapes {offsets.shape}, {env.exponent.shape}, not ({n},)")
    return offsets, env


def _level_units(offsets: np.ndarray, env: Envelope, ref: int, base: ExpBase) -> tuple[np.ndarray, int]:
    """The units of ranges of value ``2^(eta (o - ref)) env`` (upper bounds, :func:`_to_units`)."""
    return _to_units(envelope_scale(env, offsets.astype(np.int64) - ref, base))


def _grouped_attempt(T: int, widths: list[int], range_weights, base: ExpBase, src) -> int | None:
    """One attempt of the grouped draw (module docstring): the point if accepted, else None."""
    lo, hi = 0, T
    ref = None
    parent = None  # (units, scale) of the range drawn at the previous level
    offset = 0
    for width in widths:
        edges = range_edges(lo, hi, width)
        if len(edges) == 2:
            # one range (the chosen range was the short last one): nothing to draw, but the level
            # still counts its 1/c, so that every point's proposal goes through the same number of
            # levels (the constant of the module docstring's product is the same for all points)
            if not bernoulli(1 / LEVEL_SLACK, src):
                return None
            continue
        offsets, env = _check_range_weights(range_weights(edges, base), len(edges) - 1)
        if ref is None:
            ref = int(offsets.max())  # any anchor fixed for the attempt
        units, scale = _level_units(offsets, env, ref, base)
        if parent is not None:
            p_units, p_scale = parent
            total = int(units.sum())
            ratio = Fraction(total << max(scale - p_scale, 0), p_units << max(p_scale - scale, 0)) / LEVEL_SLACK
            if ratio > 1:
                raise ExactSamplingError("a level's offered units exceed the range drawn above them")
            if not bernoulli(ratio, src):
                return None
        k = choose_weighted(units, src)
        parent = (int(units[k]), scale)
        lo, hi, offset = edges[k], edges[k + 1] - 1, int(offsets[k])
    if parent is None:  # T = 0
        return 0
    d = offset - ref
    z = int(_grid_exponents(np.asarray([d]), base)[0])
    return lo if _accept_leaf(base, d, z, 1, parent[0], parent[1], src) else None


def exponential_mechanism_grouped(
    T: int,
    range_weights,
    epsilon: float,
    *,
    sensitivity: int = 1,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism (grouped)",
    over: str | None = None,
    rng=None,
) -> int:
    """The exponential mechanism over every point of ``[0, T]``, drawn range by range, exactly.

    ``range_weights(edges, base)`` describes, for the public ranges ``R_i = [edges[i],
    edges[i + 1] - 1]``, the integer quality ``q`` (sensitivity ``sensitivity``) through
    ``(offsets, envelope)``: ``offsets[i]`` an integer (for a one-point range, that point's quality)
    and ``envelope`` (:class:`Envelope`) upper bounds of ``sum_{j in R_i} 2^(eta (q_j - offsets[i]))``
    built with :func:`envelope_sums`, :func:`envelope_scale` and :func:`envelope_segment_sums` (at
    most three grid ceilings per point; ``base`` is the :class:`ExpBase`). The law is the flat
    mechanism's over the step function ``q`` (module docstring): (epsilon, 0)-DP, one ledger entry.
    The fan-out is :func:`fan_out`; an attempt calls ``range_weights`` at most
    ``len(grouping_widths(T, fan_out()))`` times with at most ``fan_out()`` ranges, and an attempt is
    repeated with probability below 1%. Returns a Python int in ``[0, T]``.
    """
    from ..validation import check_int

    T = check_int(T, "T", low=0)
    base = exp_base(epsilon, check_int(sensitivity, "sensitivity", low=1))
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {over or f'[0, {fmt_int(T)}]'}; {base.describe()}")
    src = as_random_source(rng)
    if src.enumerates:
        # the law from one-point ranges, whose offsets are the points' qualities
        if T >= _ENUMERATE_POINTS:
            raise NotEnumerable(f"the grouped draw's law is listed point by point: {fmt_int(T + 1)} points")
        edges = list(range(T + 2))
        offsets, _ = _check_range_weights(range_weights(edges, base), T + 1)
        q = offsets.astype(np.int64)
        return src.choose("exponential", q - q.max(), np.ones(T + 1, dtype=np.int64), base)
    widths = grouping_widths(T, fan_out())
    while True:
        j = _grouped_attempt(T, widths, range_weights, base, src)
        if j is not None:
            return j


def step_range_weights(f: StepFunction, edges, base: ExpBase) -> tuple[np.ndarray, Envelope]:
    """``range_weights`` of :func:`exponential_mechanism_grouped` for an integer quality held as a
    whole step function (pieces split at the edges; offsets: the quality at each range's start):
    the reference the counting learners' range statistics are tested against."""
    edges = [int(e) for e in edges]
    lo, hi = edges[0], edges[-1] - 1
    g = f.restrict(lo, hi)  # positions relative to lo
    rel = np.asarray([e - lo for e in edges], dtype=object if hi - lo >= 2**62 else np.int64)
    if rel.dtype != object:
        starts = np.union1d(g.starts.astype(np.int64), rel[:-1])
    else:
        starts = np.asarray(sorted(set(g.starts.tolist()) | set(rel[:-1].tolist())), dtype=object)
    values = g.values[np.searchsorted(g.starts, starts, side="right") - 1].astype(np.int64)
    bounds = np.empty(starts.size + 1, dtype=starts.dtype)
    bounds[:-1], bounds[-1] = starts, rel[-1]
    heads = np.searchsorted(starts, rel[:-1])
    offsets = values[heads]
    local = values - np.repeat(offsets, np.diff(np.append(heads, values.size)))
    return offsets, envelope_sums(local, np.diff(bounds), heads, base)
