"""FindDeepPoint over a public candidate set (spec kmst-halfspaces 6.5 option 1).

The score ``f_P(S, x) = depth_S(x) 1[x in P]``: its levels (:func:`candidate_levels`) against brute
force, the domains' property (P) with the Hadamard denominator bounds, Claims 3.4, 3.5 and 4.1 for
the candidate score, and the estimators' candidate path (any dimension, refusals, engines in
tests/backends/test_backends.py and tests/backends/test_backends_spark.py). Privacy through the entry points: the
``feasibility-candidates`` audits and their mutants.
"""

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from privpac.cli import main
from privpac.errors import DataError, DomainError, InvalidParameterError, UtilityWarning
from privpac.estimators import PrivateFeasibilityHalfspaceClassifier, PrivateLinearFeasibility
from privpac.geometry.feasibility import candidate_depths, depth
from privpac.geometry.hull_lp import hull_slice_range
from privpac.geometry.point_levels import candidate_levels
from privpac.io import load_model, save_model
from privpac.learners.feasibility_candidates import (
    MAX_CANDIDATE_WORK,
    candidate_denominator_bounds,
    candidate_set,
    random_candidates,
)
from privpac.learners.feasibility_halfspaces import halfspace_candidates
from privpac.learners.linear_feasibility import coordinate_quality, find_deep_point, plan_find_deep_point


def _system(gen, m, D, X, C):
    """Random rows in [-X, X]^(D+1) and random integer candidates in [-C, C]^D (about 40 of them)."""
    A = gen.integers(-X, X + 1, size=(m, D))
    b = gen.integers(-X, X + 1, size=m)
    P = gen.integers(-C, C + 1, size=(int(gen.integers(5, 40)), D))
    return A, b, P


def _levels(A, b, P, C):
    return candidate_levels(P, candidate_depths(A, b, P), len(b), bound=C)


def _walk(gen, levels, plan):
    """Prefixes along a run: at each coordinate a random end of a random level interval (the thinnest
    slices come from hull vertices), or a random domain member; yields (prefix, t, domain, intervals)."""
    prefix, t = (), 1
    for i in range(1, plan.D + 1):
        dom = plan.domain_for(i, t)
        ints = levels.intervals(prefix)
        yield prefix, t, dom, ints
        if ints and gen.random() < 0.8:
            v = ints[int(gen.integers(0, len(ints)))][int(gen.integers(0, 2))]
        else:
            v = dom.select(int(gen.integers(0, dom.size)))
        _, q = dom.canonical_pair(v)
        prefix, t = prefix + (v,), t * q


@pytest.mark.parametrize("D", [2, 3, 4, 5])
@pytest.mark.parametrize("domain", ["a3-rational", "mode-c"])
def test_every_level_interval_end_is_a_domain_member(D, domain):
    """Property (P) with ``Q_i = floor(((i - 1) C^2 + 1)^(i/2))``: every end of every level interval
    is a member of coordinate i's domain and its indices decode exactly to it, so the top level's
    interval (the argmax set) holds a member (Requirement 3.6, relative to the candidates)."""
    gen = np.random.default_rng(100 + D)
    for _ in range(6 if D >= 4 else 12):
        C = int(gen.integers(1, 4))
        A, b, P = _system(gen, int(gen.integers(2, 9)), D, 2, C)
        plan = plan_find_deep_point(len(b), D, 2, 1.0, candidates=candidate_set(P, C), domain=domain)
        levels = _levels(A, b, P, C)
        for prefix, _t, dom, ints in _walk(gen, levels, plan):
            for lo, hi in ints:
                assert lo in dom and hi in dom, (A, b, P, prefix, lo, hi)
                assert dom.select(dom.first_index(lo)) == lo and dom.select(dom.last_index(hi)) == hi
            if ints:
                assert coordinate_quality(dom, levels, prefix, D).max() == len(ints)


@pytest.mark.parametrize("D", [3, 4, 5])
def test_the_levels_equal_one_exact_lp_per_level(D):
    """Against brute force: for each level k, the range of x_i over conv(V_k) ∩ {x_(<i) = p} by one
    certified LP over all of V_k (no column generation, no feasibility search)."""
    gen = np.random.default_rng(200 + D)
    for _ in range(4):
        C = int(gen.integers(1, 3))
        A, b, P = _system(gen, int(gen.integers(3, 8)), D, 2, C)
        depths = candidate_depths(A, b, P)
        levels = candidate_levels(P, depths, len(b), bound=C)
        plan = plan_find_deep_point(len(b), D, 2, 1.0, candidates=candidate_set(P, C))
        for prefix, _, _, ints in _walk(gen, levels, plan):
            expected = []
            for k in range(1, len(b) + 1):
                V = P[depths >= k]
                rng = hull_slice_range(V, np.ones(len(V), dtype=np.int64), prefix) if len(V) else None
                if rng is None:
                    break
                expected.append(rng)
            assert ints == expected, (A, b, P, prefix)


def _neighbours(gen, m, D, X, C):
    A, b, P = _system(gen, m, D, X, C)
    A2, b2 = A.copy(), b.copy()
    j = int(gen.integers(0, m))
    A2[j], b2[j] = gen.integers(-X, X + 1, size=D), int(gen.integers(-X, X + 1))
    return (A, b), (A2, b2), P


def _values(f):
    return [int(f(k)) for k in range(f.T + 1)] if f.T < 4000 else None


def test_the_quality_is_quasi_concave_and_has_sensitivity_one():
    """Claims 3.4 and 3.5 for the candidate score: on neighbouring systems (one constraint replaced)
    every coordinate's quality is unimodal over the domain's index order and moves by at most 1
    at every index, for prefixes in D = 4 (exact LPs with the feasibility search at i = 4)."""
    gen = np.random.default_rng(7)
    checked = 0
    for _ in range(6):
        C = 1
        (A, b), (A2, b2), P = _neighbours(gen, int(gen.integers(3, 7)), 4, 2, C)
        L, L2 = _levels(A, b, P, C), _levels(A2, b2, P, C)
        plan = plan_find_deep_point(len(b), 4, 2, 1.0, candidates=candidate_set(P, C))
        for prefix, _, dom, _ in _walk(gen, L, plan):
            f, g = coordinate_quality(dom, L, prefix, 4), coordinate_quality(dom, L2, prefix, 4)
            points = sorted({int(s) for s in f.starts} | {int(s) for s in g.starts})
            points = sorted({p for s in points for p in (s - 1, s) if 0 <= p <= f.T} | {0, f.T})
            for h in (f, g):
                vals = [int(h(p)) for p in points]
                top = vals.index(max(vals))
                assert vals[: top + 1] == sorted(vals[: top + 1]) and vals[top:] == sorted(vals[top:], reverse=True)
            assert all(abs(int(f(p)) - int(g(p))) <= 1 for p in points)
            checked += 1
    assert checked >= 20


def test_claim_4_1_holds_for_the_candidate_score():
    """depth(x) >= (D + 1) cdepth_P(x) - D m for points of the candidates' hull (Caratheodory)."""
    gen = np.random.default_rng(8)
    for D in (2, 3, 4):
        for _ in range(5):
            A, b, P = _system(gen, int(gen.integers(4, 10)), D, 2, 2)
            levels = _levels(A, b, P, 2)
            m = len(b)
            for _ in range(6):
                w = gen.integers(0, 4, size=len(P))
                w[int(gen.integers(0, len(P)))] += 1
                x = [sum(Fraction(int(wi) * int(p[j])) for wi, p in zip(w, P)) / int(w.sum()) for j in range(D)]
                assert depth(x, A, b) >= (D + 1) * levels.cdepth(x) - D * m


def test_denominator_bounds_and_refusals_of_the_candidate_set():
    assert candidate_denominator_bounds(1, 4) == (1, 2, 5, 16)
    assert candidate_denominator_bounds(3, 2) == (1, 10)
    with pytest.raises(DataError):
        candidate_set([[0.5, 1]])
    with pytest.raises(DataError):
        candidate_set(np.zeros((0, 2)))
    with pytest.raises(DomainError, match="candidate_bound"):
        candidate_set([[3, 0]], 2)
    cs = random_candidates(500, 3, 2, rng=1)
    assert cs.points.shape == (500, 3) and cs.bound == 2 and np.abs(cs.points).max() <= 2
    assert set(np.unique(cs.points)) == {-2, -1, 0, 1, 2}
    with pytest.raises(InvalidParameterError, match="MAX_CANDIDATE_WORK"):
        plan_find_deep_point(10**6, 5, 2, 1.0, candidates=random_candidates(10**5, 5, 1, rng=0))
    with pytest.raises(InvalidParameterError, match="coordinate"):
        plan_find_deep_point(10, 3, 2, 1.0, candidates=random_candidates(5, 2, 1, rng=0))
    assert MAX_CANDIDATE_WORK >= 10**11


def _feasible_system(gen, m, D, X, x0):
    A = gen.integers(-X, X + 1, size=(m, D))
    b = np.clip(A @ np.asarray(x0) - gen.integers(0, 3, size=m), -X, X)
    keep = A @ np.asarray(x0) >= b
    return A[keep], b[keep]


def test_a_feasible_candidate_is_found_in_five_variables():
    """D = 5 (beyond the exact oracle): the integer solution is a candidate of the grid {-1, 0, 1}^5,
    and at this size the exponential mechanism's output satisfies at least 95% of the constraints."""
    gen = np.random.default_rng(9)
    A, b = _feasible_system(gen, 4000, 5, 3, [1, 0, -1, 1, 0])
    grid = np.array(list(itertools.product((-1, 0, 1), repeat=5)))
    res = find_deep_point(A, b, 3, 2.0, candidates=candidate_set(grid), rng=3)
    assert depth(res.solution, A, b) >= 0.95 * len(b)
    assert res.plan.candidates == len(grid) and res.plan.R == 1


def test_the_estimator_over_candidates(tmp_path):
    gen = np.random.default_rng(10)
    A, b = _feasible_system(gen, 3000, 4, 3, [1, -1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        est = PrivateLinearFeasibility(epsilon=2.0, bound=3, candidates=2000, candidate_bound=1, random_state=0)
        est.fit(A, b)
        again = PrivateLinearFeasibility(epsilon=2.0, bound=3, candidates=2000, candidate_bound=1, random_state=0)
        assert again.fit(A[::-1], b[::-1]).solution_ == est.solution_  # the depths are sums over the records
    assert len(est.solution_) == 4 and depth(est.solution_, A, b) >= 0.9 * len(b)
    assert "public candidate set" in est.summary()[0]
    back = load_model(save_model(est, tmp_path / "c.json"))
    assert back.solution_ == est.solution_ and back.get_params()["candidates"] == 2000
    saved = (tmp_path / "c.json").read_text()
    assert "depth" not in saved and "satisf" not in saved
    ledger = "\n".join(est.ledger_.lines())
    assert "FindDeepPoint: 4 coordinate(s)" in ledger and str(len(b)) not in ledger.replace("budget", "")
    for bad, match in [
        (dict(candidates="all"), "candidates must be"),
        (dict(candidates=[[0, 0, 0]]), "3 coordinate"),
        (dict(candidate_bound=2), "candidate_bound applies only"),
        (dict(candidates=[[2, 0, 0, 0]], candidate_bound=1), "outside"),
    ]:
        with pytest.raises((InvalidParameterError, DomainError), match=match):
            PrivateLinearFeasibility(bound=3, **bad).fit(A, b)
    with pytest.raises(InvalidParameterError, match="D <= 3"):  # without candidates D = 4 stays refused
        PrivateLinearFeasibility(bound=3).fit(A, b)


def test_the_halfspace_classifier_over_candidates_in_five_dimensions(tmp_path):
    gen = np.random.default_rng(11)
    X = gen.integers(-8, 9, size=(4000, 5))
    y = (X @ np.array([2, -1, 1, 0, 1]) >= 1).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        est = PrivateFeasibilityHalfspaceClassifier(epsilon=1.0, domain=8, candidates=4000, random_state=0).fit(X, y)
    assert np.mean(est.predict(X) != y) <= 0.15
    assert "public candidate set" in est.summary()[0]
    back = load_model(save_model(est, tmp_path / "h.json"))
    assert back.coef_exact_ == est.coef_exact_ and np.array_equal(back.predict(X), est.predict(X))
    with pytest.raises(InvalidParameterError, match="mode='paper'"):
        PrivateFeasibilityHalfspaceClassifier(domain=8, candidates=10, learner="pac", mode="paper").fit(X, y)
    with pytest.raises(InvalidParameterError, match="candidates"):  # d = 5 without candidates: pointed to them
        PrivateFeasibilityHalfspaceClassifier(domain=8).fit(X, y)


def test_halfspace_candidates_are_public_integer_halfspaces_with_the_constant_ones():
    cs = halfspace_candidates(300, 3, 10, rng=2)
    P = cs.points
    assert P.shape == (302, 4) and cs.bound == 3 * 64 * 10 and np.abs(P).max() <= cs.bound
    assert np.all(np.abs(P[:300, :3]).max(axis=1) == 64)  # every direction has resolution 64
    assert P[300:].tolist() == [[0, 0, 0, -1], [0, 0, 0, 1]]  # all positive, all negative
    one_class = candidate_depths(
        np.hstack([np.zeros((5, 3), dtype=np.int64), -np.ones((5, 1), dtype=np.int64)]), np.ones(5, dtype=np.int64), P
    )
    assert one_class[300] == 5  # the constant positive hypothesis satisfies a one-class positive dual


def test_the_command_line_fits_over_candidates(tmp_path):
    gen = np.random.default_rng(12)
    A, b = _feasible_system(gen, 400, 4, 2, [1, 0, 0, -1])
    csv = tmp_path / "c.csv"
    csv.write_text("a1,a2,a3,a4,b\n" + "".join(",".join(map(str, [*r, v])) + "\n" for r, v in zip(A, b)))
    out = tmp_path / "m.json"
    args = ["fit", "linear-feasibility", str(csv), "--label", "b", "--domain", "-2:2", "--epsilon", "2"]
    result = CliRunner().invoke(main, args + ["--set", "candidates=500", "--seed", "0", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert len(load_model(out).solution_) == 4
    result = CliRunner().invoke(
        main, ["feasibility", str(csv), "--domain", "-2:2", "--candidates", "300", "--candidate-bound", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "private feasible point (a1, a2, a3, a4)" in result.output
    assert "FindDeepPoint: 4 coordinate(s)" in result.output


@pytest.mark.parametrize("kind", ["system", "halfspace"])
def test_the_release_over_candidates_depends_on_public_inputs_only(kind):
    """Two inputs of one shape and two seeds: the same ledger, which ``privacy_record`` recomputes
    without data; the same reviewed attributes as the exact path (no depth, no count)."""
    gen = np.random.default_rng(13)
    fits = []
    for seed in (0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UtilityWarning)
            if kind == "system":
                A, b = gen.integers(-2, 3, size=(200, 4)), gen.integers(-2, 3, size=200)
                est = PrivateLinearFeasibility(bound=2, candidates=100, random_state=seed).fit(A, b)
            else:
                X = gen.integers(-4, 5, size=(200, 3))
                y = gen.integers(0, 2, size=200)
                est = PrivateFeasibilityHalfspaceClassifier(domain=4, candidates=100, random_state=seed).fit(X, y)
        fits.append(est)
    a, b = fits
    assert a.ledger_.lines() == b.ledger_.lines() and a.privacy_spent_ == b.privacy_spent_
    assert a.privacy_record(*a.fit_shape_).to_dict() == a.ledger_.to_dict()
    public = {k for k in vars(a) if k.endswith("_") and not k.startswith("_")}
    expected = {"solution_", "composition_", "n_samples_", "n_features_in_", "domain_"} if kind == "system" else {
        "coef_exact_", "intercept_exact_", "degenerate_", "composition_", "n_samples_", "n_features_in_",
        "classes_", "domain_",
    }  # fmt: skip
    assert public - {"ledger_", "privacy_spent_", "fit_shape_", "feature_names_in_"} == expected


def test_the_truncated_quality_solves_no_lp_below_tau(monkeypatch):
    """Spec 3.7 item 3's saving: with RecConcave's public ``tau`` the levels ``<= tau`` get no LP, and
    the truncated quality ``max(Q_i, tau)`` is the one computed from every level."""
    import privpac.geometry.hull_lp as hull_lp
    from privpac.geometry.rational_domain import interval_quality

    solved = []
    original = hull_lp.hull_slice_ranges

    def counting(P, q, prefix, counts, **kwargs):
        solved.append(len(counts))
        return original(P, q, prefix, counts, **kwargs)

    monkeypatch.setattr(hull_lp, "hull_slice_ranges", counting)
    gen = np.random.default_rng(14)
    compared = 0  # prefixes where the cut solved fewer level LPs than the full list
    for _ in range(6):
        C = 2
        A, b, P = _system(gen, int(gen.integers(6, 12)), 4, 2, C)
        levels = _levels(A, b, P, C)
        plan = plan_find_deep_point(len(b), 4, 2, 1.0, candidates=candidate_set(P, C))
        for prefix, _t, dom, ints in _walk(gen, levels, plan):
            for tau in sorted({0, 1, len(b) // 2, len(b) - 1}):
                solved.clear()
                cut = levels.intervals(prefix, tau)
                with_cut = sum(solved)
                if len(ints) > tau:  # the levels above tau are the same; below, any nested value
                    assert cut[tau:] == ints[tau:] and len(cut) == len(ints)
                else:  # nothing above tau: the truncated quality is the constant tau
                    assert cut in ([], ints)
                f = coordinate_quality(dom, levels, prefix, 4, tau)
                g = interval_quality(dom, ints, floor=tau)
                assert list(f.starts) == list(g.starts)
                assert [int(f(s)) for s in f.starts] == [int(g(s)) for s in g.starts]
                if len(prefix) >= 2 and tau > 0 and len(ints) > 0:
                    solved.clear()
                    levels.intervals(prefix, 0)
                    assert with_cut <= sum(solved)
                    compared += with_cut < sum(solved)
    assert compared > 0  # some levels were skipped


def test_a_public_depth_promise_sets_the_promises_and_the_truncation():
    """Spec 6.5: a candidate set without a feasible point needs a public ``M < m`` chosen in advance;
    RecConcave's promises ``r_i = (1 - alpha~)^(i-1) M`` and the truncation levels follow it."""
    from privpac.learners.linear_feasibility import truncation_levels

    cs = random_candidates(50, 3, 2, rng=0)
    default = plan_find_deep_point(1000, 3, 2, 1.0, 1e-6, one_d_optimizer="recconcave", candidates=cs)
    lower = plan_find_deep_point(1000, 3, 2, 1.0, 1e-6, one_d_optimizer="recconcave", candidates=cs, depth_promise=800)
    assert default.depth_promise == 1000 and lower.depth_promise == 800
    assert lower.promises == pytest.approx(tuple(0.8 * r for r in default.promises))
    assert lower.truncation == truncation_levels(800, 3, 0.1) != default.truncation
    for bad in (0, 1001, 2.5):
        with pytest.raises(InvalidParameterError, match="depth_promise"):
            plan_find_deep_point(1000, 3, 2, 1.0, 1e-6, one_d_optimizer="recconcave", candidates=cs, depth_promise=bad)
    gen = np.random.default_rng(15)
    A, b = _feasible_system(gen, 300, 3, 2, [1, 0, -1])
    res = find_deep_point(
        A, b, 2, 1.0, 1e-6, one_d_optimizer="recconcave", candidates=cs, depth_promise=len(b) // 2, rng=1
    )
    assert res.plan.depth_promise == len(b) // 2 and len(res.solution) == 3
