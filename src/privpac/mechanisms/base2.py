"""The exact base-2 sampler under every form of the exponential mechanism.

McSherry and Talwar (2007); Beimel, Nissim, Stemmer, section 2.5.2 and Prop 2.25; the base-2
exponential mechanism of Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential
Privacy" (CCS 2020). The forms that release (a finite list, pieces, a step function) and the privacy
argument are in :mod:`privpac.mechanisms.exponential`; the draw range by range is in
:mod:`privpac.mechanisms.exponential_grouped`. Here:

* :class:`ExpBase`, :func:`exp_base`: the weights ``2^(eta q)``, ``eta = K / 2^M`` rounded down from
  ``epsilon / (2 Delta ln 2)`` with a rational upper bound of ``ln 2``;
* :func:`integer_qualities`: real qualities rounded down on the grid ``sensitivity / DISCRETISATION``
  (the bound is in :mod:`privpac.mechanisms.exponential`, "The mechanism");
* :class:`Envelope`, :func:`envelope_sums`, :func:`envelope_scale`, :func:`envelope_segment_sums`:
  proven float upper bounds of sums of weights, which the range-by-range draw and the counting
  learners' range statistics build on;
* the flat draw (``_flat_plan``, ``_accept_leaf``) and the exact law it realises (``_law``).

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
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..errors import InvalidParameterError, PrivpacError
from ..random import bernoulli, bernoulli_exp2, bernoulli_pow2_ratio, choose_weighted, pow2_grid_bounds
from ..stepfunc import CHUNK as STEP_CHUNK
from ..stepfunc import StepFunction
from ..validation import check_epsilon, check_real

__all__ = [
    "DISCRETISATION",
    "Envelope",
    "ExactSamplingError",
    "ExpBase",
    "GRID",
    "envelope_scale",
    "envelope_segment_sums",
    "envelope_sums",
    "exp_base",
    "integer_qualities",
    "length_parts",
]

#: Grid of the envelopes' exponents: ``2^(z/GRID)`` with an integer ``z``.
GRID_BITS = 12
GRID = 1 << GRID_BITS
#: Real-valued qualities are rounded down to multiples of ``sensitivity / DISCRETISATION``.
DISCRETISATION = 1024
#: A rational upper bound of ``ln 2 = 0.693147180559945309417232121458176568...``.
LN2_UPPER = Fraction(693147180559945309417232121459, 10**30)
#: ``eta``'s numerator has this many bits (relative rounding of ``eta`` below ``2^-15``).
_ETA_BITS = 16
#: Largest ``|q| c`` of a real quality handed to the sampler ("The mechanism" in
#: :mod:`privpac.mechanisms.exponential`); larger ones are shifted by their maximum and clamped this
#: far below it (:func:`integer_qualities`).
_REAL_LIMIT = 2.0**40
#: Real qualities on the grid must stay below this (the rounding argument of "The mechanism").
_FLOAT_INTEGERS = 2.0**50
#: Shifts below this are clamped (an upper bound that stays a normal float).
_MIN_SHIFT = -960


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
    the grid ``sensitivity / DISCRETISATION`` (:mod:`privpac.mechanisms.exponential`, "The
    mechanism"), with sensitivity ``DISCRETISATION + 1``. ``-inf`` entries (not candidates) are
    returned as 0; the caller masks them.
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
            # as _length_parts reads a big length: its top 53 bits plus one (rounded up), times 2^e
            e[a:b], top = self.f.length_heads(a, b, 53)
            top[e[a:b] > 0] += 1
            m[a:b] = top
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
