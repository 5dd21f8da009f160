"""The integer search behind the bounds that are the smallest size (or count) meeting a condition.

The conditions are monotone from some point on: once met, met for every larger value.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["first_feasible", "smallest_feasible"]


def first_feasible(feasible: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest ``n`` in ``(lo, hi]`` with ``feasible(n)``, given ``feasible(hi)`` but not ``feasible(lo)``."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return hi


def smallest_feasible(feasible: Callable[[int], bool], start: int = 1) -> int:
    """Smallest ``n`` with ``feasible(n)``: doubling from ``start``, then bisection."""
    hi = max(start, 1)
    while not feasible(hi):
        hi *= 2
        if hi > 2**80:
            raise OverflowError("no sample size below 2^80 meets the conditions")
    return first_feasible(feasible, hi // 2, hi)
