"""A proof note for every function that releases something: neighbours, claim, argument, checks, audits.

OpenDP ties every constructor to a written privacy argument; privpac keeps one note per release
function here (every estimator's ``fit``, the public mechanisms, optimisers, learners and
sanitizers), in one place from which docs/privacy/notes.md is generated
(``python -m privpac.audit.docs``). A note holds:

* ``neighbours``: the neighbouring relation the claim is about;
* ``claim``: the guarantee, and what is released;
* ``argument``: the theorem or the argument it rests on (the module docstrings hold the proofs);
* ``checked``: the preconditions the code checks (it raises before any noise otherwise);
* ``caller``: what the caller must guarantee (not checked: a sensitivity, a public argument);
* ``audits``: the registered audits (``privpac audit NAME``) that check the claim through this
  function or through an entry point that calls it; ``tests``: tests that check it exactly;
* ``errata``: the entries of docs/errata.md the function's correctness depends on.

Facts that can drift (supported dimensions, envelopes, defaults) are read from the code when the
page is generated: the texts below interpolate the constants, and the page prints every
function's signature with its defaults. ``tests/test_proof_notes.py`` checks that every release
function has a note, that every audit, test and erratum a note cites exists, that the generated
page is the committed one, and that the docs state the constants the code holds.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass

from ..geometry.directions import FINITE_DIRECTION_LIMIT
from ..learners.center_point import MAX_POINTS_2D, MAX_POINTS_3D
from ..learners.center_point import SUPPORTED_DIMENSIONS as TUKEY_DIMENSIONS
from ..learners.feasibility_candidates import MAX_CANDIDATE_WORK
from ..learners.linear_feasibility import MAX_CONSTRAINTS_3D, MAX_DISTINCT_ROWS_2D
from ..learners.linear_feasibility import SUPPORTED_DIMENSIONS as FEASIBILITY_DIMENSIONS
from ..optimize.recconcave_plan import BASE_CASE_MAX

__all__ = ["ProofNote", "NOTES", "resolve", "release_functions", "notes_page"]

REPLACE_ONE = "replace-one: one record replaced, the number of records public"
ADD_REMOVE = "add/remove one value, and replace-one (the size is not used)"
SCORES = "scores (or a quality) that move by at most the sensitivity between the caller's neighbours"


@dataclass(frozen=True)
class ProofNote:
    """The privacy note of one release function (module docstring)."""

    function: str
    neighbours: str
    claim: str
    argument: str
    checked: tuple[str, ...] = ()
    caller: tuple[str, ...] = ()
    audits: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    errata: tuple[str, ...] = ()


def _n(function, neighbours, claim, argument, **kw) -> ProofNote:
    return ProofNote(function, neighbours, claim, argument, **{k: tuple(v) for k, v in kw.items()})


_BUDGET = "epsilon > 0, delta in [0, 1/2), within the ledger's (or accountant's) budget before any noise"
_DOMAIN = "the public domain is given (never read off the data); every record lies in it"

NOTES: tuple[ProofNote, ...] = (
    # -- mechanisms -------------------------------------------------------------------------------
    _n(
        "privpac.mechanisms.laplace.laplace_mechanism",
        "the caller's: an integer query (or vector) of L1 sensitivity `sensitivity`",
        "(epsilon, 0)-DP release of the query plus discrete Laplace noise of scale sensitivity/epsilon",
        "discrete Laplace mechanism (Canonne, Kamath, Steinke 2020), sampled exactly; BNS Thm 2.24",
        checked=("epsilon > 0", "integer query values"),
        caller=("the query's L1 sensitivity is at most `sensitivity`",),
        audits=("laplace", "histogram"),
    ),
    _n(
        "privpac.mechanisms.exponential.exponential_mechanism",
        f"the caller's: {SCORES}",
        "(epsilon, 0)-DP choice of an index, probability proportional to 2^(eta score) with eta = epsilon / "
        "(2 ln 2 sensitivity) rounded down to a rational (stated in the ledger), sampled exactly",
        "McSherry and Talwar 2007; BNS Prop 2.25 (weights and normaliser each move by at most e^(epsilon/2)); the "
        "base-2 form and exact sampling of Ilvento (CCS 2020): rounding eta down only lowers the privacy loss",
        checked=("epsilon > 0", "finite scores"),
        caller=("every score has sensitivity at most `sensitivity`", "the candidate list is public"),
        audits=("exponential", "label-private", "margin-pure"),
    ),
    _n(
        "privpac.mechanisms.exponential.exponential_mechanism_step",
        f"the caller's: {SCORES}",
        "(epsilon, 0)-DP choice of a point of [0, T]: a piece with weight length x exp(epsilon q / (2 sensitivity)), "
        "then a uniform point inside it (exactly the point-wise mechanism)",
        "McSherry and Talwar 2007; BNS section 2.5.2; weights 2^(eta q) sampled exactly as in "
        "exponential_mechanism; the point inside a piece is drawn with big-integer arithmetic",
        checked=("epsilon > 0",),
        caller=("the step function has sensitivity at most `sensitivity` at every point", "T is public"),
        audits=("exponential-step", "interior-point-exponential", "median", "center-point"),
    ),
    _n(
        "privpac.mechanisms.exponential.exponential_mechanism_pieces",
        f"the caller's: {SCORES}, point-wise over the pieces' points",
        "(epsilon, 0)-DP choice of a piece with probability proportional to length x 2^(eta q), sampled exactly "
        "(eta = epsilon / (2 ln 2 sensitivity), rounded down to a rational and stated in the ledger)",
        "McSherry and Talwar 2007 at base 2 (Ilvento, CCS 2020): rounding eta down only lowers the privacy loss; "
        "the caller's uniform point inside the piece makes it the point-wise mechanism",
        checked=("epsilon > 0", "integer qualities", "positive integer lengths"),
        caller=(
            "q has sensitivity at most `sensitivity` at every point",
            "the pieces are public given the data's step points, and the caller describes them in public terms",
        ),
        audits=("em-learner", "exponential-step"),
        tests=("tests/test_exact_sampling.py::test_flat_threshold_learner_gives_the_threshold_law",),
    ),
    _n(
        "privpac.mechanisms.exponential_grouped.exponential_mechanism_grouped",
        f"the caller's: {SCORES}",
        "(epsilon, 0)-DP: the same law as the flat mechanism over [0, T], drawn range by range over public ranges",
        "the range probabilities telescope to the flat law for any public grouping (module docstring)",
        checked=("epsilon > 0", "range weights of the right shape"),
        caller=("the range weights are the exact sums of the points' weights of a sensitivity-bounded quality",),
        audits=("em-learner", "em-learner-grouped"),
        tests=(
            "tests/test_exact_sampling.py::test_grouped_mechanism_is_exactly_the_flat_one",
            "tests/test_exact_sampling.py::test_learners_range_weights_give_the_flat_law_exactly",
        ),
    ),
    _n(
        "privpac.mechanisms.adist.adist",
        "the caller's: sensitivity-1 scores",
        "(epsilon, delta)-DP: the leader, or bottom when its noisy lead is below the threshold 2 + k0",
        "BNS Prop 2.26 with erratum E1: the gap has sensitivity 2, so the noise is discrete Laplace(2/epsilon) "
        "and the threshold 2 + k0 (k0 the delta tail index); every call is charged, a single candidate included",
        checked=(
            "epsilon > 0",
            "delta > 0",
            "variant in ('corrected', 'paper-literal'); the latter warns and is recorded as not private",
        ),
        caller=("the scores have sensitivity 1",),
        audits=("adist", "adist-paper-literal", "point-learner", "recconcave"),
        errata=("E1",),
    ),
    _n(
        "privpac.mechanisms.choosing.choosing_mechanism",
        "the caller's: a k-bounded-growth quality (scores >= 0, one record raises at most k scores by 1)",
        "(epsilon, delta)-DP: bottom, or a solution of G(S) by the exponential mechanism at epsilon/2 after a noisy "
        "test that some score reaches alpha m / 2",
        "BNS Fig. 8, Lemma 4.4, with the discrete-Laplace tails checked inequality by inequality (module docstring)",
        checked=(
            "m >= choosing_min_size(alpha, beta, epsilon, delta, k): PreconditionError below it (erratum E18; "
            "unsafe_skip_precondition runs anyway, warns, and is recorded as not private)",
        ),
        caller=("the quality has k-bounded growth", "m is the public dataset size"),
        audits=("choosing", "san-points", "k-point"),
        errata=("E18",),
    ),
    _n(
        "privpac.mechanisms.gaussian.gaussian_mechanism",
        "the caller's: a real vector query of L2 sensitivity `sensitivity`",
        "(epsilon, delta)-DP release of value + N(0, sigma^2 I), sigma the smallest the exact GDP conversion allows",
        "Gaussian DP (Dong, Roth, Su 2022): mu = sensitivity/sigma, converted exactly to (epsilon, delta). "
        "Floating-point caveat: the noise is real-valued, sampled in floating point (docs/privacy/promise.md)",
        checked=("epsilon > 0", "0 < delta < 1/2"),
        caller=("the query's L2 sensitivity is at most `sensitivity`",),
        tests=("tests/test_gaussian_mechanism.py::test_gdp_conversion_is_the_hockey_stick_of_two_gaussians",),
    ),
    _n(
        "privpac.mechanisms.gaussian.gaussian_gdp_block",
        "the caller's: `steps` adaptive releases, each of L2 sensitivity `sensitivity`",
        "(epsilon, delta)-DP in total per run; the block is charged before any noise and hands out `steps` releases",
        "GDP composition: mu = sqrt(steps) sensitivity / sigma, converted exactly (floating-point caveat as above)",
        checked=("epsilon > 0", "0 < delta < 1/2", "no more than `steps` releases are drawn"),
        caller=("each release's L2 sensitivity is at most `sensitivity`",),
        audits=("margin-practical",),
        tests=("tests/test_gaussian_mechanism.py::test_block_charges_first_and_counts_releases",),
    ),
    _n(
        "privpac.mechanisms.gaussian.gaussian_noise_block",
        "the caller's",
        "what the caller's theorem (named in `mechanism`) gives for noise of standard deviation sigma",
        "the caller's theorem (BST14 Thm 2.1 for noisy SGD); the block is charged before any noise",
        checked=("epsilon > 0", "no more than `steps` releases are drawn"),
        caller=("sigma is the theorem's noise for (epsilon, delta)",),
        audits=("margin-faithful",),
        tests=("tests/test_gaussian_mechanism.py::test_noise_has_the_calibrated_std_not_the_variance",),
    ),
    # -- optimisers -------------------------------------------------------------------------------
    _n(
        "privpac.optimize.recconcave.rec_concave",
        "the caller's: a quality of sensitivity 1 (replace-one or add/remove)",
        "(epsilon, delta)-DP for every quality, quasi-concave or not, promise kept or not",
        "BNS Fig. 5, Lemma 3.12: every derived score is a max/min of sensitivity-1 functions; the depth depends on "
        f"T and N only (base case at most {BASE_CASE_MAX} + 1 points); at most 3 depth - 2 mechanisms, "
        "basic composition, the plan charged up front (E15)",
        checked=("epsilon > 0", "delta > 0 when the depth exceeds 1", "alpha <= 1/2"),
        caller=("the quality has sensitivity 1", "the promise is public"),
        audits=("recconcave", "threshold-learner", "interior-point", "median"),
        errata=("E2", "E3", "E4", "E15"),
    ),
    _n(
        "privpac.optimize.recconcave.rec_concave_run",
        "as rec_concave",
        "as rec_concave (the same run, returned with its plan and per-level trace)",
        "as rec_concave",
        checked=("as rec_concave",),
        caller=("the quality has sensitivity 1", "the promise is public"),
        audits=("recconcave", "center-point", "linear-feasibility"),
        errata=("E2", "E3", "E4", "E15"),
    ),
    _n(
        "privpac.optimize.interior_point.ExponentialInteriorPoint.__call__",
        ADD_REMOVE,
        "(epsilon, 0)-DP point of [lo, hi], for any input size including 0",
        "the exponential mechanism on q(y) = min(#{v <= y}, #{v >= y}), sensitivity 1 under both relations",
        checked=("epsilon > 0", "lo <= hi"),
        audits=("interior-point-exponential", "rectangle-composition"),
    ),
    _n(
        "privpac.optimize.interior_point.RecConcaveInteriorPoint.__call__",
        ADD_REMOVE,
        "(epsilon, delta)-DP point of [lo, hi], for any input size including 0",
        "RecConcave (Lemma 3.12) on the same quality; the promise and plan depend on (epsilon, delta, beta, |Y|) only",
        checked=("epsilon > 0", "delta > 0 when RecConcave recurses"),
        audits=("interior-point",),
    ),
    # -- the median functions -----------------------------------------------------------------------
    _n(
        "privpac.estimators.median.private_median",
        REPLACE_ONE,
        "(epsilon, delta)-DP point of the domain near the median (pure epsilon-DP with the exponential mechanism)",
        "RecConcave or the exponential mechanism on min(#{v <= y}, #{v >= y}) (sensitivity 1) with the public promise "
        "ceil(m/2); composed through the accountant",
        checked=(_BUDGET, _DOMAIN, "at least one record"),
        audits=("median",),
    ),
    _n(
        "privpac.estimators.median.private_interior_point",
        ADD_REMOVE,
        "(epsilon, delta)-DP point between the smallest and the largest value, for any input size including 0",
        "the interior-point plug-ins (ExponentialInteriorPoint, RecConcaveInteriorPoint)",
        checked=(_BUDGET, _DOMAIN),
        audits=("interior-point", "interior-point-exponential"),
    ),
    # -- BNS learners -------------------------------------------------------------------------------
    _n(
        "privpac.learners.point.learn_point",
        REPLACE_ONE,
        "(epsilon, delta)-DP point function (or the all-zero hypothesis with on_bottom='zero')",
        "BNS Lemma 3.2: A_dist (corrected) on the positive counts (sensitivity 1), the fallback drawn independently "
        "of the data",
        checked=(_BUDGET, "delta > 0", "labels in {0, 1}, indices in [0, size - 1]"),
        audits=("point-learner", "point-learner-paper-literal"),
        errata=("E1", "E13"),
    ),
    _n(
        "privpac.learners.thresholds.learn_thresholds",
        REPLACE_ONE,
        "(epsilon, delta)-DP threshold",
        "BNS Thm 3.18: RecConcave on the threshold quality Q(j) = #{i : [x_i < j] == y_i} (sensitivity 1, "
        "quasi-concave on realisable samples)",
        checked=(_BUDGET, "delta > 0 when RecConcave recurses"),
        audits=("threshold-learner",),
        errata=("E14", "E15"),
    ),
    _n(
        "privpac.learners.exponential.em_learner",
        REPLACE_ONE,
        "(epsilon, 0)-DP index of a hypothesis of a public finite class",
        "the exponential mechanism on the number of records a hypothesis labels correctly (sensitivity 1); "
        "Kasiviswanathan et al. 2008",
        checked=("epsilon > 0", "predictions of shape (|H|, m), labels in {0, 1}"),
        audits=("em-learner",),
    ),
    _n(
        "privpac.learners.exponential.em_learn_thresholds",
        REPLACE_ONE,
        "(epsilon, 0)-DP threshold of one orientation",
        "the exponential mechanism over every threshold, drawn range by range (exponential_mechanism_grouped)",
        checked=("epsilon > 0",),
        audits=("em-learner", "em-learner-grouped"),
    ),
    _n(
        "privpac.learners.exponential.em_learn_oriented_thresholds",
        REPLACE_ONE,
        "(epsilon, 0)-DP threshold and orientation",
        "one exponential mechanism over the 2 (size + 1) thresholds of both orientations (sensitivity 1)",
        checked=("epsilon > 0",),
        audits=("em-learner", "em-learner-grouped"),
    ),
    _n(
        "privpac.learners.exponential.choose_orientation",
        REPLACE_ONE,
        "(epsilon, 0)-DP orientation",
        "the exponential mechanism over the two orientations scored by their best threshold's correct count, a "
        "maximum of sensitivity-1 counts",
        checked=("epsilon > 0",),
        audits=("threshold-learner",),
    ),
    _n(
        "privpac.learners.exponential.em_learn_points",
        REPLACE_ONE,
        "(epsilon, 0)-DP point function",
        "the exponential mechanism over every point function, drawn range by range",
        checked=("epsilon > 0",),
        audits=("em-learner", "em-learner-grouped"),
    ),
    _n(
        "privpac.learners.label_private.label_private_learner",
        "one label replaced (label privacy; the points are public)",
        "(epsilon, 0)-label-private hypothesis",
        "BNS Fig. 13, Thm 6.2: H from the points of S1 (labels ignored), the exponential mechanism over H scored on "
        "the labels of S2 (sensitivity 1 in one label)",
        checked=("epsilon > 0", "labels in {0, 1}"),
        audits=("label-private",),
    ),
    _n(
        "privpac.learners.label_private.label_private_from_oracles",
        "as label_private_learner",
        "as label_private_learner (the sample read through two exact oracles)",
        "as label_private_learner",
        checked=("epsilon > 0",),
        caller=("the oracles return the exact head points and scores of the sample",),
        audits=("label-private",),
    ),
    _n(
        "privpac.learners.label_private.semi_private_learner",
        REPLACE_ONE + " (whole labelled records; the unlabelled points are public)",
        "(epsilon, 0)-DP hypothesis",
        "BNS section 6.2: H from the public points only, the exponential mechanism over H scored on the labelled "
        "records (sensitivity 1 in one record)",
        checked=("epsilon > 0", "a non-empty public sample"),
        audits=("semi-private",),
    ),
    _n(
        "privpac.learners.label_private.semi_private_from_oracles",
        "as semi_private_learner",
        "as semi_private_learner (the labelled records read through one exact oracle)",
        "as semi_private_learner",
        checked=("epsilon > 0",),
        caller=("the oracle returns the exact scores",),
        audits=("semi-private",),
    ),
    # -- sanitizers ---------------------------------------------------------------------------------
    _n(
        "privpac.sanitizers.points.san_points",
        REPLACE_ONE,
        "(epsilon, delta)-DP weighted database answering point queries",
        "BNS Fig. 9, Thm 4.6: rounds of the choosing mechanism and a Laplace count, composed (advanced composition, "
        "calibrated explicitly)",
        checked=(_BUDGET, "m >= the choosing precondition (PreconditionError; erratum E18)"),
        audits=("san-points", "k-point", "san-points-below-precondition"),
        errata=("E5", "E6", "E18"),
    ),
    _n(
        "privpac.sanitizers.thresholds.san_thresholds",
        REPLACE_ONE,
        "(epsilon, delta)-DP weighted database answering threshold queries",
        "BNS Fig. 11, Lemma 4.8: at most 4 mechanisms per call (two Laplace counts, RecConcave, the choosing "
        "mechanism), at most c calls, advanced composition",
        checked=(_BUDGET, "m >= the choosing precondition at accuracy alpha/64, growth 2 (PreconditionError)"),
        audits=("san-thresholds", "rectangle-learner-bns"),
        errata=("E7", "E8", "E9", "E10", "E11", "E18"),
    ),
    _n(
        "privpac.sanitizers.baselines.dense_histogram_sanitizer",
        REPLACE_ONE,
        "(epsilon, 0)-DP histogram of every domain point",
        "the Laplace mechanism on a histogram (L1 sensitivity 2: discrete Laplace of scale 2/epsilon)",
        checked=("epsilon > 0", "domain size at most max_size"),
        audits=("histogram",),
        tests=("tests/test_sanitizers.py::test_dense_histogram_sanitizer",),
    ),
    _n(
        "privpac.sanitizers.pure.blr_sanitizer",
        REPLACE_ONE,
        "(epsilon, 0)-DP synthetic database of a tiny domain",
        "BNS Thm 2.19 (Blum, Ligett, Roth): the exponential mechanism over every database of output_size records, "
        "scored by the largest query error (sensitivity 1/m)",
        checked=("epsilon > 0", "at most max_candidates candidate databases"),
        tests=("tests/test_sanitizers.py::test_blr_sanitizer_exact_privacy_and_accuracy",),
    ),
    _n(
        "privpac.sanitizers.reductions.amplify",
        REPLACE_ONE,
        "(epsilon, delta)-DP when `base` is: a sanitized database of q blocks",
        "BNS Lemma 5.1: the base sanitizer on disjoint blocks (parallel composition); the record order is shuffled "
        "first with public randomness (erratum E17)",
        checked=("block_size and output_size >= 1",),
        caller=("`base` is an (epsilon, delta)-DP sanitizer on block_size records",),
        tests=("tests/test_reductions_label_private.py::test_padding_and_truncation_keep_neighbours_neighbours",),
        errata=("E17",),
    ),
    _n(
        "privpac.sanitizers.reductions.label_class_sanitizer",
        REPLACE_ONE,
        "(epsilon, delta)-DP sanitizer of the labelled database for C^label",
        "BNS Lemma 5.4, Fig. 12 (Algorithm B): the base sanitizer on each label's part, padded and truncated to "
        "public sizes so that neighbours stay neighbours (erratum E17)",
        checked=("block sizes and output sizes >= 1",),
        caller=("`base` is an (epsilon, delta)-DP sanitizer",),
        tests=("tests/test_reductions_label_private.py::test_padding_and_truncation_keep_neighbours_neighbours",),
        errata=("E17",),
    ),
    _n(
        "privpac.sanitizers.reductions.learn_from_sanitizer",
        REPLACE_ONE,
        "(epsilon, delta)-DP hypothesis",
        "BNS Thm 5.5: label_class_sanitizer, then non-private ERM on its release (post-processing)",
        checked=(_BUDGET,),
        caller=("`base` is an (epsilon/6, delta/2)-DP sanitizer on block_size records",),
        tests=("tests/test_reductions_label_private.py::test_learn_from_sanitizer_end_to_end",),
        errata=("E17",),
    ),
    # -- rectangles ---------------------------------------------------------------------------------
    _n(
        "privpac.learners.randmargins.randmargins",
        "replace-one (default), or add/remove (neighbours='add-remove', the paper's)",
        "(epsilon, delta)-DP box (the robust variant; variant='paper-literal' warns and is recorded as not private)",
        "Sadigurschi and Stemmer, Algorithm 1, Thm 3.2 with errata RM-R4, RM-R5 (dummies, sentinel, tie-break "
        "tags): window sizes drawn up front, each round an interior point of its window; replace-one from add/remove "
        "by group privacy (RM-N)",
        checked=(_BUDGET, "delta > 0", "a pure interior point with calibration='paper' (RM-R8)"),
        audits=("randmargins", "randmargins-paper-literal"),
        tests=("tests/test_rectangles_privacy.py::test_the_code_samples_the_law_the_engine_computes",),
        errata=("RM-R4", "RM-R5", "RM-R8", "RM-N"),
    ),
    _n(
        "privpac.learners.randmargins.run_randmargins",
        "as randmargins",
        "as randmargins, for the plan given",
        "as randmargins",
        checked=("the positives lie on the plan's grid",),
        caller=("the plan was built by plan_randmargins from public inputs",),
        audits=("randmargins",),
        errata=("RM-R4", "RM-R5"),
    ),
    _n(
        "privpac.learners.rectangles_composition.rectangles_composition",
        REPLACE_ONE,
        "(epsilon, delta)-DP box",
        "Sadigurschi and Stemmer section 1.2 (algorithm B): one interior point per side on a public window of the "
        "positives' top values, padded publicly, composed (DRV advanced composition); no 'enough positives' test "
        "(RM-B)",
        checked=(_BUDGET,),
        audits=("rectangle-composition",),
        errata=("RM-B",),
    ),
    _n(
        "privpac.learners.rectangles_composition.run_composition",
        "as rectangles_composition",
        "as rectangles_composition, for the plan given",
        "as rectangles_composition",
        caller=("the plan was built from public inputs",),
        audits=("rectangle-composition",),
    ),
    _n(
        "privpac.learners.rectangles_composition.run_composition_tops",
        "as rectangles_composition",
        "as rectangles_composition, from the exact top keys per direction (computed where the data lives)",
        "as rectangles_composition",
        caller=("the tops are the exact top keys of the positives",),
        audits=("rectangle-composition",),
    ),
    _n(
        "privpac.learners.rectangles_bns.learn_rectangle_bns",
        REPLACE_ONE,
        "(epsilon, delta)-DP box (proper)",
        "BNS section 3.5 (R-CDF, reconstructed: E16): one SanThresholds per axis on the positives, composed; the "
        "box is read off the sanitized CDFs (post-processing)",
        checked=(_BUDGET, "m meets SanThresholds' precondition on every axis (PreconditionError)"),
        audits=("rectangle-learner-bns",),
        errata=("E16",),
    ),
    _n(
        "privpac.learners.rectangles_bns.learn_rectangle_bns_counted",
        "as learn_rectangle_bns",
        "as learn_rectangle_bns, from per-axis counts",
        "as learn_rectangle_bns",
        checked=("one non-empty count table per axis",),
        audits=("rectangle-learner-bns",),
        errata=("E16",),
    ),
    # -- large-margin halfspaces --------------------------------------------------------------------
    _n(
        "privpac.learners.dp_erm.noisy_gd",
        REPLACE_ONE,
        "(epsilon, delta)-DP vector",
        "the gradient sum has L2 sensitivity 2L; n_steps adaptive Gaussian releases are mu-GDP and converted "
        "exactly. Floating-point caveat (docs/privacy/promise.md)",
        checked=("epsilon > 0", "0 < delta < 1/2"),
        audits=("margin-practical",),
        tests=("tests/test_large_margin_learners.py::test_noisy_gd_uses_the_calibrated_noise",),
    ),
    _n(
        "privpac.learners.dp_erm.noisy_sgd_bst14",
        REPLACE_ONE,
        "(epsilon, delta)-DP vector per run",
        "BST14 Thm 2.1 (A_Noise-GD), the noise of bst14_noise_std; record positions drawn independently of the data",
        checked=("epsilon > 0", "0 < delta < 1/2"),
        audits=("margin-faithful",),
    ),
    _n(
        "privpac.learners.dp_erm.net_runs",
        REPLACE_ONE,
        "(epsilon, 0)-DP per run",
        "NUZ Algorithm 2's exponential mechanism over the public net, utility the margin-violation count "
        "(sensitivity 1)",
        checked=("epsilon > 0", "the net within max_candidates"),
        audits=("margin-boosted-selection",),
    ),
    _n(
        "privpac.learners.dp_erm.select_candidate",
        REPLACE_ONE,
        "(epsilon, 0)-DP index given the candidates",
        "the exponential mechanism on minus the total loss, sensitivity the loss's value range; charged (E-NUZ1) "
        "unless charged=False (the paper-literal accounting, recorded as not private)",
        checked=("epsilon > 0",),
        audits=("margin-boosted-selection", "margin-uncharged-selection"),
        errata=("E-NUZ1",),
    ),
    _n(
        "privpac.learners.dp_erm.boosted_erm",
        REPLACE_ONE,
        "(epsilon, delta)-DP vector (variant='corrected'); the paper-literal variant is (2 epsilon, delta)-DP "
        "and recorded as not private",
        "NUZ Algorithm 3: k runs at epsilon/(2k) and a charged selection at epsilon/2, basic composition (E-NUZ1)",
        checked=(_BUDGET,),
        audits=("margin-faithful", "margin-boosted-selection", "margin-uncharged-selection"),
        errata=("E-NUZ1",),
    ),
    _n(
        "privpac.learners.private_logistic.learn_logistic",
        REPLACE_ONE,
        "(epsilon, delta)-DP logistic-regression coefficients on records mapped into the unit ball",
        "per-record gradients clipped to a public norm, so a replaced record moves each step's gradient sum by at "
        "most twice the clip; T Gaussian releases compose to one GDP mechanism, converted exactly to "
        "(epsilon, delta) (Dong, Roth, Su 2022, Cor 2.13 and 3.3); the step size, steps and clip are public",
        checked=(_BUDGET, "mapped records within the unit ball", "labels in {-1, +1}"),
        caller=("the record map is public and per-record (the estimator's box map)",),
        audits=("halfspace-logistic",),
        tests=(
            "tests/test_halfspace_logistic.py::test_the_gradient_sum_has_sensitivity_two_clip_through_fit",
            "tests/test_halfspace_logistic.py::test_the_rule_reads_public_quantities_only",
        ),
    ),
    _n(
        "privpac.learners.large_margin.learn_margin_practical",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace",
        "a public JL projection (data-independent), then noisy_gd: post-processing and the GDP argument",
        checked=(_BUDGET, "records within the public norm bound"),
        audits=("margin-practical",),
    ),
    _n(
        "privpac.learners.large_margin.learn_margin_faithful",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace (variant='corrected')",
        "NUZ Algorithm 1 (= Algorithm 3) with the corrected accounting (E-NUZ1)",
        checked=(_BUDGET, "records within the public norm bound"),
        audits=("margin-faithful", "margin-boosted-selection", "margin-uncharged-selection"),
        errata=("E-NUZ1",),
    ),
    _n(
        "privpac.learners.large_margin.learn_margin_pure",
        REPLACE_ONE,
        "(epsilon, 0)-DP halfspace",
        "NUZ Algorithm 2: the exponential mechanism over a public (gamma/10)-net, utility the violation count",
        checked=("epsilon > 0", "the net within max_candidates"),
        audits=("margin-pure",),
        tests=("tests/test_large_margin_learners.py::test_pure_learner_exact_privacy",),
    ),
    # -- center points and halfspaces (BMNS) --------------------------------------------------------
    _n(
        "privpac.learners.coordinatewise.choose_coordinates",
        "the caller's: one sensitivity-1 quality per coordinate given the earlier outputs",
        "(epsilon, delta)-DP for the plan's composition: the d choices, adaptive, basic or advanced (DRV)",
        "basic or advanced composition of the per-coordinate exponential mechanism or RecConcave; the whole block "
        "charged before the data is read; the domains follow public bounds and earlier outputs only",
        caller=("each quality has sensitivity 1", "the candidate domains are public given the earlier outputs"),
        audits=("center-point", "center-point-directional", "linear-feasibility", "feasibility-candidates"),
    ),
    _n(
        "privpac.learners.center_point.find_tukey",
        REPLACE_ONE,
        "(epsilon, delta)-DP exact rational point (pure epsilon-DP in exponential mode with basic composition)",
        "BMNS Fig. 1, Thm 3.6: the partial-assignment quality has sensitivity 1 (Obs 2.16, Lemma 3.4), computed "
        "exactly over public A3-rational domains; choose_coordinates composes the d choices. Tukey depth in "
        f"d in {set(TUKEY_DIMENSIONS)} (d = 2 up to MAX_POINTS_2D = {MAX_POINTS_2D:,} points, the regions as exact "
        f"polygons; d = 3 up to MAX_POINTS_3D = {MAX_POINTS_3D} points), directional depth over a public net in any d",
        checked=(
            _BUDGET,
            "points in [-B, B]^d",
            f"the public size: n <= MAX_POINTS_2D = {MAX_POINTS_2D:,} in d = 2, within FINITE_DIRECTION_LIMIT = "
            f"{FINITE_DIRECTION_LIMIT:,} in d = 3 (refused from (n, d) before any point is read)",
            "delta > 0 for mode='recconcave' and composition='advanced'",
        ),
        audits=("center-point", "center-point-3d", "center-point-directional", "center-point-directional-4d"),
        errata=("E-BMNS1",),
    ),
    _n(
        "privpac.learners.center_point_baselines.one_shot_center_point",
        REPLACE_ONE,
        "(epsilon, 0)-DP vertex of the public line arrangement",
        "BMNS footnote 1 (baseline B1): one exponential mechanism over every candidate vertex, quality the exact "
        "Tukey depth (sensitivity 1)",
        checked=("epsilon > 0", "d in {1, 2}", "points in [-B, B]^d", "the work within ONE_SHOT_WORK_LIMIT"),
        audits=("center-point-one-shot",),
    ),
    _n(
        "privpac.estimators.median.coordinatewise_median",
        REPLACE_ONE,
        "(epsilon, delta)-DP point: a private median per coordinate",
        "private_median per column at epsilon/d (and delta/d), basic composition",
        checked=(_BUDGET, "points in [-B, B]^d"),
        audits=("median",),
        tests=("tests/test_center_point_baselines.py::test_the_median_per_coordinate_is_each_columns_private_median",),
    ),
    _n(
        "privpac.learners.halfspace_tukey.learn_halfspace",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace",
        "BMNS Fig. 2, Thm 4.2: the records cut into chunks by position (public), one consistent halfspace per chunk "
        "(a record moves one chunk point), FindTukey on the chunk points",
        checked=(
            _BUDGET,
            "points in [-B, B]^d",
            "labels in {0, 1}",
            f"Tukey depth in dimensions d + 1 in {set(TUKEY_DIMENSIONS)}; the chunk count within the envelope",
        ),
        audits=("halfspace-tukey",),
        errata=("E-BMNS3",),
    ),
    _n(
        "privpac.learners.halfspace_tukey.aggregate_chunk_points",
        "replace-one on the chunk points (one record moves one chunk point)",
        "(epsilon, delta)-DP halfspace from the chunk points",
        "FindTukey on the multiset of chunk points (find_tukey's argument)",
        caller=("the chunk points come from position chunks, one point per chunk",),
        audits=("halfspace-tukey",),
    ),
    _n(
        "privpac.learners.halfspace_tukey.generic_halfspace_learner",
        REPLACE_ONE,
        "(epsilon, 0)-DP halfspace of a public finite class",
        "BMNS section 4 (baseline B2): the exponential mechanism over one halfspace per cell, quality the correct "
        "count (sensitivity 1)",
        checked=("epsilon > 0", "the work within GENERIC_LIMIT"),
    ),
    # -- linear feasibility and halfspaces (KMST) ---------------------------------------------------
    _n(
        "privpac.learners.linear_feasibility.find_deep_point",
        REPLACE_ONE + " (one constraint replaced, m public)",
        "(epsilon, delta)-DP exact rational point (pure with the exponential mechanism)",
        "KMST Fig. 1-2, Thm 4.6 with the corrections of spec 3.7 and 6.2: the level quality has sensitivity 1, "
        f"computed exactly; choose_coordinates composes D in {set(FEASIBILITY_DIMENSIONS)} choices (D = 2 up to "
        f"MAX_DISTINCT_ROWS_2D = {MAX_DISTINCT_ROWS_2D:,} distinct rows, D = 3 up to MAX_CONSTRAINTS_3D = "
        f"{MAX_CONSTRAINTS_3D} constraints); over public candidates (spec 6.5 option 1) the work is within "
        f"MAX_CANDIDATE_WORK = {MAX_CANDIDATE_WORK:,}",
        checked=(_BUDGET, "integer rows in [-X, X]", "the public size within the envelopes (refused before reading)"),
        audits=("linear-feasibility", "linear-feasibility-3d", "feasibility-candidates", "feasibility-candidates-4d"),
        errata=("E-KMST5",),
    ),
    _n(
        "privpac.learners.linear_feasibility.run_find_deep_point",
        "as find_deep_point",
        "as find_deep_point, for the plan given",
        "as find_deep_point",
        caller=("the plan was built from public inputs", "levels_of returns the exact levels of the data"),
        audits=("linear-feasibility", "feasibility-candidates"),
    ),
    _n(
        "privpac.learners.feasibility_halfspaces.learn_halfspace",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace (pure with the exponential mechanism)",
        "KMST Fig. 3, Thm 5.1 (ERM) and Thm 5.2 (PAC): one record is one dual constraint, so FindDeepPoint's "
        "argument applies; the PAC learner's per-record noise is coupled between neighbours",
        checked=(_BUDGET, "integer points in [-grid, grid]^d", "labels in {-1, 1}"),
        audits=("halfspace-feasibility", "feasibility-candidates"),
        errata=("E-KMST9", "E-KMST10"),
    ),
)


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
        "(epsilon, delta)-DP point function; pure epsilon-DP with method='em'",
        "learn_point (A_dist) or em_learn_points",
        ("point-learner", "em-learner"),
        ("E1",),
    ),
    "PrivateThresholdClassifier": (
        "(epsilon, delta)-DP threshold and orientation; pure epsilon-DP with method='em'",
        "learn_thresholds (RecConcave) after choose_orientation at ORIENTATION_SHARE of epsilon when the "
        "orientation is learned, or em_learn_oriented_thresholds / em_learn_thresholds; method 'auto' reads public "
        "inputs only",
        ("threshold-learner", "em-learner", "em-learner-grouped"),
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


def _estimator_notes() -> tuple[ProofNote, ...]:
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
        checked = (_BUDGET, _DOMAIN, "no missing values or text")
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


def all_notes() -> tuple[ProofNote, ...]:
    """Every note: the release functions above and every estimator's ``fit``."""
    return NOTES + _estimator_notes()


def resolve(path: str):
    """The object a note's dotted path names (a function, or a method of a class)."""
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ValueError(f"no object at {path!r}")


def release_functions() -> list[str]:
    """The dotted paths of every public release function: a public function of a privpac module (the audit
    instruments and the command line aside) taking both ``ledger`` and ``rng``, the interior points'
    ``__call__``, and every estimator's ``fit``."""
    import pkgutil

    import privpac

    from ..estimators import MODELS
    from ..optimize.interior_point import ExponentialInteriorPoint, RecConcaveInteriorPoint

    out = []
    for info in pkgutil.walk_packages(privpac.__path__, "privpac."):
        if info.name.startswith(("privpac.audit", "privpac.cli", "privpac.datasets")):
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(obj) or obj.__module__ != module.__name__:
                continue
            params = inspect.signature(obj).parameters
            if "ledger" in params and "rng" in params:
                out.append(f"{info.name}.{name}")
    for cls in (ExponentialInteriorPoint, RecConcaveInteriorPoint):
        out.append(f"{cls.__module__}.{cls.__name__}.__call__")
    out += [f"privpac.estimators.{cls.__name__}.fit" for cls in MODELS.values()]
    return sorted(out)


def _signature(path: str) -> str:
    """``name(signature)`` of the function; for an estimator's ``fit``, its constructor (with the defaults)
    and ``fit``'s own signature."""
    obj = resolve(path)
    obj = getattr(obj, "__wrapped__", obj)
    name = path.rsplit(".", 1)[-1]
    text = f"{name}{inspect.signature(obj)}"
    if path.startswith("privpac.estimators.") and name == "fit":
        cls = resolve(path.rsplit(".", 1)[0])
        text = f"{cls.__name__}{inspect.signature(cls)}.{text.replace('(self, ', '(')}"
    return text


def notes_page() -> list[str]:
    """The lines of docs/privacy/notes.md (without its header), generated from the notes and the code."""
    lines: list[str] = []
    for note in sorted(all_notes(), key=lambda n: n.function):
        lines += [f"### `{note.function}`", "", f"`{_signature(note.function)}`", ""]
        lines.append(f"* **Neighbours**: {note.neighbours}.")
        lines.append(f"* **Claim**: {note.claim}.")
        lines.append(f"* **Argument**: {note.argument}.")
        if note.checked:
            lines.append(f"* **Checked** (raises before any noise): {'; '.join(note.checked)}.")
        if note.caller:
            lines.append(f"* **The caller guarantees** (not checked): {'; '.join(note.caller)}.")
        checks = [f"`privpac audit {a}`" for a in note.audits] + [f"`{t}`" for t in note.tests]
        lines.append(f"* **Checked by**: {', '.join(checks) if checks else 'no audit'}.")
        if note.errata:
            lines.append(f"* **Errata** (docs/errata.md): {', '.join(note.errata)}.")
        lines.append("")
    return lines
