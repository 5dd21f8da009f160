"""The proof notes of linear feasibility and halfspaces of Kaplan, Mansour, Stemmer, Tsfadia 2020
(FindDeepPoint, the halfspace learner over it)."""

from __future__ import annotations

from ..learners.feasibility_candidates import MAX_CANDIDATE_WORK
from ..learners.linear_feasibility import MAX_CONSTRAINTS_3D, MAX_DISTINCT_ROWS_2D
from ..learners.linear_feasibility import SUPPORTED_DIMENSIONS as FEASIBILITY_DIMENSIONS
from .notes_common import BUDGET, REPLACE_ONE, ProofNote, note, note_as

__all__ = ["FEASIBILITY_NOTES"]

FEASIBILITY_NOTES: tuple[ProofNote, ...] = (
    # -- linear feasibility and halfspaces (KMST) ---------------------------------------------------
    note(
        "privpac.learners.linear_feasibility.find_deep_point",
        REPLACE_ONE + " (one constraint replaced, m public)",
        "(epsilon, delta)-DP exact rational point (pure with the exponential mechanism)",
        "KMST Fig. 1-2, Thm 4.6 with the corrections of spec 3.7 and 6.2: the level quality has sensitivity 1, "
        f"computed exactly; choose_coordinates composes D in {set(FEASIBILITY_DIMENSIONS)} choices (D = 2 up to "
        f"MAX_DISTINCT_ROWS_2D = {MAX_DISTINCT_ROWS_2D:,} distinct rows, D = 3 up to MAX_CONSTRAINTS_3D = "
        f"{MAX_CONSTRAINTS_3D} constraints); over public candidates (spec 6.5 option 1) the work is within "
        f"MAX_CANDIDATE_WORK = {MAX_CANDIDATE_WORK:,}",
        checked=(BUDGET, "integer rows in [-X, X]", "the public size within the envelopes (refused before reading)"),
        audits=("linear-feasibility", "linear-feasibility-3d", "feasibility-candidates", "feasibility-candidates-4d"),
        errata=("E-KMST5",),
    ),
    note_as(
        "privpac.learners.linear_feasibility.run_find_deep_point",
        "find_deep_point",
        ", for the plan given",
        caller=("the plan was built from public inputs", "levels_of returns the exact levels of the data"),
        audits=("linear-feasibility", "feasibility-candidates"),
    ),
    note(
        "privpac.learners.feasibility_halfspaces.learn_halfspace",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace (pure with the exponential mechanism)",
        "KMST Fig. 3, Thm 5.1 (ERM) and Thm 5.2 (PAC): one record is one dual constraint, so FindDeepPoint's "
        "argument applies; the PAC learner's per-record noise is coupled between neighbours",
        checked=(BUDGET, "integer points in [-grid, grid]^d", "labels in {-1, 1}"),
        audits=("halfspace-feasibility", "feasibility-candidates"),
        errata=("E-KMST9", "E-KMST10"),
    ),
)
