"""Sample-size calculators: every theorem's stated and tight bound, and every lower bound.

Use :func:`evaluate_bound` or ``privpac bounds NAME``; :func:`list_bounds` lists them.
"""

from .generalization import dkw_threshold_sample_size, realizable_sample_size, uniform_convergence_sample_size
from .registry import Bound, evaluate_bound, get_bound, list_bounds, register_bound

__all__ = [
    "Bound",
    "dkw_threshold_sample_size",
    "evaluate_bound",
    "get_bound",
    "list_bounds",
    "realizable_sample_size",
    "register_bound",
    "uniform_convergence_sample_size",
]
