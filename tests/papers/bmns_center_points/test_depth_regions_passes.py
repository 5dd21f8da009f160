"""The all-levels passes of ``depth_intervals`` against the former level-by-level computation.

Beimel, Moran, Nissim, Stemmer (COLT 2019), Def 3.1 and Lemma 3.4; spec ``bmns-center-points``
A2 and section 7. ``depth_intervals`` now computes the first coordinate of ``d = 2`` by exact LPs
warm-started level by level and the last coordinate by one certified ``int64`` pass over all
levels. The reference below is the computation they replace, kept here verbatim in spirit: per
level, the polygon's ``x``-extent from two exact lower envelopes (convex-hull trick in integers and
Fractions), and the line slice by :func:`privpac.geometry._exact.slice_interval` (the exact
per-level path, which the new pass still uses for the levels it cannot certify).
"""

from __future__ import annotations

import bisect
import math
import random
from fractions import Fraction as F

import numpy as np
import pytest

from privpac.geometry import _exact as exact_arithmetic
from privpac.geometry import depth_intervals, regions, tukey_depth_brute
from privpac.geometry._exact import as_integer_points, as_rational_point, exact_products
from privpac.geometry.directional import as_directions
from privpac.geometry.directions import _complete


def _min_envelope(lines):
    scale = math.lcm(*(v.denominator for line in lines for v in line)) if lines else 1
    best = {}
    for m, k in lines:
        M, K = m.numerator * (scale // m.denominator), k.numerator * (scale // k.denominator)
        if M not in best or K < best[M]:
            best[M] = K
    stack = []
    for M in sorted(best, reverse=True):
        K = best[M]
        while len(stack) >= 2:
            (M2, K2), (M1, K1) = stack[-2], stack[-1]
            if (K - K2) * (M2 - M1) <= (K1 - K2) * (M2 - M):
                stack.pop()
            else:
                break
        stack.append((M, K))
    breaks = [F(stack[j + 1][1] - stack[j][1], stack[j][0] - stack[j + 1][0]) for j in range(len(stack) - 1)]
    return breaks, [(F(M, scale), F(K, scale)) for M, K in stack]


def _active(env, t):
    breaks, lines = env
    return lines[bisect.bisect_left(breaks, t)]


def _polygon_extent(U, c):
    """``x``-extent of ``{(x, y) : a x + b y <= c(u)}``, or None when empty (the former code)."""
    upper, neg_lower = [], []
    xlo = xhi = None
    for (a, b), cu in zip(((int(r[0]), int(r[1])) for r in U), c):
        if b > 0:
            upper.append((F(-a, b), F(cu, b)))
        elif b < 0:
            neg_lower.append((F(a, b), F(-cu, b)))
        elif a > 0:
            t = F(cu, a)
            xhi = t if xhi is None or t < xhi else xhi
        elif a < 0:
            t = F(cu, a)
            xlo = t if xlo is None or t > xlo else xlo
    if xlo is not None and xhi is not None and xlo > xhi:
        return None
    if not upper or not neg_lower:
        return xlo, xhi
    env_u, env_l = _min_envelope(upper), _min_envelope(neg_lower)
    cuts = sorted(set(env_u[0]) | set(env_l[0]))
    A = B = None
    feasible = False
    bounds = [(None, None)] if not cuts else [(None, cuts[0]), *zip(cuts[:-1], cuts[1:]), (cuts[-1], None)]
    for left, right in bounds:
        if left is None and right is None:
            probe = F(0)
        elif left is None:
            probe = right - 1
        elif right is None:
            probe = left + 1
        else:
            probe = (left + right) / 2
        (m1, k1), (m2, k2) = _active(env_u, probe), _active(env_l, probe)
        slope, icpt = m1 + m2, k1 + k2
        lo, hi = left, right
        if slope > 0:
            root = -icpt / slope
            lo = root if left is None or root > left else left
        elif slope < 0:
            root = -icpt / slope
            hi = root if right is None or root < right else right
        elif icpt < 0:
            continue
        if lo is not None and hi is not None and lo > hi:
            continue
        if not feasible:
            A, B, feasible = lo, hi, True
        else:
            A = None if (A is None or lo is None) else min(A, lo)
            B = None if (B is None or hi is None) else max(B, hi)
    if not feasible:
        return None
    lo = A if xlo is None else (xlo if A is None else max(A, xlo))
    hi = B if xhi is None else (xhi if B is None else min(B, xhi))
    if lo is not None and hi is not None and lo > hi:
        return None
    return lo, hi


def per_level_intervals(S, prefix=(), directions=None):
    """The former ``depth_intervals`` for ``d <= 2``: every level recomputed on its own."""
    arr, bound = as_integer_points(S, "S")
    n, d = arr.shape
    p = as_rational_point(prefix, len(prefix), "prefix") if len(prefix) else ()
    if directions is None:
        U = _complete(arr, bound)
    else:
        U = regions._symmetric_nonzero(as_directions(directions, d, "directions"))
    if len(U) == 0:
        return [(None, None)] * n
    C = -np.sort(-exact_products(U, arr), axis=1)
    out, previous = [], None
    for r in range(n):
        c = C[:, r]
        if previous is None or np.any(c != previous):
            if len(p) + 1 == d:
                interval = regions.slice_interval(U, c, p)
            else:
                interval = _polygon_extent(U.astype(object), [int(v) for v in c])
            previous = c
        if interval is None:
            break
        out.append(interval)
    return out


def _random_data(rng: random.Random, trial: int) -> list[list[int]]:
    n = rng.randint(1, 14)
    span = rng.choice([1, 2, 4, 9])
    pts = [[rng.randint(-span, span), rng.randint(-span, span)] for _ in range(n)]
    kind = trial % 6
    if kind == 0:  # repeated points: a few distinct ones, many copies
        pts = [list(rng.choice(pts[:3])) for _ in range(n)]
    elif kind == 1:  # collinear on a random rational line through a grid point
        a, b = rng.randint(-3, 3), rng.randint(-3, 3)
        pts = [[t * a, t * b + 1] for t in (rng.randint(-3, 3) for _ in range(n))]
    elif kind == 2:  # a vertical line (every x_1 equal)
        pts = [[2, p[1]] for p in pts]
    elif kind == 3:  # all identical
        pts = [list(pts[0])] * n
    return pts


def test_all_levels_passes_equal_the_per_level_computation_on_random_small_inputs():
    rng = random.Random(21)
    for trial in range(300):
        S = _random_data(rng, trial)
        directions = None
        if trial % 7 == 5:  # a public direction set, possibly leaving the regions unbounded
            directions = [[rng.randint(-3, 3), rng.randint(-3, 3)] for _ in range(rng.randint(1, 4))]
        first = depth_intervals(S, directions=directions)
        assert first == per_level_intervals(S, directions=directions), (S, directions)
        ends = {e for iv in first for e in iv if e is not None}
        probes = sorted(ends)[:3] + [F(rng.randint(-20, 20), rng.randint(1, 7)), F(S[0][0])]
        for v in probes:
            assert depth_intervals(S, (v,), directions=directions) == per_level_intervals(S, (v,), directions), (
                S,
                v,
                directions,
            )


def test_one_dimension_and_levels_beyond_one_block(monkeypatch):
    # Blocks of 3 entries force many blocks; d = 1 is the slice pass with an empty prefix.
    monkeypatch.setattr(regions, "SLICE_BLOCK", 3)
    rng = random.Random(22)
    for _ in range(60):
        S = [[rng.randint(-3, 3), rng.randint(-3, 3)] for _ in range(rng.randint(1, 12))]
        v = F(rng.randint(-9, 9), rng.randint(1, 3))
        assert depth_intervals(S, (v,)) == per_level_intervals(S, (v,))
        S1 = [[p[0]] for p in S]
        assert depth_intervals(S1) == per_level_intervals(S1)


def test_the_float_proposal_is_certified_when_ratios_agree_to_53_bits(monkeypatch):
    # The x_2-bounds of this slice differ by about 2**-60 relative to their size: the float guess of
    # the binding row can be wrong, the exact certificate must catch it, and the answer must stay
    # the exact one at every level (compared with the per-level code and the brute-force depth).
    big = 2**29
    S = [[0, 0], [big, 1], [big - 1, 1], [-big, -1], [1 - big, -1], [0, 1], [0, -1]]
    U = [[1, -big], [1, 1 - big], [1, big], [1, big - 1], [0, 1], [1, 0]]
    redone = []
    exact = regions.extreme_ratio
    for module in (regions, exact_arithmetic):  # the batched certificate and the one-slice search
        monkeypatch.setattr(module, "extreme_ratio", lambda *a, **k: redone.append(1) or exact(*a, **k))
    for v in (F(0), F(1, 3), F(-1, big)):
        got = depth_intervals(S, (v,), directions=U)
        assert got == per_level_intervals(S, (v,), directions=U)
    assert redone  # some float proposals were wrong and were redone exactly
    got = depth_intervals(S, (F(0),))
    assert got == per_level_intervals(S, (F(0),))
    for r, (lo, hi) in enumerate(got, start=1):
        assert tukey_depth_brute((F(0), lo), S) >= r and tukey_depth_brute((F(0), hi), S) >= r


@pytest.mark.parametrize("scale", [1, 2**40, 2**70])
def test_large_coordinates_keep_the_exact_answer(scale):
    # 2**70 leaves int64: the slice pass falls back to Python integers level by level.
    S = [[0, 0], [2 * scale, 0], [0, 2 * scale], [2 * scale, 2 * scale], [scale, scale], [scale, 0]]
    assert depth_intervals(S) == per_level_intervals(S)
    for v in (F(scale), F(scale, 3), F(2 * scale)):
        assert depth_intervals(S, (v,)) == per_level_intervals(S, (v,))
