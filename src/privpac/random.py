"""Randomness: secure by default, reproducible on request, exact where privacy depends on it.

Sources
-------
Every randomised function in privpac takes ``rng=None`` and passes it through
:func:`as_random_source`:

* ``None`` gives a :class:`SecureRandom`, which reads the operating system's entropy
  (``os.urandom`` / :mod:`secrets`). This is the default for real releases.
* an ``int`` gives a :class:`SeededRandom` (numpy's PCG64 bit generator, *not* its global
  state): reproducible runs for tests, audits and experiments. Not for production releases.
* a :class:`RandomSource` is used as it is, and a ``numpy.random.Generator`` is wrapped.

Both sources expose the same two primitives, random bits (``randbits``) and arrays of random
64-bit words (``random_words``); every sampler below is built on those, so the secure and the
seeded paths run the same code.

Exact samplers
--------------
Privacy-critical decisions (noisy counts, noisy thresholds) use samplers that work with
integers and rationals only, following Canonne, Kamath and Steinke, "The Discrete Gaussian for
Differential Privacy" (NeurIPS 2020), Algorithms 1 and 2:

* :func:`bernoulli` for a rational ``p``;
* :func:`bernoulli_exp` for ``exp(-x)`` with rational ``x >= 0``;
* :func:`discrete_laplace`, ``Pr[Z = z] proportional to exp(-|z| / scale)`` for a rational scale;
* :func:`uniform_int` on ``[lo, hi]`` for any Python ints (ranges of 2^65536 included);
* :func:`choose_weighted`: an index with probability ``W_i / sum W`` for non-negative integers ``W``;
* :func:`bernoulli_exp2` for ``2^-x`` with rational ``x >= 0`` (Algorithm 1 of Canonne, Kamath and
  Steinke with base 2: its coins ``Bernoulli(x ln 2 / k)`` are ``Bernoulli(x / k)`` times
  :func:`bernoulli_ln2`, the Bernoulli(ln 2) of Flajolet, Pelletier and Soria, "On Buffon machines
  and numbers", SODA 2011: ``ln 2 = sum_k 1/(k 2^k)``, so a geometric ``K`` then ``Bernoulli(1/K)``);
* :func:`bernoulli_pow2_ratio` for ``2^(i/H + s) num / den`` (``i/H`` a fraction on the grid
  of :func:`pow2_grid_bounds`): a uniform ``U`` drawn lazily, bit block by bit block, and compared
  exactly with the target through integer ``H``-th powers, with float bounds that decide all but a
  ``2^-40`` share of the comparisons.

Their output distributions are exactly the stated ones: no floating-point rounding enters a
decision (floats appear only as exact dyadic rationals, in bounds that are proven before use).

Fast vectorised paths
---------------------
:func:`discrete_laplace_array`, :func:`uniform_array`, :func:`exponential_array` and
:func:`gaussian_array` draw many values at once with floating-point arithmetic. They are for
audits, benchmarks and for the few algorithms that need real-valued noise (noisy gradient
descent). Floating-point samplers deviate from their ideal distribution in the last bits
(Mironov, CCS 2012); every caller that uses them for a release documents this.
"""

from __future__ import annotations

import functools
import math
import os
import secrets
from abc import ABC, abstractmethod
from fractions import Fraction

import numpy as np

from .errors import InvalidParameterError

__all__ = [
    "RandomSource",
    "SecureRandom",
    "SeededRandom",
    "as_random_source",
    "data_key",
    "audit_source",
    "uniform_int",
    "bernoulli",
    "bernoulli_exp",
    "bernoulli_exp2",
    "bernoulli_ln2",
    "bernoulli_pow2_ratio",
    "bernoulli_half_power",
    "choose_weighted",
    "pow2_grid_bounds",
    "discrete_laplace",
    "discrete_laplace_exceeds",
    "discrete_laplace_vector",
    "discrete_laplace_array",
    "uniform_array",
    "exponential_array",
    "gaussian_array",
]

_TWO_POW_MINUS_53 = 2.0**-53


def data_key(*arrays) -> tuple:
    """A hashable naming the values of ``arrays``: part of a :meth:`RandomSource.reuse` key."""
    key = []
    for a in arrays:
        a = np.asarray(a)
        # an object array holds Python integers: its bytes would be pointers, so its values are the key
        key.append((a.shape, a.dtype.str, tuple(a.ravel().tolist()) if a.dtype == object else a.tobytes()))
    return tuple(key)


class RandomSource(ABC):
    """A source of uniformly random bits. Subclasses implement the three methods below."""

    #: True when runs are reproducible from a seed (not for production releases).
    seeded: bool = False
    #: True on audit sources only: discrete Laplace takes the floating-point fast path.
    fast_noise: bool = False
    #: True on sources that enumerate a program's random choices (exact audits,
    #: :mod:`privpac.audit.enumeration`): the samplers below then hand the source each draw's
    #: law through :meth:`choose` instead of sampling it, so the exact output law of the code
    #: that ships can be computed by running that code once per outcome path.
    enumerates: bool = False

    def choose(self, kind: str, *params):
        """The outcome of one draw of law ``kind`` with ``params`` (enumerating sources only)."""
        raise InvalidParameterError(f"{type(self).__name__} does not enumerate draws")

    def reuse(self, key, compute):
        """``compute()``, a value that is a pure function of the inputs the hashable ``key`` names.

        Every source computes it afresh. An enumerating source runs one program once per path
        through its draws (:mod:`privpac.audit.enumeration`) and hands a later path the value an
        earlier path computed for the same ``key``, as do the sources of an empirical audit's runs
        on one dataset (:meth:`SeededRandom.sharing`): the program and its output law are unchanged,
        only the repeated work of the audits is saved. ``key`` must name everything
        ``compute`` reads (the data's bytes and the public parameters), and the value must not be
        mutated by its users (:func:`data_key` names arrays).
        """
        return compute()

    @abstractmethod
    def randbits(self, k: int) -> int:
        """A uniformly random integer in [0, 2^k)."""

    @abstractmethod
    def random_words(self, n: int) -> np.ndarray:
        """``n`` independent uniformly random 64-bit words (dtype uint64)."""

    @abstractmethod
    def spawn(self) -> RandomSource:
        """An independent child source (same kind: secure stays secure, seeded stays seeded)."""


class SecureRandom(RandomSource):
    """Operating-system entropy. The default whenever ``rng=None``."""

    seeded = False

    def randbits(self, k: int) -> int:
        if k <= 0:
            return 0
        return secrets.randbits(k)

    def random_words(self, n: int) -> np.ndarray:
        return np.frombuffer(os.urandom(8 * int(n)), dtype=np.uint64).copy()

    def spawn(self) -> SecureRandom:
        return SecureRandom()

    def __repr__(self) -> str:
        return "SecureRandom()"


def memoised(memo: dict, key, compute):
    """``memo[key]``, computed by ``compute()`` the first time (the memo of :meth:`RandomSource.reuse`)."""
    if key not in memo:
        memo[key] = compute()
    return memo[key]


class SeededRandom(RandomSource):
    """Reproducible bits from numpy's PCG64 bit generator (never numpy's global state).

    Parameters
    ----------
    seed : int or numpy.random.Generator
        A seed, or an existing generator whose bit stream is then consumed.
    """

    seeded = True
    _REFILL_WORDS = 64
    _memo: dict | None = None  # see sharing()

    def __init__(self, seed: int | np.random.Generator, *, fast_noise: bool = False):
        self.fast_noise = bool(fast_noise)
        if isinstance(seed, np.random.Generator):
            self._bitgen = seed.bit_generator
            self._seed_seq = None
        else:
            if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
                raise InvalidParameterError(f"seed must be an int, got {seed!r}")
            if seed < 0:
                raise InvalidParameterError(f"seed must be >= 0, got {seed}")
            self._seed_seq = np.random.SeedSequence(int(seed))
            self._bitgen = np.random.PCG64(self._seed_seq)
        self._buffer = 0  # random bits not yet handed out
        self._buffer_bits = 0

    def random_words(self, n: int) -> np.ndarray:
        return self._bitgen.random_raw(int(n)).astype(np.uint64, copy=False)

    def randbits(self, k: int) -> int:
        if k <= 0:
            return 0
        if k > self._buffer_bits:
            n_words = max(self._REFILL_WORDS, -(-(k - self._buffer_bits) // 64))
            fresh = int.from_bytes(self.random_words(n_words).tobytes(), "little")
            self._buffer |= fresh << self._buffer_bits
            self._buffer_bits += 64 * n_words
        out = self._buffer & ((1 << k) - 1)
        self._buffer >>= k
        self._buffer_bits -= k
        return out

    def sharing(self, memo: dict) -> SeededRandom:
        """This source, with :meth:`reuse` handing back the value stored in ``memo`` under its key.

        For an empirical audit's runs of one program on one dataset (every run's source shares one
        ``memo``), as the paths of an exact law share theirs: the runs draw and release the same as
        without it, only the repeated pure computations are saved. Never for releases. Returns ``self``.
        """
        self._memo = memo
        return self

    def reuse(self, key, compute):
        return compute() if self._memo is None else memoised(self._memo, key, compute)

    def spawn(self) -> SeededRandom:
        if self._seed_seq is not None:
            child = self._seed_seq.spawn(1)[0]
            return SeededRandom(np.random.Generator(np.random.PCG64(child)), fast_noise=self.fast_noise)
        return SeededRandom(int(self.randbits(63)), fast_noise=self.fast_noise)

    def __repr__(self) -> str:
        return f"SeededRandom(..., fast_noise={self.fast_noise})"


def audit_source(seed: int) -> SeededRandom:
    """A seeded source whose discrete-Laplace draws take the floating-point fast path.

    For empirical audits of composite algorithms, which run a mechanism 10^5 times: the
    algorithm's own code runs unchanged, only the noise sampler is the vectorised one, whose
    distribution matches the exact sampler's up to floating-point rounding (both are tested
    against the exact probability mass function). Never for releases.
    """
    return SeededRandom(seed, fast_noise=True)


def as_random_source(rng=None) -> RandomSource:
    """Turn the ``rng`` argument every randomised function accepts into a :class:`RandomSource`.

    ``None`` means secure (OS entropy); an int means a reproducible seeded source.
    """
    if rng is None:
        return SecureRandom()
    if isinstance(rng, RandomSource):
        return rng
    if isinstance(rng, np.random.Generator):
        return SeededRandom(rng)
    if isinstance(rng, np.random.RandomState):  # scikit-learn's convention: draw a seed from it
        return SeededRandom(int(rng.randint(0, 2**63 - 1, dtype=np.int64)))
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool):
        return SeededRandom(int(rng))
    raise InvalidParameterError(
        f"rng must be None (secure), an int seed, a privpac RandomSource, a numpy Generator or RandomState; got {rng!r}"
    )


# ---------------------------------------------------------------------------------------------
# Exact samplers (integers and rationals only)
# ---------------------------------------------------------------------------------------------


def uniform_int(lo: int, hi: int, rng=None) -> int:
    """A uniformly random integer in ``[lo, hi]`` for arbitrary Python ints.

    Rejection sampling on ``(hi - lo).bit_length()`` random bits: exact, expected fewer than two
    rounds, cost linear in the number of bits (a range of 2^65536 costs 8 KiB of randomness).
    """
    lo, hi = int(lo), int(hi)
    if hi < lo:
        raise InvalidParameterError(f"uniform_int needs lo <= hi, got lo={lo}, hi={hi}")
    src = as_random_source(rng)
    n = hi - lo + 1
    if n == 1:
        return lo
    if src.enumerates:
        return src.choose("uniform_int", lo, hi)
    k = (n - 1).bit_length()
    while True:
        r = src.randbits(k)
        if r < n:
            return lo + r


def bernoulli(p, rng=None) -> bool:
    """Exact Bernoulli(p) for a rational ``p`` in [0, 1] (a float is read as its exact value)."""
    p = p if isinstance(p, Fraction) else Fraction(p)
    if p < 0 or p > 1:
        raise InvalidParameterError(f"bernoulli needs 0 <= p <= 1, got {p}")
    src = as_random_source(rng)
    if p.numerator == 0:
        return False
    if p == 1:
        return True
    if src.enumerates:
        return src.choose("bernoulli", p)
    return uniform_int(0, p.denominator - 1, src) < p.numerator


def _bernoulli_exp_unit(x: Fraction, src: RandomSource) -> bool:
    """Bernoulli(exp(-x)) for rational 0 <= x <= 1 (CKS20, Algorithm 1, first branch)."""
    k = 1
    while True:
        if not bernoulli(x / k, src):
            break
        k += 1
    return k % 2 == 1


def bernoulli_exp(x, rng=None) -> bool:
    """Exact Bernoulli(exp(-x)) for a rational ``x >= 0`` (Canonne, Kamath, Steinke 2020, Alg. 1).

    For ``x > 1`` it multiplies ``floor(x)`` independent Bernoulli(exp(-1)) draws, stopping at the
    first failure, and one Bernoulli(exp(-(x - floor(x)))).
    """
    x = x if isinstance(x, Fraction) else Fraction(x)
    if x < 0:
        raise InvalidParameterError(f"bernoulli_exp needs x >= 0, got {x}")
    src = as_random_source(rng)
    if src.enumerates:
        return src.choose("bernoulli_exp", x)
    whole = x.numerator // x.denominator
    one = Fraction(1)
    for _ in range(whole):
        if not _bernoulli_exp_unit(one, src):
            return False
    return _bernoulli_exp_unit(x - whole, src)


#: Random bits drawn at once by the lazy samplers below (a test that enumerates bit strings sets 1:
#: drawing ``k`` bits at once or one by one has the same law).
BIT_BLOCK = 64


def bernoulli_half_power(m: int, rng=None) -> bool:
    """Exact Bernoulli(2^-m) for an integer ``m >= 0``: ``m`` fair bits, all zero.

    Drawn :data:`BIT_BLOCK` bits at a time and stopped at the first one bit, so a huge ``m`` costs
    two blocks on average.
    """
    m = int(m)
    if m < 0:
        raise InvalidParameterError(f"bernoulli_half_power needs m >= 0, got {m}")
    src = as_random_source(rng)
    while m > 0:
        k = min(m, BIT_BLOCK)
        if src.randbits(k):
            return False
        m -= k
    return True


def bernoulli_ln2(rng=None) -> bool:
    """Exact Bernoulli(ln 2) (Flajolet, Pelletier and Soria 2011).

    ``ln 2 = sum_{k >= 1} 2^-k / k``: draw ``K`` with ``Pr[K = k] = 2^-k`` (fair bits up to the first
    one) and return ``Bernoulli(1/K)``. Two fair bits and one rational Bernoulli on average.
    """
    src = as_random_source(rng)
    if src.enumerates:
        return src.choose("bernoulli_ln2")
    k = 1
    while src.randbits(1) == 0:
        k += 1
    return bernoulli(Fraction(1, k), src)


def _bernoulli_exp2_unit(f: Fraction, src: RandomSource) -> bool:
    """Bernoulli(2^-f) for rational 0 <= f < 1: CKS20 Algorithm 1 on ``gamma = f ln 2 <= 1``, whose
    coins ``Bernoulli(gamma / k)`` are the product of ``Bernoulli(f / k)`` and Bernoulli(ln 2)."""
    k = 1
    while bernoulli(f / k, src) and bernoulli_ln2(src):
        k += 1
    return k % 2 == 1


def bernoulli_exp2(x, rng=None) -> bool:
    """Exact Bernoulli(2^-x) for a rational ``x >= 0`` (a float is read as its exact value).

    ``floor(x)`` fair bits must all be zero (:func:`bernoulli_half_power`), then
    ``Bernoulli(2^-(x - floor(x)))`` by Canonne, Kamath and Steinke's Algorithm 1 in base 2.
    Integers and rationals only.
    """
    x = x if isinstance(x, Fraction) else Fraction(x)
    if x < 0:
        raise InvalidParameterError(f"bernoulli_exp2 needs x >= 0, got {x}")
    if x == 0:
        return True
    src = as_random_source(rng)
    if src.enumerates:
        return src.choose("bernoulli_exp2", x)
    whole = x.numerator // x.denominator
    if whole and not bernoulli_half_power(whole, src):
        return False
    return _bernoulli_exp2_unit(x - whole, src)


@functools.lru_cache(maxsize=4)
def pow2_grid_bounds(H: int) -> tuple[np.ndarray, np.ndarray]:
    """Float bounds ``lower[i] <= 2^(i/H) <= upper[i]`` for ``i`` in ``[0, H)``, each within ``2^-38``.

    Proven, not assumed: one float ``c`` with ``c^H >= 2`` (checked in integers) and its products
    ``c^i`` rounded up one ulp after every correctly rounded multiplication give the upper bounds;
    the same downwards gives the lower ones. No ``exp``/``log`` (whose accuracy IEEE 754 does not
    promise) is trusted.
    """
    H = int(H)
    if H < 1:
        raise InvalidParameterError(f"H must be >= 1, got {H}")
    two = Fraction(2)
    up = dn = 2.0 ** (1.0 / H)
    while Fraction(up) ** H < two:
        up = math.nextafter(up, math.inf)
    while Fraction(dn) ** H > two:
        dn = math.nextafter(dn, 0.0)
    upper, lower = np.empty(H), np.empty(H)
    u = d = 1.0
    for i in range(H):
        upper[i], lower[i] = u, d
        u = math.nextafter(u * up, math.inf)
        d = math.nextafter(d * dn, 0.0)
    return lower, upper


def _compare_pow2(i: int, H: int, num: int, den: int, src: RandomSource) -> bool:
    """Bernoulli(t) with ``t = 2^(i/H) num / den <= 1``: is a uniform ``U`` below ``t``?

    ``U``'s bits are drawn lazily: after ``p`` bits ``U`` lies in ``[V, V + 1) / 2^p``, which is
    decided once it lies wholly below or above ``t``. The float bounds of :func:`pow2_grid_bounds`
    (exact rationals) decide almost always; otherwise ``V / 2^p < t`` iff
    ``(V den)^H < 2^i (num 2^p)^H`` in integers (``t`` is irrational unless ``i = 0``, so it never
    equals an end point then).
    """
    lower, upper = pow2_grid_bounds(H)
    lo_f, hi_f = Fraction(float(lower[i])), Fraction(float(upper[i]))
    lo_n, lo_d = lo_f.numerator * num, lo_f.denominator * den  # t >= lo_n / lo_d
    hi_n, hi_d = hi_f.numerator * num, hi_f.denominator * den  # t <= hi_n / hi_d
    p = BIT_BLOCK
    V = src.randbits(p)
    while True:
        if (V + 1) * lo_d <= lo_n << p:  # U < (V + 1)/2^p <= t
            return True
        if V * hi_d >= hi_n << p:  # U >= V/2^p >= t
            return False
        if i:
            # exact: t is irrational, compare H-th powers of the end points
            target = (num << p) ** H << i
            if ((V + 1) * den) ** H <= target:
                return True
            if (V * den) ** H >= target:
                return False
        # t lies in [V, V + 1) / 2^p: draw more bits of U
        V = (V << BIT_BLOCK) | src.randbits(BIT_BLOCK)
        p += BIT_BLOCK


def bernoulli_pow2_ratio(i: int, H: int, num: int, den: int, shift: int = 0, rng=None) -> bool:
    """Exact Bernoulli(2^(i/H + shift) num / den) for integers ``0 <= i < H``, ``num >= 0``,
    ``den > 0`` and any ``shift``; the probability must be at most 1.

    The power of two is split off first (``num / den = r 2^b`` with ``r`` in ``[1/2, 1)``, so no
    integer grows with ``shift``): a factor ``2^-m`` is ``m`` fair zero bits
    (:func:`bernoulli_half_power`), what remains is compared exactly by a lazily drawn uniform.
    """
    i, H, num, den, shift = int(i), int(H), int(num), int(den), int(shift)
    if not (0 <= i < H) or num < 0 or den <= 0:
        raise InvalidParameterError(f"bernoulli_pow2_ratio needs 0 <= i < H, num >= 0, den > 0; got {i, H, num, den}")
    if num == 0:
        return False
    src = as_random_source(rng)
    if src.enumerates:
        return src.choose("bernoulli_pow2_ratio", i, H, num, den, shift)
    b = num.bit_length() - den.bit_length()
    N, D = (num, den << b) if b >= 0 else (num << -b, den)
    if N >= D:  # r = N / D in [1/2, 1)
        D <<= 1
        b += 1
    m = shift + b  # the probability is 2^(i/H) r 2^m, with 2^(i/H) r in [1/2, 2)
    if m >= 2 or (m == 1 and (i > 0 or 2 * N > D)):
        raise InvalidParameterError("bernoulli_pow2_ratio: the probability exceeds 1")
    if m <= -1:
        if not bernoulli_half_power(-m - 1, src):
            return False
        D <<= 1
    elif m == 1:
        N <<= 1
    return _compare_pow2(i, H, N, D, src)


def choose_weighted(weights, rng=None) -> int:
    """An index ``i`` with probability ``weights[i] / sum(weights)``, exactly.

    ``weights``: non-negative integers (an int64 array whose sum stays below ``2^63``, or Python
    ints), not all zero. One :func:`uniform_int` over the total, located in the cumulative sums.
    """
    w = np.asarray(weights)
    if w.ndim != 1 or w.size == 0 or not (w.dtype == object or np.issubdtype(w.dtype, np.integer)):
        raise InvalidParameterError("choose_weighted needs a non-empty 1-D array of integers")
    src = as_random_source(rng)
    if src.enumerates:
        return src.choose("weighted", w)
    cum = np.cumsum(w)
    total = int(cum[-1])
    if total <= 0 or (w.dtype != object and w.min() < 0):
        raise InvalidParameterError("choose_weighted needs non-negative weights with a positive sum")
    r = uniform_int(0, total - 1, src)
    return int(np.searchsorted(cum, r, side="right"))


def discrete_laplace(scale, rng=None) -> int:
    """Exact discrete Laplace: ``Pr[Z = z] = (1 - q)/(1 + q) * q^|z|`` with ``q = exp(-1/scale)``.

    Canonne, Kamath and Steinke (2020), Algorithm 2, for a rational ``scale = t/s > 0``. Only
    integer and rational arithmetic is used, so the distribution is exact.
    """
    scale = scale if isinstance(scale, Fraction) else Fraction(scale)
    if scale <= 0:
        raise InvalidParameterError(f"discrete_laplace needs scale > 0, got {scale}")
    src = as_random_source(rng)
    if src.enumerates:
        return src.choose("discrete_laplace", scale)
    if src.fast_noise:
        return int(discrete_laplace_array(float(scale), 1, src)[0])
    return _discrete_laplace(scale, src)


def _discrete_laplace(scale: Fraction, src: RandomSource) -> int:
    """CKS20 Algorithm 2 (the exact loop of :func:`discrete_laplace`)."""
    t, s = scale.numerator, scale.denominator  # scale = t / s
    one = Fraction(1)
    while True:
        u = uniform_int(0, t - 1, src)
        if not bernoulli_exp(Fraction(u, t), src):
            continue
        v = 0
        while _bernoulli_exp_unit(one, src):
            v += 1
        y = (u + t * v) // s
        negative = src.randbits(1) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_laplace_exceeds(scale, threshold: int, rng=None) -> bool:
    """Whether an exact discrete-Laplace draw ``Z`` of the given scale satisfies ``Z >= threshold``.

    The noisy comparisons of propose-test-release (A_dist, the choosing mechanism) use only this
    bit of the draw, so the draw itself never leaves this function; an exact audit then
    enumerates two outcomes (with probability ``Pr[Z >= threshold]``) instead of ``Z``'s support.
    """
    scale = scale if isinstance(scale, Fraction) else Fraction(scale)
    if scale <= 0:
        raise InvalidParameterError(f"discrete_laplace_exceeds needs scale > 0, got {scale}")
    threshold = int(threshold)
    src = as_random_source(rng)
    if src.enumerates:
        return src.choose("discrete_laplace_exceeds", scale, threshold)
    return discrete_laplace(scale, src) >= threshold


def discrete_laplace_vector(scale, size: int, rng=None) -> np.ndarray:
    """``size`` independent exact discrete-Laplace draws (int64).

    Exact sampler in a loop; on an audit source (``fast_noise``) the vectorised path instead.
    """
    src = as_random_source(rng)
    if src.fast_noise:
        return discrete_laplace_array(float(scale), int(size), src)
    scale = scale if isinstance(scale, Fraction) else Fraction(scale)
    # One exact draw at a time (an enumerating source sees each of them).
    return np.fromiter((discrete_laplace(scale, src) for _ in range(int(size))), dtype=np.int64, count=int(size))


# ---------------------------------------------------------------------------------------------
# Vectorised floating-point paths (audits, benchmarks, real-valued noise)
# ---------------------------------------------------------------------------------------------


def uniform_array(size, rng=None) -> np.ndarray:
    """Floats uniform on the open interval (0, 1) with 53 random bits each."""
    src = as_random_source(rng)
    n = int(np.prod(size))
    words = src.random_words(n)
    u = ((words >> np.uint64(11)).astype(np.float64) + 0.5) * _TWO_POW_MINUS_53
    return u.reshape(size)


def exponential_array(size, rng=None) -> np.ndarray:
    """Standard exponential variates, ``-log(U)`` (floating point)."""
    return -np.log(uniform_array(size, rng))


def discrete_laplace_array(scale, size, rng=None) -> np.ndarray:
    """Many discrete-Laplace draws at once (int64), the difference of two geometric variables.

    ``floor(scale * E)`` with ``E`` standard exponential is geometric with ratio
    ``exp(-1/scale)``; the difference of two independent copies is discrete Laplace. The
    computation is floating point, so this is the fast path for audits and benchmarks, not the
    exact sampler used by mechanisms (:func:`discrete_laplace`).
    """
    scale = float(scale)
    if not scale > 0 or math.isinf(scale):
        raise InvalidParameterError(f"scale must be a finite number > 0, got {scale}")
    src = as_random_source(rng)
    e = exponential_array((2,) + tuple(np.atleast_1d(size)), src)
    g = np.floor(scale * e).astype(np.int64)
    return (g[0] - g[1]).reshape(size)


def gaussian_array(size, sigma: float = 1.0, rng=None) -> np.ndarray:
    """Gaussian noise N(0, sigma^2) by inverting the normal CDF at 53-bit uniforms.

    Floating point: the tails beyond about 8.2 sigma are cut and the distribution is discretised
    at the float grid. Used only where real-valued noise is unavoidable (noisy gradient descent),
    which documents the caveat.
    """
    from scipy.special import ndtri  # imported here: engine workers and the CLI start without SciPy

    sigma = float(sigma)
    if not sigma >= 0 or math.isinf(sigma):
        raise InvalidParameterError(f"sigma must be a finite number >= 0, got {sigma}")
    return sigma * ndtri(uniform_array(size, rng))
