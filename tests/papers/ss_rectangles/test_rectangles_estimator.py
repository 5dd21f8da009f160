"""PrivateRectangleClassifier, the `privpac fit rectangle` command, bounds, datasets, window sizes."""

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.base import clone

from privpac.bounds import evaluate_bound
from privpac.bounds.rectangles import (
    composition_sample_size,
    generic_pure_sample_size,
    nonprivate_box_sample_size,
    plan_sample_size,
    randmargins_sample_size,
)
from privpac.cli import main
from privpac.datasets import make_rectangle_distribution, make_rectangles
from privpac.domains import Grid, IntegerDomain
from privpac.errors import DataError, DomainError, InvalidParameterError, NotFittedError, PaperLiteralWarning
from privpac.estimators import MODELS, PrivateRectangleClassifier
from privpac.estimators.rectangles import RECTANGLE_METHODS, RectangleFit, RectangleMethod
from privpac.io import load_model, save_model
from privpac.learners.boxes import BoxHypothesis
from privpac.learners.rectangles_composition import plan_composition, rectangles_composition
from privpac.mechanisms.margins import margin_window_cdf, margin_window_pmf, margin_window_sf, margin_window_sizes
from privpac.random import SeededRandom, audit_source

# -- the estimator -------------------------------------------------------------------------------------


def test_estimator_contract_and_persistence(tmp_path):
    ds = make_rectangles(60_000, 2, 255, rng=1)
    est = PrivateRectangleClassifier(epsilon=1.0, delta=1e-6, domain=(0, 255), method="composition", random_state=0)
    assert clone(est).get_params() == est.get_params()
    assert est.fit(ds.X, ds.y) is est
    assert est.score(ds.X, ds.y) > 0.97 and est.privacy_spent_[0] <= 1.0
    assert not est.empty_ and len(est.lower_) == 2 and "at most 4 calls" in est.ledger_.entries[0].mechanism
    again = PrivateRectangleClassifier(
        epsilon=1.0, delta=1e-6, domain=(0, 255), method="composition", random_state=0
    ).fit(ds.X, ds.y)
    assert again.thresholds_ == est.thresholds_
    loaded = load_model(save_model(est, tmp_path / "box.json"))
    assert np.array_equal(loaded.predict(ds.X[:500]), est.predict(ds.X[:500]))
    assert loaded.summary() == est.summary() and loaded.privacy_spent_ == est.privacy_spent_
    doc = json.loads((tmp_path / "box.json").read_text())
    assert doc["model"] == "rectangle" and doc["ledger"]["entries"]


def test_randmargins_estimator_on_a_grid_domain():
    dist = make_rectangle_distribution(1, 255, positive_mass=0.6)
    X, y = dist.sample(600_000, rng=2)
    values = 10.0 + X.astype(float) / 10.0  # real-valued feature on a public grid [10, 35.5]
    grid = Grid(10.0, 35.5, 256)
    est = PrivateRectangleClassifier(epsilon=8.0, delta=1e-6, domain=grid, random_state=3, tie_break_bits=8)
    est.fit(values, y)
    assert est.privacy_spent_ == (8.0, 1e-6)
    assert "Thm 3.2" in est.ledger_.entries[0].mechanism
    assert not est.empty_ and 10.0 <= est.lower_[0] <= est.upper_[0] <= 35.5
    assert est.score(values, y) > 0.85
    assert est.details_["window_sizes"] and len(est.thresholds_) == 2


def test_labels_shapes_and_orthants():
    X = np.array([[0, 0], [1, 1], [2, 2], [5, 5]] * 50)
    y = np.array(["in", "in", "in", "out"] * 50)
    est = PrivateRectangleClassifier(
        epsilon=4.0,
        domain=IntegerDomain(0, 7),
        labels=("out", "in"),
        method="composition",
        shape="orthant",
        random_state=1,
    ).fit(X, y)
    assert est.box_.lower == (0, 0) and set(est.predict(X)) <= {"in", "out"}
    assert est.classes_.tolist() == ["out", "in"]


def test_every_method_in_the_table_runs_and_a_new_one_is_one_entry():
    X = np.random.default_rng(0).integers(0, 16, size=(2000, 2))
    y = np.ones(2000, dtype=int)
    # bns needs 10^10 records: tests/papers/bns_pure_vs_approx/test_rectangles_bns.py
    for name in (m for m in RECTANGLE_METHODS if m != "bns"):
        for ip in ("exponential", "recconcave"):
            est = PrivateRectangleClassifier(domain=(0, 15), method=name, interior_point=ip, random_state=0).fit(X, y)
            assert est.privacy_spent_[0] <= 1.0 and est.algorithm_name == RECTANGLE_METHODS[name].title
            assert (ip == "recconcave") == ("RecConcave" in "\n".join(est.plan_lines_))

    def everything(est, sample, x_max, ledger, rng):
        ledger.charge("nothing private", 0.0)
        return RectangleFit(BoxHypothesis((0, 0), x_max))

    RECTANGLE_METHODS["test-everything"] = RectangleMethod("whole domain", everything, False, "test")
    try:
        est = PrivateRectangleClassifier(domain=(0, 15), method="test-everything").fit(X, y)
        assert est.predict(X).sum() == 2000
    finally:
        del RECTANGLE_METHODS["test-everything"]
    assert "bns" in RECTANGLE_METHODS and MODELS["rectangle"] is PrivateRectangleClassifier


def test_estimator_bad_inputs():
    X, y = np.array([[1, 2], [3, 4]]), np.array([1, 0])
    with pytest.raises(DomainError, match="never derives"):
        PrivateRectangleClassifier().fit(X, y)
    bad = [
        dict(method="nope"),
        dict(shape="ball"),
        dict(beta=0.0),
        dict(interior_point="magic"),
        dict(variant="other"),
        dict(epsilon=-1.0),
        dict(delta=0.0),  # RandMargins needs delta > 0
        dict(tie_break_bits=-1),
        dict(method="composition", variant="paper-literal"),
    ]
    for kw in bad:
        with pytest.raises(InvalidParameterError):
            PrivateRectangleClassifier(domain=(0, 7), **kw).fit(X, y)
    est = PrivateRectangleClassifier(domain=(0, 7))
    with pytest.raises(DomainError):
        est.fit(X + 10, y)
    with pytest.raises(DataError, match="2-dimensional"):
        est.fit(X[:, 0], y)
    with pytest.raises(DataError, match="label"):
        est.fit(X, np.array([1, 2]))
    with pytest.raises(DataError, match="NaN"):
        est.fit(np.array([[1.0, np.nan], [1.0, 2.0]]), y)
    with pytest.raises(InvalidParameterError, match="2\\^64"):
        PrivateRectangleClassifier(domain=(0, 2**64)).fit(X, y)
    with pytest.raises(NotFittedError):
        est.predict(X)
    est.fit(X, y)
    with pytest.raises(DataError, match="features"):
        est.predict(np.array([[1, 2, 3]]))
    with pytest.warns(PaperLiteralWarning):
        PrivateRectangleClassifier(domain=(0, 7), variant="paper-literal").fit(X, y)


def test_cli_fit_predict_show(tmp_path):
    ds = make_rectangles(20_000, 2, 63, rng=4)
    data = tmp_path / "train.csv"
    rows = ["a,b,label"] + [f"{a},{b},{c}" for (a, b), c in zip(ds.X.tolist(), ds.y.tolist())]
    data.write_text("\n".join(rows) + "\n")
    model = tmp_path / "box.json"
    runner = CliRunner()
    args = ["fit", "rectangle", str(data), "--label", "label", "--domain", "0:63", "--seed", "1", "-o", str(model)]
    res = runner.invoke(main, args + ["--set", "method=composition"])
    assert res.exit_code == 0, res.output
    assert "composition baseline" in res.output and "privacy spent" in res.output
    out = tmp_path / "pred.csv"
    res = runner.invoke(main, ["predict", str(model), str(data), "-o", str(out)])
    assert res.exit_code == 0, res.output
    pred = np.array([int(v) for v in out.read_text().split()[1:]])
    assert np.mean(pred == ds.y) > 0.95
    res = runner.invoke(main, ["show", str(model)])
    assert res.exit_code == 0 and "interior point" in res.output
    res = runner.invoke(main, args)  # the default method: RandMargins (empty box at this n)
    assert res.exit_code == 0 and "RandMargins" in res.output
    res = runner.invoke(main, args + ["--set", "method=bns"])  # far below its privacy precondition
    assert res.exit_code != 0 and "precondition" in res.output


# -- bounds -----------------------------------------------------------------------------------------------

# spec ss-rectangles 5.3 (epsilon = 1, delta = 1e-6, alpha = beta = 0.1; general boxes)
TABLE = [
    # d, log2|X|, RM paper, RM explicit (Delta), baseline (Delta_0), baseline pure, generic EM, non-private
    (1, 16, "6.9e7", 6194, "6.5e6", 119, 4760, 4760, 3646, 1124),
    (10, 16, "1.3e9", 7116, "1.1e8", 1367, "5.5e5", "5.5e5", "2.9e4", "1.1e4"),
    (100, 16, "2.3e10", 8038, "1.7e9", 5967, "2.4e7", "6.2e7", "2.9e5", "1.1e5"),
    (2, 32, "2.9e8", 10911, "2.7e7", 426, "3.4e4", "3.4e4", 6519, 2248),
    (100, 64, "6.2e10", 21356, "4.6e9", "1.6e4", "6.5e7", "1.7e8", "3.5e5", "1.1e5"),
]


def _matches(value, shown) -> bool:
    if isinstance(shown, int):
        return value == shown
    mantissa, exp = shown.split("e")
    digits = len(mantissa.replace(".", ""))
    return float(f"{value:.{digits - 1}e}") == float(shown)


@pytest.mark.parametrize("row", TABLE, ids=lambda r: f"d{r[0]}-X2^{r[1]}")
def test_bounds_reproduce_the_spec_table(row):
    d, bits, rm_paper, window, rm_explicit, window0, comp, comp_pure, generic, nonpriv = row
    kw = dict(domain_size=2**bits, dimension=d)
    explicit = randmargins_sample_size(**kw)
    assert _matches(randmargins_sample_size(calibration="paper", **kw)["n"], rm_paper)
    assert explicit["window"] == window and _matches(explicit["n"], rm_explicit)
    best = composition_sample_size(**kw)
    assert _matches(best["window"], window0) and _matches(best["n"], comp)
    assert _matches(composition_sample_size(composition="basic", **kw)["n"], comp_pure)
    assert _matches(generic_pure_sample_size(**kw), generic)
    assert _matches(nonprivate_box_sample_size(dimension=d), nonpriv)


def test_anchored_rows_and_the_bound_registry():
    assert _matches(randmargins_sample_size(domain_size=2**16, dimension=10, shape="orthant")["n"], "4.9e7")
    assert _matches(composition_sample_size(domain_size=2**64, dimension=100, shape="orthant")["n"], "2.3e7")
    r = evaluate_bound("randmargins", epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, domain_size=2**16, dimension=1)
    assert r["window_explicit"] == 6194 and _matches(r["stated"], "6.9e7")
    tagged = evaluate_bound("randmargins", domain_size=2**16, dimension=1, tie_break_bits=32)
    assert tagged["window_explicit"] > r["window_explicit"]
    ro = evaluate_bound("randmargins", domain_size=2**16, dimension=1, neighbours="replace-one")
    assert ro["explicit"] > 1.9 * r["explicit"]
    assert evaluate_bound("rectangle-composition", dimension=1)["window"] == 119
    cross = evaluate_bound("randmargins-crossover")["directions"]
    assert 3e6 < cross < 7e6  # spec 5.4: about 5 million margins
    assert evaluate_bound("rectangle-non-private", dimension=1)["stated"] == 1124
    plan = plan_composition(1.0, 1e-6, 2**16 - 1, dimension=1)
    assert plan_sample_size(plan, 0.1, 0.1) == 4760
    with pytest.raises(InvalidParameterError):
        randmargins_sample_size(alpha=1.5)
    with pytest.raises(InvalidParameterError):
        randmargins_sample_size(dimension=0)
    with pytest.raises(InvalidParameterError):
        composition_sample_size(shape="ball")
    with pytest.raises(InvalidParameterError):
        plan_sample_size(plan, 0.1, 0.001)


def test_bounds_command():
    res = CliRunner().invoke(
        main,
        ["bounds", "randmargins", "--epsilon", "1", "--delta", "1e-6", "--domain-size", "2**16", "--dimension", "1"],
    )
    assert res.exit_code == 0 and "explicit" in res.output and "6,194" in res.output
    res = CliRunner().invoke(main, ["bounds", "--list"])
    assert "rectangle-composition" in res.output and "randmargins-crossover" in res.output


# -- the composition learner --------------------------------------------------------------------------------


def test_composition_learner_is_accurate_and_sound():
    dist = make_rectangle_distribution(3, 1023)
    plan = plan_composition(1.0, 1e-6, 1023, dimension=3)
    n = plan_sample_size(plan, 0.1, 0.1)
    src = SeededRandom(3)
    errors = []
    for _ in range(60):
        X, y = dist.sample(n, src.spawn())
        res = rectangles_composition(X, y, 1023, rng=src.spawn())
        pos = X[y == 1]
        assert all(lo >= int(m) for lo, m in zip(res.hypothesis.lower, pos.min(axis=0)))  # no false positives
        errors.append(dist.error(res.hypothesis))
    assert np.mean(np.asarray(errors) <= 0.1) >= 0.9
    few = rectangles_composition(np.array([[5, 5, 5]]), np.array([1]), 1023, rng=1)
    assert few.hypothesis.empty  # a padded window of dummies gives the empty box


# -- datasets ------------------------------------------------------------------------------------------------


def test_rectangle_distributions():
    for kind in ("uniform", "ties", "skewed", "clustered", "boundary"):
        ds = make_rectangles(5000, 3, kind=kind, rng=1)
        dist = ds.distribution
        assert ds.X.shape == (5000, 3) and ds.X.max() <= dist.x_max
        assert np.array_equal(ds.y, dist.target.predict(ds.X)) and dist.error(dist.target) == 0.0
    uni = make_rectangle_distribution(2, 1023)
    assert uni.positive_mass == pytest.approx(0.5, abs=0.01)
    assert make_rectangle_distribution(2, kind="skewed").positive_mass == pytest.approx(0.01, abs=0.002)
    assert uni.error(BoxHypothesis.empty_box(2)) == pytest.approx(uni.positive_mass)
    X, y = uni.sample(100_000, rng=5)
    h = BoxHypothesis((100, 100), (700, 900))
    assert uni.error(h) == pytest.approx(np.mean(h.predict(X) != y), abs=0.01)
    pos = uni.sample_positives(1000, rng=2)
    assert uni.target.predict(pos).sum() == 1000
    orth = make_rectangle_distribution(2, 255, shape="orthant")
    assert orth.lower == (0, 0)
    with pytest.raises(InvalidParameterError):
        make_rectangle_distribution(0)
    with pytest.raises(InvalidParameterError):
        make_rectangle_distribution(2, kind="spiral")
    with pytest.raises(InvalidParameterError):
        make_rectangle_distribution(2, kind="clustered").sample_positives(10)


# -- random margins: the two properties the privacy proof uses, and the sampler ---------------------------------


@pytest.mark.parametrize("window", [1, 3, 50, 2000])
def test_margin_window_law_has_the_properties_the_proof_uses(window):
    mu = 4 * window * math.log(40)
    ts = np.arange(int(mu) - 40 * window, int(mu) + 40 * window)
    sf = margin_window_sf(ts, mu, window)
    ratio = margin_window_sf(ts + window, mu, window) / sf
    assert np.all(ratio >= math.exp(-0.5) * (1 - 1e-9))
    mass = margin_window_cdf(ts + window - 1, mu, window) - margin_window_cdf(ts - 1, mu, window)
    assert np.all(mass <= 0.25 + 1e-12)
    assert margin_window_pmf(ts, mu, window).sum() == pytest.approx(1.0, abs=1e-8)  # tails e^-20


def test_margin_window_sampler_matches_its_law():
    mu, window = 60.3, 5
    k = margin_window_sizes(mu, window, 4000, SeededRandom(2))  # the exact sampler
    fast = margin_window_sizes(mu, window, 20_000, audit_source(3))
    for draws in (k, fast):
        grid = np.arange(draws.min(), draws.max() + 1)
        emp = np.searchsorted(np.sort(draws), grid, side="right") / draws.size
        ks = np.max(np.abs(emp - margin_window_cdf(grid, mu, window)))
        assert ks < 1.63 / math.sqrt(draws.size) + 0.005  # Kolmogorov-Smirnov at 1%
    assert int(np.median(k)) in range(58, 64)
    with pytest.raises(InvalidParameterError):
        margin_window_sizes(mu, 0, 10)


def test_integer_domains_with_negative_and_huge_bounds():
    X = np.array([[-3, 5], [0, 0]] * 200)
    est = PrivateRectangleClassifier(domain=IntegerDomain(-3, 5), method="composition", random_state=0)
    est.fit(X, np.ones(400, dtype=int))
    assert est.box_ == BoxHypothesis((0, 3), (3, 8)) and (est.lower_, est.upper_) == ([-3, 0], [0, 5])
    top = 2**64 - 1
    Xu = np.uint64(top) - np.random.default_rng(0).integers(0, 1000, size=(5000, 2)).astype(np.uint64)
    big = PrivateRectangleClassifier(domain=IntegerDomain(0, top), method="composition", random_state=0)
    big.fit(Xu, np.ones(5000, dtype=int))
    assert not big.empty_ and top - 1000 < big.lower_[0] <= big.upper_[0] <= top
    with pytest.raises(DomainError):
        PrivateRectangleClassifier(domain=IntegerDomain(-3, 5)).fit(X - 1, np.ones(400, dtype=int))
