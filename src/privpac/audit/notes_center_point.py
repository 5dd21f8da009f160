"""The proof notes of the center points and halfspaces of Beimel, Moran, Nissim, Stemmer 2019 (FindTukey,
its baselines, LearnHalfSpace)."""

from __future__ import annotations

from ..geometry.directions import FINITE_DIRECTION_LIMIT
from ..learners.center_point import MAX_POINTS_2D, MAX_POINTS_3D
from ..learners.center_point import SUPPORTED_DIMENSIONS as TUKEY_DIMENSIONS
from .notes_common import BUDGET, REPLACE_ONE, ProofNote, note

__all__ = ["CENTER_POINT_NOTES"]

CENTER_POINT_NOTES: tuple[ProofNote, ...] = (
    # -- center points and halfspaces (BMNS) --------------------------------------------------------
    note(
        "privpac.optimize.coordinatewise.choose_coordinates",
        "the caller's: one sensitivity-1 quality per coordinate given the earlier outputs",
        "(epsilon, delta)-DP for the plan's composition: the d choices, adaptive, basic or advanced (DRV)",
        "basic or advanced composition of the per-coordinate exponential mechanism or RecConcave; the whole block "
        "charged before the data is read; the domains follow public bounds and earlier outputs only",
        caller=("each quality has sensitivity 1", "the candidate domains are public given the earlier outputs"),
        audits=("center-point", "center-point-directional", "linear-feasibility", "feasibility-candidates"),
    ),
    note(
        "privpac.learners.center_point.find_tukey",
        REPLACE_ONE,
        "(epsilon, delta)-DP exact rational point (pure epsilon-DP in exponential mode with basic composition)",
        "BMNS Fig. 1, Thm 3.6: the partial-assignment quality has sensitivity 1 (Obs 2.16, Lemma 3.4), computed "
        "exactly over public A3-rational domains; choose_coordinates composes the d choices. Tukey depth in "
        f"d in {set(TUKEY_DIMENSIONS)} (d = 2 up to MAX_POINTS_2D = {MAX_POINTS_2D:,} points, the regions as exact "
        f"polygons; d = 3 up to MAX_POINTS_3D = {MAX_POINTS_3D} points), directional depth over a public net in any d",
        checked=(
            BUDGET,
            "points in [-B, B]^d",
            f"the public size: n <= MAX_POINTS_2D = {MAX_POINTS_2D:,} in d = 2, within FINITE_DIRECTION_LIMIT = "
            f"{FINITE_DIRECTION_LIMIT:,} in d = 3 (refused from (n, d) before any point is read)",
            "delta > 0 for mode='recconcave' and composition='advanced'",
        ),
        audits=("center-point", "center-point-3d", "center-point-directional", "center-point-directional-4d"),
        errata=("E-BMNS1",),
    ),
    note(
        "privpac.learners.center_point_baselines.one_shot_center_point",
        REPLACE_ONE,
        "(epsilon, 0)-DP vertex of the public line arrangement",
        "BMNS footnote 1 (baseline B1): one exponential mechanism over every candidate vertex, quality the exact "
        "Tukey depth (sensitivity 1)",
        checked=("epsilon > 0", "d in {1, 2}", "points in [-B, B]^d", "the work within ONE_SHOT_WORK_LIMIT"),
        audits=("center-point-one-shot",),
    ),
    note(
        "privpac.estimators.median.coordinatewise_median",
        REPLACE_ONE,
        "(epsilon, delta)-DP point: a private median per coordinate",
        "private_median per column at epsilon/d (and delta/d), basic composition",
        checked=(BUDGET, "points in [-B, B]^d"),
        audits=("median",),
        tests=("tests/papers/bmns_center_points/test_center_point_baselines.py::test_the_median_per_coordinate_is_each_columns_private_median",),
    ),
    note(
        "privpac.learners.halfspace_tukey.learn_halfspace",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace",
        "BMNS Fig. 2, Thm 4.2: the records cut into chunks by position (public), one consistent halfspace per chunk "
        "(a record moves one chunk point), FindTukey on the chunk points",
        checked=(
            BUDGET,
            "points in [-B, B]^d",
            "labels in {0, 1}",
            f"Tukey depth in dimensions d + 1 in {set(TUKEY_DIMENSIONS)}; the chunk count within the envelope",
        ),
        audits=("halfspace-tukey",),
        errata=("E-BMNS3",),
    ),
    note(
        "privpac.learners.halfspace_tukey.aggregate_chunk_points",
        "replace-one on the chunk points (one record moves one chunk point)",
        "(epsilon, delta)-DP halfspace from the chunk points",
        "FindTukey on the multiset of chunk points (find_tukey's argument)",
        caller=("the chunk points come from position chunks, one point per chunk",),
        audits=("halfspace-tukey",),
    ),
    note(
        "privpac.learners.halfspace_tukey.generic_halfspace_learner",
        REPLACE_ONE,
        "(epsilon, 0)-DP halfspace of a public finite class",
        "BMNS section 4 (baseline B2): the exponential mechanism over one halfspace per cell, quality the correct "
        "count (sensitivity 1)",
        checked=("epsilon > 0", "the work within GENERIC_LIMIT"),
    ),
)
