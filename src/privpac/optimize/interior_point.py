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

Plug-ins here:

* :class:`ExponentialInteriorPoint`, the exponential mechanism over every point of ``[lo, hi]``
  with quality ``q`` (spec ss-rectangles 3.2): pure epsilon-DP for both neighbour notions and any
  input size (including 0, which gives the uniform distribution), exact sampler, ``O(m log m)``
  whatever the domain size.
* :class:`RecConcaveInteriorPoint`, RecConcave (Beimel, Nissim, Stemmer, Fig. 5) on the same
  quality with a *public* promise (spec bns-pure-vs-approx, section 13): ``2^O(log* |X|)``
  samples, (epsilon, delta)-DP for both neighbour notions and any input size.
"""

from __future__ import annotations

import functools
import math
from typing import Protocol, runtime_checkable

import numpy as np

from ..accounting import PrivacyLedger
from ..domains import IntegerDomain
from ..errors import InvalidParameterError
from ..mechanisms.exponential import exponential_mechanism_step
from ..random import as_random_source, data_key
from ..stepfunc import StepFunction
from ..validation import check_choice, check_delta, check_epsilon, check_int, check_probability

__all__ = [
    "InteriorPoint",
    "ExponentialInteriorPoint",
    "RecConcaveInteriorPoint",
    "interior_point_quality",
    "interior_point_quality_from_counts",
]


def interior_point_quality(values, lo: int, hi: int) -> StepFunction:
    """``q(y) = min(#{v <= y}, #{v >= y})`` as a step function over offsets ``y - lo`` in ``[0, hi - lo]``."""
    return _interior_point_quality(values, lo, hi, None)


def _interior_point_quality(values, lo: int, hi: int, src) -> StepFunction:
    """:func:`interior_point_quality`; an enumerating ``src`` shares the step function between the
    paths of an exact audit (:meth:`~privpac.random.RandomSource.reuse`, keyed on the counts)."""
    domain = IntegerDomain(lo, hi)
    idx = domain.to_index(np.asarray(values) if not isinstance(values, list) else values, "values")
    # One sort; arithmetic only on the distinct values (big-int domains: no per-record copies).
    uniq, counts = np.unique(idx, return_counts=True) if idx.size else (idx, np.zeros(0, dtype=np.int64))
    counts = counts.astype(np.int64)
    T = domain.max_index
    if src is None or not src.enumerates:
        return interior_point_quality_from_counts(uniq, counts, T)
    key = ("interior_point_quality", data_key(uniq, counts), T)
    return src.reuse(key, lambda: interior_point_quality_from_counts(uniq, counts, T))


def interior_point_quality_from_counts(uniq, counts, T: int) -> StepFunction:
    """:func:`interior_point_quality` from sorted distinct offsets ``uniq`` in ``[0, T]`` and their
    multiplicities (the exact statistic a backend computes, :mod:`privpac.backends`)."""
    m = int(np.sum(counts))
    at_most = StepFunction.from_increments(T, 0, uniq, counts)
    below_top = np.asarray(uniq < T, dtype=bool)
    above = uniq[below_top] + 1  # v >= y fails from y = v + 1 on
    at_least = StepFunction.from_increments(T, m, above, -counts[below_top])
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


@functools.lru_cache(maxsize=256)
def _promise(alpha, beta, N, constants, base_case_max, epsilon, delta, size) -> int:
    """:meth:`RecConcaveInteriorPoint.promise` from checked public scalars (cached: audits call it per run)."""
    from .recconcave_plan import plan_rec_concave

    plan = plan_rec_concave(size - 1, alpha, beta, epsilon, delta, N, constants, base_case_max)
    return max(2, math.ceil(plan.required_promise()))


class RecConcaveInteriorPoint:
    """Interior point by RecConcave on ``q(y) = min(#{v <= y}, #{v >= y})`` with a public promise.

    Beimel, Nissim, Stemmer, Fig. 5 and Thm 3.15 (spec bns-pure-vs-approx, sections 4 and 13):
    ``q`` is quasi-concave, sensitivity 1, ``q(y) >= 1`` exactly on ``[min, max]`` and
    ``q(median) >= ceil(m/2)``, so RecConcave at accuracy ``1/2`` with promise ``r0`` returns a
    point of quality ``>= r0/2 >= 1``, an interior point, once ``ceil(m/2) >= r0``.

    Parameters
    ----------
    beta : float
        Failure probability the promise is sized for. The promise must be public and cannot
        depend on the input size (which add/remove neighbours change), so it is fixed per
        instance: :meth:`sample_complexity` answers for any ``beta >= self.beta`` and raises for a
        smaller one (construct the instance with the ``beta`` your proof needs).
    N : int or None
        Recursion-depth bound (``None``: chosen by ``constants``; see
        :func:`~privpac.optimize.recconcave_plan.plan_rec_concave`).
    constants : {"tuned", "paper"}
        Budget split of RecConcave: tuned (default) or Thm 3.15's ``eps/3N`` per mechanism.
    base_case_max : int
        Test-only: lower it to force recursion on small domains (Fig. 5 uses 32).

    Privacy: (epsilon, delta)-DP under replacement *and* addition/removal of one value, for any
    input size including 0. ``q`` has sensitivity 1 under both relations, the promise ``r0`` and
    the plan (depth, budgets) depend only on (epsilon, delta, beta, domain size), and RecConcave is
    private for any quality of sensitivity 1 (Lemma 3.12): every derived score is a max/min of
    sensitivity-1 functions, whichever relation the neighbours satisfy.

    Utility: :meth:`sample_complexity` is proven. For a plan of depth 1 (the plain exponential
    mechanism) ``Pr[q(out) = 0] <= |hi - lo| exp(-epsilon ceil(m/2) / 2)``; for deeper plans the
    promise ``r0 = ceil(required_quality(hi - lo, 1/2, beta, epsilon, delta, mode="tight"))`` is
    met once ``ceil(m/2) >= r0`` (proof of Lemma 3.14 with the library's exact constants).
    """

    is_pure = False
    name = "RecConcave"
    alpha = 0.5

    def __init__(self, beta: float = 1e-3, N: int | None = None, constants: str = "tuned", base_case_max: int = 32):
        self.beta = check_probability(beta, "beta")
        self.N = None if N is None else check_int(N, "N", low=1)
        self.constants = check_choice(constants, "constants", ("tuned", "paper"))
        self.base_case_max = check_int(base_case_max, "base_case_max", low=1)

    def plan(self, epsilon: float, delta: float, domain_size: int):
        """The RecConcave plan (depth and budgets) for a domain of ``domain_size`` points."""
        from .recconcave_plan import plan_rec_concave

        size = check_int(domain_size, "domain_size", low=1)
        return plan_rec_concave(
            size - 1, self.alpha, self.beta, epsilon, delta, self.N, self.constants, self.base_case_max
        )

    def promise(self, epsilon: float, delta: float, domain_size: int) -> int:
        """The public promise ``r0`` (at least 2, so that ``r0/2 >= 1``)."""
        size = check_int(domain_size, "domain_size", low=1)
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        return _promise(self.alpha, self.beta, self.N, self.constants, self.base_case_max, epsilon, delta, size)

    def sample_complexity(self, epsilon: float, delta: float, beta: float, domain_size: int) -> int:
        epsilon = check_epsilon(epsilon)
        beta = check_probability(beta, "beta")
        size = check_int(domain_size, "domain_size", low=1)
        plan = self.plan(epsilon, delta, size)
        if plan.depth == 1:
            # Plain exponential mechanism with the full epsilon: Pr[q = 0] <= (size - 1) exp(-eps q_max / 2).
            eps_em = plan.levels[0].epsilon_em
            half = max(0, math.ceil(2.0 * (math.log(max(size - 1, 1)) - math.log(beta)) / eps_em))
            return max(1, 2 * half - 1)
        if beta < self.beta:
            raise InvalidParameterError(
                f"this RecConcaveInteriorPoint is sized for beta >= {self.beta}; construct it with "
                f"RecConcaveInteriorPoint(beta={beta}) to get a proven bound at beta={beta}"
            )
        return 2 * self.promise(epsilon, delta, size) - 1

    def __call__(self, values, lo: int, hi: int, epsilon: float, delta: float, rng=None, ledger=None) -> int:
        from .recconcave import rec_concave_run

        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta)
        src = as_random_source(rng)
        q = _interior_point_quality(values, lo, hi, src)
        size = q.T + 1
        result = rec_concave_run(
            q,
            self.promise(epsilon, delta, size),
            self.alpha,
            epsilon,
            delta,
            beta=self.beta,
            N=self.N,
            constants=self.constants,
            ledger=ledger,
            rng=src,
            base_case_max=self.base_case_max,
            label="interior point (RecConcave)",
        )
        return int(lo) + result.index

    def __repr__(self) -> str:
        return (
            f"RecConcaveInteriorPoint(beta={self.beta}, N={self.N}, constants={self.constants!r}"
            + (f", base_case_max={self.base_case_max}" if self.base_case_max != 32 else "")
            + ")"
        )
