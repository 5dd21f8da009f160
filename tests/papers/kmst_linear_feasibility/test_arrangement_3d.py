"""The exact ``D = 3`` oracle of FindDeepPoint (``arrangement_levels_3d``) against brute force.

Spec ``kmst-halfspaces`` 6.2: the arrangement's vertices and depths, and the nested level intervals
of ``Q_1`` (prefix extrema), ``Q_2`` (slices of 2-D hulls) and ``Q_3`` (exact LPs by column
generation). The references here are plain Fraction enumerations: every vertex from every triple
of planes, depths counted one constraint at a time, hull slices from all pairs of points, and the
single exact LP over all points (``hull_slice_range``, itself checked against basis enumeration in
``tests/geometry/test_exact_lp.py``). Systems: random, repeated rows, coplanar rows (a zero column), many
planes through one point (the margin-1 dual of grid data), and integers beyond 2**62 that force
the Python-integer paths. Plus the fast paths' own guards: float64 depths only under their bound,
the float filter of exact signs, the exact ratio argmin, and column generation against the full LP
(the line sweep's own guards: ``tests/papers/kmst_linear_feasibility/test_arrangement_sweep.py``).
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from privpac.geometry import feasibility as F
from privpac.geometry import point_levels as PL
from privpac.geometry._exact import exact_signs
from privpac.geometry.hull_lp import hull_slice_range, hull_slice_ranges
from privpac.geometry.standard_lp import _standard, minimize_over_columns


def _systems(seed: int, count: int):
    gen = np.random.default_rng(seed)
    for trial in range(count):
        kind = trial % 5
        X = int(gen.integers(1, 3))
        m = int(gen.integers(1, 5))
        A = gen.integers(-X, X + 1, size=(m, 3))
        b = gen.integers(-X, X + 1, size=m)
        if kind == 1:  # repeated rows
            A, b = np.concatenate([A, A[:2]]), np.concatenate([b, b[:2]])
        elif kind == 2:  # coplanar normals (a zero column)
            A[:, 2] = 0
        elif kind == 3:  # integers beyond 2**62: the Python-integer paths
            scale = 2**62
            A, b = A.astype(object) * scale, b.astype(object) * scale
            X = X * scale
        elif kind == 4:  # the margin-1 dual of grid data: every positive plane through (0, 0, -1)
            pts = gen.integers(-3, 4, size=(m + 1, 2))
            y = np.where(pts @ np.array([1, 2]) >= 1, 1, -1)
            A = np.concatenate([y[:, None] * pts, -y[:, None]], axis=1)
            b = np.ones(m + 1, dtype=np.int64)
            X = 3
        yield A, b, F.bounding_box_radius(3, int(X))


def _solve3(rows):
    """The unique point on three planes ``<a, x> = w`` (Fractions), or None."""
    a = [[Fraction(int(v)) for v in r[:3]] for r in rows]
    w = [Fraction(int(r[3])) for r in rows]
    det = (
        a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
    )
    if det == 0:
        return None
    out = []
    for c in range(3):
        mat = [[w[r] if j == c else a[r][j] for j in range(3)] for r in range(3)]
        d = (
            mat[0][0] * (mat[1][1] * mat[2][2] - mat[1][2] * mat[2][1])
            - mat[0][1] * (mat[1][0] * mat[2][2] - mat[1][2] * mat[2][0])
            + mat[0][2] * (mat[1][0] * mat[2][1] - mat[1][1] * mat[2][0])
        )
        out.append(d / det)
    return tuple(out)


def _brute_vertices(A, b, R):
    """``{vertex: depth}`` from every triple of planes (constraints and box facets), in Fractions."""
    rows = [(*(int(v) for v in a), int(w)) for a, w in zip(A, b) if any(int(v) for v in a)]
    rows += [(1, 0, 0, -R), (-1, 0, 0, -R), (0, 1, 0, -R), (0, -1, 0, -R), (0, 0, 1, -R), (0, 0, -1, -R)]
    verts = set()
    for trio in itertools.combinations(rows, 3):
        v = _solve3(trio)
        if v is not None and all(abs(c) <= R for c in v):
            verts.add(v)
    return {v: sum(1 for a, w in zip(A, b) if sum(int(ai) * vi for ai, vi in zip(a, v)) >= int(w)) for v in verts}


def _slice_2d(points, t):
    """Range of ``x_2`` over the hull of 2-D points on the line ``x_1 = t``, from all pairs (None: empty)."""
    ys = [p[1] for p in points if p[0] == t]
    for u, v in itertools.combinations(points, 2):
        if (u[0] - t) * (v[0] - t) < 0:
            ys.append(u[1] + (t - u[0]) * (v[1] - u[1]) / (v[0] - u[0]))
    return (min(ys), max(ys)) if ys else None


def _brute_intervals(verts, prefix):
    out = []
    for k in range(1, max(verts.values(), default=0) + 1):
        V = [v for v, d in verts.items() if d >= k]
        if len(prefix) == 0:
            rng = (min(v[0] for v in V), max(v[0] for v in V))
        elif len(prefix) == 1:
            rng = _slice_2d(sorted({v[:2] for v in V}), prefix[0])
        else:
            den = [int(np.lcm.reduce([c.denominator for c in v])) for v in V]
            P = np.array([[int(c * d) for c in v] for v, d in zip(V, den)], dtype=object)
            rng = hull_slice_range(P, den, list(prefix))
        if rng is None:
            break
        out.append(rng)
    return out


def _prefixes(gen, levels, limit=10):
    out = [()]
    ints = levels.intervals(())
    for lo, hi in ints[:: max(1, len(ints) // 2)]:
        for p1 in {lo, hi, (lo + hi) / 2, lo + (hi - lo) / 3}:
            out.append((p1,))
            ints2 = levels.intervals((p1,))
            for lo2, hi2 in ints2[:: max(1, len(ints2) // 2)]:
                for p2 in {lo2, hi2, (lo2 + hi2) / 2}:
                    out.append((p1, p2))
    picks = gen.permutation(len(out) - 1)[: limit - 3] + 1
    return [()] + [out[j] for j in sorted(picks)] + [(Fraction(levels.R + 1),), (Fraction(0), Fraction(levels.R + 1))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_vertices_depths_and_level_intervals_match_brute_force(seed):
    gen = np.random.default_rng(seed + 100)
    checked = 0
    for A, b, R in _systems(seed, 10):
        levels = PL.arrangement_levels_3d(A, b, box=R)
        verts = _brute_vertices(A, b, R)
        got = {
            tuple(Fraction(int(p), int(qq)) for p in row): int(d)
            for row, qq, d in zip(levels.P, levels.q, levels.depths)
        }
        # the levels keep each vertex once with its depth, less those between two deeper ones on a line
        assert got.items() <= verts.items() and len(got) == len(levels.q)
        for prefix in _prefixes(gen, levels):
            assert levels.intervals(prefix) == _brute_intervals(verts, prefix), (A, b, prefix)
            checked += 1
    assert checked >= 80


def test_depths_take_float64_only_under_the_bound():
    """``D max|A| max|P| + max|b| max|q| < 2**53`` decides float64; just above it int64 answers exactly."""
    below = (np.array([[1]]), np.array([2**52 - 1]), np.array([[2**52]]), np.array([1]))
    assert F._depth_path(below[0], below[1], 2**52 - 1, below[2], below[3]) == "float64"
    assert list(F._depths(below[0], below[1], 2**52 - 1, below[2], below[3])) == [1]
    # <a, P> = 2**53 < b q = 2**53 + 1: not satisfied. A float64 difference would round it to 0 (satisfied).
    A, b, P, q = np.array([[1]]), np.array([2**53 + 1]), np.array([[2**53]]), np.array([1])
    assert np.float64(2**53) - np.float64(2**53 + 1) >= 0  # why the bound matters
    assert F._depth_path(A, b, 2**53 + 1, P, q) == "int64"
    assert list(F._depths(A, b, 2**53 + 1, P, q)) == [0]
    big = (A.astype(object), b.astype(object) * 2**20, P.astype(object) * 2**20, q)
    assert F._depth_path(big[0], big[1], (2**53 + 1) * 2**20, big[2], big[3]) == "object"
    assert list(F._depths(big[0], big[1], (2**53 + 1) * 2**20, big[2], big[3])) == [0]
    # a random block on both sides of the bound agrees with the one-constraint-at-a-time count
    gen = np.random.default_rng(5)
    for scale in (1, 2**40, 2**49):
        A = gen.integers(-9, 10, size=(30, 3)) * scale
        b = gen.integers(-9, 10, size=30) * scale
        P = gen.integers(-50, 51, size=(200, 3)) * 2**4
        q = gen.integers(1, 9, size=200)
        rows = list(zip(A.astype(object), b.astype(object)))
        want = [sum(int(a @ p) >= int(w) * int(qq) for a, w in rows) for p, qq in zip(P.astype(object), q)]
        assert list(F._depths(A, b, int(np.abs(b).max()), P, q)) == want


def test_exact_signs_defer_near_ties_to_integers():
    gen = np.random.default_rng(6)
    for trial in range(100):
        n = 50
        cols = [gen.integers(-(2**40), 2**40, size=n) for _ in range(3)]
        coefs = [int(gen.integers(-(2**40), 2**40)) * 2**30 for _ in range(3)]
        if trial % 2:  # exact ties and off-by-one values: sums of 0 and +-1 far below the terms' size
            cols[2] = np.ones(n, dtype=np.int64)
            coefs[2] = 0
            coefs[1] = coefs[0]
            cols[1] = -cols[0] + gen.integers(-1, 2, size=n)
        want = [int(np.sign(sum(c * int(col[j]) for c, col in zip(coefs, cols)))) for j in range(n)]
        assert list(exact_signs(cols, coefs)) == want
        obj = [c.astype(object) * 2**70 for c in cols]
        assert list(exact_signs(obj, coefs)) == want


def test_the_ratio_argmin_is_exact_where_floats_tie():
    big = 2**60
    num = np.array([big + 1, big, big + 2, 3 * big], dtype=object)
    den = np.array([big, big - 1, big + 1, 3 * big + 1], dtype=object)  # floats see four 1.0s
    vals = [Fraction(int(a), int(c)) for a, c in zip(num, den)]
    assert PL._argmin_ratio(num, den) == vals.index(min(vals))
    assert PL._argmin_ratio(-num, den) == vals.index(max(vals))
    gen = np.random.default_rng(7)
    for _ in range(50):
        num = gen.integers(-30, 31, size=20)
        den = gen.integers(1, 7, size=20)
        vals = [Fraction(int(a), int(c)) for a, c in zip(num, den)]
        assert vals[PL._argmin_ratio(num, den)] == min(vals)


def _bounded_program(gen, N, degenerate=False):
    """``M y = rhs`` with a positive last row (bounded), feasible from a known small support."""
    M = np.vstack([gen.integers(-20, 21, size=(2, N)), gen.integers(1, 5, size=(1, N))])
    if degenerate:  # many copies of one column, and the first row a multiple of the last
        M[:, N // 2 :] = M[:, [N // 2]]
        M[0, : N // 3] = 2 * M[2, : N // 3]
    support = gen.choice(N, size=3, replace=False)
    y0 = gen.integers(1, 4, size=3)
    rhs = [int(v) for v in M[:, support] @ y0]
    cost = gen.integers(-30, 31, size=N)
    return M, rhs, cost, support


def test_column_generation_equals_the_full_exact_program():
    gen = np.random.default_rng(9)
    for trial in range(30):
        N = int(gen.integers(5, 400))
        M, rhs, cost, support = _bounded_program(gen, N, degenerate=trial % 4 == 0)
        full = _standard(M, rhs, cost, use_highs=False)
        got = minimize_over_columns(M, rhs, cost, N, support)
        assert got.value == full.value
        # the certificate, recomputed: pi.rhs = value and no column prices out
        assert sum(p * r for p, r in zip(got.pi, rhs)) == got.value
        assert all(int(cost[j]) - sum(p * int(M[r, j]) for r, p in enumerate(got.pi)) >= 0 for j in range(N))
        # nested column sets, warm-started from the previous optimum
        cuts = sorted({int(support.max()) + 1, (int(support.max()) + 1 + N) // 2, N})
        state = None
        for c in cuts:
            state = minimize_over_columns(M, rhs, cost, c, support, state)
            assert state.value == _standard(M[:, :c], rhs, cost[:c], use_highs=False).value


def test_column_generation_refuses_start_columns_that_are_not_feasible():
    M = np.array([[1, 2, 3], [1, 1, 1]])
    with pytest.raises(RuntimeError, match="feasible"):
        minimize_over_columns(M, [5, 2], np.array([1, 1, 1]), 3, [0])  # column 0 alone cannot reach (5, 2)


def test_hull_slice_ranges_match_the_single_program_per_count():
    gen = np.random.default_rng(10)
    for trial in range(20):
        k = int(gen.integers(4, 60))
        P = gen.integers(-9, 10, size=(k, 3))
        q = gen.integers(1, 4, size=k)
        if trial % 3 == 0:
            P[:, 1] = P[:, 0]  # projections on a line
        prefix = [Fraction(int(P[0, 0]), int(q[0])), Fraction(int(P[0, 1]), int(q[0]))]
        counts = sorted({1, k // 2, k} - {0})
        ranges = hull_slice_ranges(P, q, prefix, counts, seeds=[[0]] * len(counts))
        assert ranges == [hull_slice_range(P[:c], q[:c], prefix) for c in counts]
