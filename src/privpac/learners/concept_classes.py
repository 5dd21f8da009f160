"""Concept classes given by oracles, for the generic learners (Beimel, Nissim, Stemmer, section 6).

The generic label-private learner (Fig. 13) needs from a class ``C`` only

* ``vc_dim``;
* ``projections(B)``: one representative concept per labelling of the points ``B`` that ``C``
  realises (the projection ``Pi_C(B)``);
* ``scores(H, x, y)``: the number of examples each candidate classifies correctly;
* ``predict(h, x)``.

Provided: :class:`Thresholds` (``c_j(x) = [x < j]``, ``j in [0, |X|]``), :class:`PointFunctions`
(``c_j(x) = [x == j]``), :class:`FiniteClass` (an explicit list over a small domain) and
:class:`OracleClass` (user-supplied callables). Points are domain indices.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import DataError, InvalidParameterError
from ..validation import check_int

__all__ = ["ConceptClass", "Thresholds", "PointFunctions", "FiniteClass", "OracleClass", "brute_force_vc"]


class ConceptClass:
    """Interface of a concept class (see the module docstring)."""

    name = "class"
    vc_dim: int = 1

    def projections(self, B: Sequence[int]) -> list:
        raise InvalidParameterError(f"{type(self).__name__} does not enumerate projections")

    def predict(self, h, x) -> np.ndarray:
        raise InvalidParameterError(f"{type(self).__name__} does not predict")

    def scores(self, H: Sequence, x, y) -> np.ndarray:
        """``#{i : h(x_i) = y_i}`` for every ``h`` in ``H`` (generic: one pass per hypothesis)."""
        y = np.asarray(y)
        return np.asarray([int(np.sum(self.predict(h, x) == y)) for h in H], dtype=np.int64)

    def describe(self, h) -> str:
        return repr(h)


def _sorted_split(H, x, y):
    """The sorted positive and negative points, and the candidates ``j`` of ``H`` as one array."""
    x = np.asarray(x) if not isinstance(x, np.ndarray) else x
    y = np.asarray(y)
    pos, neg = np.sort(x[y == 1]), np.sort(x[y == 0])
    js = np.asarray(list(H), dtype=object if pos.dtype == object or neg.dtype == object else np.int64)
    return pos, neg, js


class _IndexedClass(ConceptClass):
    """A VC-1 class over ``[0, size - 1]`` with one concept ``c_j`` per integer ``j``."""

    vc_dim = 1

    def __init__(self, size: int):
        self.size = check_int(size, "domain size", low=1)


class Thresholds(_IndexedClass):
    """THRESH over ``[0, size - 1]``: ``c_j(x) = 1`` iff ``x < j``, ``j in [0, size]``. VC = 1."""

    name = "thresholds"

    def projections(self, B):
        """``c_0`` and ``c_{b+1}`` for every ``b`` in ``B``: the ``|B| + 1`` prefix labellings."""
        return [0] + sorted({int(b) + 1 for b in B})

    def predict(self, h, x):
        x = np.asarray(x) if not isinstance(x, np.ndarray) else x
        return (x < h).astype(np.int8)

    def scores(self, H, x, y):
        pos, neg, js = _sorted_split(H, x, y)
        pos_below = np.searchsorted(pos, js, side="left")
        neg_below = np.searchsorted(neg, js, side="left")
        return (pos_below + (neg.size - neg_below)).astype(np.int64)

    def describe(self, h):
        return f"x < {h}"


class PointFunctions(_IndexedClass):
    """POINT over ``[0, size - 1]``: ``c_j(x) = 1`` iff ``x == j``. VC = 1."""

    name = "points"

    def projections(self, B):
        """``c_b`` for every ``b`` in ``B`` and, when one exists, the smallest ``j`` not in ``B``
        (it realises the all-zero labelling)."""
        pts = sorted({int(b) for b in B})
        taken, j = set(pts), 0
        while j in taken:
            j += 1
        return pts + ([j] if j < self.size else [])

    def predict(self, h, x):
        x = np.asarray(x) if not isinstance(x, np.ndarray) else x
        return (x == h).astype(np.int8)

    def scores(self, H, x, y):
        pos, neg, js = _sorted_split(H, x, y)
        pos_at = np.searchsorted(pos, js, side="right") - np.searchsorted(pos, js, side="left")
        neg_at = np.searchsorted(neg, js, side="right") - np.searchsorted(neg, js, side="left")
        return (neg.size - neg_at + pos_at).astype(np.int64)

    def describe(self, h):
        return f"x == {h}"


class FiniteClass(ConceptClass):
    """An explicit finite class over a small domain: a 0/1 matrix, one row per concept.

    ``vc_dim`` is computed by brute force unless given (exponential; small classes only).
    Hypotheses are row indices.
    """

    name = "finite"

    def __init__(self, matrix, vc_dim: int | None = None, names: Sequence[str] | None = None):
        mat = np.asarray(matrix)
        if mat.ndim != 2 or mat.size == 0 or not np.all((mat == 0) | (mat == 1)):
            raise InvalidParameterError("matrix must be a non-empty 2-D array of 0/1 (concepts x domain points)")
        self.matrix = mat.astype(np.int8)
        self.size = mat.shape[1]
        self.vc_dim = brute_force_vc(self.matrix) if vc_dim is None else check_int(vc_dim, "vc_dim", low=0)
        self.names = list(names) if names is not None else None

    def projections(self, B):
        cols = np.asarray(sorted({int(b) for b in B}), dtype=np.int64)
        if cols.size and (cols.min() < 0 or cols.max() >= self.size):
            raise DataError("points outside the class's domain")
        _, first = np.unique(self.matrix[:, cols], axis=0, return_index=True)
        return sorted(int(i) for i in first)

    def predict(self, h, x):
        return self.matrix[int(h), np.asarray(x, dtype=np.int64)]

    def scores(self, H, x, y):
        preds = self.matrix[np.asarray(H, dtype=np.int64)][:, np.asarray(x, dtype=np.int64)]
        return (preds == np.asarray(y)[None, :]).sum(axis=1).astype(np.int64)

    def describe(self, h):
        return self.names[int(h)] if self.names else f"concept #{int(h)}"


class OracleClass(ConceptClass):
    """A class given by callables: ``projections(B) -> list of hypotheses`` and
    ``predict(h, x) -> 0/1 array``, with its VC dimension."""

    name = "oracle"

    def __init__(self, vc_dim: int, projections: Callable, predict: Callable, describe: Callable | None = None):
        self.vc_dim = check_int(vc_dim, "vc_dim", low=0)
        self._projections = projections
        self._predict = predict
        self._describe = describe

    def projections(self, B):
        H = list(self._projections(list(B)))
        if not H:
            raise InvalidParameterError("projections(B) returned no hypothesis")
        return H

    def predict(self, h, x):
        return np.asarray(self._predict(h, x)).astype(np.int8)

    def describe(self, h):
        return self._describe(h) if self._describe else repr(h)


def brute_force_vc(matrix) -> int:
    """The VC dimension of a 0/1 concept matrix, by checking every subset (small classes only)."""
    mat = np.asarray(matrix, dtype=np.int8)
    n_points = mat.shape[1]
    best = 0
    for k in range(1, n_points + 1):
        if 2**k > mat.shape[0]:
            break
        if any(np.unique(mat[:, list(c)], axis=0).shape[0] == 2**k for c in itertools.combinations(range(n_points), k)):
            best = k
        else:
            break
    return best
