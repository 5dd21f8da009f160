"""The generic pure-DP learner: the exponential mechanism over a finite class.

Kasiviswanathan, Lee, Nissim, Raskhodnikova, Smith (2008), as recalled by Beimel, Nissim, Stemmer,
section 2.5.2 (spec bns-pure-vs-approx 5.4): pick ``h`` in the class with probability proportional
to ``exp(epsilon q(h) / 2)``, ``q(h)`` = number of sample points ``h`` labels correctly.

Privacy: ``q`` has sensitivity 1 under replace-one neighbours, so the output is (epsilon, 0)-DP
(exponential mechanism, Prop 2.25).

Utility: ``Pr[q(h) <= max q - t] <= |C| exp(-epsilon t / 2)``: empirical error within ``alpha'`` of
the best once ``m >= (2/(alpha' epsilon)) ln(|C|/beta')``, plus a generalization term. For
thresholds ``|C| = size + 1`` and the class is sampled through its step-function quality
(one piece per distinct sample point), for points through
``q(c_j) = #negatives - neg(j) + pos(j)``: no cost proportional to the domain size.

The threshold and point learners draw the mechanism range by range
(:func:`~privpac.mechanisms.exponential_grouped.exponential_mechanism_grouped`) from range statistics of
the sample (:mod:`privpac.learners.range_counts`), computed where it lives: the same law as the
flat draw over the whole step function, with the driver holding ``O(fan_out)`` numbers per level
instead of every distinct value.
"""

from __future__ import annotations

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DataError
from ..formatting import fmt_int
from ..mechanisms.base2 import Envelope, envelope_scale, envelope_segment_sums
from ..mechanisms.exponential import exponential_mechanism, exponential_mechanism_pieces, exponential_mechanism_step
from ..mechanisms.exponential_grouped import exponential_mechanism_grouped, grouping_requested
from ..random import as_random_source, uniform_int
from ..stepfunc import StepFunction
from ..validation import check_epsilon
from ._sample import labelled_counts, spikes
from .hypotheses import PointHypothesis, ThresholdHypothesis
from .range_counts import LabelledRanges, labelled_ranges
from .thresholds import threshold_quality

__all__ = [
    "em_learner",
    "em_learn_thresholds",
    "em_learn_oriented_thresholds",
    "choose_orientation",
    "em_learn_points",
    "em_point_quality",
    "threshold_range_weights",
    "point_range_weights",
    "ORIENTATIONS",
]

#: ``"below"``: label 1 below the threshold (the paper's ``c_j(x) = 1`` iff ``x < j``); ``"above"``:
#: label 1 at and above it.
ORIENTATIONS = ("below", "above")

#: A sample with at most this many distinct values possible, ``min(n, |X|)`` (public: ``n`` and the
#: domain are), is drawn flat, from its pieces (on an engine its counts come with the count pass, or
#: on Dask from the counts held on the workers: :func:`~privpac.estimators._one_d.labelled_ranges_of`);
#: larger ones range by range. The two draws
#: have the same law, and the choice depends on public sizes alone, so every engine draws the same model.
FLAT_MAX_RECORDS = 1 << 21


def flat_applies(n: int, size: int) -> bool:
    """Whether a sample of ``n`` records on ``size`` points is drawn flat (public sizes only)."""
    return not grouping_requested() and min(n, size) <= FLAT_MAX_RECORDS


def _flat_counts(sample: LabelledRanges):
    """The sample's counts when the flat draw applies (public sizes only), else ``None``."""
    return sample.counts if flat_applies(sample.n, sample.size) else None


def _threshold_pieces(counts, signs: tuple[int, ...]):
    """The pieces of the threshold qualities of ``signs`` (``+1``: ``Q``, ``-1``: ``n - Q``) laid end
    to end: ``(q, lengths, bounds)`` with ``bounds(t)`` the ``[lo, hi]`` of piece ``t`` in its copy.

    ``Q`` is ``n_0`` on ``[0, v_0]`` and moves by ``ones - zeros`` after each distinct value ``v``:
    ``p + 1`` pieces for ``p`` values, lengths ``v_0 + 1``, ``v_i - v_(i-1)``, ``size - v_(p-1)``
    (unsigned 64-bit integers unless the domain needs Python ints)."""
    v, size = counts.values, counts.size
    p = v.size
    Q = np.empty(p + 1, dtype=np.int64)
    Q[0] = counts.n_zeros
    np.cumsum(counts.ones - counts.zeros, out=Q[1:])
    Q[1:] += counts.n_zeros
    first, last = int(v[0]) + 1, size - int(v[-1])
    if v.dtype == object or max(first, last) >= 2**64:
        lengths = np.asarray([first, *np.diff(v.astype(object)).tolist(), last], dtype=object)
    else:
        lengths = np.empty(p + 1, dtype=np.uint64)
        lengths[1:p] = np.diff(v).astype(np.uint64)
        lengths[0], lengths[p] = first, last
    copies = {+1: Q, -1: counts.n - Q}
    q = np.concatenate([copies[s] for s in signs]) if len(signs) > 1 else copies[signs[0]]
    lengths = np.concatenate([lengths] * len(signs)) if len(signs) > 1 else lengths

    def bounds(t: int) -> tuple[int, int]:
        i = t % (p + 1)
        return (0 if i == 0 else int(v[i - 1]) + 1), (int(v[i]) if i < p else size)

    return q, lengths, bounds


def _flat_thresholds(counts, signs, epsilon, ledger, label, over, rng) -> int:
    """The flat draw over the thresholds of ``signs``: a piece exactly, then a uniform point in it
    (the position in the copies laid end to end, as the grouped draw returns it)."""
    src = as_random_source(rng)
    q, lengths, bounds = _threshold_pieces(counts, signs)
    t = exponential_mechanism_pieces(q, lengths, epsilon, ledger=ledger, label=label, over=over, rng=src)
    lo, hi = bounds(t)
    return (t // (counts.values.size + 1)) * (counts.size + 1) + uniform_int(lo, hi, src)


def em_learner(predictions, y, epsilon: float, *, ledger: PrivacyLedger | None = None, rng=None) -> int:
    """The exponential mechanism over a finite class given by its predictions on the sample.

    ``predictions`` has shape ``(n_hypotheses, m)`` with entries in {0, 1}; returns the index of
    the chosen hypothesis. (epsilon, 0)-DP.
    """
    epsilon = check_epsilon(epsilon)
    P = np.asarray(predictions)
    y = np.asarray(y)
    if P.ndim != 2 or P.shape[0] == 0:
        raise DataError(f"predictions must have shape (n_hypotheses, m) with n_hypotheses >= 1, got {P.shape}")
    if y.ndim != 1 or y.shape[0] != P.shape[1]:
        raise DataError(f"y must have one label per column of predictions ({P.shape[1]}), got shape {y.shape}")
    if y.size == 0:
        raise DataError("the sample is empty: at least one labelled point is needed")
    if not (np.all((P == 0) | (P == 1)) and np.all((y == 0) | (y == 1))):
        raise DataError("predictions and labels must be 0 or 1")
    scores = (P == y[None, :]).sum(axis=1).astype(np.int64)  # integer counts, sensitivity 1
    return exponential_mechanism(scores, epsilon, ledger=ledger, label="EM learner over a finite class", rng=rng)


def threshold_range_weights(sample: LabelledRanges, signs: tuple[int, ...]):
    """The range weights of the thresholds of one or both orientations, for
    :func:`~privpac.mechanisms.exponential_grouped.exponential_mechanism_grouped`.

    The candidates are ``len(signs)`` consecutive copies of ``[0, size]``: ``+1`` scores ``Q(j)``
    (``[x < j]``), ``-1`` scores ``n - Q(j)`` (``[x >= j]``). A range's weight is
    ``2^(eta Q(a))`` (an exact offset from label counts) times the local sum of its records, or the
    mirror (:mod:`privpac.learners.range_counts` has the decomposition); a range that meets both
    copies adds its two parts. One range statistic per call.
    """
    S = sample.size + 1

    def weights(edges, base):
        edges = [int(e) for e in edges]
        touched = [s for s in range(len(signs)) if edges[0] < (s + 1) * S and edges[-1] > s * S]
        fine = sorted({min(max(e - s * S, 0), S) for s in touched for e in edges})
        st = sample.range_stats(fine, ("plus", "minus"), base)
        q = sample.n_zeros - st.below[0] + st.below[1] + np.concatenate([[0], np.cumsum(st.ones - st.zeros)[:-1]])
        fine_off = {+1: q, -1: sample.n - q}
        fine_env = {+1: st.local["plus"], -1: st.local["minus"]}
        part_range, part_off, part_exp, part_mant = [], [], [], []
        for s in touched:
            clipped = [min(max(e - s * S, 0), S) for e in edges]
            at = np.searchsorted(fine, clipped)  # range i holds fine ranges at[i] .. at[i + 1] - 1
            held = np.flatnonzero(np.diff(at) > 0)  # the ranges meeting segment s
            counts = at[held + 1] - at[held]
            rows = np.arange(at[held[0]], at[held[-1] + 1])  # consecutive ranges hold consecutive fine ranges
            part_range.append(np.repeat(held, counts))
            part_off.append(fine_off[signs[s]][rows])
            part_exp.append(fine_env[signs[s]].exponent[rows])
            part_mant.append(fine_env[signs[s]].mantissa[rows])
        ranges = np.concatenate(part_range)
        order = np.argsort(ranges, kind="stable")  # parts grouped by range, in order
        ranges, off = ranges[order], np.concatenate(part_off)[order]
        env = Envelope(np.concatenate(part_exp)[order], np.concatenate(part_mant)[order])
        heads = np.flatnonzero(np.diff(ranges, prepend=-1) != 0)
        offsets = np.maximum.reduceat(off, heads)  # a one-point range has one part: its own quality
        scaled = envelope_scale(env, off - np.repeat(offsets, np.diff(np.append(heads, off.size))), base)
        return offsets, envelope_segment_sums(scaled, heads)

    return weights


def em_learn_thresholds(
    x, y, size: int, epsilon: float, *, ledger: PrivacyLedger | None = None, rng=None
) -> ThresholdHypothesis:
    """The exponential mechanism over all ``size + 1`` thresholds (pure epsilon-DP).

    ``x`` may be a :class:`~privpac.learners.range_counts.LabelledRanges` (a sample read where
    it lives); the draw goes range by range, with the law of the flat draw over
    :func:`~privpac.learners.thresholds.threshold_quality`.
    """
    epsilon = check_epsilon(epsilon)
    sample = labelled_ranges(x, y, size)
    label = "EM learner over thresholds"
    counts = _flat_counts(sample)
    if counts is not None:
        j = _flat_thresholds(counts, (+1,), epsilon, ledger, label, f"[0, {fmt_int(size)}]", rng)
    else:
        j = exponential_mechanism_grouped(
            size, threshold_range_weights(sample, (+1,)), epsilon, ledger=ledger, label=label, rng=rng
        )
    return ThresholdHypothesis(int(j))


def em_learn_oriented_thresholds(
    x, y, size: int, epsilon: float, *, ledger: PrivacyLedger | None = None, rng=None
) -> tuple[ThresholdHypothesis, str]:
    """The exponential mechanism over the thresholds of both orientations, ``2 (size + 1)`` hypotheses.

    The class holds ``[x < j]`` and ``[x >= j]`` for every ``j`` in ``[0, size]``. Their qualities
    are ``Q(j)`` and ``m - Q(j)`` (the number of records each labels correctly): both have
    sensitivity 1, so one exponential mechanism over the union, as one quality on
    ``[0, 2 size + 1]``, is (epsilon, 0)-DP (McSherry and Talwar; Beimel, Nissim, Stemmer
    Prop 2.25) and learns the orientation at no cost beyond epsilon. Its utility is the
    single-orientation learner's with ``ln(2(|X| + 1))`` for ``ln(|X| + 1)``: one more ``ln 2``.
    Drawn range by range (:func:`threshold_range_weights`). Returns the threshold and
    ``"below"`` or ``"above"``.
    """
    epsilon = check_epsilon(epsilon)
    sample = labelled_ranges(x, y, size)
    label = "EM learner over thresholds of both orientations"
    over = f"[0, {size}] in each of the two orientations"
    counts = _flat_counts(sample)
    if counts is not None:
        j = _flat_thresholds(counts, (+1, -1), epsilon, ledger, label, over, rng)
    else:
        j = exponential_mechanism_grouped(
            2 * size + 1,
            threshold_range_weights(sample, (+1, -1)),
            epsilon,
            ledger=ledger,
            label=label,
            over=over,
            rng=rng,
        )
    j = int(j)
    return (ThresholdHypothesis(j), "below") if j <= size else (ThresholdHypothesis(j - size - 1), "above")


def choose_orientation(x, y, size: int, epsilon: float, *, ledger: PrivacyLedger | None = None, rng=None) -> str:
    """The orientation of the best threshold, chosen by the exponential mechanism over the two.

    The score of an orientation is the most records a threshold of it labels correctly,
    ``max_j Q(j)`` or ``max_j (m - Q(j))``: a maximum of sensitivity-1 qualities has sensitivity 1,
    so the choice is (epsilon, 0)-DP. For learners (RecConcave) that need one orientation.
    """
    epsilon = check_epsilon(epsilon)
    sample = labelled_counts(x, y, size)
    below = threshold_quality(sample, None, size)
    scores = np.asarray([int(below.max()), sample.n - int(below.min())], dtype=np.int64)
    k = exponential_mechanism(scores, epsilon, ledger=ledger, label="threshold orientation", rng=rng)
    return ORIENTATIONS[int(k)]


def em_point_quality(x, y, size: int) -> StepFunction:
    """``q(c_j) = #negatives - neg(j) + pos(j)`` over points ``j`` in ``[0, size - 1]`` (sensitivity 1)."""
    s = labelled_counts(x, y, size, allow_empty=True)
    # at its own point a record scores pos or loses neg
    return spikes(s.values, s.ones - s.zeros, s.n_zeros, size - 1)


def point_range_weights(sample: LabelledRanges):
    """The range weights of the point functions on ``[0, size - 1]``: offset ``n_0`` and the local sum
    ``(|R| - d_R) + sum_{v in R} 2^(eta (ones(v) - zeros(v)))`` per range
    (:mod:`privpac.learners.range_counts`); a one-point range has its own quality as offset and
    local sum 1. For :func:`~privpac.mechanisms.exponential_grouped.exponential_mechanism_grouped`."""

    def weights(edges, base):
        st = sample.range_stats(edges, ("spike",), base)
        single = np.asarray([b - a == 1 for a, b in zip(edges[:-1], edges[1:])], dtype=bool)
        offsets = sample.n_zeros + np.where(single, st.ones - st.zeros, 0)
        env = st.local["spike"]
        env = Envelope(np.where(single, 0, env.exponent), np.where(single, 1.0, env.mantissa))
        return offsets, env

    return weights


def em_learn_points(
    x, y, size: int, epsilon: float, *, ledger: PrivacyLedger | None = None, rng=None
) -> PointHypothesis:
    """The exponential mechanism over all ``size`` point functions (pure epsilon-DP), drawn range
    by range with the law of the flat draw over :func:`em_point_quality`."""
    epsilon = check_epsilon(epsilon)
    sample = labelled_ranges(x, y, size)
    label = "EM learner over point functions"
    counts = _flat_counts(sample) if size < 2**62 else None  # point pieces in int64 positions
    if counts is not None:
        quality = em_point_quality(counts, None, size)
        j = exponential_mechanism_step(quality, epsilon, ledger=ledger, label=label, rng=rng)
    else:
        weights = point_range_weights(sample)
        j = exponential_mechanism_grouped(size - 1, weights, epsilon, ledger=ledger, label=label, rng=rng)
    return PointHypothesis(int(j))
