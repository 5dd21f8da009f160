"""The proof notes of the large-margin halfspace learners (Nguyen, Ullman, Zakynthinou 2020) and the private
ERM they run on (BST14 noisy SGD, private logistic regression)."""

from __future__ import annotations

from .notes_common import BUDGET, REPLACE_ONE, ProofNote, note

__all__ = ["LARGE_MARGIN_NOTES"]

LARGE_MARGIN_NOTES: tuple[ProofNote, ...] = (
    # -- large-margin halfspaces --------------------------------------------------------------------
    note(
        "privpac.learners.dp_erm.noisy_gd",
        REPLACE_ONE,
        "(epsilon, delta)-DP vector",
        "the gradient sum has L2 sensitivity 2L; n_steps adaptive Gaussian releases are mu-GDP and converted "
        "exactly. Floating-point caveat (docs/privacy/promise.md)",
        checked=("epsilon > 0", "0 < delta < 1/2"),
        audits=("margin-practical",),
        tests=("tests/papers/nuz_large_margin/test_large_margin_learners.py::test_noisy_gd_uses_the_calibrated_noise",),
    ),
    note(
        "privpac.learners.dp_erm.noisy_sgd_bst14",
        REPLACE_ONE,
        "(epsilon, delta)-DP vector per run",
        "BST14 Thm 2.1 (A_Noise-GD), the noise of bst14_noise_std; record positions drawn independently of the data",
        checked=("epsilon > 0", "0 < delta < 1/2"),
        audits=("margin-faithful",),
    ),
    note(
        "privpac.learners.dp_erm.net_runs",
        REPLACE_ONE,
        "(epsilon, 0)-DP per run",
        "NUZ Algorithm 2's exponential mechanism over the public net, utility the margin-violation count "
        "(sensitivity 1)",
        checked=("epsilon > 0", "the net within max_candidates"),
        audits=("margin-boosted-selection",),
    ),
    note(
        "privpac.learners.dp_erm.select_candidate",
        REPLACE_ONE,
        "(epsilon, 0)-DP index given the candidates",
        "the exponential mechanism on minus the total loss, sensitivity the loss's value range; charged (E-NUZ1) "
        "unless charged=False (the paper-literal accounting, recorded as not private)",
        checked=("epsilon > 0",),
        audits=("margin-boosted-selection", "margin-uncharged-selection"),
        errata=("E-NUZ1",),
    ),
    note(
        "privpac.learners.dp_erm.boosted_erm",
        REPLACE_ONE,
        "(epsilon, delta)-DP vector (variant='corrected'); the paper-literal variant is (2 epsilon, delta)-DP "
        "and recorded as not private",
        "NUZ Algorithm 3: k runs at epsilon/(2k) and a charged selection at epsilon/2, basic composition (E-NUZ1)",
        checked=(BUDGET,),
        audits=("margin-faithful", "margin-boosted-selection", "margin-uncharged-selection"),
        errata=("E-NUZ1",),
    ),
    note(
        "privpac.learners.private_logistic.learn_logistic",
        REPLACE_ONE,
        "(epsilon, delta)-DP logistic-regression coefficients on records mapped into the unit ball",
        "per-record gradients clipped to a public norm, so a replaced record moves each step's gradient sum by at "
        "most twice the clip; T Gaussian releases compose to one GDP mechanism, converted exactly to "
        "(epsilon, delta) (Dong, Roth, Su 2022, Cor 2.13 and 3.3); the step size, steps and clip are public",
        checked=(BUDGET, "mapped records within the unit ball", "labels in {-1, +1}"),
        caller=("the record map is public and per-record (the estimator's box map)",),
        audits=("halfspace-logistic",),
        tests=(
            "tests/papers/nuz_large_margin/test_halfspace_logistic.py::test_the_gradient_sum_has_sensitivity_two_clip_through_fit",
            "tests/papers/nuz_large_margin/test_halfspace_logistic.py::test_the_rule_reads_public_quantities_only",
        ),
    ),
    note(
        "privpac.learners.large_margin.learn_margin_practical",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace",
        "a public JL projection (data-independent), then noisy_gd: post-processing and the GDP argument",
        checked=(BUDGET, "records within the public norm bound"),
        audits=("margin-practical",),
    ),
    note(
        "privpac.learners.large_margin.learn_margin_faithful",
        REPLACE_ONE,
        "(epsilon, delta)-DP halfspace (variant='corrected')",
        "NUZ Algorithm 1 (= Algorithm 3) with the corrected accounting (E-NUZ1)",
        checked=(BUDGET, "records within the public norm bound"),
        audits=("margin-faithful", "margin-boosted-selection", "margin-uncharged-selection"),
        errata=("E-NUZ1",),
    ),
    note(
        "privpac.learners.large_margin.learn_margin_pure",
        REPLACE_ONE,
        "(epsilon, 0)-DP halfspace",
        "NUZ Algorithm 2: the exponential mechanism over a public (gamma/10)-net, utility the violation count",
        checked=("epsilon > 0", "the net within max_candidates"),
        audits=("margin-pure",),
        tests=("tests/papers/nuz_large_margin/test_large_margin_learners.py::test_pure_learner_exact_privacy",),
    ),
)
