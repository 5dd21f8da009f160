"""The proof notes of the sanitizers of Beimel, Nissim, Stemmer 2013 (points, thresholds, the reductions to
and from learning) and their baselines."""

from __future__ import annotations

from .notes_common import BUDGET, REPLACE_ONE, ProofNote, note

__all__ = ["SANITIZER_NOTES"]

SANITIZER_NOTES: tuple[ProofNote, ...] = (
    # -- sanitizers ---------------------------------------------------------------------------------
    note(
        "privpac.sanitizers.points.san_points",
        REPLACE_ONE,
        "(epsilon, delta)-DP weighted database answering point queries",
        "BNS Fig. 9, Thm 4.6: rounds of the choosing mechanism and a Laplace count, composed (advanced composition, "
        "calibrated explicitly)",
        checked=(BUDGET, "m >= the choosing precondition (PreconditionError; erratum E18)"),
        audits=("san-points", "k-point", "san-points-below-precondition"),
        errata=("E5", "E6", "E18"),
    ),
    note(
        "privpac.sanitizers.thresholds.san_thresholds",
        REPLACE_ONE,
        "(epsilon, delta)-DP weighted database answering threshold queries",
        "BNS Fig. 11, Lemma 4.8: at most 4 mechanisms per call (two Laplace counts, RecConcave, the choosing "
        "mechanism), at most c calls, advanced composition",
        checked=(BUDGET, "m >= the choosing precondition at accuracy alpha/64, growth 2 (PreconditionError)"),
        audits=("san-thresholds", "rectangle-learner-bns"),
        errata=("E7", "E8", "E9", "E10", "E11", "E18"),
    ),
    note(
        "privpac.sanitizers.baselines.dense_histogram_sanitizer",
        REPLACE_ONE,
        "(epsilon, 0)-DP histogram of every domain point",
        "the Laplace mechanism on a histogram (L1 sensitivity 2: discrete Laplace of scale 2/epsilon)",
        checked=("epsilon > 0", "domain size at most max_size"),
        audits=("histogram",),
        tests=("tests/papers/bns_pure_vs_approx/test_sanitizers.py::test_dense_histogram_sanitizer",),
    ),
    note(
        "privpac.sanitizers.pure.blr_sanitizer",
        REPLACE_ONE,
        "(epsilon, 0)-DP synthetic database of a tiny domain",
        "BNS Thm 2.19 (Blum, Ligett, Roth): the exponential mechanism over every database of output_size records, "
        "scored by the largest query error (sensitivity 1/m)",
        checked=("epsilon > 0", "at most max_candidates candidate databases"),
        tests=("tests/papers/bns_pure_vs_approx/test_sanitizers.py::test_blr_sanitizer_exact_privacy_and_accuracy",),
    ),
    note(
        "privpac.sanitizers.reductions.amplify",
        REPLACE_ONE,
        "(epsilon, delta)-DP when `base` is: a sanitized database of q blocks",
        "BNS Lemma 5.1: the base sanitizer on disjoint blocks (parallel composition); the record order is shuffled "
        "first with public randomness (erratum E17)",
        checked=("block_size and output_size >= 1",),
        caller=("`base` is an (epsilon, delta)-DP sanitizer on block_size records",),
        tests=("tests/papers/bns_pure_vs_approx/test_reductions_label_private.py::test_padding_and_truncation_keep_neighbours_neighbours",),
        errata=("E17",),
    ),
    note(
        "privpac.sanitizers.reductions.label_class_sanitizer",
        REPLACE_ONE,
        "(epsilon, delta)-DP sanitizer of the labelled database for C^label",
        "BNS Lemma 5.4, Fig. 12 (Algorithm B): the base sanitizer on each label's part, padded and truncated to "
        "public sizes so that neighbours stay neighbours (erratum E17)",
        checked=("block sizes and output sizes >= 1",),
        caller=("`base` is an (epsilon, delta)-DP sanitizer",),
        tests=("tests/papers/bns_pure_vs_approx/test_reductions_label_private.py::test_padding_and_truncation_keep_neighbours_neighbours",),
        errata=("E17",),
    ),
    note(
        "privpac.sanitizers.reductions.learn_from_sanitizer",
        REPLACE_ONE,
        "(epsilon, delta)-DP hypothesis",
        "BNS Thm 5.5: label_class_sanitizer, then non-private ERM on its release (post-processing)",
        checked=(BUDGET,),
        caller=("`base` is an (epsilon/6, delta/2)-DP sanitizer on block_size records",),
        tests=("tests/papers/bns_pure_vs_approx/test_reductions_label_private.py::test_learn_from_sanitizer_end_to_end",),
        errata=("E17",),
    ),
)
