import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.base import clone

from privpac.cli import main
from privpac.domains import Grid
from privpac.errors import DataError, DomainError, InvalidParameterError, NotFittedError
from privpac.estimators import (
    MODELS,
    PrivateMedian,
    PrivatePointClassifier,
    PrivateThresholdClassifier,
    private_interior_point,
    private_median,
)
from privpac.io import load_model, save_model


def _threshold_data(n=2000, size=2**64, cut=2**40, seed=0):
    gen = np.random.default_rng(seed)
    x = gen.integers(0, 2**41, size=n)
    return x.reshape(-1, 1), (x < cut).astype(int)


def test_models_registered():
    assert MODELS["threshold"] is PrivateThresholdClassifier
    assert MODELS["point"] is PrivatePointClassifier
    assert MODELS["median"] is PrivateMedian


def test_threshold_classifier_contract_and_persistence(tmp_path):
    X, y = _threshold_data()
    est = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 2**64 - 1), random_state=0)
    assert clone(est).get_params() == est.get_params()
    assert est.fit(X, y) is est
    assert est.method_ == "exponential" and est.depth_ == 1 and est.privacy_spent_ == (1.0, 0.0)
    assert est.score(X, y) > 0.98
    assert est.threshold_value_ == est.threshold_
    again = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 2**64 - 1), random_state=0).fit(X, y)
    assert again.threshold_ == est.threshold_
    loaded = load_model(save_model(est, tmp_path / "t.json"))
    assert loaded.threshold_ == est.threshold_ and np.array_equal(loaded.predict(X), est.predict(X))
    doc = json.loads((tmp_path / "t.json").read_text())
    assert isinstance(doc["state"]["threshold"], str)
    head, rule, size = est.summary()
    assert head == f"{est.algorithm_name}: exponential mechanism"  # 2^64 at tuned constants: pure DP
    assert f"x < {est.threshold_value_}" in rule and f"threshold index {est.threshold_}" in rule
    assert size == f"  fitted on n = {X.shape[0]} records"


def test_threshold_classifier_methods_constants_and_orientation():
    X, y = _threshold_data(n=3000)
    rc = PrivateThresholdClassifier(domain=(0, 2**64 - 1), method="recconcave", N=2, alpha=0.2, random_state=1)
    rc.fit(X, y)
    assert rc.method_ == "recconcave" and rc.depth_ == 2 and rc.privacy_spent_[1] <= 1e-6
    paper = PrivateThresholdClassifier(domain=(0, 2**64 - 1), constants="paper", orientation="below", random_state=1)
    paper.fit(X, y)
    assert paper.method_ == "recconcave" and paper.depth_ == 3
    assert paper.privacy_spent_[0] == pytest.approx(7 / 15)  # E15: 7 mechanisms of eps/15 run
    # not knowing the orientation costs its choice (a tenth of epsilon) before the paper's learner
    auto = PrivateThresholdClassifier(domain=(0, 2**64 - 1), constants="paper", random_state=1).fit(X, y)
    assert auto.privacy_spent_[0] == pytest.approx(0.1 + 0.9 * 7 / 15)
    up = PrivateThresholdClassifier(domain=(0, 2**64 - 1), orientation="above", labels=("no", "yes"), random_state=2)
    up.fit(X, np.where(y == 1, "no", "yes"))
    assert up.score(X, np.where(y == 1, "no", "yes")) > 0.98
    assert set(up.predict(X)) <= {"no", "yes"}
    huge = PrivateThresholdClassifier(domain=(0, 2**65536 - 1), delta=1e-6, random_state=3)
    Xh = np.empty((400, 1), dtype=object)
    Xh[:, 0] = [int(v) * 2**65000 for v in range(400)]
    huge.fit(Xh, (np.arange(400) < 100).astype(int))
    assert huge.method_ == "recconcave" and huge.depth_ >= 2
    assert "2^" in "\n".join(huge.summary())  # huge values are shown compactly


def test_threshold_classifier_on_a_grid():
    gen = np.random.default_rng(4)
    x = gen.uniform(0, 10, size=1500)
    y = (x < 6.3).astype(int)
    est = PrivateThresholdClassifier(domain=Grid(0.0, 10.0, 1001), random_state=0).fit(x, y)
    assert abs(est.threshold_value_ - 6.3) < 0.2
    assert est.predict([[-5.0], [20.0]]).tolist() == [1, 0]  # outside the grid: clipped for prediction


def test_threshold_classifier_bad_inputs():
    X, y = _threshold_data(n=50)
    with pytest.raises(DomainError, match="never derives"):
        PrivateThresholdClassifier().fit(X, y)
    with pytest.raises(InvalidParameterError, match="method"):
        PrivateThresholdClassifier(domain=(0, 2**64 - 1), method="fast").fit(X, y)
    with pytest.raises(InvalidParameterError, match="orientation"):
        PrivateThresholdClassifier(domain=(0, 2**64 - 1), orientation="left").fit(X, y)
    with pytest.raises(DomainError):
        PrivateThresholdClassifier(domain=(0, 100)).fit(X, y)
    with pytest.raises(DataError, match="single feature"):
        PrivateThresholdClassifier(domain=(0, 2**64 - 1)).fit(np.hstack([X, X]), y)
    with pytest.raises(DataError, match="label"):
        PrivateThresholdClassifier(domain=(0, 2**64 - 1)).fit(X, y + 5)
    with pytest.raises(InvalidParameterError, match="dimension"):
        PrivateThresholdClassifier(domain=Grid([0, 0], [1, 1], 11)).fit(X, y)
    with pytest.raises(NotFittedError):
        PrivateThresholdClassifier(domain=(0, 10)).predict([[1]])
    with pytest.raises(InvalidParameterError, match="delta"):
        PrivateThresholdClassifier(domain=(0, 2**64 - 1), delta=0.0, method="recconcave", N=2).fit(X, y)


def test_point_classifier():
    X = np.array([5] * 400 + [9] * 100 + [3] * 100).reshape(-1, 1)
    y = np.array([1] * 400 + [0] * 200)
    est = PrivatePointClassifier(domain=(0, 2**32 - 1), random_state=0).fit(X, y)
    assert est.method_ == "adist" and est.released_ and est.point_value_ == 5
    assert est.predict([[5], [9]]).tolist() == [1, 0]
    em = PrivatePointClassifier(domain=(0, 2**32 - 1), delta=0.0, random_state=0).fit(X, y)
    assert em.method_ == "exponential" and em.point_ == 5 and em.privacy_spent_ == (1.0, 0.0)
    none = PrivatePointClassifier(domain=(0, 255), on_bottom="zero", random_state=0).fit([[1], [2]], [0, 0])
    assert none.point_ is None and none.predict([[1]]).tolist() == [0] and none.summary()
    with pytest.raises(InvalidParameterError, match="on_bottom"):
        PrivatePointClassifier(domain=(0, 255), on_bottom="x").fit([[1]], [1])
    with pytest.raises(DataError, match="empty"):
        PrivatePointClassifier(domain=(0, 255)).fit(np.empty((0, 1)), [])


def test_median_and_interior_point():
    gen = np.random.default_rng(5)
    vals = gen.integers(0, 10_000, size=1001)
    med = private_median(vals, (0, 2**32 - 1), 1.0, rng=0)
    rank = np.mean(vals <= med)
    assert 0.4 <= rank <= 0.6
    rc = private_median(vals, (0, 2**32 - 1), 1.0, 1e-6, method="recconcave", alpha=0.5, rng=0)
    assert vals.min() <= rc <= vals.max()
    ip = private_interior_point(vals, (0, 2**32 - 1), 1.0, 1e-6, rng=0)
    assert vals.min() <= ip <= vals.max()
    ip0 = private_interior_point([], (0, 2**32 - 1), 1.0, rng=0)
    assert 0 <= ip0 < 2**32
    grid = private_median(gen.uniform(0, 1, size=500), Grid(0.0, 1.0, 101), 1.0, rng=0)
    assert isinstance(grid, float) and 0.3 < grid < 0.7
    est = PrivateMedian(domain=(0, 2**32 - 1), random_state=0).fit(vals.reshape(-1, 1))
    assert est.depth_ == 1 and 0.4 <= np.mean(vals <= est.median_) <= 0.6 and est.summary()
    with pytest.raises(DataError, match="empty"):
        private_median([], (0, 10), 1.0)
    with pytest.raises(InvalidParameterError, match="method"):
        private_median([1], (0, 10), 1.0, method="mean")
    with pytest.raises(DomainError):
        private_median([11], (0, 10), 1.0)


def test_cli_fit_predict_threshold_point_median(tmp_path):
    gen = np.random.default_rng(6)
    x = gen.integers(0, 1000, size=400)
    data = tmp_path / "d.csv"
    data.write_text("x,y\n" + "\n".join(f"{v},{int(v < 400)}" for v in x) + "\n")
    runner = CliRunner()
    out = tmp_path / "t.json"
    res = runner.invoke(
        main, ["fit", "threshold", str(data), "--label", "y", "--domain", "0:2**64-1", "--seed", "1", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["predict", str(out), str(data)])
    assert res.exit_code == 0, res.output
    preds = [int(v) for v in res.output.split()[1:]]
    assert np.mean(np.array(preds) == (x < 400)) > 0.95
    res = runner.invoke(
        main,
        [
            "fit",
            "point",
            str(data),
            "--label",
            "y",
            "--domain",
            "0:1023",
            "--seed",
            "1",
            "-o",
            str(tmp_path / "p.json"),
        ],
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(
        main, ["fit", "median", str(data), "--features", "x", "--domain", "0:1023", "-o", str(tmp_path / "m.json")]
    )
    assert res.exit_code == 0 and "median" in res.output
    res = runner.invoke(main, ["median", str(data), "--column", "x", "--domain", "0:1023", "--seed", "2"])
    assert res.exit_code == 0 and "private median" in res.output and "ledger" in res.output
    res = runner.invoke(main, ["median", str(data), "--domain", "0:1023", "--interior", "--delta", "1e-6"])
    assert res.exit_code == 0 and "interior point" in res.output
    res = runner.invoke(main, ["median", str(data), "--column", "z", "--domain", "0:1023"])
    assert res.exit_code != 0 and "not in" in res.output
    res = runner.invoke(main, ["median", str(data), "--domain", "0:10"])
    assert res.exit_code != 0 and "outside the domain" in res.output


def test_uint64_data_near_the_top_of_a_2_64_domain():
    gen = np.random.default_rng(7)
    x = gen.integers(0, 2**63, size=3000, dtype=np.uint64) * np.uint64(2)
    y = (x < np.uint64(2**63 + 2**61)).astype(int)
    est = PrivateThresholdClassifier(domain=(0, 2**64 - 1), random_state=0).fit(x.reshape(-1, 1), y)
    assert est.score(x.reshape(-1, 1), y) > 0.98
    assert est.predict(np.array([[2**64 - 1]], dtype=np.uint64)).tolist() == [0]
    with pytest.raises(DomainError):
        PrivateThresholdClassifier(domain=(5, 2**64 - 1)).fit(np.array([[3]], dtype=np.uint64), [1])


def test_models_on_a_2_65536_domain_save_and_load(tmp_path):
    from privpac.formatting import int_from_text, int_to_text

    for v in (0, -7, 2**64, 2**65536 - 1, -(2**70000)):
        assert int_from_text(int_to_text(v)) == v
    X = np.empty((300, 1), dtype=object)
    X[:, 0] = [v * 2**65000 for v in range(300)]
    y = (np.arange(300) < 80).astype(int)
    est = PrivateThresholdClassifier(domain=(0, 2**65536 - 1), random_state=3).fit(X, y)
    loaded = load_model(save_model(est, tmp_path / "huge.json"))
    assert loaded.threshold_ == est.threshold_ and loaded.domain_.hi == 2**65536 - 1
    assert np.array_equal(loaded.predict(X), est.predict(X))


def test_the_orientation_is_learned_privately_when_not_given():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 1000, size=(2000, 1))
    for truth, y in (("above", (X[:, 0] >= 600).astype(int)), ("below", (X[:, 0] < 600).astype(int))):
        for method in ("exponential", "recconcave"):
            est = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 999), method=method, random_state=1).fit(X, y)
            assert est.orientation_ == truth and est.score(X, y) > 0.97, (truth, method)
            assert est.privacy_spent_[0] <= 1.0 + 1e-12
    em = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 999), method="exponential", random_state=1).fit(X, y)
    assert [e.label for e in em.ledger_.entries] == ["EM learner over thresholds of both orientations"]
    rc = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 999), method="recconcave", random_state=1).fit(X, y)
    assert rc.ledger_.entries[0].label == "threshold orientation" and rc.ledger_.entries[0].epsilon == pytest.approx(
        0.1
    )
    fixed = PrivateThresholdClassifier(epsilon=1.0, domain=(0, 999), orientation="above", random_state=1).fit(X, y)
    assert fixed.orientation_ == "above" and fixed.score(X, y) < 0.7  # the given orientation is wrong here
