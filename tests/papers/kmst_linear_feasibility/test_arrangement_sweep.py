"""The line sweep of FindDeepPoint's oracle (``privpac.geometry.arrangement``) against brute force and the old path.

Spec ``kmst-halfspaces`` 6.2: the vertices of the arrangement of the constraint lines / planes and
the box facets, each once, with their exact depths. References: plain Fraction enumerations (every
pair or triple of lines / planes solved, depths counted one constraint at a time), and for ``D = 2``
the per-level polygons of :func:`~privpac.geometry.convexified.convex_levels` (the public per-level
form, the learner's former oracle). Systems: random, repeated rows (and their multiples and
opposites), parallel rows, many lines / planes through one point, three planes through one line,
and integers beyond ``2**62`` (the Python-integer path). Plus the sweep's own guards: the exact
ratio signs on their three paths, and the exact re-sort of a line whose float proposal is unsorted.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from privpac.geometry import arrangement as AR
from privpac.geometry import convexified as CV
from privpac.geometry import feasibility as F
from privpac.geometry import point_levels as PL
from privpac.learners import linear_feasibility as lf


def _solve(rows):
    """The unique common point of ``D`` hyperplanes ``<a, x> = w`` (Fractions), or None (Gauss-Jordan)."""
    D = len(rows)
    M = [[Fraction(int(v)) for v in r] for r in rows]
    for c in range(D):
        p = next((r for r in range(c, D) if M[r][c] != 0), None)
        if p is None:
            return None
        M[c], M[p] = M[p], M[c]
        for r in range(D):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return tuple(M[c][D] / M[c][c] for c in range(D))


def _brute(A, b, R):
    """``{vertex: depth}`` from every ``D``-tuple of constraint and box hyperplanes, in Fractions."""
    D = A.shape[1]
    rows = [(*(int(v) for v in a), int(w)) for a, w in zip(A, b) if any(int(v) for v in a)]
    rows += [tuple(int(c == j) * s for c in range(D)) + (-R,) for j in range(D) for s in (1, -1)]
    verts = {v for t in itertools.combinations(set(rows), D) if (v := _solve(t)) is not None}
    verts = {v for v in verts if all(abs(c) <= R for c in v)}
    return {v: sum(sum(int(ai) * vi for ai, vi in zip(a, v)) >= int(w) for a, w in zip(A, b)) for v in verts}


def _got(A, b, R, prune=False):
    A_arr, _, b_arr, _ = F._system(A, b)
    P, q, depth = AR.arrangement_vertices(A_arr, b_arr, R, prune=prune)
    got = {tuple(Fraction(int(p), int(qq)) for p in row): int(d) for row, qq, d in zip(P, q, depth)}
    assert len(got) == len(q)  # each vertex once
    assert all(int(qq) > 0 for qq in q)
    assert all(math.gcd(int(qq), *(int(v) for v in row)) == 1 for row, qq in zip(P, q))  # lowest terms
    return got


def _system(gen, D: int, kind: int):
    X = int(gen.integers(1, 4))
    m = int(gen.integers(1, 12 if D == 2 else 7))
    A = gen.integers(-X, X + 1, size=(m, D))
    b = gen.integers(-X, X + 1, size=m)
    if kind == 1:  # repeated rows, a multiple and an opposite of a row
        A = np.concatenate([A, A[:2], 2 * A[:1], -A[:1]])
        b = np.concatenate([b, b[:2], 2 * b[:1], -b[:1]])
    elif kind == 2:  # parallel rows (D = 2), planes sharing the direction e_D (D = 3)
        A[:, -1] = 0 if D == 3 else A[:, -1]
        if D == 2:
            A[:] = A[0]
    elif kind == 3:  # many lines / planes through one point, and three planes through one line
        p = gen.integers(-2, 3, size=D)
        b = A @ p
        if D == 3:
            A = np.concatenate([A, [[1, 0, 0], [0, 1, 0], [1, 1, 0], [2, -1, 0]]])
            b = np.concatenate([b, [1, 2, 3, 0]])
        X = int(max(X, np.abs(b).max()))
    elif kind == 4:  # beyond 2**62: Python integers throughout
        A, b = A.astype(object) * 2**62, b.astype(object) * 2**62
        X = X * 2**62
    return A, b, F.bounding_box_radius(D, int(X))


@pytest.mark.parametrize("D", [2, 3])
def test_vertices_and_depths_match_brute_force(D):
    gen = np.random.default_rng(40 + D)
    for trial in range(40 if D == 2 else 25):
        A, b, R = _system(gen, D, trial % 5)
        assert _got(A, b, R) == _brute(A, b, R), (A, b)


@pytest.mark.parametrize("D", [2, 3])
def test_pruned_levels_have_the_same_hulls(D):
    """Dropping the vertices between two deeper box vertices on a line leaves every level interval as it was."""
    gen = np.random.default_rng(50 + D)
    dropped = 0
    for trial in range(12):
        A, b, R = _system(gen, D, trial % 4)
        if trial % 4 == 0:  # larger systems, where vertices between deeper ones are common
            X = 4
            m = 30 if D == 2 else 12
            A, b = gen.integers(-X, X + 1, size=(m, D)), gen.integers(-X, X + 1, size=m)
            R = F.bounding_box_radius(D, X)
        full, pruned = _got(A, b, R), _got(A, b, R, prune=True)
        assert pruned.items() <= full.items()
        dropped += len(full) - len(pruned)
        A_arr, _, b_arr, _ = F._system(A, b)
        ref = PL.PointLevels(*AR.arrangement_vertices(A_arr, b_arr, R), R, len(b))
        got = (PL.arrangement_levels_2d if D == 2 else PL.arrangement_levels_3d)(A, b, box=R)
        prefixes = [()] + [(v,) for lo, hi in ref.intervals(()) for v in (lo, (lo + hi) / 2)]
        if D == 3:
            prefixes += [(p[0], (lo + hi) / 2) for p in prefixes[1:4] for lo, hi in ref.intervals(p)[::3]]
        for p in prefixes:
            assert got.intervals(p) == ref.intervals(p), (A, b, p)
    assert dropped > 0


def test_zero_rows_count_everywhere_or_nowhere():
    A = np.array([[0, 0], [0, 0], [1, 0]])
    b = np.array([0, 1, 0])
    R = F.bounding_box_radius(2, 1)
    got = _got(A, b, R)
    assert got == _brute(A, b, R) and max(got.values()) == 2 and min(got.values()) == 1


def _old_intervals(levels, prefix):
    """The learner's former ``D = 2`` reading of :func:`convex_levels`: x-ranges and slices of the level polygons."""
    out = []
    for level in levels:
        if level.empty:
            break
        if not prefix:
            xs = [p[0] for p in level.polygon]
            out.append((min(xs), max(xs)))
        else:
            sl = level.slice(prefix[0])
            if sl is None:
                break
            out.append(sl)
    return out


def test_d2_levels_equal_the_convex_levels_path():
    gen = np.random.default_rng(44)
    for trial in range(30):
        A, b, R = _system(gen, 2, trial % 5)
        if trial % 5 == 4:
            A, b = A // 2**62 * 3, b // 2**62 * 3  # huge R (integers beyond 2**62 stay in the brute-force test)
            R = F.bounding_box_radius(2, 9)
        new = PL.arrangement_levels_2d(A, b, box=R)
        old = CV.convex_levels(A, b, box=R)
        assert new.intervals(()) == _old_intervals(old, ())
        ends = {v for lo, hi in new.intervals(()) for v in (lo, hi, (lo + hi) / 2)} | {Fraction(R + 1), Fraction(0)}
        for p in sorted(ends)[:: max(1, len(ends) // 6)]:
            assert new.intervals((p,)) == _old_intervals(old, (p,)), (A, b, p)


def test_seeded_fits_are_those_of_the_convex_levels_path(monkeypatch):
    """FindDeepPoint in D = 2 draws the same points from the PointLevels oracle as from the per-level polygons."""

    class Old:
        def __init__(self, A, b, R):
            self.levels = CV.convex_levels(A, b, box=R)

        def intervals(self, prefix, floor=0):
            return _old_intervals(self.levels, prefix)

    gen = np.random.default_rng(45)
    sizes = ((2, 30), (7, 25))
    systems = [(gen.integers(-X, X + 1, size=(m, 2)), gen.integers(-X, X + 1, size=m), X) for X, m in sizes]
    new = [lf.find_deep_point(A, b, X, 2.0, rng=s).solution for A, b, X in systems for s in range(2)]
    monkeypatch.setattr(lf, "arrangement_levels_2d", lambda A, b, box: Old(A, b, box))
    old = [lf.find_deep_point(A, b, X, 2.0, rng=s).solution for A, b, X in systems for s in range(2)]
    assert new == old


def test_ratio_signs_are_exact_on_every_path():
    gen = np.random.default_rng(46)
    for scale, dscale in ((1, 1), (2**35, 2**20), (2**60, 2**28), (2**61, 2**40)):
        n1 = gen.integers(-1000, 1000, size=300) * scale
        d1 = gen.integers(1, 50, size=300) * dscale
        k = gen.integers(1, 4, size=300)
        n2, d2 = n1 * k, d1 * k  # exact ties ...
        n2[::3] += gen.integers(-1, 2, size=100)  # ... and neighbours one unit away
        if scale == 2**61:
            n1, d1, n2, d2 = (v.astype(object) for v in (n1, d1, n2, d2))
        want = [(v > 0) - (v < 0) for v in (int(a) * int(c) - int(e) * int(f) for a, c, e, f in zip(n2, d1, n1, d2))]
        assert list(AR.ratio_signs(n1, d1, n2, d2)) == want


def test_an_unsorted_float_proposal_is_sorted_again_exactly(monkeypatch):
    gen = np.random.default_rng(47)
    cases = [_system(gen, D, kind) for D in (2, 3) for kind in (0, 1, 3)]
    want = [_got(A, b, R) for A, b, R in cases]
    monkeypatch.setattr(AR, "_proposal", lambda f: np.argsort(-f, axis=1))  # reversed: every line re-sorted
    assert [_got(A, b, R) for A, b, R in cases] == want


def test_d2_exact_keys_give_the_vertices_of_the_checked_float_proposal(monkeypatch):
    """``D = 2`` lines are ordered by one sort of exact integer keys (``_Keys``) when their bounds allow: the
    same vertices and depths as the float proposal checked pair by pair (and re-sorted exactly when it is
    reversed), on degenerate systems and at ``X = 128``, where the positions take 48 of the keys' 64 bits and
    distinct crossings can be ``1 / (2 X^2)^2`` apart; and brute force agrees there."""
    gen = np.random.default_rng(49)
    cases = [_system(gen, 2, kind) for kind in (0, 1, 2, 3) for _ in range(3)]
    for m in (25, 200):
        X = 128
        A = gen.integers(-X, X + 1, size=(m, 2))
        A[: m // 5] = gen.integers(-X, X + 1, size=(m // 5, 1)) * np.array([[1, 1]]) + np.array([[0, 1]])
        cases.append((A, gen.integers(-X, X + 1, size=m), F.bounding_box_radius(2, X)))
    built = []
    build = AR._Keys.build

    def spy(*args):
        built.append(build(*args))
        return built[-1]

    monkeypatch.setattr(AR._Keys, "build", spy)
    keyed = [_got(A, b, R, prune=p) for A, b, R in cases for p in (False, True)]
    assert all(k is not None for k in built)
    assert int(built[-1].sentinel).bit_length() == 48  # with 16 bits of planes (m up to 65,531): 64
    assert keyed[-4] == _brute(*cases[-2])  # X = 128, m = 25
    monkeypatch.setattr(AR._Keys, "build", lambda *args: None)
    assert [_got(A, b, R, prune=p) for A, b, R in cases for p in (False, True)] == keyed
    monkeypatch.setattr(AR, "_proposal", lambda f: np.argsort(-f, axis=1))  # reversed: every line re-sorted
    want = [keyed[2 * c + p] for c in range(0, len(cases), 4) for p in (0, 1)]
    assert [_got(A, b, R, prune=p) for A, b, R in cases[::4] for p in (False, True)] == want


def test_d2_exact_keys_are_refused_beyond_their_bounds():
    """No keys when a bound of ``_Keys`` fails: entries whose positions need more than 64 bits, Python integers."""
    for X, ok in ((128, True), (1024, False)):
        A = np.array([[X, 1], [1, -X], [3, 2]])
        N, W, pos, neg, _ = AR._planes(A, np.array([1, 2, 3]), F.bounding_box_radius(2, X))
        assert (AR._Keys.build(N, W, F.bounding_box_radius(2, X), pos, neg, 3) is not None) is ok
    N, W, pos, neg, _ = AR._planes(np.array([[1, 2]], dtype=object), np.array([1], dtype=object), 8)
    assert AR._Keys.build(N.astype(object), W.astype(object), 8, pos, neg, 1) is None


def test_the_levels_refuse_a_system_of_another_dimension():
    with pytest.raises(Exception, match="2-column"):
        PL.arrangement_levels_2d(np.zeros((2, 3), dtype=int), [0, 0], box=5)


def _reference_hulls(P, q, d):
    """``{k: the Fraction hull of the projections of V_k}`` by the plain monotone chain, every level from scratch."""
    pts = [(PL._point2(row, qq), int(dd)) for row, qq, dd in zip(P, q, d)]
    return {k: CV._hull([p for p, dd in pts if dd >= k]) for k in sorted({dd for _, dd in pts if dd > 0})}


@pytest.mark.parametrize("D", [2, 3])
def test_level_hulls_and_slices_equal_the_fraction_hulls_of_every_level(D):
    """The levels' hulls (integer monotone chains after the float filter) are the plain Fraction hulls of
    every ``V_k``, and their slices those of :meth:`ConvexLevel.slice`: degenerate systems, Python
    integers, and sets large enough for the filter to drop points."""
    gen = np.random.default_rng(60 + D)
    for trial in range(15):
        A, b, R = _system(gen, D, trial % 5)
        if trial % 5 == 0:
            X, m = 5, (40 if D == 2 else 10)
            A, b = gen.integers(-X, X + 1, size=(m, D)), gen.integers(-X, X + 1, size=m)
            R = F.bounding_box_radius(D, X)
        A_arr, _, b_arr, _ = F._system(A, b)
        P, q, d = AR.arrangement_vertices(A_arr, b_arr, R, prune=trial % 2 == 0)
        levels = PL.PointLevels(P, q, d, R, len(b))
        want = _reference_hulls(P, q, d)
        assert {k: levels._polygon(k) for k in want} == want, (A, b)
        xs = sorted({v[0] for poly in want.values() for v in poly})
        for t in xs[:: max(1, len(xs) // 5)] + [(xs[0] + xs[-1]) / 3]:
            side: dict[int, int] = {}
            for k, poly in want.items():
                assert levels._slice(k, t, side) == CV.ConvexLevel(k, 2, None, poly, R, False).slice(t)


def test_candidate_level_hulls_with_many_points_per_level():
    """A public candidate set with hundreds of points per depth (where the float filter drops most of them)."""
    gen = np.random.default_rng(62)
    for C, n in ((50, 2000), (2**40, 800)):
        pts = gen.integers(-C, C + 1, size=(n, 2))
        depths = gen.integers(0, 6, size=n)
        levels = PL.candidate_levels(pts, depths, 5, bound=C)
        want = _reference_hulls(pts, np.ones(n, dtype=np.int64), depths)
        assert {k: levels._polygon(k) for k in want} == want


def test_d2_chunked_int32_store_gives_the_same_vertices_and_levels(monkeypatch):
    """``D = 2`` keeps its vertices in int32 when Cramer's bounds allow and gathers the blocks into chunks: the
    same vertices, in the same order, with the same depths and the same level intervals as one chunk per block,
    and brute force agrees (``X = 128``, where the narrow bounds are nearest their limit, and degenerate systems)."""
    gen = np.random.default_rng(63)
    cases = [_system(gen, 2, kind) for kind in (0, 1, 2, 3, 4)]
    for m in (25, 150):
        X = 128
        cases.append(
            (gen.integers(-X, X + 1, size=(m, 2)), gen.integers(-X, X + 1, size=m), F.bounding_box_radius(2, X))
        )

    def run(A, b, R, prune):
        A_arr, _, b_arr, _ = F._system(A, b)
        return AR.arrangement_vertices(A_arr, b_arr, R, prune=prune)

    one = [run(A, b, R, p) for A, b, R in cases for p in (False, True)]
    assert one[-1][0].dtype == np.int32 and one[-1][1].dtype == np.int32  # X = 128: narrow
    assert one[8][0].dtype == object  # entries beyond 2**62: Python integers
    assert _got(*cases[-2]) == _brute(*cases[-2])
    monkeypatch.setattr(AR, "_CHUNK", 5)  # many chunks of a few vertices each
    chunked = [run(A, b, R, p) for A, b, R in cases for p in (False, True)]
    for (P, q, d), (P2, q2, d2) in zip(one, chunked):
        assert P.dtype == P2.dtype and np.array_equal(P, P2) and np.array_equal(q, q2) and np.array_equal(d, d2)
    for (A, b, R), (P, q, d) in zip(cases, one[1::2]):
        ref = PL.PointLevels(P.astype(object), q.astype(object), d, R, len(b))  # Python integers throughout
        got = PL.arrangement_levels_2d(A, b, box=R)
        ends = [()] + [(v,) for lo, hi in ref.intervals(()) for v in (lo, (lo + hi) / 2)]
        for p in ends[:: max(1, len(ends) // 8)]:
            assert got.intervals(p) == ref.intervals(p), (A, b, p)
