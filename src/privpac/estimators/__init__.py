"""scikit-learn compatible estimators over privpac's learners, optimisers and sanitizers.

``MODELS`` maps the names used by ``privpac fit MODEL`` to estimator classes.
"""

from .base import CONSTANTS, PrivateClassifierBase, PrivateEstimatorBase
from .histogram import PrivateHistogram
from .rectangles import PrivateRectangleClassifier

MODELS: dict[str, type] = {
    "histogram": PrivateHistogram,
    "rectangle": PrivateRectangleClassifier,
}

__all__ = [
    "CONSTANTS",
    "MODELS",
    "PrivateClassifierBase",
    "PrivateEstimatorBase",
    "PrivateHistogram",
    "PrivateRectangleClassifier",
]
