"""Private optimisers: interior points, RecConcave and the high-dimensional optimisers."""

from .interior_point import (
    ExponentialInteriorPoint,
    InteriorPoint,
    RecConcaveInteriorPoint,
    interior_point_quality,
)
from .recconcave import RecConcaveResult, rec_concave, rec_concave_run
from .recconcave_plan import (
    BASE_CASE_MAX,
    RecConcavePlan,
    levels,
    log_star,
    plan_rec_concave,
    required_quality,
)

__all__ = [
    "BASE_CASE_MAX",
    "ExponentialInteriorPoint",
    "InteriorPoint",
    "RecConcaveInteriorPoint",
    "RecConcavePlan",
    "RecConcaveResult",
    "interior_point_quality",
    "levels",
    "log_star",
    "plan_rec_concave",
    "rec_concave",
    "rec_concave_run",
    "required_quality",
]
