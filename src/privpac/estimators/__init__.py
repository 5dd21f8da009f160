"""scikit-learn compatible estimators over privpac's learners, optimisers and sanitizers.

``MODELS`` maps the names used by ``privpac fit MODEL`` to estimator classes.
"""

from ..exports import lazy_exports

#: ``privpac fit MODEL``: each model's name and the name of its class (``MODELS`` maps the names to the
#: classes; ``privpac fit --help`` reads this table from the source).
MODEL_CLASSES = {
    "histogram": "PrivateHistogram",
    "median": "PrivateMedian",
    "point": "PrivatePointClassifier",
    "rectangle": "PrivateRectangleClassifier",
    "threshold": "PrivateThresholdClassifier",
    "label-private": "LabelPrivateClassifier",
    "san-points": "PointSanitizer",
    "k-point": "KPointSanitizer",
    "san-thresholds": "ThresholdSanitizer",
    "halfspace-margin": "PrivateHalfspaceClassifier",
    "center-point": "PrivateCenterPoint",
    "linear-feasibility": "PrivateLinearFeasibility",
    "halfspace-feasibility": "PrivateFeasibilityHalfspaceClassifier",
    "halfspace-tukey": "PrivateTukeyHalfspaceClassifier",
}

# Imported on first use (privpac.exports): a worker that unpickles one kernel imports its module only,
# not scikit-learn and every estimator.
_exported, _names, __all__ = lazy_exports(
    __name__,
    {
        "base": ("CONSTANTS", "PrivateClassifierBase", "PrivateEstimatorBase"),
        "center_point": ("PrivateCenterPoint",),
        "feasibility_halfspaces": ("PrivateFeasibilityHalfspaceClassifier",),
        "halfspace_tukey": ("PrivateTukeyHalfspaceClassifier",),
        "halfspaces": ("PrivateHalfspaceClassifier",),
        "histogram": ("PrivateHistogram",),
        "label_private": ("LabelPrivateClassifier",),
        "linear_feasibility": ("PrivateLinearFeasibility",),
        "median": ("PrivateMedian", "coordinatewise_median", "private_interior_point", "private_median"),
        "point": ("PrivatePointClassifier",),
        "rectangles": ("PrivateRectangleClassifier",),
        "sanitizers": ("KPointSanitizer", "PointSanitizer", "ThresholdSanitizer"),
        "threshold": ("PrivateThresholdClassifier",),
    },
)
__all__ = [*__all__, "MODELS", "MODEL_CLASSES"]


def __getattr__(name: str):
    if name == "MODELS":  # model name -> estimator class, every estimator imported once
        models = {model: _exported(cls) for model, cls in MODEL_CLASSES.items()}
        return globals().setdefault("MODELS", models)
    return _exported(name)


def __dir__() -> list[str]:
    return sorted({*_names(), "MODELS"})
