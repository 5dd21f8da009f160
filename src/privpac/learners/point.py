"""A proper (epsilon, delta)-private learner for POINT_d through A_dist.

Beimel, Nissim, Stemmer, section 3.1, Lemma 3.2 and Remark 3.3 (spec bns-pure-vs-approx 5.1).

Algorithm
---------
1. ``q(x)`` = number of records ``(x, 1)`` of the sample, for every domain point ``x``.
2. ``h = A_dist(q)`` (corrected: E1).
3. Return ``c_h``; if A_dist returns bottom, return a uniformly random ``c_i``
   (``on_bottom="random"``, the paper) or the all-zero hypothesis (``on_bottom="zero"``,
   Remark 3.3: no condition on the domain size, but the class gains ``c_empty``).

Errata. E1: the paper's A_dist adds ``Lap(1/eps)`` to a gap of sensitivity 2 (one record
``(a, 1) -> (b, 1)`` lowers ``q(a)`` and raises ``q(b)``); privpac runs the corrected A_dist
(noise ``2/eps``, threshold ``2 + k0``) and keeps the literal one as ``variant="paper-literal"``,
which the ``point-learner-paper-literal`` audit flags. E13: the paper calls A_dist "with
parameters alpha/2, beta/2"; A_dist takes only (epsilon, delta), alpha and beta enter the
sample-size analysis only.

Privacy: (epsilon, delta)-DP under replace-one neighbours: ``q`` has sensitivity 1, the output is
A_dist's (private) output post-processed with data-independent randomness.

Utility (Lemma 3.2): if ``size >= 1/(alpha beta)`` (random fallback), the learner is
(alpha, beta)-accurate once ``m >= (8/alpha) ln(2/beta)`` and A_dist releases a gap of
``alpha m / 2`` with probability ``1 - beta/2`` (stated: ``m >= (8/(alpha eps)) ln(4/(beta delta))``;
:mod:`privpac.bounds.bns` has the stated and tight values). Independent of the domain size.
"""

from __future__ import annotations

import warnings

from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError, UtilityWarning
from ..mechanisms.adist import ADIST_VARIANTS, adist, adist_plan
from ..random import as_random_source, uniform_int
from ..stepfunc import StepFunction
from ..validation import check_choice, check_delta, check_epsilon, check_probability
from ._sample import labelled_counts, spikes
from .hypotheses import PointHypothesis

__all__ = ["learn_point", "point_quality", "point_learner_distribution", "ON_BOTTOM"]

ON_BOTTOM = ("random", "zero")


def point_quality(x, y, size: int) -> StepFunction:
    """``q(j) = #{i : x_i = j, y_i = 1}`` over ``[0, size - 1]`` (sensitivity 1)."""
    s = labelled_counts(x, y, size, allow_empty=True)
    positive = s.ones > 0
    return spikes(s.values[positive], s.ones[positive], 0, size - 1)


def learn_point(
    x,
    y,
    size: int,
    epsilon: float,
    delta: float,
    *,
    on_bottom: str = "random",
    variant: str = "corrected",
    alpha: float | None = None,
    beta: float | None = None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> tuple[PointHypothesis, bool]:
    """Learn a point function (Lemma 3.2). Returns ``(hypothesis, released)``.

    Parameters
    ----------
    x, y : arrays
        Sample points as domain indices in ``[0, size - 1]`` and labels in {0, 1}.
    size : int
        Public domain size ``|X|`` (``2^d`` in the paper; any Python int).
    epsilon, delta : float
        The learner is (epsilon, delta)-DP (``delta > 0``).
    on_bottom : {"random", "zero"}
        What to return when A_dist returns bottom (Remark 3.3).
    variant : {"corrected", "paper-literal"}
        A_dist variant; the literal one is not private (E1) and warns.
    alpha, beta : float, optional
        Only used to warn (:class:`~privpac.errors.UtilityWarning`) when the random fallback's
        utility condition ``size >= 1/(alpha beta)`` fails.

    ``released`` is True when A_dist released a point (it is part of the private output).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    check_choice(on_bottom, "on_bottom", ON_BOTTOM)
    check_choice(variant, "variant", ADIST_VARIANTS)
    q = point_quality(labelled_counts(x, y, size), None, size)  # empty samples raise
    if on_bottom == "random" and alpha is not None and beta is not None:
        alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
        if size * alpha * beta < 1.0:
            warnings.warn(
                f"the domain has {size} points < 1/(alpha beta) = {1 / (alpha * beta):.4g}: Lemma 3.2's "
                "guarantee needs more (use on_bottom='zero', Remark 3.3)",
                UtilityWarning,
                stacklevel=2,
            )
    src = as_random_source(rng)
    h = adist(q, epsilon, delta, variant=variant, ledger=ledger, label="point learner: A_dist", rng=src)
    if h is not None:
        return PointHypothesis(int(h)), True
    if on_bottom == "zero":
        return PointHypothesis(None), False
    return PointHypothesis(uniform_int(0, q.T, src)), False


def point_learner_distribution(
    x, y, size: int, epsilon: float, delta: float, *, on_bottom="random", variant="corrected"
):
    """Exact output distribution over hypotheses (point index, or ``None`` for all-zero); small domains."""
    q = point_quality(x, y, size)
    plan = adist_plan(q, epsilon, delta, variant)
    p = plan.release_probability()
    if on_bottom == "zero":
        out = {None: 1.0 - p}
        out[plan.leader] = p
        return out
    if size > 10**6:
        raise InvalidParameterError("point_learner_distribution with on_bottom='random' needs size <= 10^6")
    out = {j: (1.0 - p) / size for j in range(size)}
    out[plan.leader] += p
    return out
