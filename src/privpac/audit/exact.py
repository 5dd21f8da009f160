"""Exact privacy checks: the hockey-stick divergence between two output distributions.

A mechanism ``M`` is (epsilon, delta)-DP on a pair of neighbours ``S, S'`` exactly when

    H_eps(P || Q) = sum over outputs o of max(0, P(o) - e^eps Q(o)) <= delta

in both directions, where ``P = M(S)`` and ``Q = M(S')`` (the worst event is
``{o : P(o) > e^eps Q(o)}``). For mechanisms whose output distribution is computable in closed
form (discrete Laplace, exponential mechanism, A_dist, the choosing mechanism, small instances
of composite algorithms) this is an exact check on crafted neighbours: a test that fails as soon
as the mechanism is wrong by more than floating-point rounding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ..validation import check_delta, check_real

__all__ = ["hockey_stick", "exact_check", "exact_epsilon", "ExactCheckResult"]


def _as_dist(P) -> dict:
    if isinstance(P, Mapping):
        return dict(P)
    return dict(enumerate(P))


def hockey_stick(P, Q, epsilon: float) -> float:
    """``sum_o max(0, P(o) - e^epsilon Q(o))`` for distributions given as dicts or arrays."""
    epsilon = check_real(epsilon, "epsilon", low=0.0)
    P, Q = _as_dist(P), _as_dist(Q)
    factor = math.exp(epsilon)
    return math.fsum(max(0.0, p - factor * Q.get(o, 0.0)) for o, p in P.items())


def exact_epsilon(P, Q, delta: float, *, upper: float = 50.0) -> float:
    """The smallest epsilon with ``H_eps`` <= delta in both directions (bisection; ``inf`` if none)."""
    delta = check_delta(delta)

    def worst(eps: float) -> float:
        return max(hockey_stick(P, Q, eps), hockey_stick(Q, P, eps))

    if worst(upper) > delta:
        return math.inf
    if worst(0.0) <= delta:
        return 0.0
    lo, hi = 0.0, upper
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if worst(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


@dataclass(frozen=True)
class ExactCheckResult:
    """Outcome of :func:`exact_check`."""

    epsilon: float
    delta: float
    delta_forward: float  # H_eps(M(S) || M(S'))
    delta_backward: float  # H_eps(M(S') || M(S))
    tolerance: float

    @property
    def passed(self) -> bool:
        return max(self.delta_forward, self.delta_backward) <= self.delta + self.tolerance

    @property
    def worst_delta(self) -> float:
        return max(self.delta_forward, self.delta_backward)

    def __str__(self) -> str:
        verdict = "pass" if self.passed else "VIOLATION"
        return (
            f"exact check at epsilon={self.epsilon:.6g}: hockey-stick divergence "
            f"{self.worst_delta:.4g} vs delta={self.delta:.4g}: {verdict}"
        )


def exact_check(P, Q, epsilon: float, delta: float, *, tolerance: float = 1e-12) -> ExactCheckResult:
    """Check (epsilon, delta)-DP on one pair of neighbours from their exact output distributions."""
    delta = check_delta(delta)
    return ExactCheckResult(
        epsilon=float(epsilon),
        delta=delta,
        delta_forward=hockey_stick(P, Q, epsilon),
        delta_backward=hockey_stick(Q, P, epsilon),
        tolerance=tolerance,
    )
