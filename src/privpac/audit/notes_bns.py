"""The proof notes of the median functions and of the learners of Beimel, Nissim, Stemmer 2013 (point
functions, thresholds, the exponential-mechanism learners, label-private and semi-private learners)."""

from __future__ import annotations

from .notes_common import ADD_REMOVE, BUDGET, DOMAIN, REPLACE_ONE, ProofNote, note, note_as

__all__ = ["BNS_NOTES"]

BNS_NOTES: tuple[ProofNote, ...] = (
    # -- the median functions -----------------------------------------------------------------------
    note(
        "privpac.estimators.median.private_median",
        REPLACE_ONE,
        "(epsilon, delta)-DP point of the domain near the median (pure epsilon-DP with the exponential mechanism)",
        "RecConcave or the exponential mechanism on min(#{v <= y}, #{v >= y}) (sensitivity 1) with the public promise "
        "ceil(m/2); composed through the accountant",
        checked=(BUDGET, DOMAIN, "at least one record"),
        audits=("median",),
    ),
    note(
        "privpac.estimators.median.private_interior_point",
        ADD_REMOVE,
        "(epsilon, delta)-DP point between the smallest and the largest value, for any input size including 0",
        "the interior-point plug-ins (ExponentialInteriorPoint, RecConcaveInteriorPoint)",
        checked=(BUDGET, DOMAIN),
        audits=("interior-point", "interior-point-exponential"),
    ),
    # -- BNS learners -------------------------------------------------------------------------------
    note(
        "privpac.learners.point.learn_point",
        REPLACE_ONE,
        "(epsilon, delta)-DP point function (or the all-zero hypothesis with on_bottom='zero')",
        "BNS Lemma 3.2: A_dist (corrected) on the positive counts (sensitivity 1), the fallback drawn independently "
        "of the data",
        checked=(BUDGET, "delta > 0", "labels in {0, 1}, indices in [0, size - 1]"),
        audits=("point-learner", "point-learner-paper-literal"),
        errata=("E1", "E13"),
    ),
    note(
        "privpac.learners.thresholds.learn_thresholds",
        REPLACE_ONE,
        "(epsilon, delta)-DP threshold",
        "BNS Thm 3.18: RecConcave on the threshold quality Q(j) = #{i : [x_i < j] == y_i} (sensitivity 1, "
        "quasi-concave on realisable samples)",
        checked=(BUDGET, "delta > 0 when RecConcave recurses"),
        audits=("threshold-learner",),
        errata=("E14", "E15"),
    ),
    note(
        "privpac.learners.exponential.em_learner",
        REPLACE_ONE,
        "(epsilon, 0)-DP index of a hypothesis of a public finite class",
        "the exponential mechanism on the number of records a hypothesis labels correctly (sensitivity 1); "
        "Kasiviswanathan et al. 2008",
        checked=("epsilon > 0", "predictions of shape (|H|, m), labels in {0, 1}"),
        audits=("exponential-learner",),
    ),
    note(
        "privpac.learners.exponential.em_learn_thresholds",
        REPLACE_ONE,
        "(epsilon, 0)-DP threshold of one orientation",
        "the exponential mechanism over every threshold, drawn range by range (exponential_mechanism_grouped)",
        checked=("epsilon > 0",),
        audits=("exponential-learner", "exponential-learner-grouped"),
    ),
    note(
        "privpac.learners.exponential.em_learn_oriented_thresholds",
        REPLACE_ONE,
        "(epsilon, 0)-DP threshold and orientation",
        "one exponential mechanism over the 2 (size + 1) thresholds of both orientations (sensitivity 1)",
        checked=("epsilon > 0",),
        audits=("exponential-learner", "exponential-learner-grouped"),
    ),
    note(
        "privpac.learners.exponential.choose_orientation",
        REPLACE_ONE,
        "(epsilon, 0)-DP orientation",
        "the exponential mechanism over the two orientations scored by their best threshold's correct count, a "
        "maximum of sensitivity-1 counts",
        checked=("epsilon > 0",),
        audits=("threshold-learner",),
    ),
    note(
        "privpac.learners.exponential.em_learn_points",
        REPLACE_ONE,
        "(epsilon, 0)-DP point function",
        "the exponential mechanism over every point function, drawn range by range",
        checked=("epsilon > 0",),
        audits=("exponential-learner", "exponential-learner-grouped"),
    ),
    note(
        "privpac.learners.label_private.label_private_learner",
        "one label replaced (label privacy; the points are public)",
        "(epsilon, 0)-label-private hypothesis",
        "BNS Fig. 13, Thm 6.2: H from the points of S1 (labels ignored), the exponential mechanism over H scored on "
        "the labels of S2 (sensitivity 1 in one label)",
        checked=("epsilon > 0", "labels in {0, 1}"),
        audits=("label-private",),
    ),
    note_as(
        "privpac.learners.label_private.label_private_from_oracles",
        "label_private_learner",
        " (the sample read through two exact oracles)",
        checked=("epsilon > 0",),
        caller=("the oracles return the exact head points and scores of the sample",),
        audits=("label-private",),
    ),
    note(
        "privpac.learners.label_private.semi_private_learner",
        REPLACE_ONE + " (whole labelled records; the unlabelled points are public)",
        "(epsilon, 0)-DP hypothesis",
        "BNS section 6.2: H from the public points only, the exponential mechanism over H scored on the labelled "
        "records (sensitivity 1 in one record)",
        checked=("epsilon > 0", "a non-empty public sample"),
        audits=("semi-private",),
    ),
    note_as(
        "privpac.learners.label_private.semi_private_from_oracles",
        "semi_private_learner",
        " (the labelled records read through one exact oracle)",
        checked=("epsilon > 0",),
        caller=("the oracle returns the exact scores",),
        audits=("semi-private",),
    ),
)
