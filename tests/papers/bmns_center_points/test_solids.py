"""The 3-D depth regions by certified cutting planes against the former computation over ``U(S ∪ E)``.

Beimel, Moran, Nissim, Stemmer (COLT 2019), Def 3.1 and Lemma 3.4; spec ``bmns-center-points`` A1-A2.
:class:`privpac.geometry.solids.SpatialDepthRegions` replaced, for ``d = 3``, the evaluation of the
``O(n^3)`` plane normals ``U(S ∪ E)`` on every point; that computation is still reachable by passing the
directions explicitly (``depth_intervals(S, prefix, directions=complete_directions(S))``) and is the
independent reference here: the intervals, and so the qualities FindTukey samples from, must be equal.
"""

from __future__ import annotations

import warnings
from fractions import Fraction as F

import numpy as np
import pytest

from privpac.errors import DataError, InvalidParameterError, UtilityWarning
from privpac.geometry import complete_directions, depth_intervals, tukey_depth
from privpac.geometry import solids as solids_module
from privpac.geometry.solids import SpatialDepthRegions, tukey_depth_3d
from privpac.learners import center_point as center_point_module
from privpac.learners.center_point import find_tukey


def _inputs(rng, trials: int = 60):
    """Random small sets with the degeneracies the cutting planes must survive."""
    out = []
    for trial in range(trials):
        n = int(rng.integers(1, 13))
        B = int(rng.choice([1, 2, 3, 6]))
        kind = trial % 6
        S = rng.integers(-B, B + 1, size=(n, 3))
        if kind == 1:  # coplanar, on a slanted plane
            S[:, 2] = np.clip(S[:, 0] + S[:, 1], -B, B)
            S[:, 0] = S[:, 2] - S[:, 1]
        elif kind == 2:  # repeated points
            S = np.repeat(S[: max(1, n // 3)], 3, axis=0)
        elif kind == 3:  # collinear
            t = rng.integers(-1, 2, size=n)
            S = np.column_stack([t, np.clip(2 * t, -B, B) if B > 1 else t, -t])
        elif kind == 4:  # on the box boundary
            S = rng.choice([-B, B], size=(n, 3))
        elif kind == 5:  # one point repeated, one other
            S = np.repeat(S[:1], n, axis=0)
            S[0] = rng.integers(-B, B + 1, size=3)
        out.append((np.asarray(S, dtype=np.int64), B))
    return out


def _prefixes(rng, B):
    p1 = F(int(rng.integers(-2 * B, 2 * B + 1)), int(rng.integers(1, 4)))
    p2 = F(int(rng.integers(-2 * B, 2 * B + 1)), int(rng.integers(1, 4)))
    return [(), (p1,), (p1, p2)]


def test_regions_equal_the_former_computation_on_degenerate_inputs():
    rng = np.random.default_rng(2026)
    for S, B in _inputs(rng):
        U = complete_directions(S)
        regions = SpatialDepthRegions(S)
        for prefix in _prefixes(rng, B):
            assert regions.intervals(prefix) == depth_intervals(S, prefix, directions=U), (S.tolist(), prefix)


def test_prefixes_on_region_vertices_and_the_deepest_point():
    """Prefixes at interval ends (the vertices where the maxima sit) and inside the deepest level."""
    rng = np.random.default_rng(7)
    for S, _ in _inputs(rng, 24):
        U = complete_directions(S)
        regions = SpatialDepthRegions(S)
        first = regions.intervals(())
        assert first == depth_intervals(S, (), directions=U)
        for lo, hi in (first[0], first[-1]):
            for p in (lo, hi, (lo + hi) / 2):
                second = regions.intervals((p,))
                assert second == depth_intervals(S, (p,), directions=U), (S.tolist(), p)
                if second:
                    lo2, hi2 = second[-1]
                    for p2 in (lo2, hi2):
                        assert regions.intervals((p, p2)) == depth_intervals(S, (p, p2), directions=U)


def test_exact_depth_equals_the_finite_direction_formula():
    rng = np.random.default_rng(11)
    for S, B in _inputs(rng, 90):
        for _ in range(4):
            if rng.random() < 0.5:
                x = [F(int(v)) for v in S[rng.integers(len(S))]]
            else:
                x = [F(int(rng.integers(-3 * B, 3 * B + 1)), int(rng.integers(1, 4))) for _ in range(3)]
            assert tukey_depth_3d(x, S) == tukey_depth(x, S), (S.tolist(), x)


def test_large_rational_points_take_the_exact_path():
    """Denominators beyond int64: the float filter proposes, Python integers decide."""
    rng = np.random.default_rng(5)
    S = rng.integers(-50, 51, size=(12, 3))
    q = 2**70 + 1
    for _ in range(10):
        x = [F(int(rng.integers(-50, 51)) * q + int(rng.integers(-3, 4)), q) for _ in range(3)]
        assert tukey_depth_3d(x, S) == tukey_depth(x, S)


def test_refusals():
    with pytest.raises(DataError, match="not 3"):
        SpatialDepthRegions(np.zeros((4, 2), dtype=int))
    with pytest.raises(DataError, match="below"):
        SpatialDepthRegions(np.full((4, 3), 2**16))
    with pytest.raises(InvalidParameterError, match="at most 2"):
        SpatialDepthRegions(np.zeros((4, 3), dtype=int)).intervals((0, 0, 0))


def _seeded_centers():
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        for n, B in ((30, 3), (60, 5)):
            rng = np.random.default_rng(n + B)
            S = np.clip(np.rint(rng.normal(0, B / 3, (n, 3))), -B, B).astype(np.int64)
            out.append(find_tukey(S, B, 1.0, rng=0).center)
            out.append(find_tukey(S, B, 2.0, 1e-6, optimizer="recconcave", rng=7).center)
    return out


def test_seeded_fits_equal_the_former_computation(monkeypatch):
    """FindTukey's outputs with the cutting planes equal those over U(S ∪ E) (the same exact qualities)."""
    new = _seeded_centers()
    monkeypatch.setattr(center_point_module, "SOLID_INT64_BOUND", 0)  # every box takes the former path
    assert _seeded_centers() == new


@pytest.mark.parametrize(
    "mutant",
    [
        "certificate one level short",
        "cuts at the level below",
        "depth without the axis points",
    ],
)
def test_the_comparison_flags_mutants_of_the_region_code(monkeypatch, mutant):
    """Bugs injected into the cutting planes change some interval the former computation gives."""
    if mutant == "certificate one level short":
        original = solids_module._depth

        def short(P, w, pt, r=None, cuts=1):
            depth, wits = original(P, w, pt, r, cuts)
            return depth + 1, wits

        monkeypatch.setattr(solids_module, "_depth", short)
    elif mutant == "cuts at the level below":
        original_level = solids_module._Directions.level
        monkeypatch.setattr(solids_module._Directions, "level", lambda self, r: original_level(self, max(1, r - 1)))
    else:
        original_minima = solids_module._block_minima

        def no_axis(P, w, pt, rows, cols):
            best, arg, kind, pos, anti = original_minima(P, w, pt, rows, cols)
            return best, arg, kind, pos * 0, anti * 0

        monkeypatch.setattr(solids_module, "_block_minima", no_axis)
    rng = np.random.default_rng(2026)
    differs = False
    for S, _ in _inputs(rng, 36):
        try:
            got = SpatialDepthRegions(S).intervals(())
        except (RuntimeError, AssertionError, IndexError, ValueError):
            differs = True
            break
        if got != depth_intervals(S, (), directions=complete_directions(S)):
            differs = True
            break
    assert differs, mutant
