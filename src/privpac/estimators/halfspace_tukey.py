"""A private halfspace classifier on a public integer grid by LearnHalfSpace (``privpac fit halfspace-tukey``).

The estimator over :func:`~privpac.learners.halfspace_tukey.learn_halfspace` (Beimel, Moran,
Nissim, Stemmer, COLT 2019, Fig. 2, Thm 4.2, Cor 4.3): the sample is cut into chunks by position,
each chunk gives one consistent halfspace, and a private deep point of those halfspaces (FindTukey
in dimension ``d + 1``) is the released classifier ``1[coef . x + intercept >= 0]``. Unlike
:class:`~privpac.estimators.PrivateHalfspaceClassifier` (large margin, any real features) it
needs no margin, only integer features in a public box, or real-valued features on a public grid
(run on its integer lattice, :class:`~privpac.domains.Lattice`; halfspaces carry over exactly)::

    privpac fit halfspace-tukey data.csv --label y --domain -8:8 -o model.json
"""

from __future__ import annotations

import functools

import numpy as np

from ..domains import box_lattice, domain_text
from ..errors import DataError
from ..geometry._exact import as_integer_points
from ..learners.center_point import check_points_in_box
from ..learners.halfspace_tukey import (
    COMPOSITIONS,
    DEPTHS,
    OPTIMIZERS,
    aggregate_chunk_points,
    plan_learn_halfspace,
    sample_chunk_points,
)
from ..validation import check_int, check_probability, is_engine_collection, refuses_renamed_parameters
from ._exact_geometry import box_text, checked_count, exact_text, grid_advice
from ._exact_linear import ExactLinearClassifierMixin
from .base import PrivateClassifierBase, private_fit
from .center_point import FIND_TUKEY_NEEDS_DELTA, box_domain

__all__ = ["PrivateTukeyHalfspaceClassifier"]


class PrivateTukeyHalfspaceClassifier(ExactLinearClassifierMixin, PrivateClassifierBase):
    """A private halfspace classifier of data in a public box or grid by LearnHalfSpace.

    Sample-and-aggregate (Beimel, Moran, Nissim, Stemmer, COLT 2019, Fig. 2, Thm 4.2): ``m`` chunks
    by position (the tail dropped), one exact consistent halfspace ``(a, w)`` per chunk, and a private
    point of high depth among those ``m`` points by FindTukey. In Tukey depth it runs for ``d = 1``
    and ``d = 2`` (FindTukey in dimension 3, within its exact envelope of about 100 chunks); in
    directional depth (over the public ``U = {(x, -1)}`` of the grid) for any ``d`` within the public
    limit on ``|U|`` times the number of chunks.

    Parameters
    ----------
    epsilon : float, default=1.0
        Total privacy budget (replace-one neighbours: ``n`` is public).
    delta : float, default=0.0
        Total delta; ``optimizer="recconcave"`` and ``composition="advanced"`` need ``delta > 0``.
    domain : int, IntegerDomain, Grid, tuple, str or mapping
        The public domain, required; records outside it are refused. Integer features: ``B`` or
        ``IntegerDomain(lo, hi)`` (``--domain lo:hi``) for every feature. Real-valued features:
        ``Grid(low, high, n_points)`` (``--domain low:high:n``; per-feature arrays, or a mapping of
        column names to bounds for a DataFrame): each record is mapped to its nearest grid point (a
        per-record public map, no privacy cost), LearnHalfSpace runs on the grid's integer lattice
        ``[-B, B]^d`` (:class:`~privpac.domains.Lattice`: a finer grid is a larger ``B``) and
        ``coef_exact_``/``intercept_exact_`` come back in the data's units.
    optimizer : {"exponential", "recconcave"}, default="exponential"
        FindTukey's per-coordinate optimiser (spec B3, pure DP; or RecConcave, the paper's Fig. 1).
    depth : {"tukey", "directional"}, default="tukey"
        The depth of the chunk halfspaces FindTukey maximises: exact Tukey depth, or the directional
        depth over ``U = {±(x, -1) : x in the grid}``, which keeps Thm 4.2 exactly (spec A5).
    composition : {"auto", "basic", "advanced"}, default="auto"
        FindTukey's composition over its ``d + 1`` coordinates.
    alpha, beta : float, default=0.1
        Accuracy and confidence the sufficient size (and the paper's number of chunks) are for.
    n_chunks : int or None, default=None
        The number of chunks ``m`` (public). ``None``: the paper's ``m`` at the sufficient size,
        ``min(m, floor(sqrt(n)))`` below it, at most the chunk points FindTukey runs on
        (:func:`~privpac.learners.halfspace_tukey.max_default_chunks`: 102 for ``d = 2``).
    labels : pair, default=(0, 1)
        The public label set ``(negative, positive)``.
    random_state : None, int or RandomSource, default=None
    accountant : BudgetAccountant or None, default=None

    Attributes
    ----------
    coef_exact_ : tuple of fractions.Fraction
        ``a*`` (exact); predictions are ``coef_exact_ . x + intercept_exact_ >= 0``.
    intercept_exact_ : fractions.Fraction
        ``-w*`` (exact).
    coef_, intercept_ : float views (ndarray of shape (d,), float), as every privpac linear classifier has.
    composition_ : str
    n_chunks_, chunk_size_ : int
        The public chunking (functions of ``n`` and the parameters).
    classes_ : ndarray
        The public labels.
    n_samples_, n_features_in_ : int
    ledger_, privacy_spent_ : the privacy accounting.

    No training error, depth or count of realisable chunks is stored: they are functions of the data.

    Warns
    -----
    UtilityWarning
        When ``n`` is below the size for error ``alpha`` with probability ``1 - beta``
        (bounds ``bmns-learn-halfspace``; public inputs only).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).integers(-4, 5, size=(3000, 1))
    >>> y = (X[:, 0] >= 1).astype(int)
    >>> est = PrivateTukeyHalfspaceClassifier(epsilon=1.0, domain=4, random_state=0).fit(X, y)  # warns: n is small
    >>> est.predict([[-4], [0], [1], [4]]).tolist()
    [0, 0, 1, 1]
    """

    algorithm_name = "private halfspace classifier (LearnHalfSpace, Beimel, Moran, Nissim, Stemmer 2019)"

    @refuses_renamed_parameters
    def __init__(
        self,
        epsilon=1.0,
        delta=0.0,
        domain=None,
        optimizer="exponential",
        depth="tukey",
        composition="auto",
        alpha=0.1,
        beta=0.1,
        n_chunks=None,
        labels=(0, 1),
        random_state=None,
        accountant=None,
    ):
        self._store_parameters(locals())

    _renamed_parameters = {"mode": "optimizer"}
    _choices = {"optimizer": OPTIMIZERS, "depth": DEPTHS, "composition": COMPOSITIONS}
    _needs_delta = FIND_TUKEY_NEEDS_DELTA
    _public_space = staticmethod(box_domain)
    _public_counts = ("n_chunks", "chunk_size")

    def _check_parameters(self) -> None:
        check_probability(self.alpha, "alpha")
        check_probability(self.beta, "beta")
        if self.n_chunks is not None:
            check_int(self.n_chunks, "n_chunks", low=1)

    def _plan(self, n: int, d: int, B: int, ledger):
        return plan_learn_halfspace(
            n,
            d,
            B,
            ledger.budget_epsilon,
            ledger.budget_delta,
            alpha=self.alpha,
            beta=self.beta,
            optimizer=self.optimizer,
            depth=self.depth,
            composition=self.composition,
            n_chunks=self.n_chunks,
        )

    #: reads X through privpac.backends: in memory, Dask or Spark (the label as a column name)
    _fits_on_engines = True

    @private_fit
    def fit(self, X, y):
        """Fit on points ``X`` of shape ``(n, d)`` of the public domain and labels ``y``; returns ``self``.

        ``X`` may live on an engine (a Dask array or DataFrame with ``y`` from the same collection, or
        a Spark DataFrame with ``y`` the name of its label column): one exact pass counts ``n`` and
        checks every record, the chunk points are computed where the chunks live and only they
        reach the driver (:func:`~privpac.learners.halfspace_tukey.sample_chunk_points`).
        """
        ledger, rng, space = self._begin_fit()
        X, y = self._check_features(X, reset=True, y=y)
        names = self._feature_names()
        points = None  # the per-record map to the lattice applied where engine rows live
        if is_engine_collection(X):
            self._require_y(y)
            d, labels = int(self.n_features_in_), tuple(self.labels)
            B, lattice = box_lattice(space, d, names)
            n = checked_count(X, y, B, labels, lattice)  # every record checked before anything is spent
            self.classes_ = np.asarray(self.labels)
            plan = self._plan(n, d, B, ledger)
            points = None if lattice is None else functools.partial(lattice.to_lattice, name="X")
        else:
            shape = np.shape(X)
            if len(shape) == 2 and shape[1] == 0:
                raise DataError(f"0 feature(s) (shape={shape}) while a minimum of 1 is required: X needs a column")
            y = self._validate_labels(y, shape[0] if len(shape) else None)
            B, lattice = box_lattice(space, int(shape[1]) if len(shape) == 2 else 1, names)
            if lattice is None:
                X, bound = as_integer_points(X, "X")  # dense, finite, integer (names a bad record)
            else:
                if len(shape) != 2 or not shape[0]:
                    as_integer_points(X, "X")  # the shape and emptiness refusals
                X, bound = lattice.to_lattice(X, "X"), 0  # each record to its grid point (names one outside)
            n, d = X.shape
            labels = (0, 1)
            plan = self._plan(n, d, B, ledger)  # public refusals (dimension, sizes) before the values are checked
            if bound > B:
                X = check_points_in_box(X, B)  # raises DomainError naming the record
        self._warn_few_records(
            n,
            plan.sufficient_s,
            f"error <= alpha={plan.alpha:g} in {box_text(B, lattice, d)} by LearnHalfSpace (FindTukey "
            f"{plan.find_tukey.optimizer}, {plan.depth} depth) at epsilon={plan.find_tukey.epsilon:g}, "
            f"beta={plan.beta:g}",
            "Use more data, a larger epsilon or a smaller domain bound B" + grid_advice(lattice),
            proven=True,
        )
        # One path for every engine: the chunk points where the chunks live, FindTukey on the driver.
        H0 = sample_chunk_points(X, y, plan, labels=labels, points=points)
        result = aggregate_chunk_points(H0, plan, ledger=ledger, rng=rng)
        self._set_halfspace(result, lattice)
        self.n_chunks_ = plan.n_chunks
        self.chunk_size_ = plan.chunk_size
        self._record_fit(B, lattice, plan.find_tukey.composition, n, d)
        self._end_fit(ledger)
        return self

    def summary(self) -> list[str]:
        self._check_fitted()
        exact, approx = exact_text(self.coef_exact_)
        return [
            f"{self.algorithm_name}: FindTukey {self.optimizer} per coordinate, {self.depth} depth, "
            f"{self.composition_} composition",
            f"  predict 1 iff coef . x + intercept >= 0: coef = ({exact}) ~ ({approx}), "
            f"intercept = {self.intercept_exact_} ~ {float(self.intercept_exact_):.6g}",
            f"  n = {self.n_samples_} in {self.n_chunks_} chunk(s) of {self.chunk_size_}, d = {self.n_features_in_}, "
            f"domain {domain_text(self.domain_)}",
        ]
