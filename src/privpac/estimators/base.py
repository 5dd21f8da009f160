"""Base classes of privpac's scikit-learn compatible estimators.

The contract is scikit-learn's: ``__init__`` only stores its arguments, ``fit`` validates them and
returns ``self``, learned attributes end in ``_``, ``get_params``/``set_params`` work, and a
fitted estimator can be cloned. On top of it every private estimator

* takes the *total* privacy budget ``epsilon`` and ``delta`` and splits it internally;
* takes a public ``domain`` (never derived from the data: ``None`` raises);
* takes ``constants="tuned"`` (default: utility-side choices that minimise the samples needed
  at the same privacy) or ``"paper"`` (the theorems' parameters, for reproduction);
* takes ``random_state``: ``None`` means a secure source (OS entropy), an int a reproducible run;
* exposes after ``fit`` ``ledger_`` (every mechanism call with its cost) and
  ``privacy_spent_`` (the composed total, never above the budget);
* takes ``accountant=None``: the :class:`~privpac.accountant.BudgetAccountant` that composes this
  fit with every other release (``None``: the process-wide default, resolved inside ``fit``).
  ``fit`` reserves its whole budget there before it reads any data (past the accountant's total it
  raises :class:`~privpac.errors.BudgetExceededError`) and files its ledger when it ends. The
  accountant is not part of what a fit releases: saved models do not keep it.

Neighbouring datasets are replace-one: the number of records is public.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import validate_data

from ..accountant import BudgetAccountant, resolve_accountant
from ..accounting import PrivacyLedger
from ..backends import backend_for
from ..backends.rows import block_length, whole_chunk
from ..domains import FeatureDomains, as_domain, public_rows, resolve_domain
from ..errors import DataError, NotFittedError, UnsafeConfigurationWarning, UtilityWarning
from ..random import RandomSource, as_random_source
from ..validation import (
    as_numpy,
    check_budget_epsilon,
    check_choice,
    check_delta,
    check_labels,
    is_engine_collection,
    ravel_column_vector,
    renamed_message,
)

__all__ = ["PrivateEstimatorBase", "PrivateClassifierBase", "CONSTANTS", "private_fit", "engine_rows"]

CONSTANTS = ("tuned", "paper")

#: ``_check_features`` called without ``y`` (``y=None`` is a missing target; a string names a Spark column)
_NO_Y = object()


def private_fit(fit):
    """Decorator of every private estimator's ``fit``: settles the accountant if ``fit`` raises.

    A fit that raises after :meth:`PrivateEstimatorBase._begin_fit` reserved its budget has its
    reservation released when its ledger holds no charge (no noise was drawn), and filed in full,
    marked as failed, when it does (see :mod:`privpac.accountant`).
    """

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self._abandon_fit()
            raise

    wrapper.private_fit = True
    return wrapper


def engine_rows(X, y, check_size) -> tuple:
    """The rows of engine data ``(X, y)`` on the driver, in row order, for an exact learner whose
    public size envelope bounds its input (the center point, linear feasibility and the
    feasibility halfspace classifier: their exact geometry reads every record).

    1. one exact pass counts the records ``n`` (public under replace-one neighbours, privpac's
       relation: the count is a statistic the other engine paths use freely too);
    2. ``check_size(n)`` applies the estimator's envelope, a function of ``n`` and other public
       inputs, and raises above it: no record has left its partition yet;
    3. one chunk of all ``n`` rows by position
       (:meth:`~privpac.backends.NumpyBackend.map_chunks`) brings them to the driver in row order,
       exactly the in-memory sample (on Spark, from a DataFrame whose row order is its own: no
       shuffle, one file).

    The driver then holds at most the envelope's number of records. Nothing is drawn, checked or
    charged here; the estimator's in-memory path runs on the rows returned (NumPy for a Dask array,
    pandas for a DataFrame; ``y`` is ``None``, the label rows, or on Spark the label column).
    """
    backend = backend_for(X)
    n = int(backend.map_merge(block_length, sum, X, y))
    if n == 0:
        raise DataError("X is empty: at least one record is needed")
    check_size(n)
    ((X_rows, y_rows),) = backend.map_chunks(whole_chunk, n, n, X, y)
    return X_rows, y_rows


@functools.cache
def _init_parameter_names(cls) -> tuple[str, ...]:
    # scikit-learn reads the signature of __init__ on every get_params and clone (the audits clone
    # estimators tens of thousands of times); a class's signature never changes: read it once.
    return tuple(BaseEstimator._get_param_names.__func__(cls))


class PrivateEstimatorBase(BaseEstimator):
    """Shared parameters and bookkeeping of every private estimator.

    Subclasses decorate ``fit`` with :func:`private_fit`, call :meth:`_begin_fit` at its start (it
    validates the common parameters, reserves the whole budget with the accountant and opens a
    ledger holding it) and :meth:`_end_fit` at its end (it files the ledger with the accountant).
    """

    #: name of the algorithm recorded in saved models and shown by the CLI
    algorithm_name: str = ""
    #: whether the estimator needs delta > 0
    requires_delta: bool = False

    #: former parameter names and their replacements: ``__init__`` (decorated with
    #: :func:`~privpac.validation.refuses_renamed_parameters`) and ``set_params`` refuse each old name with
    #: a TypeError naming the new one; saved models written under an old name still load (:mod:`privpac.io`)
    _renamed_parameters: dict[str, str] = {}
    #: former parameter values and their replacements, by parameter (``{"method": {"em": "exponential"}}``):
    #: ``fit`` refuses each old value with an InvalidParameterError naming the new one
    #: (:func:`~privpac.validation.check_choice`); a saved model holding one, as the parameter or as the
    #: fitted attribute saved under the same key of its state, loads under the new value (:mod:`privpac.io`)
    _renamed_values: dict[str, dict[str, str]] = {}

    @classmethod
    def _get_param_names(cls):
        return list(_init_parameter_names(cls))

    def set_params(self, **params):
        for name in params:
            if name in self._renamed_parameters:
                raise TypeError(
                    renamed_message(f"{type(self).__name__}.set_params", name, self._renamed_parameters[name])
                )
        return super().set_params(**params)

    def __init__(self, epsilon=1.0, delta=1e-6, domain=None, constants="tuned", random_state=None, accountant=None):
        self._store_parameters(locals())

    def _store_parameters(self, arguments: Mapping) -> None:
        """The body of every ``__init__``: store its arguments under their own names and do nothing else
        (scikit-learn's contract; ``get_params`` and ``clone`` read them back by the signature's names).

        ``arguments`` is ``locals()`` taken first thing in ``__init__``: the parameters (and ``self``).
        """
        for name, value in arguments.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    # -- fit scaffolding ------------------------------------------------------------------------

    def _begin_fit(self) -> tuple[PrivacyLedger, RandomSource]:
        eps = check_budget_epsilon(self.epsilon)
        delta = check_delta(self.delta, allow_zero=not self.requires_delta)
        check_choice(self.constants, "constants", CONSTANTS)
        domain = as_domain(self.domain)
        rng = as_random_source(self.random_state)
        ledger = self._open_ledger(eps, delta)  # after validation, before anything is set or read
        self.domain_ = domain
        return ledger, rng

    def _open_ledger(self, epsilon: float, delta: float) -> PrivacyLedger:
        """Reserve (epsilon, delta) with the accountant and return the fit's ledger holding it.

        Raises :class:`~privpac.errors.BudgetExceededError` past the accountant's budget; call it
        before reading any data.
        """
        self._abandon_fit()  # a reservation left by a fit that raised without private_fit
        accountant = resolve_accountant(self.accountant)
        reservation = accountant.reserve(
            epsilon, delta, name=type(self).__name__, label=self.algorithm_name or type(self).__name__
        )
        self._reservation = reservation
        return reservation.ledger

    def _end_fit(self, ledger: PrivacyLedger) -> None:
        reservation = self.__dict__.pop("_reservation", None)
        if reservation is not None:
            reservation.file()
        self._set_ledger(ledger)
        self._warn_large_delta()

    def _warn_few_records(self, n: int, needed: int, what: str, advice: str, *, proven: bool = False) -> None:
        """A :class:`UtilityWarning` when ``n`` is below what the learner needs (public inputs only).

        ``needed`` is a measured figure (``proven=False``: below it the result is likely useless) or
        the analysis' sufficient size (``proven=True``: below it nothing is promised, but measured
        needs are often far smaller, so the warning says that instead).
        """
        if n >= needed:
            return
        if proven:
            text = (
                f"{type(self).__name__}: {what} is guaranteed (by the analysis) from about {needed:,} records; "
                f"got n = {n:,}. Below that nothing is promised, though the measured need is often far smaller: "
                f"check the result on held-out data. {advice}"
            )
        else:
            text = (
                f"{type(self).__name__}: {what} needs about {needed:,} records here; got n = {n:,}. The result "
                f"is likely no better than a guess. {advice}"
            )
        warnings.warn(text, UtilityWarning, stacklevel=4)

    #: True where fit reads its data through privpac.backends (Dask collections accepted)
    _fits_on_engines = False

    def _engine_refusal(self) -> str:
        """The message of the TypeError raised when engine data reaches an estimator that cannot use it."""
        return (
            f"{type(self).__name__} does not fit on Dask or Spark data (docs/scale.md lists what fits where); "
            "compute X into memory first"
        )

    #: True where the learner itself already warns about delta >= 1/n
    _learner_warns_large_delta = False

    def _warn_large_delta(self) -> None:
        # Public inputs only (delta, n): (epsilon, delta)-DP with delta >= 1/n allows mechanisms that
        # publish a record in the clear, so the guarantee says little.
        n, delta = getattr(self, "n_samples_", None), self.ledger_.budget_delta
        if n and delta and delta >= 1.0 / n and not self._learner_warns_large_delta:
            warnings.warn(
                f"delta = {delta:g} is at least 1/n = {1.0 / n:g}: (epsilon, delta)-DP then allows releasing a "
                "record in the clear; choose delta much smaller than 1/n (1e-6 or below is usual)",
                UnsafeConfigurationWarning,
                stacklevel=3,
            )

    def _abandon_fit(self) -> None:
        reservation = self.__dict__.pop("_reservation", None)
        if reservation is not None:
            reservation.abandon()

    def _set_ledger(self, ledger: PrivacyLedger) -> None:
        """Expose a ledger as ``ledger_`` and ``privacy_spent_`` (loading a saved model charges nothing)."""
        self.ledger_ = ledger
        self.privacy_spent_ = ledger.privacy_spent()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    def _check_features(self, X, *, reset: bool, y=_NO_Y, y_name: str = "y"):
        """The boundary of every ``fit`` and ``predict``: scikit-learn's feature bookkeeping, then the data as NumPy.

        Sets ``n_features_in_``, and ``feature_names_in_`` for DataFrames (pandas, polars, pyarrow: read
        through narwhals, as scikit-learn reads them). At prediction (``reset=False``) a DataFrame whose
        columns differ from the fitted ones is refused, as in scikit-learn. A one-dimensional ``X`` (a
        single feature) is left alone. Classifiers pass ``y`` at fit, so that a missing target is named
        before anything else.

        Returns ``X`` (and ``y`` when it is passed) converted by :func:`privpac.validation.as_numpy`, the
        one conversion of every input type: frames and series become NumPy arrays (missing values and,
        in ``X``, non-numeric columns refused naming the column), a label column vector of shape
        ``(n, 1)`` is raveled with scikit-learn's ``DataConversionWarning``. Data on an engine (Dask,
        Spark) is returned as it is: it is read where it lives (:mod:`privpac.backends`).
        """
        if reset and isinstance(self, ClassifierMixin):
            self._require_y(y)
        if is_engine_collection(X):  # on a cluster: read the shape and names, never the data
            if not self._fits_on_engines:
                raise TypeError(self._engine_refusal())
            if not reset:
                raise DataError("predict on NumPy or pandas data (on an engine, map predict over the partitions)")
            columns = getattr(X, "columns", None)
            if columns is not None and isinstance(y, str):  # Spark: the label is a column of X
                columns = [c for c in columns if c != y]
            self.n_features_in_ = len(columns) if columns is not None else (X.shape[1] if X.ndim == 2 else 1)
            if columns is not None:
                self.feature_names_in_ = np.asarray([str(c) for c in columns], dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_  # a Dask array after a fit on a frame: no names now
            self._resolve_feature_domain(X)
            return X if y is _NO_Y else (X, y)
        values = as_numpy(X, "X")
        if reset and type(X) is np.ndarray and X.ndim == 2:
            # What validate_data does at fit for a NumPy array (no names to read, nothing to compare):
            # the feature count set, the names of an earlier fit on a frame dropped below.
            self.n_features_in_ = X.shape[1]
        elif hasattr(X, "columns") or len(getattr(values, "shape", ())) == 2:
            try:  # the names are read off the frame itself, the feature count off its values
                validate_data(self, X if hasattr(X, "columns") else values, skip_check_array=True, reset=reset)
            except ValueError as exc:  # renamed or missing columns, a different number of features
                raise DataError(str(exc)) from None
        if reset:
            if not hasattr(X, "columns") and hasattr(self, "feature_names_in_"):
                del self.feature_names_in_  # a one-feature array after a fit on a frame: no names now
            self._resolve_feature_domain(values)
        if y is _NO_Y:
            return values
        if y is not None and not is_engine_collection(y):
            y = as_numpy(y, y_name, labels=isinstance(self, ClassifierMixin))
            if isinstance(self, ClassifierMixin):  # user code -> fit wrapper -> fit -> here -> ravel
                y = ravel_column_vector(y, y_name, stacklevel=4)
        return values, y

    def _require_y(self, y) -> None:
        if y is None:
            raise DataError(f"{type(self).__name__} requires y to be passed, but the target y is None")

    def _feature_names(self) -> list[str] | None:
        """The column names :meth:`_check_features` read at this fit (``None`` for data without names)."""
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [str(c) for c in names]

    def _feature_domain(self, domain, n_features: int):
        """``domain`` for the ``n_features`` features of the data of this fit (:func:`~privpac.domains.resolve_domain`:
        per-feature bounds keyed by name put in column order, a one-dimensional grid broadcast)."""
        return resolve_domain(domain, n_features, self._feature_names())

    def _resolve_feature_domain(self, X) -> None:
        # bounds keyed by column name (domain_ as _begin_fit set it) in column order: what a saved model stores
        domain = getattr(self, "domain_", None)
        if isinstance(domain, FeatureDomains):
            d = int(getattr(self, "n_features_in_", 1)) if len(getattr(X, "shape", ())) == 2 else 1
            self.domain_ = self._feature_domain(domain, d)

    @property
    def fit_shape_(self) -> tuple[int, int]:
        """``(n_samples, n_features)`` of the training data: public under replace-one neighbours."""
        self._check_fitted()
        return int(self.n_samples_), int(getattr(self, "n_features_in_", 1))

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        """Arguments of ``fit`` of the given shape made of public values only (one domain point)."""
        return (public_rows(self.domain, n_samples, n_features),)

    def privacy_record(self, n_samples: int, n_features: int = 1) -> PrivacyLedger:
        """The ledger a fit with these parameters on data of this shape records.

        A ledger is a function of the public inputs only (:mod:`privpac.accounting`), so a fit on
        a public example of the same shape records it; saved models are checked against it on
        load (:func:`privpac.io.load_model`). Nothing here reads private data.
        """
        # A throwaway accountant: recomputing a record is not a release and must charge nothing.
        probe = clone(self).set_params(random_state=0, accountant=BudgetAccountant(label="privacy record"))
        value = getattr(self, "domain", None)
        if isinstance(value, Mapping | FeatureDomains) and isinstance(as_domain(value), FeatureDomains):
            # Bounds keyed by column name, for a public example without names: the fitted model's resolved
            # domain (what a saved model holds), or before any fit the mapping's own order.
            resolved = getattr(self, "domain_", None) if hasattr(self, "ledger_") else None
            if resolved is None:
                resolved = as_domain(value).resolve(list(as_domain(value)))
            probe.set_params(domain=resolved)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            probe.fit(*self._public_example(int(n_samples), int(n_features)))
        return probe.ledger_

    def _check_fitted(self) -> None:
        if not hasattr(self, "ledger_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit first")

    # -- persistence ----------------------------------------------------------------------------

    def _fitted_state(self) -> dict:
        """JSON-able learned state (subclasses extend; big ints as strings)."""
        return {}

    def _restore_state(self, state: dict) -> None:
        """Inverse of :meth:`_fitted_state`."""

    def summary(self) -> list[str]:
        """Lines describing the fitted model (the CLI prints them)."""
        self._check_fitted()
        return [f"{self.algorithm_name or type(self).__name__}"]


class PrivateClassifierBase(ClassifierMixin, PrivateEstimatorBase):
    """A private binary classifier.

    ``labels = (negative, positive)`` is the *public* label set; ``classes_`` is set from it, never
    from the data, and a label outside it raises.
    """

    def __init__(
        self,
        epsilon=1.0,
        delta=1e-6,
        domain=None,
        constants="tuned",
        random_state=None,
        labels=(0, 1),
        accountant=None,
    ):
        self._store_parameters(locals())

    def _labelled_sample(self, X, y):
        """The exact counts of a one-dimensional labelled sample, computed where ``X`` lives (in
        memory or on Dask, :mod:`privpac.backends`); sets ``classes_`` from the public labels."""
        from ._one_d import labelled_counts_of

        return self._labelled(labelled_counts_of, X, y)

    def _labelled_ranges(self, X, y):
        """A one-dimensional labelled sample read through range statistics where ``X`` lives
        (:func:`~privpac.estimators._one_d.labelled_ranges_of`: one counting pass now, one pass per
        level of a grouped exponential mechanism later); sets ``classes_`` from the public labels."""
        from ._one_d import labelled_ranges_of

        return self._labelled(labelled_ranges_of, X, y)

    def _labelled(self, read, X, y):
        self._require_y(y)
        sample = read(self.domain_, self.labels, X, y)
        self.classes_ = np.asarray(self.labels)
        return sample

    def _validate_labels(self, y, n_samples: int) -> np.ndarray:
        """``y`` as 0/1 integers; sets ``classes_`` from the public ``labels``."""
        y01 = check_labels(y, self.labels, n_samples)
        self.classes_ = np.asarray(self.labels)
        return y01

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # binary classifiers over a public label set
        tags.classifier_tags.poor_score = True  # private learners at the checks' small sample sizes
        return tags

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        return (*super()._public_example(n_samples, n_features), np.full(n_samples, self.labels[0]))

    def _decode(self, y01: np.ndarray) -> np.ndarray:
        return np.asarray(self.labels)[np.asarray(y01, dtype=np.int64)]
