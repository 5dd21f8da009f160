import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.base import clone

from privpac.cli import eval_int, main, parse_domain
from privpac.domains import Grid, IntegerDomain
from privpac.errors import DomainError, InvalidParameterError, NotFittedError
from privpac.estimators import PrivateHistogram
from privpac.io import load_model, save_model


def test_histogram_estimator_contract(tmp_path):
    X = np.array([1.0, 2.0, 2.5, 9.0, 9.5])
    est = PrivateHistogram(epsilon=0.5, domain=Grid(0.0, 10.0, 101), n_bins=5, random_state=1)
    assert clone(est).get_params() == est.get_params()
    assert est.fit(X) is est
    assert est.counts_.shape == (5,) and est.privacy_spent_ == (0.5, 0.0)
    assert est.ledger_.entries[0].mechanism.startswith("discrete Laplace")
    again = PrivateHistogram(epsilon=0.5, domain=Grid(0.0, 10.0, 101), n_bins=5, random_state=1).fit(X)
    assert np.array_equal(again.counts_, est.counts_)
    path = save_model(est, tmp_path / "h.json")
    loaded = load_model(path)
    assert np.array_equal(loaded.counts_, est.counts_) and loaded.privacy_spent_ == est.privacy_spent_
    doc = json.loads(path.read_text())
    assert doc["format"] == "privpac-model/2" and doc["model"] == "histogram" and doc["ledger"]["entries"]


def test_histogram_bad_inputs():
    with pytest.raises(DomainError, match="never derives"):
        PrivateHistogram().fit([1.0])
    with pytest.raises(InvalidParameterError, match="epsilon"):
        PrivateHistogram(epsilon=0, domain=(0, 10)).fit([1])
    with pytest.raises(DomainError):
        PrivateHistogram(domain=(0, 10)).fit([11])
    with pytest.raises(InvalidParameterError, match="n_bins"):
        PrivateHistogram(domain=(0, 10), n_bins=0).fit([1])
    with pytest.raises(NotFittedError):
        PrivateHistogram(domain=(0, 10)).frequencies()
    est = PrivateHistogram(domain=IntegerDomain(0, 99), n_bins=10, random_state=0).fit(np.arange(100))
    assert est.frequencies().min() >= 0


def test_domain_parsing():
    assert parse_domain("0:255") == IntegerDomain(0, 255)
    assert parse_domain("0:2**64-1") == IntegerDomain(0, 2**64 - 1)
    assert isinstance(parse_domain("0:1:101"), Grid)
    assert eval_int("2**10+1") == 1025


def test_cli_demo_and_audit():
    runner = CliRunner()
    res = runner.invoke(main, ["demo", "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert "privacy ledger" in res.output and "non-private" in res.output
    assert "test accuracy" in res.output and "threshold classifier" in res.output
    res = runner.invoke(main, ["audit", "--list"])
    assert res.exit_code == 0 and "adist-paper-literal" in res.output
    assert runner.invoke(main, ["audit", "adist", "--trials", "2000"]).exit_code == 0
    res = runner.invoke(main, ["audit", "adist-paper-literal", "--trials", "2000"])
    assert res.exit_code == 1 and "VIOLATION" in res.output
    assert runner.invoke(main, ["audit", "nope"]).exit_code != 0


def test_cli_fit_show_and_errors(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x\n" + "\n".join(str(v) for v in [1, 5, 7, 7, 200]) + "\n")
    out = tmp_path / "m.json"
    runner = CliRunner()
    res = runner.invoke(
        main, ["fit", "histogram", str(data), "--domain", "0:255", "--set", "n_bins=4", "--seed", "1", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "privacy spent" in res.output and out.exists()
    res = runner.invoke(main, ["show", str(out)])
    assert res.exit_code == 0 and "bin counts" in res.output
    res = runner.invoke(main, ["fit", "histogram", str(data), "--domain", "0:100", "-o", str(out)])
    assert res.exit_code != 0 and "outside the domain" in res.output
    res = runner.invoke(main, ["fit", "nomodel", str(data), "--domain", "0:100", "-o", str(out)])
    assert res.exit_code != 0 and "unknown model" in res.output


def test_saved_model_keeps_a_tuple_domain(tmp_path):
    est = PrivateHistogram(epsilon=1.0, domain=(0, 2**70), n_bins=4, random_state=0)
    with pytest.raises(InvalidParameterError, match="2\\^53"):
        est.fit([1, 2])
    est = PrivateHistogram(epsilon=1.0, domain=(0, 99), n_bins=4, random_state=0).fit([1, 2, 50])
    loaded = load_model(save_model(est, tmp_path / "t.json"))
    assert loaded.domain == IntegerDomain(0, 99) and np.array_equal(loaded.counts_, est.counts_)


def test_cli_feasibility_prints_the_point_the_privacy_and_the_ledger(tmp_path):
    rows = ["a1,a2,b", "1,0,0", "0,1,0"] + ["1,1,1"] * 60 + ["-1,-1,-2"] * 60
    data = tmp_path / "s.csv"
    data.write_text("\n".join(rows) + "\n")
    runner = CliRunner()
    res = runner.invoke(main, ["feasibility", str(data), "--domain", "-2:2", "--epsilon", "4", "--seed", "1"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("private feasible point (a1, a2) = (") and lines[1].startswith("  as floats (")
    assert "privacy spent: epsilon=4, delta=0" in res.output and "FindDeepPoint: 2 coordinate(s)" in res.output
    again = runner.invoke(main, ["feasibility", str(data), "--domain", "2", "--epsilon", "4", "--seed", "1"])
    assert again.output.splitlines()[:2] == lines[:2]  # "X" and "-X:X" are the same bound
    renamed = tmp_path / "r.csv"
    renamed.write_text(data.read_text().replace(",b", ",rhs"))
    res = runner.invoke(main, ["feasibility", str(renamed), "--domain", "-2:2", "--label", "rhs", "--seed", "1"])
    assert res.exit_code == 0, res.output
    for args, message in (
        (["--domain", "-1:1"], "outside the declared bound [-1, 1]"),
        (["--domain", "0:2"], "symmetric"),
        (["--domain", "-2:2", "--label", "c"], "column 'c'"),
        (["--domain", "-2:2", "--features", "a1,a3"], "a3"),
        (["--domain", "-2:2", "--one-d-optimizer", "recconcave"], "delta > 0"),
    ):
        res = runner.invoke(main, ["feasibility", str(data), *args])
        assert res.exit_code == 1 and message in res.output and "Traceback" not in res.output, res.output


def test_cli_fit_predict_show_halfspace_feasibility(tmp_path):
    x = np.random.default_rng(0).integers(-8, 9, 600)
    data = tmp_path / "h.csv"
    data.write_text("x,y\n" + "\n".join(f"{v},{int(v >= 3)}" for v in x) + "\n")
    model = tmp_path / "m.json"
    runner = CliRunner()
    fit = ["fit", "halfspace-feasibility", str(data), "--label", "y", "--domain", "-8:8", "--epsilon", "5"]
    res = runner.invoke(main, [*fit, "--seed", "1", "-o", str(model)])
    assert res.exit_code == 0, res.output
    assert "erm learner, margin-1 dual" in res.output and "privacy spent: epsilon=5, delta=0" in res.output
    res = runner.invoke(main, ["predict", str(model), str(data)])
    assert res.exit_code == 0, res.output
    predicted = np.array([int(v) for v in res.output.split()[1:]])
    assert np.mean(predicted != (x >= 3)) <= 0.1
    res = runner.invoke(main, ["show", str(model)])
    assert res.exit_code == 0 and "predict 1 iff <a, x> + c >= 0" in res.output
    res = runner.invoke(main, [*fit, "--set", "learner=pac", "--set", "mode=paper", "-o", str(model)])
    assert res.exit_code == 0 and "pac learner, paper dual" in res.output, res.output
    fit[fit.index("-8:8")] = "-4:4"
    res = runner.invoke(main, [*fit, "-o", str(model)])
    assert res.exit_code == 1 and "outside the declared grid [-4, 4]" in res.output


@pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")
def test_centerpoint_command(tmp_path):
    from fractions import Fraction

    from privpac.estimators import PrivateCenterPoint

    rng = np.random.default_rng(4)
    k = rng.integers(-3, 4, size=300)
    X = np.column_stack([k, k])  # a thin diagonal: a center point must lie on it
    data = tmp_path / "points.csv"
    data.write_text("x,y,z\n" + "\n".join(f"{a},{b},7" for a, b in X) + "\n")
    runner = CliRunner()
    res = runner.invoke(main, ["centerpoint", str(data), "--columns", "x,y", "--domain", "-3:3", "--seed", "2"])
    assert res.exit_code == 0, res.output
    want = PrivateCenterPoint(epsilon=1.0, domain=3, random_state=2).fit(X).center_
    exact = ", ".join(str(v) for v in want)
    assert f"private center point of (x, y): ({exact}) ~ (" in res.output
    assert want[0] == want[1] and all(isinstance(v, Fraction) for v in want)
    assert "privacy spent: epsilon=1, delta=0" in res.output and "FindTukey" in res.output
    assert "basic composition" in res.output  # the ledger
    res = runner.invoke(
        main,
        ["centerpoint", str(data), "--columns", "x", "--domain", "-3:3", "--epsilon", "0.5", "--seed", "1"],
    )
    assert res.exit_code == 0 and "privacy spent: epsilon=0.5, delta=0" in res.output
    args = ["centerpoint", str(data), "--domain", "-3:3", "--columns", "x,y"]
    res = runner.invoke(main, [*args, "--mode", "recconcave"])
    assert res.exit_code == 1 and "delta > 0" in res.output
    res = runner.invoke(main, ["centerpoint", str(data), "--columns", "x,w", "--domain", "-3:3"])
    assert res.exit_code == 1 and "columns not in" in res.output and "w" in res.output
    both = tmp_path / "xy.csv"
    both.write_text("x,y\n" + "\n".join(f"{a},{b}" for a, b in X) + "\n")
    res = runner.invoke(main, ["centerpoint", str(both), "--domain", "-3:3", "--seed", "2"])  # every column
    assert res.exit_code == 0 and f"private center point of (x, y): ({exact})" in res.output
    res = runner.invoke(main, ["centerpoint", str(data), "--columns", "x,z", "--domain", "-3:3"])
    assert res.exit_code == 1 and "outside the declared domain [-3, 3]" in res.output
    # a box off centre runs on its lattice, and refuses what lies outside
    res = runner.invoke(main, ["centerpoint", str(data), "--columns", "x,y", "--domain", "0:6"])
    assert res.exit_code == 1 and "= -3.0 lies outside the declared domain [0.0, 6.0]" in res.output
