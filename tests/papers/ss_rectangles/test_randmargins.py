"""RandMargins (robust and paper-literal): the checklist of spec ss-rectangles section 7."""

import math
import warnings

import numpy as np
import pytest

from privpac.accounting import PrivacyLedger
from privpac.bounds.rectangles import plan_sample_size
from privpac.datasets import make_rectangle_distribution
from privpac.errors import BudgetExceededError, DataError, InvalidParameterError, PaperLiteralWarning
from privpac.learners.boxes import BoxHypothesis, as_grid_points, direction_values
from privpac.learners.randmargins import randmargins, run_randmargins
from privpac.learners.randmargins_plan import RandMarginsPlan, calibrate_randmargins, plan_randmargins
from privpac.learners.randmargins_windows import draw_tags, merge_windows, position_tags, tag_key, window_statistic
from privpac.learners.rectangles_composition import plan_composition
from privpac.random import SeededRandom


def raw_plan(d, x_max=1023, shape="box", eps=2.0, beta=0.1, **kw):
    D = 2 * d if shape == "box" else d
    return RandMarginsPlan.from_raw(eps, beta / (4 * D), x_max, dimension=d, shape=shape, **kw)


def uniform(n, d, x_max, seed):
    return np.random.default_rng(seed).integers(0, x_max + 1, size=(n, d))


def literal(plan_or_fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PaperLiteralWarning)
        return plan_or_fn(*args, **kw)


# -- 16. calibration golden values ----------------------------------------------------------------


def test_calibration_golden_values():
    paper = calibrate_randmargins(1.0, 1e-6, 10, pure=True, mode="paper")
    assert f"{paper.epsilon_call:.4g}" == "0.0008764" and f"{paper.delta_call:.3g}" == "8.33e-08"
    # RM-R8: with an approximate interior point the paper's delta/(D+2) under-charges: refused.
    with pytest.raises(InvalidParameterError, match="RM-R8"):
        calibrate_randmargins(1.0, 1e-6, 10, pure=False, mode="paper")
    explicit = calibrate_randmargins(1.0, 1e-6, 10, pure=True, mode="explicit")
    assert f"{explicit.epsilon_call:.4g}" == "0.009992" and explicit.delta_call == 0.0
    approx = calibrate_randmargins(1.0, 1e-6, 10, pure=False, mode="explicit")
    assert approx.epsilon_call == pytest.approx(1.0 / (2 * (5 * math.log(2e6) + 31)))
    assert approx.delta_call == pytest.approx(1e-6 * -math.expm1(-approx.epsilon_call) / 40)
    # the same calibration whatever D for a pure interior point
    assert calibrate_randmargins(1.0, 1e-6, 1000, pure=True).epsilon_call == explicit.epsilon_call


def test_replace_one_plans_at_half_the_budget():
    ar = plan_randmargins(1.0, 1e-6, 255, dimension=2, neighbours="add-remove")
    ro = plan_randmargins(1.0, 1e-6, 255, dimension=2, neighbours="replace-one")
    assert ro.epsilon_call == pytest.approx(calibrate_randmargins(0.5, 1e-6 / (1 + math.exp(0.5)), 4).epsilon_call)
    assert ro.epsilon_call < ar.epsilon_call and ro.window > ar.window
    assert (ro.epsilon, ro.delta, ro.neighbours) == (1.0, 1e-6, "replace-one")


# -- 1. output type; 11. boundaries ----------------------------------------------------------------


@pytest.mark.parametrize("shape", ["box", "orthant"])
def test_output_is_a_valid_box_and_predicts_0_1(shape):
    plan = raw_plan(3, shape=shape)
    X = uniform(20_000, 3, 1023, 1)
    res = run_randmargins(as_grid_points(X, plan.x_max), plan, rng=5)
    assert len(res.thresholds) == plan.n_directions and all(-1 <= p <= 1023 for p in res.thresholds)
    box = res.hypothesis
    assert all(0 <= lo <= 1024 and -1 <= hi <= 1023 for lo, hi in zip(box.lower, box.upper))
    if shape == "orthant":
        assert box.lower == (0, 0, 0)
    pred = box.predict(as_grid_points(X, plan.x_max))
    assert pred.shape == (20_000,) and set(np.unique(pred)) <= {0, 1}
    assert BoxHypothesis.from_thresholds([-1] + [5] * (plan.n_directions - 1), plan.x_max, shape).empty


def test_boundary_points_and_the_whole_domain():
    plan = raw_plan(2, x_max=255)
    # positives everywhere, including both edges: the target is the whole domain
    X = np.array([[a, b] for a in range(256) for b in range(0, 256, 2)] * 2)
    res = run_randmargins(as_grid_points(X, plan.x_max), plan, rng=3)
    box = res.hypothesis
    # RandMargins cuts a margin of about mu points' worth off each side, a few grid lines here
    assert not box.empty and max(box.lower) <= 16 and min(box.upper) >= 239
    # closed intervals: a point on an edge is inside
    edge = np.array([[box.lower[0], box.upper[1]], [box.upper[0], box.lower[1]]], dtype=np.uint8)
    assert box.predict(edge).tolist() == [1, 1]


def test_uint64_grid_without_overflow():
    top = 2**64 - 1
    plan = raw_plan(2, x_max=top, eps=4.0)
    rng = np.random.default_rng(0)
    X = (top - rng.integers(0, 2**40, size=(12_000, 2)).astype(np.uint64)).astype(np.uint64)
    X[:10] = top  # points on the upper edge of the domain
    P = as_grid_points(X, plan.x_max)
    res = run_randmargins(P, plan, rng=2)
    box = res.hypothesis
    assert not box.empty
    assert min(box.lower) >= int(X.min()) and max(box.upper) <= top  # inside the positives' range
    assert box.predict(P).sum() > 0
    assert BoxHypothesis((0, 0), (top, top)).predict(np.array([[top, top]], dtype=np.uint64)).tolist() == [1]


# -- 2. negatives are ignored; 18. reproducibility ---------------------------------------------------


def test_negatives_never_change_the_output():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 1024, size=(30_000, 2))
    y = np.all((X > 200) & (X < 800), axis=1).astype(int)
    kw = dict(epsilon=200.0, delta=1e-3, rng=9, tie_break_bits=16)
    base = randmargins(X, y, 1023, **kw)
    neg = np.flatnonzero(y == 0)
    dropped = randmargins(np.delete(X, neg[:5000], axis=0), np.delete(y, neg[:5000]), 1023, **kw)
    perm = np.arange(len(y))
    perm[neg] = rng.permutation(neg)
    shuffled = randmargins(X[perm], y[perm], 1023, **kw)
    extra = randmargins(np.vstack([X, [[0, 0], [1023, 1023]]]), np.r_[y, 0, 0], 1023, **kw)
    for other in (dropped, shuffled, extra):
        assert other.references == base.references and np.array_equal(other.window_sizes, base.window_sizes)


def test_reproducible_from_a_seed_and_noise_is_data_independent():
    plan = raw_plan(2)
    P = as_grid_points(uniform(5000, 2, 1023, 2), plan.x_max)
    a, b = run_randmargins(P, plan, rng=11), run_randmargins(P, plan, rng=11)
    assert a.references == b.references and np.array_equal(a.window_sizes, b.window_sizes)
    c = run_randmargins(P, plan, rng=12)
    assert not np.array_equal(a.window_sizes, c.window_sizes)
    other = run_randmargins(as_grid_points(uniform(77, 2, 1023, 3), plan.x_max), plan, rng=11)
    assert np.array_equal(other.window_sizes, a.window_sizes)  # drawn before any data is read


# -- 3. no false positives; 4. deletion budget; 5. PAC accuracy ------------------------------------------


def test_no_false_positives_and_the_deletion_budget():
    plan = raw_plan(3, beta=1e-4)  # interior points essentially never fail
    for seed in range(8):
        X = uniform(30_000, 3, 1023, seed)
        P = as_grid_points(X, plan.x_max)
        res = run_randmargins(P, plan, rng=seed, debug=True)
        box, tr = res.hypothesis, res.trace
        assert all(lo >= int(m) for lo, m in zip(box.lower, P.min(axis=0)))
        assert all(hi <= int(m) for hi, m in zip(box.upper, P.max(axis=0)))
        missed = int(P.shape[0] - box.predict(P).sum())
        k_budget = int(np.maximum(res.window_sizes, 0).sum())
        assert missed <= sum(tr.deleted) <= sum(tr.window_real) <= k_budget
        assert all(dl <= w for dl, w in zip(tr.deleted, tr.window_real))


def test_pac_accuracy_at_the_sufficient_sample_size():
    alpha, beta = 0.1, 0.1
    plan = raw_plan(2, eps=2.0, beta=beta)
    n = plan_sample_size(plan, alpha, beta)
    dist = make_rectangle_distribution(2, 1023)
    src = SeededRandom(21)
    errors = []
    for _ in range(200):
        n_pos = int(np.random.default_rng(src.randbits(63)).binomial(n, dist.positive_mass))
        res = run_randmargins(dist.sample_positives(n_pos, src.spawn()), plan, rng=src.spawn())
        errors.append(dist.error(res.hypothesis))
    assert np.mean(np.asarray(errors) <= alpha) >= 1 - beta
    assert max(errors) < 0.5  # never the empty box at this size


# -- 6. synchronisation; 7. exposure ----------------------------------------------------------------


def _keys(P, plan, tags, j):
    v = direction_values(P, plan.x_max, plan.directions, j).astype(object)
    return np.array([int(a) * plan.K + int(t) for a, t in zip(v, tags)], dtype=object)


def test_synchronisation_invariant():
    plan = raw_plan(3, shape="orthant", tie_break_bits=8)
    S = uniform(3000, 3, 1023, 5)
    x_prime = np.array([[1000, 990, 1010]])
    St = as_grid_points(np.vstack([S, x_prime]), plan.x_max)
    seed = 17
    res_t = run_randmargins(St, plan, rng=seed, debug=True)
    res_s = run_randmargins(as_grid_points(S, plan.x_max), plan, rng=seed, debug=True)
    tags = draw_tags(St.shape[0], plan.tie_break_bits, SeededRandom(seed).spawn())  # the first spawned stream
    xp = St.shape[0] - 1
    alive = np.ones(S.shape[0], dtype=bool)  # the S-run replayed with the S'-run's outputs
    exposed_before = False
    for j in range(plan.n_directions):
        t_alive = set(res_t.trace.alive[j].tolist())
        x_alive = xp in t_alive
        assert t_alive - {xp} == set(np.flatnonzero(alive).tolist())
        keys = _keys(St, plan, tags, j)
        idx = np.flatnonzero(alive)
        window_t = set(res_t.trace.window[j].tolist())
        if xp not in window_t:  # x' outside the window: identical windows
            kb = res_t.trace.window_real[j]
            top = idx[np.argsort(keys[idx].astype(float), kind="stable")][idx.size - kb :] if kb else idx[:0]
            assert set(top.tolist()) == window_t
        if x_alive and xp in window_t:
            exposed_before = True
        if not exposed_before:  # same streams, same windows: the same interior point
            assert res_s.references[j] == res_t.references[j]
        p = res_t.references[j]
        alive[idx[keys[idx] >= p] if p >= 0 else idx] = False
    assert np.array_equal(res_s.window_sizes, res_t.window_sizes)


def test_exposures_are_few_and_the_baseline_exposes_every_round():
    d = 20
    plan = raw_plan(d, shape="orthant", eps=3.0)
    rows = int(1.5 * d * plan.mu)
    S = np.random.default_rng(8).integers(0, 1000, size=(rows, d))
    P = as_grid_points(np.vstack([S, np.full((1, d), 1023)]), plan.x_max)  # x' at the top corner
    xp = P.shape[0] - 1
    src = SeededRandom(4)
    counts = []
    for _ in range(150):
        tr = run_randmargins(P, plan, rng=src.spawn(), debug=True).trace
        counts.append(sum(xp in set(w.tolist()) for w in tr.window))
    counts = np.asarray(counts)
    assert counts.mean() <= 1.8 and counts.max() <= 5 * math.log(1 / plan.delta) + 31
    assert counts.min() >= 1  # at the top corner x' is always in the first window
    # the baseline reads the top Delta_0 of every direction and deletes nothing: x' is in every window
    base = plan_composition(1.0, 1e-6, plan.x_max, shape="orthant")
    for j in range(d):
        v = direction_values(P, plan.x_max, plan.directions, j)
        assert xp in set(np.argpartition(v, v.size - base.window)[v.size - base.window :].tolist())


# -- 10. ties (erratum R5) ---------------------------------------------------------------------------


def test_ties_collapse_without_tags_and_tags_fix_it():
    X = np.full((10_000, 3), 7)
    robust = raw_plan(3, x_max=15)
    no_tags = raw_plan(3, x_max=15, tie_break_bits=0)
    lit = raw_plan(3, x_max=15, variant="paper-literal")
    P = as_grid_points(X, robust.x_max)
    for seed in range(5):
        assert run_randmargins(P, robust, rng=seed).hypothesis == BoxHypothesis((7, 7, 7), (7, 7, 7))
        collapsed = run_randmargins(P, no_tags, rng=seed).hypothesis
        assert collapsed.empty and collapsed.predict(P).sum() == 0  # 100% false negatives
        assert literal(run_randmargins, P, lit, rng=seed).hypothesis.predict(P).sum() == 0


# -- 12., 13. few, no, all positives; 14. large d ----------------------------------------------------------


def test_no_positives_gives_the_empty_box():
    plan = raw_plan(3)
    for seed in range(10):
        res = run_randmargins(as_grid_points(np.zeros((0, 3), dtype=int), plan.x_max), plan, rng=seed)
        assert res.hypothesis.empty and res.thresholds[0] == -1
    X = uniform(1000, 3, 1023, 1)
    res = randmargins(X, np.zeros(1000, dtype=int), 1023, epsilon=1.0, delta=1e-6, rng=3)
    assert res.hypothesis.empty


def test_few_positives_stay_private_and_sound():
    plan = raw_plan(2)
    X = np.array([[100, 200], [300, 400], [500, 600]])
    for seed in range(10):
        box = run_randmargins(as_grid_points(X, plan.x_max), plan, rng=seed).hypothesis
        assert box.empty or (min(box.lower) >= 100 and max(box.upper) <= 600)


def test_all_positive_training_error_within_the_deletions():
    plan = raw_plan(2)
    X = uniform(40_000, 2, 1023, 6)
    P = as_grid_points(X, plan.x_max)
    res = run_randmargins(P, plan, rng=1)
    train_error = 1.0 - res.hypothesis.predict(P).mean()
    assert train_error <= np.maximum(res.window_sizes, 0).sum() / P.shape[0]


def test_large_dimension_completes():
    plan = plan_randmargins(1.0, 1e-6, 15, dimension=1000)
    X = uniform(10_000, 1000, 15, 2)
    res = run_randmargins(as_grid_points(X, plan.x_max), plan, rng=0)
    assert len(res.thresholds) == 2000 and res.hypothesis.dimension == 1000


# -- ledger, variants ------------------------------------------------------------------------------------


def test_ledger_records_the_composed_guarantee():
    ledger = PrivacyLedger(1.0, 1e-6)
    X = uniform(500, 2, 255, 1)
    randmargins(X, np.ones(500, dtype=int), 255, epsilon=1.0, delta=1e-6, rng=1, ledger=ledger)
    assert ledger.spent == (1.0, 1e-6)
    block = ledger.entries[0]
    # The composed guarantee is the record; the rounds that ran follow the data and are not listed.
    assert "Thm 3.2" in block.mechanism and "at most 4 calls" in block.mechanism and block.children == []
    with pytest.raises(BudgetExceededError, match="budget"):
        randmargins(X, np.ones(500, dtype=int), 255, epsilon=1.0, delta=1e-6, ledger=PrivacyLedger(0.5, 1e-6))


def test_paper_literal_warns_and_paper_calibration_runs():
    X = uniform(2000, 2, 255, 3)
    with pytest.warns(PaperLiteralWarning):
        randmargins(X, np.ones(2000, dtype=int), 255, variant="paper-literal", rng=1)
    res = randmargins(X, np.ones(2000, dtype=int), 255, calibration="paper", rng=1)
    assert res.plan.calibration == "paper" and res.plan.epsilon_call < 1e-3


# -- 15. invalid public parameters -------------------------------------------------------------------------


def test_bad_inputs():
    X, y = uniform(50, 2, 15, 1), np.ones(50, dtype=int)
    bad_kwargs = [
        dict(epsilon=0.0),
        dict(delta=0.0),
        dict(delta=1.0),
        dict(beta=1.5),
        dict(shape="sphere"),
        dict(variant="clever"),
        dict(calibration="magic"),
        dict(tie_break_bits=65),
        dict(neighbours="bounded"),
        dict(epsilon=50.0, calibration="paper", delta=0.9, neighbours="add-remove"),  # per-call delta >= e^-2
    ]
    for kw in bad_kwargs:
        with pytest.raises(InvalidParameterError):
            randmargins(X, y, 15, **kw)
    with pytest.raises(InvalidParameterError, match="per-call epsilon < 1"):
        randmargins(X, y, 15, epsilon=5000.0, calibration="paper", neighbours="add-remove")
    with pytest.raises(InvalidParameterError, match="beta_call"):
        RandMarginsPlan.from_raw(1.0, 0.3, 15, dimension=2)
    with pytest.raises(InvalidParameterError, match="x_max"):
        randmargins(X, y, -1)
    with pytest.raises(InvalidParameterError, match="dimension"):
        plan_randmargins(1.0, 1e-6, 15, dimension=0)
    with pytest.raises(DataError, match="2-dimensional"):
        randmargins(X[:, 0], y, 15)
    with pytest.raises(InvalidParameterError):
        randmargins(X, y, [15, 15, 15])
    with pytest.raises(DataError, match="outside the domain"):
        randmargins(X + 16, y, 15)
    with pytest.raises(DataError, match="non-integer"):
        randmargins(X + 0.5, y, 15)
    with pytest.raises(DataError, match="label"):
        randmargins(X, y * 2, 15)
    with pytest.raises(InvalidParameterError, match="InteriorPoint"):
        plan_randmargins(1.0, 1e-6, 15, dimension=2, ip=object())


def test_any_interior_point_plugs_in_recconcave_included():
    from privpac.optimize import RecConcaveInteriorPoint

    ip = RecConcaveInteriorPoint(beta=0.01, N=2, base_case_max=4)  # forced recursion on a small grid
    plan = RandMarginsPlan.from_raw(4.0, 0.01, 255, dimension=2, ip=ip, delta_call=1e-6, delta=0.1, tie_break_bits=0)
    assert ip.plan(4.0, 1e-6, plan.ip_domain_size).depth == 2 and plan.window == ip.sample_complexity(
        4.0, 1e-6, 0.01, plan.ip_domain_size
    )
    X = uniform(int(6 * plan.mu), 2, 255, 4)
    P = as_grid_points(X, plan.x_max)
    ledger = PrivacyLedger(plan.epsilon, plan.delta)
    res = run_randmargins(P, plan, rng=2, ledger=ledger)
    box = res.hypothesis
    assert not box.empty and all(lo >= int(m) for lo, m in zip(box.lower, P.min(axis=0)))
    assert ledger.spent == (plan.epsilon, plan.delta) and "RecConcaveInteriorPoint" in str(ledger)
    # the approximate calibration: half the per-call epsilon of a pure plug-in, and a per-call delta
    approx = plan_randmargins(1.0, 1e-6, 255, dimension=2, ip=RecConcaveInteriorPoint(beta=0.1 / 16))
    pure = plan_randmargins(1.0, 1e-6, 255, dimension=2)
    assert approx.delta_call > 0 and approx.epsilon_call < pure.epsilon_call


# -- the same rounds read block by block (how RandMargins runs on Dask and Spark) ----------------------


def test_position_tags_are_the_stream_word_of_each_row_wherever_the_block_starts():
    key = tag_key(SeededRandom(3))
    whole = position_tags(key, np.arange(40), 64)
    for lo, hi in ((0, 40), (1, 9), (3, 4), (4, 17), (13, 40)):
        assert np.array_equal(position_tags(key, np.arange(lo, hi), 64), whole[lo:hi])
    picked = np.array([2, 7, 8, 31])
    assert np.array_equal(position_tags(key, picked, 12), whole[picked] >> np.uint64(52))
    assert np.array_equal(draw_tags(40, 64, SeededRandom(3)), whole)
    assert not np.any(position_tags(key, picked, 0))


def _block_reader(P, positions, plan, cuts):
    """A window reader over blocks of P cut at ``cuts``: window_statistic per block, merged."""

    def read(key, j, references, k):
        parts = []
        for a, b in zip([0, *cuts], [*cuts, P.shape[0]]):
            parts.append(window_statistic(P[a:b], positions[a:b], key, plan, j, references, k))
        return merge_windows(parts, k)

    return read


@pytest.mark.parametrize(
    "plan_kw",
    [
        {"d": 2},
        {"d": 3, "shape": "orthant", "tie_break_bits": 8},
        {"d": 2, "x_max": 7, "tie_break_bits": 0},
        {"d": 1, "x_max": 2**63},  # keys x K + tag beyond int64: Python integers
    ],
)
def test_block_by_block_rounds_release_the_in_memory_references(plan_kw):
    d = plan_kw.pop("d")
    plan = raw_plan(d, **plan_kw)
    x_max = plan.x_max[0]
    rng = np.random.default_rng(d)
    for trial in range(6):
        n = int(rng.integers(0, 400))
        if x_max > 2**62:
            P = np.asarray([[int(v) * 2**53 + int(w)] for v, w in rng.integers(0, 1000, size=(n, 2))], dtype=object)
        else:
            P = rng.integers(0, x_max + 1, size=(n, d))
            if trial % 3 == 0:
                P[: n // 2] = P[0] if n else P[:0]  # ties
        P = as_grid_points(P, plan.x_max) if n else np.zeros((0, d), dtype=np.int64)
        positions = np.sort(rng.choice(5 * n + 1, size=n, replace=False))
        memory = run_randmargins(P, plan, rng=trial, positions=positions)
        cuts = sorted(int(c) for c in rng.integers(0, n + 1, size=3))
        blocks = run_randmargins(None, plan, rng=trial, window_reader=_block_reader(P, positions, plan, cuts))
        assert blocks.references == memory.references and blocks.thresholds == memory.thresholds
        assert np.array_equal(blocks.window_sizes, memory.window_sizes)
