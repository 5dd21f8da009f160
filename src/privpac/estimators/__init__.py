"""scikit-learn compatible estimators over privpac's learners, optimisers and sanitizers.

``MODELS`` maps the names used by ``privpac fit MODEL`` to estimator classes.
"""

from .base import CONSTANTS, PrivateClassifierBase, PrivateEstimatorBase
from .histogram import PrivateHistogram

MODELS: dict[str, type] = {
    "histogram": PrivateHistogram,
}

__all__ = [
    "CONSTANTS",
    "MODELS",
    "PrivateClassifierBase",
    "PrivateEstimatorBase",
    "PrivateHistogram",
]
