"""The exponential mechanism, sampled exactly: over a finite list, over a step function on ``[0, T]``,
and range by range.

McSherry and Talwar (2007); Beimel, Nissim, Stemmer, section 2.5.2 and Prop 2.25; the base-2
exponential mechanism of Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential
Privacy" (CCS 2020).

The mechanism
-------------
A quality ``q(S, h)`` with integer values and integer sensitivity ``Delta`` (replace-one
neighbours move every ``q(S, h)`` by at most ``Delta``) and a data-independent base measure
``mu(h)`` (1 over a finite list; the piece length over a step function, so every *point* of
``[0, T]`` counts once). Output ``h`` with probability ``w_S(h) / Z_S``,

    ``w_S(h) = mu(h) 2^(eta q(S, h))``,  ``eta = K / 2^M``,

a dyadic rational rounded **down** from ``epsilon / (2 Delta ln 2)`` (with a rational upper
bound of ``ln 2``, so the rounding is proven): ``eta ln 2 <= epsilon / (2 Delta)``.

Privacy: each weight moves by a factor at most ``2^(eta Delta) <= e^(epsilon/2)`` between
neighbours, and so does ``Z_S``, so ``Pr[h | S] <= e^epsilon Pr[h | S']``: (epsilon, 0)-DP. The
mechanism spends ``2 Delta eta ln 2 <= epsilon``; the ledger entry charges ``epsilon`` and states
``eta`` (:meth:`ExpBase.describe`). Utility is the textbook one at ``epsilon' = 2 Delta eta ln 2``,
within a factor ``1 - 2^-15`` of ``epsilon``: ``Pr[q <= max q - t] <= (points) e^(-epsilon' t / (2 Delta))``.

Which qualities are integers is decided by the *dtype* of the values (code, never data: a value
test would let neighbours take different paths). Integer dtypes with an integer sensitivity are
used as they are. Real-valued qualities (float dtypes: RecConcave's recursive qualities, the
boosted selection's losses) are rounded down on a grid of ``sensitivity / DISCRETISATION``:
``q' = floor(q c)`` with ``c = fl(DISCRETISATION / Delta)``. If ``|q - q~| <= Delta`` then
``|q c - q~ c| <= DISCRETISATION (1 + 2^-52)`` and the computed products differ from the exact
ones by at most ``2^-52 |q c|``, which is below ``1/4`` once ``|q| c < 2^50`` (checked), so the
floors differ by at most ``DISCRETISATION + 1``: an integer quality of sensitivity
``DISCRETISATION + 1``, exact from there on. Floors beyond ``2^40`` in size (counts of 10^11
records) are replaced by ``max(q', max q' - L) - max q'`` with ``L = 2^40 - 1``: a maximum of two
qualities of that sensitivity, less a constant common to every candidate (which changes no
probability), so the mechanism keeps its privacy; only candidates more than ``L`` grid steps below
the best, of weight below ``2^(-eta L)``, are drawn with that weight instead. Floating-point
inputs are the caller's; the draw from them is exact.

Exact sampling
--------------
Every draw is rejection sampling in which floats may *propose* and only exact integer or rational
arithmetic *decides*, so the law is exact given exactly uniform random bits:

1. **Proposal.** Each candidate (piece) ``t`` gets the envelope ``e_t = len_t 2^(z_t / H)`` with
   ``z_t = ceil(H eta d_t)``, ``d_t = q_t - max q`` and ``H = GRID = 4096``: ``w_t <= e_t < 2^(1/H) w_t``.
   Its value is bounded above in floats by ``len 2^F upper[z mod H]`` (``F = floor(z / H)``, the
   table of proven bounds :func:`privpac.random.pow2_grid_bounds`), with only correctly rounded
   IEEE operations (``+``, ``*``, ``ldexp``) and an explicit inflation for their rounding; every
   bound is then rounded *up* to an integer number of units ``U_t`` of ``2^s``
   (:func:`_to_units`). ``t`` is drawn with probability ``U_t / sum U`` exactly
   (:func:`~privpac.random.choose_weighted`).
2. **Acceptance** with probability ``w_t / (U_t 2^s) <= 1``, as the product of two exact
   Bernoullis: ``2^-(z_t/H - eta d_t)`` (:func:`~privpac.random.bernoulli_exp2`, a dyadic exponent
   below ``1/H``) and ``2^(z_t/H) len_t / (U_t 2^s)`` (:func:`~privpac.random.bernoulli_pow2_ratio`).
3. Otherwise try again from 1 (fresh bits). An attempt returns ``t`` with probability
   ``(U_t / sum U) w_t / (U_t 2^s) = w_t / (2^s sum U)``: proportional to ``w_t``, so the accepted
   output has law ``w_t / Z`` exactly. Attempts succeed with probability at least ``2^(-1/H) (1 - 2^-30)``.

A candidate of weight ``2^-2000`` relative to the best is proposed with at least one unit and
accepted with its exact probability (``2000 eta`` fair zero bits first): no weight is rounded to 0
and no probability is rounded.

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

Audits and laws
---------------
On an enumerating source (:mod:`privpac.audit.enumeration`) each form hands the source the exact
law of its output (``"exponential"``: the integer deficits, lengths and ``eta``), computed by the
same functions as the float views :func:`exponential_probabilities` and
:func:`step_piece_probabilities`; the test harness ``tests/test_exact_sampling.py`` enumerates the
attempts' random draws and checks, in rationals, that the samplers realise that law.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..accounting import PrivacyLedger, charge
from ..errors import InvalidParameterError, NotEnumerable, PrivpacError
from ..formatting import fmt_int
from ..random import (
    as_random_source,
    bernoulli,
    bernoulli_exp2,
    bernoulli_pow2_ratio,
    choose_weighted,
    pow2_grid_bounds,
    uniform_array,
    uniform_int,
)
from ..stepfunc import CHUNK as STEP_CHUNK
from ..stepfunc import StepFunction
from ..validation import check_epsilon, check_real

__all__ = [
    "exponential_mechanism",
    "exponential_probabilities",
    "exponential_weights",
    "exponential_mechanism_step",
    "exponential_mechanism_pieces",
    "step_piece_probabilities",
    "sample_log_weights",
    "ExpBase",
    "exp_base",
    "integer_qualities",
    "Envelope",
    "envelope_sums",
    "envelope_scale",
    "envelope_segment_sums",
    "GRID",
    "DISCRETISATION",
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

#: Grid of the envelopes' exponents: ``2^(z/GRID)`` with an integer ``z``.
GRID_BITS = 12
GRID = 1 << GRID_BITS
#: Real-valued qualities are rounded down to multiples of ``sensitivity / DISCRETISATION``.
DISCRETISATION = 1024
#: The per-level slack of the grouped draw (module docstring).
LEVEL_SLACK = Fraction(1025, 1024)
#: A rational upper bound of ``ln 2 = 0.693147180559945309417232121458176568...``.
LN2_UPPER = Fraction(693147180559945309417232121459, 10**30)
#: ``eta``'s numerator has this many bits (relative rounding of ``eta`` below ``2^-15``).
_ETA_BITS = 16
#: Largest ``|q| c`` of a real quality handed to the sampler (module docstring); larger ones are
#: shifted by their maximum and clamped this far below it (:func:`integer_qualities`).
_REAL_LIMIT = 2.0**40
#: Real qualities on the grid must stay below this (the rounding argument of the module docstring).
_FLOAT_INTEGERS = 2.0**50
#: Shifts below this are clamped (an upper bound that stays a normal float).
_MIN_SHIFT = -960

#: Largest ``T + 1`` whose grouped law an enumerating source is handed point by point.
_ENUMERATE_POINTS = 1 << 16

#: The number of public ranges :func:`exponential_mechanism_grouped` splits its current range into.
FAN_OUT = 4096
_fan_out = [FAN_OUT]


class ExactSamplingError(PrivpacError):
    """An acceptance probability above 1: a float bound was not an upper bound (a bug, never data)."""


# -- the base ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExpBase:
    """The weights ``2^(eta q)`` of one exponential mechanism: ``eta = K / 2^M`` (integer
    qualities of sensitivity ``sensitivity``; ``discretised``: real values were rounded down to
    multiples of ``1 / DISCRETISATION`` of their stated sensitivity)."""

    K: int
    M: int
    epsilon: float
    sensitivity: int
    discretised: bool = False

    @property
    def eta(self) -> Fraction:
        return Fraction(self.K, 1 << self.M)

    @property
    def epsilon_used(self) -> float:
        """``2 Delta eta ln 2 <= epsilon``: what the mechanism really spends."""
        return 2.0 * self.sensitivity * float(self.eta) * math.log(2.0)

    def describe(self) -> str:
        grid = f"; real qualities rounded down to 1/{DISCRETISATION} of their sensitivity" if self.discretised else ""
        return (
            f"exact base-2 weights 2^(eta q), eta = {self.K}/2^{self.M} <= epsilon/(2 ln 2 * {self.sensitivity}){grid}"
        )


def exp_base(epsilon: float, sensitivity: int = 1, *, discretised: bool = False) -> ExpBase:
    """The base of an exponential mechanism at ``epsilon`` over integer qualities of sensitivity
    ``sensitivity``: the largest ``eta = K / 2^M`` (``K`` of :data:`_ETA_BITS` bits) with
    ``eta * LN2_UPPER <= epsilon / (2 sensitivity)`` (exact rationals)."""
    return _exp_base(check_epsilon(epsilon), int(sensitivity), bool(discretised))


@functools.lru_cache(maxsize=256)
def _exp_base(epsilon: float, sensitivity: int, discretised: bool) -> ExpBase:
    if sensitivity < 1:
        raise InvalidParameterError(f"the integer sensitivity must be >= 1, got {sensitivity}")
    target = Fraction(epsilon) / (2 * sensitivity * LN2_UPPER)
    top = target.numerator.bit_length() - target.denominator.bit_length()  # target ~ 2^top
    M = max(0, _ETA_BITS - top)
    if M > 62:
        raise InvalidParameterError(
            f"epsilon / sensitivity = {epsilon} / {sensitivity} is too small for the exact exponential mechanism "
            "(below about 2^-40)"
        )
    K = (target.numerator << M) // target.denominator
    return ExpBase(K, M, epsilon, sensitivity, discretised)


def integer_qualities(values, sensitivity) -> tuple[np.ndarray, int, bool]:
    """``(q, Delta, discretised)``: the qualities as int64 with their integer sensitivity.

    Integer dtypes with an integer ``sensitivity`` are kept; any other input is rounded down on
    the grid ``sensitivity / DISCRETISATION`` (module docstring), with sensitivity
    ``DISCRETISATION + 1``. ``-inf`` entries (not candidates) are returned as 0; the caller masks them.
    """
    values = np.asarray(values)
    sensitivity = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    if np.issubdtype(values.dtype, np.integer) and float(sensitivity).is_integer():
        return values.astype(np.int64, copy=False), int(sensitivity), False
    x = values.astype(np.float64) * (DISCRETISATION / sensitivity)
    finite = np.isfinite(x)
    if np.any(np.abs(x[finite]) >= _FLOAT_INTEGERS):
        raise InvalidParameterError(
            f"qualities up to {np.abs(values[finite]).max():.3g} are too large for sensitivity {sensitivity} "
            f"(|quality| / sensitivity must stay below 2^40)"
        )
    q = np.floor(np.where(finite, x, 0.0))
    if finite.any() and np.abs(q[finite]).max() >= _REAL_LIMIT:
        # Far from 0 (counts of 10^11 records): max(q, top - L) is again a quality of sensitivity
        # DISCRETISATION + 1 (a maximum of two such), and subtracting the common top changes no
        # probability; only candidates more than L grid steps below the best, of weight below
        # 2^(-eta L), are raised to that weight.
        top = q[finite].max()
        q = np.maximum(q, top - (_REAL_LIMIT - 1)) - top
    return np.where(finite, q, 0.0).astype(np.int64), DISCRETISATION + 1, True


def _base_for(values, epsilon: float, sensitivity) -> tuple[np.ndarray, ExpBase]:
    q, sens, disc = integer_qualities(values, sensitivity)
    return q, exp_base(epsilon, sens, discretised=disc)


# -- envelopes ----------------------------------------------------------------------------------------


class Envelope(NamedTuple):
    """Upper bounds ``mantissa * 2^exponent`` (float64 mantissas, int64 exponents)."""

    exponent: np.ndarray
    mantissa: np.ndarray


def _inflated(x: np.ndarray, roundings) -> np.ndarray:
    """``x`` times ``1 + (r + 2) 2^-52``: an upper bound of the exact value that ``x`` approximates
    after ``r`` correctly rounded operations on non-negative numbers (the multiplication rounds once
    more, covered by the ``+ 2``)."""
    return x * (1.0 + (np.asarray(roundings, dtype=np.float64) + 2.0) * 2.0**-52)


def _grid_exponents(d, base: ExpBase, inplace: bool = False) -> np.ndarray:
    """``z = ceil(GRID eta d)`` for integers ``d`` (int64, exact; Python ints beyond int64's reach).
    ``inplace``: ``d`` is a fresh int64 array the result may overwrite."""
    d = np.asarray(d)
    KH = base.K << GRID_BITS
    if d.dtype != object and (d.size == 0 or max(-int(d.min()), int(d.max())) < (1 << 62) // KH):
        if inplace and d.dtype == np.int64:
            num = np.multiply(d, np.int64(KH), out=d)
        else:
            num = d.astype(np.int64) * np.int64(KH)
        if base.M:  # ceil(num / 2^M) = -floor(-num / 2^M)
            np.negative(num, out=num)
            np.right_shift(num, base.M, out=num)
            np.negative(num, out=num)
        return num
    z = [-((-(int(v) * KH)) >> base.M) for v in d.tolist()]
    if all(-(1 << 62) < v < (1 << 62) for v in z):
        return np.asarray(z, dtype=np.int64)
    raise InvalidParameterError("qualities too large for the exact exponential mechanism (|eta q| >= 2^50)")


def _delta(z: int, d: int, base: ExpBase) -> Fraction:
    """``z / GRID - eta d`` in ``[0, 1/GRID)``: the part of the envelope's exponent above the weight's."""
    return Fraction((int(z) << base.M) - int(d) * (base.K << GRID_BITS), 1 << (base.M + GRID_BITS))


def _pow2(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(F, m)`` with ``2^(z/GRID) <= m 2^F``: ``F = floor(z / GRID)``, ``m`` a proven table bound."""
    upper = pow2_grid_bounds(GRID)[1]
    return z >> GRID_BITS, upper[z & (GRID - 1)]


class _StepLengths:
    """The piece lengths of a step function with Python-int positions, read a chunk at a time: on a
    huge range the lengths are as large as the positions (8 KiB each at ``2^65536``), so they are
    never all held at once. Indexing gives one length, as an array would."""

    dtype = np.dtype(object)

    def __init__(self, f: StepFunction):
        self.f = f
        self.size = f.n_pieces

    def __getitem__(self, t) -> int:
        lo, hi = self.f.piece_bounds(int(t))
        return hi - lo + 1

    def parts(self) -> tuple[np.ndarray, np.ndarray, int]:
        e = np.empty(self.size, dtype=np.int64)
        m = np.empty(self.size, dtype=np.float64)
        for a in range(0, self.size, STEP_CHUNK):
            b = min(a + STEP_CHUNK, self.size)
            e[a:b], m[a:b], _ = _length_parts(self.f.lengths(a, b))
        return e, m, 0


def _length_parts(lengths) -> tuple[np.ndarray, np.ndarray, int]:  # (e, m, roundings)
    """``(e, m, r)`` with ``length <= m 2^e`` up to ``r`` roundings: int64 lengths are converted to
    floats (one rounding); big integers keep their top 53 bits, rounded up exactly."""
    if isinstance(lengths, _StepLengths):
        return lengths.parts()
    lengths = np.asarray(lengths)
    if lengths.dtype != object:  # int64 or uint64: one correctly rounded conversion
        return np.zeros(lengths.size, dtype=np.int64), lengths.astype(np.float64), 1
    e = np.zeros(lengths.size, dtype=np.int64)
    m = np.empty(lengths.size, dtype=np.float64)
    for k, v in enumerate(lengths.tolist()):
        s = v.bit_length() - 53
        if s > 0:
            e[k], m[k] = s, float((v >> s) + 1)
        else:
            m[k] = float(v)
    return e, m, 0


def envelope_sums(local, lengths, heads, base: ExpBase) -> Envelope:
    """Per segment ``terms[heads[i] : heads[i + 1]]`` (the last to the end), upper bounds of
    ``sum len_t 2^(eta local_t)`` for integer ``local`` and positive integer ``lengths``.

    Each term is bounded by ``len 2^(ceil(GRID eta local)/GRID)`` (at most ``2^(1/GRID)`` above the
    exact term) and summed in floats with its rounding inflated away: the result is at least the
    exact sum and at most ``2^(1/GRID) (1 + 2^-20)`` times it. Deterministic (the same integers give
    the same bits on every engine). Segments must be non-empty.
    """
    heads = np.asarray(heads, dtype=np.int64)
    F, tm = _pow2(_grid_exponents(local, base))
    le, lm, r = lengths if isinstance(lengths, tuple) else _length_parts(lengths)
    return _segment_sums(Envelope(F if le is None else F + le, lm * tm), heads, r + 1)


def length_parts(lengths) -> tuple:
    """The lengths as :func:`envelope_sums` reads them (to share one conversion between sums)."""
    le, lm, r = _length_parts(lengths)
    return (None if r else le), lm, r


def _times_pow2(mant: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``mant * 2^shift`` exactly for ``-960 <= shift <= 1000`` and normal products: the power of
    two is built from its exponent bits (no rounding; faster than ``ldexp``)."""
    return mant * ((shift + 1023) << 52).view(np.float64)


def _segment_sums(env: Envelope, heads: np.ndarray, roundings: int) -> Envelope:
    counts = np.diff(np.append(heads, env.exponent.size))
    top = np.maximum.reduceat(env.exponent, heads)
    shift = np.maximum(env.exponent - np.repeat(top, counts), _MIN_SHIFT)
    sums = np.add.reduceat(_times_pow2(env.mantissa, shift), heads)
    return Envelope(top, _inflated(sums, counts + roundings))


def envelope_segment_sums(env: Envelope, heads) -> Envelope:
    """Upper bounds of the sums of ``env``'s values over the segments starting at ``heads``."""
    return _segment_sums(env, np.asarray(heads, dtype=np.int64), 0)


def envelope_scale(env: Envelope, d, base: ExpBase) -> Envelope:
    """Upper bounds of ``env * 2^(eta d)`` for integers ``d`` (at most ``2^(1/GRID)`` looser)."""
    F, tm = _pow2(_grid_exponents(d, base))
    return Envelope(env.exponent + F, _inflated(env.mantissa * tm, 1))


def _to_units(env: Envelope, inplace: bool = False) -> tuple[np.ndarray, int]:
    """``(U, s)``: integers ``U_i >= value_i / 2^s`` (0 only for a zero value, else at least 1), the
    largest about ``2^B`` with ``B`` chosen so that ``sum U < 2^62``. ``inplace``: the envelope's
    arrays are fresh and may be overwritten."""
    mant = env.mantissa
    positive = mant > 0
    every = bool(positive.all())
    if not every and not positive.any():
        raise InvalidParameterError("no candidate has positive weight")
    # the binary exponent of each (normal, positive) mantissa, read from its bits
    work = np.right_shift(mant.view(np.int64), 52)
    work += env.exponent
    B = 60 - int(mant.size).bit_length()
    scale = int(work.max() if every else work[positive].max()) - 1022 - B
    np.subtract(env.exponent, scale, out=work)
    np.maximum(work, _MIN_SHIFT, out=work)  # <= B: the products stay below 2^B
    work += 1023
    np.left_shift(work, 52, out=work)  # the bits of 2^shift (normal: shift >= -960): exact products
    scaled = np.multiply(mant, work.view(np.float64), out=mant if inplace else None)
    scaled *= 1.0 + 2.0**-50
    np.ceil(scaled, out=scaled)
    units = scaled.astype(np.int64)
    np.maximum(units, 1, out=units)
    if not every:
        units[~positive] = 0
    return units, scale


# -- the flat forms ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Flat:
    """A flat draw's proposal: the qualities (``top`` their maximum over the candidates), lengths,
    and the integer units proposing each candidate (of ``2^scale`` each)."""

    q: np.ndarray
    top: int
    lengths: np.ndarray
    units: np.ndarray
    scale: int
    base: ExpBase

    def candidate(self, t: int) -> tuple[int, int, int, int]:
        """``(d, z, length, units)`` of candidate ``t`` (``d = q - top``, ``z = ceil(GRID eta d)``)."""
        d = int(self.q[t]) - self.top
        return d, int(_grid_exponents(np.asarray([d]), self.base)[0]), int(self.lengths[t]), int(self.units[t])


def _flat_plan(q: np.ndarray, lengths: np.ndarray, base: ExpBase, candidate: np.ndarray | None = None) -> _Flat:
    """The units of every candidate, from the bound ``length 2^F upper[z mod GRID]`` of its envelope
    (in place where it can: a flat draw over millions of pieces is bound by memory traffic)."""
    masked = candidate is not None and not candidate.all()
    top = int(q[candidate].max()) if masked else int(q.max())
    z = _grid_exponents(np.where(candidate, q - top, 0) if masked else q - top, base, inplace=True)
    mant = pow2_grid_bounds(GRID)[1][z & (GRID - 1)]
    np.right_shift(z, GRID_BITS, out=z)  # z is F from here on
    le, lm, _ = _length_parts(lengths)
    mant *= lm  # two roundings (the conversion of the length and this product), inflated below
    del lm
    if lengths.dtype == object:
        z += le
    if masked:
        mant[~candidate] = 0.0
    mant *= 1.0 + 4.0 * 2.0**-52
    units, scale = _to_units(Envelope(z, mant), inplace=True)
    return _Flat(q, top, lengths, units, scale, base)


def _accept_leaf(base: ExpBase, d: int, z: int, length: int, units: int, scale: int, src) -> bool:
    """Accept a proposed candidate of weight ``length 2^(eta d)`` whose proposal value is
    ``units 2^scale >= length 2^(z/GRID)``: probability ``length 2^(eta d) / (units 2^scale)``."""
    delta = _delta(z, d, base)
    if delta and not bernoulli_exp2(delta, src):
        return False
    length, shift = int(length), (int(z) >> GRID_BITS) - scale
    if length.bit_length() > 64:
        # a huge length entered the proposal as (its top 53 bits + 1) 2^e (_length_parts): accept
        # length / that first, so the comparison below works on small integers
        e = length.bit_length() - 53
        top = (length >> e) + 1
        if not bernoulli(Fraction(length, top << e), src):
            return False
        length, shift = top, shift + e
    try:
        return bernoulli_pow2_ratio(int(z) & (GRID - 1), GRID, length, int(units), shift, src)
    except InvalidParameterError as exc:  # the float bound was not an upper bound: a bug
        raise ExactSamplingError(str(exc)) from exc


def _flat_attempt(plan: _Flat, src) -> int | None:
    """One attempt of the flat draw: the proposed index if accepted, else None."""
    t = choose_weighted(plan.units, src)
    ok = _accept_leaf(plan.base, *plan.candidate(t), plan.scale, src)
    return t if ok else None


def _flat_draw(plan: _Flat, src) -> int:
    while True:
        t = _flat_attempt(plan, src)
        if t is not None:
            return t


def _law(d, lengths, base: ExpBase) -> np.ndarray:
    """The exact law ``len 2^(eta d) / Z`` as floats (a view: rounded once, never sampled from)."""
    d = np.asarray(d)
    lengths = np.asarray(lengths)
    log2_len = (
        np.fromiter((math.log2(v) if v > 0 else -math.inf for v in lengths.tolist()), np.float64, lengths.size)
        if lengths.dtype == object
        else _log2(lengths.astype(np.float64))
    )
    lw = log2_len + float(base.eta) * d.astype(np.float64)
    w = np.exp2(lw - np.max(lw))
    return w / w.sum()


def _log2(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log2(x)


def _check_scores(scores) -> np.ndarray:
    scores = np.asarray(scores)
    if scores.ndim != 1 or scores.size == 0:
        raise InvalidParameterError("scores must be a non-empty 1-D array")
    numeric = np.issubdtype(scores.dtype, np.number) and not np.issubdtype(scores.dtype, np.complexfloating)
    if scores.dtype == object or not numeric:
        scores = scores.astype(np.float64)
    if np.issubdtype(scores.dtype, np.floating) and not np.all(np.isfinite(scores)):
        raise InvalidParameterError("scores must be finite")
    return scores


def exponential_probabilities(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """The output law of :func:`exponential_mechanism` (floats: a view of the exact law)."""
    q, base = _base_for(_check_scores(scores), epsilon, sensitivity)
    return _law(q - q.max(), np.ones(q.size, dtype=np.int64), base)


def exponential_weights(scores, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """The weights ``2^(eta (q - max q))`` of :func:`exponential_mechanism` (floats; for laws of
    composite algorithms whose candidates' weights are compared across draws)."""
    q, base = _base_for(_check_scores(scores), epsilon, sensitivity)
    return np.exp2(float(base.eta) * (q - q.max()).astype(np.float64))


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
    """Pick an index of ``scores`` with probability proportional to ``2^(eta q)``, exactly.

    Parameters
    ----------
    scores : 1-D array
        The qualities: integers (an integer dtype) of sensitivity ``sensitivity``, or reals
        (a float dtype), rounded down on the grid ``sensitivity / DISCRETISATION`` (module docstring).
    epsilon : float
        The budget: ``eta <= epsilon / (2 sensitivity ln 2)`` (:func:`exp_base`). (epsilon, 0)-DP.
    sensitivity : float, default=1.0
        How far one changed record moves any score.
    ledger, label : PrivacyLedger or None, str
        Charged ``epsilon`` before anything is drawn; the entry states ``eta``.
    over : str or None, default=None
        Describes the candidates in the ledger entry (default: their number); callers whose
        candidate list is built from data describe it in public terms.
    rng : None, int or RandomSource, default=None
        ``None``: secure randomness.

    Returns
    -------
    int
        The chosen index.
    """
    q, base = _base_for(_check_scores(scores), epsilon, sensitivity)
    desc = f"exponential mechanism over {over or f'{q.size} candidates'}; {base.describe()}"
    charge(ledger, label, epsilon, 0.0, desc)
    src = as_random_source(rng)
    d = q - q.max()
    ones = np.ones(q.size, dtype=np.int64)
    if src.enumerates:
        return src.choose("exponential", d, ones, base)
    return _flat_draw(_flat_plan(q, ones, base), src)


def _step_parts(f: StepFunction, epsilon: float, sensitivity) -> tuple[np.ndarray, np.ndarray | None, ExpBase]:
    if not isinstance(f, StepFunction):
        raise InvalidParameterError("the quality must be a privpac.stepfunc.StepFunction")
    values = f.values
    candidate = None
    if np.issubdtype(values.dtype, np.floating):
        # -inf marks points that are not candidates (StepFunction.keep_only); they get weight 0.
        finite = np.isfinite(values)
        if not np.all(finite | np.isneginf(values)) or not finite.any():
            raise InvalidParameterError(
                "step-function values must be finite, or -inf for points that are not candidates"
            )
        candidate = None if finite.all() else finite
    q, base = _base_for(values, epsilon, sensitivity)
    return q, candidate, base


def step_piece_probabilities(f: StepFunction, epsilon: float, sensitivity: float = 1.0) -> np.ndarray:
    """Probability that :func:`exponential_mechanism_step` lands in each piece of ``f`` (floats: a
    view of the exact law). A point inside piece ``t`` then has probability ``p[t] / length[t]``."""
    q, candidate, base = _step_parts(f, epsilon, sensitivity)
    lengths = f.lengths()
    if candidate is None:
        return _law(q - q.max(), lengths, base)
    out = np.zeros(q.size)
    out[candidate] = _law(q[candidate] - q[candidate].max(), lengths[candidate], base)
    return out


def _draw_pieces(q: np.ndarray, lengths: np.ndarray, base: ExpBase, candidate: np.ndarray | None, src) -> int:
    """A piece index with probability proportional to ``length 2^(eta q)`` (``candidate``: a mask)."""
    if src.enumerates:
        keep = np.ones(q.size, dtype=bool) if candidate is None else candidate
        law_d = np.where(keep, q - q[keep].max(), 0)
        law_len = (
            np.where(keep, lengths, 0)
            if lengths.dtype != object
            else np.asarray([v if k else 0 for v, k in zip(lengths.tolist(), keep.tolist())], dtype=object)
        )
        return src.choose("exponential", law_d, law_len, base)
    return _flat_draw(_flat_plan(q, lengths, base, candidate), src)


def exponential_mechanism_pieces(
    q,
    lengths,
    epsilon: float,
    *,
    sensitivity: int = 1,
    ledger: PrivacyLedger | None = None,
    label: str = "exponential mechanism",
    over: str = "",
    rng=None,
) -> int:
    """The exponential mechanism over pieces of integer quality ``q`` and positive integer
    ``lengths`` (int64, uint64 or Python ints): a piece index ``t`` with probability proportional
    to ``lengths[t] 2^(eta q[t])``, exactly (module docstring). The caller draws the point inside
    the piece (:func:`~privpac.random.uniform_int`) and describes the candidates in ``over`` in
    public terms. (epsilon, 0)-DP when ``q`` has sensitivity ``sensitivity`` point-wise.
    """
    q = np.asarray(q)
    if not np.issubdtype(q.dtype, np.integer) or q.ndim != 1 or q.size == 0:
        raise InvalidParameterError("q must be a non-empty 1-D array of integers")
    base = exp_base(epsilon, sensitivity)
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {over}; {base.describe()}")
    return _draw_pieces(q.astype(np.int64, copy=False), np.asarray(lengths), base, None, as_random_source(rng))


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
    """The exponential mechanism over every point of ``[0, f.T]`` with quality ``f``, exactly.

    A piece is drawn with probability proportional to ``length 2^(eta q)`` (the exact sampler of the
    module docstring), then a uniform point inside it (:func:`~privpac.random.uniform_int`): the
    point-wise mechanism on ``[0, T]``. Cost ``O(k)`` for ``k`` pieces, whatever ``T`` is.
    (epsilon, 0)-DP when ``f`` has sensitivity ``sensitivity`` point-wise; the values' dtype says
    whether they are integers (see :func:`exponential_mechanism`). Returns a Python int in ``[0, T]``.

    ``over`` describes the candidate range in the ledger entry (default ``[0, T]``); callers whose
    range follows a private output (RecConcave's chosen blocks) describe it in public terms.
    """
    q, candidate, base = _step_parts(f, epsilon, sensitivity)
    # The entry names public sizes only (the range [0, T]): the number of pieces is a count of
    # distinct data values and must never reach the ledger.
    what = over or f"[0, {fmt_int(f.T)}]"
    charge(ledger, label, epsilon, 0.0, f"exponential mechanism over {what}; {base.describe()}")
    src = as_random_source(rng)
    lengths = _StepLengths(f) if f.positions_dtype.kind == "O" and not src.enumerates else f.lengths()
    t = _draw_pieces(q, lengths, base, candidate, src)
    return uniform_int(*f.piece_bounds(t), src)


def sample_log_weights(log_weights: np.ndarray, rng=None, size: int | None = None):
    """Indices drawn with probability proportional to ``exp(log_weights)`` by inverting a float
    cumulative sum at 53-bit uniforms.

    **Post-processing only** (synthetic records from a released distribution,
    :meth:`privpac.sanitizers.database.SanitizedDatabase.sample`): its probabilities are rounded, so
    no draw whose law depends on private data uses it (those use the exact samplers above).
    ``size=None`` returns one Python int.
    """
    log_weights = np.asarray(log_weights, dtype=np.float64)
    if log_weights.ndim != 1 or log_weights.size == 0:
        raise InvalidParameterError("log_weights must be a non-empty 1-D array")
    if np.any(np.isnan(log_weights)) or np.all(np.isneginf(log_weights)):
        raise InvalidParameterError("log_weights must not be NaN and not all -inf")
    src = as_random_source(rng)
    cum = np.cumsum(np.exp(log_weights - np.max(log_weights)))
    u = uniform_array(1 if size is None else size, src) * cum[-1]
    idx = np.searchsorted(cum, u, side="right")
    np.minimum(idx, log_weights.size - 1, out=idx)
    return int(idx[0]) if size is None else idx


# -- drawn range by range ------------------------------------------------------------------------


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
