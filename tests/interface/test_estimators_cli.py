import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.base import clone

from privpac.cli import main
from privpac.cli.domain_options import parse_domain
from privpac.cli.options import eval_int
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
        (["--domain", "-2:2", "--optimizer", "recconcave"], "delta > 0"),
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
    res = runner.invoke(main, [*fit, "--set", "learner=pac", "--set", "dual=paper", "-o", str(model)])
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
    res = runner.invoke(main, [*args, "--optimizer", "recconcave"])
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


# -- per-column bounds, score, histogram queries, option ranges, help without scikit-learn ---------


def _write(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows))
    return str(path)


@pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")
def test_per_column_bounds_reach_the_estimator_in_feature_order(tmp_path):
    from click import UsageError

    from privpac.cli.domain_options import read_domains

    cols, feats = ["x", "z", "y"], ["x", "z"]
    assert read_domains(("0:40:401",), None, cols, feats) == Grid(0.0, 40.0, 401)  # one spec: every feature
    assert read_domains(("x=0:3", "z=0:3"), None, cols, feats) == IntegerDomain(0, 3)  # equal: one domain
    grid = read_domains(("z=-1:1:201", "x=0:40"), None, cols, feats)  # order of --features, not of the options
    assert grid == Grid([0.0, -1.0], [40.0, 1.0], [41, 201])
    assert read_domains(("0:1:11", "z=-1:1:201"), None, cols, feats) == Grid([0.0, -1.0], [1.0, 1.0], [11, 201])
    bounds = tmp_path / "b.json"
    bounds.write_text('{"x": "0:40:401", "z": {"low": -1, "high": 1, "n_points": 201}, "y": [0, 1]}')
    assert read_domains((), str(bounds), cols, feats) == Grid([0.0, -1.0], [40.0, 1.0], [401, 201])
    assert read_domains(("x=0:4:5",), str(bounds), cols, feats) == Grid([0.0, -1.0], [4.0, 1.0], [5, 201])
    for specs, file_text, message in [
        (("x=0:40:401",), None, "no bounds for column 'z'"),
        (("x=0:4", "q=0:1"), None, "column 'q', which is not a column of the data"),
        (("x=0:4", "y=0:1"), None, "column 'y', which is not a feature"),
        (("x=0:4:1x", "z=0:1"), None, "column 'x': cannot read domain '0:4:1x'"),
        (("x=0:4", "x=0:5"), None, "column 'x' has two --domain bounds"),
        (("x=0:4", "z=norm:3"), None, "column 'z': per-column bounds are lo:hi or low:high:n_points"),
        ((), '{"x": "0:4", "w": "0:1"}', "--domain-file names 'w', not a column of the data"),
        ((), '{"x": "0:4", "z": true}', "column 'z': a bound is a spec"),
        ((), '{"x": "0:4", "z": {"low": 1}}', "column 'z'"),
        ((), None, "give the public bounds"),
    ]:
        if file_text is not None:
            bounds.write_text(file_text)
        with pytest.raises(UsageError, match=message):
            read_domains(specs, str(bounds) if file_text is not None else None, cols, feats)

    rng = np.random.default_rng(0)
    x, z = rng.uniform(0, 40, 300).round(1), rng.uniform(-1, 1, 300).round(2)
    data = _write(tmp_path / "r.csv", ["x", "z", "y"], zip(x, z, (x / 40 + z > 0.6).astype(int)))
    out = tmp_path / "m.json"
    runner = CliRunner()
    fit = ["fit", "rectangle", data, "--label", "y", "--seed", "1", "-o", str(out)]
    res = runner.invoke(main, [*fit, "--domain", "z=-1:1:201", "--domain", "x=0:40:401"])
    assert res.exit_code == 0, res.output
    assert load_model(out).domain_ == Grid([0.0, -1.0], [40.0, 1.0], [401, 201])  # saved, and loads
    res = runner.invoke(main, [*fit, "--domain", "x=0:40:401"])
    assert res.exit_code == 2 and "Error: no bounds for column 'z': add --domain z=lo:hi" in res.output


@pytest.mark.filterwarnings("ignore::privpac.errors.UnsafeConfigurationWarning")
def test_score_gives_accuracy_or_the_fit_statistic(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 1001, 1500)
    data = _write(tmp_path / "d.csv", ["x", "y"], zip(x, (x > 400).astype(int)))
    runner = CliRunner()
    common = ["--domain", "0:1000", "--seed", "2", "-o"]
    assert (
        runner.invoke(main, ["fit", "threshold", data, "--label", "y", *common, str(tmp_path / "t.json")]).exit_code
        == 0
    )
    res = runner.invoke(main, ["score", str(tmp_path / "t.json"), data, "--label", "y"])
    accuracy = load_model(tmp_path / "t.json").score(x.reshape(-1, 1), (x > 400).astype(int))
    assert res.exit_code == 0 and f"accuracy: {accuracy:.6g}" in res.output and "not a private release" in res.output
    only_x = _write(tmp_path / "x.csv", ["x"], zip(x))
    assert runner.invoke(main, ["fit", "median", only_x, *common, str(tmp_path / "m.json")]).exit_code == 0
    res = runner.invoke(main, ["score", str(tmp_path / "m.json"), only_x])
    assert res.exit_code == 0 and "rank error" in res.output and "records at or below the median" in res.output
    bad = _write(tmp_path / "bad.csv", ["x", "y"], [(3, 0), (500, 2), (700, 5)])
    for args, message in [
        ([str(tmp_path / "t.json"), data], "its score needs the true labels (--label)"),
        ([str(tmp_path / "t.json"), data, "--label", "w"], "label column 'w' not in"),
        ([str(tmp_path / "t.json"), bad, "--label", "y"], "labels 2, 5 are not among the model's public labels (0, 1)"),
    ]:
        res = runner.invoke(main, ["score", *args])
        assert res.exit_code == 1 and message in res.output and "Traceback" not in res.output, res.output
    san = tmp_path / "s.json"
    counts = _write(tmp_path / "c.csv", ["x", "n"], [(7, 200000), (100, 200000)])
    sanitize = ["sanitize", "san-points", counts, "--column", "x", "--counts", "n", "--domain", "0:255"]
    assert runner.invoke(main, [*sanitize, "--delta", "1e-3", "--alpha", "0.5", "-o", str(san)]).exit_code == 0
    res = runner.invoke(main, ["score", str(san), counts, "--features", "x"])
    assert res.exit_code == 1 and "is not a classifier and has no fit statistic; ask it counting queries" in res.output


@pytest.mark.filterwarnings("ignore::privpac.errors.UtilityWarning")
def test_model_scores_of_the_statistics():
    from privpac.estimators import PrivateCenterPoint, PrivateLinearFeasibility, PrivateMedian
    from privpac.geometry import tukey_depth
    from privpac.scoring import model_scores

    x = np.arange(101)
    median = PrivateMedian(domain=(0, 100), random_state=0).fit(x)
    median.median_index_ = 30  # a median off by 20 of 101 ranks: q = min(31, 71) = 31
    assert model_scores(median, x)[0][1] == pytest.approx(0.5 - 31 / 101)
    X = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1], [0, 0]] * 20)
    center = PrivateCenterPoint(domain=1, random_state=0).fit(X)
    assert dict(model_scores(center, X))["Tukey depth"] == tukey_depth(center.center_, X)
    A, b = np.array([[1, 0], [0, 1], [1, 1]] * 30), np.array([0, 0, 5] * 30)
    feasible = PrivateLinearFeasibility(domain=5, random_state=0).fit(A, b)
    feasible.solution_ = (1, 2)  # satisfies the first two constraints, not x + y >= 5
    assert dict(model_scores(feasible, A, b))["fraction satisfied"] == pytest.approx(2 / 3)


def test_histogram_counts_are_consistent_and_answer_queries(tmp_path):
    from privpac.estimators.histogram import bin_starts, project_to_simplex

    for size, n_bins in [(10, 3), (7, 7), (5, 8), (1000, 7)]:  # bins as floor(i n_bins / size), exactly
        i = np.arange(size)
        assert np.array_equal(np.searchsorted(bin_starts(size, n_bins), i, side="right") - 1, i * n_bins // size)
    v = np.array([5.0, -3.0, 12.0, 0.0, 1.0])
    c = project_to_simplex(v, 10.0)
    tau = (v - c)[c > 0]  # the projection: one shift on the positive part, zero where v is below it
    assert c.min() >= 0 and c.sum() == pytest.approx(10.0) and np.allclose(tau, tau[0]) and np.all(v[c == 0] <= tau[0])

    x = np.r_[np.arange(100), np.full(50, 7)]
    est = PrivateHistogram(epsilon=0.5, domain=(0, 99), n_bins=10, random_state=3).fit(x)
    fixed = est.consistent_counts_
    assert fixed.min() >= 0 and fixed.sum() == pytest.approx(150) and est.frequencies().sum() == pytest.approx(1)
    assert np.array_equal(est.bin_edges_, [0, 9.5, 19.5, 29.5, 39.5, 49.5, 59.5, 69.5, 79.5, 89.5, 99])
    assert est.count("x<=9") == pytest.approx(fixed[0]) and est.count("x>=0") == pytest.approx(150)
    assert est.count("x==7") == pytest.approx(fixed[0] / 10) and est.cut_bins("x==7") == [("[0, 9]", 1, 10)]
    assert est.count("5<=x<15") == pytest.approx(fixed[0] / 2 + fixed[1] / 2)
    assert est.count("x in {1, 2, 500}") == pytest.approx(fixed[0] / 5) and est.count("x>99") == 0
    assert est.answer("x<=49") == pytest.approx(fixed[:5].sum() / 150)
    assert any("-> " in line for line in est.summary())  # the raw and the consistent counts

    path = save_model(est, tmp_path / "h.json")
    res = CliRunner().invoke(main, ["query", str(path), "x<=49", "x==7"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == f"x<=49\t{fixed[:5].sum():.6g} records ({fixed[:5].sum() / 150:.4g} of n = 150)"
    assert lines[1].endswith("(cuts bin [0, 9]: 1 of its 10 values, that share of its count)")
    median = tmp_path / "m.json"
    data = _write(tmp_path / "x.csv", ["x"], zip(x))
    assert CliRunner().invoke(main, ["fit", "median", data, "--domain", "0:99", "-o", str(median)]).exit_code == 0
    res = CliRunner().invoke(main, ["query", str(median), "x<=3"])
    assert res.exit_code == 1 and "holds a PrivateMedian, which answers no counting queries" in res.output


def test_options_out_of_range_are_refused_before_anything_runs(tmp_path):
    runner = CliRunner()
    data = _write(tmp_path / "d.csv", ["x", "y"], [(1, 0), (5, 1)])
    for args, message in [
        (["audit", "laplace", "--confidence", "1.5"], "'--confidence': 1.5 is not in the range 0.0<x<1.0"),
        (["audit", "laplace", "--trials", "0"], "'--trials': 0 is not in the range x>=1"),
        (["audit", "laplace", "--epsilon", "0"], "'--epsilon': 0.0 is not in the range x>0"),
        (["fit", "threshold", data, "--label", "y", "--domain", "0:9", "--delta", "1", "-o", "m.json"], "'--delta'"),
        (
            ["fit", "threshold", data, "--label", "y", "--domain", "0:9", "--delta", "0.5", "-o", "m.json"],
            "'--delta': delta must be below 1/2, got 0.5: (epsilon, delta)-DP with delta >= 1/2 promises nothing",
        ),
        (["audit", "laplace", "--delta", "-0.1"], "'--delta': -0.1 is not in the range 0.0<=x<0.5"),
        (["median", data, "--domain", "0:9", "--alpha", "0"], "'--alpha'"),
        (
            ["sanitize", "san-points", data, "--column", "x", "--domain", "0:9", "--size", "0", "-o", "s.csv"],
            "'--size'",
        ),
        (["bounds", "bns-exponential-learner", "--beta", "2"], "'--beta'"),
    ]:
        res = runner.invoke(main, args)  # click's usage error (exit 2): the command itself never started
        assert res.exit_code == 2 and message in res.output, res.output
        assert "Audit" not in res.output and not (tmp_path / "m.json").exists()


def test_help_imports_no_scikit_learn_and_lists_every_model():
    import subprocess
    import sys

    from privpac.cli.models import _settable, model_table
    from privpac.estimators import MODELS

    table = model_table()  # read from the source, as `privpac fit --help` does
    assert [(name, cls) for name, cls, _ in table] == sorted((name, c.__name__) for name, c in MODELS.items())
    for name, _, keys in table:
        assert sorted(keys) == _settable(MODELS[name]), name
    script = (
        "import sys\nfrom click.testing import CliRunner\nfrom privpac.cli import main\n"
        "for args in ([], ['fit'], ['score'], ['query'], ['audit'], ['bounds'], ['median'], ['centerpoint']):\n"
        "    result = CliRunner().invoke(main, [*args, '--help'])\n"
        "    assert result.exit_code == 0 and 'Usage' in result.output, (args, result.output)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy', 'matplotlib')))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stdout + result.stderr


@pytest.mark.filterwarnings(
    "ignore::privpac.errors.UtilityWarning", "ignore::privpac.errors.UnsafeConfigurationWarning"
)
def test_per_column_bounds_on_median_centerpoint_and_sanitize_match_one_domain(tmp_path):
    """--domain column=spec and --domain-file reach every command that reads bounds: the same release
    as the one --domain, seed for seed, and a file naming an unknown column refused by the command."""
    rng = np.random.default_rng(5)
    k = rng.integers(-3, 4, 300)
    data = _write(tmp_path / "d.csv", ["x", "y", "z"], zip(k, k, rng.integers(0, 100, 300)))
    bounds = tmp_path / "b.json"
    bounds.write_text('{"x": "-3:3", "y": [-3, 3], "z": "0:99"}')
    runner = CliRunner()

    def same(command, one, *per_column):
        base = runner.invoke(main, [*command, *one])
        assert base.exit_code == 0, base.output
        for args in per_column:
            res = runner.invoke(main, [*command, *args])
            assert res.exit_code == 0 and res.output == base.output, (args, res.output)

    center = ["centerpoint", data, "--columns", "x,y", "--seed", "2"]
    same(center, ["--domain", "-3:3"], ["--domain", "x=-3:3", "--domain", "y=-3:3"], ["--domain-file", str(bounds)])
    median = ["median", data, "--column", "z", "--seed", "2"]
    same(median, ["--domain", "0:99"], ["--domain", "z=0:99"], ["--domain-file", str(bounds)])
    counts = _write(tmp_path / "c.csv", ["x", "n"], [(7, 200000), (100, 200000)])
    sanitize = ["sanitize", "san-points", counts, "--column", "x", "--counts", "n", "--delta", "1e-3"]
    sanitize += ["--alpha", "0.5", "--seed", "2", "-o", str(tmp_path / "s.json")]
    same(sanitize, ["--domain", "0:255"], ["--domain", "x=0:255"])

    res = runner.invoke(main, [*median, "--domain", "q=0:99"])
    assert res.exit_code == 2 and "--domain names column 'q', which is not a column of the data" in res.output
    bounds.write_text('{"z": "0:99", "w": "0:1"}')
    res = runner.invoke(main, [*median, "--domain-file", str(bounds)])
    assert res.exit_code == 2 and "--domain-file names 'w', not a column of the data; columns: x, y, z" in res.output
    res = runner.invoke(main, [*median, "--domain", "z=0:99:abc"])
    assert res.exit_code == 2 and "column 'z': cannot read domain '0:99:abc'" in res.output
    res = runner.invoke(main, median)
    assert res.exit_code == 2 and "give the public bounds: --domain lo:hi" in res.output


def test_a_fit_reads_its_per_column_bounds_from_a_file_and_the_saved_model_keeps_them(tmp_path):
    rng = np.random.default_rng(6)
    x, z = rng.integers(0, 41, 400), rng.uniform(-1, 1, 400).round(2)
    data = _write(tmp_path / "r.csv", ["x", "z", "y"], zip(x, z, (x > 20).astype(int)))
    bounds = tmp_path / "b.json"
    bounds.write_text('{"z": {"low": -1, "high": 1, "n_points": 201}, "x": "0:40"}')
    out = tmp_path / "m.json"
    fit = ["fit", "rectangle", data, "--label", "y", "--seed", "1", "--domain-file", str(bounds), "-o", str(out)]
    res = CliRunner().invoke(main, fit)
    assert res.exit_code == 0, res.output
    assert load_model(out).domain_ == Grid([0.0, -1.0], [40.0, 1.0], [41, 201])  # x: its 41 integers
    res = CliRunner().invoke(main, ["predict", str(out), data])
    header, *predictions = res.output.split()
    assert res.exit_code == 0 and header == "prediction" and len(predictions) == 400
    assert set(predictions) <= {"0", "1"}
