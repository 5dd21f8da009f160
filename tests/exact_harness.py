"""Exact output laws of the shipped samplers, by enumerating their random choices in rationals.

Two enumerating random sources run a sampler once per path through its random choices (depth
first) and add up each output's probability as exact rationals:

* :func:`bit_law` enumerates **bit strings**: the sampler runs its real code on a source whose
  ``randbits(k)`` takes each of its ``2^k`` values with probability ``2^-k``, so a path of ``b`` bits
  has probability ``2^-b``. Samplers with loops (rejection, geometric counts, lazy comparisons) have
  infinitely many paths: a path is abandoned once it has drawn more than ``max_bits`` bits and its
  mass is added to ``remainder``. The true law then satisfies ``P_enum(o) <= P(o) <= P_enum(o) +
  remainder`` for every output ``o``, with ``remainder`` shrinking geometrically in the depth.
  Used on every primitive that touches bits (:mod:`privpac.random`).
* :func:`draw_law` enumerates the **primitive draws** of one attempt of a rejection sampler
  (:func:`~privpac.random.choose_weighted`, :func:`~privpac.random.bernoulli` and the irrational
  Bernoullis :func:`~privpac.random.bernoulli_exp2`, :func:`~privpac.random.bernoulli_pow2_ratio`),
  each taken with its exact law (a rational, or a rational interval of width about ``2^-250`` for
  the irrational ones, computed here from first principles: alternating Taylor series and
  rational bounds of ``ln 2``). An attempt has finitely many paths, so nothing is cut; the
  attempt returns ``o`` with probability ``A(o)`` and fails with ``1 - sum A``. The sampler
  repeats independent attempts until one succeeds, so its output law is exactly
  ``A(o) / sum_o' A(o')`` (a geometric number of i.i.d. attempts). The primitives' own
  exactness is the first kind of test.

Together: every bit a sampler consumes is accounted for, the primitives by enumeration of their
bits, the composition by enumeration of their draws, and the rejection loop by the identity above.
The independent laws (:func:`pow2_interval`, :func:`exponential_law`) share no code with :mod:`privpac`.

A *caller* of the exponential mechanism (a learner mapping a drawn piece to a point and an
orientation, the choosing mechanism) is enumerated the same way one level up: the mechanism's
draw (kind ``"exponential"``) and the discrete-Laplace test (``"discrete_laplace_exceeds"``) are
taken with their independent exact laws, so the enumerated law of the public function is the law
its paper states at the rational base actually used, given that the samplers realise those two
draws exactly (the tests above).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privpac.random import RandomSource


def _ln2_bounds(P: int = 700, N: int = 640) -> tuple[Fraction, Fraction]:
    """``ln 2 = sum_{k >= 1} 1 / (k 2^k)`` in fixed point: each floor loses less than ``2^-P``, the
    tail after ``N`` terms is below ``2^-N``."""
    S = sum((1 << (P - k)) // k for k in range(1, N + 1))
    return Fraction(S, 1 << P), Fraction(S + N + (1 << (P - N)), 1 << P)


LN2_LO, LN2_HI = _ln2_bounds()
_BITS = 320


class Pruned(Exception):
    pass


def _down(x: Fraction) -> Fraction:
    """A dyadic rational <= x (keeps the numbers small)."""
    if x == 0:
        return x
    e = _BITS - (x.numerator.bit_length() - x.denominator.bit_length())
    return Fraction((x.numerator << e) // x.denominator, 1 << e) if e >= 0 else Fraction(math.floor(x))


def _up(x: Fraction) -> Fraction:
    if x == 0:
        return x
    e = _BITS - (x.numerator.bit_length() - x.denominator.bit_length())
    return Fraction(-((-(x.numerator << e)) // x.denominator), 1 << e) if e >= 0 else Fraction(math.ceil(x))


def _exp_neg(y: Fraction, terms: int) -> Fraction:
    """The partial sum ``sum_{k < terms} (-y)^k / k!``."""
    total, term = Fraction(0), Fraction(1)
    for k in range(terms):
        total += term
        term = term * -y / (k + 1)
    return total


def exp_neg_interval(y_lo: Fraction, y_hi: Fraction) -> tuple[Fraction, Fraction]:
    """Bounds of ``e^-y`` over ``y`` in ``[y_lo, y_hi] subset [0, 1]``: the alternating series'
    partial sums bracket the value (even numbers of terms above, odd below)."""
    assert 0 <= y_lo <= y_hi <= 1
    return _down(_exp_neg(_up(y_hi), 61)), _up(_exp_neg(_down(y_lo), 60))


_POW2: dict = {}


def pow2_interval(x) -> tuple[Fraction, Fraction]:
    """Rational bounds ``lo <= 2^x <= hi`` for a rational ``x`` (relative width about ``2^-250``)."""
    x = Fraction(x)
    if x in _POW2:
        return _POW2[x]
    n = math.floor(x)
    f = x - n
    if f == 0:
        out = (Fraction(2) ** n, Fraction(2) ** n)
    else:
        # 2^x = 2^(n + 1) e^(-(1 - f) ln 2)
        lo, hi = exp_neg_interval(_down((1 - f) * LN2_LO), _up((1 - f) * LN2_HI))
        out = (lo * Fraction(2) ** (n + 1), hi * Fraction(2) ** (n + 1))
    _POW2[x] = out
    return out


def exponential_law(d, lengths, eta: Fraction) -> dict:
    """``{t: (lo, hi)}``: bounds of ``lengths_t 2^(eta d_t) / Z`` (candidates of positive length)."""
    w = {t: pow2_interval(eta * int(dt)) for t, dt in enumerate(d) if int(lengths[t]) > 0}
    w = {t: (lo * int(lengths[t]), hi * int(lengths[t])) for t, (lo, hi) in w.items()}
    z_lo, z_hi = sum(lo for lo, _ in w.values()), sum(hi for _, hi in w.values())
    return {t: (lo / z_hi, hi / z_lo) for t, (lo, hi) in w.items()}


def exp_neg_bounds(x: Fraction) -> tuple[Fraction, Fraction]:
    """Bounds of ``e^-x`` for a rational ``x >= 0`` (``e^-1`` to the whole part, then the rest)."""
    n = math.floor(x)
    e_lo, e_hi = exp_neg_interval(Fraction(1), Fraction(1))
    f_lo, f_hi = exp_neg_interval(x - n, x - n)
    return _down(f_lo * e_lo**n), _up(f_hi * e_hi**n)


def laplace_exceeds_interval(scale: Fraction, k: int) -> tuple[Fraction, Fraction]:
    """``Pr[Z >= k]`` for the discrete Laplace ``Pr[Z = z] = (1 - q)/(1 + q) q^|z|``, ``q = e^(-1/scale)``:
    ``q^k / (1 + q)`` for ``k >= 1``, else ``1 - q^(1 - k) / (1 + q)``."""
    q_lo, q_hi = exp_neg_bounds(1 / Fraction(scale))
    m = k if k >= 1 else 1 - k
    lo, hi = _down(q_lo**m / (1 + q_hi)), _up(q_hi**m / (1 + q_lo))
    return (lo, hi) if k >= 1 else (1 - hi, 1 - lo)


_EXP: dict = {}


def law_interval(kind: str, params) -> tuple[list, list[tuple[Fraction, Fraction]]]:
    """The outcomes of one primitive draw and their probability intervals (exact where rational)."""
    if kind in ("bernoulli_exp", "bernoulli_exp2", "bernoulli_pow2_ratio", "bernoulli_ln2"):
        key = (kind, *params)
        if key not in _EXP:
            _EXP[key] = _law_interval(kind, params)
        return _EXP[key]
    return _law_interval(kind, params)


def _law_interval(kind: str, params) -> tuple[list, list[tuple[Fraction, Fraction]]]:
    if kind == "weighted":
        w = [int(v) for v in np.asarray(params[0]).tolist()]
        total = sum(w)
        return list(range(len(w))), [(Fraction(v, total),) * 2 for v in w]
    if kind == "uniform_int":
        lo, hi = params
        n = hi - lo + 1
        return list(range(lo, hi + 1)), [(Fraction(1, n),) * 2] * n
    if kind == "bernoulli":
        p = Fraction(params[0])
        return [True, False], [(p, p), (1 - p, 1 - p)]
    if kind == "bernoulli_ln2":
        return [True, False], [(LN2_LO, LN2_HI), (1 - LN2_HI, 1 - LN2_LO)]
    if kind == "bernoulli_exp":
        lo, hi = exp_neg_bounds(Fraction(params[0]))
        return [True, False], [(lo, hi), (1 - hi, 1 - lo)]
    if kind == "exponential":  # the exponential mechanism's draw (d, lengths, base): its stated law
        d, lengths, base = params
        law = exponential_law(d, lengths, base.eta)
        return list(range(len(d))), [law.get(t, (Fraction(0), Fraction(0))) for t in range(len(d))]
    if kind == "discrete_laplace_exceeds":
        lo, hi = laplace_exceeds_interval(*params)
        return [True, False], [(lo, hi), (1 - hi, 1 - lo)]
    if kind == "bernoulli_exp2":
        lo, hi = pow2_interval(-Fraction(params[0]))
        return [True, False], [(lo, hi), (1 - hi, 1 - lo)]
    if kind == "bernoulli_pow2_ratio":
        i, H, num, den, shift = params
        lo, hi = pow2_interval(Fraction(i, H) + shift)
        r = Fraction(num, den)
        lo, hi = lo * r, hi * r
        return [True, False], [(lo, hi), (1 - hi, 1 - lo)]
    raise AssertionError(f"the harness has no law for draws of kind {kind!r}")


class _DrawSource(RandomSource):
    seeded = True
    enumerates = True

    def __init__(self, script, min_mass):
        self.script = script
        self.min_mass = min_mass
        self.draws = []  # (outcome intervals, chosen index)
        self.hi = Fraction(1)

    def choose(self, kind, *params):
        outcomes, probs = law_interval(kind, params)
        pos = len(self.draws)
        if pos >= len(self.script) and self.hi < self.min_mass:
            raise Pruned
        idx = self.script[pos] if pos < len(self.script) else next(i for i, p in enumerate(probs) if p[1] > 0)
        self.draws.append((probs, idx))
        self.hi *= probs[idx][1]
        return outcomes[idx]

    def randbits(self, k):
        assert k <= 4, "a draw-level enumeration saw many raw bits: a draw bypassed the primitives"
        return self.choose("uniform_int", 0, (1 << k) - 1)

    def random_words(self, n):
        raise AssertionError("floating-point randomness in an exact sampler")

    def spawn(self):
        return self


def draw_law(attempt, max_paths: int = 200_000, min_mass=Fraction(0)) -> dict:
    """``{output: (lo, hi)}``: the probability interval that one call of ``attempt(src)`` returns
    each output (``None``: a failed attempt), over all paths of its primitive draws. With
    ``min_mass > 0`` (programs with unbounded loops) the paths abandoned below it are reported under
    the output ``Pruned``."""
    law: dict = {}
    stack = [()]
    paths = 0
    while stack:
        script = stack.pop()
        src = _DrawSource(script, min_mass)
        try:
            out = attempt(src)
        except Pruned:
            out = Pruned
        paths += 1
        assert paths <= max_paths, "too many paths"
        lo = hi = Fraction(1)
        for pos, (probs, idx) in enumerate(src.draws):
            if pos >= len(script):
                prefix = tuple(i for _, i in src.draws[:pos])
                stack.extend(prefix + (j,) for j, p in enumerate(probs) if j != idx and p[1] > 0)
            lo, hi = _down(lo * probs[idx][0]), _up(hi * probs[idx][1])
        a, b = law.get(out, (Fraction(0), Fraction(0)))
        law[out] = (a + lo, b + hi)
    return law


def accepted_law(attempt_law: dict) -> dict:
    """The law of the first successful attempt: ``A(o) / sum A``, as intervals."""
    acc = {o: ab for o, ab in attempt_law.items() if o is not None}
    total_lo = sum(a for a, _ in acc.values())
    total_hi = sum(b for _, b in acc.values())
    return {o: (a / total_hi, b / total_lo) for o, (a, b) in acc.items()}


class _BitSource(RandomSource):
    seeded = True

    def __init__(self, script, max_bits: int):
        self.script = script
        self.max_bits = max_bits
        self.draws = []  # (k bits, value)
        self.bits = 0  # the path so far has probability 2^-bits

    def randbits(self, k):
        if k <= 0:
            return 0
        assert k <= 16, f"a bit-level enumeration drew {k} bits at once"
        pos = len(self.draws)
        if pos >= len(self.script) and self.bits > self.max_bits:
            raise Pruned  # this path's mass (so far) goes to the remainder, whatever it would do next
        v = self.script[pos] if pos < len(self.script) else 0
        self.draws.append((k, v))
        self.bits += k
        return v

    def random_words(self, n):
        raise AssertionError("floating-point randomness in an exact sampler")

    def spawn(self):
        return self


def bit_law(program, max_bits: int = 24, max_paths: int = 400_000) -> tuple[dict, Fraction]:
    """``({output: probability}, remainder)``: the exact mass of every output over the bit strings
    enumerated, and the total mass of the abandoned paths (those still running after ``max_bits``
    bits; each has probability at most ``2^-max_bits``)."""
    law: dict = {}
    remainder = Fraction(0)
    stack = [()]
    paths = 0
    while stack:
        script = stack.pop()
        src = _BitSource(script, max_bits)
        try:
            out = program(src)
            done = True
        except Pruned:
            done = False
        paths += 1
        assert paths <= max_paths, "too many paths"
        for pos, (k, v) in enumerate(src.draws):
            if pos >= len(script):
                prefix = tuple(val for _, val in src.draws[:pos])
                stack.extend(prefix + (w,) for w in range(1 << k) if w != v)
        mass = Fraction(1, 1 << src.bits)
        if done:
            law[out] = law.get(out, Fraction(0)) + mass
        else:
            remainder += mass
    return law, remainder
