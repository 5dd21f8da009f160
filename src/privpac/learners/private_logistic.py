"""Private logistic regression on a public domain: the default learner of ``PrivateHalfspaceClassifier``.

Not in the five papers: the learner a practitioner expects when their features come with public
bounds (issue 20). ``variant="logistic"`` of :class:`~privpac.estimators.PrivateHalfspaceClassifier`.

The algorithm
-------------
1. **Public per-record map** (done by the estimator; records arrive here mapped). Every feature
   is mapped to ``[-1, 1]`` by its public bounds, ``u_j = (2 x_j - lo_j - hi_j) / (hi_j - lo_j)``
   (with an intercept; without one ``u_j = x_j / max(|lo_j|, |hi_j|)``, which keeps halfspaces
   through the origin; a ball of radius ``R``: ``u = x / R``), a constant 1 is appended for the
   intercept, and the record is divided by the public bound ``B`` on ``||(u, 1)||``
   (``sqrt(d + 1)`` on a box), so every mapped record ``z`` has ``||z|| <= 1``. Unlike the paper
   learners' ``x / ||x||``, this keeps the feature scales the public box states.
2. **Loss**: the logistic loss with each record's gradient clipped to norm ``clip``
   (:class:`~privpac.learners.dp_erm.ClippedLogisticLoss`; still a convex loss of the margin).
3. **Optimiser**: ``T`` steps of full-batch noisy gradient descent
   (:func:`~privpac.learners.dp_erm.noisy_gd` with a constant step), noise calibrated exactly by
   Gaussian DP (:func:`~privpac.mechanisms.gaussian.gaussian_gdp_block`), output the mean of the
   last half of the iterates.

How the hyper-parameters are chosen (:func:`plan_logistic`)
-----------------------------------------------------------
From public quantities only: ``n`` (public under replace-one neighbours), the mapped dimension
``m``, epsilon and delta, through the signal-to-noise number ``s = mu n / sqrt(m)`` with
``mu = gdp_mu(epsilon, delta)``. With the gradient sum's noise ``2 clip sqrt(T) / mu`` per
coordinate, ``T`` steps of size ``eta`` move the iterate by at most ``eta T clip`` (the drift) and
add noise of norm about ``2 eta T clip sqrt(m) / (mu n)``: the ratio of the two is ``s / 2``,
whatever ``T``, ``eta`` and ``clip``. What the rule fixes is the distance travelled,
``K = eta T clip``: too short and the ill-conditioned directions of real data are not reached,
too long and the noise (which grows with ``K``) swamps the optimum. The rule:

* ``K = RULE_DISTANCE * s`` (30 s), at most ``RULE_MAX_STEP * T``;
* ``clip = RULE_CLIP`` (0.1; the mapped records' raw gradients are at most 1);
* ``T = ceil(K / 4)`` between ``RULE_MIN_STEPS`` and ``RULE_MAX_STEPS`` (50 and 1,000: each step is
  a pass over the data, a job on Dask or Spark), so each step moves the iterate by ``eta clip = 4``
  (16 at most, once ``T`` is capped);
* ``eta = K / (T clip)``; no L2 term; no projection unless a public ``margin`` gamma is given,
  which keeps the iterates in the ball of radius ``RULE_RADIUS / gamma`` (3 / gamma);
* the output is the mean of the last ``T - floor(T / 2)`` iterates.

The constants were chosen on synthetic data, not on the benchmark's test datasets
(``benchmarks/tabular_halfspaces.py --rule``): Gaussian classes with correlated features,
separated by 2 or 4 standard deviations, 5 % label noise, data filling 30 % or all of each
feature's public range, d = 5, 20, 60, n = 300 to 5,000, epsilon 0.3 to 3. Against non-private
logistic regression the rule lost 0.084 accuracy on average (0.011 where ``s >= 100``); ``K = 10 s``
lost 0.112, ``K = 100 s`` 0.101, clip 0.01 0.101, no clipping 0.167, averaging all iterates 0.095,
an L2 term 0.091. The rule was best in every range of ``s`` but the lowest (``s < 10``, where
every variant is near the majority class's accuracy and ``K = 10 s`` or clip 0.01 were 0.011
better). With a margin, the radius ``3 / gamma`` raised the mean accuracy on the margin data of
:func:`~privpac.datasets.make_margin_data` from 0.834 to 0.851 (``1 / gamma``: 0.781).

The cap of 1,000 steps (``benchmarks/tabular_halfspaces.py --cap``, ``tabular_halfspaces_cap.csv``:
the same synthetic data where ``s >= 100``, n = 1,000 to 20,000, where the rule asks for more than
1,000 steps): against non-private logistic regression, at most 1,000 steps lost 0.005 accuracy on
average, 300 steps 0.010, 200 steps 0.018, 100 steps 0.038. All of the loss was on data filling
30 % of each feature's public range (1,000 steps: 0.009; 100 steps: 0.075, up to 0.29 at d = 60),
whose mapped records need the long distance; on data filling the ranges, 100 steps lost 0.001 like
1,000. So the cap is 1,000, and ``n_steps=100`` to ``300`` is the cheap choice at large ``n`` when
the public bounds are tight (a step is a pass over the data: about 150 s for 1,000 steps at
n = 10^6, d = 30, in memory; ``--time``).

Privacy
-------
Replace-one neighbours; conditioned on nothing (no randomness precedes the data access).

* The map of step 1 is applied to each record on its own and depends only on the public domain,
  so neighbours stay neighbours, with ``||z|| <= 1``.
* Every clipped per-record gradient has norm at most ``clip``, a public number, whatever ``w``;
  replacing one record changes the gradient sum by at most ``2 clip`` in L2 norm.
* Step ``t`` releases the gradient sum at ``w_t`` plus ``N(0, sigma^2 I_m)``; ``w_t`` is a function
  of the earlier releases and of public numbers (the step size, ``l2``, the projection), so the
  ``T`` releases are an adaptive composition of Gaussian mechanisms of sensitivity ``2 clip``:
  exactly ``mu``-GDP with ``mu = 2 clip sqrt(T) / sigma`` (Dong, Roth, Su 2022, Cor 3.3).
  ``sigma`` is the smallest value for which ``mu``-GDP implies (epsilon, delta)-DP by the exact
  conversion (their Cor 2.13), computed by :func:`~privpac.mechanisms.gaussian.gaussian_gdp_block`,
  which charges the ledger before any noise is drawn.
* The average of the iterates and the map back to the user's units are post-processing.

So the learner is (epsilon, delta)-DP. The Gaussian noise is floating point (the caveat of
:mod:`privpac.mechanisms.gaussian`); the clipped norm may exceed ``clip`` by float rounding (a
relative 1e-16). The audit ``halfspace-logistic`` checks the release through the estimator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError
from ..mechanisms.gaussian import gdp_mu
from ..random import as_random_source
from ..validation import check_delta, check_epsilon, check_int, check_real
from .dp_erm import ClippedLogisticLoss, InMemoryGradientSum, MappedSample, _check_inputs, noisy_gd
from .large_margin import EngineRecords, MarginModel, _warn_large_delta

__all__ = [
    "LogisticPlan",
    "RULE_MIN_SIGNAL",
    "RULE_CLIP",
    "RULE_DISTANCE",
    "RULE_MAX_STEP",
    "RULE_MAX_STEPS",
    "RULE_RADIUS",
    "RULE_MIN_STEPS",
    "learn_logistic",
    "logistic_records",
    "plan_logistic",
]

#: ``K = RULE_DISTANCE * s``: the distance ``eta T clip`` the iterates may travel (module docstring).
RULE_DISTANCE = 30.0
#: The per-record gradient clip (records are mapped into the unit ball, so gradients are at most 1).
RULE_CLIP = 0.1
#: Bounds on the number of steps (each step is a pass over the data).
RULE_MIN_STEPS = 50
RULE_MAX_STEPS = 1000
#: Below ``s = RULE_MIN_SIGNAL`` the measured accuracy stays near the majority class's (a warning).
RULE_MIN_SIGNAL = 3.0
#: With a public margin ``gamma``: the iterates stay in the ball of radius ``RULE_RADIUS / gamma``.
RULE_RADIUS = 3.0
#: The largest move of one step, ``eta * clip`` (caps ``K`` at ``RULE_MAX_STEP * T`` when ``s`` is large).
RULE_MAX_STEP = 16.0


@dataclass(frozen=True)
class LogisticPlan:
    """The public hyper-parameters of one fit of :func:`learn_logistic` (a function of public inputs only)."""

    n: int
    m: int
    epsilon: float
    delta: float
    n_steps: int
    clip: float
    step_size: float
    l2: float = 0.0
    radius: float | None = None

    def details(self) -> dict:
        """The plan as JSON-able public numbers (stored on the fitted estimator)."""
        return {
            "n_steps": self.n_steps,
            "clip": self.clip,
            "step_size": self.step_size,
            "l2": self.l2,
            "radius": self.radius,
        }


def plan_logistic(n: int, m: int, epsilon: float, delta: float, *, n_steps="auto", margin=None) -> LogisticPlan:
    """The hyper-parameter rule of the module docstring, from public quantities only.

    ``n_steps``: ``"auto"`` (the rule) or an int (the distance ``K`` is kept, up to
    ``RULE_MAX_STEP * T``: ``eta = K / (T clip)``). ``margin``: ``None`` (no projection) or a public
    cosine margin ``gamma`` of the mapped records, which projects the iterates on the ball of
    radius ``RULE_RADIUS / gamma``.
    """
    n = check_int(n, "n", low=1)
    m = check_int(m, "m", low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    signal = gdp_mu(epsilon, delta) * n / math.sqrt(m)
    if isinstance(n_steps, str):
        if n_steps != "auto":
            raise InvalidParameterError(f"n_steps must be 'auto' or a positive integer, got {n_steps!r}")
        steps = int(min(RULE_MAX_STEPS, max(RULE_MIN_STEPS, math.ceil(RULE_DISTANCE * signal / 4.0))))
    else:
        steps = check_int(n_steps, "n_steps", low=1)
    distance = min(RULE_DISTANCE * signal, RULE_MAX_STEP * steps)
    radius = None
    if margin is not None:
        radius = RULE_RADIUS / check_real(margin, "margin", low=0.0, low_open=True, high=1.0)
    return LogisticPlan(n, m, epsilon, delta, steps, RULE_CLIP, distance / (steps * RULE_CLIP), radius=radius)


class _InMemoryClippedSum(InMemoryGradientSum):
    """The in-memory gradient-sum oracle with every record's clip factor computed once (a step is two passes)."""

    def __init__(self, Z, y, loss: ClippedLogisticLoss):
        super().__init__(Z, y, loss)
        self.caps = loss.caps(Z)

    def __call__(self, W):
        return self.loss.gradient_sum(self.Z, self.y, W, caps=self.caps)


def logistic_records(m: int, epsilon: float, delta: float) -> int:
    """The ``n`` at which ``s = mu n / sqrt(m)`` reaches :data:`RULE_MIN_SIGNAL` (public inputs only).

    Measured on the synthetic data of the module docstring (``benchmarks/tabular_halfspaces.py
    --rule``): below it the learner's accuracy is about the majority class's.
    """
    m = check_int(m, "m", low=1)
    return int(math.ceil(RULE_MIN_SIGNAL * math.sqrt(m) / gdp_mu(check_epsilon(epsilon), check_delta(delta))))


def learn_logistic(
    Z,
    y,
    epsilon: float,
    delta: float,
    *,
    n_steps="auto",
    margin: float | None = None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> MarginModel:
    """Private logistic regression on mapped records (``||z|| <= 1``, labels in {-1, +1}); (epsilon, delta)-DP.

    ``Z`` may be :class:`~privpac.learners.large_margin.EngineRecords` whose ``prepare`` returns the
    mapped records (data on Dask or Spark, ``y`` ignored): one pass per gradient step, each block
    returning its clipped gradient sum (:class:`~privpac.learners.dp_erm.EngineGradientSum`), the
    noise drawn on the driver. The result equals the in-memory fit up to float rounding of the
    partition sums; the ledger is identical. Returns the vector in the mapped space (no projection).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    if isinstance(Z, EngineRecords):
        n, m = Z.n, Z.d
    else:
        Z, y = _check_inputs(Z, y)  # ||z|| <= 1 and labels in {-1, +1}, checked once
        n, m = Z.shape
    plan = plan_logistic(n, m, epsilon, delta, n_steps=n_steps, margin=margin)
    _warn_large_delta(delta, n)
    loss = ClippedLogisticLoss(plan.clip)
    if isinstance(Z, EngineRecords):  # one backend pass per step, each block mapped where it lives
        oracle = MappedSample(Z.backend, Z.X, Z.y, Z.prepare, n, m).gradient_sum(loss)
    else:
        oracle = _InMemoryClippedSum(Z, y, loss)
    W = noisy_gd(
        None,
        None,
        loss,
        epsilon,
        delta,
        plan.n_steps,
        average="tail",
        step_size=plan.step_size,
        radius=plan.radius,
        l2=plan.l2,
        ledger=ledger,
        label="noisy gradient descent (clipped logistic loss)",
        rng=as_random_source(rng),
        gradient_sum=oracle,
    )
    w = W[0]
    details = {"variant": "logistic", **plan.details()}
    return MarginModel(coef=w.copy(), projected_coef=w, projection=None, details=details)
