"""The one-shot baseline FindTukey is measured against (B1); the other baseline, a private median per
coordinate, is :func:`privpac.estimators.median.coordinatewise_median` (it composes the library's
private median, which lives with its estimator).

Beimel, Moran, Nissim and Stemmer, "Private Center Points and Learning of Halfspaces" (COLT 2019);
spec ``bmns-center-points`` section 4, "Baselines B1-B3".

* :func:`one_shot_center_point` (B1, the paper's footnote 1): the exponential mechanism with quality
  ``td(v; S)`` over every candidate vertex ``V`` of the public box, for toy domains only;
* :func:`candidate_vertices`: that public candidate set ``V``;
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..accountant import BudgetAccountant, accounted_release
from ..accounting import PrivacyLedger
from ..errors import InvalidParameterError
from ..geometry import tukey_depth
from ..mechanisms.exponential import exponential_mechanism
from ..random import as_random_source
from ..validation import check_budget_epsilon, check_int
from .center_point import check_points_in_box

__all__ = ["ONE_SHOT_WORK_LIMIT", "candidate_vertices", "one_shot_center_point"]

#: Largest ``|V| * n`` (candidates times records) :func:`one_shot_center_point` accepts: one exact depth
#: per candidate. Checked from the public ``B``, ``d`` and ``n`` only, before any depth is computed.
ONE_SHOT_WORK_LIMIT = 2_000_000

_VERTEX_CACHE: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _grid_lines(B: int) -> np.ndarray:
    """Every line through two points of ``Z^2 ∩ [-B, B]^2`` as a primitive integer row ``(a, b, c)``,
    ``a x + b y = c``, sign fixed by ``a > 0`` or ``a = 0 < b``; one row per line."""
    g = np.arange(-B, B + 1)
    P = np.array(np.meshgrid(g, g, indexing="ij")).reshape(2, -1).T
    i, j = np.triu_indices(len(P), k=1)
    a = P[j, 1] - P[i, 1]
    b = P[i, 0] - P[j, 0]
    s = np.gcd(a, b)
    a, b = a // s, b // s
    flip = (a < 0) | ((a == 0) & (b < 0))
    a, b = np.where(flip, -a, a), np.where(flip, -b, b)
    c = a * P[i, 0] + b * P[i, 1]
    return np.unique(np.column_stack([a, b, c]), axis=0)


def candidate_vertices(B: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The public candidate set ``V`` of B1 for the box ``X = Z^d ∩ [-B, B]^d``, ``d in {1, 2}``.

    ``V`` is the set of unique intersection points of at most ``d`` flats of ``L(X)`` (the flats
    spanned by at most ``d`` points of ``X``), spec ``bmns-center-points`` B1: in ``d = 1`` the
    points of ``X``; in ``d = 2`` the points of ``X`` and every point where two non-parallel lines
    through two points of ``X`` cross, kept when it lies in the box (a point outside the box is
    outside ``conv(S)`` for every ``S ⊆ X``, so its depth is always 0). It is a function of ``B``
    and ``d`` only.

    Returns ``(P, q)``: integer numerators of shape ``(|V|, d)`` and positive denominators of shape
    ``(|V|,)``, each row in lowest terms, rows in lexicographic order of ``(P, q)``: the candidate
    ``k`` is ``P[k] / q[k]``.
    """
    B = check_int(B, "B", low=1)
    d = check_int(d, "d", low=1)
    if d not in (1, 2):
        raise InvalidParameterError(f"the one-shot baseline is implemented for d = 1 and d = 2, got d = {d}")
    key = (B, d)
    if key not in _VERTEX_CACHE:
        if d == 1:
            P, q = np.arange(-B, B + 1, dtype=np.int64)[:, None], np.ones(2 * B + 1, dtype=np.int64)
        else:
            L = _grid_lines(B)
            i, j = np.triu_indices(len(L), k=1)
            (a1, b1, c1), (a2, b2, c2) = L[i].T, L[j].T
            det = a1 * b2 - a2 * b1
            keep = det != 0
            det, a1, b1, c1, a2, b2, c2 = (v[keep] for v in (det, a1, b1, c1, a2, b2, c2))
            x, y = c1 * b2 - c2 * b1, a1 * c2 - a2 * c1  # Cramer: (x, y) / det
            sign = np.where(det < 0, -1, 1)
            x, y, det = x * sign, y * sign, det * sign
            inside = (np.abs(x) <= B * det) & (np.abs(y) <= B * det)
            x, y, det = x[inside], y[inside], det[inside]
            g = np.gcd(np.gcd(x, y), det)
            V = np.unique(np.column_stack([x // g, y // g, det // g]), axis=0)
            P, q = V[:, :2], V[:, 2]
        _VERTEX_CACHE[key] = (P, q)
    P, q = _VERTEX_CACHE[key]
    return P.copy(), q.copy()


def one_shot_center_point(
    S,
    B: int,
    epsilon: float,
    *,
    ledger: PrivacyLedger | None = None,
    accountant: BudgetAccountant | None = None,
    rng=None,
) -> tuple[Fraction, ...]:
    """Baseline B1: one exponential mechanism over every candidate vertex, quality the exact Tukey depth.

    Beimel, Moran, Nissim, Stemmer (COLT 2019), footnote 1; spec ``bmns-center-points`` B1 (section
    4) and section 5. For toy domains only: it computes the depth of every candidate.

    Parameters
    ----------
    S : array-like of shape (n, d)
        Integer points of the public box ``[-B, B]^d``, ``d in {1, 2}`` (the private data;
        replace-one neighbours, ``n`` public).
    B : int
        Public bound of the box.
    epsilon : float
        The budget; the release is pure ``(epsilon, 0)``-DP.
    ledger : PrivacyLedger, optional
        This call as one step of a release whose ledger the caller owns; otherwise the call is a
        release of its own, filed with ``accountant`` (or the default).
    rng : None, int or RandomSource
        ``None`` is secure randomness.

    Returns
    -------
    tuple of fractions.Fraction
        A candidate vertex ``v`` chosen with probability proportional to ``exp(epsilon td(v; S) / 2)``.

    Raises
    ------
    InvalidParameterError
        ``d`` not in ``{1, 2}``, or ``|V| * n`` above :data:`ONE_SHOT_WORK_LIMIT` (checked from
        ``B``, ``d`` and ``n`` only, never from the values, before any depth is computed).

    Privacy
    -------
    ``V`` is a function of ``B`` and ``d`` only (:func:`candidate_vertices`). For each fixed
    ``v``, ``S -> td(v; S)`` has sensitivity 1 under replace-one neighbours (Observation 2.16),
    and :func:`~privpac.geometry.tukey_depth` computes it exactly (integer predicates), so the
    exponential mechanism over ``V`` at sensitivity 1 is ``(epsilon, 0)``-DP (McSherry and
    Talwar). The budget is charged before the draw; the refusal above depends on public sizes only.
    Checked exactly through this function by the registered audit ``center-point-one-shot``
    (``B = 1``, ``n = 4``: the spec's ``X = {0, 1, 2}^2`` shifted to ``[-1, 1]^2``).

    Utility: with probability ``1 - beta`` the depth is at least ``n/(2(d+1))`` once
    ``n >= 4(d+1)(ln|V| + ln(1/beta))/epsilon`` (the exponential mechanism's bound with the
    centerpoint theorem, Claim 2.19; ``V`` holds a vertex of the deepest region).
    """
    B = check_int(B, "B", low=1)
    epsilon = check_budget_epsilon(epsilon)
    arr = check_points_in_box(S, B, name="S")
    n, d = arr.shape
    if d not in (1, 2):
        raise InvalidParameterError(f"the one-shot baseline is implemented for d = 1 and d = 2, got d = {d}")
    if d == 2 and B > 4:  # building V alone needs |L(X)|^2 / 2 ~ (2B+1)^8 / 8 intersections
        raise InvalidParameterError(
            f"the one-shot baseline enumerates every vertex of the grid's line arrangement, about (2B+1)^8/8 "
            f"intersections: B = {B} is above the toy sizes it is meant for (B <= 4 in d = 2); use "
            "PrivateCenterPoint (FindTukey)"
        )
    size = len(candidate_vertices(B, d)[1])  # a function of B and d only
    if size * n > ONE_SHOT_WORK_LIMIT:
        raise InvalidParameterError(
            f"the one-shot baseline computes one exact depth per candidate: {size:,} candidates times n = {n:,} "
            f"records is above ONE_SHOT_WORK_LIMIT = {ONE_SHOT_WORK_LIMIT:,}; use PrivateCenterPoint (FindTukey)"
        )
    P, q = candidate_vertices(B, d)
    with accounted_release(
        "one-shot center point", epsilon, 0.0, ledger=ledger, accountant=accountant, label="one-shot center point (B1)"
    ) as run:
        points = [tuple(Fraction(int(p), int(qk)) for p in row) for row, qk in zip(P, q)]
        depths = np.array([tukey_depth(v, arr) for v in points], dtype=np.int64)
        k = exponential_mechanism(
            depths,
            epsilon,
            ledger=run,
            label="one-shot center point: exponential mechanism on Tukey depth",
            over=f"the {len(points):,} vertices of the line arrangement of [-{B}, {B}]^{d} (spec B1)",
            rng=as_random_source(rng),
        )
    return points[k]
