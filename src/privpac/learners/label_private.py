"""The generic label-private learner and the semi-private learner (Beimel, Nissim, Stemmer, section 6).

Label-private learner (Fig. 13, Thm 6.2)
---------------------------------------
Input: features ``S_x`` and labels ``S_y`` of ``m`` examples, a concept class ``C`` (oracles of
:mod:`privpac.learners.concept_classes`), epsilon, alpha, beta.

1. ``S1`` := the first ``n`` examples (their labels are **ignored**), ``S2`` := the rest;
2. ``B`` := the distinct points of ``S1``;
3. ``H`` := one concept of ``C`` per labelling of ``B`` that ``C`` realises (``Pi_C(B)``);
4. return ``h in H`` drawn by the exponential mechanism with quality
   ``q(S2, h) = #{(x, y) in S2 : h(x) = y}``.

*Privacy* (Def. 6.1): for every fixed ``S_x`` the map ``S_y -> output`` is (epsilon, 0)-DP.
Steps 1 to 3 read no label; changing one label of ``S1`` changes nothing, and changing one
label of ``S2`` moves every score by at most 1 (sensitivity 1), so the exponential mechanism
(Prop 2.25) gives epsilon. The features get **no** protection.

*Semi-private learner* (section 6.2): ``B`` comes from a separate **public** unlabelled
database ``D`` and the whole labelled sample is ``S2``. Replacing one labelled record (features
and label) moves every score by at most 1, so the output is (epsilon, 0)-DP for the entire
labelled sample, for every fixed ``D``.

*Utility* (Thm 6.2): ``m = O_{alpha, beta, eps}(VC(C))``, independent of ``|X|``. The paper sets
``n = (32/alpha)(VC ln(64/alpha) + ln(8/beta))`` and needs
``m >= (768/(alpha^2 eps))(VC ln(64/alpha) + 2 ln(8/beta))``.

Erratum (docs/errata.md, "Thm 6.2's unlabelled sample"): the proof uses that ``H`` contains an
``h*`` with ``error_D(h*) <= alpha/8``, "by Thm 2.13" with that ``n``; but Thm 2.13 at confidence
``beta/4`` needs ``n >= (8/a)(VC ln(16/a) + ln(8/beta))``, and the paper's ``n`` is this for
``a = alpha/4``, not ``alpha/8``. The Chernoff step that follows needs ``alpha/8``. privpac's
``constants="paper"`` keeps the printed ``n``; ``constants="tuned"`` uses the corrected
``n = (64/alpha)(VC ln(128/alpha) + ln(8/beta))`` and sizes the rest with the proof's three
conditions (``m - n >= (24/alpha) ln(4/beta)``, ``(8/alpha)(ln|H| + ln(4/beta))`` and
``(8/(alpha eps))(ln|H| + ln(4/beta))``) using Sauer's lemma ``|H| <= (e n/VC)^VC`` instead of
the paper's ``2^n``. Privacy does not depend on any of these sizes.

Cost: ``O(m log m)`` for thresholds and point functions (scores by binary search).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..accounting import PrivacyLedger
from ..errors import DataError, UtilityWarning
from ..mechanisms.exponential import exponential_mechanism, exponential_probabilities
from ..random import as_random_source
from ..validation import check_choice, check_epsilon, check_int, check_probability
from .concept_classes import ConceptClass

__all__ = [
    "LabelPrivateSizes",
    "label_private_sizes",
    "LabelPrivateResult",
    "label_private_candidates",
    "label_private_distribution",
    "label_private_learner",
    "label_private_from_oracles",
    "semi_private_learner",
    "semi_private_from_oracles",
]


@dataclass(frozen=True)
class LabelPrivateSizes:
    """Public sizes of the generic label-private learner."""

    n: int  # examples whose labels are ignored (|S1|)
    m_required: float  # examples the utility statement needs in total
    log_h: float  # the bound on ln|H| used for m_required


def _sauer_log(n: int, vc: int) -> float:
    if vc == 0:
        return 0.0
    if n <= vc:
        return n * math.log(2.0)
    return min(n * math.log(2.0), vc * math.log(math.e * n / vc))


def label_private_sizes(
    alpha: float, beta: float, epsilon: float, vc: int, constants: str = "tuned"
) -> LabelPrivateSizes:
    """``n`` and the total ``m`` of Thm 6.2 (``"paper"``) or of its corrected proof (``"tuned"``)."""
    alpha, beta = check_probability(alpha, "alpha"), check_probability(beta, "beta")
    epsilon = check_epsilon(epsilon)
    vc = check_int(vc, "vc", low=0)
    check_choice(constants, "constants", ("tuned", "paper"))
    if constants == "paper":
        n = math.ceil((32.0 / alpha) * (vc * math.log(64.0 / alpha) + math.log(8.0 / beta)))
        m = (768.0 / (alpha**2 * epsilon)) * (vc * math.log(64.0 / alpha) + 2.0 * math.log(8.0 / beta))
        return LabelPrivateSizes(n, m, n * math.log(2.0))
    n = math.ceil((64.0 / alpha) * (vc * math.log(128.0 / alpha) + math.log(8.0 / beta)))
    log_h = _sauer_log(n, vc)
    rest = max(
        (24.0 / alpha) * math.log(4.0 / beta),
        (8.0 / alpha) * (log_h + math.log(4.0 / beta)),
        (8.0 / (alpha * epsilon)) * (log_h + math.log(4.0 / beta)),
    )
    return LabelPrivateSizes(n, n + rest, log_h)


@dataclass
class LabelPrivateResult:
    """The learned hypothesis and the public facts of the run."""

    hypothesis: object
    concept_class: ConceptClass
    candidates: list
    n_unlabelled: int
    info: dict = field(default_factory=dict)
    ledger: PrivacyLedger | None = field(default=None, repr=False)

    def predict(self, x) -> np.ndarray:
        return self.concept_class.predict(self.hypothesis, x)


def label_private_candidates(concept_class: ConceptClass, unlabelled_x) -> list:
    """``H``: one representative per labelling of the distinct points that the class realises."""
    B = np.unique(np.asarray(unlabelled_x) if not isinstance(unlabelled_x, np.ndarray) else unlabelled_x)
    return list(concept_class.projections(B.tolist()))


def _check_xy(x, y):
    x = np.asarray(x) if not isinstance(x, np.ndarray) else x
    y = np.asarray(y)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise DataError("x and y must be 1-D arrays of equal length")
    if x.size == 0:
        raise DataError("the sample is empty: at least one example is needed")
    if not np.all((y == 0) | (y == 1)):
        raise DataError("labels must be 0 or 1")
    return x, y.astype(np.int8)


def _choose(concept_class, points, scores_of, epsilon, ledger, rng, ledger_label, label):
    """Steps 2 to 4 of Fig. 13, shared with section 6.2: ``H`` from the label-free ``points``, then the
    exponential mechanism over ``scores_of(H)`` (sensitivity 1), charged to ``ledger`` (a fresh one of
    budget (epsilon, 0) named ``ledger_label`` when ``None``). Returns the chosen ``h``, ``H`` and the ledger."""
    if ledger is None:
        ledger = PrivacyLedger(epsilon, 0.0, label=ledger_label)
    H = label_private_candidates(concept_class, points)
    scores = np.asarray(scores_of(H), dtype=np.int64)
    # H is built from public points; the entry does not name its size, so the ledger depends on
    # the parameters and the number of records only (privpac.accounting).
    idx = exponential_mechanism(
        scores,
        epsilon,
        ledger=ledger,
        label=label,
        over="H, the labellings the public points allow",
        rng=as_random_source(rng),
    )
    return H[idx], H, ledger


def label_private_learner(
    x,
    y,
    concept_class: ConceptClass,
    *,
    epsilon: float,
    alpha: float = 0.1,
    beta: float = 0.1,
    constants: str = "tuned",
    n_unlabelled: int | None = None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> LabelPrivateResult:
    """Fig. 13: epsilon-label-private learner for ``concept_class`` (module docstring).

    ``n_unlabelled`` overrides ``|S1|`` (a public choice; privacy is unchanged). Warns with
    :class:`~privpac.errors.UtilityWarning` when ``m`` is below the theorem's size.
    """
    x, y = _check_xy(x, y)
    return label_private_from_oracles(
        x.size,
        lambda n: x[:n],
        lambda H, n: concept_class.scores(H, x[n:], y[n:]),
        concept_class,
        epsilon=epsilon,
        alpha=alpha,
        beta=beta,
        constants=constants,
        n_unlabelled=n_unlabelled,
        ledger=ledger,
        rng=rng,
    )


def label_private_from_oracles(
    m: int,
    head_points,
    tail_scores,
    concept_class: ConceptClass,
    *,
    epsilon: float,
    alpha: float = 0.1,
    beta: float = 0.1,
    constants: str = "tuned",
    n_unlabelled: int | None = None,
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> LabelPrivateResult:
    """Fig. 13 reading the sample through two exact oracles (how it runs where the data lives).

    ``m`` is the number of examples; ``head_points(n)`` returns the features of the first ``n``
    examples (at least their distinct values: ``B``, read without labels); ``tail_scores(H, n)``
    returns ``q(S2, h) = #{(x, y) in S2 : h(x) = y}`` for every ``h`` in ``H`` over the examples
    after the first ``n`` (exact integers). :class:`~privpac.estimators.LabelPrivateClassifier`
    computes both with :meth:`privpac.backends.NumpyBackend.map_merge_rows` in memory, on Dask or
    on Spark; the privacy argument is the module's: ``H`` depends on no label and every score has
    sensitivity 1 in one label, and the exponential mechanism on the driver draws the only noise.
    """
    epsilon = check_epsilon(epsilon)
    sizes = label_private_sizes(alpha, beta, epsilon, concept_class.vc_dim, constants)
    n = sizes.n if n_unlabelled is None else check_int(n_unlabelled, "n_unlabelled", low=1)
    if n >= m:
        raise DataError(
            f"the label-private learner sets aside n = {n} examples whose labels it ignores and needs "
            f"more than n examples; got m = {m} (pass n_unlabelled to choose n)"
        )
    if m < sizes.m_required:
        warnings.warn(
            f"Thm 6.2's accuracy needs m >= {sizes.m_required:,.0f} (constants={constants!r}); got m = {m}. "
            "Privacy is unaffected.",
            UtilityWarning,
            stacklevel=3,
        )
    h, H, ledger = _choose(
        concept_class,
        head_points(n),
        lambda H: tail_scores(H, n),
        epsilon,
        ledger,
        rng,
        "label-private learner",
        "exponential mechanism over H (labels)",
    )
    return LabelPrivateResult(
        h,
        concept_class,
        H,
        n,
        info={"m": m, "n": n, "candidates": len(H), "m_required": sizes.m_required, "privacy": "labels only"},
        ledger=ledger,
    )


def label_private_distribution(x, y, concept_class: ConceptClass, *, epsilon: float, n_unlabelled: int) -> dict:
    """The exact output distribution ``{h: probability}`` of Fig. 13 (for privacy checks)."""
    x, y = _check_xy(x, y)
    H = label_private_candidates(concept_class, x[:n_unlabelled])
    scores = concept_class.scores(H, x[n_unlabelled:], y[n_unlabelled:])
    return dict(zip(H, exponential_probabilities(scores, epsilon).tolist()))


def semi_private_learner(
    public_x,
    x,
    y,
    concept_class: ConceptClass,
    *,
    epsilon: float,
    alpha: float = 0.1,
    beta: float = 0.1,
    constants: str = "tuned",
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> LabelPrivateResult:
    """Section 6.2: ``H`` from the public unlabelled ``public_x``; (epsilon, 0)-DP for the whole
    labelled sample ``(x, y)`` (features and labels)."""
    x, y = _check_xy(x, y)
    return semi_private_from_oracles(
        public_x,
        int(x.size),
        lambda H: concept_class.scores(H, x, y),
        concept_class,
        epsilon=epsilon,
        alpha=alpha,
        beta=beta,
        constants=constants,
        ledger=ledger,
        rng=rng,
    )


def semi_private_from_oracles(
    public_x,
    m: int,
    scores,
    concept_class: ConceptClass,
    *,
    epsilon: float,
    alpha: float = 0.1,
    beta: float = 0.1,
    constants: str = "tuned",
    ledger: PrivacyLedger | None = None,
    rng=None,
) -> LabelPrivateResult:
    """Section 6.2 reading the ``m`` labelled examples through one exact oracle: ``scores(H)`` is
    ``#{(x, y) : h(x) = y}`` for every ``h`` in ``H`` over the whole labelled sample (sensitivity 1
    in one labelled record, so the exponential mechanism gives (epsilon, 0)-DP for it)."""
    epsilon = check_epsilon(epsilon)
    public_x = np.asarray(public_x) if not isinstance(public_x, np.ndarray) else public_x
    if public_x.ndim != 1 or public_x.size == 0:
        raise DataError("public_x must be a non-empty 1-D array of unlabelled points")
    sizes = label_private_sizes(alpha, beta, epsilon, concept_class.vc_dim, constants)
    if public_x.size < sizes.n or m < sizes.m_required - sizes.n:
        warnings.warn(
            f"the semi-private learner's accuracy needs {sizes.n:,} public points and "
            f"{sizes.m_required - sizes.n:,.0f} labelled examples; got {public_x.size:,} and {m:,}. "
            "Privacy is unaffected.",
            UtilityWarning,
            stacklevel=3,
        )
    h, H, ledger = _choose(
        concept_class,
        public_x,
        scores,
        epsilon,
        ledger,
        rng,
        "semi-private learner",
        "exponential mechanism over H (labelled sample)",
    )
    return LabelPrivateResult(
        h,
        concept_class,
        H,
        0,
        info={"m": int(m), "public": int(public_x.size), "candidates": len(H), "privacy": "whole labelled sample"},
        ledger=ledger,
    )
