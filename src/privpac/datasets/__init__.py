"""Bundled real data and synthetic realizable distributions.

Every loader and generator returns data together with a *public* domain, fixed a priori from
what the data measures (or from the generator's parameters), never from the data itself.
"""

from .real import BREAST_CANCER_BOUNDS, Dataset, load_breast_cancer_feature
from .rectangles import RectangleDataset, RectangleDistribution, make_rectangle_distribution, make_rectangles

__all__ = [
    "BREAST_CANCER_BOUNDS",
    "Dataset",
    "RectangleDataset",
    "RectangleDistribution",
    "load_breast_cancer_feature",
    "make_rectangle_distribution",
    "make_rectangles",
]
