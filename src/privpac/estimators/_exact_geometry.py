"""Fit plumbing shared by the exact geometric estimators.

The center point (FindTukey), linear feasibility (FindDeepPoint) and the two grid halfspace
classifiers (LearnHalfSpace of Beimel, Moran, Nissim, Stemmer and of Kaplan, Mansour, Stemmer,
Tsfadia) run an exact algorithm on a public integer box ``[-B, B]^d``, or on the integer lattice of
a public grid, and release exact rationals. They take no ``constants``; every parameter and the
public box are validated before the budget is reserved and before the data is read; a fit records
the composition it used and the public shape; a saved model holds the released point as ``"p/q"``
text. Nothing here draws noise; :func:`checked_count` reads the data where it lives (a kernel a
Dask or Spark worker imports: this module stays free of scikit-learn).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ..backends import backend_for
from ..domains import IntegerDomain, public_rows
from ..errors import DataError, InvalidParameterError
from ..formatting import fraction_from_text, fraction_to_text
from ..learners.center_point import check_points_in_box
from ..optimize.coordinatewise import check_optimizer
from ..random import as_random_source
from ..validation import check_budget_epsilon, check_choice, check_delta, check_labels

__all__ = ["ExactGeometryMixin", "box_text", "checked_count", "exact_text", "float_view", "grid_advice"]


def box_text(B: int, lattice, d: int | None = None) -> str:
    """The public box for messages: ``[-B, B]^d`` (``[-B, B]`` without ``d``), or the grid a lattice runs on."""
    if lattice is not None:
        return lattice.describe()
    return f"[-{B}, {B}]" if d is None else f"[-{B}, {B}]^{d}"


def grid_advice(lattice) -> str:
    """The end of a sufficient-size warning's advice: on a grid, fewer points also help."""
    return "." if lattice is None else " (a coarser grid: fewer n_points)."


def exact_text(values) -> tuple[str, str]:
    """Exact rationals for a summary: ``"p/q, ..."`` and the same values as rounded floats."""
    return ", ".join(str(v) for v in values), ", ".join(f"{float(v):.6g}" for v in values)


def float_view(values) -> np.ndarray:
    """Exact rationals as floats (rounded; the exact values stay the release)."""
    return np.asarray([float(v) for v in values], dtype=np.float64)


class ExactGeometryMixin:
    """``_begin_fit``, the fitted shape and persistence of an exact geometric estimator (before
    :class:`~privpac.estimators.base.PrivateEstimatorBase` in the bases).

    A subclass declares its choice parameters (``_choices``), the settings that need ``delta > 0``
    (``_needs_delta``), the validator of its public box (``_public_space``), its other checks
    (``_check_parameters``) and the attribute holding its exact point (``_exact_point``).
    """

    #: choice parameters and their options, checked in this order after the budget
    _choices: dict[str, tuple[str, ...]] = {}
    #: ``(parameter, value, reason)``: settings whose mechanisms are (epsilon, delta)-DP, refused at delta = 0
    _needs_delta: tuple[tuple[str, str, str], ...] = ()
    #: the released exact point: its fitted attribute, its key in saved models, and what its entries
    #: and the features are called in the message refusing a saved point of the wrong length
    _exact_point = ("center_", "center", "coordinates", "features")
    #: public integers of the fit (functions of ``n`` and the parameters), saved after the composition
    _public_counts: tuple[str, ...] = ()

    #: every estimator sets its validator of the public box (an int ``B``, or a domain run on its
    #: lattice), e.g. ``_public_space = staticmethod(box_domain)``: no default, so a missing one fails loudly
    _public_space: Callable

    def _check_parameters(self) -> None:
        """The checks beyond the choices and the delta settings (probabilities, integers), in order."""

    def _begin_fit(self):
        # Every parameter and the public box are validated before the budget is reserved and before
        # the data is read.
        eps = check_budget_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        for name, options in self._choices.items():
            if name == "optimizer":  # the shared check: it refuses the former "expmech" by its new name
                check_optimizer(getattr(self, name))
            else:
                check_choice(getattr(self, name), name, options)
        self._check_parameters()
        for name, value, reason in self._needs_delta:
            if getattr(self, name) == value and delta <= 0.0:
                raise InvalidParameterError(f"{name}={value!r} needs delta > 0{reason}")
        space = self._public_space(self.domain)
        rng = as_random_source(self.random_state)
        return self._open_ledger(eps, delta), rng, space

    def _record_fit(self, B: int, lattice, composition: str, n: int, d: int) -> None:
        """The public facts of a fit: the domain it ran on, the composition it used and the shape."""
        self.domain_ = IntegerDomain(-B, B) if lattice is None else lattice.grid
        self.composition_ = composition
        self.n_samples_ = n
        self.n_features_in_ = d

    def _finish_exact_fit(self, point, B: int, lattice, composition: str, n: int, d: int, ledger):
        """End a fit: store the released exact point (in ``_exact_point[0]``), record the public facts
        of the fit (:meth:`_record_fit`), file the ledger, and return the estimator."""
        setattr(self, self._exact_point[0], point)
        self._record_fit(B, lattice, composition, n, d)
        self._end_fit(ledger)
        return self

    def _exact_float(self) -> np.ndarray:
        """The released exact point as floats (rounded; the exact point stays the release)."""
        self._check_fitted()
        return float_view(getattr(self, self._exact_point[0]))

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        # the dry fit that recomputes a saved model's privacy record: one public point
        space = self._public_space(self.domain)
        if isinstance(space, int):  # the centre of [-B, B]^d
            return (np.zeros((n_samples, n_features), dtype=np.int64),)
        return (public_rows(space, n_samples, n_features),)  # a corner of the grid

    # -- persistence ----------------------------------------------------------------------------

    def _released_state(self) -> dict:
        attribute, key = self._exact_point[:2]
        return {key: [fraction_to_text(v) for v in getattr(self, attribute)]}

    def _restore_released(self, state: dict) -> None:
        attribute, key = self._exact_point[:2]
        setattr(self, attribute, tuple(fraction_from_text(s) for s in state[key]))

    def _fitted_state(self) -> dict:
        return {
            **self._released_state(),
            "composition": self.composition_,
            **{name: getattr(self, f"{name}_") for name in self._public_counts},
            "n_samples": self.n_samples_,
            "n_features": self.n_features_in_,
        }

    def _restore_state(self, state: dict) -> None:
        self._restore_released(state)
        self.composition_ = check_choice(state["composition"], "composition", ("basic", "advanced"))
        for name in self._public_counts:
            setattr(self, f"{name}_", int(state[name]))
        self.n_samples_ = int(state["n_samples"])
        self.n_features_in_ = int(state["n_features"])
        attribute, key, entries, features = self._exact_point
        point = getattr(self, attribute)
        if len(point) != self.n_features_in_:
            raise ValueError(f"the saved {key} has {len(point)} {entries} for {self.n_features_in_} {features}")


def _checked_rows(B: int, labels: tuple, lattice, start: int, X_block, y_block) -> int:
    """The number of rows of a block after checking each of them: integer points of ``[-B, B]^d``
    (or points of the public grid of ``lattice``) with a label in the public set (errors name the
    row by its position in the whole sample)."""
    if len(X_block) == 0:  # an empty partition
        return 0
    if lattice is not None:
        X_block = lattice.to_lattice(X_block, "X", first_row=start)
    arr = check_points_in_box(X_block, B, first_row=start)
    check_labels(y_block, labels, arr.shape[0])
    return int(arr.shape[0])


def checked_count(X, y, B: int, labels: tuple, lattice=None) -> int:
    """The exact number of records of engine data (public under replace-one neighbours), every
    block checked where it lives before any budget is spent."""
    n = backend_for(X).map_merge_rows(functools.partial(_checked_rows, B, labels, lattice), sum, X, y)
    if n == 0:
        raise DataError("X is empty: at least one record is needed")
    return int(n)
