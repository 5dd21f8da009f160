"""Private optimisers: interior points, RecConcave and the high-dimensional optimisers."""

from .interior_point import ExponentialInteriorPoint, InteriorPoint, interior_point_quality

__all__ = ["ExponentialInteriorPoint", "InteriorPoint", "interior_point_quality"]
