"""Exact depth and convexified depth of integer systems A x >= b (Kaplan, Mansour, Stemmer, Tsfadia).

Spec kmst-halfspaces 0, 2.1, 2.3 (Claim 4.1), 3.2 and 3.4 (the Lemma 4.3 / B.2 counterexample), 3.5
(the degenerate ERM output) and 8 (items 1, 2 and 7).
"""

import random
from fractions import Fraction as F

import numpy as np
import pytest

from privpac.errors import DataError, InvalidParameterError
from privpac.geometry.convexified import cdepth, convex_superlevel_set
from privpac.geometry.feasibility import bounding_box_radius, depth

# ---------------------------------------------------------------------------------------------
# depth (spec 8, item 1)
# ---------------------------------------------------------------------------------------------


def test_depth_hand_cases():
    A = [[1, 0], [0, 1], [1, 1], [0, 0], [0, 0], [1, 0]]
    b = [0, 0, 1, 0, 1, 0]  # a zero row counts iff w <= 0; the last row duplicates the first
    assert depth([0, 0], A, b) == 4  # on the hyperplanes x1 = 0, x2 = 0 (satisfied), 0 >= 0; not x1 + x2 >= 1
    assert depth([F(1, 2), F(1, 2)], A, b) == 5  # exactly on x1 + x2 = 1
    assert depth([F(-1, 3), 5], A, b) == 3
    assert depth([F(1, 3)], [[3]], [1]) == 1 and depth([F(1, 3)], [[3]], [2]) == 0


def test_depth_big_integers_take_the_exact_path():
    big = 2**80
    A = np.array([[big, 1], [-big, 0]], dtype=object)
    # x = (1/big, -1): big/big - 1 = 0 >= 0 (on the hyperplane); -1 >= -1
    assert depth([F(1, big), -1], A, [0, -1]) == 2
    assert depth([F(1, big) - F(1, big**2), -1], A, [0, -1]) == 1
    # int64 data whose products overflow int64 are also exact
    A64 = np.array([[2**61, 2**61]], dtype=np.int64)
    assert depth([F(3, 2), F(-3, 2)], A64, [0]) == 1
    assert depth([F(3, 2), F(-3, 2) - F(1, 2**40)], A64, [0]) == 0


def test_depth_bad_input():
    with pytest.raises(DataError, match="b"):
        depth([0], [[1], [2]], [1])
    with pytest.raises(DataError, match="integers"):
        depth([0], [[1.5]], [1])
    with pytest.raises(InvalidParameterError, match="Fraction"):
        depth([0.25], [[1]], [1])
    with pytest.raises(InvalidParameterError, match="coordinate"):
        depth([0, 0], [[1]], [1])


# ---------------------------------------------------------------------------------------------
# cdepth (spec 2.1): D = 1 unboxed, D = 2 boxed
# ---------------------------------------------------------------------------------------------


def test_cdepth_footnote_example_is_quasi_concave_where_depth_is_not():
    # Footnote 4: x2 >= x1 and x2 <= -x1 at x1 = 1: depth on the slice is 1, 0, 1 at x2 = -1, 0, 1 (not
    # quasi-concave); cdepth is 1 on the whole slice between (and at least depth everywhere).
    A, b = [[-1, 1], [-1, -1]], [0, 0]
    R = bounding_box_radius(2, 1)
    assert [depth([1, t], A, b) for t in (-1, 0, 1)] == [1, 0, 1]
    assert [cdepth([1, t], A, b, box=R) for t in (-1, 0, 1)] == [1, 1, 1]


def test_cdepth_1d_unbounded_rays_and_box():
    A, b = [[1], [-1], [1]], [1, 1, 3]  # x >= 1, x <= -1, x >= 3
    level1 = convex_superlevel_set(A, b, 1)
    assert level1.interval == (None, None)
    assert convex_superlevel_set(A, b, 2).interval == (F(3), None)
    assert convex_superlevel_set(A, b, 3).empty
    assert [cdepth([t], A, b) for t in (-100, 0, 2, 3, 100)] == [1, 1, 1, 2, 2]
    R = 5
    assert convex_superlevel_set(A, b, 1, box=R).interval == (F(-5), F(5))
    assert convex_superlevel_set(A, b, 1, box=R).touches_box
    assert cdepth([6], A, b, box=R) == 0  # f_B is 0 outside the box


def test_cdepth_2d_needs_a_box():
    with pytest.raises(InvalidParameterError, match="box"):
        cdepth([0, 0], [[1, 0]], [0])
    with pytest.raises(InvalidParameterError, match="D = 1 and D = 2"):
        cdepth([0, 0, 0], [[1, 0, 0]], [0])


def test_bounding_box_radius():
    assert bounding_box_radius(2, 3) == 18  # ceil(2^1) * 3^2
    assert bounding_box_radius(3, 2) == 6 * 8  # ceil(sqrt(27)) = 6
    assert bounding_box_radius(1, 7) == 7


def _random_system(rng, m, D, X):
    A = [[rng.randint(-X, X) for _ in range(D)] for _ in range(m)]
    b = [rng.randint(-X, X) for _ in range(m)]
    return A, b


def _random_point(rng, D, span):
    """A rational point of [-span, span]^D with small denominators."""
    out = []
    for _ in range(D):
        q = rng.choice([1, 2, 3, 4, 6, 12])
        out.append(F(rng.randint(-span * q, span * q), q))
    return out


@pytest.mark.parametrize("D", [1, 2])
def test_claim_4_1_and_basic_facts_on_random_systems(D):
    """Claim 4.1 (spec 2.3, 8 item 2): depth(x) >= (D + 1) cdepth(x) - D m; also depth <= cdepth <= max depth."""
    rng = random.Random(20200 + D)
    for _ in range(40 if D == 2 else 120):
        m = rng.randint(1, 7)
        X = rng.randint(1, 3)
        A, b = _random_system(rng, m, D, X)
        R = bounding_box_radius(D, X) if D == 2 else None
        span = R if R is not None else 2 * X
        top = max(k for k in range(m + 1) if k == 0 or not convex_superlevel_set(A, b, k, box=R).empty)
        for _ in range(8):
            x = _random_point(rng, D, span)
            c = cdepth(x, A, b, box=R)
            f = depth(x, A, b)
            assert f >= (D + 1) * c - D * m
            assert f <= c <= top
        # a vertex of the top level attains the maximum of both scores
        if top:
            level = convex_superlevel_set(A, b, top, box=R)
            if D == 2:
                p = level.polygon[0]
            else:
                finite = [v for v in level.interval if v is not None]
                p = (finite[0],) if finite else None  # a hull of two opposite rays has no vertex
            if p is not None:
                assert cdepth(p, A, b, box=R) == top == depth(p, A, b)


# ---------------------------------------------------------------------------------------------
# Erratum: Lemma 4.3 / Lemma B.2 are false for i >= 2 (spec 3.2, 3.4, 8 item 7, 10 item 5)
# ---------------------------------------------------------------------------------------------

COUNTEREXAMPLE = [(2, 2, -3), (0, 2, -1), (-1, -1, -2), (-3, -3, -3), (-3, -1, 0), (-1, 0, 3), (3, -2, 1)]
PREFIX = F(-6, 5)


def _cx():
    A = [row[:2] for row in COUNTEREXAMPLE]
    b = [row[2] for row in COUNTEREXAMPLE]
    return A, b


def _slice_points(A, b, x1):
    """Where the constraint lines meet x_1 = x1: the only candidates Lemma 4.3 allows at i = D = 2."""
    return sorted(F(w - a1 * x1, a2) for (a1, a2), w in zip(A, b) if a2 != 0)


def paper_b2_flawed_oracle(A, b, x1):
    """The paper's App. B.2 evaluation of Q_2 (flawed; a test helper only, never in the library).

    Candidate points are the intersections of the restricted constraint hyperplanes with the slice
    (Lemma B.2); each gets the depth there; the list keeps the "decreasing points" (Def B.1) and
    Q(t) = min(k', k'') of the list neighbours around t. Returns (list, Q).
    """
    cand = [(t, depth([x1, t], A, b)) for t in _slice_points(A, b, x1)]

    def q(t):
        left = [k for s, k in cand if s <= t]
        right = [k for s, k in cand if s >= t]
        if not left or not right:
            return 0
        return min(max(left), max(right))

    return cand, q


def test_lemma_4_3_counterexample_with_the_exact_convexified_depth():
    A, b = _cx()
    R = bounding_box_radius(2, 3)
    assert R == 18
    # level 7 is empty: the maximum of Q_2 on this slice (and of depth anywhere) is 6 of 7
    assert convex_superlevel_set(A, b, 7, box=R).empty
    level6 = convex_superlevel_set(A, b, 6, box=R)
    argmax = level6.slice(PREFIX)
    assert argmax == (F(3, 10), F(209, 140))
    # every constraint line meets the slice outside the argmax interval
    points = _slice_points(A, b, PREFIX)
    assert points == [F(-23, 10), F(-1, 2), F(-3, 10), F(11, 5), F(16, 5), F(18, 5)]
    assert not any(argmax[0] <= t <= argmax[1] for t in points)
    # Q_2(t) = cdepth(-6/5, t) (i = D: nothing left to maximise); 6 inside, below 6 just outside
    for t in (F(3, 10), F(1), F(209, 140)):
        assert cdepth([PREFIX, t], A, b, box=R) == 6
    for t in (F(3, 10) - F(1, 10**6), F(209, 140) + F(1, 10**6)) + tuple(points):
        assert cdepth([PREFIX, t], A, b, box=R) < 6
    # the true depth on the slice never exceeds 5: the maximiser is a convex combination of points
    # off the slice, exactly what the proof of Lemma 4.3 overlooks
    assert max(depth([PREFIX, t], A, b) for t in points + [F(1)]) == 5
    # Level 6 is unbounded (it reaches the box), yet the slice does not move with the box radius
    assert level6.touches_box
    for big in (10**3, 10**9, 10**30):
        assert convex_superlevel_set(A, b, 6, box=big).slice(PREFIX) == argmax


def test_the_b2_oracle_computes_a_different_function():
    A, b = _cx()
    R = bounding_box_radius(2, 3)
    cand, q_b2 = paper_b2_flawed_oracle(A, b, PREFIX)
    assert [k for _, k in cand] == [4, 4, 5, 5, 4, 3]
    # its maximum is 5, the true maximum is 6; they differ at every point of the argmax interval
    assert max(q_b2(t) for t, _ in cand) == 5
    for t in (F(3, 10), F(1), F(209, 140)):
        assert q_b2(t) == 5 != cdepth([PREFIX, t], A, b, box=R) == 6


# ---------------------------------------------------------------------------------------------
# Erratum: the ERM reduction's degenerate output a* = 0 (spec 3.5, 8 item 19, 10 item 9)
# ---------------------------------------------------------------------------------------------


def _dual(xs, ys, rhs):
    """The point-halfspace dual on (a, w): y (a x - w) >= rhs (rhs = 0: paper; 1: margin-1)."""
    return [[y * x, -y] for x, y in zip(xs, ys)], [rhs] * len(xs)


def test_erm_dual_has_the_origin_at_full_depth_and_forces_w_zero():
    xs, ys = [5, 6, 7, 1, 2, 3], [1, 1, 1, -1, -1, -1]  # positives at x >= 5, negatives at x <= 3
    A, b = _dual(xs, ys, 0)
    m = len(xs)
    assert depth([0, 0], A, b) == m  # the origin satisfies every homogeneous constraint
    R = bounding_box_radius(2, 7)
    top = convex_superlevel_set(A, b, m, box=R)
    # Q_1(a) is maximal (= m) exactly on a in [0, R/3] (the feasible cone 3a <= w <= 5a cut by |w| <= R) ...
    assert min(p[0] for p in top.polygon) == 0 and max(p[0] for p in top.polygon) == F(R, 3)
    # ... so RecConcave may return a* = 0, and then the slice forces w* = 0
    assert top.slice(0) == (0, 0)
    # h(x) = +1 iff 0 * x >= 0: every point is labelled +1, the error is the fraction of negatives
    assert sum(1 for x, y in zip(xs, ys) if (1 if 0 * x >= 0 else -1) != y) / m == F(1, 2)


def test_margin_1_dual_excludes_the_origin_and_stays_feasible():
    xs, ys = [5, 6, 7, 1, 2, 3], [1, 1, 1, -1, -1, -1]
    A, b = _dual(xs, ys, 1)
    assert depth([0, 0], A, b) == 0
    assert depth([1, 4], A, b) == len(xs)  # a = 1, w = 4 separates with margin 1
    # every satisfied constraint classifies its point correctly
    for a, w in [(1, 4), (2, 7), (F(1, 2), 2)]:
        for (ax, aw), rhs, x, y in zip(A, b, xs, ys):
            if ax * a + aw * w >= rhs:
                assert (1 if a * x >= w else -1) == y
