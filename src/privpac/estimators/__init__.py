"""scikit-learn compatible estimators over privpac's learners, optimisers and sanitizers.

``MODELS`` maps the names used by ``privpac fit MODEL`` to estimator classes.
"""

from .base import CONSTANTS, PrivateClassifierBase, PrivateEstimatorBase
from .histogram import PrivateHistogram
from .label_private import LabelPrivateClassifier
from .sanitizers import KPointSanitizer, PointSanitizer, ThresholdSanitizer

MODELS: dict[str, type] = {
    "histogram": PrivateHistogram,
    "label-private": LabelPrivateClassifier,
    "san-points": PointSanitizer,
    "k-point": KPointSanitizer,
    "san-thresholds": ThresholdSanitizer,
}

__all__ = [
    "CONSTANTS",
    "KPointSanitizer",
    "LabelPrivateClassifier",
    "MODELS",
    "PrivateClassifierBase",
    "PrivateEstimatorBase",
    "PrivateHistogram",
    "PointSanitizer",
    "ThresholdSanitizer",
]
