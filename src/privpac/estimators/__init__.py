"""scikit-learn compatible estimators over privpac's learners, optimisers and sanitizers.

``MODELS`` maps the names used by ``privpac fit MODEL`` to estimator classes.
"""

from .base import CONSTANTS, PrivateClassifierBase, PrivateEstimatorBase
from .histogram import PrivateHistogram
from .median import PrivateMedian, private_interior_point, private_median
from .point import PrivatePointClassifier
from .rectangles import PrivateRectangleClassifier
from .threshold import PrivateThresholdClassifier

MODELS: dict[str, type] = {
    "histogram": PrivateHistogram,
    "median": PrivateMedian,
    "point": PrivatePointClassifier,
    "rectangle": PrivateRectangleClassifier,
    "threshold": PrivateThresholdClassifier,
}

__all__ = [
    "CONSTANTS",
    "MODELS",
    "PrivateClassifierBase",
    "PrivateEstimatorBase",
    "PrivateHistogram",
    "PrivateMedian",
    "PrivatePointClassifier",
    "PrivateRectangleClassifier",
    "PrivateThresholdClassifier",
    "private_interior_point",
    "private_median",
]
