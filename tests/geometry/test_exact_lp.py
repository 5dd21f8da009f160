"""Exact linear programs (``privpac.geometry.exact_lp``, ``hull_lp``, ``standard_lp``) against vertex enumeration.

* random bounded integer systems in 2-D and 3-D: the HiGHS-certified answer, the exact simplex
  alone, and the best feasible vertex agree, and every certificate re-checks from scratch;
* degenerate systems (many constraints through one vertex), infeasible and unbounded systems,
  rank-deficient rows;
* integers far beyond float64's exact range, where the float step is wrong or refuses: the exact
  fallback is still right;
* the V-form slice range against the brute-force hull slice.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from privpac.errors import InvalidParameterError
from privpac.geometry.exact_lp import (
    check_certificate,
    coordinate_range,
    maximize,
    minimize,
)
from privpac.geometry.hull_lp import hull_slice_range


def _solve(mat, vec):
    from privpac.geometry.standard_lp import _solve as solve

    return solve([[Fraction(int(v)) for v in row] for row in mat], [Fraction(v) for v in vec])


def _brute_max(c, A, b):
    """Best objective over the feasible vertices of {A x <= b} (None when there is none)."""
    A = [[int(v) for v in row] for row in A]
    n = len(A[0])
    best = None
    for rows in itertools.combinations(range(len(A)), n):
        x = _solve([A[r] for r in rows], [b[r] for r in rows])
        if x is None:
            continue
        if all(sum(a * xi for a, xi in zip(A[j], x)) <= b[j] for j in range(len(A))):
            v = sum(Fraction(ci) * xi for ci, xi in zip(c, x))
            best = v if best is None or v > best else best
    return best


def _boxed(gen, m, n, X, box):
    A = gen.integers(-X, X + 1, size=(m, n))
    b = gen.integers(-X, X + 1, size=m)
    A = np.vstack([A, np.eye(n, dtype=np.int64), -np.eye(n, dtype=np.int64)])
    b = np.concatenate([b, [box] * (2 * n)])
    return A, [int(v) for v in b]


@pytest.mark.parametrize("n", [2, 3])
def test_random_bounded_systems_match_vertex_enumeration(n):
    gen = np.random.default_rng(100 + n)
    seen = set()
    for _ in range(40 if n == 2 else 25):
        A, b = _boxed(gen, int(gen.integers(1, 8)), n, 5, int(gen.integers(1, 6)))
        c = [int(v) for v in gen.integers(-4, 5, size=n)]
        want = _brute_max(c, A, b)
        for use_highs in (True, False):
            got = maximize(c, A, b, use_highs=use_highs)
            seen.add(got.status)
            if want is None:
                assert got.status == "infeasible"
            else:
                assert got.status == "optimal" and got.value == want
                check_certificate(got, c, A, b)
        low = minimize(c, A, b)
        if want is not None:
            assert low.value == -_brute_max([-v for v in c], A, b)
            check_certificate(low, c, A, b, sense="min")
    assert seen == {"optimal", "infeasible"}


def test_degenerate_vertex_with_many_tight_constraints():
    # 12 planes through (1, 1, 1) plus the box: the optimum sits on a highly degenerate vertex
    gen = np.random.default_rng(7)
    rows = gen.integers(-4, 5, size=(12, 3))
    rows = rows[np.any(rows != 0, axis=1)]
    A = np.vstack([rows, -rows[:1] * 0 + [[1, 1, 1]]])
    b = [int(r.sum()) for r in A]  # every row tight at (1, 1, 1)
    A = np.vstack([A, np.eye(3, dtype=np.int64), -np.eye(3, dtype=np.int64)])
    b = b + [3, 3, 3, 3, 3, 3]
    for c in ([1, 1, 1], [1, 0, 0], [0, -1, 2]):
        want = _brute_max(c, A, b)
        for use_highs in (True, False):
            got = maximize(c, A, b, use_highs=use_highs)
            assert got.value == want
            check_certificate(got, c, A, b)


def test_infeasible_unbounded_and_rank_deficient_systems():
    assert maximize([1, 0], [[1, 0], [-1, 0]], [0, -1]).status == "infeasible"
    assert maximize([1, 0], [[-1, 0]], [0]).status == "unbounded"
    assert maximize([0, 1], [[1, 0], [-1, 0]], [2, 0]).status == "unbounded"
    # x_2 unconstrained but not in the objective: bounded, the point has some x_2
    r = maximize([1, 0], [[1, 0], [-1, 0]], [2, 0])
    assert r.status == "optimal" and r.value == 2
    check_certificate(r, [1, 0], [[1, 0], [-1, 0]], [2, 0])
    # a rational right-hand side and objective
    r = maximize([Fraction(1, 3), 1], [[1, 1], [-1, 0], [0, -1]], [Fraction(5, 7), 0, 0])
    assert r.value == Fraction(5, 7)
    assert coordinate_range([[1, 1], [-1, -1], [1, -1], [-1, 1]], [2, 0, 0, 0], 0) == (0, 1)
    assert coordinate_range([[1, 0], [-1, 0]], [0, -1], 1) is None
    assert coordinate_range([[1, 0]], [3], 0) == (None, 3)
    assert maximize([1], [[0], [0]], [0, 1]).status == "unbounded"
    assert maximize([0], [[0]], [-1]).status == "infeasible"


def test_integers_beyond_float64_are_exact():
    # x_1 <= 2^80 + 1, x_1 + x_2 <= 2^80 + 3, 0 <= x_2 <= 1: a float solve cannot tell these apart
    big = 2**80
    A = [[1, 0], [1, 1], [-1, 0], [0, -1], [0, 1]]
    b = [big + 1, big + 3, 0, 0, 1]
    for use_highs in (True, False):
        r = maximize([1, 1], A, b, use_highs=use_highs)
        assert r.value == big + 2 == _brute_max([1, 1], A, b)
        check_certificate(r, [1, 1], A, b)
    # near-parallel huge rows whose vertex needs every bit
    A = [[big, big + 1], [big + 1, big + 2], [-1, 0], [0, -1]]
    b = [big**2, big**2 + 7, 10**40, 10**40]
    want = _brute_max([1, 0], A, b)
    r = maximize([1, 0], A, b)
    assert r.value == want
    check_certificate(r, [1, 0], A, b)
    # beyond float range altogether: HiGHS is skipped, the exact simplex answers
    huge = 10**400
    r = maximize([1], [[1], [-1]], [huge, 0])
    assert r.value == huge and r.method == "exact simplex"


def _hull_slice_brute(points, prefix):
    """Range of x_i over conv(points) ∩ {x_<i = prefix} by enumerating bases of the V-form LP."""
    i = len(prefix) + 1
    cols = [[*p[: i - 1], Fraction(1)] for p in points]
    rhs = [*prefix, Fraction(1)]
    vals = []
    for idx in itertools.combinations(range(len(points)), i):
        mat = [[cols[j][r] for j in idx] for r in range(i)]
        lam = _solve_frac(mat, rhs)
        if lam is not None and all(v >= 0 for v in lam):
            vals.append(sum(lv * points[j][i - 1] for lv, j in zip(lam, idx)))
    # rank-deficient slices (points on a line or plane): fewer columns suffice
    for k in range(1, i):
        for idx in itertools.combinations(range(len(points)), k):
            sub = [[cols[j][r] for j in idx] for r in range(i)]
            lam = _lstsq_exact(sub, rhs)
            if lam is not None and all(v >= 0 for v in lam):
                vals.append(sum(lv * points[j][i - 1] for lv, j in zip(lam, idx)))
    return (min(vals), max(vals)) if vals else None


def _solve_frac(mat, vec):
    from privpac.geometry.standard_lp import _solve as solve

    return solve(mat, vec)


def _lstsq_exact(sub, rhs):
    """The exact solution of an overdetermined consistent system (or None)."""
    rows, k = len(sub), len(sub[0])
    for pick in itertools.combinations(range(rows), k):
        lam = _solve_frac([sub[r] for r in pick], [rhs[r] for r in pick])
        if lam is not None:
            ok = all(sum(sub[r][j] * lam[j] for j in range(k)) == rhs[r] for r in range(rows))
            return lam if ok else None
    return None


@pytest.mark.parametrize("i", [2, 3])
def test_hull_slice_range_matches_enumeration(i):
    gen = np.random.default_rng(40 + i)
    for trial in range(30):
        k = int(gen.integers(1, 7))
        P = gen.integers(-6, 7, size=(k, 3))
        q = gen.integers(1, 4, size=k)
        if trial % 5 == 0:  # coplanar / collinear clouds
            P[:, 1] = P[:, 0]
        points = [tuple(Fraction(int(v), int(qq)) for v in row) for row, qq in zip(P, q)]
        j = int(gen.integers(0, k))
        prefix = list(points[j][: i - 1])
        if trial % 2:
            prefix[0] += Fraction(int(gen.integers(-2, 3)), 3)
        want = _hull_slice_brute(points, prefix)
        for use_highs in (True, False):
            assert hull_slice_range(P, q, prefix, use_highs=use_highs) == want


def test_inputs_are_checked():
    with pytest.raises(InvalidParameterError, match="Fraction"):
        maximize([0.5, 1], [[1, 0]], [1])
    with pytest.raises(InvalidParameterError, match="2 entries"):
        maximize([1], [[1, 0]], [1])
    with pytest.raises(InvalidParameterError, match="coordinate index"):
        coordinate_range([[1, 0]], [1], 2)


def test_the_float_filter_signs_reduced_costs_exactly():
    """The float-filtered sign test of the reduced costs equals the all-integer one, near zero too."""
    from privpac.geometry.standard_lp import _float_view, _negative_columns

    gen = np.random.default_rng(9)
    for trial in range(200):
        n, m = int(gen.integers(1, 4)), int(gen.integers(1, 30))
        M = gen.integers(-9, 10, size=(n, m))
        pi = [Fraction(int(gen.integers(-50, 51)), int(gen.integers(1, 7))) for _ in range(n)]
        if trial % 3 == 0:  # costs exactly on, or a hair away from, pi.M: the filter must defer to exact
            base = [sum(p * int(M[k, j]) for k, p in enumerate(pi)) for j in range(m)]
            cost = np.array([int(np.floor(v)) + int(gen.integers(-1, 2)) for v in base], dtype=np.int64)
        else:
            cost = gen.integers(-100, 101, size=m)
        if trial % 7 == 0:  # huge entries: products beyond float64's exact range
            M = M.astype(object) * 2**70
            cost = cost.astype(object) * 2**70
        exact = _negative_columns(M, cost, pi, None, m)
        filtered = _negative_columns(M, cost, pi, _float_view(M, cost), m)
        assert list(exact) == list(filtered)


def test_pricing_in_float_blocks_and_the_lazy_negated_cost(monkeypatch):
    """Columns priced block by block (no float copy of every column) give the all-integer signs, and the
    nested slice ranges over int64 levels (the lazily negated maximum's cost) are those of the single LPs."""
    from privpac.geometry import standard_lp
    from privpac.geometry.hull_lp import hull_slice_ranges, slice_support
    from privpac.geometry.standard_lp import _float_view, _negative_columns

    monkeypatch.setattr(standard_lp, "_PRICE_BLOCK", 7)
    gen = np.random.default_rng(19)
    for trial in range(40):
        n, m = int(gen.integers(1, 4)), int(gen.integers(1, 60))
        M = gen.integers(-9, 10, size=(n, m))
        pi = [Fraction(int(gen.integers(-50, 51)), int(gen.integers(1, 7))) for _ in range(n)]
        cost = gen.integers(-100, 101, size=m)
        if trial % 5 == 0:  # a block of huge entries beside ordinary ones
            M, cost = M.astype(object), cost.astype(object)
            M[:, : m // 2] *= 2**1100
        exact = _negative_columns(M, cost, pi, None, m)
        assert list(exact) == list(_negative_columns(M, cost, pi, _float_view(M, cost), m))
    for _ in range(10):
        k = int(gen.integers(8, 40))
        P = gen.integers(-20, 21, size=(k, 3)).astype(np.int64)
        q = gen.integers(1, 4, size=k).astype(np.int64)
        p = (Fraction(int(np.mean(P[:, 0] / q) * 3), 3), Fraction(int(np.mean(P[:, 1] / q) * 2), 2))
        counts = [c for c in range(4, k + 1) if hull_slice_range(P[:c], q[:c], p) is not None]
        if not counts:
            continue
        seed = sorted(slice_support(P, q, p, counts[0]))
        got = hull_slice_ranges(P, q, p, counts, seeds=[seed] * len(counts))
        assert got == [hull_slice_range(P[:c], q[:c], p) for c in counts]
