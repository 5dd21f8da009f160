"""Directional depth over a public direction set: ``depth_U(x) = min over u in U of the two counts``.

Spec ``bmns-center-points`` section 7 (strategies, [ENG]): with a *public* finite set ``U`` (a
fixed net, or random directions drawn independently of ``S``),

    depth_U(x; S) = min over u in U of min(#{y in S : u.y >= u.x}, #{y in S : u.y <= u.x}).

It is a minimum of sensitivity-1 counts, so it has sensitivity 1 (spec section 2: a min of
sensitivity-1 functions has sensitivity 1), and the proofs of Claims 3.2-3.3 and Lemma 3.4
(quasi-concavity of the partial-assignment quality) hold for any fixed direction set. Restricting
Claim 2.17's minimum to ``U`` gives ``depth_U >= td``, with equality when ``U`` contains
``U(S ∪ E)`` (spec A1). A ``U`` derived from the data is *not* public: one changed point changes
``U`` itself, and sensitivity is lost (spec section 7).
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError, InvalidParameterError
from ._exact import as_integer_points, as_rational_point, exact_products, translate

__all__ = ["directional_depth"]

_BLOCK_ELEMENTS = 1 << 20


def as_directions(U, d: int, name: str = "U") -> np.ndarray:
    """A ``(k, d)`` integer direction array with ``k >= 1`` (zero rows allowed: they never bind)."""
    try:
        arr, _ = as_integer_points(U, name, d=d)
    except DataError as exc:
        raise InvalidParameterError(str(exc)) from exc
    return arr


def directional_depth(x, S, U) -> int:
    """Depth of ``x`` over a public integer direction set ``U``.

    Parameters
    ----------
    x : sequence of int or fractions.Fraction, length d
        The query point (exact rationals).
    S : array-like of shape (n, d)
        Integer data points, counted with multiplicity.
    U : array-like of shape (k, d)
        Integer directions, ``k >= 1``. Must be **public** (chosen without looking at ``S``) for the
        depth to keep sensitivity 1 in ``S``. It need not be symmetric: both counts are taken.

    Returns
    -------
    int
        ``min over u in U of min(#{u.y >= u.x}, #{u.y <= u.x})`` in ``{0, ..., n}``. Always
        ``>= tukey_depth(x, S)`` (Claim 2.17 of Beimel, Moran, Nissim, Stemmer, COLT 2019, restricted
        to ``U``), with equality when ``U`` contains :func:`~privpac.geometry.complete_directions`
        of ``S`` (spec ``bmns-center-points`` section 4, A1). A zero direction counts every point on
        both sides and so never lowers the minimum.

    Raises
    ------
    privpac.errors.DataError
        Bad ``S`` (empty, wrong shape, non-integer values).
    privpac.errors.InvalidParameterError
        Bad ``x`` or ``U`` (wrong shape, no rows, non-integer entries).

    Notes
    -----
    Spec ``bmns-center-points`` section 7 (directional depth, [ENG]). Cost ``O(k n d)``: one exact
    matrix product ``U @ (q S - p).T``, in ``int64`` when ``d * max|U| * max|q S - p| < 2**62``
    (checked up front from the bounds), else in Python ints, vectorised in blocks of directions.

    Examples
    --------
    >>> S = [[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]]
    >>> directional_depth([1, 1], S, [[1, 0], [0, 1]]), directional_depth([1, 1], S, [[1, 1]])
    (3, 4)
    """
    arr, bound = as_integer_points(S, "S")
    n, d = arr.shape
    xq = as_rational_point(x, d, "x")
    Ud = as_directions(U, d)
    Z = translate(arr, bound, xq)
    best = n
    step = max(1, _BLOCK_ELEMENTS // n)
    for start in range(0, len(Ud), step):
        P = exact_products(Ud[start : start + step], Z)
        ge = (P >= 0).sum(axis=1)
        le = (P <= 0).sum(axis=1)
        best = min(best, int(np.minimum(ge, le).min()))
        if best == 0:
            break
    return best
