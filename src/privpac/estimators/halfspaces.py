"""Private linear classifiers (halfspaces) as scikit-learn estimators.

:class:`PrivateHalfspaceClassifier` fits a linear classifier ``sign(<coef_, x> + intercept_)``
under (epsilon, delta)-differential privacy. ``privpac fit halfspace-margin data.csv --label y
--domain 0:16 -o model.json``.

* ``variant="logistic"`` (the default; not in the papers): private logistic regression on the
  public domain, :mod:`privpac.learners.private_logistic`. Needs no margin: give it the public
  bounds of every feature and it learns, with an intercept, like scikit-learn's
  ``LogisticRegression``.
* ``variant="practical"``, ``"faithful"``, ``"pure"``, ``"paper-literal"``: the large-margin
  learners of Nguyen, Ullman and Zakynthinou (ALT 2020), :mod:`privpac.learners.large_margin`,
  for data separable with a public margin (``margin`` required).

privpac's other private halfspace learners need no margin but an integer grid and a small
dimension: :class:`~privpac.estimators.PrivateFeasibilityHalfspaceClassifier` (Kaplan, Mansour,
Stemmer, Tsfadia; ``halfspace-feasibility``) and
:class:`~privpac.estimators.PrivateTukeyHalfspaceClassifier` (Beimel, Moran, Nissim, Stemmer;
``halfspace-tukey``). docs/algorithms/halfspaces.md says which to use when.

What "domain" means here
------------------------
The public domain is required, as everywhere in privpac, and is never derived from the data. It
states the feature space: a **box** (``IntegerDomain(lo, hi)`` or ``"lo:hi"`` puts every feature in
``[lo, hi]``; a :class:`~privpac.domains.Grid` gives per-feature bounds ``Grid(low, high, n)``, its
resolution is not used) or an **L2 ball** (a positive number ``R``, ``"norm:R"`` on the command
line). Records outside it raise :class:`~privpac.errors.DomainError` (a ``Grid(..., clip=True)``
clips instead, a per-record map that costs no privacy). Write the bounds from what the features
measure (a data dictionary, a documented range), never from the private data: a scaler fitted on
the private data reads its bounds from that data.

* **The logistic learner uses the box itself.** Every feature is mapped to ``[-1, 1]`` by its own
  public bounds (``(2x - lo - hi) / (hi - lo)``; a ball: ``x / R``), a constant feature is
  appended for the intercept, and the record is scaled by the public bound on its norm. This
  per-record, data-independent map keeps each feature's scale, bounds every record's influence
  (and so the noise) by public numbers, and costs no privacy. Tight bounds help: a feature that
  fills a tenth of its declared range is learned with ten times the relative noise.
* **The paper learners normalise every record** (``x -> x / ||x||``), so their privacy needs no
  bound on the features, and learn homogeneous halfspaces ``sign(<w, x>)``. The domain's norm
  bound ``R`` (the ball's radius, or the box's farthest corner) turns an *absolute* margin into the
  cosine margin the learners use: with ``margin_type="absolute"``, ``y <w*, x> >= gamma`` with
  ``||w*|| = 1`` and ``||x|| <= R`` imply a cosine margin ``gamma / R`` (NUZ section 2.1). With
  ``fit_intercept=True`` (box only) they first apply the logistic learner's centring map.

The margin, where one is used, is a public input too, never estimated from the data.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..bounds.measured import halfspace_records
from ..domains import SCALER_NOTE, Grid, IntegerDomain, as_domain, public_rows, resolve_domain
from ..errors import DataError, DomainError, InvalidParameterError
from ..learners.large_margin import (
    DEFAULT_MAX_CANDIDATES,
    engine_records,
    learn_margin_faithful,
    learn_margin_practical,
    learn_margin_pure,
)
from ..learners.private_logistic import learn_logistic, logistic_records
from ..random import as_random_source
from ..validation import (
    check_array,
    check_budget_epsilon,
    check_choice,
    check_delta,
    check_int,
    check_labels,
    check_probability,
    check_real,
    is_engine_collection,
)
from .base import CONSTANTS, PrivateClassifierBase, private_fit

__all__ = ["PrivateHalfspaceClassifier", "HALFSPACE_VARIANTS"]

HALFSPACE_VARIANTS = ("logistic", "practical", "faithful", "pure", "paper-literal")

#: Steps of the practical learner (and of ``optimizer="dpgd"``) when ``n_steps="auto"``.
PRACTICAL_STEPS = 10


def _is_norm_bound(domain) -> bool:
    return isinstance(domain, numbers.Real) and not isinstance(domain, bool)


def _resolved_domain(domain, d: int, feature_names=None):
    """The public domain of ``d`` features: a norm bound as it is, any other domain resolved
    (:func:`~privpac.domains.resolve_domain`: per-feature bounds keyed by column name, a grid broadcast)."""
    return domain if _is_norm_bound(domain) else resolve_domain(domain, d, feature_names)


def _feature_space(domain, d: int):
    """``("ball", R, None)`` or ``("box", low, high)`` (arrays of length d) from a public domain."""
    if _is_norm_bound(domain):
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
    for a ``Grid(..., clip=True)``) and maps them by a public affine map fixed by the domain alone:

    * ``scaled`` (the logistic learner): every feature to ``[-1, 1]`` (a box with an intercept:
      ``(x - centre) / half``; a box without one: ``x / max(|lo|, |hi|)``; a ball: ``x / R``), a
      constant 1 appended with ``fit_intercept``, then division by :attr:`norm_bound`, the public
      bound on the norm of that vector, so every mapped record has norm at most 1;
    * otherwise (the paper learners, which normalise the records themselves): the records as they
      are, or with ``fit_intercept`` ``((x - centre) / half, 1)``.

    Called on a block (engines), it also reads the block as a float64 array and its labels as
    -1/+1. Deterministic; draws no randomness; picklable.
    """

    def __init__(self, d: int, kind: str, a, b, clip: bool, fit_intercept: bool, labels, scaled: bool = False):
        self.d, self.kind, self.a, self.b, self.clip = int(d), kind, a, b, bool(clip)
        self.fit_intercept, self.labels, self.scaled = bool(fit_intercept), tuple(labels), bool(scaled)

    @property
    def width(self) -> int:
        """Number of mapped features."""
        return self.d + 1 if self.fit_intercept else self.d

    def affine(self) -> tuple[np.ndarray, np.ndarray]:
        """``(offset, scale)`` of the feature map ``u = (x - offset) / scale`` (arrays of length d)."""
        if not (self.scaled or self.fit_intercept):  # the paper learners' raw records
            return np.zeros(self.d), np.ones(self.d)
        if self.kind == "ball":  # a hair wider than R: records on the sphere stay inside the unit ball
            return np.zeros(self.d), np.full(self.d, float(self.a) * (1.0 + 1e-12))
        if self.fit_intercept:
            offset, scale = (self.a + self.b) / 2.0, (self.b - self.a) / 2.0
        else:
            offset, scale = np.zeros(self.d), np.maximum(np.abs(self.a), np.abs(self.b))
        return offset, np.where(scale > 0, scale, 1.0)  # a one-value feature maps to 0

    @property
    def norm_bound(self) -> float:
        """The public bound on ``||(u, 1)||`` (``||u||`` without an intercept): 1 for raw paper records."""
        if not self.scaled:
            return 1.0
        features = 1.0 if self.kind == "ball" else float(self.d)
        return math.sqrt(features + (1.0 if self.fit_intercept else 0.0))

    def features(self, X: np.ndarray) -> np.ndarray:
        """A float64 array of shape (n, width) checked against the domain and mapped."""
        X = self._check_in_domain(X)
        if self.scaled or self.fit_intercept:
            offset, scale = self.affine()
            X = (X - offset) / scale
            if self.fit_intercept:
                X = np.hstack([X, np.ones((X.shape[0], 1))])
            if self.scaled:
                X /= self.norm_bound
        return X

    def coefficients(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        """``(coef, intercept)`` in the user's units of a vector ``w`` over the mapped features."""
        offset, scale = self.affine()
        w = np.asarray(w, dtype=np.float64) / self.norm_bound
        coef = w[: self.d] / scale
        # <w, ((x - offset) / scale, 1)> = <w[:d] / scale, x> + (w[d] - <w[:d], offset / scale>)
        intercept = (float(w[self.d]) if self.fit_intercept else 0.0) - float(np.dot(coef, offset))
        return coef, intercept

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
            value = float(lo[j] if lo[j] < a[j] else hi[j])  # a block's rows are not numbered: name the feature
            raise DomainError(
                f"feature {j} of X holds {value!r}, outside the declared domain [{float(a[j])!r}, {float(b[j])!r}] "
                f"(refused, never silently accepted: a Grid with clip=True clips); {SCALER_NOTE}"
            )
        return X


class PrivateHalfspaceClassifier(PrivateClassifierBase):
    """A private linear classifier ``sign(<coef_, x> + intercept_)`` on features with public bounds.

    With its defaults, private logistic regression (``variant="logistic"``): every feature mapped
    to ``[-1, 1]`` by its public bounds, an intercept, the logistic loss with per-record gradient
    clipping, and full-batch noisy gradient descent calibrated exactly by Gaussian DP, its step
    size, number of steps and clipping norm chosen from public quantities (``n``, ``d``, epsilon,
    delta). The other variants are the large-margin learners of Nguyen, Ullman and Zakynthinou
    (ALT 2020), which need a public margin. Neighbouring datasets replace one record (``n`` is
    public).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget epsilon.
    delta : float, default=1e-6
        Total delta; ``variant="pure"`` spends delta = 0, every other variant needs delta > 0
        (much smaller than ``1/n``).
    domain : float, IntegerDomain, Grid, tuple, str or mapping, default=None
        Public feature space, required: a box (``Grid(low, high, n)`` with per-feature bounds, or
        ``(lo, hi)`` / ``IntegerDomain`` for every feature; per-feature bounds by column name for a
        DataFrame, :func:`~privpac.domains.resolve_domain`, docs/domains.md) or an L2 norm bound
        ``R``. See the module docstring; never derived from the data.
    margin : float or None, default=None
        A public margin gamma in (0, 1] (never estimated from data). Required by the paper
        variants. Optional for ``"logistic"``: a cosine margin of its mapped records that keeps the
        iterates in the ball of radius ``3 / gamma`` (a public projection; it helps when the data
        really have that margin).
    margin_type : {"cosine", "absolute"}, default="cosine"
        ``"cosine"`` (the paper's): ``y <w*, x> / ||x|| >= gamma``. ``"absolute"`` (paper variants):
        ``y <w*, x> >= gamma``; converted to ``gamma / R`` with the domain's norm bound ``R``.
    method : {"margin"}, default="margin"
        Kept for saved models and scripts; the learner is chosen by ``variant``.
    variant : {"logistic", "practical", "faithful", "pure", "paper-literal"}, default="logistic"
        ``"logistic"``: private logistic regression on the public box
        (:mod:`privpac.learners.private_logistic`; not in the papers; no margin needed).
        ``"practical"``: NUZ's learner as spec 3.8 makes it practical: normalised records,
        projection where it pays, exact-GDP noisy gradient descent on the margin hinge loss, no
        boosting. ``"faithful"``: Algorithm 1/3 with BST14's noisy SGD and the boosted selection,
        charged (O(k n^2 m) time). ``"pure"``: Algorithm 2, (epsilon, 0)-DP, the exponential
        mechanism over a net (d <= 3, or an explicit small ``projection_dim``).
        ``"paper-literal"``: the faithful learner with the paper's uncharged selection (not
        (epsilon, delta)-DP; warns; for reproduction and audits only).
    projection_dim : "auto", "paper", "none" or int, default="auto"
        Paper variants: ``"auto"`` resolves per variant: the practical rule
        (:func:`~privpac.learners.jl_projection.auto_projection_dim`); for the faithful variants
        ``ceil(16/gamma^2)`` when smaller than ``d`` (BST14 costs O(k n^2 m)), or the paper's ``m``
        when ``constants="paper"``; the identity for the pure learner (d <= 3). The logistic
        learner projects nothing (``"auto"`` or ``"none"`` only).
    n_steps : "auto" or int, default="auto"
        Gradient steps. ``"auto"``: the logistic rule
        (:func:`~privpac.learners.private_logistic.plan_logistic`, 50 to 1,000 steps; each is two
        passes over the records, so about 150 s at n = 10^6, d = 30, where ``n_steps=100`` takes 18 s),
        and 10 for the practical optimiser (and ``optimizer="dpgd"``). Fewer logistic steps keep the
        rule's distance (up to 16 per step) and cost accuracy only where the data fill a small part
        of their public ranges: measured where the rule takes 1,000 steps, 100 steps lost 0.001 of
        accuracy on data filling the ranges and 0.075 on data filling 30 % of them, where 1,000 lost
        0.009 (``benchmarks/tabular_halfspaces.py --cap``).
    alpha, beta : float, default=0.1
        Target error and failure probability of the paper's analysis (they set the paper's ``m``
        and the number of boosting rounds ``ceil(log2(8/beta))``).
    optimizer : {"bst14", "dpgd", "net"}, default="bst14"
        Inner optimiser of the faithful variants: BST14's noisy SGD (the paper's), noisy gradient
        descent, or Algorithm 2's exponential mechanism over a net (small projected dimension only).
    boost : bool, default=True
        Faithful variants: ``True`` runs the paper's boosting; ``False`` one run with the whole budget.
    max_candidates : int, default=2_000_000
        Largest net the pure learner enumerates before raising.
    constants : {"tuned", "paper"}, default="tuned"
        Faithful and pure variants: ``"paper"`` makes ``projection_dim="auto"`` mean the paper's ``m``.
    random_state : None or int, default=None
        ``None``: operating-system entropy; an int: a reproducible run (not for releases).
    labels : pair, default=(0, 1)
        Public label set ``(negative, positive)``.
    fit_intercept : "auto" or bool, default="auto"
        ``"auto"``: ``True`` for the logistic learner (as scikit-learn's ``LogisticRegression``),
        ``False`` for the paper variants (their homogeneous halfspaces). ``True`` centres the box on
        the origin and appends a constant feature (a public, per-record map; the paper variants
        need a box domain for it, and their margin then refers to the mapped records).
    accountant : BudgetAccountant or None, default=None
        The accountant that composes this fit with every other release (``None``: the
        process-wide default, resolved in ``fit``); see :mod:`privpac.accountant`.

    Attributes
    ----------
    coef_ : ndarray of shape (d,)
        The learned halfspace in the user's units. Logistic: the log-odds slopes (``coef_ . x +
        intercept_`` estimates the log-odds of the positive label). Paper variants: ``A^T w``
        normalised to a unit vector, or with an intercept the raw-feature coefficients of the
        mapped halfspace.
    intercept_ : float
        The offset (0 without an intercept); predictions are ``coef_ . x + intercept_ >= 0``.
    projected_coef_ : ndarray of shape (m,)
        The vector learned on the mapped records (the DP output before mapping back).
    projection_dim_ : int
        ``m`` (the number of mapped features when no projection was used).
    projection_seed_ : int or None
        Seed of the sign matrix ``A`` (public; ``None`` without a projection).
    margin_ : float or None
        The cosine margin the learner used (``None``: the logistic learner without a margin).
    details_ : dict
        Public settings of the fit (the logistic learner's steps, step size, clip; never a count
        of the records).
    ledger_, privacy_spent_ : the privacy accounting.

    Notes
    -----
    Privacy of the logistic learner (the full argument is in
    :mod:`privpac.learners.private_logistic`): the map to the unit ball is per-record and public;
    each record's clipped gradient has norm at most ``clip``, so the gradient sum has replace-one L2
    sensitivity ``2 clip``; the ``T`` noisy gradient sums are an adaptive composition of Gaussian
    mechanisms, exactly ``mu``-GDP with ``mu = 2 clip sqrt(T) / sigma``; ``sigma`` is the smallest
    noise whose ``mu``-GDP implies (epsilon, delta)-DP (exact conversion, Dong, Roth and Su 2022);
    the averaged iterate and the map back to the user's units are post-processing. The audit
    ``privpac audit halfspace-logistic`` checks it through this ``fit``.

    Every variant's ``fit`` also takes data on an engine: a Dask array or DataFrame (``y`` a Dask
    array, NumPy array or a Series of the same frame) or a Spark DataFrame (``y`` the name of its
    label column). One exact pass counts the records and checks every block against the domain and
    the labels before anything is spent; then the learner reads the data through passes (the
    public preprocessing applied to each block): each gradient step's gradient sum (the logistic
    and practical variants, and ``optimizer="dpgd"``), the net's violation counts (``"pure"``,
    ``optimizer="net"``), the records at the positions BST14 draws (``optimizer="bst14"``), the
    candidates' total losses (the boosted selection). All noise is drawn on the driver. The privacy
    guarantee and the ledger are the in-memory fit's; float sums over partitions round differently,
    so models read through gradient sums agree with the in-memory ones to about 1e-8, and the
    others are identical (see docs/scale.md for what holds exactly).

    Examples
    --------
    Breast cancer (scikit-learn's copy), with per-feature bounds written from the ranges its
    documentation lists (``load_breast_cancer().DESCR``), widened by one unit of the last printed
    digit (the printed values are rounded); never computed from the data:

    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from privpac.domains import Grid
    >>> from privpac.estimators import PrivateHalfspaceClassifier
    >>> from privpac.datasets import BREAST_CANCER_DOCUMENTED_RANGES
    >>> low, high = np.array(BREAST_CANCER_DOCUMENTED_RANGES).T
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = PrivateHalfspaceClassifier(epsilon=1.0, delta=1e-6, domain=Grid(low, high, 2), random_state=0)
    >>> clf.fit(X[::2], y[::2]).score(X[1::2], y[1::2]) > 0.85
    True
    >>> clf.privacy_spent_
    PrivacySpent(epsilon=1, delta=1e-06)
    """

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
        variant="logistic",
        projection_dim="auto",
        n_steps="auto",
        alpha=0.1,
        beta=0.1,
        optimizer="bst14",
        boost=True,
        max_candidates=DEFAULT_MAX_CANDIDATES,
        constants="tuned",
        random_state=None,
        labels=(0, 1),
        fit_intercept="auto",
        accountant=None,
    ):
        self._store_parameters(locals())

    @property
    def algorithm_name(self) -> str:
        """Recorded in the ledger and in saved models."""
        if self.variant == "logistic":
            return "private logistic regression on the public box (noisy gradient descent)"
        return "large-margin halfspace (Nguyen, Ullman, Zakynthinou 2020)"

    def _begin_fit(self):
        # delta = 0 is fine for the pure learner only; the domain is resolved in fit (a norm bound is allowed).
        eps = check_budget_epsilon(self.epsilon)
        delta = check_delta(self.delta, allow_zero=self.variant == "pure")
        check_choice(self.constants, "constants", CONSTANTS)
        rng = as_random_source(self.random_state)
        return self._open_ledger(eps, delta), rng

    def _resolve_fit_intercept(self) -> bool:
        if isinstance(self.fit_intercept, str):
            check_choice(self.fit_intercept, "fit_intercept", ("auto",))
            return self.variant == "logistic"
        if not isinstance(self.fit_intercept, bool | np.bool_):
            raise InvalidParameterError(f"fit_intercept must be 'auto', True or False, got {self.fit_intercept!r}")
        return bool(self.fit_intercept)

    def _resolve_n_steps(self):
        if isinstance(self.n_steps, str):
            check_choice(self.n_steps, "n_steps", ("auto",))
            return "auto" if self.variant == "logistic" else PRACTICAL_STEPS
        return check_int(self.n_steps, "n_steps", low=1)

    def _check_margin(self, logistic: bool):
        """The public margin (``None`` for the logistic learner without one)."""
        if self.margin is None:
            if logistic:
                return None
            raise InvalidParameterError(
                f"margin must be given for variant={self.variant!r}: it is a public input and is never estimated "
                "from the data (e.g. margin=0.1); the default variant='logistic' needs none"
            )
        if logistic and self.margin_type != "cosine":
            raise InvalidParameterError(
                "variant='logistic' takes a cosine margin of its mapped records (margin_type='cosine')"
            )
        return check_real(self.margin, "margin", low=0.0, low_open=True, high=1.0 if logistic else None)

    @private_fit
    def fit(self, X, y):
        """Fit on ``X`` (n, d) within the public domain and labels ``y`` in ``labels``; returns ``self``."""
        check_choice(self.method, "method", ("margin",))
        check_choice(self.variant, "variant", HALFSPACE_VARIANTS)
        check_choice(self.margin_type, "margin_type", ("cosine", "absolute"))
        logistic = self.variant == "logistic"
        gamma = self._check_margin(logistic)
        fit_intercept = self._resolve_fit_intercept()
        n_steps = self._resolve_n_steps()
        if logistic and not (isinstance(self.projection_dim, str) and self.projection_dim in ("auto", "none")):
            raise InvalidParameterError(
                f"variant='logistic' projects nothing: projection_dim must be 'auto' or 'none', got "
                f"{self.projection_dim!r} (a random projection is a paper variant's, e.g. variant='practical')"
            )
        if self.domain is None:
            as_domain(None)  # raises the library's standard message
        ledger, rng = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        names = self._feature_names()  # per-feature bounds keyed by column name resolve in this order
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
        domain = _resolved_domain(self.domain, d, names)
        kind, a, b = _feature_space(domain, d)
        if fit_intercept and kind != "box" and not logistic:
            raise InvalidParameterError("fit_intercept=True needs a box domain (its centre is the public offset)")
        clip = isinstance(domain, Grid) and domain.clip
        records = _RecordMap(d, kind, a, b, clip, fit_intercept, self.labels, scaled=logistic)
        if not on_engine:
            X = records.features(X)
        self.domain_ = domain
        if not logistic:
            gamma = self._cosine_margin(gamma, kind, a, b, d, fit_intercept)
        if on_engine:
            self.classes_ = np.asarray(self.labels)
            # One exact pass: counts n (public under replace-one) and validates every block (domain,
            # labels, finite values) before any budget is spent or noise drawn.
            sample = engine_records(X, y, records, records.width)
            n = sample.n
        if logistic:
            self._warn_few_records(
                n,
                logistic_records(records.width, ledger.budget_epsilon, ledger.budget_delta),
                f"the logistic learner on {records.width} mapped features at epsilon={ledger.budget_epsilon:g}, "
                f"delta={ledger.budget_delta:g} (measured, benchmarks/tabular_halfspaces.py --rule)",
                "Use more data, fewer features or a larger epsilon; tight public bounds help too.",
            )
        if self.variant == "practical":
            self._warn_few_records(
                n,
                halfspace_records(gamma, ledger.budget_epsilon, check_probability(self.alpha, "alpha")),
                f"the practical learner at cosine margin {gamma:.3g}, epsilon={ledger.budget_epsilon:g}, "
                f"alpha={self.alpha:g} (measured, benchmarks/large_margin.py: about 10/margin^2 records for 5% error)",
                "Use more data or a larger epsilon; check the margin (a public input: too large a margin makes the "
                "learner ignore records, too small a margin needs more of them).",
            )
        data, labels_pm = (sample, None) if on_engine else (X, _plus_minus(y01))
        model = self._learn(data, labels_pm, gamma, n_steps, ledger, rng)
        if logistic:
            self.coef_, self.intercept_ = records.coefficients(model.coef)
        else:
            norm = float(np.linalg.norm(model.coef))
            w = model.coef / norm if norm > 0 else model.coef.copy()
            self.coef_, self.intercept_ = records.coefficients(w)
        self.projected_coef_ = model.projected_coef
        self.projection_dim_ = model.projection_dim
        self.projection_seed_ = None if model.projection is None else model.projection.seed
        self.margin_ = gamma
        self.details_ = dict(model.details)
        self.n_features_in_ = d
        self.n_samples_ = n
        self._end_fit(ledger)
        return self

    def _cosine_margin(self, gamma: float, kind: str, a, b, d: int, fit_intercept: bool) -> float:
        if fit_intercept:  # the margin refers to the mapped records ((x - centre) / half, 1)
            kind, a, b = "box", np.full(d + 1, -1.0), np.ones(d + 1)
        if self.margin_type == "absolute":
            gamma = gamma / _norm_bound(kind, a, b)
        if gamma > 1.0:
            raise InvalidParameterError(
                f"margin must be at most 1 as a cosine margin, got {gamma:.6g}"
                + (" (after dividing by the domain's norm bound)" if self.margin_type == "absolute" else "")
            )
        return gamma

    def _learn(self, data, labels_pm, gamma, n_steps, ledger, rng):
        """The chosen variant's learner on mapped records (in memory) or engine records."""
        common = dict(ledger=ledger, rng=rng)
        eps, delta = ledger.budget_epsilon, ledger.budget_delta
        if self.variant == "logistic":
            return learn_logistic(data, labels_pm, eps, delta, n_steps=n_steps, margin=gamma, **common)
        if self.variant == "practical":
            return learn_margin_practical(
                data, labels_pm, gamma, eps, delta, projection_dim=self.projection_dim, n_steps=n_steps, **common
            )
        proj = self.projection_dim
        if isinstance(proj, str) and proj == "auto" and self.constants == "paper":
            proj = "paper"
        # the paper's two learners share their accuracy, confidence and projection dimension
        sized = dict(alpha=self.alpha, beta=self.beta, projection_dim=proj, **common)
        if self.variant in ("faithful", "paper-literal"):
            return learn_margin_faithful(
                data,
                labels_pm,
                gamma,
                eps,
                delta,
                optimizer=self.optimizer,
                boost=bool(self.boost),
                n_steps=n_steps,
                variant="corrected" if self.variant == "faithful" else "paper-literal",
                **sized,
            )
        return learn_margin_pure(data, labels_pm, gamma, eps, max_candidates=self.max_candidates, **sized)

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        if _is_norm_bound(self.domain):
            X = np.zeros((n_samples, n_features))
        else:
            X = public_rows(self.domain, n_samples, n_features).astype(np.float64)
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
        self.margin_ = None if state["margin_used"] is None else float(state["margin_used"])
        self.details_ = dict(state.get("details", {}))
        self.n_features_in_ = int(state["n_features"])
        self.n_samples_ = int(state["n_samples"])

    def summary(self) -> list[str]:
        self._check_fitted()
        coef = "  coef: [" + ", ".join(f"{v:.4g}" for v in self.coef_[:8]) + (", ...]" if self.coef_.size > 8 else "]")
        if self.variant == "logistic":
            radius = "" if self.margin_ is None else f", iterates in the ball of radius 3/{self.margin_:.6g}"
            return [
                f"{self.algorithm_name}",
                f"  n = {self.n_samples_}, d = {self.n_features_in_}, {self.details_.get('n_steps')} steps of size "
                f"{self.details_.get('step_size', float('nan')):.4g}, gradients clipped to "
                f"{self.details_.get('clip', float('nan')):.4g}{radius}",
                coef,
                f"  intercept: {self.intercept_:.4g}",
            ]
        proj = (
            "no projection" if self.projection_seed_ is None else f"random +-1 projection to m = {self.projection_dim_}"
        )
        return [
            f"{self.algorithm_name}, variant {self.variant}",
            f"  n = {self.n_samples_}, d = {self.n_features_in_}, cosine margin {self.margin_:.6g}, {proj}",
            coef,
        ]
