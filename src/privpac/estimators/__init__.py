"""scikit-learn compatible estimators over privpac's learners, optimisers and sanitizers.

``MODELS`` maps the names used by ``privpac fit MODEL`` to estimator classes.
"""

from .base import CONSTANTS, PrivateClassifierBase, PrivateEstimatorBase
from .halfspaces import PrivateHalfspaceClassifier
from .histogram import PrivateHistogram

MODELS: dict[str, type] = {
    "histogram": PrivateHistogram,
    "halfspace-margin": PrivateHalfspaceClassifier,
}

__all__ = [
    "CONSTANTS",
    "MODELS",
    "PrivateClassifierBase",
    "PrivateEstimatorBase",
    "PrivateHalfspaceClassifier",
    "PrivateHistogram",
]
