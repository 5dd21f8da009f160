"""Bundled real data and synthetic realizable distributions.

Every loader and generator returns data together with a *public* domain, fixed a priori from
what the data measures (or from the generator's parameters), never from the data itself.
"""

from .grid_halfspaces import grid_halfspace_target, make_grid_halfspace_data
from .margin import load_digits_pair, make_margin_data, margin_direction
from .real import (
    BREAST_CANCER_BOUNDS,
    BREAST_CANCER_DOCUMENTED_RANGES,
    WINE_DOCUMENTED_RANGES,
    Dataset,
    documented_range,
    load_breast_cancer_feature,
    load_breast_cancer_features,
)
from .rectangles import RectangleDataset, RectangleDistribution, make_rectangle_distribution, make_rectangles

__all__ = [
    "BREAST_CANCER_BOUNDS",
    "BREAST_CANCER_DOCUMENTED_RANGES",
    "WINE_DOCUMENTED_RANGES",
    "Dataset",
    "documented_range",
    "RectangleDataset",
    "RectangleDistribution",
    "load_breast_cancer_feature",
    "load_breast_cancer_features",
    "grid_halfspace_target",
    "load_digits_pair",
    "make_grid_halfspace_data",
    "make_margin_data",
    "make_rectangle_distribution",
    "make_rectangles",
    "margin_direction",
]
