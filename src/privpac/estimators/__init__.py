"""scikit-learn compatible estimators over privpac's learners, optimisers and sanitizers.

``MODELS`` maps the names used by ``privpac fit MODEL`` to estimator classes.
"""

from .base import CONSTANTS, PrivateClassifierBase, PrivateEstimatorBase
from .center_point import PrivateCenterPoint
from .feasibility_halfspaces import PrivateFeasibilityHalfspaceClassifier
from .halfspace_tukey import PrivateTukeyHalfspaceClassifier
from .halfspaces import PrivateHalfspaceClassifier
from .histogram import PrivateHistogram
from .label_private import LabelPrivateClassifier
from .linear_feasibility import PrivateLinearFeasibility
from .median import PrivateMedian, coordinatewise_median, private_interior_point, private_median
from .point import PrivatePointClassifier
from .rectangles import PrivateRectangleClassifier
from .sanitizers import KPointSanitizer, PointSanitizer, ThresholdSanitizer
from .threshold import PrivateThresholdClassifier

MODELS: dict[str, type] = {
    "histogram": PrivateHistogram,
    "median": PrivateMedian,
    "point": PrivatePointClassifier,
    "rectangle": PrivateRectangleClassifier,
    "threshold": PrivateThresholdClassifier,
    "label-private": LabelPrivateClassifier,
    "san-points": PointSanitizer,
    "k-point": KPointSanitizer,
    "san-thresholds": ThresholdSanitizer,
    "halfspace-margin": PrivateHalfspaceClassifier,
    "center-point": PrivateCenterPoint,
    "linear-feasibility": PrivateLinearFeasibility,
    "halfspace-feasibility": PrivateFeasibilityHalfspaceClassifier,
    "halfspace-tukey": PrivateTukeyHalfspaceClassifier,
}

__all__ = [
    "CONSTANTS",
    "KPointSanitizer",
    "LabelPrivateClassifier",
    "MODELS",
    "PrivateCenterPoint",
    "PrivateClassifierBase",
    "PrivateEstimatorBase",
    "PrivateFeasibilityHalfspaceClassifier",
    "PrivateHalfspaceClassifier",
    "PrivateHistogram",
    "PrivateLinearFeasibility",
    "PrivateMedian",
    "PrivatePointClassifier",
    "PrivateRectangleClassifier",
    "PrivateThresholdClassifier",
    "PrivateTukeyHalfspaceClassifier",
    "private_interior_point",
    "coordinatewise_median",
    "private_median",
    "PointSanitizer",
    "ThresholdSanitizer",
]
