"""The proof notes of the mechanisms (Laplace, exponential, A_dist and choosing: Beimel, Nissim, Stemmer
2013, section 2; Gaussian blocks) and of the optimisers (RecConcave, BNS Fig. 5; the interior points)."""

from __future__ import annotations

from ..optimize.recconcave_plan import BASE_CASE_MAX
from .notes_common import ADD_REMOVE, SCORES, ProofNote, note, note_as

__all__ = ["MECHANISM_NOTES"]

MECHANISM_NOTES: tuple[ProofNote, ...] = (
    # -- mechanisms -------------------------------------------------------------------------------
    note(
        "privpac.mechanisms.laplace.laplace_mechanism",
        "the caller's: an integer query (or vector) of L1 sensitivity `sensitivity`",
        "(epsilon, 0)-DP release of the query plus discrete Laplace noise of scale sensitivity/epsilon",
        "discrete Laplace mechanism (Canonne, Kamath, Steinke 2020), sampled exactly; BNS Thm 2.24",
        checked=("epsilon > 0", "integer query values"),
        caller=("the query's L1 sensitivity is at most `sensitivity`",),
        audits=("laplace", "histogram"),
    ),
    note(
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
    note(
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
    note(
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
        audits=("exponential-learner", "exponential-step"),
        tests=("tests/mechanisms/test_exact_sampling.py::test_flat_threshold_learner_gives_the_threshold_law",),
    ),
    note(
        "privpac.mechanisms.exponential_grouped.exponential_mechanism_grouped",
        f"the caller's: {SCORES}",
        "(epsilon, 0)-DP: the same law as the flat mechanism over [0, T], drawn range by range over public ranges",
        "the range probabilities telescope to the flat law for any public grouping (module docstring)",
        checked=("epsilon > 0", "range weights of the right shape"),
        caller=("the range weights are the exact sums of the points' weights of a sensitivity-bounded quality",),
        audits=("exponential-learner", "exponential-learner-grouped"),
        tests=(
            "tests/mechanisms/test_exact_sampling.py::test_grouped_mechanism_is_exactly_the_flat_one",
            "tests/mechanisms/test_exact_sampling.py::test_learners_range_weights_give_the_flat_law_exactly",
        ),
    ),
    note(
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
    note(
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
    note(
        "privpac.mechanisms.gaussian.gaussian_mechanism",
        "the caller's: a real vector query of L2 sensitivity `sensitivity`",
        "(epsilon, delta)-DP release of value + N(0, sigma^2 I), sigma the smallest the exact GDP conversion allows",
        "Gaussian DP (Dong, Roth, Su 2022): mu = sensitivity/sigma, converted exactly to (epsilon, delta). "
        "Floating-point caveat: the noise is real-valued, sampled in floating point (docs/privacy/promise.md)",
        checked=("epsilon > 0", "0 < delta < 1/2"),
        caller=("the query's L2 sensitivity is at most `sensitivity`",),
        tests=("tests/mechanisms/test_gaussian_mechanism.py::test_gdp_conversion_is_the_hockey_stick_of_two_gaussians",),
    ),
    note(
        "privpac.mechanisms.gaussian.gaussian_gdp_block",
        "the caller's: `steps` adaptive releases, each of L2 sensitivity `sensitivity`",
        "(epsilon, delta)-DP in total per run; the block is charged before any noise and hands out `steps` releases",
        "GDP composition: mu = sqrt(steps) sensitivity / sigma, converted exactly (floating-point caveat as above)",
        checked=("epsilon > 0", "0 < delta < 1/2", "no more than `steps` releases are drawn"),
        caller=("each release's L2 sensitivity is at most `sensitivity`",),
        audits=("margin-practical",),
        tests=("tests/mechanisms/test_gaussian_mechanism.py::test_block_charges_first_and_counts_releases",),
    ),
    note(
        "privpac.mechanisms.gaussian.gaussian_noise_block",
        "the caller's",
        "what the caller's theorem (named in `mechanism`) gives for noise of standard deviation sigma",
        "the caller's theorem (BST14 Thm 2.1 for noisy SGD); the block is charged before any noise",
        checked=("epsilon > 0", "no more than `steps` releases are drawn"),
        caller=("sigma is the theorem's noise for (epsilon, delta)",),
        audits=("margin-faithful",),
        tests=("tests/mechanisms/test_gaussian_mechanism.py::test_noise_has_the_calibrated_std_not_the_variance",),
    ),
    # -- optimisers -------------------------------------------------------------------------------
    note(
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
    note_as(
        "privpac.optimize.recconcave.rec_concave_run",
        "rec_concave",
        " (the same run, returned with its plan and per-level trace)",
        checked=("as rec_concave",),
        caller=("the quality has sensitivity 1", "the promise is public"),
        audits=("recconcave", "center-point", "linear-feasibility"),
        errata=("E2", "E3", "E4", "E15"),
    ),
    note(
        "privpac.optimize.interior_point.ExponentialInteriorPoint.__call__",
        ADD_REMOVE,
        "(epsilon, 0)-DP point of [lo, hi], for any input size including 0",
        "the exponential mechanism on q(y) = min(#{v <= y}, #{v >= y}), sensitivity 1 under both relations",
        checked=("epsilon > 0", "lo <= hi"),
        audits=("interior-point-exponential", "rectangle-composition"),
    ),
    note(
        "privpac.optimize.interior_point.RecConcaveInteriorPoint.__call__",
        ADD_REMOVE,
        "(epsilon, delta)-DP point of [lo, hi], for any input size including 0",
        "RecConcave (Lemma 3.12) on the same quality; the promise and plan depend on (epsilon, delta, beta, |Y|) only",
        checked=("epsilon > 0", "delta > 0 when RecConcave recurses"),
        audits=("interior-point",),
    ),
)
