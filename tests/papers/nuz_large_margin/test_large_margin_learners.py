import math
import warnings

import numpy as np
import pytest

from conftest import chi_square_pvalue
from privpac.accounting import PrivacyLedger
from privpac.audit import exact_check, exact_epsilon, run_audit
from privpac.audit.cases_large_margin import (
    BOOST_BETA,
    MarginData,
    _boosted_pairs,
    boosted_net_distribution,
    pure_net_distribution,
)
from privpac.datasets import make_margin_data, margin_direction
from privpac.errors import InvalidParameterError, PaperLiteralWarning, UnsafeConfigurationWarning, UtilityWarning
from privpac.learners.dp_erm import MarginHingeLoss, boosted_erm, boosting_rounds, noisy_gd
from privpac.learners.jl_projection import (
    SignProjection,
    auto_projection_dim,
    normalize_rows,
    paper_projection_dim,
    project_records,
)
from privpac.learners.large_margin import (
    learn_margin_faithful,
    learn_margin_practical,
    learn_margin_pure,
    net_output_distribution,
)
from privpac.learners.margin_nets import sphere_net, sphere_net_size, violation_counts
from privpac.mechanisms import gdp_mu


def pm(y01):
    return 2.0 * np.asarray(y01, dtype=float) - 1.0


def data(n, d, gamma, seed, w=None):
    w = margin_direction(d, 1000 + seed) if w is None else w
    ds = make_margin_data(n, d, gamma, w_star=w, rng=seed)
    return ds.X, pm(ds.y), w


def test_error(coef, X, y):
    return float(np.mean(np.where(X @ coef >= 0, 1.0, -1.0) != y))


test_error.__test__ = False


# -- 8.1 deterministic unit tests -------------------------------------------------------------------


def test_projection_signs_shape_and_data_independence():
    P = SignProjection.draw(7, 11, rng=5)
    Q = SignProjection.draw(7, 11, rng=5)
    assert P.signs().shape == (7, 11) and set(np.unique(P.signs())) == {-1, 1}
    assert np.array_equal(P.signs(), Q.signs())  # same seed, same A, whatever the data
    X = np.random.default_rng(0).standard_normal((5, 11))
    A = P.signs() / math.sqrt(7)
    assert np.allclose(P.project(X), X @ A.T, atol=1e-5)
    Z = project_records(np.vstack([X, np.zeros(11)]), P)
    assert np.allclose(np.linalg.norm(Z[:-1], axis=1), 1.0) and np.all(Z[-1] == 0.0)
    # The learner draws A before reading the data: two datasets, same seed, same projection seed.
    X1, y1, _ = data(50, 2000, 0.3, 1)
    X2, y2, _ = data(50, 2000, 0.3, 2)
    m1 = learn_margin_practical(X1, y1, 0.3, 1.0, 1e-6, rng=9)
    m2 = learn_margin_practical(X2, y2, 0.3, 1.0, 1e-6, rng=9)
    assert m1.projection is not None and m1.projection.seed == m2.projection.seed


def test_map_back_identity():
    g = np.random.default_rng(1)
    P = SignProjection.draw(30, 200, rng=2)
    X = g.standard_normal((500, 200))
    w = g.standard_normal(30)
    assert np.array_equal(np.sign(X @ P.map_back(w)), np.sign(project_records(X, P) @ w))


def test_margin_hinge_loss_values_and_gradient():
    for gamma in (0.05, 0.3, 1.0):
        loss = MarginHingeLoss(gamma)
        assert loss.value(0.96 * gamma) == pytest.approx(0.0, abs=1e-12)
        assert loss.value(gamma / 10) == pytest.approx(1.0)
        assert loss.value(0.0) == pytest.approx(96 / 86)
        assert loss.value(-1.0) == pytest.approx((1 + 0.96 * gamma) / (0.86 * gamma)) == loss.value_range
        assert loss.lipschitz == pytest.approx(100 / (86 * gamma))
    # convexity on random chords
    loss = MarginHingeLoss(0.2)
    g = np.random.default_rng(0)
    a, b, t = g.uniform(-1, 1, 1000), g.uniform(-1, 1, 1000), g.uniform(0, 1, 1000)
    assert np.all(loss.value(t * a + (1 - t) * b) <= t * loss.value(a) + (1 - t) * loss.value(b) + 1e-12)


def test_pinned_constants():
    assert paper_projection_dim(0.3, 0.1, 0.1, 1000) == 8_313_312
    assert 0.1 * 0.1**2 / (64 * 1000) == pytest.approx(1.5625e-8)
    assert boosting_rounds(0.1) == 7 and boosting_rounds(BOOST_BETA) == 4
    assert sphere_net_size(2, 0.01) == 315 and sphere_net_size(2, 0.03) == 105
    assert auto_projection_dim(0.3, 10_000, 20) == 178 and auto_projection_dim(0.3, 100, 20) is None


@pytest.mark.parametrize("m,gamma", [(1, 0.3), (2, 0.1), (3, 0.6)])
def test_nets_cover_the_sphere(m, gamma):
    net = sphere_net(m, gamma / 10)
    assert np.allclose(np.linalg.norm(net, axis=1), 1.0)
    u = np.random.default_rng(m).standard_normal((2000, m))
    u /= np.linalg.norm(u, axis=1)[:, None]
    nearest = np.sqrt(np.maximum(0.0, 2.0 - 2.0 * (u @ net.T).max(axis=1)))
    assert nearest.max() <= gamma / 10 + 1e-12
    if m == 3:
        assert abs(len(net) - sphere_net_size(3, gamma / 10)) < 0.05 * len(net)


def test_same_seed_same_fit():
    X, y, _ = data(300, 50, 0.3, 3)
    a = learn_margin_practical(X, y, 0.3, 1.0, 1e-6, rng=4)
    b = learn_margin_practical(X, y, 0.3, 1.0, 1e-6, rng=4)
    assert np.array_equal(a.coef, b.coef)


# -- 8.2 privacy ------------------------------------------------------------------------------------


def _pure_pair(seed):
    X, y, _ = data(12, 2, 0.3, seed)
    Z = normalize_rows(X)
    y2 = y.copy()
    y2[0] = -y2[0]
    Z3 = Z.copy()
    Z3[0] = [-Z[0, 1], Z[0, 0]]  # moved onto other candidates' bands
    return [
        (MarginData(Z, y, Z[0], 0.3), MarginData(Z, y2, Z[0], 0.3)),
        (MarginData(Z, y, Z[0], 0.3), MarginData(Z3, y, Z[0], 0.3)),
    ]


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_pure_learner_exact_privacy(eps):
    net = sphere_net(2, 0.03)
    for S, T in _pure_pair(7) + _pure_pair(8):
        cs = violation_counts(S.Z, S.y, net, 0.03)
        ct = violation_counts(T.Z, T.y, net, 0.03)
        assert np.max(np.abs(cs - ct)) <= 1
        P, Q = pure_net_distribution(S, eps), pure_net_distribution(T, eps)
        assert exact_check(P, Q, eps, 0.0).passed
        lp, lq = np.log(np.array(list(P.values()))), np.log(np.array(list(Q.values())))
        assert np.max(np.abs(lp - lq)) <= eps + 1e-9


def test_pure_learner_output_matches_its_exact_distribution():
    X, y, _ = data(15, 2, 0.3, 21)
    net, probs = net_output_distribution(X, y, 0.3, 1.0)
    picks = [int(learn_margin_pure(X, y, 0.3, 1.0, rng=s).details["chosen"]) for s in range(3000)]
    counts = np.bincount(picks, minlength=len(net))
    assert chi_square_pvalue(counts, probs) > 1e-3


def test_selection_and_gradient_sensitivities():
    g = np.random.default_rng(5)
    gamma = 0.2
    loss = MarginHingeLoss(gamma)
    Z = normalize_rows(g.standard_normal((20, 6)))
    y = np.where(g.random(20) < 0.5, -1.0, 1.0)
    W = normalize_rows(g.standard_normal((200, 6))) * g.uniform(0, 1, (200, 1))
    for _ in range(50):
        Z2, y2 = Z.copy(), y.copy()
        Z2[0] = normalize_rows(g.standard_normal((1, 6)))[0] * g.uniform(0, 1)
        y2[0] = -y[0]
        diff = np.abs(loss.totals(Z, y, W) - loss.totals(Z2, y2, W))
        assert diff.max() <= loss.value_range + 1e-9
        for w in W[:20]:
            grad = lambda ZZ, yy, w=w: -((np.where(yy * (ZZ @ w) < loss.target, yy, 0.0)) @ ZZ) / loss.width  # noqa: E731
            assert np.linalg.norm(grad(Z, y) - grad(Z2, y2)) <= 2 * loss.lipschitz + 1e-9


def test_noisy_gd_uses_the_calibrated_noise():
    # Zero records have zero gradient: the first step is -eta_1 * noise, whose std we can check.
    Z = np.zeros((10, 4))
    y = np.ones(10)
    loss = MarginHingeLoss(0.3)
    W = noisy_gd(Z, y, loss, 1.0, 1e-6, 1, runs=40_000, average=False, rng=3)
    s = 2 * loss.lipschitz / gdp_mu(1.0, 1e-6)
    G = math.sqrt(100 * loss.lipschitz**2 + 4 * s * s)
    # Before projection each coordinate is N(0, (2 s / G)^2); project back and compare the norm law.
    raw_std = 2 * s / G
    sim = np.random.default_rng(0).standard_normal((200_000, 4)) * raw_std
    sim /= np.maximum(1.0, np.linalg.norm(sim, axis=1))[:, None]
    assert np.quantile(np.abs(W[:, 0]), 0.5) == pytest.approx(np.quantile(np.abs(sim[:, 0]), 0.5), rel=0.03)


def test_uncharged_selection_exceeds_its_claim_exactly():
    # (the registered audits themselves run in tests/privacy/test_audit_registry.py)
    pair = _boosted_pairs(2.0, 0.0)[0]
    literal = exact_epsilon(
        boosted_net_distribution(pair.dataset, 2.0, "paper-literal"),
        boosted_net_distribution(pair.neighbour, 2.0, "paper-literal"),
        0.0,
    )
    corrected = exact_epsilon(
        boosted_net_distribution(pair.dataset, 2.0, "corrected"),
        boosted_net_distribution(pair.neighbour, 2.0, "corrected"),
        0.0,
    )
    assert literal > 2.1 and corrected < 1.2


def test_audit_catches_missing_noise(monkeypatch):
    import privpac.mechanisms.gaussian as gaussian

    monkeypatch.setattr(gaussian, "gaussian_array", lambda size, sigma=1.0, rng=None: np.zeros(size))
    report = run_audit("margin-practical", trials=200, seed=1)  # no noise: the outputs separate at once
    assert report.violation


def test_paper_literal_ledger_shows_the_uncharged_pick():
    X, y, _ = data(40, 5, 0.3, 4)
    ledger = PrivacyLedger(1.0, 1e-6)
    with pytest.warns(PaperLiteralWarning):
        learn_margin_faithful(
            X, y, 0.3, 1.0, 1e-6, projection_dim="none", optimizer="dpgd", variant="paper-literal", ledger=ledger, rng=0
        )
    assert any("uncharged" in line for line in ledger.lines())
    ledger = PrivacyLedger(1.0, 1e-6)
    with pytest.warns(UtilityWarning):
        model = learn_margin_faithful(X, y, 0.3, 1.0, 1e-6, optimizer="dpgd", ledger=ledger, rng=0)
    assert ledger.spent == pytest.approx((1.0, 1e-6)) and model.details["selection_charged"]
    assert [e.epsilon for e in ledger.entries] == pytest.approx([0.5, 0.5])


# -- 8.3 utility ------------------------------------------------------------------------------------


@pytest.mark.parametrize("gamma,n", [(0.3, 2000), (0.1, 8000)])
def test_practical_utility(gamma, n):
    X, y, w = data(n, 1000, gamma, 5)
    Xt, yt, _ = data(4000, 1000, gamma, 6, w)
    model = learn_margin_practical(X, y, gamma, 1.0, 1e-6, rng=7)
    assert test_error(model.coef, Xt, yt) <= 0.05


def test_dimension_independence():
    for d in (50, 500, 5000):
        X, y, w = data(2000, d, 0.3, 8)
        Xt, yt, _ = data(3000, d, 0.3, 9, w)
        assert test_error(learn_margin_practical(X, y, 0.3, 1.0, 1e-6, rng=d).coef, Xt, yt) <= 0.05


@pytest.mark.parametrize("gamma", [0.3, 0.1, 0.05])
def test_pure_utility(gamma):
    good = 0
    for seed in range(50):
        X, y, w = data(100, 2, gamma, seed)
        Xt, yt, _ = data(2000, 2, gamma, seed + 500, w)
        good += test_error(learn_margin_pure(X, y, gamma, 1.0, rng=seed).coef, Xt, yt) <= 0.1
    assert good >= 45


def test_error_decreases_with_n_and_epsilon():
    def mean_err(n, eps):
        errs = []
        for seed in range(5):
            X, y, w = data(n, 300, 0.1, seed)
            Xt, yt, _ = data(2000, 300, 0.1, seed + 50, w)
            errs.append(test_error(learn_margin_practical(X, y, 0.1, eps, 1e-6, rng=seed).coef, Xt, yt))
        return np.mean(errs)

    assert mean_err(3000, 1.0) <= mean_err(300, 1.0)
    assert mean_err(600, 2.0) <= mean_err(600, 0.25)


def test_bst14_steps_are_two_over_the_root_of_t_g_squared(monkeypatch):
    """With the noise stubbed to zero, two identical records: every step is the same gradient step.

    ``eta_t = ||C||_2 / sqrt(t G^2)`` with ``||C||_2 = 2`` (the unit ball's diameter; BST14, NUZ
    Algorithm 3 line 16). The steps are so small next to BST14's noise scale that the iterate stays
    inside the ball and every record stays active, so ``w = 2 (n / width) z sum_t 1/sqrt(t G^2)``.
    A step of ``1/sqrt(t G^2)`` gives half of it.
    """
    import privpac.mechanisms.gaussian as gaussian
    from privpac.learners.dp_erm import noisy_sgd_bst14
    from privpac.mechanisms import bst14_noise_std

    monkeypatch.setattr(gaussian, "gaussian_array", lambda size, sigma=1.0, rng=None: np.zeros(size))
    z = np.array([0.6, 0.8])
    Z, y = np.vstack([z, z]), np.ones(2)
    loss = MarginHingeLoss(0.3)
    W = noisy_sgd_bst14(Z, y, loss, 1.0, 1e-6, rng=0)
    n, m = Z.shape
    sigma = bst14_noise_std(loss.lipschitz, n, 1.0, 1e-6)
    G2 = n * n * loss.lipschitz**2 + m * sigma**2
    steps = n * n - 1
    expected = 2.0 * (n / loss.width) * z * sum(1.0 / math.sqrt(t * G2) for t in range(1, steps + 1))
    assert np.linalg.norm(expected) < 1.0 and expected @ z < loss.target  # inside the ball, still active
    assert np.allclose(W[0], expected, rtol=1e-12, atol=0.0)


def test_faithful_runs_and_returns_a_finite_vector():
    X, y, _ = data(30, 10, 0.3, 10)
    with pytest.warns(UtilityWarning):
        model = learn_margin_faithful(X, y, 0.3, 1.0, 1e-6, rng=1)
    assert np.all(np.isfinite(model.coef)) and model.details["k"] == 7


# -- 8.4 edge cases and validation ------------------------------------------------------------------


def test_rescaling_rows_does_not_change_the_fit():
    X, y, _ = data(200, 40, 0.3, 11)
    scale = np.random.default_rng(0).uniform(0.1, 10, (200, 1))
    a = learn_margin_practical(X, y, 0.3, 1.0, 1e-6, rng=2)
    b = learn_margin_practical(X * scale, y, 0.3, 1.0, 1e-6, rng=2)
    assert np.allclose(a.coef, b.coef)


def test_zero_rows_violated_margin_and_one_class():
    X, y, w = data(200, 20, 0.3, 12)
    X[:5] = 0.0
    assert np.all(np.isfinite(learn_margin_practical(X, y, 0.3, 1.0, 1e-6, rng=1).coef))
    # XOR-like labels: no margin at all; the learner still runs and stays finite.
    g = np.random.default_rng(1)
    Xx = g.standard_normal((300, 2))
    yx = np.sign(Xx[:, 0] * Xx[:, 1])
    assert np.all(np.isfinite(learn_margin_practical(Xx, yx, 0.3, 1.0, 1e-6, rng=1).coef))
    assert np.all(np.isfinite(learn_margin_pure(Xx, yx, 0.3, 1.0, rng=1).coef))
    # One class only, separable from the origin with margin 0.3.
    pos = y > 0
    Xp, yp = X[pos][5:], y[pos][5:]
    Xt, yt, _ = data(2000, 20, 0.3, 13, w)
    model = learn_margin_practical(Xp, yp, 0.3, 1.0, 1e-6, rng=3)
    assert np.mean(Xt[yt > 0] @ model.coef >= 0) >= 0.95


def test_projection_dimension_larger_than_d_and_tiny_inputs():
    X, y, _ = data(50, 5, 0.3, 14)
    model = learn_margin_practical(X, y, 0.3, 1.0, 1e-6, projection_dim=12, rng=0)
    assert model.projection_dim == 12 and model.coef.shape == (5,)
    assert learn_margin_practical(X, y, 0.3, 1.0, 1e-6, rng=0).projection is None  # auto: identity when m >= d
    for n in (1, 2):
        assert np.all(np.isfinite(learn_margin_practical(X[:n], y[:n], 0.3, 1.0, 1e-6, rng=0).coef))
    with pytest.warns(UtilityWarning):
        learn_margin_faithful(X[:1], y[:1], 0.3, 1.0, 1e-6, rng=0)
    X1, y1, _ = data(30, 1, 0.3, 15)
    assert learn_margin_pure(X1, y1, 0.3, 1.0, rng=0).coef.shape == (1,)
    assert learn_margin_practical(X1, y1, 0.3, 1.0, 1e-6, rng=0).coef.shape == (1,)


def test_large_delta_warns():
    X, y, _ = data(20, 4, 0.3, 17)
    with pytest.warns(UnsafeConfigurationWarning, match="1/n"):
        learn_margin_practical(X, y, 0.3, 1.0, 0.1, rng=0)


def test_invalid_parameters():
    X, y, _ = data(20, 4, 0.3, 16)
    bad = [
        dict(margin=0.0),
        dict(margin=1.5),
        dict(margin=None),
        dict(epsilon=0.0),
        dict(epsilon=float("inf")),
        dict(delta=0.0),
        dict(delta=1.0),
        dict(projection_dim=0),
        dict(projection_dim="big"),
        dict(n_steps=0),
    ]
    for kw in bad:
        args = dict(margin=0.3, epsilon=1.0, delta=1e-6) | kw
        with pytest.raises(InvalidParameterError):
            learn_margin_practical(X, y, args["margin"], args["epsilon"], args["delta"],
                                   **{k: v for k, v in kw.items() if k in ("projection_dim", "n_steps")})  # fmt: skip
    with pytest.raises(InvalidParameterError, match="y"):
        learn_margin_practical(X, np.zeros(20), 0.3, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="X"):
        learn_margin_practical(X[0], y, 0.3, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="X"):
        learn_margin_practical(np.where(X > 0, np.nan, X), y, 0.3, 1.0, 1e-6)
    with pytest.raises(InvalidParameterError, match="alpha"):
        learn_margin_faithful(X, y, 0.3, 1.0, 1e-6, alpha=0.0)
    with pytest.raises(InvalidParameterError, match="variant"):
        learn_margin_faithful(X, y, 0.3, 1.0, 1e-6, variant="nope")
    with pytest.raises(InvalidParameterError, match="dimension <= 3"):
        learn_margin_pure(X, y, 0.3, 1.0)
    with pytest.raises(InvalidParameterError, match="max_candidates"):
        learn_margin_pure(X, y, 0.05, 1.0, projection_dim=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidParameterError, match="boost=True"):
            boosted_erm(normalize_rows(X), y, MarginHingeLoss(0.3), 1.0, 1e-6, boost=False, variant="paper-literal")
