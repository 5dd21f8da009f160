"""LearnThresholds: a proper (epsilon, delta)-private learner for THRESH_d through RecConcave.

Beimel, Nissim, Stemmer, section 3.4, Thm 3.18 and Remark 3.19 (spec bns-pure-vs-approx 5.2).

Algorithm
---------
1. ``alpha_hat = alpha / 2`` (at most 1/2, RecConcave's limit).
2. ``Q(j) = #{i : c_j(x_i) = y_i}`` for ``0 <= j <= size``, with ``c_j(x) = 1`` iff ``x < j``: a step
   function with one piece per distinct sample point (``O(m log m)``, any domain size).
3. ``k = RecConcave(Q, T = size, promise = m, alpha_hat, epsilon, delta, N)``; return ``c_k``.

``constants="paper"``: RecConcave with Thm 3.15's ``(eps/3N, delta/3N)`` per mechanism and
``N = log*(size)`` unless given (Thm 3.18 with Remark 3.19). **E14**: with ``N = 1`` only one
mechanism runs, yet the theorem charges ``eps/3``; ``constants="tuned"`` (default) spends the whole
budget and picks the depth (``N = 1``, the plain exponential mechanism, for every
``size`` below about ``2^300`` at usual budgets) and the split minimising RecConcave's tight promise requirement.

Privacy: (epsilon, delta)-DP for every sample under replace-one neighbours (``m``, hence the
promise, is public; ``Q`` has sensitivity 1; Thm 3.15). Pure epsilon-DP when the plan has depth 1.

Utility (Thm 3.18): on a sample of ``m`` i.i.d. examples labelled by a threshold, RecConcave's
promise holds (``Q(target) = m`` and ``Q`` is quasi-concave, Example 3.8), so with probability
``1 - beta/2`` the output has empirical error ``<= alpha/2``; with ``m`` above a uniform-convergence
bound (Thm 2.14, or DKW) its true error is ``<= alpha``. Sample sizes: :mod:`privpac.bounds.bns`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..accounting import PrivacyLedger
from ..optimize.recconcave import rec_concave_run
from ..optimize.recconcave_plan import BASE_CASE_MAX, RecConcavePlan, plan_rec_concave
from ..random import as_random_source, data_key
from ..stepfunc import StepFunction
from ..validation import check_delta, check_epsilon, check_probability
from ._sample import labelled_counts, positions, step_from_sorted
from .hypotheses import ThresholdHypothesis

__all__ = [
    "threshold_quality",
    "learn_thresholds",
    "learn_thresholds_plan",
    "ThresholdResult",
]


def threshold_quality(x, y, size: int) -> StepFunction:
    """``Q(j) = #{i : [x_i < j] == y_i}`` over thresholds ``j`` in ``[0, size]`` (sensitivity 1).

    ``Q(0)`` counts the zeros; passing ``j = x + 1`` adds one for a label 1 and removes one for a 0.
    """
    s = labelled_counts(x, y, size, allow_empty=True)
    if s.values.dtype == object and s.size >= 2**62:
        # Python ints: the pieces start at x + 1, stored as the values themselves with a shift of one
        # (references, not a copy: at 2^65536 a copy of the values is as large as the sample).
        return step_from_sorted(s.size, s.n_zeros, s.values, s.ones - s.zeros, shift=1)
    return step_from_sorted(s.size, s.n_zeros, positions(s.values, 1, s.size), s.ones - s.zeros)


@dataclass(frozen=True)
class ThresholdResult:
    """The learned ``c_k`` with the RecConcave plan and the number of levels that ran."""

    hypothesis: ThresholdHypothesis
    depth: int
    plan: RecConcavePlan

    @property
    def threshold(self) -> int:
        return self.hypothesis.threshold


def learn_thresholds_plan(
    size: int,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    N: int | None = None,
    constants: str = "tuned",
    base_case_max: int = BASE_CASE_MAX,
) -> RecConcavePlan:
    """RecConcave's plan inside LearnThresholds (public parameters only)."""
    alpha = check_probability(alpha, "alpha")
    beta = check_probability(beta, "beta")
    return plan_rec_concave(size, min(alpha / 2.0, 0.5), beta / 2.0, epsilon, delta, N, constants, base_case_max)


def learn_thresholds(
    x,
    y,
    size: int,
    alpha: float,
    beta: float,
    epsilon: float,
    delta: float,
    *,
    N: int | None = None,
    constants: str = "tuned",
    ledger: PrivacyLedger | None = None,
    rng=None,
    base_case_max: int = BASE_CASE_MAX,
) -> ThresholdResult:
    """LearnThresholds (Thm 3.18) on indices ``x`` in ``[0, size - 1]`` with labels ``y`` in {0, 1}.

    ``epsilon, delta`` are the total budget; ``alpha, beta`` the target accuracy and confidence
    (RecConcave runs at accuracy ``alpha/2`` and its budget split is tuned for failure ``beta/2``).
    ``N``, ``constants`` and ``base_case_max`` (test-only) as in
    :func:`~privpac.optimize.recconcave_plan.plan_rec_concave`. Raises on an empty sample.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    sample = labelled_counts(x, y, size)
    plan = learn_thresholds_plan(size, alpha, beta, epsilon, delta, N, constants, base_case_max)
    src = as_random_source(rng)
    if src.enumerates:  # an exact audit: the quality is shared between its paths (keyed on the counts)
        key = ("threshold_quality", data_key(sample.values, sample.zeros, sample.ones), size)
        q = src.reuse(key, lambda: threshold_quality(sample, None, size))
    else:
        q = threshold_quality(sample, None, size)
    res = rec_concave_run(
        q,
        float(sample.n),
        plan.alpha,
        epsilon,
        delta,
        beta=plan.beta,
        N=N,
        constants=constants,
        ledger=ledger,
        rng=src,
        base_case_max=base_case_max,
        label="LearnThresholds: RecConcave",
    )
    return ThresholdResult(ThresholdHypothesis(res.index), res.depth, res.plan)
