"""The proof notes of the rectangle learners: RandMargins and the composition learner (Sadigurschi, Stemmer
2021) and the BNS box learner."""

from __future__ import annotations

from .notes_common import BUDGET, REPLACE_ONE, ProofNote, note, note_as

__all__ = ["RECTANGLE_NOTES"]

RECTANGLE_NOTES: tuple[ProofNote, ...] = (
    # -- rectangles ---------------------------------------------------------------------------------
    note(
        "privpac.learners.randmargins.randmargins",
        "replace-one (default), or add/remove (neighbours='add-remove', the paper's)",
        "(epsilon, delta)-DP box (the robust variant; variant='paper-literal' warns and is recorded as not private)",
        "Sadigurschi and Stemmer, Algorithm 1, Thm 3.2 with errata RM-R4, RM-R5 (dummies, sentinel, tie-break "
        "tags): window sizes drawn up front, each round an interior point of its window; replace-one from add/remove "
        "by group privacy (RM-N)",
        checked=(BUDGET, "delta > 0", "a pure interior point with calibration='paper' (RM-R8)"),
        audits=("randmargins", "randmargins-paper-literal"),
        tests=("tests/papers/ss_rectangles/test_rectangles_privacy.py::test_the_code_samples_the_law_the_engine_computes",),
        errata=("RM-R4", "RM-R5", "RM-R8", "RM-N"),
    ),
    note_as(
        "privpac.learners.randmargins.run_randmargins",
        "randmargins",
        ", for the plan given",
        checked=("the positives lie on the plan's grid",),
        caller=("the plan was built by plan_randmargins from public inputs",),
        audits=("randmargins",),
        errata=("RM-R4", "RM-R5"),
    ),
    note(
        "privpac.learners.rectangles_composition.rectangles_composition",
        REPLACE_ONE,
        "(epsilon, delta)-DP box",
        "Sadigurschi and Stemmer section 1.2 (algorithm B): one interior point per side on a public window of the "
        "positives' top values, padded publicly, composed (DRV advanced composition); no 'enough positives' test "
        "(RM-B)",
        checked=(BUDGET,),
        audits=("rectangle-composition",),
        errata=("RM-B",),
    ),
    note_as(
        "privpac.learners.rectangles_composition.run_composition",
        "rectangles_composition",
        ", for the plan given",
        caller=("the plan was built from public inputs",),
        audits=("rectangle-composition",),
    ),
    note_as(
        "privpac.learners.rectangles_composition.run_composition_tops",
        "rectangles_composition",
        ", from the exact top keys per direction (computed where the data lives)",
        caller=("the tops are the exact top keys of the positives",),
        audits=("rectangle-composition",),
    ),
    note(
        "privpac.learners.rectangles_bns.learn_rectangle_bns",
        REPLACE_ONE,
        "(epsilon, delta)-DP box (proper)",
        "BNS section 3.5 (R-CDF, reconstructed: E16): one SanThresholds per axis on the positives, composed; the "
        "box is read off the sanitized CDFs (post-processing)",
        checked=(BUDGET, "m meets SanThresholds' precondition on every axis (PreconditionError)"),
        audits=("rectangle-learner-bns",),
        errata=("E16",),
    ),
    note_as(
        "privpac.learners.rectangles_bns.learn_rectangle_bns_counted",
        "learn_rectangle_bns",
        ", from per-axis counts",
        checked=("one non-empty count table per axis",),
        audits=("rectangle-learner-bns",),
        errata=("E16",),
    ),
)
