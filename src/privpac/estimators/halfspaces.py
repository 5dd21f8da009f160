"""Private linear classifiers (halfspaces) as scikit-learn estimators.

``method="margin"``: the large-margin learners of Nguyen, Ullman and Zakynthinou (ALT 2020),
:mod:`privpac.learners.large_margin`. ``privpac fit halfspace-margin data.csv --label y --domain
0:16 --set margin=0.1 -o model.json``.

privpac's other private halfspace learners need no margin but an integer grid and a small
dimension: :class:`~privpac.estimators.PrivateFeasibilityHalfspaceClassifier` (Kaplan, Mansour,
Stemmer, Tsfadia; ``halfspace-feasibility``) and
:class:`~privpac.estimators.PrivateTukeyHalfspaceClassifier` (Beimel, Moran, Nissim, Stemmer;
``halfspace-tukey``). docs/algorithms/halfspaces.md compares all of them on the same data.

What "domain" means here
------------------------
The learners normalise every record (``x -> x / ||x||``), so their privacy needs no bound on the
features, and the hypotheses are homogeneous halfspaces ``sign(<w, x>)``. The public domain is
still required, as everywhere in privpac, and does two jobs:

* it states the feature space: a **box** (``IntegerDomain(lo, hi)`` or ``"lo:hi"`` puts every
  feature in ``[lo, hi]``; a :class:`~privpac.domains.Grid` gives per-feature bounds, its
  resolution is not used) or an **L2 ball** (a positive number ``R``, ``"norm:R"`` on the command
  line). Records outside it raise :class:`~privpac.errors.DomainError` (a ``Grid(..., clip=True)``
  clips instead, a per-record map that costs no privacy);
* it gives the public norm bound ``R`` (the ball's radius, or the box's farthest corner) that
  turns an *absolute* margin into the cosine margin the learners use: with
  ``margin_type="absolute"``, ``y <w*, x> >= gamma`` with ``||w*|| = 1`` and ``||x|| <= R`` imply a
  cosine margin ``gamma / R`` (NUZ section 2.1).

The domain is never derived from the data, and neither is the margin: ``margin`` is a required
public input.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..backends import is_engine_collection
from ..bounds.measured import halfspace_records
from ..domains import Grid, IntegerDomain, as_domain
from ..errors import DataError, DomainError, InvalidParameterError
from ..learners.large_margin import (
    DEFAULT_MAX_CANDIDATES,
    engine_records,
    learn_margin_faithful,
    learn_margin_practical,
    learn_margin_pure,
)
from ..random import as_random_source
from ..validation import (
    check_array,
    check_budget_epsilon,
    check_choice,
    check_delta,
    check_labels,
    check_probability,
    check_real,
)
from .base import CONSTANTS, PrivateClassifierBase, private_fit

__all__ = ["PrivateHalfspaceClassifier", "HALFSPACE_VARIANTS"]

HALFSPACE_VARIANTS = ("practical", "faithful", "pure", "paper-literal")


def _feature_space(domain, d: int):
    """``("ball", R, None)`` or ``("box", low, high)`` (arrays of length d) from a public domain."""
    if isinstance(domain, numbers.Real) and not isinstance(domain, bool):
        return "ball", check_real(domain, "domain (norm bound)", low=0.0, low_open=True), None
    dom = as_domain(domain)
    if isinstance(dom, IntegerDomain):
        return "box", np.full(d, float(dom.lo)), np.full(d, float(dom.hi))
    if isinstance(dom, Grid):
        if dom.dim not in (1, d):
            raise DomainError(f"the domain has {dom.dim} dimensions but X has {d} features")
        return "box", np.broadcast_to(dom.low, (d,)).copy(), np.broadcast_to(dom.high, (d,)).copy()
    raise InvalidParameterError(
        "domain for a halfspace learner must be a norm bound R > 0, an IntegerDomain (box [lo, hi] for every "
        f"feature) or a Grid (per-feature box); got {domain!r}"
    )


def _norm_bound(kind: str, a, b) -> float:
    if kind == "ball":
        return float(a)
    return float(math.sqrt(np.sum(np.maximum(a * a, b * b))))


def _plus_minus(y01: np.ndarray) -> np.ndarray:
    return 2.0 * y01.astype(np.float64) - 1.0


class _RecordMap:
    """The estimator's public per-record preprocessing, the same in memory and on every block.

    Validates the records against the public domain (outside it: :class:`DomainError`, or clipping
    for a ``Grid(..., clip=True)``) and, with ``fit_intercept``, applies the public affine map
    ``x -> ((x - centre) / half, 1)``. Called on a block (engines), it also reads the block as a
    float64 array and its labels as -1/+1. Deterministic; draws no randomness; picklable.
    """

    def __init__(self, d: int, kind: str, a, b, clip: bool, fit_intercept: bool, labels):
        self.d, self.kind, self.a, self.b, self.clip = int(d), kind, a, b, bool(clip)
        self.fit_intercept, self.labels = bool(fit_intercept), tuple(labels)

    @property
    def width(self) -> int:
        """Number of mapped features."""
        return self.d + 1 if self.fit_intercept else self.d

    def features(self, X: np.ndarray) -> np.ndarray:
        """A float64 array of shape (n, d) checked against the domain and mapped."""
        X = self._check_in_domain(X)
        if self.fit_intercept:
            centre, half = (self.a + self.b) / 2.0, (self.b - self.a) / 2.0
            X = np.hstack([(X - centre) / half, np.ones((X.shape[0], 1))])
        return X

    def __call__(self, X_block, y_block) -> tuple[np.ndarray, np.ndarray]:
        """One block of engine data: ``(mapped features, labels in {-1, +1})``."""
        X = check_array(X_block, "X", allow_empty=True)
        if X.dtype == object:
            X = X.astype(np.float64)
        X = np.asarray(X, dtype=np.float64)
        if X.shape[1] != self.d:
            raise DataError(f"a block of X has {X.shape[1]} features, expected {self.d}")
        if X.shape[0] == 0:
            return np.zeros((0, self.width)), np.zeros(0)
        return self.features(X), _plus_minus(check_labels(y_block, self.labels, X.shape[0]))

    def _check_in_domain(self, X) -> np.ndarray:
        kind, a, b = self.kind, self.a, self.b
        if kind == "ball":
            norms = np.sqrt(np.einsum("ij,ij->i", X, X))
            if np.any(norms > a * (1.0 + 1e-12)):
                i = int(np.argmax(norms))
                raise DomainError(f"X[{i}] has norm {float(norms[i])!r}, outside the declared norm bound {a!r}")
            return X
        if self.clip:
            return np.clip(X, a, b)
        lo, hi = X.min(axis=0), X.max(axis=0)
        bad = np.flatnonzero((lo < a) | (hi > b))
        if bad.size:
            j = int(bad[0])
            raise DomainError(
                f"feature {j} takes values in [{lo[j]:.6g}, {hi[j]:.6g}], outside the declared domain "
                f"[{a[j]:.6g}, {b[j]:.6g}] (a Grid with clip=True clips instead)"
            )
        return X


class PrivateHalfspaceClassifier(PrivateClassifierBase):
    """A private homogeneous linear classifier ``sign(<w, x>)`` for data with margin.

    Parameters
    ----------
    epsilon, delta : float
        Total privacy budget. ``variant="pure"`` spends delta = 0; the others need delta > 0.
    domain : float, IntegerDomain, Grid or tuple
        Public feature space: an L2 norm bound ``R`` or a box (see the module docstring).
    margin : float
        The public margin gamma in (0, 1] (required; never estimated from data).
    margin_type : {"cosine", "absolute"}
        ``"cosine"`` (the paper's): ``y <w*, x> / ||x|| >= gamma``. ``"absolute"``:
        ``y <w*, x> >= gamma``; converted to ``gamma / R`` with the domain's norm bound ``R``.
    method : {"margin"}
        The large-margin learners (Nguyen, Ullman, Zakynthinou 2020).
    variant : {"practical", "faithful", "pure", "paper-literal"}
        ``"practical"`` (default): projection where it pays, exact-GDP noisy gradient descent, no
        boosting (spec 3.8). ``"faithful"``: Algorithm 1/3 with BST14's noisy SGD and the boosted
        selection, charged (O(k n^2 m) time). ``"pure"``: Algorithm 2, (epsilon, 0)-DP, the
        exponential mechanism over a net (d <= 3, or an explicit small ``projection_dim``).
        ``"paper-literal"``: the faithful learner with the paper's uncharged selection (not
        (epsilon, delta)-DP; warns; for reproduction and audits only).
    projection_dim : "auto", "paper", "none" or int
        ``"auto"`` resolves per variant: the practical rule
        (:func:`~privpac.learners.jl_projection.auto_projection_dim`); for the faithful variants
        ``ceil(16/gamma^2)`` when smaller than ``d`` (BST14 costs O(k n^2 m)), or the paper's ``m``
        when ``constants="paper"``; the identity for the pure learner (d <= 3).
    n_steps : int
        Gradient steps of the practical optimiser (and of ``optimizer="dpgd"``).
    alpha, beta : float
        Target error and failure probability of the paper's analysis (they set the paper's ``m``
        and the number of boosting rounds ``ceil(log2(8/beta))``).
    optimizer : {"bst14", "dpgd", "net"}
        Inner optimiser of the faithful variants: BST14's noisy SGD (the paper's), noisy gradient
        descent, or Algorithm 2's exponential mechanism over a net (small projected dimension only).
    boost : bool
        Faithful variants: ``True`` runs the paper's boosting; ``False`` one run with the whole budget.
    max_candidates : int
        Largest net the pure learner enumerates before raising.
    constants : {"tuned", "paper"}
        Faithful and pure variants: ``"paper"`` makes ``projection_dim="auto"`` mean the paper's ``m``.
    random_state : None or int
        ``None``: operating-system entropy; an int: a reproducible run (not for releases).
    labels : pair
        Public label set ``(negative, positive)``.
    fit_intercept : bool
        ``False`` (the paper's setting): homogeneous halfspaces through the origin. ``True`` (box
        domains only): every record is first mapped by the public, data-independent affine map
        ``x -> ((2x - lo - hi)/(hi - lo), 1)`` that centres the box on the origin and appends a
        constant feature, so the learned halfspace has an offset. Being a per-record public map,
        it changes nothing in the privacy argument; the margin then refers to the mapped records.
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Notes
    -----
    Every variant's ``fit`` also takes data on an engine: a Dask array or DataFrame (``y`` a Dask
    array, NumPy array or a Series of the same frame) or a Spark DataFrame (``y`` the name of its
    label column). One exact pass counts the records and checks every block against the domain and
    the labels before anything is spent; then the learner reads the data through passes (the
    public preprocessing applied to each block): each gradient step's gradient sum (the practical
    variant, and ``optimizer="dpgd"``), the net's violation counts (``"pure"``,
    ``optimizer="net"``), the records at the positions BST14 draws (``optimizer="bst14"``), the
    candidates' total losses (the boosted selection). All noise is drawn on the driver. The privacy
    guarantee and the ledger are the in-memory fit's; float sums over partitions round differently,
    so models read through gradient sums agree with the in-memory ones to about 1e-8, and the
    others are identical (see docs/scale.md for what holds exactly).

    Attributes
    ----------
    coef_ : ndarray (d,)
        The learned halfspace in feature space: ``A^T w`` normalised to a unit vector, or, with
        ``fit_intercept=True``, the raw-feature coefficients of the mapped halfspace.
    intercept_ : float
        The offset (0 without ``fit_intercept``); predictions are ``coef_ . x + intercept_ >= 0``.
    projected_coef_ : ndarray (m,)
        The vector learned in the projected space (the DP output before mapping back).
    projection_dim_ : int
        ``m`` (equal to ``d`` when no projection was used).
    projection_seed_ : int or None
        Seed of the sign matrix ``A`` (public; ``None`` without a projection).
    margin_ : float
        The cosine margin the learner used.
    ledger_, privacy_spent_ : the privacy accounting.
    """

    algorithm_name = "large-margin halfspace (Nguyen, Ullman, Zakynthinou 2020)"
    _learner_warns_large_delta = True

    #: Every variant reads its records through backend passes (docs/scale.md): gradient sums, the
    #: net's violation counts, BST14's records gathered at positions drawn on the driver, and the
    #: boosted selection's total losses.
    _fits_on_engines = True

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        domain=None,
        margin=None,
        margin_type="cosine",
        method="margin",
        variant="practical",
        projection_dim="auto",
        n_steps=10,
        alpha=0.1,
        beta=0.1,
        optimizer="bst14",
        boost=True,
        max_candidates=DEFAULT_MAX_CANDIDATES,
        constants="tuned",
        random_state=None,
        labels=(0, 1),
        fit_intercept=False,
        accountant=None,
    ):
        super().__init__(epsilon, delta, domain, constants, random_state, labels, accountant=accountant)
        self.fit_intercept = fit_intercept
        self.margin = margin
        self.margin_type = margin_type
        self.method = method
        self.variant = variant
        self.projection_dim = projection_dim
        self.n_steps = n_steps
        self.alpha = alpha
        self.beta = beta
        self.optimizer = optimizer
        self.boost = boost
        self.max_candidates = max_candidates

    def _begin_fit(self):
        # delta = 0 is fine for the pure learner only; the domain is resolved in fit (a norm bound is allowed).
        eps = check_budget_epsilon(self.epsilon)
        delta = check_delta(self.delta, allow_zero=self.variant == "pure")
        check_choice(self.constants, "constants", CONSTANTS)
        rng = as_random_source(self.random_state)
        return self._open_ledger(eps, delta), rng

    @private_fit
    def fit(self, X, y):
        check_choice(self.method, "method", ("margin",))
        check_choice(self.variant, "variant", HALFSPACE_VARIANTS)
        check_choice(self.margin_type, "margin_type", ("cosine", "absolute"))
        if self.margin is None:
            raise InvalidParameterError(
                "margin must be given: it is a public input and is never estimated from the data (e.g. margin=0.1)"
            )
        gamma = check_real(self.margin, "margin", low=0.0, low_open=True)
        if self.domain is None:
            as_domain(None)  # raises the library's standard message
        ledger, rng = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        on_engine = is_engine_collection(X)
        if on_engine:  # Dask or Spark: read only through backend passes (privpac.backends)
            d = int(self.n_features_in_)
        else:
            X = check_array(X, "X")
            if X.dtype == object:
                X = X.astype(np.float64)
            X = np.asarray(X, dtype=np.float64)
            y01 = self._validate_labels(y, X.shape[0])
            n, d = X.shape
        kind, a, b = _feature_space(self.domain, d)
        if self.fit_intercept and kind != "box":
            raise InvalidParameterError("fit_intercept=True needs a box domain (its centre is the public offset)")
        records = _RecordMap(
            d, kind, a, b, isinstance(self.domain, Grid) and self.domain.clip, bool(self.fit_intercept), self.labels
        )
        if not on_engine:
            X = records.features(X)
        self.domain_ = self.domain
        if self.fit_intercept:
            centre, half = (a + b) / 2.0, (b - a) / 2.0
            kind, a, b = "box", np.full(d + 1, -1.0), np.ones(d + 1)
        if self.margin_type == "absolute":
            R = _norm_bound(kind, a, b)
            gamma = gamma / R
        if gamma > 1.0:
            raise InvalidParameterError(
                f"margin must be at most 1 as a cosine margin, got {gamma:.6g}"
                + (" (after dividing by the domain's norm bound)" if self.margin_type == "absolute" else "")
            )
        if on_engine:
            self.classes_ = np.asarray(self.labels)
            # One exact pass: counts n (public under replace-one) and validates every block (domain,
            # labels, finite values) before any budget is spent or noise drawn.
            sample = engine_records(X, y, records, records.width)
            n = sample.n
        if self.variant == "practical":
            self._warn_few_records(
                n,
                halfspace_records(gamma, ledger.budget_epsilon, check_probability(self.alpha, "alpha")),
                f"the practical learner at cosine margin {gamma:.3g}, epsilon={ledger.budget_epsilon:g}, "
                f"alpha={self.alpha:g} (measured, benchmarks/large_margin.py: about 10/margin^2 records for 5% error)",
                "Use more data or a larger epsilon; check the margin (a public input: too large a margin makes the "
                "learner ignore records, too small a margin needs more of them).",
            )
        common = dict(ledger=ledger, rng=rng)
        data, labels_pm = (sample, None) if on_engine else (X, _plus_minus(y01))
        if self.variant == "practical":
            model = learn_margin_practical(
                data,
                labels_pm,
                gamma,
                ledger.budget_epsilon,
                ledger.budget_delta,
                projection_dim=self.projection_dim,
                n_steps=self.n_steps,
                **common,
            )
        elif self.variant in ("faithful", "paper-literal"):
            proj = self.projection_dim
            if isinstance(proj, str) and proj == "auto" and self.constants == "paper":
                proj = "paper"
            model = learn_margin_faithful(
                data,
                labels_pm,
                gamma,
                ledger.budget_epsilon,
                ledger.budget_delta,
                alpha=self.alpha,
                beta=self.beta,
                projection_dim=proj,
                optimizer=self.optimizer,
                boost=bool(self.boost),
                n_steps=self.n_steps,
                variant="corrected" if self.variant == "faithful" else "paper-literal",
                **common,
            )
        else:
            proj = self.projection_dim
            if isinstance(proj, str) and proj == "auto" and self.constants == "paper":
                proj = "paper"
            model = learn_margin_pure(
                data,
                labels_pm,
                gamma,
                ledger.budget_epsilon,
                alpha=self.alpha,
                beta=self.beta,
                projection_dim=proj,
                max_candidates=self.max_candidates,
                **common,
            )
        norm = float(np.linalg.norm(model.coef))
        w = model.coef / norm if norm > 0 else model.coef.copy()
        if self.fit_intercept:
            # <w, ((x - centre)/half, 1)> = <w[:d]/half, x> + (w[d] - <w[:d], centre/half>)
            self.coef_ = w[:d] / half
            self.intercept_ = float(w[d] - np.dot(w[:d], centre / half))
        else:
            self.coef_, self.intercept_ = w, 0.0
        self.projected_coef_ = model.projected_coef
        self.projection_dim_ = model.projection_dim
        self.projection_seed_ = None if model.projection is None else model.projection.seed
        self.margin_ = gamma
        self.details_ = dict(model.details)
        self.n_features_in_ = d
        self.n_samples_ = n
        self._end_fit(ledger)
        return self

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        kind, a, _ = _feature_space(self.domain, n_features)
        X = np.zeros((n_samples, n_features)) if kind == "ball" else np.tile(np.asarray(a, dtype=float), (n_samples, 1))
        return X, np.full(n_samples, self.labels[0])

    def decision_function(self, X) -> np.ndarray:
        """``<coef_, x> + intercept_`` (its sign is the prediction; 0 counts as positive)."""
        self._check_fitted()
        X = self._check_features(X, reset=False)
        X = np.asarray(check_array(X, "X"), dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise DataError(f"X has {X.shape[1]} features but the model was fitted on {self.n_features_in_}")
        return X @ self.coef_ + self.intercept_

    def predict(self, X) -> np.ndarray:
        return self._decode((self.decision_function(X) >= 0).astype(np.int64))

    def _fitted_state(self) -> dict:
        return {
            "coef": self.coef_.tolist(),
            "intercept": self.intercept_,
            "projected_coef": self.projected_coef_.tolist(),
            "projection_dim": self.projection_dim_,
            "projection_seed": None if self.projection_seed_ is None else str(self.projection_seed_),
            "margin_used": self.margin_,
            "details": self.details_,
            "n_features": self.n_features_in_,
            "n_samples": self.n_samples_,
        }

    def _restore_state(self, state: dict) -> None:
        self.coef_ = np.asarray(state["coef"], dtype=np.float64)
        self.intercept_ = float(state.get("intercept", 0.0))
        self.projected_coef_ = np.asarray(state["projected_coef"], dtype=np.float64)
        self.projection_dim_ = int(state["projection_dim"])
        seed = state.get("projection_seed")
        self.projection_seed_ = None if seed is None else int(seed)
        self.margin_ = float(state["margin_used"])
        self.details_ = dict(state.get("details", {}))
        self.n_features_in_ = int(state["n_features"])
        self.n_samples_ = int(state["n_samples"])

    def summary(self) -> list[str]:
        self._check_fitted()
        proj = (
            "no projection" if self.projection_seed_ is None else f"random +-1 projection to m = {self.projection_dim_}"
        )
        lines = [
            f"{self.algorithm_name}, variant {self.variant}",
            f"  n = {self.n_samples_}, d = {self.n_features_in_}, cosine margin {self.margin_:.6g}, {proj}",
            "  coef: [" + ", ".join(f"{v:.4g}" for v in self.coef_[:8]) + (", ...]" if self.coef_.size > 8 else "]"),
        ]
        return lines
