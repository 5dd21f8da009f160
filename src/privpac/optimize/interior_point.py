"""Private interior points: a point between the smallest and the largest value of a dataset.

The interior-point problem (Bun, Nissim, Stemmer, Vadhan 2015) is the one-dimensional engine of
the rectangle learner of Sadigurschi and Stemmer (spec ss-rectangles, section 3.1) and a private
median for users who want a statistic. Every plug-in follows :class:`InteriorPoint`.

Quality
-------
``q(y) = min(#{v <= y}, #{v >= y})`` over ``y`` in ``[lo, hi]``. Replacing, adding or removing one
value changes each count by at most one, so ``q`` has sensitivity 1 under both neighbour notions.
``q(y) >= 1`` exactly when ``min v <= y <= max v``, the median has ``q >= ceil(m/2)``, and ``q`` is
quasi-concave (it rises then falls), which is what RecConcave needs.

Plug-in here: :class:`ExponentialInteriorPoint`, the exponential mechanism over every point of
``[lo, hi]`` with quality ``q`` (spec ss-rectangles 3.2): pure epsilon-DP for both neighbour
notions and any input size (including 0, which gives the uniform distribution), exact sampler,
``O(m log m)`` whatever the domain size.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import numpy as np

from ..accounting import PrivacyLedger
from ..domains import IntegerDomain
from ..errors import InvalidParameterError
from ..mechanisms.exponential import exponential_mechanism_step
from ..stepfunc import StepFunction
from ..validation import check_delta, check_epsilon, check_probability

__all__ = ["InteriorPoint", "ExponentialInteriorPoint", "interior_point_quality"]


def interior_point_quality(values, lo: int, hi: int) -> StepFunction:
    """``q(y) = min(#{v <= y}, #{v >= y})`` as a step function over offsets ``y - lo`` in ``[0, hi - lo]``."""
    domain = IntegerDomain(lo, hi)
    idx = domain.to_index(np.asarray(values) if not isinstance(values, list) else values, "values")
    T = domain.max_index
    m = int(idx.size)
    at_most = StepFunction.from_increments(T, 0, idx, np.ones(m, dtype=np.int64))
    above = idx[idx < T] + 1  # v >= y fails from y = v + 1 on
    at_least = StepFunction.from_increments(T, m, above, -np.ones(above.size, dtype=np.int64))
    return StepFunction.pointwise(np.minimum, at_most, at_least)


@runtime_checkable
class InteriorPoint(Protocol):
    """A private interior-point algorithm (spec ss-rectangles, section 3.1).

    Contract: ``__call__`` is (epsilon, delta)-DP under replacement *and* addition/removal of one
    value, for any input size including 0, and returns an integer in ``[lo, hi]``;
    ``sample_complexity`` is a *proven* size above which the output lies in ``[min, max]`` with
    probability at least ``1 - beta`` (rectangle learners use it inside their privacy proofs, so
    it must never be an empirical estimate).
    """

    is_pure: bool

    def sample_complexity(self, epsilon: float, delta: float, beta: float, domain_size: int) -> int: ...

    def __call__(
        self,
        values,
        lo: int,
        hi: int,
        epsilon: float,
        delta: float,
        rng=None,
        ledger: PrivacyLedger | None = None,
    ) -> int: ...


class ExponentialInteriorPoint:
    """The exponential mechanism with the interior-point quality (pure epsilon-DP).

    Privacy: ``q`` has sensitivity 1 under replace-one and add/remove neighbours, so the
    exponential mechanism over the points of ``[lo, hi]`` is (epsilon, 0)-DP
    (:func:`~privpac.mechanisms.exponential_mechanism_step`).

    Utility: ``Pr[q(y) = 0] <= |Y| exp(-epsilon ceil(m/2) / 2)`` (every point has weight at least
    1 and the median weight ``exp(epsilon ceil(m/2)/2)``), which is at most ``beta`` once
    ``m >= (4/epsilon) ln(|Y|/beta)``.
    """

    is_pure = True
    name = "exponential mechanism"

    def sample_complexity(self, epsilon: float, delta: float, beta: float, domain_size: int) -> int:
        epsilon = check_epsilon(epsilon)
        beta = check_probability(beta, "beta")
        if int(domain_size) < 1:
            raise InvalidParameterError(f"domain_size must be >= 1, got {domain_size}")
        return math.ceil((4.0 / epsilon) * (math.log(int(domain_size)) - math.log(beta)))

    def __call__(self, values, lo: int, hi: int, epsilon: float, delta: float = 0.0, rng=None, ledger=None) -> int:
        epsilon = check_epsilon(epsilon)
        check_delta(delta)
        q = interior_point_quality(values, lo, hi)
        offset = exponential_mechanism_step(
            q, epsilon, ledger=ledger, label="interior point (exponential mechanism)", rng=rng
        )
        return int(lo) + offset

    def output_pieces(self, values, lo: int, hi: int, epsilon: float) -> tuple[list[int], list[int], np.ndarray]:
        """The exact output distribution as pieces, for any domain size (privacy checks).

        Returns ``(starts, ends, probabilities)``: the output is uniform on each closed interval
        ``[starts[t], ends[t]]`` (Python ints in ``[lo, hi]``) and lands in it with probability
        ``probabilities[t]``. ``O(m log m)`` for ``m`` values, whatever ``hi - lo`` is.
        """
        from ..mechanisms.exponential import step_piece_probabilities

        epsilon = check_epsilon(epsilon)
        q = interior_point_quality(values, lo, hi)
        starts = [int(lo) + int(s) for s in q.starts.tolist()]
        ends = [int(lo) + int(e) for e in q.ends.tolist()]
        return starts, ends, step_piece_probabilities(q, epsilon)

    def output_distribution(self, values, lo: int, hi: int, epsilon: float) -> dict:
        """Exact probability of every point (small domains only; tests and audits)."""
        from ..mechanisms.exponential import step_piece_probabilities

        q = interior_point_quality(values, lo, hi)
        if q.T > 10**6:
            raise InvalidParameterError("output_distribution is for domains of at most 10^6 points")
        probs = step_piece_probabilities(q, epsilon)
        out = {}
        for start, length, p in zip(q.starts.tolist(), q.lengths().tolist(), probs.tolist()):
            for x in range(start, start + length):
                out[int(lo) + x] = p / length
        return out

    def __repr__(self) -> str:
        return "ExponentialInteriorPoint()"
