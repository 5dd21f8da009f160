"""The proof notes of every estimator's ``fit``: the claim and argument per class, over the learners and
sanitizers whose notes sit beside this module, with the checks each estimator adds read from the code."""

from __future__ import annotations

from ..learners.center_point import FIND_TUKEY_DIMENSIONS as TUKEY_DIMENSIONS
from ..learners.center_point import MAX_POINTS_2D, MAX_POINTS_3D
from ..learners.linear_feasibility import FIND_DEEP_POINT_DIMENSIONS as FEASIBILITY_DIMENSIONS
from ..learners.linear_feasibility import MAX_CONSTRAINTS_3D
from .notes_common import BUDGET, DOMAIN, REPLACE_ONE, ProofNote

__all__ = ["estimator_notes"]

_ESTIMATOR_NOTES = {
    "PrivateHistogram": (
        "(epsilon, 0)-DP noisy counts over public bins",
        "the Laplace mechanism, L1 sensitivity 2 (a moved record changes two bins)",
        ("histogram",),
        (),
    ),
    "PrivateMedian": (
        "(epsilon, delta)-DP median (pure with method='exponential')",
        "as private_median",
        ("median",),
        (),
    ),
    "PrivatePointClassifier": (
        "(epsilon, delta)-DP point function; pure epsilon-DP with method='exponential'",
        "learn_point (A_dist) or em_learn_points",
        ("point-learner", "exponential-learner"),
        ("E1",),
    ),
    "PrivateThresholdClassifier": (
        "(epsilon, delta)-DP threshold and orientation; pure epsilon-DP with method='exponential'",
        "learn_thresholds (RecConcave) after choose_orientation at ORIENTATION_SHARE of epsilon when the "
        "orientation is learned, or em_learn_oriented_thresholds / em_learn_thresholds; method 'auto' reads public "
        "inputs only",
        ("threshold-learner", "exponential-learner", "exponential-learner-grouped"),
        ("E14", "E15"),
    ),
    "PrivateRectangleClassifier": (
        "(epsilon, delta)-DP box",
        "randmargins, rectangles_composition or learn_rectangle_bns, by method",
        ("randmargins", "rectangle-composition", "rectangle-learner-bns"),
        ("RM-R4", "RM-N"),
    ),
    "LabelPrivateClassifier": (
        "(epsilon, 0)-label-private hypothesis; with X_public, (epsilon, 0)-DP for whole labelled records",
        "label_private_from_oracles or semi_private_from_oracles",
        ("label-private", "semi-private"),
        (),
    ),
    "PointSanitizer": ("(epsilon, delta)-DP sanitized database", "san_points", ("san-points",), ("E18",)),
    "KPointSanitizer": (
        "(epsilon, delta)-DP sanitized database",
        "san_points at alpha/k (BNS Fig. 10)",
        ("k-point",),
        ("E18",),
    ),
    "ThresholdSanitizer": ("(epsilon, delta)-DP sanitized database", "san_thresholds", ("san-thresholds",), ("E18",)),
    "PrivateHalfspaceClassifier": (
        "(epsilon, delta)-DP halfspace ((epsilon, 0) for variant='pure')",
        "learn_logistic (the default), learn_margin_practical, learn_margin_faithful or learn_margin_pure, by variant",
        ("halfspace-logistic", "margin-practical", "margin-faithful", "margin-pure", "margin-boosted-selection"),
        ("E-NUZ1",),
    ),
    "PrivateCenterPoint": (
        "(epsilon, delta)-DP center point (pure in exponential mode with basic composition)",
        "find_tukey",
        (
            "center-point",
            "center-point-grid",
            "center-point-3d",
            "center-point-directional",
            "center-point-directional-4d",
        ),
        ("E-BMNS1",),
    ),
    "PrivateLinearFeasibility": (
        "(epsilon, delta)-DP point of the system",
        "find_deep_point (candidates given or drawn before the data is read, independently of it)",
        ("linear-feasibility", "linear-feasibility-3d", "feasibility-candidates", "feasibility-candidates-4d"),
        ("E-KMST5",),
    ),
    "PrivateFeasibilityHalfspaceClassifier": (
        "(epsilon, delta)-DP halfspace",
        "learn_halfspace (KMST)",
        ("halfspace-feasibility", "feasibility-candidates"),
        ("E-KMST9", "E-KMST10"),
    ),
    "PrivateTukeyHalfspaceClassifier": (
        "(epsilon, delta)-DP halfspace",
        "learn_halfspace (BMNS LearnHalfSpace)",
        ("halfspace-tukey",),
        ("E-BMNS3",),
    ),
}


def _estimator_checks() -> dict[str, tuple[str, ...]]:
    """What each estimator checks beyond the common checks, with the constants read from the code."""
    from ..estimators.center_point import ENGINE_MAX_POINTS
    from ..estimators.rectangles import RECTANGLE_METHODS
    from ..estimators.threshold import ORIENTATION_SHARE

    return {
        "PrivateThresholdClassifier": (
            f"orientation='auto' with RecConcave spends ORIENTATION_SHARE = {ORIENTATION_SHARE} of epsilon on the "
            "orientation",
        ),
        "PrivateCenterPoint": (
            f"d in {set(TUKEY_DIMENSIONS)} in Tukey depth, d = 2 for n <= MAX_POINTS_2D = {MAX_POINTS_2D:,}, d = 3 for "
            f"n <= MAX_POINTS_3D = {MAX_POINTS_3D}, any d in "
            f"directional depth; on Dask or Spark at most ENGINE_MAX_POINTS = {ENGINE_MAX_POINTS} points by "
            "dimension; all refused from the public shape before a point is read",
        ),
        "PrivateLinearFeasibility": (
            f"D in {set(FEASIBILITY_DIMENSIONS)} (D = 3 up to MAX_CONSTRAINTS_3D = {MAX_CONSTRAINTS_3D} constraints), "
            "any D over public candidates; refused from the public shape before a row is read",
        ),
        "PrivateFeasibilityHalfspaceClassifier": (
            f"d + 1 in {set(FEASIBILITY_DIMENSIONS)} for the exact oracle, any d over public candidates",
        ),
        "PrivateTukeyHalfspaceClassifier": (
            f"d + 1 in {set(TUKEY_DIMENSIONS)} in Tukey depth, any d in directional depth",
        ),
        "PrivateRectangleClassifier": (
            "delta > 0 for method in "
            f"{sorted(name for name, method in RECTANGLE_METHODS.items() if method.requires_delta)}",
        ),
    }


def estimator_notes() -> tuple[ProofNote, ...]:
    from sklearn.base import ClassifierMixin

    from ..estimators import MODELS

    extra = _estimator_checks()
    out = []
    for cls in MODELS.values():
        claim, argument, audits, errata = _ESTIMATOR_NOTES[cls.__name__]
        if cls.__name__ == "LabelPrivateClassifier":
            neighbours = "one label replaced (label privacy); with X_public, one labelled record replaced"
        else:
            neighbours = REPLACE_ONE
        checked = (BUDGET, DOMAIN, "no missing values or text")
        if issubclass(cls, ClassifierMixin):
            checked += ("labels in the public label set",)
        out.append(
            ProofNote(
                f"privpac.estimators.{cls.__name__}.fit",
                neighbours,
                claim + "; everything the fit releases (attributes, ledger, summary, saved JSON, warnings) is a "
                "function of the public inputs and this output",
                argument + "; the budget reserved with the accountant before any noise",
                checked + extra.get(cls.__name__, ()),
                (),
                audits,
                (),
                errata,
            )
        )
    return tuple(out)
