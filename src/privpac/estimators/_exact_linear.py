"""Predictions of a halfspace whose coefficients are exact rationals.

The grid halfspace learners (Beimel, Moran, Nissim, Stemmer: LearnHalfSpace; Kaplan, Mansour,
Stemmer, Tsfadia: LearnHalfSpace and the PAC learner) release ``(a, c)`` as exact ``Fraction``s:
the label is positive iff ``<a, x> + c >= 0``. On integer points that sign is decided exactly
(a float could put a grid point on the wrong side of a boundary through it); other points are
scored in floating point. A model fitted on a public grid holds its halfspace in the data's
units. Post-processing of the private output: no privacy question here.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError
from ..formatting import fraction_from_text, fraction_to_text
from ..geometry._exact import as_integer_points, exact_affine_scores
from ..validation import check_array
from ._exact_geometry import ExactGeometryMixin


class ExactLinearClassifierMixin(ExactGeometryMixin):
    """``coef_``/``intercept_`` float views, ``decision_function`` and ``predict`` from
    ``coef_exact_``/``intercept_exact_`` (set by ``fit``) for a :class:`PrivateClassifierBase`, and
    their saved form."""

    _exact_point = ("coef_exact_", "coef", "entries", "features")

    def _public_example(self, n_samples: int, n_features: int) -> tuple:
        return (*super()._public_example(n_samples, n_features), np.full(n_samples, self.labels[0]))

    def _released_state(self) -> dict:
        return {**super()._released_state(), "intercept": fraction_to_text(self.intercept_exact_)}

    def _restore_released(self, state: dict) -> None:
        super()._restore_released(state)
        self.intercept_exact_ = fraction_from_text(state["intercept"])
        self.classes_ = np.asarray(self.labels)

    def _set_halfspace(self, result, lattice) -> None:
        """Store a learner's released halfspace ``<a, x> >= w`` as ``coef_exact_ = a`` and
        ``intercept_exact_ = -w``, mapped to the data's units when the fit ran on a grid's lattice."""
        coef, intercept = tuple(result.a), -result.w
        if lattice is not None:  # the same halfspace in the data's units
            coef, intercept = lattice.halfspace(coef, intercept)
        self.coef_exact_ = coef
        self.intercept_exact_ = intercept

    @property
    def coef_(self) -> np.ndarray:
        """``a`` as floats (rounded; ``coef_exact_`` is exact)."""
        return self._exact_float()

    @property
    def intercept_(self) -> float:
        """``c`` as a float (rounded; ``intercept_exact_`` is exact)."""
        self._check_fitted()
        return float(self.intercept_exact_)

    def _features(self, X) -> np.ndarray:
        self._check_fitted()
        X = self._check_features(X, reset=False)
        arr = check_array(X, "X")
        if arr.shape[1] != self.n_features_in_:
            raise DataError(f"X has {arr.shape[1]} features but the model was fitted on {self.n_features_in_}")
        return arr

    def _exact_scores(self, arr: np.ndarray) -> tuple[np.ndarray, int] | None:
        """``(N (<a, x> + c), N)`` exactly with ``N > 0`` a common denominator, or ``None`` for non-integer ``X``."""
        try:
            ints, _ = as_integer_points(arr, "X")
        except DataError:
            return None
        return exact_affine_scores(self.coef_exact_, self.intercept_exact_, ints)

    def decision_function(self, X) -> np.ndarray:
        """``<coef_, x> + intercept_``: exact then rounded on integer points, float otherwise
        (its sign is the prediction; 0 counts as positive)."""
        arr = self._features(X)
        exact = self._exact_scores(arr)
        if exact is None:
            return np.asarray(arr, dtype=np.float64) @ self.coef_ + self.intercept_
        scores, N = exact
        return np.asarray([v / N for v in scores], dtype=np.float64)  # int / int rounds correctly

    def predict(self, X) -> np.ndarray:
        """The labels of ``<a, x> + c >= 0``, decided in exact integer arithmetic for integer ``X``."""
        arr = self._features(X)
        exact = self._exact_scores(arr)
        positive = (
            (exact[0] >= 0)
            if exact is not None
            else (np.asarray(arr, dtype=np.float64) @ self.coef_ + self.intercept_ >= 0)
        )
        return self._decode(np.asarray(positive, dtype=bool).astype(np.int64))
