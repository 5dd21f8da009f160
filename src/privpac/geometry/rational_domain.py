"""The A3-rational candidate domains of FindTukey: public, implicit, exact.

Beimel, Moran, Nissim and Stemmer (COLT 2019), Claim 3.5, need for every coordinate ``i`` a
*public* finite ordered set ``D_i`` holding a maximiser of the partial-assignment quality ``Q_p``
(property (P)). The paper's product construction is far too large to build. Spec
``bmns-center-points`` section 4 (A3-rational [ENG]) replaces it, for ``X ⊆ Z^d ∩ [-B, B]^d``, by
an implicit set of rationals:

* ``M_u = floor((sqrt(d-1) 2B)^(d-1))`` (a Hadamard bound on the entries of the normals in
  ``U(X ∪ E)``; ``M_u = 1`` for ``d = 1``) and ``Q_i = floor((sqrt(d-i+1) M_u)^(d-i+1))``;
* a running denominator ``t`` (``t = 1`` for ``i = 1``);
* ``D_i`` is the multiset of pairs ``(p, q)`` with ``1 <= q <= Q_i`` and ``|p| <= B t q``, read as
  the value ``p / (t q)``, ordered by value with ties broken by ``q``. Its size is
  ``B t Q_i (Q_i + 1) + Q_i``.

Why (P) holds: a vertex coordinate of a depth region solves an integer linear system whose
right-hand side has denominator ``t`` (the earlier coordinates), so by Cramer's rule it is
``p / (t q)`` with ``q`` a minor of the normals, ``q <= Q_i``, and ``|p / (t q)| <= B``. For
``d = 2`` concretely: ``Q_1 = 8 B^2 >= |det(u, u')|`` for two normals with entries at most ``2B``,
and ``Q_2 = 2B >= |u_2|``. After a value ``x*_i`` is chosen it is written as its canonical pair
``p / (t q)`` with the smallest ``q``, and ``t <- t q``.

The domain depends on ``B``, ``d``, ``i`` and ``t`` only: public inputs and earlier private
outputs, never the records. Nothing here is proportional to the domain size: :meth:`count_le`
is one ``floor_sum`` (``O(log)`` big-integer operations) and :meth:`select` a binary search
over ``O(log(B t Q))`` of them, followed by an exact best rational approximation.

The integer "mode C" domains of Kaplan, Mansour, Stemmer and Tsfadia (spec ``kmst-halfspaces``
3.7 item 5, 6.3) live here too (:class:`SimplestFractionDomain`): the integers
``z in [[-B t U^2, B t U^2]]`` decoded by ``phi(z) = (the fraction of denominator <= U in
[z/U^2, (z+1)/U^2), else z/U^2) / t``, with the one simplest-fraction search of the package
(:func:`simplest_fraction`, a continued-fraction descent in ``O(log U)`` steps).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields
from fractions import Fraction

import numpy as np

from ..domains import ImplicitOrderedDomain
from ..errors import InvalidParameterError
from ..stepfunc import StepFunction
from ..validation import check_int

__all__ = [
    "RationalDomain",
    "SimplestFractionDomain",
    "floor_sum",
    "hadamard_bounds",
    "interval_quality",
    "rational_domain",
    "simplest_fraction",
]


def floor_sum(n: int, m: int, a: int, b: int) -> int:
    """``sum_{j=0}^{n-1} floor((a j + b) / m)`` for ``n >= 0``, ``m >= 1`` and any integers ``a``, ``b``.

    The standard Euclid-like reduction (as in the AtCoder Library): ``O(log m)`` steps on Python
    integers of any size.
    """
    if n < 0 or m < 1:
        raise InvalidParameterError(f"floor_sum needs n >= 0 and m >= 1, got n={n}, m={m}")
    ans = 0
    if a < 0 or a >= m:
        a2 = a % m
        ans += n * (n - 1) // 2 * ((a - a2) // m)
        a = a2
    if b < 0 or b >= m:
        b2 = b % m
        ans += n * ((b - b2) // m)
        b = b2
    while True:
        if a >= m:
            ans += n * (n - 1) // 2 * (a // m)
            a %= m
        if b >= m:
            ans += n * (b // m)
            b %= m
        y_max = a * n + b
        if y_max < m:
            return ans
        n, b = divmod(y_max, m)
        m, a = a, m


def hadamard_bounds(B: int, d: int) -> tuple[int, list[int]]:
    """``(M_u, [Q_1, ..., Q_d])`` of the spec's A3-rational domain, exactly (integer square roots)."""
    B = check_int(B, "B", low=1)
    d = check_int(d, "d", low=1)
    # M_u = floor((sqrt(d-1) 2B)^(d-1)) = isqrt((d-1)^(d-1) (2B)^(2(d-1))).
    M_u = 1 if d == 1 else math.isqrt((d - 1) ** (d - 1) * (2 * B) ** (2 * (d - 1)))
    Q = []
    for i in range(1, d + 1):
        k = d - i + 1
        Q.append(math.isqrt(k**k * M_u ** (2 * k)))
    return M_u, Q


def _as_fraction(v) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return Fraction(int(v))
    raise InvalidParameterError(f"a domain value must be an int or a Fraction (exact), got {type(v).__name__} {v!r}")


class _CandidateDomain:
    """What the candidate domains share: positive integer parameters (the dataclass fields), values in
    ``[-B, B]``, and counts, indices, membership and rank read off ``size``, ``_count_lt``, ``_count_le``
    (called for ``v`` in ``[-B, B]`` only) and ``canonical_pair``."""

    def __post_init__(self):
        for f in fields(self):
            check_int(getattr(self, f.name), f.name, low=1)

    @property
    def max_index(self) -> int:
        return self.size - 1

    def count_le(self, v) -> int:
        """Number of indices with value ``<= v`` (exact; every value lies in ``[-B, B]``)."""
        v = _as_fraction(v)
        if v < -self.B:
            return 0
        if v >= self.B:
            return self.size
        return self._count_le(v)

    def count_lt(self, v) -> int:
        """Number of indices with value ``< v`` (exact; every value lies in ``[-B, B]``)."""
        v = _as_fraction(v)
        if v <= -self.B:
            return 0
        if v > self.B:
            return self.size
        return self._count_lt(v)

    def first_index(self, v) -> int:
        """The first index valued ``v`` (the first valued above ``v`` if ``v`` is not a member)."""
        return self.count_lt(v)

    def last_index(self, v) -> int:
        """The last index valued ``v`` (the last valued below ``v`` if ``v`` is not a member)."""
        return self.count_le(v) - 1

    def __contains__(self, v) -> bool:
        try:
            self.canonical_pair(v)
        except InvalidParameterError:
            return False
        return True

    def rank(self, v) -> int:
        """The index of a member (its first index; the canonical pair for :class:`RationalDomain`)."""
        self.canonical_pair(v)
        return self.first_index(v)


@dataclass(frozen=True)
class RationalDomain(_CandidateDomain):
    """The ordered multiset ``D`` of pairs ``(p, q)``, ``1 <= q <= Q``, ``|p| <= B t q``, valued ``p/(t q)``.

    Indices ``0 .. size - 1`` follow the order (value, then ``q``). A rational value ``v`` in the
    set occupies the indices ``first_index(v) .. last_index(v)``, one per ``q`` with ``v t q`` an
    integer.
    """

    B: int
    t: int
    Q: int

    @property
    def size(self) -> int:
        return self.B * self.t * self.Q * (self.Q + 1) + self.Q

    @property
    def max_denominator(self) -> int:
        return self.t * self.Q

    # -- counts -----------------------------------------------------------------------------------

    def _base(self) -> int:
        # sum over q of (B t q + 1): the pairs with p <= 0 ... shifted; see count_le.
        return self.B * self.t * self.Q * (self.Q + 1) // 2 + self.Q

    def _count_le(self, v: Fraction) -> int:
        # sum_q (floor(a t q / b) + B t q + 1) for v = a/b
        a, b = v.numerator, v.denominator
        return self._base() + floor_sum(self.Q + 1, b, a * self.t, 0)

    def _count_lt(self, v: Fraction) -> int:
        # sum_q (ceil(a t q / b) + B t q)
        a, b = v.numerator, v.denominator
        return self._base() - self.Q - floor_sum(self.Q + 1, b, -a * self.t, 0)

    # -- members ----------------------------------------------------------------------------------

    def canonical_pair(self, v) -> tuple[int, int]:
        """``(p, q)`` with ``v = p / (t q)`` and the smallest such ``q``; raises if ``v`` is not a member."""
        v = _as_fraction(v)
        vt = v * self.t
        p, q = vt.numerator, vt.denominator
        if q > self.Q or abs(v) > self.B:
            raise InvalidParameterError(
                f"{v} is not in the domain: |v| <= {self.B} and v * {self.t} with denominator <= {self.Q} are needed"
            )
        return p, q

    def index_of_pair(self, p: int, q: int) -> int:
        """The index of the pair ``(p, q)`` itself (ties in value are ordered by ``q``)."""
        p, q = int(p), int(q)
        if not (1 <= q <= self.Q) or abs(p) > self.B * self.t * q:
            raise InvalidParameterError(f"({p}, {q}) is not a pair of the domain")
        v = Fraction(p, self.t * q)
        _, q0 = self.canonical_pair(v)
        return self.count_lt(v) + q // q0 - 1

    def select(self, k: int) -> Fraction:
        """The value of the pair at index ``k`` (exact).

        Binary search over the grid ``m / N``, ``N = 2 (t Q)^2``, for the smallest ``m`` with
        ``count_le(m / N) > k``; the value is then the unique fraction of denominator ``<= t Q`` in
        ``((m - 1)/N, m/N]`` (two such fractions differ by at least ``1/(t Q)^2 = 2/N``), which is
        the best rational approximation of ``m / N`` with that denominator bound.
        """
        k = int(k)
        if not 0 <= k < self.size:
            raise InvalidParameterError(f"index {k} outside [0, {self.size - 1}]")
        D = self.max_denominator
        N = 2 * D * D
        lo, hi = -self.B * N, self.B * N  # count_le(lo/N) = first-value count (maybe > k); count_le(hi/N) = size
        if self.count_le(Fraction(lo, N)) > k:
            return Fraction(-self.B)
        # Inside the search -B N < mid < B N, so count_le(mid / N) is _count_le's sum, and floor(mid t q / N)
        # needs no reduced fraction: the same counts without building one Fraction per step.
        base, terms, t = self._base(), self.Q + 1, self.t
        while hi - lo > 1:  # invariant: count_le(lo/N) <= k < count_le(hi/N)
            mid = (lo + hi) // 2
            if base + floor_sum(terms, N, mid * t, 0) > k:
                hi = mid
            else:
                lo = mid
        v = Fraction(hi, N).limit_denominator(D)
        if not (self.count_lt(v) <= k < self.count_le(v)):  # exact arithmetic: cannot happen
            raise ArithmeticError(f"select({k}) recovered {v}, which does not hold index {k}")
        return v

    def implicit(self, name: str = "A3-rational") -> ImplicitOrderedDomain:
        """The same set as a :class:`~privpac.domains.ImplicitOrderedDomain` (``rank`` = first index)."""
        return ImplicitOrderedDomain(self.size, self.rank, self.select, name)


def simplest_fraction(lo, hi, *, lo_closed: bool = True, hi_closed: bool = True) -> Fraction | None:
    """The fraction of smallest denominator in the interval from ``lo`` to ``hi`` (``None`` if it is empty).

    Ends are exact (``int`` or ``Fraction``); ``hi=None`` is ``+infinity``. Among integers the one of
    smallest absolute value is returned; an interval holding no integer has exactly one fraction of
    smallest denominator (Stern-Brocot). The descent is the continued-fraction one: peel the integer
    part ``a = floor(lo)``, and if ``a + 1`` is not inside, recurse on the reciprocals
    ``(1/(hi - a), 1/(lo - a))`` with the ends' closedness swapped; ``O(log(den))`` big-integer steps.

    Examples
    --------
    >>> simplest_fraction(Fraction(3, 10), Fraction(209, 140))
    Fraction(1, 1)
    >>> simplest_fraction(Fraction(1, 3), Fraction(1, 2), hi_closed=False)
    Fraction(1, 3)
    >>> simplest_fraction(Fraction(-7, 10), Fraction(-2, 3))
    Fraction(-2, 3)
    """
    lo = _as_fraction(lo)
    hi = None if hi is None else _as_fraction(hi)
    if hi is not None and (hi < lo or (hi == lo and not (lo_closed and hi_closed))):
        return None

    def inside(x: Fraction) -> bool:
        above = x > lo or (x == lo and lo_closed)
        below = hi is None or x < hi or (x == hi and hi_closed)
        return above and below

    if inside(Fraction(0)):
        return Fraction(0)
    if hi is not None and hi <= 0:  # all negative: mirror
        v = simplest_fraction(-hi, -lo, lo_closed=hi_closed, hi_closed=lo_closed)
        return None if v is None else -v
    # 0 < lo (or lo = 0, open): continued-fraction descent, terms collected then folded.
    terms: list[int] = []
    while True:
        a = math.floor(lo)
        first = Fraction(a) if (lo == a and lo_closed) else Fraction(a + 1)
        if inside(first):
            terms.append(int(first))
            break
        # lo and hi in (a, a + 1) with neither end an integer inside: x = a + 1/y, y > 1.
        terms.append(a)
        new_lo = None if hi is None else 1 / (hi - a)
        new_hi = None if lo == a else 1 / (lo - a)
        lo, hi = (Fraction(1) if new_lo is None else new_lo), new_hi
        lo_closed, hi_closed = (hi_closed if new_lo is not None else False), lo_closed
    value = Fraction(terms[-1])
    for a in reversed(terms[:-1]):
        value = a + 1 / value
    return value


@dataclass(frozen=True)
class SimplestFractionDomain(_CandidateDomain):
    """The integer "mode C" candidate domain of Kaplan, Mansour, Stemmer, Tsfadia (spec 3.7 item 5, 6.3).

    Indices ``k = 0 .. size - 1`` stand for the integers ``z = k - B t U^2`` in
    ``[[-B t U^2, B t U^2]]``, decoded by ``phi(z) = c(z) / t`` where ``c(z)`` is the unique
    fraction of denominator at most ``U`` in ``[z/U^2, (z+1)/U^2)`` (two distinct fractions of
    denominator ``<= U`` are at least ``1/U^2`` apart, so there is at most one), else ``z/U^2``.
    ``phi`` is strictly increasing, so a quasi-concave quality of the value stays quasi-concave in
    the index and a sensitivity-1 one stays sensitivity 1; every value ``p/(t q)`` with ``q <= U``
    in ``[-B, B]`` is a member, which gives property (P) whenever ``U`` bounds the denominators of
    the level-interval ends times ``t``. The running denominator of the next coordinate is
    ``t u`` with ``u`` the denominator ``phi`` produced (``U^2`` for a value of the fallback), so
    every earlier output's denominator divides it (:meth:`canonical_pair`).

    Public: ``B``, ``t``, ``U`` only. Ranks and selects are plain integer arithmetic plus one
    :func:`simplest_fraction` (``O(log U)`` steps).
    """

    B: int
    t: int
    U: int

    @property
    def _half(self) -> int:
        return self.B * self.t * self.U * self.U

    @property
    def size(self) -> int:
        return 2 * self._half + 1

    @property
    def max_denominator(self) -> int:
        return self.t * self.U * self.U

    def _cell_value(self, z: int) -> Fraction:
        """``c(z)``: the fraction of denominator ``<= U`` in ``[z/U^2, (z+1)/U^2)``, else ``z/U^2``."""
        U2 = self.U * self.U
        c = simplest_fraction(Fraction(z, U2), Fraction(z + 1, U2), hi_closed=False)
        return c if c.denominator <= self.U else Fraction(z, U2)

    def decode(self, z: int) -> Fraction:
        """``phi(z)`` for an integer ``z`` in ``[[-B t U^2, B t U^2]]``."""
        z = int(z)
        if abs(z) > self._half:
            raise InvalidParameterError(f"z = {z} outside [-{self._half}, {self._half}]")
        return self._cell_value(z) / self.t

    def select(self, k: int) -> Fraction:
        """The value at index ``k`` (``phi(k - B t U^2)``, exact)."""
        k = int(k)
        if not 0 <= k < self.size:
            raise InvalidParameterError(f"index {k} outside [0, {self.size - 1}]")
        return self.decode(k - self._half)

    def _cell(self, v: Fraction) -> int:
        return math.floor(v * self.t * self.U * self.U)

    def _count_lt(self, v: Fraction) -> int:
        z = self._cell(v)  # every z' < z decodes below v, every z' > z above
        return z + self._half + (1 if self.decode(z) < v else 0)

    def _count_le(self, v: Fraction) -> int:
        z = self._cell(v)
        return z + self._half + (1 if self.decode(z) <= v else 0)

    def canonical_pair(self, v) -> tuple[int, int]:
        """``(s, u)`` with ``v = s / (t u)`` and ``u`` the denominator ``phi`` produced; raises for a non-member."""
        v = _as_fraction(v)
        if abs(v) > self.B:
            raise InvalidParameterError(f"{v} is not in the domain: |v| <= {self.B} is needed")
        z = self._cell(v)
        if self.decode(z) != v:
            raise InvalidParameterError(
                f"{v} is not in the domain: v * {self.t} is neither a fraction of denominator <= {self.U} nor a "
                f"multiple of 1/{self.U * self.U} without one in its cell"
            )
        c = v * self.t
        if c.denominator <= self.U:
            return c.numerator, c.denominator
        return z, self.U * self.U

    def implicit(self, name: str = "mode C") -> ImplicitOrderedDomain:
        """The same set as a :class:`~privpac.domains.ImplicitOrderedDomain`."""
        return ImplicitOrderedDomain(self.size, self.rank, self.select, name)


def rational_domain(B: int, d: int, i: int, t: int = 1) -> RationalDomain:
    """The spec's A3-rational candidate domain ``D_i`` for ``X ⊆ Z^d ∩ [-B, B]^d``.

    Parameters
    ----------
    B : int
        Public bound of the integer box ``[-B, B]^d`` (``B >= 1``).
    d : int
        Dimension.
    i : int
        Coordinate, ``1 <= i <= d``.
    t : int, default=1
        Running denominator: the product of the canonical denominators of the coordinates
        chosen before ``i`` (1 for ``i = 1``).

    Returns
    -------
    RationalDomain
        ``.implicit()`` gives the :class:`~privpac.domains.ImplicitOrderedDomain` view.

    Examples
    --------
    >>> D = rational_domain(1, 2, 1)
    >>> D.Q, D.size
    (8, 80)
    >>> D.select(D.rank(Fraction(1, 3)))
    Fraction(1, 3)
    """
    d = check_int(d, "d", low=1)
    i = check_int(i, "i", low=1)
    if i > d:
        raise InvalidParameterError(f"coordinate i = {i} must be at most d = {d}")
    _, Q = hadamard_bounds(B, d)
    return RationalDomain(int(B), check_int(t, "t", low=1), Q[i - 1])


def interval_quality(domain, intervals, floor: int = 0) -> StepFunction:
    """The quality ``Q(k) = max(floor, max{r : select(k) in I_r})`` (``floor`` in none) over ``[0, size - 1]``.

    Parameters
    ----------
    domain : RationalDomain or SimplestFractionDomain
        Any ordered candidate domain with ``first_index``, ``last_index`` and ``max_index``.
    intervals : sequence of (Fraction or None, Fraction or None)
        Nested closed intervals ``I_1 ⊇ I_2 ⊇ ...`` (the output of
        :func:`~privpac.geometry.depth_intervals`); ``None`` is an infinite end.
    floor : int, default=0
        Truncation from below (Kaplan, Mansour, Stemmer, Tsfadia, spec ``kmst-halfspaces`` 3.7
        item 3): the levels ``r <= floor`` collapse to the constant ``floor``, so the result is
        ``max(Q, floor)``. It must be public (a function of public parameters only); ``0`` is the
        untruncated ``Q``.

    Returns
    -------
    StepFunction
        Integer values. The level ``r`` covers the indices ``first_index(lo_r) .. last_index(hi_r)``:
        from the first index of the smallest member ``>= lo_r`` to the last index of the largest
        member ``<= hi_r``, so every index of one value gets the same quality (ties never split
        a value) and the function stays quasi-concave over the index order. Exact: the breakpoints
        are exact counts, ``O(R log)`` big-integer operations for ``R`` levels.
    """
    if not all(hasattr(domain, name) for name in ("first_index", "last_index", "max_index")):
        raise InvalidParameterError(
            f"domain must be a RationalDomain or SimplestFractionDomain, got {type(domain).__name__}"
        )
    floor = check_int(floor, "floor", low=0)
    T = domain.max_index
    points: list[int] = []
    increments: list[int] = []
    previous: tuple[int, int] | None = None
    last: tuple | None = None  # the previous level's interval: equal neighbours (many levels) share indices
    for level, interval in enumerate(intervals, start=1):
        try:
            lo, hi = interval
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"interval {level} must be a pair (lo, hi), got {interval!r}") from exc
        if level <= floor:  # collapsed into the constant floor
            continue
        if previous is not None and last == (lo, hi):
            a, b = previous
        else:
            a = 0 if lo is None else domain.first_index(_as_fraction(lo))
            b = T if hi is None else domain.last_index(_as_fraction(hi))
        last = (lo, hi)
        if a > b:  # no member inside: neither in any deeper (nested) interval
            break
        if previous is not None and not (previous[0] <= a and b <= previous[1]):
            raise InvalidParameterError(f"the intervals must be nested; interval {level} is not inside the one before")
        previous = (a, b)
        points.append(a)
        increments.append(1)
        if b < T:
            points.append(b + 1)
            increments.append(-1)
    if not points:
        return StepFunction.constant(T, floor)
    return StepFunction.from_increments(T, floor, points, np.asarray(increments, dtype=np.int64))
