"""How many records privpac's learners were measured to need: the figures behind utility warnings.

The proven sample bounds of the papers are loose (a factor 3 to 10 at the sizes users have), so an
estimator warns from what the benchmarks measured instead: the smallest ``n`` at which the learner
reached its accuracy target in 90% of runs (``benchmarks/results``), scaled to the caller's
``epsilon`` and ``alpha`` by the theorems' ``1/(epsilon alpha)`` dependence. Every function here
reads public inputs only (the domain, the budget, the accuracy targets, the margin), never data,
so a warning built on it is a function of public inputs.
"""

from __future__ import annotations

import math

from ..validation import check_choice

__all__ = [
    "threshold_records",
    "halfspace_records",
    "box_records",
    "MEASURED_AT",
    "THRESHOLD_METHODS",
    "MEASURED_RECCONCAVE_N",
]

#: The threshold learners measured, by the threshold classifier's name for them (its ``method_``).
THRESHOLD_METHODS = ("exponential", "recconcave")
#: The setting of the threshold measurements (benchmarks/thresholds.py).
MEASURED_AT = {"epsilon": 1.0, "delta": 1e-6, "alpha": 0.05, "beta": 0.1}

# (log2 |X|, smallest n): benchmarks/results/thresholds_sample_complexity.csv
_THRESHOLD_EXPONENTIAL = ((8, 39), (16, 75), (32, 146), (64, 285), (256, 1085), (4096, 15778), (65536, 229589))
#: The recursion depth bound of the measured RecConcave rows ("LearnThresholds N=2 tuned"): the
#: threshold classifier's ``method="auto"`` runs RecConcave with it, so the table describes the run.
MEASURED_RECCONCAVE_N = 2
_THRESHOLD_RECCONCAVE = ((8, 285), (16, 285), (32, 356), (64, 356), (256, 356), (4096, 356), (65536, 445))


def _interpolate(table, bits: float) -> float:
    """Piecewise linear in ``log2 |X|`` (the exponential mechanism's need grows linearly in it)."""
    if bits <= table[0][0]:
        return float(table[0][1])
    for (b0, n0), (b1, n1) in zip(table, table[1:]):
        if bits <= b1:
            return n0 + (n1 - n0) * (bits - b0) / (b1 - b0)
    (b0, n0), (b1, n1) = table[-2], table[-1]
    return n1 + (n1 - n0) * (bits - b1) / (b1 - b0)


def threshold_records(method: str, domain_size: int, epsilon: float, alpha: float) -> int:
    """Records a threshold learner needs for error ``alpha`` in 90% of runs (measured at ``alpha = 0.05``).

    ``method`` is ``"exponential"`` (the exponential mechanism, growing with ``log |X|``; called
    ``"em"`` before, which is refused with the new name) or ``"recconcave"`` (LearnThresholds, nearly
    flat in ``|X|``).
    """
    method = check_choice(method, "method", THRESHOLD_METHODS, renamed={"em": "exponential"})
    table = _THRESHOLD_EXPONENTIAL if method == "exponential" else _THRESHOLD_RECCONCAVE
    bits = math.log2(max(int(domain_size), 2))
    scale = (MEASURED_AT["epsilon"] / epsilon) * (MEASURED_AT["alpha"] / alpha)
    return math.ceil(_interpolate(table, bits) * scale)


def halfspace_records(margin: float, epsilon: float, alpha: float) -> int:
    """Records the practical large-margin learner needs for error ``alpha`` (cosine margin ``margin``).

    benchmarks/results/large_margin_n_for_5pct.csv: 5% error from about 111 records at margin 0.3,
    1,000 at 0.1 and 4,000 at 0.05 (epsilon = 1): about ``10 / margin^2``, scaled by
    ``(0.05 / alpha) / epsilon``.
    """
    return math.ceil(10.0 / margin**2 * (0.05 / alpha) / epsilon)


#: Measured records over the sufficient size of spec 5.2 (benchmarks/results/rectangles.csv).
_BOX_MEASURED_OVER_BOUND = {"composition": 0.30, "randmargins": 0.42}


def box_records(method: str, sufficient: int) -> int:
    """Records a box learner needs, from the sufficient size of its plan and the measured ratio."""
    return math.ceil(_BOX_MEASURED_OVER_BOUND[method] * sufficient)
