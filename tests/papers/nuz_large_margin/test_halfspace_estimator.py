import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.base import clone

from privpac.bounds import evaluate_bound
from privpac.bounds.large_margin import band_mass, margin_pure_lower_bound
from privpac.cli import main
from privpac.datasets import load_digits_pair, make_margin_data, margin_direction
from privpac.domains import Grid, IntegerDomain
from privpac.errors import DomainError, InvalidParameterError, NotFittedError, PaperLiteralWarning
from privpac.estimators import MODELS, PrivateHalfspaceClassifier
from privpac.io import load_model, save_model


def synthetic(n, d, gamma, seed, w=None):
    w = margin_direction(d, 99) if w is None else w
    return make_margin_data(n, d, gamma, w_star=w, rng=seed), w


def test_estimator_contract_and_persistence(tmp_path):
    train, w = synthetic(1500, 200, 0.3, 1)
    test, _ = synthetic(2000, 200, 0.3, 2, w)
    est = PrivateHalfspaceClassifier(epsilon=1.0, domain=1.0, margin=0.3, variant="practical", random_state=0)
    assert clone(est).get_params() == est.get_params()
    assert est.fit(train.X, train.y) is est
    assert np.mean(est.predict(test.X) != test.y) <= 0.05
    assert est.privacy_spent_ == pytest.approx((1.0, 1e-6))
    assert np.linalg.norm(est.coef_) == pytest.approx(1.0)
    path = save_model(est, tmp_path / "m.json")
    loaded = load_model(path)
    assert np.array_equal(loaded.predict(test.X), est.predict(test.X))
    assert json.loads(path.read_text())["model"] == "halfspace-margin"
    assert MODELS["halfspace-margin"] is PrivateHalfspaceClassifier


def test_projection_seed_round_trips(tmp_path):
    train, _ = synthetic(300, 2000, 0.3, 3)
    est = PrivateHalfspaceClassifier(domain=1.0, margin=0.3, variant="practical", random_state=1).fit(train.X, train.y)
    assert est.projection_dim_ == 178 and est.projection_seed_ is not None
    loaded = load_model(save_model(est, tmp_path / "p.json"))
    assert loaded.projection_seed_ == est.projection_seed_ and loaded.projection_dim_ == 178


def test_variants_and_ledgers():
    train, w = synthetic(400, 2, 0.3, 4)
    pure = PrivateHalfspaceClassifier(epsilon=1.0, delta=0.0, domain=1.0, margin=0.3, variant="pure", random_state=0)
    pure.fit(train.X, train.y)
    assert pure.privacy_spent_ == (1.0, 0.0)
    train, w = synthetic(60, 8, 0.3, 5)
    faithful = PrivateHalfspaceClassifier(domain=1.0, margin=0.3, variant="faithful", constants="paper", random_state=0)
    with pytest.warns(UserWarning, match="identity"):
        faithful.fit(train.X, train.y)
    assert faithful.privacy_spent_ == pytest.approx((1.0, 1e-6)) and faithful.details_["selection_charged"]
    literal = PrivateHalfspaceClassifier(
        domain=1.0, margin=0.3, variant="paper-literal", optimizer="dpgd", random_state=0
    )
    with pytest.warns(PaperLiteralWarning):
        literal.fit(train.X, train.y)
    assert not literal.details_["selection_charged"]


def test_domains_and_margin_types():
    dg = load_digits_pair(4, 9)
    assert dg.domain == IntegerDomain(0, 16) and dg.X.shape[1] == 64 and set(np.unique(dg.y)) == {0, 1}
    Xtr, Xte, ytr, yte = dg.split(0.25, 0)
    practical = dict(variant="practical", random_state=0)
    est = PrivateHalfspaceClassifier(epsilon=2.0, domain=dg.domain, margin=0.1, **practical).fit(Xtr, ytr)
    assert np.mean(est.predict(Xte) != yte) <= 0.15
    with pytest.raises(DomainError, match="outside the declared domain"):
        PrivateHalfspaceClassifier(domain=(0, 10), margin=0.1).fit(Xtr, ytr)
    clipped = PrivateHalfspaceClassifier(domain=Grid(0.0, 10.0, 11, clip=True), margin=0.1, **practical)
    assert clipped.fit(Xtr, ytr).coef_.shape == (64,)
    with pytest.raises(DomainError, match="norm bound"):
        PrivateHalfspaceClassifier(domain=1.0, margin=0.1).fit(Xtr, ytr)
    # An absolute margin is divided by the public norm bound (16 * 8 for this box).
    absolute = PrivateHalfspaceClassifier(domain=dg.domain, margin=12.8, margin_type="absolute", **practical)
    assert absolute.fit(Xtr, ytr).margin_ == pytest.approx(0.1)


def test_estimator_bad_inputs():
    train, _ = synthetic(50, 3, 0.3, 6)
    with pytest.raises(DomainError, match="never derives"):
        PrivateHalfspaceClassifier(margin=0.3).fit(train.X, train.y)
    with pytest.raises(InvalidParameterError, match="margin must be given for variant='practical'"):
        PrivateHalfspaceClassifier(domain=1.0, variant="practical").fit(train.X, train.y)
    with pytest.raises(InvalidParameterError, match="margin"):
        PrivateHalfspaceClassifier(domain=1.0, margin=-0.1).fit(train.X, train.y)
    with pytest.raises(InvalidParameterError, match="variant"):
        PrivateHalfspaceClassifier(domain=1.0, margin=0.3, variant="best").fit(train.X, train.y)
    with pytest.raises(InvalidParameterError, match="method"):
        PrivateHalfspaceClassifier(domain=1.0, margin=0.3, method="svm").fit(train.X, train.y)
    with pytest.raises(InvalidParameterError, match="delta"):
        PrivateHalfspaceClassifier(domain=1.0, margin=0.3, delta=0.0).fit(train.X, train.y)
    with pytest.raises(InvalidParameterError, match="cosine margin"):
        PrivateHalfspaceClassifier(domain=1.0, margin=2.0, margin_type="absolute", variant="practical").fit(
            train.X, train.y
        )
    with pytest.raises(ValueError, match="label"):
        PrivateHalfspaceClassifier(domain=1.0, margin=0.3).fit(train.X, train.y + 5)
    with pytest.raises(ValueError):
        PrivateHalfspaceClassifier(domain=1.0, margin=0.3).fit(train.X[:, 0], train.y)
    with pytest.raises(NotFittedError):
        PrivateHalfspaceClassifier(domain=1.0, margin=0.3).predict(train.X)
    est = PrivateHalfspaceClassifier(domain=1.0, margin=0.3, random_state=0).fit(train.X, train.y)
    with pytest.raises(ValueError, match="features"):
        est.predict(train.X[:, :2])


def test_cli_fit_predict_show(tmp_path):
    dg = load_digits_pair(1, 7)
    data = tmp_path / "digits.csv"
    header = ",".join(dg.feature_names + ["y"])
    rows = [",".join(str(int(v)) for v in list(x) + [t]) for x, t in zip(dg.X, dg.y)]
    data.write_text(header + "\n" + "\n".join(rows) + "\n")
    out = tmp_path / "model.json"
    runner = CliRunner()
    res = runner.invoke(
        main,
        ["fit", "halfspace-margin", str(data), "--label", "y", "--domain", "0:16", "--set", "margin=0.1",
         "--epsilon", "2", "--seed", "3", "-o", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "privacy spent: epsilon=2" in res.output
    pred = tmp_path / "pred.csv"
    res = runner.invoke(main, ["predict", str(out), str(data), "-o", str(pred)])
    assert res.exit_code == 0, res.output
    predicted = np.loadtxt(pred, skiprows=1)
    assert np.mean(predicted != dg.y) <= 0.15
    res = runner.invoke(main, ["show", str(out)])
    assert res.exit_code == 0 and "noisy gradient descent" in res.output
    base = ["fit", "halfspace-margin", str(data), "--label", "y", "-o", str(out)]
    res = runner.invoke(main, base + ["--domain", "norm:1", "--set", "margin=0.1"])
    assert res.exit_code != 0 and "norm bound" in res.output
    res = runner.invoke(main, [*base, "--domain", "0:16", "--set", "variant=practical"])
    assert res.exit_code != 0 and "margin must be given" in res.output


def test_cli_bounds_and_audit_list():
    runner = CliRunner()
    res = runner.invoke(main, ["bounds", "margin-pure-lower", "--epsilon", "1", "--set", "margin=0.01"])
    assert res.exit_code == 0 and "corrected" in res.output
    res = runner.invoke(main, ["audit", "--list"])
    for name in ("margin-practical", "margin-faithful", "margin-pure", "margin-uncharged-selection"):
        assert name in res.output
    res = runner.invoke(main, ["audit", "margin-uncharged-selection", "--trials", "300"])
    assert res.exit_code == 1 and "VIOLATION" in res.output


def test_upper_bounds_match_the_spec_tables():
    approx = evaluate_bound("margin-approx", epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, margin=0.3)
    pure = evaluate_bound("margin-pure", epsilon=1.0, alpha=0.1, beta=0.1, margin=0.3)
    assert approx["explicit"] == pytest.approx(6.0e11, rel=0.02) and pure["explicit"] == pytest.approx(1.4e11, rel=0.02)
    assert approx["stated"] == pytest.approx(1 / (0.1 * 0.3**2))
    small = evaluate_bound("margin-pure", epsilon=1.0, alpha=0.1, beta=0.1, margin=0.05)
    assert small["explicit"] == pytest.approx(6.4e12, rel=0.02)
    # Generalisation binds for the pure learner (independent of epsilon); BST14's term binds for the approximate one.
    assert evaluate_bound("margin-pure", epsilon=2.0, alpha=0.1, beta=0.1, margin=0.05)["explicit"] <= small["explicit"]
    larger_eps = evaluate_bound("margin-approx", epsilon=2.0, delta=1e-6, alpha=0.1, beta=0.1, margin=0.3)
    assert larger_eps["explicit"] < approx["explicit"]


def test_lower_bound_paper_constants_fail_and_corrected_ones_hold():
    alpha = 0.1
    # The paper's construction: inner product 4/5 between codewords, d = 1/(1000 gamma^2).
    for gamma in (0.003, 0.001):
        d = int(1 / (1000 * gamma**2))
        disagreement = math.acos(0.8) / math.pi
        assert disagreement < 2 * alpha + 2 * band_mass(d, gamma)[0]  # Claim 6.1's disjointness is not shown
        res = margin_pure_lower_bound(1.0, gamma, alpha, 0.1)
        d_c, t = res["corrected_dimension"], res["corrected_code_distance"]
        assert math.acos(1 - 2 * t / d_c) / math.pi > 2 * alpha + 2 * band_mass(d_c, gamma)[0]
        assert res["corrected"] > 0
    assert margin_pure_lower_bound(1.0, 0.3)["stated"] is None
    # Smaller margins and smaller epsilon need more samples; a dimension cap can only lower the bound.
    assert margin_pure_lower_bound(1.0, 0.001)["corrected"] > margin_pure_lower_bound(1.0, 0.003)["corrected"]
    assert margin_pure_lower_bound(0.5, 0.003)["corrected"] == pytest.approx(
        2 * margin_pure_lower_bound(1.0, 0.003)["corrected"]
    )
    assert (
        margin_pure_lower_bound(1.0, 0.001, dimension=100)["corrected"]
        < margin_pure_lower_bound(1.0, 0.001)["corrected"]
    )
    with pytest.raises(InvalidParameterError, match="margin"):
        margin_pure_lower_bound(1.0, 0.0)


def test_margin_data_generator():
    ds, w = synthetic(500, 30, 0.2, 7)
    margins = (2 * ds.y - 1) * (ds.X @ w)
    assert margins.min() >= 0.2 - 1e-12 and np.allclose(np.linalg.norm(ds.X, axis=1), 1.0)
    assert ds.domain == 1.0
    with pytest.raises(InvalidParameterError, match="margin"):
        make_margin_data(10, 3, 0.0)
    with pytest.raises(InvalidParameterError, match="different"):
        load_digits_pair(3, 3)


def test_fit_intercept_learns_an_offset_halfspace(tmp_path):
    # A halfspace that does not pass through the origin: x0 + x1 >= 12 on the box [0, 10]^2.
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 10, size=(20000, 2))
    y = (X[:, 0] + X[:, 1] >= 12).astype(int)
    keep = np.abs(X[:, 0] + X[:, 1] - 12) >= 1.0  # a margin around the boundary
    X, y = X[keep], y[keep]
    practical = dict(domain=Grid(0, 10, 101), margin=0.05, variant="practical", random_state=0)
    homogeneous = PrivateHalfspaceClassifier(**practical).fit(X, y)
    offset = PrivateHalfspaceClassifier(**practical, fit_intercept=True, n_steps=50).fit(X, y)
    assert homogeneous.intercept_ == 0.0 and homogeneous.score(X, y) < 0.9
    assert offset.score(X, y) > 0.95 and offset.intercept_ < 0
    assert offset.privacy_spent_ == (1.0, 1e-6)
    loaded = load_model(save_model(offset, tmp_path / "h.json"))
    assert np.array_equal(loaded.predict(X), offset.predict(X))
    with pytest.raises(InvalidParameterError, match="box domain"):
        PrivateHalfspaceClassifier(domain=20.0, margin=0.1, variant="practical", fit_intercept=True).fit(X, y)
