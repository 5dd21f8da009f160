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
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..domains import ImplicitOrderedDomain
from ..errors import InvalidParameterError
from ..stepfunc import StepFunction
from ..validation import check_int

__all__ = ["RationalDomain", "floor_sum", "hadamard_bounds", "interval_quality", "rational_domain"]


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


@dataclass(frozen=True)
class RationalDomain:
    """The ordered multiset ``D`` of pairs ``(p, q)``, ``1 <= q <= Q``, ``|p| <= B t q``, valued ``p/(t q)``.

    Indices ``0 .. size - 1`` follow the order (value, then ``q``). A rational value ``v`` in the
    set occupies the indices ``first_index(v) .. last_index(v)``, one per ``q`` with ``v t q`` an
    integer.
    """

    B: int
    t: int
    Q: int

    def __post_init__(self):
        check_int(self.B, "B", low=1)
        check_int(self.t, "t", low=1)
        check_int(self.Q, "Q", low=1)

    @property
    def size(self) -> int:
        return self.B * self.t * self.Q * (self.Q + 1) + self.Q

    @property
    def max_index(self) -> int:
        return self.size - 1

    @property
    def max_denominator(self) -> int:
        return self.t * self.Q

    # -- counts -----------------------------------------------------------------------------------

    def _base(self) -> int:
        # sum over q of (B t q + 1): the pairs with p <= 0 ... shifted; see count_le.
        return self.B * self.t * self.Q * (self.Q + 1) // 2 + self.Q

    def count_le(self, v) -> int:
        """Number of pairs with value ``<= v``: ``sum_q (floor(a t q / b) + B t q + 1)`` for ``v = a/b``."""
        v = _as_fraction(v)
        if v < -self.B:
            return 0
        if v >= self.B:
            return self.size
        a, b = v.numerator, v.denominator
        return self._base() + floor_sum(self.Q + 1, b, a * self.t, 0)

    def count_lt(self, v) -> int:
        """Number of pairs with value ``< v``: ``sum_q (ceil(a t q / b) + B t q)``."""
        v = _as_fraction(v)
        if v <= -self.B:
            return 0
        if v > self.B:
            return self.size
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

    def __contains__(self, v) -> bool:
        try:
            self.canonical_pair(v)
        except InvalidParameterError:
            return False
        return True

    def first_index(self, v) -> int:
        """Index of the first pair valued ``v`` (of the first pair valued above ``v`` if ``v`` is not a member)."""
        return self.count_lt(v)

    def last_index(self, v) -> int:
        """Index of the last pair valued ``v`` (of the last pair valued below ``v`` if ``v`` is not a member)."""
        return self.count_le(v) - 1

    def rank(self, v) -> int:
        """The index of a member's canonical pair (its first index)."""
        self.canonical_pair(v)
        return self.first_index(v)

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
        while hi - lo > 1:  # invariant: count_le(lo/N) <= k < count_le(hi/N)
            mid = (lo + hi) // 2
            if self.count_le(Fraction(mid, N)) > k:
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


def interval_quality(domain: RationalDomain, intervals) -> StepFunction:
    """The quality ``Q(k) = max{r : select(k) in I_r}`` (0 in none) over the index space ``[0, size - 1]``.

    Parameters
    ----------
    domain : RationalDomain
    intervals : sequence of (Fraction or None, Fraction or None)
        Nested closed intervals ``I_1 ⊇ I_2 ⊇ ...`` (the output of
        :func:`~privpac.geometry.depth_intervals`); ``None`` is an infinite end.

    Returns
    -------
    StepFunction
        Integer values. The level ``r`` covers the indices ``first_index(lo_r) .. last_index(hi_r)``:
        from the first pair of the smallest member ``>= lo_r`` to the last pair of the largest
        member ``<= hi_r``, so every pair of one rational gets the same quality (ties never split
        a value) and the function stays quasi-concave over the index order. Exact: the breakpoints
        are ``floor_sum`` counts, ``O(R log)`` big-integer operations for ``R`` levels.
    """
    if not isinstance(domain, RationalDomain):
        raise InvalidParameterError(f"domain must be a RationalDomain, got {type(domain).__name__}")
    T = domain.max_index
    points: list[int] = []
    increments: list[int] = []
    previous: tuple[int, int] | None = None
    for level, interval in enumerate(intervals, start=1):
        try:
            lo, hi = interval
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(f"interval {level} must be a pair (lo, hi), got {interval!r}") from exc
        a = 0 if lo is None else domain.first_index(_as_fraction(lo))
        b = T if hi is None else domain.last_index(_as_fraction(hi))
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
        return StepFunction.constant(T, 0)
    return StepFunction.from_increments(T, 0, points, np.asarray(increments, dtype=np.int64))
